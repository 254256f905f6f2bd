#!/bin/bash
# telemetry.sh - the stock dpdk-telemetry.py (package dpdk-dev) reads
# /spate/stats, /spate/errors, /spate/journal and /spate/params from a
# running spated, and the numbers agree with spated's own counters line;
# /spate/params reports what runs: drt.workers is 2 with two matching
# workers (the file says 1), as spatectl says.
. "$(dirname "$0")/common.sh"

tel=$(command -v dpdk-telemetry.py) || fail "dpdk-telemetry.py not installed (dpdk-dev)"
cpus=$(nproc)
export NETNS_EAL_LCORES="--lcores=0@0,1@$((1 % cpus)),2@$((2 % cpus))"
SPATE_CONF=$E2E_TMP/spated.conf
e2e_conf "$SPATE_CONF" "rx = 0; tx = 0; cluster = 0; match = [ 1, 2 ];" "workers = 1;"
cat >>"$SPATE_CONF" <<CONF
control: { socket = "$E2E_TMP/ctl.sock"; };
CONF
e2e_start
e2e_ping 2
prefix=spate-$$-$_netns_n   # netns_spated_start's --file-prefix
for c in /spate/stats /spate/errors /spate/journal /spate/params; do
	echo "$c" | timeout 20 python3 "$tel" -f "$prefix" >"$E2E_TMP/tel.out" 2>&1 ||
		{ cat "$E2E_TMP/tel.out"; fail "dpdk-telemetry.py $c"; }
	python3 - "$c" "$E2E_TMP/tel.out" <<'PY' || { cat "$E2E_TMP/tel.out"; fail "$c"; }
import json, sys
cmd, text = sys.argv[1], open(sys.argv[2]).read()
# Without a terminal the client prints one JSON object per line: the
# greeting, then each answer.
answers = [json.loads(l) for l in text.splitlines() if l.startswith("{")]
d = [a[cmd] for a in answers if cmd in a]
assert d, "no answer for %s in %r" % (cmd, text)
keys = {"/spate/stats": ["rx", "icmp_echo", "polls"],
        "/spate/errors": ["hdr_BAD_MAGIC", "msg_NOT_OWNER", "hdr_AUTH_FAILED"],
        "/spate/journal": ["enabled", "syncs"],
        "/spate/params": ["drt", "limits", "quotas", "journal", "access", "spated"]}[cmd]
for k in keys:
    assert k in d[0], "%s lacks %s" % (cmd, k)
if cmd == "/spate/stats":
    assert d[0]["icmp_echo"] >= 2, d[0]
if cmd == "/spate/params":
    p = d[0]
    assert p["drt"]["workers"] == 2, p             # what runs, not the file's 1
    assert p["limits"]["max_keywords"] == 16, p    # integers as numbers
    assert p["drt"]["alpha"] == "0.2", p
    assert p["journal"]["sync"] == "always", p
    assert p["spated"]["idle_spin_us"] == 1000, p
print("ok: %s (%d values)" % (cmd, len(d[0])))
PY
done
echo "/spate/params,drt.alpha" | timeout 20 python3 "$tel" -f "$prefix" >"$E2E_TMP/tel.out" 2>&1 ||
	fail "dpdk-telemetry.py /spate/params,drt.alpha"
grep -qF '{"/spate/params": {"drt": {"alpha": "0.2"}}}' "$E2E_TMP/tel.out" ||
	{ cat "$E2E_TMP/tel.out"; fail "/spate/params,drt.alpha"; }
got=$("$SPATE_BUILD/tools/spatectl" -s "$E2E_TMP/ctl.sock" get drt.workers) || fail "spatectl get"
[ "$got" = "drt.workers: 2" ] || fail "spatectl: '$got', want drt.workers: 2"
echo "ok: drt.workers is the 2 matching workers running"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: telemetry"
