#!/bin/bash
# multihost-front-kill.sh - issue 23, item 1: the front clients use dies. The
# deployment of ha-net.sh (2 fronts, 3 match hosts, ZooKeeper, journals),
# subscriber A through front 1's service address, B through front 2's,
# events at HA_RATE/s to front 1's; HA_FAULT_S seconds in, front 1 gets
# SIGKILL. Front 2 finds it silent, ZooKeeper fences it and gives its
# service to front 2, which feeds its copy of front 1's subscriptions
# into its own clustering, answers for front 1's service address and
# announces it (gratuitous ARP): the publisher keeps sending to the same
# address. Checked against brute: every match of an event sent more than
# 1 s after the kill arrives exactly once (so no acknowledged
# subscription was lost), the ones missing inside the window are counted
# and printed, and the first correct notification comes within 1 s; the
# match hosts never exit.
# Then front 1 comes back (what a supervisor does), HA_RETURN_S after
# the kill, under the same load. The rule (docs/multihost.md, "A front
# that comes back"): its service stays with front 2 - no handing back,
# so no flapping - and front 1 is front 2's standby: its journal set
# aside (front 2 holds those subscriptions now), it never answers for
# a service address (the conservation check above sees a split brain as
# duplicates or losses after the window), and it holds a complete copy
# of everything front 2 serves. Last, front 2 dies too: front 1 takes
# both services over with every one of the 3,000 subscriptions.
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"
. "$E2E_DIR/multihost-zk.sh"
. "$E2E_DIR/ha-net.sh"

ha_up
# front 2 holds a complete copy of front 1 (and front 1 of front 2)
ha_wait_for grep -q "front 2 (epoch [0-9]*) gets a copy" "$E2E_TMP/f1.log" ||
	fail "front 1 sent front 2 no copy"
ha_subscribe
[ "$(ha_counter f2 repl_in)" -ge "$(wc -l <"$E2E_TMP/subs-a.tsv")" ] ||
	fail "front 2 holds $(ha_counter f2 repl_in) copies of front 1's changes, want $(wc -l <"$E2E_TMP/subs-a.tsv")"
ha_publish
ha_sleep_into_stream "$HA_FAULT_S"
t_kill=$(date +%s%N)
kill -9 "${MH_PID[f1]}"
unset "MH_PID[f1]"
# back under load, once front 2 took its service over
ha_wait_for grep -q "took over front 1" "$E2E_TMP/f2.log" || { mh_dump; fail "no takeover"; }
sleep "${HA_RETURN_S:-1}"
ha_start f1
ha_wait_for grep -q "front 1 (epoch [0-9]*) gets a copy of $HA_SUBS subscriptions" "$E2E_TMP/f2.log" ||
	{ mh_dump; fail "the returning front 1 got no copy of front 2's $HA_SUBS subscriptions"; }
ha_check "$t_kill" 1000
for h in m3 m4 m5; do
	kill -0 "${MH_PID[$h]}" 2>/dev/null || fail "match host $h exited"
done
python3 - "$E2E_DIR" "$(mh_stats f2 "$E2E_TMP/f2.log")" "$(wc -l <"$E2E_TMP/subs-a.tsv")" <<'PY' || { mh_dump; fail "counters"; }
import sys
sys.path.insert(0, sys.argv[1])
from mh_counters import host, verdict
want = int(sys.argv[3])
# no match host died: nothing was lost on one
c, bad = host("front 2", sys.argv[2], (
    "peer_hb_dead", "zk_fences", "takeovers", "adopted_subs", "adopt_refused", "garp_sent",
    "repl_in", "repl_out", "repl_snapshots", "link_stalls"),
    zero=("repl_bad", "adopt_refused", "msg_no_memory", "peer_bad", "events_lost_host"))
if c.get("takeovers", 0) != 1:
    bad.append("takeovers %d, want 1" % c.get("takeovers", 0))
if c.get("adopted_subs", 0) != want:
    bad.append("adopted %d subscriptions of front 1, want %d" % (c.get("adopted_subs", 0), want))
if c.get("garp_sent", 0) == 0:
    bad.append("no gratuitous ARP")
sys.exit(verdict(bad))
PY
grep -h "took over\|serving\|fenced\|silent" "$E2E_TMP/f2.log" | sed 's/^/  f2: /'
# the returning front: a standby serving nothing, its journal aside
grep -h "a standby\|stale\|serving\|copy" "$E2E_TMP/f1.log" | sed 's/^/  f1 (back): /'
grep -q "serves 0 service(s): a standby" "$E2E_TMP/f1.log" || fail "the returning front 1 is no standby"
grep -q "service [0-9]*: serving" "$E2E_TMP/f1.log" && fail "the returning front 1 took a service back"
[ -z "$(grep -h "service [0-9]*: no more" "$E2E_TMP/f2.log")" ] || fail "front 2 gave a service up"
python3 - "$E2E_DIR" "$(mh_stats f1 "$E2E_TMP/f1.log")" "$HA_SUBS" <<'PY' || { mh_dump; fail "front 1's copy"; }
import sys
sys.path.insert(0, sys.argv[1])
from mh_counters import host, verdict
want = int(sys.argv[3])
c, bad = host("front 1 (back)", sys.argv[2],
              ("repl_in", "repl_bad", "takeovers", "garp_sent", "adopted_subs"),
              zero=("repl_bad", "takeovers", "garp_sent", "msg_no_memory"))
if c.get("repl_in", 0) < want + 2:
    bad.append("repl_in %d: not a whole copy of %d subscriptions" % (c.get("repl_in", 0), want))
sys.exit(verdict(bad))
PY
# front 2 dies too: its standby, front 1, takes both services over
kill -9 "${MH_PID[f2]}"
unset "MH_PID[f2]"
ha_wait_for grep -q "took over front 2" "$E2E_TMP/f1.log" || { mh_dump; fail "front 1 took nothing over"; }
ha_wait_for test "$(grep -c "service [0-9]*: serving" "$E2E_TMP/f1.log")" = 2 ||
	fail "front 1 does not serve both services"
grep -h "took over\|serving" "$E2E_TMP/f1.log" | sed 's/^/  f1: /'
[ "$(ha_counter f1 adopted_subs)" = "$HA_SUBS" ] ||
	fail "front 1 adopted $(ha_counter f1 adopted_subs) subscriptions, want $HA_SUBS"
for h in m3 m4 m5 f1; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: multihost-front-kill: window $(cat "$E2E_TMP/window_ms") ms, service restored" \
	"$(cat "$E2E_TMP/first_ms") ms after the kill; front 1 back as the standby, then took both over"
