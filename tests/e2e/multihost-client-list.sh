#!/bin/bash
# multihost-client-list.sh - issue 23: clients with a list of servers
# follow a dead front themselves (docs/operations.md, "Clients with a
# list of servers"). The deployment of ha-net.sh without service
# addresses: a dead front's address does not move. The publisher and
# subscriber A use --server front1,front2, subscriber B front2,front1,
# the publisher with --failover-ms 500, the subscribers with the default
# 1000 (a loaded front may be slow to answer for more than half a
# second: a subscriber that moves while it only listens changes
# nothing, and it ends where the list says). HA_FAULT_S seconds in, front 1 gets
# SIGKILL: front 2 takes its subscriptions over (no address to take);
# the publisher and subscriber A find front 1 silent (keepalive probes
# unanswered) and move to front 2; nobody subscribes again (front 2
# holds A's subscriptions, owner and all). Checked against brute:
# every match of an event sent more than 1 s after the kill arrives
# exactly once, the missing ones are counted, and the publisher's own
# count of events sent to front 1 after its last answer covers every
# event sent after the kill with a match missing (those sent just
# before it died with front 1, which nobody can count). Last, subscriber A (its client id) starts
# again with the same list to delete 20 of its subscriptions: front 1
# does not answer, it moves to front 2, which ACKs the deletes: A's
# subscriptions are there, under A's ownership.
HA_NO_SERVICE=1
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"
. "$E2E_DIR/multihost-zk.sh"
. "$E2E_DIR/ha-net.sh"

HA_PUB_SERVERS="${HA_IP[f1]}:$HA_PORT,${HA_IP[f2]}:$HA_PORT"
HA_SUB_A_SERVERS=$HA_PUB_SERVERS
HA_SUB_B_SERVERS="${HA_IP[f2]}:$HA_PORT,${HA_IP[f1]}:$HA_PORT"
HA_CLIENT_OPTS=""
ha_up
ha_subscribe
HA_CLIENT_OPTS="--failover-ms 500" ha_publish
ha_sleep_into_stream "$HA_FAULT_S"
t_kill=$(date +%s%N)
kill -9 "${MH_PID[f1]}"
unset "MH_PID[f1]"
ha_check "$t_kill" 1000
for c in pub sub-a sub-b; do
	grep -h "server .* now \|failovers=" "$E2E_TMP/$c.err" | sed "s/^/  $c: /"
done
fo() { sed -n "s/.*failovers=\([0-9]*\).*/\1/p" "$E2E_TMP/$1.err" | tail -n 1; }
last() { sed -n "s/.*failovers=.* server=\([0-9.:]*\).*/\1/p" "$E2E_TMP/$1.err" | tail -n 1; }
[ "$(fo pub)" = 1 ] || fail "the publisher moved $(fo pub) times, want 1"
[ "$(fo sub-a)" -ge 1 ] || fail "subscriber A never left the dead front 1"
for c in pub sub-a sub-b; do
	[ "$(last $c)" = "${HA_IP[f2]}:$HA_PORT" ] || fail "$c ended on $(last $c), not on front 2"
done
grep -q "server ${HA_IP[f1]}:$HA_PORT .*now ${HA_IP[f2]}:$HA_PORT" "$E2E_TMP/pub.err" ||
	fail "the publisher did not move from front 1 to front 2"
unconf=$(sed -n "s/.*unconfirmed_events=\([0-9]*\).*/\1/p" "$E2E_TMP/pub.err" | tail -n 1)
read -r missing near <"$E2E_TMP/ev_missing_after"
echo "  events sent after the kill with a match missing: $missing (of $(cat "$E2E_TMP/ev_missing")" \
	"with one missing); the publisher's unconfirmed events: $unconf; sent within 1 s of the kill: $near"
[ "$missing" -gt 0 ] || fail "nothing lost after the kill: the test proved nothing"
[ "$unconf" -ge "$missing" ] || fail "the publisher counted $unconf events unconfirmed, $missing were lost"
[ "$unconf" -le "$near" ] || fail "the publisher counted $unconf events unconfirmed: more than it sent near the kill"
head -n 20 "$E2E_TMP/subs-a.tsv" | cut -f 2 | sed 's/^/unsub\t/' >"$E2E_TMP/unsub-a.tsv"
ip netns exec "$(mh_ns cli)" timeout 60 "$SPATE_BUILD/tools/spate-sub" --conf "$SPATE_CONF" \
	--server "$HA_SUB_A_SERVERS" --listen 198.18.0.2:45003 --client-id 11 \
	--retries 100 --duration 0.1 --out /dev/null "$E2E_TMP/unsub-a.tsv" 2>"$E2E_TMP/unsub-a.err" ||
	{ cat "$E2E_TMP/unsub-a.err"; fail "A's deletes through the list"; }
grep -h "server .* now \|acks=" "$E2E_TMP/unsub-a.err" | sed 's/^/  A again: /'
grep -q " acks=20 nacks=0 " "$E2E_TMP/unsub-a.err" || fail "A's 20 deletes not all ACKed"
[ "$(fo unsub-a)" = 1 ] || fail "A (again) moved $(fo unsub-a) times, want 1"
[ "$(ha_counter f2 takeovers)" = 1 ] || fail "front 2 took nothing over"
for h in m3 m4 m5 f2; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: multihost-client-list: window $(cat "$E2E_TMP/window_ms") ms, clients moved to front 2," \
	"service restored $(cat "$E2E_TMP/first_ms") ms after the kill"
