#!/bin/bash
# multihost.sh - issue 9: 1 front + 2 match hosts, each a spated in its
# own namespace on a bridge; the front clusters and routes, the match
# hosts (one with two matching lcores) match and answer the client
# directly, and categories move between lcores and between hosts as
# DRt-Cluster decides. Notifications must equal spate-match --engine
# brute on an interleaved stream and on a generated one.
#   MH_LOSS=P     P % of the inter-host frames dropped each way
#                 (spated.peer_drop_ppm: this kernel has no sch_netem)
#   MH_REHOME=1   rehome.sh's settings: a load period of 4 events, few
#                 categories allowed: dozens of moves and hundreds of
#                 merges, many between hosts, while events stream
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"

loss_ppm=$(( ${MH_LOSS:-0} * 10000 ))
extra=""
[ "$loss_ppm" -gt 0 ] && extra="debug_hooks = true; peer_drop_ppm = $loss_ppm;"
python3 "$E2E_DIR/gen-stream.py" --seed 5 --subs 400 --events 3000 >"$E2E_TMP/gen.tsv" ||
	fail "gen-stream.py"
mh_base "$(mh_rehome_drt)" front m1 m2 cli
mh_conf "$E2E_TMP/front.conf" front 1 198.18.0.1 \
	'{ host = 2; ipv4 = "198.18.0.3"; lcores = 1; }, { host = 3; ipv4 = "198.18.0.4"; lcores = 2; }' \
	"" "$extra" || fail "front conf"
# match hosts: their front, and each other (categories move directly)
mh_conf "$E2E_TMP/m2.conf" match 2 198.18.0.3 \
	'{ host = 1; ipv4 = "198.18.0.1"; }, { host = 3; ipv4 = "198.18.0.4"; lcores = 2; }' \
	"rx = 0; tx = 0; cluster = 0; match = [ 0 ];" "$extra" || fail "match conf"
mh_conf "$E2E_TMP/m3.conf" match 3 198.18.0.4 \
	'{ host = 1; ipv4 = "198.18.0.1"; }, { host = 2; ipv4 = "198.18.0.3"; lcores = 1; }' \
	"rx = 0; tx = 0; cluster = 0; match = [ 0, 0 ];" "$extra" || fail "match conf"
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
all=$(mh_stats_all front m1 m2) || fail "no counters"
python3 - "$E2E_DIR" "${MH_REHOME:-0}" "$all" <<'PY' || fail "counters"
import sys
sys.path.insert(0, sys.argv[1])
from mh_counters import read, total as tot_of, verdict
rehome = sys.argv[2] == "1"
keys = ("peer_frames_in", "peer_frames_out", "peer_retransmits", "peer_msgs_out", "peer_msgs_in",
        "peer_window_full", "peer_dropped_test", "peer_moves", "peer_handoff_subs",
        "peer_handoff_subs_in", "rehome_subs", "rehomes_out", "rehomes_in", "merges", "parked",
        "events_routed", "cats_visited", "matches")
st, bad = read(sys.argv[3], keys)
tot = lambda k: tot_of(st, k)
if st["front"].get("events_routed", 0) == 0:
    bad.append("no events routed")
for h in ("m1", "m2"):
    if st[h].get("cats_visited", 0) == 0:
        bad.append("%s matched nothing" % h)
if tot("rehomes_out") != tot("rehomes_in"):
    bad.append("categories handed off %d != received %d" % (tot("rehomes_out"), tot("rehomes_in")))
if tot("peer_handoff_subs") != tot("peer_handoff_subs_in"):
    bad.append("subscriptions shipped between hosts %d != received %d"
               % (tot("peer_handoff_subs"), tot("peer_handoff_subs_in")))
if rehome:
    moves = st["front"].get("peer_moves", 0)
    print("  moves between hosts: %d; DataTra: %d subscriptions shipped between hosts, %d between"
          " lcores of a host" % (moves, tot("peer_handoff_subs"), tot("rehome_subs")))
    if moves < 10:
        bad.append("fewer than 10 moves between hosts: the test did not rehome")
    if tot("merges") < 50:
        bad.append("fewer than 50 merges")
sys.exit(verdict(bad))
PY
# every host has a control socket; `show cluster` on the front and on a
# match host: members, roles, epochs, state, categories, channel health
ctl() { "$SPATE_BUILD/tools/spatectl" -p "multihost-$$-$1" --json show cluster; }
python3 - "$(ctl front)" "$(ctl m1)" <<'PY' || fail "spatectl show cluster"
import json, sys
front, m1 = (json.loads(a) for a in sys.argv[1:])
bad = []
def peer(view, host):
    return next((p for p in view["peers"] if p["host"] == host), None)
if front["host"]["role"] != "front" or m1["host"]["role"] != "match" or m1["host"]["host"] != 2:
    bad.append("roles or hosts wrong")
for h in (2, 3):
    p = peer(front, h)
    if p is None or p["role"] != "match" or p["state"] != "up" or p["epoch"] < 1:
        bad.append("front: host %d not an up match host: %s" % (h, p))
    elif p["categories"] == 0 or p["channel"]["rtt_us"] <= 0 or p["channel"]["sent"] == 0:
        bad.append("front: host %d has no categories or no RTT: %s" % (h, p))
p = peer(m1, 1)
if p is None or p["role"] != "front" or p["state"] != "up" or p["channel"]["received"] == 0:
    bad.append("host 2: its front is not up: %s" % p)
if m1["host"]["categories"] == 0 or front["host"]["auth"] != "hmac-sha256":
    bad.append("host 2 holds no category, or frames unsigned")
p = peer(front, 2)
print("  show cluster: front sees host 2 %s, epoch %d, %d categories, RTT %.0f us (min %.0f), %d retransmits"
      % (p["state"], p["epoch"], p["categories"], p["channel"]["rtt_us"], p["channel"]["rtt_min_us"],
         p["channel"]["retransmits"]))
if bad:
    print("  WRONG: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
"$SPATE_BUILD/tools/spatectl" -p "multihost-$$-m1" show categories >"$E2E_TMP/ctl.out" 2>&1 &&
	fail "show categories accepted on a match host"
grep -q "not on a match host" "$E2E_TMP/ctl.out" || { cat "$E2E_TMP/ctl.out"; fail "show categories on a match host: no clear refusal"; }
stop_all
echo "ok: multihost${MH_LOSS:+ (loss $MH_LOSS %)}${MH_REHOME:+ (rehoming)}"
