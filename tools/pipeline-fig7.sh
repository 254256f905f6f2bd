#!/bin/bash
# pipeline-fig7.sh - the DRt-Cluster paper's Fig. 7 on spated: throughput
# before and after load balancing, on a skewed workload over several
# matching workers. Two runs of tools/pipeline-bench.sh on the same
# stream (--skew: most events in one hot box), one with balancing off
# (lambda = 10^9 events: never a load period end) and one with it on
# (lambda = --lambda), each sampled every second. Writes into DIR
# (default docs/bench):
#   pipeline-fig7.jsonl  both runs' JSON lines (series and summaries,
#                        each tagged "balancing":"off"/"on")
#   pipeline-fig7.png    events/s over time, off and on (gnuplot)
#
#   tools/pipeline-fig7.sh [--out DIR] [--subs N] [--workers W]
#        [--skew F] [--lambda N] [--seconds S] [--sleep-us N]
#        [--place-slack X]   (drt place_slack; 1000000.0: the paper's
#                             placement, one worker takes every category)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/docs/bench subs=20000 workers=2 skew=0.8 lambda=200000 seconds=12 sleep_us=20
place=""
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--subs) subs=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--skew) skew=$2; shift 2 ;;
	--lambda) lambda=$2; shift 2 ;;
	--seconds) seconds=$2; shift 2 ;;
	--sleep-us) sleep_us=$2; shift 2 ;;
	--place-slack) place="place_slack = $2;"; shift 2 ;;
	*) sed -n '/^#   tools/,/^set/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
tmp=$(mktemp -d /tmp/spate-fig7.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/all.jsonl"
for mode in off on; do
	l=1000000000
	[ "$mode" = on ] && l=$lambda
	# sigma 0: any worker above the mean load is overloaded (formula 8)
	"$top/tools/pipeline-bench.sh" --subs "$subs" --events 20000 --workers "$workers" \
		--skew "$skew" --series 1 --seconds "$seconds" --sleep-us "$sleep_us" \
		--drt "lambda = $l; sigma = 0.0; $place" --no-inprocess >"$tmp/$mode.jsonl"
	python3 - "$mode" "$lambda" "$skew" "$tmp/$mode.jsonl" >>"$tmp/all.jsonl" <<'PY'
import json, sys
mode, lam, skew = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
for line in open(sys.argv[4]):
    o = json.loads(line)
    o["balancing"] = mode
    o["skew"] = skew
    if mode == "on":
        o["lambda"] = lam
    print(json.dumps(o))
PY
	python3 -c 'import json,sys
for l in sys.stdin:
    o = json.loads(l)
    if o["bench"] == "pipeline-series": print(o["t"], o["events_per_s"])' \
		<"$tmp/$mode.jsonl" >"$tmp/$mode.dat"
done
cp "$tmp/all.jsonl" "$out/pipeline-fig7.jsonl"
if command -v gnuplot >/dev/null; then
	gnuplot <<GP
set terminal pngcairo size 800,480
set output "$out/pipeline-fig7.png"
set title "spated, $workers matching workers, $subs subscriptions, skewed events (skew $skew)"
set xlabel "seconds into the measurement"
set ylabel "events/s"
set yrange [0:*]
set key bottom right
set grid
plot "$tmp/off.dat" with linespoints title "balancing off", \
     "$tmp/on.dat" with linespoints title "balancing on (lambda $lambda)"
GP
fi
grep '"bench": "pipeline"' "$out/pipeline-fig7.jsonl"
