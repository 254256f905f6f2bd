#!/bin/bash
# badframes.sh - garbage, truncated, wrongly-checksummed and otherwise bad
# frames and datagrams: spated drops each into the right counter, NACKs
# refused messages, stays up, answers ping and still matches exactly.
. "$(dirname "$0")/common.sh"

e2e_start
e2e_ping 2
before=$(netns_spated_stats) || fail "no counters"
netns_cli timeout 60 python3 "$E2E_DIR/craft.py" --iface "$NETNS_CLI_IF" \
	--server-mac "$(netns_srv_mac)" --out "$E2E_TMP/expect.json" || fail "craft.py"
sleep 0.5
after=$(netns_spated_stats) || fail "no counters after the bad frames"
echo "$after"
python3 - "$before" "$after" "$E2E_TMP/expect.json" <<'PY' || fail "counters"
import json, sys
b, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
exp = json.load(open(sys.argv[3]))
bad = 0
for kind, cmp in (("eq", lambda d, n: d == n), ("ge", lambda d, n: d >= n)):
    for k, n in sorted(exp[kind].items()):
        d = a.get(k, 0) - b.get(k, 0)
        good = cmp(d, n)
        print("  %-20s %s %4d  got %4d  %s" % (k, "==" if kind == "eq" else ">=", n, d,
                                               "ok" if good else "WRONG"))
        bad += not good
for code in ("BAD_MAGIC", "TRUNCATED", "BAD_VERSION", "BAD_FLAGS", "BAD_LENGTH",
             "TOO_MANY_MESSAGES"):
    d = a["hdr_err"].get(code, 0) - b["hdr_err"].get(code, 0)
    print("  hdr_err.%-12s %4d%s" % (code, d, "" if d > 0 else "  WRONG (expected > 0)"))
    bad += d <= 0
sys.exit(1 if bad else 0)
PY
e2e_ping 3
e2e_replay_check "$E2E_DIR/data/interleaved.tsv" interleaved-after
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: bad frames"
