#!/bin/sh
# run-fuzz.sh - build one libFuzzer target with clang (ASan + UBSan, UB is
# a crash) and run it for a while from a fresh seed corpus.
#
# usage: run-fuzz.sh SOURCE_ROOT WORK_DIR SECONDS TARGET
#   SOURCE_ROOT  the repository (lib/ and tests/ are read from it)
#   WORK_DIR     where binaries, corpus and crash files go (meson's build dir)
#   SECONDS      fuzzing time
#   TARGET       tests/fuzz/fuzz_TARGET.c: LLVMFuzzerTestOneInput, and with
#                -DSPATE_FUZZ_SEEDS a main() writing the seed corpus into
#                the directory argv[1]
# Exits 77 (meson: skipped) without clang or its libFuzzer runtime (1
# under CI=true: no silent test), 1 on a crash or a build failure, 0
# otherwise. Every lib/ source is compiled in, instrumented, so the target
# may call any of it. tests/fuzz/TARGET.dict, when there, is the
# dictionary (-dict): the format's tokens and its length/count edges.
set -u

src=${1:?usage: run-fuzz.sh SOURCE_ROOT WORK_DIR SECONDS TARGET}
work=${2:?usage: run-fuzz.sh SOURCE_ROOT WORK_DIR SECONDS TARGET}
secs=${3:?usage: run-fuzz.sh SOURCE_ROOT WORK_DIR SECONDS TARGET}
target=${4:?usage: run-fuzz.sh SOURCE_ROOT WORK_DIR SECONDS TARGET}
cc=${CLANG:-clang}
name=fuzz-$target
dir=$work/$name
main=$src/tests/fuzz/fuzz_$target.c

[ -f "$main" ] || { echo "$name: no $main"; exit 1; }
# skip WHY: 77, or a failure under CI=true
skip() {
	if [ "${CI:-}" = true ]; then
		echo "$name: FAIL: $1 (CI=true: tools/install-deps.sh installs clang)" >&2
		exit 1
	fi
	echo "$name: $1, skipping"
	exit 77
}
if ! command -v "$cc" >/dev/null 2>&1; then
	skip "$cc not found"
fi
mkdir -p "$dir" || exit 1

# Can this clang link a fuzzer? (needs libclang-rt-*-dev)
cat >"$dir/probe.c" <<'PROBE'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
PROBE
if ! "$cc" -fsanitize=fuzzer,address,undefined "$dir/probe.c" -o "$dir/probe" \
	>"$dir/probe.log" 2>&1; then
	skip "$cc cannot link -fsanitize=fuzzer (libFuzzer runtime missing)"
fi

lib_srcs=$(find "$src/lib" -name "*.c" | sort)
libs="-lm -lpthread $(pkg-config --libs libconfig)"
# Libraries lib/ may use (CRCs, authenticated frames): link those present.
for pc in zlib libcrypto; do
	if pkg-config --exists "$pc" 2>/dev/null; then
		libs="$libs $(pkg-config --libs "$pc")"
	fi
done
flags="-g -O1 -std=gnu11 -D_GNU_SOURCE -I$src/lib -I$src/tests/proto -I$src/tests/fuzz"
san="-fsanitize=address,undefined -fno-sanitize-recover=all"

# lib/ is compiled once per WORK_DIR for every target (instrumented for
# coverage with fuzzer-no-link, which plain ASan binaries link too: the
# sanitizer runtime has no-op coverage hooks), under a lock since meson
# runs targets in parallel; rebuilt when a lib/ file is newer than the
# stamp. Before, each target compiled lib/ twice.
objdir=$work/fuzz-lib
mkdir -p "$objdir" || exit 1
(
	flock 9 || exit 1
	if [ ! -f "$objdir/stamp" ] ||
		[ -n "$(find "$src/lib" "$src/tests/fuzz" -newer "$objdir/stamp" -name '*.[ch]' | head -n 1)" ]; then
		rm -f "$objdir"/*.o "$objdir/stamp"
		# shellcheck disable=SC2086 # word splitting of the lists is wanted
		printf '%s\n' $lib_srcs | xargs -P 2 -I{} sh -c \
			'"$0" $1 -fsanitize=fuzzer-no-link -c "$2" -o "$3/$(basename "$2" .c).o"' \
			"$cc" "$flags $san" {} "$objdir" >"$objdir/build.log" 2>&1 ||
			{ cat "$objdir/build.log"; echo "lib/ build for fuzzing failed"; exit 1; }
		touch "$objdir/stamp"
	fi
) 9>"$work/fuzz-lib.lock" || { echo "$name: build failed"; exit 1; }
lib_objs=$(ls "$objdir"/*.o)

# shellcheck disable=SC2086
"$cc" $flags $san -fsanitize=fuzzer "$main" $lib_objs $libs -o "$dir/fuzz" \
	>"$dir/build.log" 2>&1 || { cat "$dir/build.log"; echo "$name: build failed"; exit 1; }
# shellcheck disable=SC2086
"$cc" $flags $san -DSPATE_FUZZ_SEEDS "$main" $lib_objs $libs -o "$dir/seeds" \
	>"$dir/build-seeds.log" 2>&1 ||
	{ cat "$dir/build-seeds.log"; echo "$name: seed generator build failed"; exit 1; }

# A fresh corpus every run: the same seeds give comparable runs.
rm -rf "$dir/corpus"
mkdir -p "$dir/corpus" "$dir/crashes" || exit 1
"$dir/seeds" "$dir/corpus" "$src" || { echo "$name: seed generation failed"; exit 1; }

dict=$src/tests/fuzz/$target.dict
[ -f "$dict" ] || dict=""
LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0 \
	"$dir/fuzz" -max_total_time="$secs" -print_final_stats=1 -max_len=4096 \
	${dict:+-dict="$dict"} -artifact_prefix="$dir/crashes/" "$dir/corpus" >"$dir/fuzz.log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log")
if [ "$rc" -ne 0 ]; then
	tail -n 60 "$dir/fuzz.log"
	echo "$name: FAILED (exit $rc) after ${execs:-?} executions; crash input in $dir/crashes/"
	exit 1
fi
echo "$name: ${execs:-?} executions in $secs s, no crash (log: $dir/fuzz.log)"
exit 0
