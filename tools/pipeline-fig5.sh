#!/bin/bash
# pipeline-fig5.sh - the DRt-Cluster paper's Fig. 5 on spated: subscriptions
# moved by merging against events processed, InNode (merge_th 0) against
# InAndBetNode (merge_th 1, as the paper's text reads it; per category,
# merge_each 1; the largest finite MergeJudgePara, merge_finite 1), with
# W matching lcores (default 4) on the cores there are, and no size cap
# (cat_cap 0, as the paper).
# The stream is the paper's (spate-bench drt paper --stream-out: the
# subscriptions interleaved with the first half of the events, as the
# in-process Fig. 5 feeds them), sent by spate-replay (the client's default
# rate, subscriptions acknowledged) from a network namespace over a veth
# to spated on net_af_packet (tools/netns.sh): the cluster stage decides
# the merges in stream order, the matching lcores carry them out (a merge
# across lcores moves the category first). Counters, sampled every
# --every seconds until the client is done:
#   merge_subs_in_node  subscriptions of categories merged on their lcore
#   merge_subs_between  of categories merged across lcores (DataTra)
# Data moved is a count, so sharing 2 cores among 5 lcores does not bias
# it (only the feedback's timing, which the correlation counts follow).
# Writes into DIR (default docs/bench/papers):
#   pipeline-fig5.csv    policy,events,in_node_subs,between_subs,total_subs
#   pipeline-fig5.jsonl  one summary line a policy
#   pipeline-fig5.png    (gnuplot)
#
#   tools/pipeline-fig5.sh [--out DIR] [--workers W] [--events N]
#        [--every S] [--rate N]   (client events/s, default 20000)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SPATE_BUILD:-$top/build}
out=$top/docs/bench/papers workers=4 events=100000 every=0.1 rate=20000
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--workers) workers=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--every) every=$2; shift 2 ;;
	--rate) rate=$2; shift 2 ;;
	*) sed -n '/^#   tools/,/^set/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done
for b in app/spated tools/spate-replay tools/spate-bench; do
	[ -x "$build/$b" ] || { echo "pipeline-fig5: no $build/$b (build first)" >&2; exit 1; }
done
mkdir -p "$out"
tmp=$(mktemp -d /tmp/spate-fig5.XXXXXX)
NETNS_SPATED=$build/app/spated
. "$top/tools/netns.sh"
cleanup() { netns_cleanup; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

"$build/tools/spate-bench" drt paper --events "$events" --stream-out "$tmp/stream.tsv"
n_ev=$(grep -c '^event' "$tmp/stream.tsv")
n_sub=$(grep -c '^sub' "$tmp/stream.tsv")
. "$top/tools/bench-lcores.sh"
bench_lcores "$workers"
NETNS_EAL_LCORES="--lcores=$map"
# the in-process Fig. 5's parameters (tools/bench_drt.c FIG5_SPEC)
common="place_slack = 0.0; cat_cap = 0.0; alpha = 0.5; route_cell = 5.0; cat_cell = 2.0;"
: >"$tmp/all.jsonl"
echo "policy,events,in_node_subs,between_subs,total_subs" >"$tmp/fig5.csv"
netns_create
for policy in innode inandbet inandbet_each inandbet_finite; do
	case $policy in
	innode) drt="merge_th = 0.0;" ;;
	inandbet) drt="merge_th = 1.0;" ;;
	inandbet_each) drt="merge_th = 1.0; merge_each = 1;" ;;
	inandbet_finite) drt="merge_th = 1.0; merge_finite = 1;" ;;
	esac
	python3 - "$top/conf/demo.conf" "$tmp/run.conf" "rx = 0; tx = 0; cluster = 0; match = [ $match ];" \
		"$common $drt" <<'PY'
import re, sys
src, dst, layout, drt = sys.argv[1:5]
t = open(src).read()
t = t.replace("spated: {", "spated: {\n  lcores: { %s };" % layout, 1)
t = t.replace("spate: {", "spate: {\n  drt: { %s };" % drt, 1)
t = re.sub(r"\n  stats_interval = \d+;", "\n  stats_interval = 0;", t)
open(dst, "w").write(t)
PY
	netns_spated_start "$tmp/spated.log" -c "$tmp/run.conf"
	# the client as users run it: paced (--rate), subscriptions acked
	netns_cli timeout 600 "$build/tools/spate-replay" --conf "$tmp/run.conf" \
		--server "$NETNS_SRV_IP:$NETNS_PORT" --stream "$tmp/stream.tsv" --out /dev/null \
		--rate "$rate" --quiet 2>"$tmp/replay.err" &
	replay=$!
	netns_track "$replay"
	# sample until the client is done and nothing moves any more
	python3 - "$NETNS_SPATED_PID" "$tmp/spated.log" "$policy" "$n_ev" "$n_sub" "$every" "$map" \
		"$common $drt" "$tmp/fig5.csv" "$replay" "$rate" >>"$tmp/all.jsonl" <<'PY'
