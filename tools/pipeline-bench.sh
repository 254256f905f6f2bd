#!/bin/bash
# pipeline-bench.sh - spated's pipeline throughput, replaying a pcap of
# Spate datagrams through DPDK's net_pcap vdev (rx_pcap, infinite_rx), so
# no network and no client limit the rate. Prints one JSON line:
#   {"bench":"pipeline","subs":N,"workers":W,"events_per_s":X,
#    "cycles_per_event":{"rx":C,"cluster":C,"match":C,"tx":C},
#    "lcores":{"0":{"busy":F,"cycles_per_event":C},...},
#    "inprocess_events_per_s":Y,"pipeline_vs_inprocess":R,...}
#
#   tools/pipeline-bench.sh [--subs N] [--events N] [--workers W]
#        [--batch N] [--seconds S] [--layout "rx = 0; ..."] [--lcores MAP]
#        [--stream FILE] [--drt "lambda = N; ..."] [--sleep-us N]
#        [--series S] [--skew F] [--perf FILE] [--keep DIR] [--no-inprocess]
#
# The stream is tools/fast-stream.py's (FAST-style: a US extent, 1-3
# keyword subscriptions from a Zipf vocabulary, 10-keyword events), or
# --stream's. Its subscriptions are applied at start (spated.preload), the
# pcap (spate-pcap --only events --batch N: N events a datagram, at most
# what fits in 1472 bytes, as a publisher packs them) holds the events and
# loops. The measurement runs between two counter lines taken after the
# preload and a second of warm-up:
#  - events_per_s: events the cluster stage handled, per second;
#  - cycles_per_event: TSC cycles spent in each kind of stage (polls that
#    found work, all its lcores) per event; "match" is summed over the
#    matching workers. On a shared CPU these include time the lcore was
#    preempted;
#  - lcores: per lcore, the busy share of the wall time and busy cycles
#    per event, and match_cpu_s: the thread CPU time its matching took
#    (counter match_cpu_ns: time the core ran others not included);
#  - makespan_events_per_s: events / the largest match_cpu_s, the rate
#    the matching lcores bound with a core each (Fig. 7 on 2 cores);
#    lcores.N.cpu_s: each lcore thread's whole CPU time (/proc
#    schedstat; idle polls too: the share of a core it got);
#  - the in-process figure: spate-bench with the drt engine on the same
#    stream, in the same run (ratios hold on a noisy machine).
# --series S also prints {"bench":"pipeline-series","t":T,"events_per_s":X}
# every S seconds during the measurement (Fig. 7: throughput over time).
# --skew F moves a fraction F of the generated events into a hot box (the
# westmost eighth of the extent, the same latitudes: tools/skew-stream.py):
# the categories there take most of the matching (Fig. 7's skewed workload).
# --perf FILE records `perf record -g` of the daemon over the measurement.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
subs=1000 events=20000 workers=1 seconds=5 keep="" layout="" lcores="" batch=64
stream="" drt="" sleep_us=0 series="" perf_out="" inprocess=1 skew=0
while [ $# -gt 0 ]; do
	case $1 in
	--subs) subs=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--batch) batch=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--layout) layout=$2; shift 2 ;;
	--lcores) lcores=$2; shift 2 ;;
	--stream) stream=$2; shift 2 ;;
	--drt) drt=$2; shift 2 ;;
	--sleep-us) sleep_us=$2; shift 2 ;;
	--series) series=$2; shift 2 ;;
	--skew) skew=$2; shift 2 ;;
	--perf) perf_out=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--no-inprocess) inprocess=0; shift ;;
	*) sed -n '/^#   tools/,/^#$/p' "$0" >&2; exit 2 ;;
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
	[ -n "$keep" ] && mkdir -p "$keep" && cp -r "$tmp/." "$keep/" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -n "$stream" ]; then
	cp "$stream" "$tmp/stream.tsv"
	subs=$(grep -c '^sub' "$tmp/stream.tsv" || true)
else
	python3 "$top/tools/fast-stream.py" --subs "$subs" --events "$events" --seed 3 >"$tmp/stream.tsv"
fi
[ "$skew" != 0 ] && python3 "$top/tools/skew-stream.py" "$tmp/stream.tsv" "$skew"
grep -v '^event' "$tmp/stream.tsv" >"$tmp/subs.tsv" || true
"$top/build/tools/spate-pcap" --only events --batch "$batch" --out "$tmp/bench.pcap" \
	"$tmp/stream.tsv" 2>"$tmp/pcap.log"
