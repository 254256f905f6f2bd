#!/bin/bash
# multihost-bench.sh - issue 9's benchmark: spated over several hosts, each
# host a spated in a network namespace of its own on one bridge (so every
# host shares this machine's CPUs: read the per-host costs, not only the
# rates). Needs root. Writes into DIR (default docs/bench/multihost):
#
#   scale   events/s through 1 front and N match hosts (--hosts "1 2 3"),
#           one matching lcore each: the subscriptions preloaded on the
#           front, the events replayed on the front from a pcap
#           (net_pcap, infinite_rx: no client limits the rate) and routed
#           to the match hosts over af_packet veths. One JSON line per N
#           (scale.jsonl, scale.csv, scale.png): events/s, per host its
#           busy cycles and stage cycles (rx, cluster, link, match, tx)
#           per event, the inter-host counters.
#   fig5    DataTra (subscriptions shipped by rehoming and merging): the
#           same interleaved stream (tests/e2e/gen-stream.py, rehome.sh's
#           DRt settings: many moves and merges) replayed by a client
#           (spate-replay) through 4 matching lcores laid out as 1 host x
#           4, 2 hosts x 2 and 4 hosts x 1; InNode = rehome_subs (between
#           lcores of one host), between hosts = peer_handoff_subs. Every
#           run's notifications are compared with spate-match --engine
#           brute. (fig5.jsonl, fig5.csv, fig5.png)
#   fig7    matching load per host with balancing off and on: 2 match
#           hosts, a skewed pcap workload (most events in one box), each
#           host's matched (event, category) pairs and busy share sampled
#           every second from the end of the preload (when the events
#           start), for 2 x --seconds; balancing on = a load period of
#           --lambda events (default 2,000,000: a first period end after
#           about 2 s at 1M events/s, so the series shows before and
#           after). (fig7.jsonl, fig7.csv, fig7.png)
#
#   tools/multihost-bench.sh [--out DIR] [--what "scale fig5 fig7"]
#        [--hosts "1 2 3"] [--subs N] [--events N] [--seconds S]
#        [--batch N] [--front-cpu C] [--match-cpus "C ..."] [--sleep-us N]
#        [--fig5-subs "400 800"] [--fig5-events N] [--fig7-subs N]
#        [--lambda N] [--skew F] [--side "F ..."] [--smoke]
#
# --side "F ...": the subscriptions' largest square side as a fraction of
# the extent (fast-stream.py, default 0.01): larger = more matching per
# event; scale runs every N for each F, fig7 uses the first.
# --smoke: tiny sizes, N = 1 and 2, fig5 at 2 x 2 only, no fig7, into a
# temporary directory unless --out: checks that the bench runs (about
# 30 s), not a measurement. The machine's CPUs host every host: the front
# on --front-cpu (default 0), match host i on the i-th of --match-cpus
# (cycled; default "1"). Every name is prefixed mhbench-PID; namespaces,
# veths, the bridge and the processes go on any exit (trap).
set -u
MHB_TOP=$(cd "$(dirname "$0")/.." && pwd)
cmdline="tools/multihost-bench.sh $*"
MHB_BUILD=${SPATE_BUILD:-$MHB_TOP/build}
out=$MHB_TOP/docs/bench/multihost what="scale fig5 fig7" hosts="1 2 3"
subs=20000 events=20000 seconds=5 batch=64 front_cpu=0 match_cpus="1"
sleep_us=50 fig5_subs="400 800 1600" fig5_events=3000 fig7_subs=20000
lambda=2000000 skew=0.8 smoke=0 out_given=0 side=0.01
usage() { sed -n '/^#   tools/,/^# --smoke/p' "$0" | sed '$d' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; out_given=1; shift 2 ;;
	--what) what=$2; shift 2 ;;
	--hosts) hosts=$2; shift 2 ;;
	--subs) subs=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--batch) batch=$2; shift 2 ;;
	--front-cpu) front_cpu=$2; shift 2 ;;
	--match-cpus) match_cpus=$2; shift 2 ;;
	--sleep-us) sleep_us=$2; shift 2 ;;
	--fig5-subs) fig5_subs=$2; shift 2 ;;
	--fig5-events) fig5_events=$2; shift 2 ;;
	--fig7-subs) fig7_subs=$2; shift 2 ;;
	--lambda) lambda=$2; shift 2 ;;
	--skew) skew=$2; shift 2 ;;
	--side) side=$2; shift 2 ;;
	--smoke) smoke=1; shift ;;
	*) usage ;;
	esac
done
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: multihost-bench.sh needs root (network namespaces, af_packet)"
	exit 77
