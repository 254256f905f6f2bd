#!/bin/bash
# multihost-rolling.sh - issue 23: a rolling restart under load, as
# docs/operations.md ("Rolling restart") says to do it. The deployment of
# ha-net.sh, events at HA_RATE/s to front 1's service address; from 3 s
# into the stream every host in turn - f1, f2, m3, m4, m5 - is stopped
# (SIGTERM, what systemctl restart does) and started again, the next one
# only once `spatectl show cluster` on another host lists it up again
# (and, before a front is stopped, once the other front holds a complete
# copy of it). Front 1's service goes to front 2 and front 1 comes back
# as its standby; then front 2's two services go to front 1. Checked
# against brute: every match of an event sent more than 1 s after each
# stop arrives exactly once (so no acknowledged subscription was lost),
# the missing ones are counted per stop, and the events the fronts count
# as lost on the match hosts that went (events_lost_host) cover every
# event with a match missing after a match host's stop. The services
# end on front 1, front 2 its standby with a copy of all subscriptions.
HA_EVENTS=${HA_EVENTS:-8000}
HA_EVENTS_SAN=${HA_EVENTS_SAN:-8000}
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"
. "$E2E_DIR/multihost-zk.sh"
. "$E2E_DIR/ha-net.sh"

# cluster HOST: `spatectl show cluster` on HOST, as JSON
cluster() { "$SPATE_BUILD/tools/spatectl" -p "multihost-$$-$1" --json show cluster 2>/dev/null; }
# listed OBSERVER ID [COPY]: OBSERVER lists host ID up (with COPY: and
# holds a complete copy of at least COPY of its subscriptions)
listed() {
	cluster "$1" | python3 -c '
import json, sys
want, copy = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else -1
c = json.load(sys.stdin)
p = [x for x in c.get("peers", []) if x.get("host") == want]
ok = p and p[0].get("state") == "up"
if ok and copy >= 0:
    ok = p[0].get("copy") == "complete" and p[0].get("copy_subs", 0) >= copy
sys.exit(0 if ok else 1)' "$2" ${3:-}
}

MH_T0=$(date +%s)
ha_run_into_stream 3
faults=""
t_start=$(date +%s)
for h in f1 f2 m3 m4 m5; do
	obs=f2
	[ "$h" = f2 ] && obs=f1
	case $h in
	f*) # the other front ready to take it over
		ha_wait_for listed "$obs" "${HA_ID[$h]}" 1 ||
			{ cluster "$obs"; fail "$obs holds no complete copy of $h"; } ;;
	esac
	t=$(date +%s%N)
	faults="$faults${faults:+,}$t"
	mh_stop "$h" || fail "$h did not stop cleanly"
	ha_start "$h"
	ha_wait_for listed "$obs" "${HA_ID[$h]}" || { cluster "$obs"; mh_dump; fail "$obs does not list $h up again"; }
	mh_el "$h restarted and listed up by $obs ($(( ($(date +%s%N) - t) / 1000000 )) ms)"
done
echo "  every host restarted in $(( $(date +%s) - t_start )) s"
kill -0 "$HA_PUBPID" 2>/dev/null || fail "the stream ended before the last restart: raise HA_EVENTS"
ha_check "$faults" 1000
# lost on the match hosts that went (stops 3-5), counted by the fronts
lost_m=$(awk '$1 >= 3 { n += $2 } END { print n + 0 }' "$E2E_TMP/missing_by_fault")
counted=$(( $(ha_counter f1 events_lost_host) + $(ha_counter f2 events_lost_host) ))
echo "  events with a match missing after a match host's stop: $lost_m; counted by the fronts: $counted"
[ "$counted" -ge "$lost_m" ] || fail "the fronts counted $counted events lost on match hosts, $lost_m were"
# where the services end: front 1 serves both, front 2 is its standby
python3 - "$(cluster f1)" "$(cluster f2)" "$HA_SUBS" <<'PY' || fail "services"
import json, sys
f1, f2, subs = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
def peer(c, h):
    return next(p for p in c["peers"] if p["host"] == h)
print("  front 1 serves %d service addresses, front 2 %d; front 2's copy of front 1: %s, %d"
      % (f1["host"]["service_addresses"], f2["host"]["service_addresses"], peer(f2, 1)["copy"],
         peer(f2, 1)["copy_subs"]))
ok = (f1["host"]["service_addresses"] == 2 and f2["host"]["service_addresses"] == 0 and
      peer(f2, 1)["copy"] == "complete" and peer(f2, 1)["copy_subs"] == subs)
sys.exit(0 if ok else 1)
PY
for h in m3 m4 m5 f1 f2; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: multihost-rolling: 5 hosts restarted in turn under load, window $(cat "$E2E_TMP/window_ms") ms"
