#!/bin/bash
# version.sh - every program answers --version with meson's project
# version ("NAME (Spate) VERSION", exit 0); a running spated gives the
# same version, its uptime, subscriptions and clients in `spatectl show
# version`, in DPDK telemetry (/spate/info) and in its counters line.
. "$(dirname "$0")/common.sh"

want=$(meson introspect "$SPATE_BUILD" --projectinfo |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])') || fail "meson introspect"
for p in app/spated tools/spatectl tools/spate-match tools/spate-bench tools/spate-replay \
	tools/spate-pub tools/spate-sub tools/spate-gen tools/spate-pcap tools/spate-probe; do
	got=$("$SPATE_BUILD/$p" --version) || fail "$p --version: exit $?"
	[ "$got" = "$(basename "$p") (Spate) $want" ] || fail "$p --version: '$got', want version $want"
done
echo "ok: 10 programs: --version = $want"

sock=$E2E_TMP/ctl.sock
cp "$SPATE_CONF" "$E2E_TMP/spated.conf"
echo "control: { socket = \"$sock\"; };" >>"$E2E_TMP/spated.conf"
SPATE_CONF=$E2E_TMP/spated.conf
e2e_start
# two clients: 3 subscriptions for client 7, 2 for client 8, kept
printf 'sub\t%d\t0\t0\t1\t1\tv\n' 1 2 3 >"$E2E_TMP/c7.tsv"
printf 'sub\t%d\t0\t0\t1\t1\tv\n' 4 5 >"$E2E_TMP/c8.tsv"
for c in 7 8; do
	netns_cli timeout 30 "$SPATE_BUILD/tools/spate-sub" --server "$NETNS_SRV_IP:$NETNS_PORT" \
		--client-id "$c" --duration 0.2 --out /dev/null "$E2E_TMP/c$c.tsv" 2>"$E2E_TMP/sub$c.err" ||
		{ cat "$E2E_TMP/sub$c.err"; fail "spate-sub client $c"; }
done

ctl() { "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }
ctl --json show version >"$E2E_TMP/v1.json" || fail "show version"
sleep 1.1
ctl --json show version >"$E2E_TMP/v2.json" || fail "show version"
ctl show version | grep -qx "version: $want" || fail "show version (text)"
python3 - "$E2E_TMP/v1.json" "$E2E_TMP/v2.json" "$want" <<'PY' || fail "show version"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["version"] == sys.argv[3], a
assert a["dpdk"].startswith("DPDK "), a
assert a["subscriptions"] == 5 and a["clients"] == 2, a
assert isinstance(a["uptime_s"], float) and 0 < a["uptime_s"] < b["uptime_s"] - 1.0, (a, b)
print("ok: show version: %s, %s, %d subscriptions of %d clients, up %.1f s"
      % (a["version"], a["dpdk"], a["subscriptions"], a["clients"], b["uptime_s"]))
PY

tel=$(command -v dpdk-telemetry.py) || fail "dpdk-telemetry.py not installed (dpdk-dev)"
prefix=spate-$$-$_netns_n   # netns_spated_start's --file-prefix
echo /spate/info | timeout 20 python3 "$tel" -f "$prefix" >"$E2E_TMP/tel.out" 2>&1 ||
	{ cat "$E2E_TMP/tel.out"; fail "dpdk-telemetry.py /spate/info"; }
python3 - "$E2E_TMP/tel.out" "$want" <<'PY' || { cat "$E2E_TMP/tel.out"; fail "/spate/info"; }
import json, sys
ans = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
d = [a["/spate/info"] for a in ans if "/spate/info" in a][0]
assert d["version"] == sys.argv[2] and d["subscriptions"] == 5 and d["clients"] == 2, d
assert d["uptime_s"] >= 1, d
print("ok: /spate/info %s" % d)
PY

stats=$(netns_spated_stats) || fail "no counters"
[ "$(e2e_counter "$stats" version)" = "$want" ] || fail "counters line: no version $want"
echo "ok: counters line: version $want"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: version"
