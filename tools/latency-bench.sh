#!/bin/bash
# latency-bench.sh - round-trip latency of spated against a kernel UDP
# echo server on the same veth path, as a user sees it (spate-probe: one
# event at a time, each waiting for its NOTIFY), and an idle lcore's CPU:
#
#   tools/latency-bench.sh [--count N] [--warmup N] [--rounds R] [--conf FILE]
#        [--variant "NAME: key = value; ..."]... [--scenarios LIST]
#        [--subs N] [--idle-seconds S] [--client-cpu C] [--out DIR]
#
# Scenarios (default all, in this order, each round):
#   echo      the kernel: spated stopped, 198.18.0.1 on the server end of the
#             veth, `spate-probe --echo-server` answering there
#   idle      spated (the config as shipped), nothing else going on
#   subs      the same with --subs subscriptions (default 100000,
#             tools/fast-stream.py) preloaded over the probe's point
#   load10k   the same as idle, while spate-pub sends 10,000 events/s
#   load50k   ... 50,000 events/s (FAST-style events, one per datagram)
# Each spated scenario runs once per variant: "default" is --conf as it
# is; --variant adds one with spated keys replaced ("old: idle_spin_us = 0;
# idle_sleep_us = 50;" is the strategy before issue 25), so settings
# compare side by side in one run. --rounds repeats the whole set.
#
# --client-cpu C pins the clients (spate-probe, spate-pub) to CPU C and
# the servers to CPU 0 (spated's lcore 0 is there anyway; the echo server
# by taskset), as if they were different machines; by default the kernel
# places the clients and the echo server (on a loaded machine pinning
# only takes away the kernel's way out).
#
# The idle CPU of spated (utime + stime of the process, /proc/PID/stat)
# is taken over --idle-seconds (default 10) with no traffic, after a 3 s
# pause, for each variant in each round (alternated, like the probes). One JSON line per measurement on stdout
# (spate-probe --json's, plus scenario, variant, round, load and the
# events/s spated counted during the probe), a Markdown table at the end;
# --out DIR keeps the JSON lines, every round trip (for CDF plots:
# DIR/<round>-<scenario>-<variant>.txt, sorted), spated's logs, and with
# gnuplot DIR/latency-cdf.png: the round trips' CDFs of the last round,
# one curve per scenario and variant (log scale, with the tail
# magnified in DIR/latency-tail.png).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
count=20000 warmup=1000 rounds=1 conf=$top/conf/demo.conf subs=100000 idle_s=10
scenarios="echo idle subs load10k load50k" out="" variants=("default:") client_cpu=""
while [ $# -gt 0 ]; do
	case $1 in
	--count) count=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--conf) conf=$2; shift 2 ;;
	--variant) variants+=("$2"); shift 2 ;;
	--scenarios) scenarios=$2; shift 2 ;;
	--subs) subs=$2; shift 2 ;;
	--idle-seconds) idle_s=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--client-cpu) client_cpu=$2; shift 2 ;;
	*) sed -n '/^#   tools/,/^#$/p' "$0" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "latency-bench.sh: needs root (namespaces)" >&2; exit 1; }
cd "$top" || exit 1
for b in app/spated tools/spate-probe tools/spate-pub; do
	[ -x "build/$b" ] || { echo "latency-bench.sh: build/$b missing (ninja -C build)" >&2; exit 1; }
done
# shellcheck source=tools/netns.sh
. "$top/tools/netns.sh"
tmp=$(mktemp -d /tmp/spate-lbench.XXXXXX)
pub_pid=""
finish() {
	[ -n "$pub_pid" ] && kill "$pub_pid" 2>/dev/null
	netns_cleanup
	if [ -n "$out" ]; then
		mkdir -p "$out" && cp -r "$tmp/." "$out/"
	fi
	rm -rf "$tmp"
}
trap finish EXIT
trap 'exit 130' INT TERM
netns_create || exit 1
[ "$(nproc)" -ge 2 ] || client_cpu=""
pin_client=() pin_server=()
if [ -n "$client_cpu" ]; then
	pin_client=(taskset -c "$client_cpu")
	pin_server=(taskset -c 0)
fi
srv=$NETNS_SRV_IP:$NETNS_PORT

# The probe's point is inside the preloaded subscriptions' extent.
point=-100,38
needs_subs=0
case " $scenarios " in *" subs "*) needs_subs=1 ;; esac
if [ $needs_subs = 1 ]; then
	python3 tools/fast-stream.py --subs "$subs" --events 0 --seed 5 >"$tmp/subs.tsv"
