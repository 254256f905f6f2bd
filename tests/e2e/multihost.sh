#!/bin/bash
# multihost.sh - issue 9's first slice: 1 front + 2 match hosts, each a
# spated in its own namespace on a bridge; the front clusters and routes,
# the match hosts (one with two matching lcores) match and answer the
# client directly. Notifications must equal spate-match --engine brute
# on an interleaved stream and on a generated one. MH_LOSS (percent, via
# spated.peer_drop_ppm: this kernel has no sch_netem) makes every
# inter-host link lossy in both directions.
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"

loss_ppm=$(( ${MH_LOSS:-0} * 10000 ))
extra=""
[ "$loss_ppm" -gt 0 ] && extra="debug_hooks = true; peer_drop_ppm = $loss_ppm;"
python3 "$E2E_DIR/gen-stream.py" --seed 5 --subs 400 --events 3000 >"$E2E_TMP/gen.tsv" ||
	fail "gen-stream.py"
# no balancing period and no merging in this slice: moves between hosts
# are not built yet (docs/multihost.md)
MH_DRT="lambda = 1000000000; variant = \"fre\";"
SPATE_CONF=$E2E_TMP/base.conf
e2e_conf "$SPATE_CONF" "rx = 0; tx = 0; cluster = 0; match = [ 0 ];" "$MH_DRT"
mh_net front m1 m2 cli || fail "cannot build the namespaces"
mh_conf "$E2E_TMP/front.conf" front 1 198.18.0.1 \
	'{ host = 2; ipv4 = "198.18.0.3"; lcores = 1; }, { host = 3; ipv4 = "198.18.0.4"; lcores = 2; }' \
	"" "$extra" || fail "front conf"
for m in 2 3; do
	lc="rx = 0; tx = 0; cluster = 0; match = [ 0 ];"
	[ $m = 3 ] && lc="rx = 0; tx = 0; cluster = 0; match = [ 0, 0 ];"
	mh_conf "$E2E_TMP/m$m.conf" match $m 198.18.0.$((m + 1)) \
		'{ host = 1; ipv4 = "198.18.0.1"; }' "$lc" "$extra" || fail "match conf"
done
SPATED_LOG=$E2E_TMP/front.log
start_all() {
	mh_spated m1 "$E2E_TMP/m2.conf" "$E2E_TMP/m1.log" || fail "match host 2 did not start"
	mh_spated m2 "$E2E_TMP/m3.conf" "$E2E_TMP/m2.log" || fail "match host 3 did not start"
	mh_spated front "$E2E_TMP/front.conf" "$SPATED_LOG" || fail "front did not start"
	# the match hosts answer the client directly: let them learn its MAC
	for ip in 198.18.0.3 198.18.0.4; do
		ip netns exec "$(mh_ns cli)" ping -c 1 -W 2 "$ip" >/dev/null || fail "ping $ip"
	done
}
stop_all() {
	for h in front m1 m2; do
		mh_stop "$h" || fail "$h did not exit cleanly"
	done
}
start_all
mh_replay_check "$E2E_DIR/data/interleaved.tsv" mh-interleaved
stop_all
start_all
mh_replay_check "$E2E_TMP/gen.tsv" mh-generated
for h in front m1 m2; do
	st=$(mh_stats "$h" "$E2E_TMP/$h.log") || fail "$h: no counters"
	python3 - "$h" "$st" <<'PY' || fail "$h: counters"
import json, sys
h, st = sys.argv[1], json.loads(sys.argv[2])
keys = ("peer_frames_in", "peer_frames_out", "peer_retransmits", "peer_msgs_out", "peer_msgs_in",
        "peer_bad", "peer_stale", "peer_unknown_host", "peer_unsupported", "peer_window_full",
        "peer_dropped_test", "cat_unknown", "msg_no_memory", "events_routed", "cats_visited", "matches")
print("  %s: " % h + " ".join("%s=%d" % (k, st.get(k, 0)) for k in keys))
bad = [k for k in ("peer_bad", "peer_unknown_host", "peer_unsupported", "cat_unknown", "msg_no_memory")
       if st.get(k, 0)]
if h == "front" and st.get("events_routed", 0) == 0:
    bad.append("no events routed")
if h != "front" and st.get("cats_visited", 0) == 0:
    bad.append("this match host matched nothing")
if bad:
    print("  WRONG: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY
done
stop_all
echo "ok: multihost${MH_LOSS:+ (loss $MH_LOSS %)}"
