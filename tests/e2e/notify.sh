#!/bin/bash
# notify.sh - spated speaks systemd's notify protocol (Type=notify), with
# this test in systemd's place (tests/e2e/notify-listen.py on
# NOTIFY_SOCKET): READY=1 once it is up (after its ready line), STATUS=
# lines with subscriptions and events, WATCHDOG=1 about four times per
# WATCHDOG_USEC while every lcore progresses, none while a matching lcore
# is stalled (`spatectl debug stall`), again afterwards, and STOPPING=1
# on SIGTERM.
. "$(dirname "$0")/common.sh"

sock=$E2E_TMP/ctl.sock
notify=$E2E_TMP/notify.sock
log=$E2E_TMP/notify.jsonl
ctl() { "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }
export NETNS_EAL_LCORES="--lcores=0@0,1@$((1 % $(nproc)))"
e2e_conf "$E2E_TMP/n.conf" "rx = 0; tx = 0; cluster = 0; match = [ 1 ];"
sed -i "s/^spated: {/spated: {\n  debug_hooks = true;/" "$E2E_TMP/n.conf"
echo "control: { socket = \"$sock\"; };" >>"$E2E_TMP/n.conf"
SPATE_CONF=$E2E_TMP/n.conf

python3 "$E2E_DIR/notify-listen.py" "$notify" "$log" 90 &
listener=$!
trap 'kill $listener 2>/dev/null; e2e_cleanup' EXIT
for _ in $(seq 50); do [ -S "$notify" ] && break; sleep 0.1; done
[ -S "$notify" ] || fail "notify-listen.py did not bind"
# a 2 s watchdog: fed every 0.5 s
NOTIFY_SOCKET=$notify WATCHDOG_USEC=2000000 e2e_start
printf 'sub\t%d\t0\t0\t1\t1\tv\n' 1 2 3 >"$E2E_TMP/subs.tsv"
netns_cli timeout 30 "$SPATE_BUILD/tools/spate-sub" --server "$NETNS_SRV_IP:$NETNS_PORT" \
	--client-id 9 --duration 0.2 --out /dev/null "$E2E_TMP/subs.tsv" ||
	fail "spate-sub"
sleep 5.5 # a STATUS= line with the subscriptions (every 5 s)
t_stall=$(python3 -c 'import time; print(time.monotonic())')
ctl debug stall 0 3000 >/dev/null || fail "debug stall 0 3000"
sleep 5
netns_spated_stop || fail "spated did not exit cleanly"
sleep 0.3
kill "$listener" 2>/dev/null

python3 - "$log" "$t_stall" <<'PY' || { cat "$log"; fail "notify messages"; }
import json, sys
msgs = [json.loads(l) for l in open(sys.argv[1])]
t_stall = float(sys.argv[2])
def when(pred):
    return [m["t"] for m in msgs if pred(m["msg"])]
ready = when(lambda s: "READY=1" in s.split("\n"))
assert len(ready) == 1, "READY=1 sent %d times" % len(ready)
status = [m["msg"] for m in msgs if m["msg"].startswith("STATUS=up")]
assert any("3 subscriptions of 1 clients" in s for s in status), status
dog = when(lambda s: s == "WATCHDOG=1")
before = [t for t in dog if ready[0] < t < t_stall]
# fed every 0.5 s from READY to the stall (about 6 s): at least 8 times
assert len(before) >= 8, "only %d WATCHDOG=1 before the stall" % len(before)
gaps = [b - a for a, b in zip(before, before[1:])]
assert max(gaps) < 1.0, "a gap of %.2f s between feeds" % max(gaps)
# the stall (3 s from t_stall): none from 1 s in to its end
during = [t for t in dog if t_stall + 1.0 < t < t_stall + 3.0]
assert not during, "fed during the stall at %s" % [round(t - t_stall, 2) for t in during]
after = [t for t in dog if t > t_stall + 3.0]
assert len(after) >= 2, "not fed again after the stall (%d)" % len(after)
stop = when(lambda s: s.startswith("STOPPING=1"))
assert len(stop) == 1 and stop[0] > after[-1] - 1.0, "STOPPING=1: %s" % stop
print("ok: READY=1, %d STATUS= lines (%s), %d feeds before the stall (largest gap %.2f s), "
      "none for %.1f s during it, %d after, STOPPING=1"
      % (len(status), status[-1], len(before), max(gaps), 2.0, len(after)))
PY
grep -q "watchdog: an lcore made no progress" "$SPATED_LOG" || fail "no watchdog log line"
grep -q "watchdog: every lcore progresses again" "$SPATED_LOG" || fail "no recovery log line"
echo "ok: notify"
