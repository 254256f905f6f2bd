#!/bin/bash
# multihost-failover.sh - issue 9: a match host dies mid-stream. 1 front
# + 2 match hosts (1 and 2 matching lcores) on a data bridge, each also
# on a management bridge with a private ZooKeeper server. Membership and
# epochs come from ZooKeeper. After the subscriptions are in and a first
# replay is exact, match host 2 is killed with SIGKILL while events
# stream; its ZooKeeper session expires, the front rebuilds its
# categories on host 3 from its own copy of the subscriptions, and every
# event published after that must be matched exactly (equal to
# spate-match --engine brute). The outage window (kill -> rebuild done)
# is printed. Then host 2 starts again as a new incarnation (a new
# epoch), the front takes it back, and new subscriptions and events are
# exact again. Last the front is killed: its match hosts stay up and
# drop its categories, the front starts again, replays its journal, and
# new events are exact against all the subscriptions.
#   MH_REHOME=1   rehome.sh's settings (a load period of 4 events, few
#                 categories): categories are moving between the hosts
#                 when one dies, so handoffs from it are abandoned too
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"
. "$E2E_DIR/multihost-zk.sh"

python3 "$E2E_DIR/gen-stream.py" --seed 11 --subs 500 --events 5000 >"$E2E_TMP/all.tsv" ||
	fail "gen-stream.py"
python3 "$E2E_DIR/gen-stream.py" --seed 12 --subs 200 --events 1500 >"$E2E_TMP/more.tsv" ||
	fail "gen-stream.py"
# subs (with their deletes, in order) apart from the events; three slices
# of events; a later batch of new ids for after the restart
python3 - "$E2E_TMP" <<'PY' || fail "split"
import sys
d = sys.argv[1]
subs, evs = [], []
for line in open(d + "/all.tsv"):
    if line.startswith("#") or not line.strip():
        continue
    (evs if line.startswith("event") else subs).append(line)
open(d + "/subs.tsv", "w").writelines(subs)
open(d + "/e1.tsv", "w").writelines(evs[:1500])
open(d + "/emid.tsv", "w").writelines(evs[1500:3500])
open(d + "/e2.tsv", "w").writelines(evs[3500:])
more = []
for line in open(d + "/more.tsv"):
    if line.startswith("#") or not line.strip():
        continue
    f = line.rstrip("\n").split("\t")
    f[1] = str(int(f[1]) + 100000)  # new sub and event ids
    more.append("\t".join(f) + "\n")
open(d + "/s3e3.tsv", "w").writelines(more)
cat = lambda out, *ins: open(d + "/" + out, "w").writelines(
    sum((open(d + "/" + i).readlines() for i in ins), []))
cat("phase1.tsv", "subs.tsv", "e1.tsv")
cat("want2.tsv", "subs.tsv", "e2.tsv")
cat("want3.tsv", "subs.tsv", "s3e3.tsv")
# after the front's restart: the subscriptions of both batches, new events
e4 = []
for line in evs[3500:]:
    f = line.split("\t")
    f[1] = str(int(f[1]) + 200000)
    e4.append("\t".join(f))
open(d + "/e4.tsv", "w").writelines(e4)
open(d + "/want4.tsv", "w").writelines(subs + [l for l in more if not l.startswith("event")] + e4)
PY

mh_base "$(mh_rehome_drt)" front m1 m2 cli
mh_zk_net || fail "management network"
mh_zk_host front 198.19.0.1 && mh_zk_host m1 198.19.0.3 && mh_zk_host m2 198.19.0.4 ||
	fail "management interfaces"
mh_zk_start || fail "ZooKeeper did not start"
mh_conf "$E2E_TMP/front.conf" front 1 198.18.0.1 \
	'{ host = 2; ipv4 = "198.18.0.3"; lcores = 1; }, { host = 3; ipv4 = "198.18.0.4"; lcores = 2; }' \
	"" "$(mh_zk_conf 20000)" || fail "front conf"
echo "journal: { path = \"$E2E_TMP/front.journal\"; sync = \"always\"; };" >>"$E2E_TMP/front.conf"
mh_conf "$E2E_TMP/m2.conf" match 2 198.18.0.3 \
	'{ host = 1; ipv4 = "198.18.0.1"; }, { host = 3; ipv4 = "198.18.0.4"; lcores = 2; }' \
	"rx = 0; tx = 0; cluster = 0; match = [ 0 ];" "$(mh_zk_conf)" || fail "match conf"
