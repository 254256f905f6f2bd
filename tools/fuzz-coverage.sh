#!/bin/sh
# fuzz-coverage.sh - how much of lib/ each fuzz target reaches: its seed
# corpus alone, then after a bounded libFuzzer run (with its dictionary),
# as line and branch coverage of the lib/ files the target is for
# (clang source-based coverage: -fprofile-instr-generate, llvm-cov).
#
# usage: tools/fuzz-coverage.sh [SECONDS [TARGET...]]   (default 60 s, all)
# Work files go to ${TMPDIR:-/tmp}/spate-fuzzcov; one Markdown table row
# per target and stage is printed (docs/testing.md keeps the measured
# table). No sanitizers here (coverage only: tests/fuzz/run-fuzz.sh is
# the check); the corpus starts fresh from the seeds every run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-decode peer stream conf journal}
work=${TMPDIR:-/tmp}/spate-fuzzcov
cc=${CLANG:-clang}
profdata=$(command -v llvm-profdata || command -v llvm-profdata-14)
cov=$(command -v llvm-cov || command -v llvm-cov-14)
mkdir -p "$work"

# the lib/ files a target is for (what its score is over)
files_of() {
	case $1 in
	decode) echo proto/spate_proto.c ;;
	peer) echo peer/spate_peer.c peer/spate_peer_chan.c ;;
	stream) echo stream/spate_stream.c ;;
	conf) echo conf/spate_conf.c engines/drt/drt_params.c matcher/spate_schema.c ;;
	journal) echo store/spate_journal.c ;;
	esac
}

libs="-lm -lpthread $(pkg-config --libs libconfig zlib libcrypto)"
flags="-g -O1 -std=gnu11 -D_GNU_SOURCE -I$top/lib -I$top/tests/proto -I$top/tests/fuzz"
covf="-fprofile-instr-generate -fcoverage-mapping"
objs=$work/lib
mkdir -p "$objs"
for f in $(find "$top/lib" -name "*.c"); do
	o=$objs/$(basename "$f" .c).o
	[ -f "$o" ] && [ "$o" -nt "$f" ] && continue
	# shellcheck disable=SC2086
	nice "$cc" $flags $covf -fsanitize=fuzzer-no-link -c "$f" -o "$o"
done

echo "| target | files | stage | inputs | lines | branches |"
echo "|---|---|---|---|---|---|"
for t in $targets; do
	d=$work/$t
	rm -rf "$d"
	mkdir -p "$d/corpus"
	main=$top/tests/fuzz/fuzz_$t.c
	# shellcheck disable=SC2086
	nice "$cc" $flags $covf -fsanitize=fuzzer "$main" "$objs"/*.o $libs -o "$d/fuzz" \
		>"$d/build.log" 2>&1 || { tail -20 "$d/build.log"; exit 1; }
	# (the seed writer links ASan's runtime: it has the no-op coverage
	# hooks the instrumented lib/ calls, as in run-fuzz.sh)
	# shellcheck disable=SC2086
	nice "$cc" $flags -fsanitize=address -DSPATE_FUZZ_SEEDS "$main" "$objs"/*.o $covf $libs \
		-o "$d/seeds" >"$d/build.log" 2>&1 || { tail -20 "$d/build.log"; exit 1; }
	ASAN_OPTIONS=detect_leaks=0 LLVM_PROFILE_FILE=$d/seeds.profraw "$d/seeds" "$d/corpus" "$top" \
		>/dev/null
	rm -f "$d/seeds.profraw"
	dict=$top/tests/fuzz/$t.dict
	[ -f "$dict" ] || dict=""
	srcs=""
	for f in $(files_of "$t"); do srcs="$srcs $top/lib/$f"; done
	for stage in seeds fuzzed; do
		if [ $stage = fuzzed ]; then
			LLVM_PROFILE_FILE=$d/run.profraw nice "$d/fuzz" -max_total_time="$secs" \
				-max_len=4096 ${dict:+-dict="$dict"} "$d/corpus" >"$d/fuzz.log" 2>&1 || true
		fi
		# the corpus as it is now, each input once: its coverage
		rm -f "$d"/cov-*.profraw
		LLVM_PROFILE_FILE=$d/cov-%p.profraw "$d/fuzz" -runs=0 "$d/corpus" >"$d/cov.log" 2>&1 || true
		"$profdata" merge -sparse "$d"/cov-*.profraw -o "$d/$stage.profdata"
		n=$(find "$d/corpus" -type f | wc -l)
		# shellcheck disable=SC2086
		"$cov" report "$d/fuzz" -instr-profile="$d/$stage.profdata" $srcs >"$d/$stage.txt"
		label=$stage
		[ $stage = fuzzed ] && label="seeds + ${secs} s fuzzing"
		# TOTAL: regions (3 columns), functions (3), lines (3), branches (3)
		# shellcheck disable=SC2046
		set -- $(grep '^TOTAL' "$d/$stage.txt")
		echo "| $t | $(files_of "$t" | sed 's/ /, /g') | $label | $n | ${10} | ${13} |"
	done
done
