#!/bin/bash
# ports.sh - spated on two ports (two vdevs, spated.port.device a list):
# the usual client on the first link, a second namespace on the second
# link with its own subscriber. Replays stay exact through port 1; a
# subscriber that only the second link reaches gets its notifications
# (found by ARP on both ports, sent out of the one it answered on), and
# ping answers come back on each link.
. "$(dirname "$0")/common.sh"

netns_create || fail "cannot create the namespaces"
# the second link: a veth from spated's namespace to a third namespace
NS2=spate-cli2-$$
IF2S=sp2s$$
IF2C=sp2c$$
ip netns add "$NS2" || fail "ip netns add"
NETNS_NAMES="$NETNS_NAMES $NS2"
ip link add "$IF2S" netns "$NETNS_SRV" type veth peer name "$IF2C" netns "$NS2" || fail "veth"
ip netns exec "$NETNS_SRV" sysctl -qw "net.ipv6.conf.$IF2S.disable_ipv6=1" 2>/dev/null
ip netns exec "$NS2" sysctl -qw "net.ipv6.conf.$IF2C.disable_ipv6=1" 2>/dev/null
ip -n "$NETNS_SRV" link set "$IF2S" up || fail "link up"
ip -n "$NS2" link set lo up || fail "lo up"
ip -n "$NS2" addr add 198.18.0.77/24 dev "$IF2C" || fail "addr"
ip -n "$NS2" link set "$IF2C" up || fail "link up"
ip netns exec "$NS2" ethtool -K "$IF2C" tx off >/dev/null 2>&1 || fail "ethtool"

# a second --vdev in the EAL arguments: spated takes every port they
# bring (with spated.port.device a list it would create both itself)
export NETNS_EAL_EXTRA="--vdev=net_af_packet1,iface=$IF2S"
netns_spated_start "$SPATED_LOG" -c "$SPATE_CONF" || fail "spated did not start on two ports"
grep -q 'ports=2' "$SPATED_LOG" || fail "spated did not take both ports: $(grep ready "$SPATED_LOG")"
e2e_ping 2
ip netns exec "$NS2" ping -c 2 -i 0.2 -W 2 -w 10 "$NETNS_SRV_IP" >"$E2E_TMP/ping2" 2>&1 ||
	{ cat "$E2E_TMP/ping2"; fail "ping through the second port"; }
echo "ok: ping answered on both links"
e2e_replay_check "$E2E_DIR/data/interleaved.tsv" ports-interleaved
# a subscriber on the second link, subscribed from the first
ip netns exec "$NS2" timeout 30 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("198.18.0.77", 42077))
s.settimeout(20)
data = s.recv(65536)
sys.path.insert(0, sys.argv[1])
from spatecli import parse
print("ok: the second link got", [r for r in parse(data) if r[0] == "NOTIFY"])
' "$E2E_DIR" >"$E2E_TMP/sub2" 2>&1 &
sub2=$!
netns_track "$sub2"
sleep 1
netns_cli timeout 30 python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from spatecli import WORLD, Client, event, fail, sub_add
c = Client(61)
got = c.request([sub_add(7001, WORLD, ["two"], dest=("198.18.0.77", 42077))], timeout=5)
if got != [("ACK", 0, 7001)]:
    fail("SUB_ADD: %s" % got)
c.send([event(70, 0, 0, ["two"])])
print("ok: subscribed and published from the first link")
' "$E2E_DIR" || fail "client on the first link"
wait "$sub2" || { cat "$E2E_TMP/sub2"; fail "the subscriber on the second link got nothing"; }
grep -q "('NOTIFY', 70, \[7001\])" "$E2E_TMP/sub2" || { cat "$E2E_TMP/sub2"; fail "wrong notification"; }
cat "$E2E_TMP/sub2"
stats=$(netns_spated_stats) || fail "no counters"
for c in no_neighbour tx_drops arp_unresolved; do
	[ "$(e2e_counter "$stats" "$c")" -eq 0 ] || fail "counter $c is not 0"
done
netns_spated_stop || fail "spated did not exit cleanly"

# the configuration's form of the same: a list of vdevs, at most 4
list_conf() { sed "s|^\(\s*\)device = \"[^\"]*\";|\1device = [ $1 ];|" "$SPATE_CONF"; }
list_conf '"net_af_packet0,iface=a", "net_af_packet1,iface=b"' >"$E2E_TMP/two.conf"
grep -q 'device = \[' "$E2E_TMP/two.conf" || fail "could not write the device list"
"$SPATE_BUILD/app/spated" -c "$E2E_TMP/two.conf" --check-config >/dev/null 2>&1 ||
	fail "--check-config refused a list of two devices"
list_conf '"n0", "n1", "n2", "n3", "n4"' >"$E2E_TMP/five.conf"
out=$("$SPATE_BUILD/app/spated" -c "$E2E_TMP/five.conf" --check-config 2>&1) &&
	fail "--check-config accepted five devices"
echo "$out" | grep -q "five.conf:[0-9]*: spated.port.device must be a vdev string or a list of 1 to 4" ||
	fail "five devices: $out"
echo "ok: spated.port.device as a list (2 accepted, 5 refused with file:line)"
echo "ok: ports"
