#!/bin/sh
# bench-all.sh - regenerate every benchmark and its plots into
# docs/benchmarks/ (docs/benchmarks.md shows them):
#
#   sh tools/bench-all.sh [--quick] [--out DIR] [--no-build]
#
# Each benchmark mode of spate-bench writes its JSON lines, CSV files,
# gnuplot scripts and PNG plots into DIR/<mode>/ (spate-bench ... --out).
# DIR/machine.txt records the machine, the commit and the exact commands,
# so a plot can be told apart from one made elsewhere. --quick runs the
# same benchmarks at small sizes (a minute or two: to check the pipeline,
# not to publish). Builds first (ninja -C build; SPATE_BUILD names another
# build directory, --no-build skips the step); needs gnuplot for the PNGs
# (tools/install-deps.sh installs gnuplot-nox).
#
# The machine is shared and noisy: each benchmark compares engines side by
# side in one run, so ratios hold while absolute times drift.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/docs/benchmarks
quick=0
build=1
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--out) [ $# -ge 2 ] || { echo "bench-all.sh: --out needs a directory" >&2; exit 2; }
		out=$2; shift ;;
	--no-build) build=0 ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench-all.sh: unknown argument '$1' (--quick, --out DIR, --no-build)" >&2; exit 2 ;;
	esac
	shift
done
builddir=${SPATE_BUILD:-$top/build}
bench=$builddir/tools/spate-bench
if [ $build = 1 ]; then
	ninja -C "$builddir" >/dev/null || { echo "bench-all.sh: build failed" >&2; exit 1; }
fi
[ -x "$bench" ] || { echo "bench-all.sh: $bench not built" >&2; exit 1; }
command -v gnuplot >/dev/null || echo "bench-all.sh: gnuplot missing: CSV only (sh tools/install-deps.sh)" >&2
mkdir -p "$out"

# Everything goes to a scratch directory first and replaces DIR/<mode>
# only when the mode succeeded: a failed run leaves the last good plots.
tmp=$(mktemp -d "$out/.bench-all.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

{
	echo "# Spate benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit: $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$top" diff --quiet 2>/dev/null || echo ' (with local changes)')"
	echo "machine: $(uname -srm), $(nproc) CPUs: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "load when started: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "commands:"
} >"$tmp/machine.txt"

# run MODE ARGS...: spate-bench MODE ARGS --out DIR/MODE, JSON to bench.jsonl.
run() {
	mode=$1
	shift
	echo "  spate-bench $mode $* --out $mode" >>"$tmp/machine.txt"
	echo "bench-all.sh: spate-bench $mode $*" >&2
	mkdir -p "$tmp/$mode"
	if "$bench" "$mode" "$@" --out "$tmp/$mode" >"$tmp/$mode/bench.jsonl"; then
		rm -rf "$out/$mode"
		mv "$tmp/$mode" "$out/$mode"
	else
		echo "bench-all.sh: spate-bench $mode failed; $out/$mode left as it was" >&2
		status=1
	fi
}
status=0

# DRt-Cluster: the paper's Fig. 4 and Fig. 6, and the FAST-style scale runs.
if [ $quick = 1 ]; then
	run drt all --events 20000 --sizes 20000,100000 --scale-events 2000 --deletes 10000
else
	run drt all
fi

# REIN / MP-REIN: matching, insertion and deletion time against the number
# of subscriptions (the MP-REIN paper's figures).
# (spate-bench without a mode takes "rein" for a stream file and prints
# its own usage: look for the mode's usage line.)
if "$bench" rein --help 2>&1 | grep -q "spate-bench rein"; then
	if [ $quick = 1 ] && "$bench" rein --help 2>&1 | grep -q -- "--quick"; then
		run rein --quick
	else
		run rein
	fi
else
	# TODO(issue 7): `spate-bench rein` (issue of the REIN engines) has not
	# landed yet; when it has, this branch runs it like drt above.
	echo "  spate-bench rein: not available in this build (TODO)" >>"$tmp/machine.txt"
	echo "bench-all.sh: spate-bench rein not available yet: skipped" >&2
fi

mv "$tmp/machine.txt" "$out/machine.txt"
echo "bench-all.sh: results in $out" >&2
exit $status
