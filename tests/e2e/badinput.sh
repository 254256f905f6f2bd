#!/bin/bash
# badinput.sh - the bad-input matrix through a running spated
# (badinput.py): a known set of subscriptions is stored first; then zero
# and maximal counts, oversized keywords, out-of-range coordinates, NaN
# and infinite values, inverted rectangles, duplicate and unknown ids,
# out-of-domain constraints, lying lengths, refused headers, an ARP storm
# and frames for other addresses. Each case gets its documented NACK code
# (docs/protocol.md) or is a counted drop; spated keeps serving (ping),
# the counters moved by exactly what was sent, `spatectl show subs
# --count` is unchanged and events give exactly the brute-force
# notifications of the known set.
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/badinput-common.sh"

badinput_start
badinput_py setup
count0=$(ctl show subs --count | awk '/^count/ { print $2 }')
[ "$count0" = 150 ] || fail "show subs --count: '$count0' after the setup, want 150"
before=$(netns_spated_stats) || fail "no counters"
badinput_py matrix --iface "$NETNS_CLI_IF" --server-mac "$(netns_srv_mac)"
after=$(netns_spated_stats) || fail "no counters after the matrix"
badinput_counters "$before" "$after"
e2e_ping 2
badinput_py verify
count1=$(ctl show subs --count | awk '/^count/ { print $2 }')
[ "$count1" = "$count0" ] || fail "show subs --count: $count1 after the matrix, $count0 before"
echo "ok: $count1 subscriptions stored before and after"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: bad input"