mh_conf "$E2E_TMP/m3.conf" match 3 198.18.0.4 \
	'{ host = 1; ipv4 = "198.18.0.1"; }, { host = 2; ipv4 = "198.18.0.3"; lcores = 1; }' \
	"rx = 0; tx = 0; cluster = 0; match = [ 0, 0 ];" "$(mh_zk_conf)" || fail "match conf"
"$NETNS_SPATED" -c "$E2E_TMP/front.conf" --check-config >/dev/null || fail "front conf refused"
SPATED_LOG=$E2E_TMP/front.log
mh_spated m1 "$E2E_TMP/m2.conf" "$E2E_TMP/m1.log" || fail "match host 2 did not start"
mh_spated m2 "$E2E_TMP/m3.conf" "$E2E_TMP/m2.log" || fail "match host 3 did not start"
mh_spated front "$E2E_TMP/front.conf" "$SPATED_LOG" || fail "front did not start"
grep -q "2 of 2 peers present" "$SPATED_LOG" || fail "the front did not see both match hosts join"
for ip in 198.18.0.3 198.18.0.4; do
	ip netns exec "$(mh_ns cli)" ping -c 1 -W 2 "$ip" >/dev/null || fail "ping $ip"
done

CLI="--client-id 4242 --local 198.18.0.2:47999"
# replay STREAM OUT: from the client namespace, the same client every
# time. It stops after 2 s without a notification: a host just started
# may take more than the default 500 ms to send its first one (seen at
# load 20 after the front's restart: the replay ended before it).
replay() {
	ip netns exec "$(mh_ns cli)" timeout 300 "$SPATE_BUILD/tools/spate-replay" \
		--conf "$SPATE_CONF" --server "198.18.0.1:$NETNS_PORT" $CLI --idle-ms 2000 \
		--stream "$1" --out "$2.raw" 2>"$2.err"
}
# check NAME WANT_STREAM GOT: sorted notifications equal brute's
check() {
	"$SPATE_BUILD/tools/spate-match" --engine brute --conf "$SPATE_CONF" "$2" \
		2>/dev/null | sort >"$E2E_TMP/$1.want" || fail "spate-match $2"
	sort "$3.raw" >"$E2E_TMP/$1.got"
	if ! cmp -s "$E2E_TMP/$1.want" "$E2E_TMP/$1.got"; then
		diff "$E2E_TMP/$1.want" "$E2E_TMP/$1.got" | head -n 10
		cat "$3.err"
		mh_dump
		fail "$1: notifications differ from brute ($(wc -l <"$E2E_TMP/$1.want") expected," \
			"$(wc -l <"$E2E_TMP/$1.got") got)"
	fi
	echo "ok: $1: $(wc -l <"$E2E_TMP/$1.want") notifications identical to brute"
}
declare -A LOG=([front]=$SPATED_LOG [m1]=$E2E_TMP/m1.log [m2]=$E2E_TMP/m2.log)
counter() { # HOST NAME
	mh_stats "$1" "${LOG[$1]}" | python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1], 0))' "$2"
}

