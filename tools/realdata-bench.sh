#!/bin/bash
# realdata-bench.sh - the highest rate at which spate-replay's real-data
# stream stays exact through spated with the shipped configuration
# (conf/demo.conf, the af_packet profile; --conf for another), over
# net_af_packet on a veth pair between two namespaces (tools/netns.sh),
# one lcore and the multi-lcore layout of docs/operations.md. One JSON
# line per trial, then one per layout with the highest exact rate:
#   {"bench":"realdata","layout":L,"rate":R,"exact":true,"missing":0,
#    "events_per_s":X,"notifications_per_event":N,
#    "cycles_per_event":C,"cpu_cycles_per_event":C,"cycles_per_notify_dgram":C,
#    "tx_cycles_per_dgram":C,"dgrams_per_tx_burst":B,"drops":{...},"load":L}
#   {"bench":"realdata-max","layout":L,"max_exact_rate":R,"events_per_s":X,...}
#
#   tools/realdata-bench.sh [--layouts "one multi"] [--rates "10000 20000 ..."]
#        [--subs N] [--events N] [--extent D] [--conf FILE] [--build DIR]
#        [--tries N] [--keep DIR] [--framecnt N] [--perf DIR]
#
# The stream: tools/airports-stream.py on ../shared/data/airports.tsv,
# --subs subscriptions (20,000) first, then --events events (100,000)
# over the 7,184 airports again and again, rectangles of half-width up to
# --extent degrees (2: about 8 notifications an event), a fifth of the
# subscriptions with a numeric constraint. Each trial starts a fresh
# spated, replays the subscriptions unpaced (each ACKed), takes the
# counters, replays the events at the trial's rate from the same client
# id and port (so the notifications come back to it), takes the counters
# again and compares everything received with spate-match --engine brute.
# The figures are those of the events' phase:
#  - cycles_per_event: spated's busy TSC cycles (polls that found work,
#    every lcore) per event; on a shared CPU they include time the lcore
#    was preempted, so also
#  - cpu_cycles_per_event: spated's CPU time (user + system, from
#    /proc/PID/stat, the idle lcores' spinning included) at the CPU's MHz
#    per event; client_cpu_cycles_per_event the same of spate-replay (it
#    shares the machine's CPUs: on 2 CPUs it bounds the rate as much);
#  - cycles_per_notify_dgram: the same busy cycles per NOTIFY datagram
#    sent (everything spated did, over what a subscriber receives);
#  - tx_cycles_per_dgram: the TX stage's cycles per datagram sent, and
#    dgrams_per_tx_burst how many left per rte_eth_tx_burst call;
#  - drops: every loss counter that moved, spated's and the client's.
# A rate is exact when the trial is; --tries N gives each rate N chances
# (a loaded machine) and the ladder stops at the first rate that fails
# them all. Rates are events per second; 0 = unpaced.
# --framecnt N: frames in each af_packet kernel ring (the vdev's framecnt:
# conf/demo.conf's 4096 by default; the PMD's own default is 512): what
# absorbs the time spated's RX lcore is descheduled. --perf DIR: perf record -g of spated during each trial's
# events, DIR/LAYOUT-RATE.perf.data.
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build conf=$top/conf/demo.conf keep="" tries=1 framecnt="" perfdir=""
layouts="one multi" rates="10000 20000 30000 40000 50000 60000 80000 100000"
subs=20000 events=100000 extent=2
while [ $# -gt 0 ]; do
	case $1 in
	--layouts) layouts=$2; shift 2 ;;
	--rates) rates=$2; shift 2 ;;
	--subs) subs=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--extent) extent=$2; shift 2 ;;
	--conf) conf=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--tries) tries=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--framecnt) framecnt=$2; shift 2 ;;
	--perf) perfdir=$2; shift 2 ;;
	*) sed -n '/^#   tools/,/^#$/p' "$0" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "realdata-bench: needs root (namespaces)" >&2; exit 2; }