fi
case " $scenarios " in *" load"*)
	python3 tools/fast-stream.py --subs 0 --events 100000 --seed 6 >"$tmp/events.tsv" ;;
esac

# conf_for VARIANT_SETTINGS [preload FILE]: the config with the settings
# of the variant replacing (or adding) keys of the spated group.
conf_for() {
	python3 - "$conf" "$1" "${2:-}" <<'PY'
import re, sys
src, settings, preload = sys.argv[1], sys.argv[2], sys.argv[3]
t = open(src).read()
add = []
for kv in filter(None, (s.strip() for s in settings.split(";"))):
    k = kv.split("=")[0].strip()
    t = re.sub(r"\n[ \t]*%s[ \t]*=[^;]*;" % re.escape(k), "\n", t)
    add.append(kv + ";")
if preload:
    add.append('preload = "%s";' % preload)
t = t.replace("spated: {", "spated: {\n  " + "\n  ".join(add), 1)
print(t, end="")
PY
}

counters() { [ -n "$NETNS_SPATED_PID" ] && netns_spated_stats; }

# cpu_of PID: utime + stime in clock ticks.
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

run_spated() { # VARIANT_NAME SETTINGS [preload]
	conf_for "$2" "${3:-}" >"$tmp/$1.conf"
	netns_spated_start "$tmp/spated-$1.log" -c "$tmp/$1.conf" || exit 1
	if [ -n "${3:-}" ]; then
		for i in $(seq 1 1200); do
			grep -q '^spated: preload done' "$tmp/spated-$1.log" && break
			sleep 0.25
		done
	fi
}

results=$tmp/results.jsonl
: >"$results"
probe() { # ROUND SCENARIO VARIANT LOAD_RATE
	local name="$1-$2-$3" a b line
	a=$(counters)
	line=$(netns_cli "${pin_client[@]}" build/tools/spate-probe "${probe_target[@]}" --count "$count" \
		--warmup "$warmup" --point "$point" --label "$2" --json --samples "$tmp/$name.txt")
	b=$(counters)
	python3 - "$line" "$a" "$b" "$1" "$2" "$3" "$4" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY' | tee -a "$results"
import json, sys
line, a, b, rnd, sc, var, rate, load = sys.argv[1:9]
r = json.loads(line)
a = json.loads(a) if a.strip() else {}
b = json.loads(b) if b.strip() else {}
r.update({"round": int(rnd), "scenario": sc, "variant": var, "load1": float(load)})
if a and b:
    dt = b["uptime_s"] - a["uptime_s"]
    r["events_per_s"] = round((b["events"] - a["events"]) / dt) if dt > 0 else 0
    r["rate_asked"] = int(rate)
print(json.dumps(r))
PY
}

with_load() { # RATE then the probe's arguments
	local rate=$1 n
	shift
	n=$((rate * 60)) # at most a minute of events
	# ip itself, not netns_cli: a function in a pipeline runs in a subshell,
	# $! would be that subshell, and killing it would leave spate-pub
	# sending into the next scenarios for the rest of its minute
	(for i in $(seq 1 40); do cat "$tmp/events.tsv"; done) |
		ip netns exec "$NETNS_CLI" "${pin_client[@]}" build/tools/spate-pub --server "$srv" --rate "$rate" --count "$n" --quiet \
			>/dev/null 2>"$tmp/pub.log" &
	pub_pid=$!
	sleep 1
	probe "$@" "$rate"
	kill "$pub_pid" 2>/dev/null
	wait "$pub_pid" 2>/dev/null
	pub_pid=""
}

