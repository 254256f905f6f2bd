#!/bin/bash
# ping.sh - spated answers ARP and ICMP echo for its address from the
# client namespace, and counts them.
. "$(dirname "$0")/common.sh"

e2e_start
e2e_ping 5
stats=$(netns_spated_stats) || fail "no counters"
echo "$stats"
[ "$(e2e_counter "$stats" icmp_echo)" -eq 5 ] || fail "icmp_echo != 5"
[ "$(e2e_counter "$stats" arp_replies)" -ge 1 ] || fail "no ARP reply counted"
[ "$(e2e_counter "$stats" tx_drops)" -eq 0 ] || fail "tx drops"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: ping"