frames=$(sed -n 's/.* in \([0-9]*\) frames$/\1/p' "$tmp/pcap.log")
# the pool holds the whole pcap (net_pcap keeps it in mbufs) and a margin
mbufs=$((frames + 16384))
. "$top/tools/bench-lcores.sh"
bench_lcores "$workers"
[ -n "$lcores" ] && map=$lcores
[ -n "$layout" ] || layout="rx = 0; tx = 0; cluster = 0; match = [ $match ];"
python3 - "$top/conf/demo.conf" "$tmp/bench.conf" "$layout" "$mbufs" "$tmp/subs.tsv" \
	"$sleep_us" "$drt" "$workers" <<'PY'
import re, sys
src, out, layout, mbufs, subs, sleep_us, drt, workers = sys.argv[1:9]
t = open(src).read()
t = t.replace("spated: {", "spated: {\n  lcores: { %s };\n  preload = \"%s\";\n  cpu_accounting = true;" % (layout, subs), 1)
if drt:
    t = t.replace("spate: {", "spate: {\n  drt: { %s };" % drt, 1)
t = re.sub(r"\n  mbufs = \d+;", "\n  mbufs = %s;" % mbufs, t)
t = re.sub(r"\n  idle_sleep_us = \d+;", "\n  idle_sleep_us = %s;" % sleep_us, t)
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
	# with each lcore thread's CPU time (schedstat: ns it ran), as
	# "lcore_cpu_s": {"0": s, "1": s, ...}: the main thread is lcore 0
	python3 - "$pid" "$(grep '"spated":"counters"' "$tmp/spated.log" | tail -n 1)" <<'PY'
import json, os, re, sys
pid, c = sys.argv[1], json.loads(sys.argv[2])
cpu = {}
for t in os.listdir("/proc/%s/task" % pid):
    try:
        name = open("/proc/%s/task/%s/comm" % (pid, t)).read().strip()
        ns = int(open("/proc/%s/task/%s/schedstat" % (pid, t)).read().split()[0])
    except (OSError, ValueError, IndexError):
        continue
    m = re.fullmatch(r"(?:lcore|rte)-worker-(\d+)", name)
    if t == pid:
        cpu["0"] = ns / 1e9
    elif m:
        cpu[m.group(1)] = ns / 1e9
c["lcore_cpu_s"] = cpu
print(json.dumps(c))
PY
}
# warm-up: until the subscriptions are in, then measure
for i in $(seq 1 1200); do
	grep -q '^spated: preload done' "$tmp/spated.log" && break
	kill -0 "$pid" 2>/dev/null || { cat "$tmp/spated.log" >&2; exit 1; }
	sleep 0.5
done
sleep 1
perf_pid=""
if [ -n "$perf_out" ]; then
	perf record -g -o "$perf_out" -p "$pid" >/dev/null 2>&1 &
	perf_pid=$!
fi
a=$(stats)
if [ -n "$series" ]; then
	prev=$a
	steps=$(python3 -c "import math,sys; print(max(1, math.ceil(float(sys.argv[1]) / float(sys.argv[2]))))" "$seconds" "$series")
	for i in $(seq 1 "$steps"); do
		sleep "$series"
		cur=$(stats)
		python3 - "$a" "$prev" "$cur" <<'PY'
import json, sys
a, p, c = (json.loads(x) for x in sys.argv[1:4])
dt = c["uptime_s"] - p["uptime_s"]
cpu = {l: v.get("match_cpu_ns", 0) - p["lcores"].get(l, {}).get("match_cpu_ns", 0)
       for l, v in c["lcores"].items() if v.get("match_cpu_ns")}
ev = c["events"] - p["events"]
print(json.dumps({"bench": "pipeline-series", "t": round(c["uptime_s"] - a["uptime_s"], 3),
                  "events": ev, "events_per_s": round(ev / dt) if dt > 0 else 0,
                  "rehomes": c["rehomes_out"] - p["rehomes_out"],
                  "workers_parts": {l: v.get("event_parts", 0) - p["lcores"].get(l, {}).get("event_parts", 0)
                                    for l, v in c["lcores"].items() if v.get("event_parts")},
                  "match_cpu_s": {l: round(n / 1e9, 4) for l, n in cpu.items()},
                  "makespan_events_per_s": round(ev / (max(cpu.values()) / 1e9)) if cpu and max(cpu.values()) else None,
                  "lcore_cpu_s": {l: round(s - p["lcore_cpu_s"].get(l, 0), 4) for l, s in c["lcore_cpu_s"].items()}}))
