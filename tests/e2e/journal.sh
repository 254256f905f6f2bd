#!/bin/bash
# journal.sh - crash safety of the subscription journal: spated is killed
# with -9 while a client streams SUB_ADDs and SUB_DELs, restarted, and
# then every ACKed add must be present and every ACKed delete gone
# (journal.py checks each with events); every operation that got no
# answer gets one when retransmitted. Garbage appended to the journal
# after a kill (a torn tail) is cut at the restart, losing nothing.
# Two layouts: one lcore with sync = always, and three lcores (two
# matching workers) with sync = interval. JOURNAL_ITERS kills per layout.
. "$(dirname "$0")/common.sh"

iters=${JOURNAL_ITERS:-3}
cpus=$(nproc)
export NETNS_EAL_LCORES="--lcores=0@0,1@$((1 % cpus)),2@$((2 % cpus))"
netns_create || fail "cannot create the namespaces"

kill9() {
	kill -KILL "$NETNS_SPATED_PID" 2>/dev/null
	wait "$NETNS_SPATED_PID" 2>/dev/null
	NETNS_SPATED_PID=""
}

# After a start: the garbage appended before it (torn=1) was cut.
check_cut() {
	local cut
	cut=$(grep -o 'cut [0-9]* bytes after the last good record' "$SPATED_LOG")
	if [ "$torn" = 1 ]; then
		[ -n "$cut" ] || fail "$name: garbage appended to the journal and no cut reported"
		echo "ok: $name: the torn tail was found and cut: $cut"
	elif [ -n "$cut" ]; then
		fail "$name: a journal written by spated alone was cut: $cut"
	fi
}

for layout in "1-lcore|rx = 0; tx = 0; cluster = 0; match = [ 0 ];|always" \
	"2-workers|rx = 0; tx = 0; cluster = 0; match = [ 1, 2 ];|interval"; do
	name=${layout%%|*}
	rest=${layout#*|}
	sync=${rest#*|}
	conf=$E2E_TMP/$name.conf
	jnl=$E2E_TMP/$name.journal
	state=$E2E_TMP/$name.state
	e2e_conf "$conf" "${rest%|*}"
	cat >>"$conf" <<CONF
journal: { path = "$jnl"; sync = "$sync"; sync_interval_us = 5000;
           compact_min = 256; compact_factor = 2; };
CONF
	torn=0
	for i in $(seq 1 "$iters"); do
		netns_spated_start "$SPATED_LOG" -c "$conf" || fail "$name: spated did not start ($i)"
		check_cut
		if [ "$i" -gt 1 ]; then
			netns_cli timeout 120 python3 "$E2E_DIR/journal.py" verify "$state" ||
				fail "$name: after kill $((i - 1))"
		fi
		netns_cli timeout 60 python3 "$E2E_DIR/journal.py" load "$state" 6 &
		load=$!
		netns_track "$load"
		sleep "$(python3 -c "import random; print(round(random.uniform(1.0, 3.5), 2))")"
		kill9
		wait "$load" || fail "$name: the load client failed"
		if [ $((i % 2)) -eq 0 ]; then
			head -c 37 /dev/urandom >>"$jnl"   # a torn, garbage tail
			torn=1
		else
			torn=0
		fi
		echo "ok: $name: killed with -9 ($i of $iters)$([ $torn = 1 ] && echo ', garbage appended')"
	done
	# the last kill, then a clean stop and start: both keep everything
	netns_spated_start "$SPATED_LOG" -c "$conf" || fail "$name: spated did not start"
	check_cut
	netns_cli timeout 120 python3 "$E2E_DIR/journal.py" verify "$state" ||
		fail "$name: after the last kill"
	stats=$(netns_spated_stats) || fail "$name: no counters"
	netns_spated_stop || fail "$name: spated did not exit cleanly"
	netns_spated_start "$SPATED_LOG" -c "$conf" || fail "$name: spated did not start"
	netns_cli timeout 120 python3 "$E2E_DIR/journal.py" verify "$state" ||
		fail "$name: after a clean restart"
	netns_spated_stop || fail "$name: spated did not exit cleanly"
	echo "ok: $name"
done
echo "ok: journal"
