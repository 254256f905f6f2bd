#!/bin/bash
# pcap-daemon.sh - spate-pcap output fed to spated through DPDK's net_pcap
# port (rx_pcap=...): the notifications spated writes to its tx_pcap,
# read back with spate-pcap --read, are exactly spate-match --engine
# brute's matches, for several workloads (keywords, constraints, deletes,
# attribute intervals, batched datagrams). No network, no namespace: the
# port is two files. Needs root for the EAL's runtime directory.
. "$(dirname "$0")/common.sh"

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (DPDK runtime directory)"
	exit 77
fi
SPATED=$SPATE_BUILD/app/spated
[ -x "$SPATED" ] || fail "$SPATED not built"
PREFIX=spate-tools-pcap-$$
SPATED_PID=""
cleanup_daemon() {
	if [ -n "$SPATED_PID" ] && kill -0 "$SPATED_PID" 2>/dev/null; then
		kill -KILL "$SPATED_PID" 2>/dev/null
		wait "$SPATED_PID" 2>/dev/null
	fi
	rm -rf "/var/run/dpdk/$PREFIX"
}
TT_CLEANUP_HOOK=cleanup_daemon

# counters LOG: the last counters line spated printed.
counters() { grep '"spated":"counters"' "$1" | tail -n 1; }
# counter LINE NAME: one integer counter of a (flat) counters line; no
# python here: its start-up costs seconds on a loaded 2-core machine.
counter() {
	local v
	v=$(sed -n "s/.*\"$2\":\([0-9][0-9]*\).*/\1/p" <<<"$1")
	echo "${v:-0}"
}

