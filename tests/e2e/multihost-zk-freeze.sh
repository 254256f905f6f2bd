#!/bin/bash
# multihost-zk-freeze.sh - issue 23: ZooKeeper frozen. The deployment of
# ha-net.sh (2 fronts, 3 match hosts, one ZooKeeper, zk_session_ms =
# 1000), HA_FAULT_S seconds into the stream the ZooKeeper server gets
# SIGSTOP for ZK_FREEZE_S (15) seconds, then SIGCONT: it wakes with
# every session past its timeout and expires them. Nobody died, so the
# data plane, which needs ZooKeeper only to fence the dead, goes on
# matching exactly: no host exits, every match of every event arrives
# exactly once (against brute), every host sees its connection go and
# gets its session back (kept, or expired and joined again under the
# same epoch: zk_rejoins), nobody is judged dead, fenced, failed over or
# taken over. Then the cluster still judges: m5 killed once ZooKeeper
# is back is fenced and failed over.
#
#   ZK_KILL=HOST  a match host dies while ZooKeeper is down (the
#                 documented behaviour, docs/operations.md): HOST gets
#                 SIGKILL ZK_KILL_S seconds into the freeze; the fronts
#                 find it silent and rebuild its categories on the others
#                 at once (every match of an event sent more than 1 s
#                 after the kill arrives, the missing ones inside are
#                 counted), its fence waits for ZooKeeper and is carried
#                 out when it is back, and HOST restarted then gets work
#                 back (multihost-zk-down-kill.sh).
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"
. "$E2E_DIR/multihost-zk.sh"
ZK_KILL=${ZK_KILL:-}
ZK_KILL_S=${ZK_KILL_S:-3}
ZK_FREEZE_S=${ZK_FREEZE_S:-15}
# the stream outlasts the freeze by about 5 s (250 events a second)
HA_FAULT_S=${HA_FAULT_S:-5}
HA_EVENTS=${HA_EVENTS:-$(( (HA_FAULT_S + ZK_FREEZE_S + 5) * ${HA_RATE:-250} ))}
HA_EVENTS_SAN=$HA_EVENTS
. "$E2E_DIR/ha-net.sh"

ha_run_into_stream "$HA_FAULT_S"
t_stop=$(date +%s%N)
kill -STOP "$MH_ZK_PID" || fail "SIGSTOP ZooKeeper"
# ZooKeeper's network goes too while it is frozen: a stopped server's
# kernel still accepts the hosts' reconnects, and on SIGCONT the server
# may read them before its expirer runs and keep every session (seen
# in a CI run under ASan: "0 of 5 expired", nothing tested). Unreachable
# until it has woken and expired them, it expires them every time.
ip -n "$MH_BR" link set br1 down || fail "ZooKeeper's bridge down"
t_fault=$t_stop
if [ -n "$ZK_KILL" ]; then
	sleep "$ZK_KILL_S"
	[ "$(ha_counter "$ZK_KILL" cats_visited)" -gt 0 ] || fail "$ZK_KILL matched nothing before the kill"
	t_fault=$(date +%s%N)
	kill -9 "${MH_PID[$ZK_KILL]}"
	unset "MH_PID[$ZK_KILL]"
	HA_HOSTS=${HA_HOSTS/$ZK_KILL/}
fi
python3 -c "import time; time.sleep(max(0, ($t_stop + $ZK_FREEZE_S * 1e9 - $(date +%s%N)) / 1e9))"
kill -CONT "$MH_ZK_PID"
echo "  ZooKeeper frozen $(( ($(date +%s%N) - t_stop) / 1000000 )) ms"
sleep 2 # its expirer's tick is 200 ms (tests/zk/zk-server.sh)
ip -n "$MH_BR" link set br1 up || fail "ZooKeeper's bridge up"
# every host saw its connection go, and settles once ZooKeeper answers:
# its session kept, or expired and joined again under the same epoch
# (30 s at most); none exits
settled() {
	local h lost back
	for h in $HA_HOSTS; do
		kill -0 "${MH_PID[$h]}" 2>/dev/null || return 0 # told below
		lost=$(grep -c "zookeeper: connection lost" "$E2E_TMP/$h.log")
		back=$(grep -c "zookeeper: reached again\|zookeeper: host [0-9]* joined again" \
			"$E2E_TMP/$h.log")
		[ "$lost" -ge 1 ] && [ "$back" -ge "$lost" ] || return 1
	done
}
alive() {
	local h st
	for h in $HA_HOSTS; do
		kill -0 "${MH_PID[$h]}" 2>/dev/null && continue
		st=0
		wait "${MH_PID[$h]}" || st=$?
		grep -v '"spated":' "$E2E_TMP/$h.log" | tail -n 5
		fail "$h exited (status $st) $1"
	done
}
ha_wait_for settled
alive "while ZooKeeper was frozen"
settled || { mh_dump; fail "a host did not get its ZooKeeper session back in 30 s"; }
logs=$(for h in $HA_HOSTS; do echo "$E2E_TMP/$h.log"; done)
# shellcheck disable=SC2086
grep -h "zookeeper: reached again\|joined again" $logs | sed 's/^/  /'
# shellcheck disable=SC2086
expired=$(cat $logs | grep -c "session expired")
echo "  sessions expired and joined again: $expired of $(echo $HA_HOSTS | wc -w)"
[ "$expired" -ge 1 ] || fail "no session expired: the freeze tested nothing"
ha_check "$t_fault" 1000
alive "after ZooKeeper came back"