data=${SPATE_AIRPORTS:-$top/../shared/data/airports.tsv}
[ -r "$data" ] || { echo "realdata-bench: no $data" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "realdata-bench: no /usr/bin/time (tools/install-deps.sh --bench)" >&2; exit 2; }
NETNS_SPATED=$build/app/spated
# shellcheck source=netns.sh
. "$top/tools/netns.sh"
tmp=$(mktemp -d /tmp/spate-rdbench.XXXXXX)
cleanup() {
	netns_cleanup
	[ -n "$keep" ] && mkdir -p "$keep" && cp -r "$tmp/." "$keep/" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 "$top/tools/airports-stream.py" "$data" --order subs-first --sub-count "$subs" \
	--events "$events" --max-extent "$extent" >"$tmp/stream.tsv"
grep -v '^event' "$tmp/stream.tsv" >"$tmp/subs.tsv" || true
grep '^event' "$tmp/stream.tsv" >"$tmp/events.tsv" || true
"$build/tools/spate-match" --engine brute --conf "$conf" "$tmp/stream.tsv" 2>/dev/null |
	sort >"$tmp/expected"
mhz=$(awk -F: '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
netns_create || { echo "realdata-bench: cannot create the namespaces" >&2; exit 1; }

# layout_conf NAME: the configuration and EAL lcores of a layout
layout_conf() {
	local cpus
	cpus=$(nproc)
	cp "$conf" "$tmp/$1.conf"
	unset NETNS_EAL_LCORES NETNS_VDEV_EXTRA NETNS_FRAMECNT
	[ -z "$framecnt" ] || export NETNS_FRAMECNT=$framecnt
	if [ "$1" = multi ]; then
		# docs/operations.md, "Choosing lcores": two RX queues, TX with
		# the first, the cluster and three matching workers on their own
		# lcores; here its seven lcores share the machine's CPUs
		export NETNS_EAL_LCORES="--lcores=0@0,1@$((1 % cpus)),2@0,3@$((1 % cpus)),4@0,5@$((1 % cpus)),6@0"
		export NETNS_VDEV_EXTRA=",qpairs=2"
		python3 - "$tmp/$1.conf" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
assert t.count("spated: {") == 1
t = t.replace("spated: {", "spated: {\n  lcores: { rx = [ 1, 2 ]; tx = 1; cluster = 3; match = [ 4, 5, 6 ]; };", 1)
open(p, "w").write(t)
PY
	fi
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$NETNS_SPATED_PID/stat"; }

# trial LAYOUT RATE: one JSON line; 0 when exact
trial() {
	local layout=$1 rate=$2 id=$((4000 + RANDOM % 1000)) a b t0 t1 rc=0
	local log=$tmp/spated-$layout-$rate.log
	netns_spated_start "$log" -c "$tmp/$layout.conf" || return 2
	netns_cli timeout 600 "$build/tools/spate-replay" --conf "$tmp/$layout.conf" \
		--server "$NETNS_SRV_IP:$NETNS_PORT" --stream "$tmp/subs.tsv" --out "$tmp/got.subs" \
		--client-id "$id" --local "$NETNS_CLI_IP:47300" --rate 0 2>"$tmp/subs.err" || rc=2
	a=$(spated_stats_of "$NETNS_SPATED_PID" "$log")
	t0=$(cpu_ticks)
	local perf_pid=""
	if [ -n "$perfdir" ]; then
		mkdir -p "$perfdir"
		timeout 300 perf record -q -g -p "$NETNS_SPATED_PID" \
			-o "$perfdir/$layout-$rate.perf.data" 2>/dev/null &
		perf_pid=$!
		sleep 0.5 # attached before the events
	fi
	netns_cli timeout 600 /usr/bin/time -o "$tmp/client.time" -f "%U %S" \
		"$build/tools/spate-replay" --conf "$tmp/$layout.conf" \
		--server "$NETNS_SRV_IP:$NETNS_PORT" --stream "$tmp/events.tsv" --out "$tmp/got.events" \
		--client-id "$id" --local "$NETNS_CLI_IP:47300" --rate "$rate" 2>"$tmp/events.err" || rc=2
	b=$(spated_stats_of "$NETNS_SPATED_PID" "$log")
	t1=$(cpu_ticks)
	if [ -n "$perf_pid" ]; then
		kill -INT "$perf_pid" 2>/dev/null
		wait "$perf_pid" 2>/dev/null || true
	fi
	netns_spated_stop || true
	sort "$tmp/got.subs" "$tmp/got.events" >"$tmp/got"
	python3 - "$a" "$b" "$tmp/expected" "$tmp/got" "$layout" "$rate" "$mhz" "$t0" "$t1" \
		"$(grep -- "^spate-replay: .*events=" "$tmp/events.err" | tail -n 1)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$rc" "$(tail -n 1 "$tmp/client.time")" <<'PY'
import json, re, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
exp, got = set(open(sys.argv[3])), set(open(sys.argv[4]))
layout, rate, mhz = sys.argv[5], int(sys.argv[6]), float(sys.argv[7])
ticks = int(sys.argv[9]) - int(sys.argv[8])
client = dict(re.findall(r"(\w+)=([\d.]+)s?", sys.argv[10]))
d = lambda k: b.get(k, 0) - a.get(k, 0)
ev = max(d("events"), 1)
elapsed = float(client.get("elapsed", 0)) or 1
drops = {k: d(k) for k in ("port_kernel_drops", "port_imissed", "port_rx_nombuf", "port_oerrors",
                           "ring_full_rx", "shed_events", "backpressure", "ring_full_tx", "tx_drops",
                           "no_mbuf", "msg_no_memory") if d(k)}
for k in ("seq_lost", "kernel_drops"):
    if int(client.get(k, 0)):
        drops["client_" + k] = int(client[k])
exact = exp == got and sys.argv[12] == "0"
out = {"bench": "realdata", "layout": layout, "rate": rate, "exact": exact,
       "missing": len(exp - got), "extra": len(got - exp), "events": d("events"),
       "events_per_s": round(d("events") / elapsed),
       "notifications_per_event": round(d("notifications") / ev, 2),
       "cycles_per_event": round(d("busy_cycles") / ev),
       "cpu_cycles_per_event": round(ticks / 100 * mhz * 1e6 / ev),
       "client_cpu_cycles_per_event": round(sum(map(float, sys.argv[13].split())) * mhz * 1e6 / ev)
       if len(sys.argv[13].split()) == 2 else None,
       "cycles_per_notify_dgram": round(d("busy_cycles") / max(d("notify_dgrams"), 1)),
       "tx_cycles_per_dgram": round(d("cycles_tx") / max(d("tx"), 1)),
       "dgrams_per_tx_burst": round(d("tx") / max(d("tx_bursts"), 1), 2),
       "notify_dgrams": d("notify_dgrams"),
       "events_per_notify_dgram": round(d("events") / max(d("notify_dgrams"), 1), 2),
       "drops": drops, "load": sys.argv[11]}
print(json.dumps(out))
sys.exit(0 if exact else 1)
PY
}

for layout in $layouts; do
	layout_conf "$layout"
	best=-1 best_eps=0
	for rate in $rates; do
		ok=1
		for t in $(seq 1 "$tries"); do
			if trial "$layout" "$rate" | tee "$tmp/trial.json"; then
				ok=0
				break
			fi
		done
		[ "$ok" = 0 ] || break
		best=$rate
		best_eps=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["events_per_s"])' \
			"$tmp/trial.json")
	done
	# the rate asked, and the one the client reached (on a loaded machine
	# the client itself may fall short of it)
	echo "{\"bench\":\"realdata-max\",\"layout\":\"$layout\",\"max_exact_rate\":$best,\"events_per_s\":$best_eps,\"subs\":$subs,\"events\":$events,\"extent\":$extent,\"load\":\"$(cut -d' ' -f1-3 /proc/loadavg)\"}"
done