fi
for b in app/spated tools/spate-pcap tools/spate-replay tools/spate-match; do
	[ -x "$MHB_BUILD/$b" ] || { echo "multihost-bench.sh: $MHB_BUILD/$b not built" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/mhbench.XXXXXX)
if [ "$smoke" = 1 ]; then
	hosts="1 2" subs=500 events=2000 seconds=1 fig5_subs=200 fig5_events=600
	what=${what/fig7/}
	[ "$out_given" = 1 ] || out=$tmp/out
fi
export MHB_SLEEP_US=$sleep_us
NETNS_SPATED=$MHB_BUILD/app/spated
# shellcheck source=netns.sh
. "$MHB_TOP/tools/netns.sh"
# shellcheck source=mhbench-net.sh
. "$MHB_TOP/tools/mhbench-net.sh"
mhb_cleanup() {
	netns_cleanup
	# MHB_KEEP=DIR keeps the logs, configurations and counters (debugging)
	[ -n "${MHB_KEEP:-}" ] && mkdir -p "$MHB_KEEP" && cp -r "$tmp/." "$MHB_KEEP/"
	rm -rf "$tmp"
}
trap mhb_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$out"
# what ran where: the date, the commit, the machine, the load, the command
{
	echo "# tools/multihost-bench.sh, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git -C "$MHB_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "machine: $(uname -srm), $(nproc) CPUs: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "load when started: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "command: $cmdline"
} >"$out/machine.txt"
fail() { echo "multihost-bench.sh: $*" >&2; exit 1; }
# checked WHAT: an error counter moved (or nothing was routed) in WHAT:
# fatal with --smoke, else said and kept in the JSON line's "errors"
checked() {
	cat "$tmp/line"
	[ "$smoke" = 1 ] && fail "$1: error counters moved or nothing routed (see \"errors\")"
	echo "multihost-bench.sh: WARNING: $1: error counters moved or nothing routed" >&2
}
# a hard bound on any wait: SECONDS since start
deadline=$((SECONDS + ${MHB_MAX_S:-1800}))
in_time() { [ "$SECONDS" -lt "$deadline" ] || fail "past MHB_MAX_S (${MHB_MAX_S:-1800} s): stopped"; }

read -r -a mcpus <<<"$match_cpus"
# peers_of SELF N L: the libconfig peers list of host SELF (1 = the front)
# among a front and N match hosts of L matching lcores each.
peers_of() {
	local self=$1 n=$2 l=$3 i p=""
	[ "$self" != 1 ] && p='{ host = 1; ipv4 = "198.18.0.1"; }'
	for i in $(seq 1 "$n"); do
		[ $((i + 1)) = "$self" ] && continue
		p="$p${p:+, }{ host = $((i + 1)); ipv4 = \"198.18.0.$((i + 2))\"; lcores = $l; }"
	done
	echo "$p"
}
# match_list L: "0, 0, ..." (L matching stages on EAL lcore 0).
match_list() { local l=$1 s=""; for _ in $(seq 1 "$l"); do s="$s${s:+, }0"; done; echo "$s"; }

# start_hosts K N L DRT FRONT_EXTRA [FRONT_VDEV]: namespaces (and a client
# "cli" at 198.18.0.2 when no FRONT_VDEV), N match hosts of L lcores, then
# the front. Names of run K.
start_hosts() {
	local k=$1 n=$2 l=$3 drt=$4 fextra=$5 fvdev=${6:-} i names="front" mem=512
	MHB_NAME=mhbench-$$-$k
	MHB_IFP=mhb$$$k
	for i in $(seq 1 "$n"); do names="$names m$i"; done
	[ -z "$fvdev" ] && names="$names cli"
	mhb_net $names || fail "cannot build the namespaces"
	if [ -z "$fvdev" ]; then
		ip -n "$(mhb_ns cli)" addr add 198.18.0.2/24 dev "$(mhb_if cli)" || fail "client address"
		ip netns exec "$(mhb_ns cli)" ethtool -K "$(mhb_if cli)" tx off >/dev/null 2>&1 ||
			fail "ethtool -K tx off"
	fi
	for i in $(seq 1 "$n"); do
		mhb_conf "$tmp/m$i.conf" match $((i + 1)) "198.18.0.$((i + 2))" "$(peers_of $((i + 1)) "$n" "$l")" \
			"rx = 0; tx = 0; cluster = 0; match = [ $(match_list "$l") ];" "" "$drt" || fail "conf m$i"
		mhb_spated "m$i" "$tmp/m$i.conf" "$tmp/m$i.log" "0@${mcpus[$(((i - 1) % ${#mcpus[@]}))]}" "$mem" ||
			fail "match host m$i did not start"
	done
	mhb_conf "$tmp/front.conf" front 1 198.18.0.1 "$(peers_of 1 "$n" "$l")" \
		"rx = 0; tx = 0; cluster = 0;" "$fextra" "$drt" || fail "conf front"
	[ -n "$fvdev" ] && mem=1024
	mhb_spated front "$tmp/front.conf" "$tmp/front.log" "0@$front_cpu" "$mem" $fvdev ||
		fail "the front did not start"
}

