#!/bin/bash
# stall.sh - a matching lcore stalled by the test hook (`spatectl debug
# stall WORKER MS`, refused unless spated.debug_hooks = true): it stops
# reporting RCU quiescent states, the grace-period watchdog warns through
# rte_log and counts rcu_slow while the stall lasts, then counts
# rcu_resumed once the grace period completes (reclamation runs again);
# a stream replayed across the stall still matches exactly, and so does
# one afterwards.
. "$(dirname "$0")/common.sh"

sock=$E2E_TMP/ctl.sock
ctl() { "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }
cpus=$(nproc)
# the matching worker on an lcore of its own, so the main lcore (and its
# watchdog) keeps running while the worker stalls
export NETNS_EAL_LCORES="--lcores=0@0,1@$((1 % cpus))"
mkconf() { # OUT HOOKS
	e2e_conf "$1" "rx = 0; tx = 0; cluster = 0; match = [ 1 ];"
	sed -i "s/^spated: {/spated: {\n  rcu_warn_ms = 200;\n  debug_hooks = $2;/" "$1"
	echo "control: { socket = \"$sock\"; };" >>"$1"
	grep -q "debug_hooks = $2;" "$1" || fail "could not write $1"
}
counter() { e2e_counter "$(netns_spated_stats)" "$1"; }

mkconf "$E2E_TMP/off.conf" false
SPATE_CONF=$E2E_TMP/off.conf
e2e_start
out=$(ctl debug stall 0 100 2>&1) && fail "debug stall accepted without debug_hooks: $out"
echo "$out" | grep -q "debug hooks are off" || fail "refusal without the reason: $out"
echo "ok: debug stall refused by default ($out)"

mkconf "$E2E_TMP/on.conf" true
SPATE_CONF=$E2E_TMP/on.conf
e2e_restart
for bad in "1 100" "0 0" "0 60001" "x 100"; do
	# shellcheck disable=SC2086 # two words
	ctl debug stall $bad >/dev/null 2>&1 && fail "debug stall $bad accepted"
done
[ "$(counter rcu_slow)" -eq 0 ] || fail "rcu_slow before any stall"
python3 "$E2E_DIR/gen-stream.py" --seed 11 --subs 300 --events 1500 >"$E2E_TMP/gen.tsv" ||
	fail "gen-stream.py"

# A 1.5 s stall, with a stream replayed across it: SUB_ADD ACKs come late
# (the worker applies them), the client retransmits, nothing is lost.
ctl debug stall 0 2000 >/dev/null || fail "debug stall 0 2000"
(e2e_replay_check "$E2E_TMP/gen.tsv" across-stall) >"$E2E_TMP/across.out" 2>&1 &
replay=$!
sleep 0.6
slow=$(counter rcu_slow)
[ "$slow" -ge 1 ] || fail "no rcu_slow count 600 ms into a 2000 ms stall (threshold 200 ms)"
grep -q "RCU grace period pending for" "$SPATED_LOG" || fail "no watchdog warning in the log"
wait "$replay" || { cat "$E2E_TMP/across.out"; fail "replay across the stall"; }
cat "$E2E_TMP/across.out"
resumed=$(counter rcu_resumed)
[ "$resumed" -ge 1 ] || fail "rcu_resumed is 0: no grace period completed after the stall"
grep -q "reclamation resumed" "$SPATED_LOG" || fail "no 'reclamation resumed' line"
grep "RCU grace period" "$SPATED_LOG" | sed 's/^/  log: /'

# A second stall, then the watchdog must count it as a new slow period;
# the probes keep completing afterwards (rcu_resumed catches up).
ctl debug stall 0 800 >/dev/null || fail "debug stall 0 800"
sleep 1.5
[ "$(counter rcu_slow)" -ge $((slow + 1)) ] || fail "the second stall was not counted"
stats=$(netns_spated_stats) || fail "no counters"
[ "$(e2e_counter "$stats" rcu_resumed)" -eq "$(e2e_counter "$stats" rcu_slow)" ] ||
	fail "a slow grace period never completed: $stats"
echo "ok: rcu_slow=$(e2e_counter "$stats" rcu_slow) rcu_resumed=$(e2e_counter "$stats" rcu_resumed)"
e2e_restart
e2e_replay_check "$E2E_DIR/data/interleaved.tsv" after-stall
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: stall"
