#!/bin/bash
# neighbours.sh - notifications to hosts spated never heard from: 150
# receivers on addresses of the client namespace (more than a small
# neighbour table would hold), each notified twice; the first datagrams
# wait for the ARP answer (arp_held, arp_released), none is lost
# (no_neighbour 0). A receiver whose address nobody holds: its datagrams
# are held, then dropped after the ARP requests go unanswered
# (arp_unresolved), and spated keeps serving.
. "$(dirname "$0")/common.sh"

n=150
e2e_start
for i in $(seq 100 $((100 + n - 1))); do
	echo "addr add 198.18.0.$i/32 dev $NETNS_CLI_IF"
done | ip -n "$NETNS_CLI" -batch - || fail "cannot add the receivers' addresses"
before=$(netns_spated_stats) || fail "no counters"
netns_cli timeout 120 python3 "$E2E_DIR/neighbours.py" "$n" 198.18.0.99 ||
	fail "neighbours"
sleep 4.5 # the unanswered address: three requests, then its datagrams go
after=$(netns_spated_stats) || fail "no counters"
d() { echo $(($(e2e_counter "$after" "$1") - $(e2e_counter "$before" "$1"))); }
echo "arp_held $(d arp_held) arp_released $(d arp_released) arp_unresolved $(d arp_unresolved) no_neighbour $(d no_neighbour)"
[ "$(d arp_released)" -ge "$n" ] || fail "fewer than $n datagrams released after ARP"
[ "$(d arp_unresolved)" -ge 1 ] || fail "the unanswered address: nothing counted as arp_unresolved"
[ "$(d arp_held)" -eq $(($(d arp_released) + $(d arp_unresolved))) ] ||
	fail "held datagrams neither released nor dropped"
[ "$(d no_neighbour)" -eq 0 ] || fail "datagrams dropped for want of a neighbour"
e2e_ping 2
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: neighbours"
