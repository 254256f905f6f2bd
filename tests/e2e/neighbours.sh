#!/bin/bash
# neighbours.sh - notifications to hosts spated never heard from: 150
# receivers on addresses of the client namespace (more than a small
# neighbour table would hold), each notified twice; the first datagrams
# wait for the ARP answer (arp_held, arp_released), none is lost
# (no_neighbour 0). A receiver whose address nobody holds: its datagrams
# are held, then dropped after the ARP requests go unanswered
# (arp_unresolved), and spated keeps serving. Then a gateway: with
# ipv4 = "198.18.0.1/24" and gateway = the client namespace, a receiver
# at 10.77.0.1 (off the link, an address of the client namespace) is
# reached through the gateway's MAC; and the configurations a gateway
# cannot work with are refused with file:line.
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

gw_conf() { sed "s|^\(\s*\)ipv4 = \"[0-9.]*\";|\1ipv4 = \"$1\"; gateway = \"$2\";|" "$SPATE_CONF"; }
gw_conf 198.18.0.1/24 198.18.0.2 >"$E2E_TMP/gw.conf"
grep -q 'gateway = "198.18.0.2"' "$E2E_TMP/gw.conf" || fail "could not write the gateway config"
ip -n "$NETNS_CLI" addr add 10.77.0.1/32 dev lo || fail "cannot add 10.77.0.1"
# ARP answers only for the veth's own addresses: 10.77.0.1 is reachable
# through the gateway's MAC alone, not by asking for it on the link
netns_cli sysctl -qw net.ipv4.conf.all.arp_ignore=1 || fail "arp_ignore"
netns_spated_start "$SPATED_LOG" -c "$E2E_TMP/gw.conf" || fail "spated did not start with a gateway"
netns_cli timeout 60 python3 "$E2E_DIR/neighbours.py" --addrs 10.77.0.1 198.18.0.100 ||
	fail "receivers behind the gateway and on the link"
netns_spated_stop || fail "spated did not exit cleanly"
for bad in "198.18.0.1|198.18.0.2|needs the link's prefix" \
	"198.18.0.1/24|10.0.0.1|is not another address of the link" \
	"198.18.0.1/24|198.18.0.1|is not another address of the link" \
	"198.18.0.1/33|198.18.0.2|prefix length"; do
	IFS='|' read -r ip gw why <<<"$bad"
	gw_conf "$ip" "$gw" >"$E2E_TMP/bad-gw.conf"
	out=$("$SPATE_BUILD/app/spated" -c "$E2E_TMP/bad-gw.conf" --check-config 2>&1) &&
		fail "--check-config accepted ipv4 $ip, gateway $gw"
	echo "$out" | grep -q "bad-gw.conf:[0-9]*: .*$why" || fail "ipv4 $ip gateway $gw: $out"
done
echo "ok: gateway: a receiver off the link reached through it; 4 bad configurations refused with file:line"
echo "ok: neighbours"