# run_case NAME STREAM [spate-pcap options...]
run_case() {
	local name=$1 stream=$2 dir=$TMP/$1 i frames before line prev=""
	shift 2
	mkdir -p "$dir"
	"$T/spate-pcap" "$@" --out "$dir/in.pcap" "$stream" 2>"$dir/pcap.err" ||
		{ cat "$dir/pcap.err"; fail "$name: spate-pcap"; }
	frames=$(sed -n 's/.* in \([0-9]*\) frames$/\1/p' "$dir/pcap.err")
	# The pool must hold every frame of the file at once: net_pcap
	# reads ahead of the poll loop (and a notification frame each).
	cat >"$dir/spated.conf" <<CONF
spated: { ipv4 = "198.18.0.1"; udp_port = 47100; mbufs = $((2 * frames + 4096)); idle_sleep_us = 50; };
CONF
	"$SPATED" -c "$dir/spated.conf" -- --no-huge -m 512 --no-pci --file-prefix=$PREFIX -l 0 \
		"--vdev=net_pcap0,rx_pcap=$dir/in.pcap,tx_pcap=$dir/out.pcap" >"$dir/spated.log" 2>&1 &
	SPATED_PID=$!
	for i in $(seq 1 300); do
		grep -q '^spated: ready' "$dir/spated.log" && break
		kill -0 "$SPATED_PID" 2>/dev/null || { cat "$dir/spated.log"; fail "$name: spated exited"; }
		sleep 0.1
	done
	grep -q '^spated: ready' "$dir/spated.log" || { cat "$dir/spated.log"; fail "$name: spated not ready"; }
	# Done when every frame was received and two counter lines in a row
	# agree (nothing left in flight); at most 60 s.
	for i in $(seq 1 200); do
		before=$(grep -c '"spated":"counters"' "$dir/spated.log")
		kill -USR1 "$SPATED_PID"
		for _ in $(seq 1 50); do
			[ "$(grep -c '"spated":"counters"' "$dir/spated.log")" -gt "$before" ] && break
			sleep 0.05
		done
		# the clock, the poll and sleep counts move while idle: not compared
		line=$(counters "$dir/spated.log" |
			sed 's/"uptime_s":[0-9.e+-]*,\{0,1\}//; s/"\(busy_\)\{0,1\}polls":[0-9]*,\{0,1\}//g; s/"idle_sleeps":[0-9]*,\{0,1\}//g')
		if [ "$(counter "$(counters "$dir/spated.log")" rx)" -ge "$frames" ] && [ "$line" = "$prev" ]; then
			break
		fi
		prev=$line
		sleep 0.3
	done
	[ "$(counter "$(counters "$dir/spated.log")" rx)" -ge "$frames" ] ||
		{ tail -n 3 "$dir/spated.log"; fail "$name: spated did not take all $frames frames"; }
	kill -TERM "$SPATED_PID"
	for i in $(seq 1 100); do
		kill -0 "$SPATED_PID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$SPATED_PID" || { tail -n 5 "$dir/spated.log"; fail "$name: spated did not exit cleanly"; }
	SPATED_PID=""
	rm -rf "/var/run/dpdk/$PREFIX"
	stats=$(counters "$dir/spated.log")
	for c in ip_bad_csum udp_bad_csum bad_header bad_messages nacks no_neighbour no_mbuf tx_drops; do
		[ "$(counter "$stats" "$c")" = 0 ] || { echo "$stats"; fail "$name: counter $c is not 0"; }
	done
	"$T/spate-pcap" --read "$dir/out.pcap" --port 47100 2>"$dir/read.err" | sort >"$dir/got" ||
		{ cat "$dir/read.err"; fail "$name: reading spated's tx pcap"; }
	grep -q "bad_datagrams=0 bad_ip_csum=0 bad_udp_csum=0 " "$dir/read.err" ||
		{ cat "$dir/read.err"; fail "$name: spated's frames do not decode"; }
	sorted_match "$stream" "$dir/want"
	if ! cmp -s "$dir/want" "$dir/got"; then
		diff "$dir/want" "$dir/got" | head -n 10
		fail "$name: spated's notifications differ from spate-match ($(wc -l <"$dir/want") expected, $(wc -l <"$dir/got") got)"
	fi
	[ -s "$dir/want" ] || fail "$name: no match at all: the test would prove nothing"
	# Wireshark reads the same notifications out of spated's frames.
	if command -v tshark >/dev/null; then
		tshark -n -X "lua_script:$SPATE_SRC/tools/wireshark/spate.lua" -r "$dir/out.pcap" \
			-Y spate.notify.event_id -T fields -E occurrence=a -E aggregator=, \
			-e spate.notify.event_id -e spate.notify.n_subs -e spate.notify.sub_id 2>/dev/null |
			awk -F'\t' '{ ne = split($1, ev, ","); split($2, ns, ","); split($3, sb, ","); k = 1
				for (i = 1; i <= ne; i++) for (j = 0; j < ns[i]; j++) print ev[i] "\t" sb[k++] }' |
			sort >"$dir/tshark"
		cmp -s "$dir/want" "$dir/tshark" || fail "$name: tshark decodes other notifications than spate-match's"
	fi
	ok "$name: $frames frames in, $(wc -l <"$dir/got") notifications identical to spate-match$(command -v tshark >/dev/null && echo " (and as tshark decodes them)")"
}

G=$T/spate-gen
"$G" --workload drt --events 3000 --sub-ratio 0.05 --max-extent 20 --vocab 40 --deletes 0.3 \
	--space skewed --seed 21 --out "$TMP/drt.tsv" 2>/dev/null || fail "spate-gen drt"
run_case drt "$TMP/drt.tsv"
run_case drt-batched "$TMP/drt.tsv" --batch 24
# Real places with numeric constraints, when the shared data is there.
air=${SPATE_AIRPORTS:-$SPATE_SRC/../shared/data/airports.tsv}
if [ -r "$air" ]; then
	"$G" --workload drt --input "$air" --attr-names altitude_ft,utc_offset --events 3000 \
		--sub-ratio 0.05 --cons-ratio 0.5 --deletes 0.2 --shuffle --seed 22 \
		--out "$TMP/air.tsv" 2>/dev/null || fail "spate-gen airports"
	run_case airports "$TMP/air.tsv" --batch 8
else
	echo "note: no $air: airports case left out"
fi
"$G" --workload rein --events 300 --subs 200 --deletes 0.2 --order interleaved --seed 23 \
	--out "$TMP/rein.tsv" 2>/dev/null || fail "spate-gen rein"
run_case rein "$TMP/rein.tsv" --batch 4
ok "pcap-daemon"
