#!/bin/bash
# pipeline-bench.sh - spated's pipeline throughput, replaying a pcap of
# Spate datagrams through DPDK's net_pcap vdev (rx_pcap, infinite_rx), so
# no network and no client limit the rate. Prints JSON lines:
#   {"bench":"pipeline","subs":N,"workers":W,"events_per_s":X,
#    "cycles_per_event":{"lcore":C,...},"inprocess_events_per_s":Y,...}
#
#   tools/pipeline-bench.sh [--subs N] [--events N] [--workers W]
#                           [--seconds S] [--layout "rx=0;..."] [--keep DIR]
#
# The stream is tools/fast-stream.py's (FAST-style: a US extent, 1-3
# keyword subscriptions from a Zipf vocabulary, 10-keyword events). The
# subscriptions are applied at start (spated.preload), the pcap holds the
# events and loops. events_per_s is measured between two counter lines
# taken after the preload and a second of warm-up. The in-process figure is spate-bench
# with the drt engine on the same stream, in the same run (ratios hold on
# a noisy machine, absolute numbers less so).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
subs=1000 events=20000 workers=1 seconds=5 keep="" layout=""
while [ $# -gt 0 ]; do
	case $1 in
	--subs) subs=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--layout) layout=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) echo "usage: $0 [--subs N] [--events N] [--workers W] [--seconds S] [--layout L] [--keep DIR]" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d /tmp/spate-pbench.XXXXXX)
pid=""
prefix=spate-pbench-$$
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid"; sleep 1; kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -rf "/var/run/dpdk/$prefix"
	[ -n "$keep" ] && cp -r "$tmp/." "$keep/" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

python3 "$top/tools/fast-stream.py" --subs "$subs" --events "$events" --seed 3 >"$tmp/stream.tsv"
grep -v '^event' "$tmp/stream.tsv" >"$tmp/subs.tsv"
grep '^event' "$tmp/stream.tsv" >"$tmp/events.tsv"
python3 "$top/tools/spate-pcap.py" "$tmp/events.tsv" --out "$tmp/bench.pcap" --events-per-dgram 12 \
	2>"$tmp/pcap.log"
frames=$(python3 -c "import os,sys; print(sum(1 for _ in open(sys.argv[1]) if _.startswith(('sub','event','unsub'))))" "$tmp/stream.tsv")
# the pool holds the whole pcap (net_pcap keeps it in mbufs) and a margin
mbufs=$((frames + 16384))
# lcores: rx, tx, cluster on lcore 0; the matching workers after it,
# spread over the CPUs there are
cpus=$(nproc)
map="0@0" match=""
for w in $(seq 1 "$workers"); do
	map="$map,$w@$((w % cpus))"
	match="$match${match:+, }$w"
done
[ -n "$layout" ] || layout="rx = 0; tx = 0; cluster = 0; match = [ $match ];"
python3 - "$top/conf/spated.conf" "$tmp/bench.conf" "$layout" "$mbufs" "$tmp/subs.tsv" <<'PY'
import re, sys
src, out, layout, mbufs, subs = sys.argv[1:6]
t = open(src).read().replace("spated: {", "spated: {\n  lcores: { %s };\n  preload = \"%s\";" % (layout, subs), 1)
t = re.sub(r"\n  mbufs = \d+;", "\n  mbufs = %s;" % mbufs, t)
t = re.sub(r"\n  idle_sleep_us = \d+;", "\n  idle_sleep_us = 0;", t)
t = re.sub(r"\n  stats_interval = \d+;", "\n  stats_interval = 0;", t)
open(out, "w").write(t)
PY
"$top/build/app/spated" -c "$tmp/bench.conf" -- --no-huge -m 2048 --no-pci \
	--file-prefix="$prefix" --lcores="$map" \
	--vdev="net_pcap0,rx_pcap=$tmp/bench.pcap,tx_pcap=/dev/null,infinite_rx=1" \
	>"$tmp/spated.log" 2>&1 &
pid=$!
for i in $(seq 1 600); do
	grep -q '^spated: ready' "$tmp/spated.log" && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/spated.log" >&2; exit 1; }
	sleep 0.1
done
stats() {
	local before
	before=$(grep -c '"spated":"counters"' "$tmp/spated.log" || true)
	kill -USR1 "$pid"
	for i in $(seq 1 100); do
		[ "$(grep -c '"spated":"counters"' "$tmp/spated.log")" -gt "$before" ] && break
		sleep 0.05
	done
	grep '"spated":"counters"' "$tmp/spated.log" | tail -n 1
}
# warm-up: until the subscriptions are in, then measure
for i in $(seq 1 1200); do
	grep -q '^spated: preload done' "$tmp/spated.log" && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/spated.log" >&2; exit 1; }
	sleep 0.5
done
sleep 1
a=$(stats)
sleep "$seconds"
b=$(stats)
kill -TERM "$pid"
wait "$pid" || true
pid=""
inproc=$("$top/build/tools/spate-bench" --engines drt "$tmp/stream.tsv" 2>/dev/null | head -n 1)
python3 - "$a" "$b" "$subs" "$workers" "$layout" "$inproc" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
subs, workers, layout = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
inproc = json.loads(sys.argv[6]) if sys.argv[6].strip() else {}
dt = b["uptime_s"] - a["uptime_s"]
ev = b["events"] - a["events"]
out = {"bench": "pipeline", "subs": subs, "workers": workers, "layout": layout,
       "seconds": round(dt, 3), "events": ev, "events_per_s": round(ev / dt),
       "matches_per_event": round((b["matches"] - a["matches"]) / max(ev, 1), 3),
       "cats_per_event": round((b["cats_visited"] - a["cats_visited"]) / max(ev, 1), 3),
       "ring_full_rx": b["ring_full_rx"] - a["ring_full_rx"],
       "backpressure": b["backpressure"] - a["backpressure"]}
cyc = {}
for l, c in b["lcores"].items():
    ca = a["lcores"].get(l, {})
    busy = c.get("busy_cycles", 0) - ca.get("busy_cycles", 0)
    parts = c.get("event_parts", 0) - ca.get("event_parts", 0)
    if parts:
        cyc[l] = round(busy / parts)
out["cycles_per_event_part"] = cyc
if inproc:
    out["inprocess_events_per_s"] = inproc.get("events_per_s")
    if inproc.get("events_per_s"):
        out["pipeline_vs_inprocess"] = round(out["events_per_s"] / inproc["events_per_s"], 3)
print(json.dumps(out))
PY