# all_stats N: one line per host, "NAME JSON".
all_stats() {
	local h st
	for h in front $(seq -f 'm%g' 1 "$1"); do
		st=$(mhb_stats "$h") || fail "$h: no counters"
		echo "$h $st"
	done
}

# wait_preload: the front's preload done (its events start then).
wait_preload() {
	while ! grep -q '^spated: preload done' "$tmp/front.log"; do
		in_time
		kill -0 "${MHB_PID[front]}" 2>/dev/null || fail "the front died: $(tail -n 5 "$tmp/front.log")"
		sleep 0.2
	done
}

# wait_loaded N SUBS: the front's preload done and at least SUBS
# inter-host messages (the SUB_ADDs, and CREATEs) delivered on the match
# hosts together (bounded by MHB_MAX_S).
wait_loaded() {
	local n=$1 want=$2 got
	wait_preload
	while :; do
		got=$(all_stats "$n" | python3 -c 'import json,sys
print(sum(json.loads(l.split(" ",1)[1]).get("peer_msgs_in",0) for l in sys.stdin if not l.startswith("front ")))')
		[ "$got" -ge "$want" ] && return 0
		in_time
		sleep 1
	done
}

# stream FILE SUBS EVENTS SKEW SIDE: a FAST-style stream (tools/fast-stream.py,
# squares of side up to SIDE),
# a fraction SKEW of its events moved into the westmost eighth of the
# extent (tools/skew-stream.py, pipeline-bench.sh's hot box).
stream() {
	python3 "$MHB_TOP/tools/fast-stream.py" --subs "$2" --events "$3" --side "$5" --seed 3 >"$1" ||
		fail "fast-stream.py"
	[ "$4" = 0 ] && return 0
	python3 "$MHB_TOP/tools/skew-stream.py" "$1" "$4" || fail "skew-stream.py"
}

# pcap_of STREAM: its events as a pcap (64 a datagram), path printed.
pcap_of() {
	"$MHB_BUILD/tools/spate-pcap" --only events --batch "$batch" --out "$1.pcap" "$1" \
		2>"$1.pcap.log" || fail "spate-pcap"
	echo "$1.pcap"
}

k=0
# --- scale: events/s against match hosts -------------------------------
if [[ " $what " == *" scale "* ]]; then
	: >"$out/scale.jsonl"
	for sd in $side; do
	stream "$tmp/scale.tsv" "$subs" "$events" 0 "$sd"
	grep -v '^event' "$tmp/scale.tsv" >"$tmp/scale.subs.tsv"
	pcap=$(pcap_of "$tmp/scale.tsv")
	for n in $hosts; do
		k=$((k + 1))
		start_hosts "$k" "$n" 1 "" "preload = \"$tmp/scale.subs.tsv\";" \
			"net_pcap0,rx_pcap=$pcap,tx_pcap=/dev/null,infinite_rx=1"
		wait_loaded "$n" "$subs"
		sleep 1
		all_stats "$n" >"$tmp/a"
		sleep "$seconds"
		all_stats "$n" >"$tmp/b"
		python3 "$MHB_TOP/tools/mhbench-report.py" line --bench multihost-scale --hosts "$n" \
			--lcores 1 --subs "$subs" --sleep-us "$sleep_us" --side "$sd" \
			--cpus "front $front_cpu, match $match_cpus" "$tmp/a" "$tmp/b" >"$tmp/line" ||
			checked "scale, $n match hosts"
		tee -a "$out/scale.jsonl" <"$tmp/line"
		mhb_stop_all
		netns_cleanup
	done
	done
	python3 "$MHB_TOP/tools/mhbench-report.py" plot-scale "$out"
fi

# --- fig5: DataTra, InNode against between hosts -------------------------
if [[ " $what " == *" fig5 "* ]]; then
	drt="lambda = 4; sigma = 0.0; cmax = 24; new_th = 0.8; route_cell = 1; alpha = 0.5; cat_cell = 2;"
	: >"$out/fig5.jsonl"
	for s in $fig5_subs; do
		python3 "$MHB_TOP/tests/e2e/gen-stream.py" --seed 5 --subs "$s" --events "$fig5_events" \
			>"$tmp/f5.tsv" || fail "gen-stream.py"
		mhb_conf "$tmp/base.conf" both 0 198.18.0.1 "" "" "" "$drt" || fail "base conf"
		"$MHB_BUILD/tools/spate-match" --engine brute --conf "$tmp/base.conf" "$tmp/f5.tsv" \
			2>/dev/null | sort >"$tmp/f5.expected" || fail "spate-match"
		layouts="1x4 2x2 4x1"
		[ "$smoke" = 1 ] && layouts="2x2"
		for lay in $layouts; do
			n=${lay%x*} l=${lay#*x}
			k=$((k + 1))
			start_hosts "$k" "$n" "$l" "$drt" ""
			for i in $(seq 1 "$n"); do # the match hosts answer the client: ARP
				ip netns exec "$(mhb_ns cli)" ping -c 1 -W 2 "198.18.0.$((i + 2))" >/dev/null ||
					fail "ping match host $i"
			done
			all_stats "$n" >"$tmp/a"
			t0=$(date +%s.%N)
			ip netns exec "$(mhb_ns cli)" timeout 300 "$MHB_BUILD/tools/spate-replay" \
				--conf "$tmp/base.conf" --server 198.18.0.1:47100 --stream "$tmp/f5.tsv" \
				--out "$tmp/f5.raw" 2>"$tmp/f5.replay.err" ||
				fail "spate-replay: $(tail -n 3 "$tmp/f5.replay.err")"
			t1=$(date +%s.%N)
			all_stats "$n" >"$tmp/b"
			sort "$tmp/f5.raw" >"$tmp/f5.got"
			exact=true
			cmp -s "$tmp/f5.expected" "$tmp/f5.got" || exact=false
			python3 "$MHB_TOP/tools/mhbench-report.py" line --bench multihost-fig5 --hosts "$n" \
				--lcores "$l" --subs "$s" --events "$fig5_events" --exact "$exact" \
				--wall "$(python3 -c 'import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 3))' "$t0" "$t1")" \
				"$tmp/a" "$tmp/b" >"$tmp/line" || checked "fig5 $lay, $s subscriptions"
			tee -a "$out/fig5.jsonl" <"$tmp/line"
			mhb_stop_all
			netns_cleanup
			[ "$exact" = true ] || fail "fig5 $lay, $s subscriptions: notifications differ from brute"
		done
	done
	python3 "$MHB_TOP/tools/mhbench-report.py" plot-fig5 "$out"
fi

# --- fig7: matching load per host, balancing off and on -------------------
if [[ " $what " == *" fig7 "* ]]; then
	stream "$tmp/f7.tsv" "$fig7_subs" "$events" "$skew" "${side%% *}"
	grep -v '^event' "$tmp/f7.tsv" >"$tmp/f7.subs.tsv"
	pcap=$(pcap_of "$tmp/f7.tsv")
	: >"$out/fig7.jsonl"
	for mode in off on; do
		l=1000000000
		[ "$mode" = on ] && l=$lambda
		k=$((k + 1))
		start_hosts "$k" 2 1 "lambda = $l; sigma = 0.0;" "preload = \"$tmp/f7.subs.tsv\";" \
			"net_pcap0,rx_pcap=$pcap,tx_pcap=/dev/null,infinite_rx=1"
		# sampled from the end of the preload, when the events start:
		# the first load periods (lambda events) come within the series
		wait_preload
		all_stats 2 >"$tmp/s0"
		# the front's placement (categories, subscriptions per worker =
		# per match host here) printed with each counters line
		grep '"spated":"pipeline"' "$tmp/front.log" | tail -n 1 >"$tmp/p0"
		for t in $(seq 1 $((seconds * 2))); do
			sleep 1
			all_stats 2 >"$tmp/s$t"
		done
		grep '"spated":"pipeline"' "$tmp/front.log" | tail -n 1 >"$tmp/p1"
		python3 "$MHB_TOP/tools/mhbench-report.py" series --balancing "$mode" --lambda "$l" \
			--placement "$tmp/p0" "$tmp/p1" \
			--subs "$fig7_subs" --skew "$skew" $(seq -f "$tmp/s%g" 0 $((seconds * 2))) | tee -a "$out/fig7.jsonl" |
			grep -v '"multihost-fig7-series"'
		mhb_stop_all
		netns_cleanup
	done
	python3 "$MHB_TOP/tools/mhbench-report.py" plot-fig7 "$out"
fi
echo "load when done: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
echo "multihost-bench.sh: results in $out"
