#!/bin/bash
# receivers.sh - more NOTIFY receivers than the receiver table holds:
# nothing lost, sequence numbers restart for evicted receivers, and the
# evictions are counted (receiver_evicted).
. "$(dirname "$0")/common.sh"

e2e_start
before=$(netns_spated_stats) || fail "no counters"
netns_cli timeout 60 python3 "$E2E_DIR/receivers.py" >"$E2E_TMP/out" ||
	{ cat "$E2E_TMP/out"; fail "receivers"; }
head -n 1 "$E2E_TMP/out"
restarted=$(tail -n 1 "$E2E_TMP/out")
after=$(netns_spated_stats) || fail "no counters"
evicted=$(($(e2e_counter "$after" receiver_evicted) - $(e2e_counter "$before" receiver_evicted)))
# each event puts 300 receivers through 256 entries: 44 evictions at least
# each time; the restarted ones of the second event were all evicted
[ "$evicted" -ge 88 ] && [ "$evicted" -ge "$restarted" ] ||
	fail "receiver_evicted grew by $evicted ($restarted restarted)"
echo "ok: receiver_evicted +$evicted"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: receivers"