import json, os, signal, sys, time
pid, log, policy = int(sys.argv[1]), sys.argv[2], sys.argv[3]
n_ev, n_sub, every, lmap, drt = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), sys.argv[7], sys.argv[8]
csv = open(sys.argv[9], "a")
replay, rate = int(sys.argv[10]), int(sys.argv[11])
def lines():
    return [l for l in open(log) if l.startswith('{"spated":"counters"') and l.endswith("\n")]
def alive(p):
    try:
        os.kill(p, 0)
        return True
    except ProcessLookupError:
        return False
t_end = time.time() + 900
seen, last, t0, stall = len(lines()), None, time.time(), 0
while time.time() < t_end:
    os.kill(pid, signal.SIGUSR1)
    deadline = time.time() + 15
    while len(lines()) <= seen and time.time() < deadline:
        time.sleep(0.005)
    ls = lines()
    if len(ls) <= seen:
        sys.exit("pipeline-fig5: no counter line from spated")
    seen = len(ls)
    c = json.loads(ls[-1])
    if last is None or c["events"] != last["events"] or c["merge_subs_in_node"] != last["merge_subs_in_node"] \
            or c["merge_subs_between"] != last["merge_subs_between"]:
        print("%s,%d,%d,%d,%d" % (policy, c["events"], c["merge_subs_in_node"], c["merge_subs_between"],
                                  c["merge_subs_in_node"] + c["merge_subs_between"]), file=csv, flush=True)
        stall = 0
    else:
        stall += 1
    last = c
    if not alive(replay) and stall >= 3:
        break
    time.sleep(every)
c = last
print(json.dumps({"bench": "pipeline-fig5", "policy": policy, "workers": len(lmap.split(",")) - 1,
                  "lcores_map": lmap, "drt": drt, "rate": rate, "events": c["events"],
                  "stream_events": n_ev, "shed_events": c["shed_events"],
                  "sub_adds": c["sub_adds"], "stream_subs": n_sub,
                  "merges": c["merges"], "merges_between": c["merges_between"],
                  "in_node_subs": c["merge_subs_in_node"], "between_subs": c["merge_subs_between"],
                  "rehomes": c["rehomes_out"], "rehome_subs": c["rehome_subs"],
                  "ring_full_rx": c["ring_full_rx"], "msg_no_memory": c["msg_no_memory"],
                  "feedback_lost": c["feedback_lost"], "matches": c["matches"],
                  "seconds": round(time.time() - t0, 2)}))
PY
	wait "$replay" || { cat "$tmp/replay.err" >&2; echo "pipeline-fig5: spate-replay failed" >&2; exit 1; }
	netns_spated_stop
done
cp "$tmp/fig5.csv" "$out/pipeline-fig5.csv"
cp "$tmp/all.jsonl" "$out/pipeline-fig5.jsonl"
if command -v gnuplot >/dev/null; then
	gnuplot <<GP
set terminal pngcairo size 800,640 noenhanced
set output "$out/pipeline-fig5.png"
set datafile separator ","
set title "Fig. 5 in spated: subscriptions moved by merging ($workers matching lcores, $(nproc) cores)"
set xlabel "events processed"
set ylabel "subscriptions moved (cumulative)"
set key below
set grid
f = "$out/pipeline-fig5.csv"
plot f using 2:(strcol(1) eq "innode" ? \$5 : 1/0) with linespoints title "InNode (merge_th 0)", \
     f using 2:(strcol(1) eq "inandbet" ? \$5 : 1/0) with linespoints title "InAndBetNode, the text (merge_th 1)", \
     f using 2:(strcol(1) eq "inandbet_each" ? \$5 : 1/0) with linespoints title "InAndBetNode per category (merge_each)", \
     f using 2:(strcol(1) eq "inandbet_finite" ? \$5 : 1/0) with linespoints title "InAndBetNode, largest finite (merge_finite)", \
     f using 2:(strcol(1) eq "inandbet" ? \$4 : 1/0) with lines dashtype 3 title "  the text: of which between lcores", \
     f using 2:(strcol(1) eq "inandbet_each" ? \$4 : 1/0) with lines dashtype 2 title "  per category: of which between lcores"
GP
fi
cat "$out/pipeline-fig5.jsonl"
