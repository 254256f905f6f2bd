#!/bin/bash
# replay.sh - end to end: streams replayed to spated over UDP give exactly
# the matches spate-match computes offline (same lib, brute engine).
. "$(dirname "$0")/common.sh"

python3 "$E2E_DIR/gen-stream.py" --seed 42 --subs 400 --events 4000 >"$E2E_TMP/gen.tsv" ||
	fail "gen-stream.py"
e2e_start
# Each stream starts from an empty matcher, as spate-match does: restart
# spated in between (subscriptions left by one stream would collide with
# the ids of the next).
e2e_replay_check "$E2E_DIR/data/interleaved.tsv" interleaved
e2e_restart
e2e_replay_check "$E2E_DIR/data/constraints.tsv" constraints
e2e_restart
e2e_replay_check "$E2E_TMP/gen.tsv" generated
stats=$(netns_spated_stats) || fail "no counters"
echo "$stats"
for c in bad_header ip_bad_csum udp_bad_csum tx_drops no_neighbour no_mbuf; do
	[ "$(e2e_counter "$stats" "$c")" -eq 0 ] || fail "counter $c is not 0"
done
[ "$(e2e_counter "$stats" events)" -ge 4000 ] || fail "fewer events than sent"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: replay"
