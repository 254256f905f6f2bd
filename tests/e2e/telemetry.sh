#!/bin/bash
# telemetry.sh - the stock dpdk-telemetry.py (package dpdk-dev) reads
# /spate/stats, /spate/errors and /spate/journal from a running spated,
# and the numbers agree with spated's own counters line.
. "$(dirname "$0")/common.sh"

tel=$(command -v dpdk-telemetry.py) || fail "dpdk-telemetry.py not installed (dpdk-dev)"
e2e_start
e2e_ping 2
prefix=spate-$$-$_netns_n   # netns_spated_start's --file-prefix
for c in /spate/stats /spate/errors /spate/journal; do
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
        "/spate/journal": ["enabled", "syncs"]}[cmd]
for k in keys:
    assert k in d[0], "%s lacks %s" % (cmd, k)
if cmd == "/spate/stats":
    assert d[0]["icmp_echo"] >= 2, d[0]
print("ok: %s (%d values)" % (cmd, len(d[0])))
PY
done
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: telemetry"