check_counters() {
python3 - "$(mh_stats front "$SPATED_LOG")" "$(mh_stats m2 "${LOG[m2]}")" <<'PY' || fail "counters"
import json, sys
bad = []
for name, js in zip(("front", "host 3"), sys.argv[1:]):
    c = json.loads(js)
    print("  %s: " % name + " ".join("%s=%d" % (k, c.get(k, 0)) for k in (
        "peer_hosts_down", "peer_hosts_up", "peer_down_dropped", "failover_cats", "failover_subs",
        "handoffs_abandoned", "peer_stale", "peer_moves", "peer_handoff_subs") if c.get(k, 0)))
    for k in ("peer_bad", "peer_handoff_bad", "msg_no_memory"):
        if c.get(k, 0):
            bad.append("%s: %s=%d" % (name, k, c[k]))
if bad:
    print("  WRONG: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
}
replay "$E2E_TMP/phase1.tsv" "$E2E_TMP/p1" || { mh_dump; fail "replay phase 1"; }
check before-kill "$E2E_TMP/phase1.tsv" "$E2E_TMP/p1"
[ "$(counter m1 cats_visited)" -gt 0 ] || fail "host 2 matched nothing before the kill"
# the placement map: the front writes it (at most once a second), the
# match hosts see its version through their watch
for i in $(seq 1 60); do
	[ "$(counter front zk_map_cats)" -gt 0 ] && [ "$(counter m2 zk_map_version)" -ge "$(counter front zk_map_version)" ] && break
	sleep 0.1
done
map_v=$(counter front zk_map_version)
[ "$(counter front zk_map_cats)" -gt 0 ] || fail "no placement map in ZooKeeper"
[ "$(counter m2 zk_map_version)" -ge "$map_v" ] || fail "host 3 did not see the placement map"
echo "ok: placement map version $map_v, $(counter front zk_map_cats) categories, seen by host 3"

# events stream; host 2 dies in the middle
replay "$E2E_TMP/emid.tsv" "$E2E_TMP/mid" &
mid=$!
sleep 0.3
t0=$(date +%s%N)
kill -9 "${MH_PID[m1]}"
unset "MH_PID[m1]"
for i in $(seq 1 200); do
	[ "$(counter front peer_hosts_down)" -ge 1 ] && break
	sleep 0.05
done
t1=$(date +%s%N)
[ "$(counter front peer_hosts_down)" -ge 1 ] || { mh_dump; fail "the front never saw host 2 leave"; }
wait "$mid" || fail "replay during the kill"
cats=$(counter front failover_cats)
subs=$(counter front failover_subs)
us=$(counter front failover_us)
[ "$cats" -gt 0 ] || { mh_dump; fail "no category was rebuilt"; }
echo "outage window: $(( (t1 - t0) / 1000000 )) ms from SIGKILL to the rebuild done" \
	"(session 1000 ms; $cats categories rebuilt from $subs subscriptions in $us us);" \
	"$(wc -l <"$E2E_TMP/mid.raw") notifications during it"

for i in $(seq 1 30); do
	[ "$(counter front zk_map_version)" -gt "$map_v" ] && break
	sleep 0.1
done
[ "$(counter front zk_map_version)" -gt "$map_v" ] || fail "the placement map was not rewritten after the failover"
replay "$E2E_TMP/e2.tsv" "$E2E_TMP/p2" || { mh_dump; fail "replay after the kill"; }
check after-kill "$E2E_TMP/want2.tsv" "$E2E_TMP/p2"

# host 2 again: a new incarnation, taken back by the front
mv "${LOG[m1]}" "$E2E_TMP/m1-killed.log"
mh_spated m1 "$E2E_TMP/m2.conf" "${LOG[m1]}" || fail "host 2 did not restart"
for i in $(seq 1 100); do
	[ "$(counter front peer_hosts_up)" -ge 3 ] && break
	sleep 0.05
done
[ "$(counter front peer_hosts_up)" -ge 3 ] || { mh_dump; fail "the front did not take host 2 back"; }
grep "zookeeper: host 2 epoch" "${LOG[m1]}" || fail "no new epoch in host 2's log"
ip netns exec "$(mh_ns cli)" ping -c 1 -W 2 198.18.0.3 >/dev/null || fail "ping the restarted host"
replay "$E2E_TMP/s3e3.tsv" "$E2E_TMP/p3" || { MH_LOGLINES=8 mh_dump; fail "replay after the restart"; }
check after-restart "$E2E_TMP/want3.tsv" "$E2E_TMP/p3"
echo "restarted host 2 matched in $(counter m1 cats_visited) category visits"
check_counters
# the front dies: its match hosts stay up and drop its categories (the
# ids were its own; a new incarnation numbers its categories from the
# same ids), the front starts again, recovers the subscriptions from its
# journal and places them anew
kill -9 "${MH_PID[front]}"
unset "MH_PID[front]"
for h in m1 m2; do
	for i in $(seq 1 100); do
		[ "$(counter "$h" front_cats_dropped)" -gt 0 ] && break
		kill -0 "${MH_PID[$h]}" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "${MH_PID[$h]}" 2>/dev/null || { st=0; wait "${MH_PID[$h]}" || st=$?;
		fail "$h exited (status $st) when its front died"; }
	[ "$(counter "$h" front_cats_dropped)" -gt 0 ] || { mh_dump; fail "$h dropped no category of the dead front"; }
	echo "ok: $h stayed up and dropped $(counter "$h" front_cats_dropped) categories of the dead front"
done
mv "$SPATED_LOG" "$SPATED_LOG.old"
mh_spated front "$E2E_TMP/front.conf" "$SPATED_LOG" || fail "the front did not start again"
grep -q 'replayed [1-9][0-9]* records' "$SPATED_LOG" || fail "the front replayed nothing"
echo "ok: the front's journal: $(grep -o 'replayed [0-9]* records[^,]*' "$SPATED_LOG")"
for ip in 198.18.0.3 198.18.0.4; do
	ip netns exec "$(mh_ns cli)" ping -c 1 -W 2 "$ip" >/dev/null || fail "ping $ip"
done
replay "$E2E_TMP/e4.tsv" "$E2E_TMP/p4" || { mh_dump; fail "replay after the front's restart"; }
check after-front-restart "$E2E_TMP/want4.tsv" "$E2E_TMP/p4"
check_counters
for h in m1 m2 front; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: multihost-failover"