# counters: nobody judged dead, fenced, failed over or taken over; with
# ZK_KILL, exactly that host, by both fronts, fenced once ZooKeeper was
# back
declare -a STATS
for h in $HA_HOSTS; do
	STATS+=("$h" "$(mh_stats "$h" "$E2E_TMP/$h.log")")
done
python3 - "${HA_ID[${ZK_KILL:-f1}]}" "$ZK_KILL" "${STATS[@]}" <<'PY' || { mh_dump; fail "counters"; }
import json, sys
killed_id, killed, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
bad = []
for h, js in zip(args[0::2], args[1::2]):
    c = json.loads(js)
    print("  %s: " % h + " ".join("%s=%d" % (k, c.get(k, 0)) for k in (
        "zk_rejoins", "peer_hb_dead", "zk_fences", "peer_hosts_down", "failover_cats",
        "takeovers", "quorum_waits", "link_stalls", "peer_down_dropped")))
    for k in ("repl_bad", "msg_no_memory", "peer_bad", "takeovers"):
        if c.get(k, 0):
            bad.append("%s: %s=%d" % (h, k, c[k]))
    if not killed:
        for k in ("peer_hb_dead", "zk_fences", "peer_hosts_down", "failover_cats",
                  "peer_down_dropped"):
            if c.get(k, 0):
                bad.append("%s: %s=%d, nobody died" % (h, k, c[k]))
        continue
    # one host died: each host lost exactly it (heartbeats, or its node
    # gone), the fronts rebuilt its categories and fenced it
    if c.get("peer_hosts_down", 0) != 1:
        bad.append("%s: peer_hosts_down=%d, want 1" % (h, c.get("peer_hosts_down", 0)))
    if h.startswith("f"):
        for k in ("peer_hb_dead", "failover_cats", "zk_fences"):
            if c.get(k, 0) < 1:
                bad.append("%s: %s=0" % (h, k))
if bad:
    print("  WRONG: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY

if [ -n "$ZK_KILL" ]; then
	# what the fronts did with the dead host while ZooKeeper was away
	grep -h "silent\|rebuilt\|fenced\|connection lost" "$E2E_TMP/f1.log" | sed 's/^/  f1: /'
	# restarted with ZooKeeper back: a new incarnation that balancing
	# fills again although the load is steady
	ha_start "$ZK_KILL"
	HA_HOSTS="$HA_HOSTS $ZK_KILL"
	ip netns exec "$(mh_ns cli)" ping -c 1 -W 2 "${HA_IP[$ZK_KILL]}" >/dev/null ||
		fail "ping the restarted $ZK_KILL"
	HA_EVENTS_2=$(( 3 * HA_RATE ))
	tail -n "$HA_EVENTS_2" "$E2E_TMP/events.tsv" | awk -F'\t' -v OFS='\t' '{ $2 += 2000000; print }' \
		>"$E2E_TMP/events-2.tsv"
	ip netns exec "$(mh_ns cli)" timeout 120 "$SPATE_BUILD/tools/spate-pub" --conf "$SPATE_CONF" \
		--server "$HA_SVC1:$HA_PORT" --rate "$HA_RATE" --quiet "$E2E_TMP/events-2.tsv" \
		2>"$E2E_TMP/pub-2.err" || { cat "$E2E_TMP/pub-2.err"; fail "spate-pub after the restart"; }
	got_work() { [ "$(ha_counter "$ZK_KILL" cats_visited)" -gt 0 ]; }
	ha_wait_for got_work || { mh_dump; fail "the restarted $ZK_KILL got no work back"; }
	echo "  the restarted $ZK_KILL matched in $(ha_counter "$ZK_KILL" cats_visited) category visits"
else
	# ZooKeeper back, the cluster still judges: m5 killed, found silent,
	# fenced (its node deleted through the sessions joined again) and
	# rebuilt elsewhere
	kill -9 "${MH_PID[m5]}"
	unset "MH_PID[m5]"
	HA_HOSTS=${HA_HOSTS/m5/}
	failed_over() { [ "$(ha_counter f1 zk_fences)" -ge 1 ] && [ "$(ha_counter f1 failover_cats)" -ge 1 ]; }
	ha_wait_for failed_over ||
		{ mh_dump; fail "m5 killed after the freeze: not fenced and failed over"; }
	echo "  after the freeze, m5 killed: fenced, $(ha_counter f1 failover_cats) categories rebuilt"
fi
for h in $HA_HOSTS; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: $(basename "${ZK_NAME:-$0}" .sh): $expired sessions expired and joined again, no host exited," \
	"no match missing outside $(cat "$E2E_TMP/window_ms") ms after the ${ZK_KILL:+kill during the }freeze"