PY
		prev=$cur
	done
	b=$prev
else
	sleep "$seconds"
	b=$(stats)
fi
if [ -n "$perf_pid" ]; then
	kill -INT "$perf_pid" 2>/dev/null || true
	wait "$perf_pid" 2>/dev/null || true
fi
placement=$(grep '"spated":"pipeline"' "$tmp/spated.log" | tail -n 1)
kill -TERM "$pid"
wait "$pid" || true
pid=""
inproc=""
[ "$inprocess" = 1 ] && inproc=$("$top/build/tools/spate-bench" --engines drt "$tmp/stream.tsv" 2>/dev/null | head -n 1)
mhz=$(awk -F: '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
python3 - "$a" "$b" "$subs" "$workers" "$layout" "$inproc" "$batch" "$mhz" "$map" "$drt" "$placement" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
subs, workers, layout = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
inproc = json.loads(sys.argv[6]) if sys.argv[6].strip() else {}
batch, mhz, lmap, drt = int(sys.argv[7]), float(sys.argv[8] or 0), sys.argv[9], sys.argv[10]
placement = json.loads(sys.argv[11]) if sys.argv[11].strip() else {}
dt = b["uptime_s"] - a["uptime_s"]
ev = b["events"] - a["events"]
d = lambda k: b[k] - a[k]
out = {"bench": "pipeline", "subs": subs, "workers": workers, "batch": batch,
       "layout": layout, "lcores_map": lmap, "drt": drt, "seconds": round(dt, 3), "events": ev,
       "events_per_s": round(ev / dt), "events_per_dgram": round(ev / max(d("dgrams"), 1), 2),
       "matches_per_event": round(d("matches") / max(ev, 1), 3),
       "cats_per_event": round(d("cats_visited") / max(ev, 1), 3),
       "ring_full_rx": d("ring_full_rx"), "backpressure": d("backpressure"),
       "msg_no_memory": d("msg_no_memory"), "rehomes": d("rehomes_out"), "merges": d("merges"),
       "cycles_per_event": {s: round(d("cycles_" + s) / max(ev, 1)) for s in ("rx", "cluster", "match", "tx")}}
lc = {}
for l, c in b["lcores"].items():
    ca = a["lcores"].get(l, {})
    busy = c.get("busy_cycles", 0) - ca.get("busy_cycles", 0)
    lc[l] = {"busy": round(busy / (dt * mhz * 1e6), 3) if mhz else None,
             "cycles_per_event": round(busy / max(ev, 1))}
    parts = c.get("event_parts", 0) - ca.get("event_parts", 0)
    if parts:
        lc[l]["event_parts"] = parts
    cpu = c.get("match_cpu_ns", 0) - ca.get("match_cpu_ns", 0)
    if cpu:
        lc[l]["match_cpu_s"] = round(cpu / 1e9, 4)
out["lcores"] = lc
# the busiest matching lcore's CPU time bounds the rate with a core per
# lcore (Fig. 7's makespan; on fewer cores the wall rate measures sharing)
cpus = [v["match_cpu_s"] for v in lc.values() if v.get("match_cpu_s")]
out["makespan_events_per_s"] = round(ev / max(cpus)) if cpus else None
# each lcore thread's whole CPU time (its stages and its idle polls:
# the share of a core it got, not its work)
for l, s in b.get("lcore_cpu_s", {}).items():
    if l in lc:
        lc[l]["cpu_s"] = round(s - a["lcore_cpu_s"].get(l, 0), 4)
out["cpu_mhz"] = mhz
if placement:
    out["placement"] = placement.get("workers")
if inproc:
    out["inprocess_events_per_s"] = inproc.get("events_per_s")
    if inproc.get("events_per_s"):
        out["inprocess_cycles_per_event"] = round(mhz * 1e6 / inproc["events_per_s"]) if mhz else None
        out["pipeline_vs_inprocess"] = round(out["events_per_s"] / inproc["events_per_s"], 3)
print(json.dumps(out))
PY