cpu_file=$tmp/idle-cpu.jsonl
: >"$cpu_file"
for r in $(seq 1 "$rounds"); do
	for sc in $scenarios; do
		if [ "$sc" = echo ]; then
			ip -n "$NETNS_SRV" addr add "$NETNS_SRV_IP/24" dev "$NETNS_SRV_IF"
			netns_srv "${pin_server[@]}" build/tools/spate-probe --echo-server "$srv" 2>/dev/null &
			echo_pid=$!
			netns_track "$echo_pid"
			sleep 0.5
			probe_target=(--echo "$srv")
			probe "$r" echo kernel 0
			kill "$echo_pid" 2>/dev/null
			wait "$echo_pid" 2>/dev/null
			ip -n "$NETNS_SRV" addr del "$NETNS_SRV_IP/24" dev "$NETNS_SRV_IF"
			continue
		fi
		probe_target=(--server "$srv")
		for v in "${variants[@]}"; do
			vname=${v%%:*} vset=${v#*:}
			case $sc in
			idle)
				run_spated "$vname" "$vset"
				probe "$r" idle "$vname" 0
				if [ "$idle_s" != 0 ]; then
					sleep 3
					c0=$(cpu_of "$NETNS_SPATED_PID") t0=$(date +%s.%N)
					sleep "$idle_s"
					c1=$(cpu_of "$NETNS_SPATED_PID") t1=$(date +%s.%N)
					python3 -c "import json,os,sys; c0,c1,t0,t1=map(float,sys.argv[1:5]); print(json.dumps({'idle_cpu':sys.argv[5],'round':int(sys.argv[7]),'cpu_percent':round(100*(c1-c0)/os.sysconf('SC_CLK_TCK')/(t1-t0),1),'seconds':round(t1-t0,1),'load1':float(sys.argv[6])}))" \
						"$c0" "$c1" "$t0" "$t1" "$vname" "$(cut -d' ' -f1 /proc/loadavg)" "$r" |
						tee -a "$cpu_file"
				fi ;;
			subs)
				run_spated "$vname" "$vset" "$tmp/subs.tsv"
				probe "$r" "subs$((subs / 1000))k" "$vname" 0 ;;
			load10k)
				run_spated "$vname" "$vset"
				with_load 10000 "$r" load10k "$vname" ;;
			load50k)
				run_spated "$vname" "$vset"
				with_load 50000 "$r" load50k "$vname" ;;
			*) echo "latency-bench.sh: unknown scenario '$sc'" >&2; exit 2 ;;
			esac
			netns_spated_stop
		done
	done
done

echo
echo "| scenario | variant | p50 | p90 | p99 | p99.9 | max | lost | events/s | load |"
echo "|---|---|---|---|---|---|---|---|---|---|"
python3 - "$results" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("| %s | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %d | %s | %.1f |" % (
        r["scenario"], r["variant"], r["p50_us"], r["p90_us"], r["p99_us"], r["p99.9_us"],
        r["max_us"], r["lost"], r.get("events_per_s", "-"), r["load1"]))
PY
python3 - "$cpu_file" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("idle CPU, round %d, %s: %.1f%% of a CPU over %.0f s (load %.1f)" % (
        r["round"], r["idle_cpu"], r["cpu_percent"], r["seconds"], r["load1"]))
PY

# CDF plots of the last round: a few hundred points per curve.
if [ -n "$out" ] && command -v gnuplot >/dev/null; then
	python3 - "$tmp" "$rounds" <<'PY' >"$tmp/cdf.gp"
import glob, os, sys
d, last = sys.argv[1], sys.argv[2]
curves = []
for f in sorted(glob.glob(os.path.join(d, last + "-*.txt"))):
    v = [float(x) for x in open(f)]
    if not v:
        continue
    name = os.path.basename(f)[len(last) + 1:-4]
    dat = os.path.join(d, "cdf-" + name + ".dat")
    with open(dat, "w") as o:
        n = len(v)
        for k in sorted(set([int(i * (n - 1) / 400) for i in range(401)] + list(range(max(0, n - 50), n)))):
            o.write("%.2f %.6f\n" % (v[k], (k + 1) / n))
    sc, var = name.split("-", 1)
    curves.append((dat, name.replace("-", " / ").replace("echo / kernel", "kernel UDP echo"), sc, var))
# one colour per scenario (the kernel black), one dash pattern per variant
# ("default" solid): gnuplot's own cycle repeats its colours after eight
colours = ["#000000", "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2"]
scs = list(dict.fromkeys(["echo"] + [c[2] for c in curves]))
vs = list(dict.fromkeys(["kernel", "default"] + [c[3] for c in curves]))
def style(c):
    return 'lw 2 lc rgb "%s" dt %d title "%s"' % (
        colours[scs.index(c[2]) % len(colours)], max(1, vs.index(c[3])), c[1])
plot = ", ".join('"%s" using 1:2 with lines %s' % (c[0], style(c)) for c in curves)
tail = ", ".join('"%s" using 1:(1-$2) with lines %s' % (c[0], style(c)) for c in curves)
print("""set terminal pngcairo size 900,540
set grid
set logscale x
set xlabel "round trip (us), one event at a time"
set key bottom right
set output "%s/latency-cdf.png"
set ylabel "fraction of round trips"
plot [10:*][0:1] %s
set output "%s/latency-tail.png"
set logscale y
set ylabel "fraction slower (1 - CDF)"
set key top right
plot [10:*][0.0001:1] %s
""" % (d, plot, d, tail))
PY
	gnuplot "$tmp/cdf.gp" || echo "latency-bench.sh: gnuplot failed" >&2
fi
