#!/bin/bash
# noport.sh - with no port in the configuration and none probed by the
# EAL, spated stops (exit 1) and says how to bind a NIC, naming what it
# was given (--no-pci, or a PCI address no driver took); it never falls
# back to a demo device. With the port only in the EAL arguments (a
# --vdev, as a NIC's -a would be), `spatectl show config` lists the port
# actually in use.
. "$(dirname "$0")/common.sh"

spated=$SPATE_BUILD/app/spated
# the runs below that exit early leave their EAL runtime folder: the
# cleanup at exit removes it with the namespaces' ones
NETNS_PREFIXES="$NETNS_PREFIXES spate-noport-$$"
# the demo profile without its port (and without an eal list: the
# arguments come after --)
sed '/^  eal = /d; /device = "net_af_packet0,iface=spate0[^"]*";/d; /^  port: {/,/^  };/d' \
	"$SPATE_CONF" >"$E2E_TMP/noport.conf"
grep -q 'iface=spate0' "$E2E_TMP/noport.conf" && fail "the port is still in noport.conf"
"$spated" --check-config -c "$E2E_TMP/noport.conf" >/dev/null || fail "noport.conf refused"

# run_noport NAME EAL...: spated must exit 1 within 30 s with the advice
run_noport() {
	local name=$1 out=$E2E_TMP/$1.out
	shift
	timeout 30 "$spated" -c "$E2E_TMP/noport.conf" -- --no-huge -m 64 \
		--file-prefix="spate-noport-$$" -l 0 "$@" >"$out" 2>&1
	local rc=$?
	[ "$rc" -eq 1 ] || { cat "$out"; fail "$name: exit $rc, want 1"; }
	grep -q '^spated: ready' "$out" && fail "$name: spated started without a port"
	for want in "spated: no Ethernet port" "dpdk-devbind.py --bind=vfio-pci" \
		"modprobe vfio-pci" "noport.conf names none" 'eal = \[ "-a"'; do
		grep -q -- "$want" "$out" || { cat "$out"; fail "$name: no '$want' in the message"; }
	done
	echo "$out"
}
out=$(run_noport no-pci --no-pci) || { echo "$out"; exit 1; }
grep -q -- "--no-pci is among them" "$out" || { cat "$out"; fail "no-pci: not named"; }
echo "ok: no port, --no-pci: bind advice, exit 1"
# a PCI address nothing is bound to (a bus number no machine here has)
out=$(run_noport pci -a 0000:fe:1f.7) || { echo "$out"; exit 1; }
grep -q "They allow 0000:fe:1f.7, but no DPDK driver took it" "$out" ||
	{ cat "$out"; fail "pci: the allowed address not named"; }
echo "ok: no port, -a of an unbound address: bind advice naming it, exit 1"

# The port from the EAL arguments alone: show config lists it.
sock=$E2E_TMP/ctl.sock
echo "control: { socket = \"$sock\"; };" >>"$E2E_TMP/noport.conf"
netns_create || fail "cannot create the namespaces"
netns_spated_start "$SPATED_LOG" -c "$E2E_TMP/noport.conf" || fail "spated did not start"
"$SPATE_BUILD/tools/spatectl" -s "$sock" --json show config >"$E2E_TMP/config.json" ||
	fail "show config"
python3 - "$E2E_TMP/config.json" "$(netns_srv_mac)" <<'PY' || fail "show config: ports"
import json, sys
c = json.load(open(sys.argv[1]))["spated"]
assert c["devices"] == [], c["devices"]
ports = c["ports"]
assert len(ports) == 1, ports
p = ports[0]
assert p["port"] == 0 and p["name"] == "net_af_packet0" and p["driver"] == "net_af_packet", p
assert p["mac"].lower() == sys.argv[2].lower(), (p["mac"], sys.argv[2])
print("ok: show config: port 0 %s (%s) %s" % (p["name"], p["driver"], p["mac"]))
PY
e2e_ping 2
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: noport"
