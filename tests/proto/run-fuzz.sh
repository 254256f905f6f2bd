#!/bin/sh
# run-fuzz.sh - build the wire decoder's libFuzzer target with clang and
# run it for a while from a fresh seed corpus.
#
# usage: run-fuzz.sh SOURCE_ROOT WORK_DIR [SECONDS]
#   SOURCE_ROOT  the repository (lib/ and tests/proto/ are read from it)
#   WORK_DIR     where binaries, corpus and crash files go (meson's build dir)
#   SECONDS      fuzzing time, default 20
# Exits 77 (meson: skipped) without clang or its libFuzzer runtime, 1 on a
# crash or a build failure, 0 otherwise.
set -u

src=${1:?usage: run-fuzz.sh SOURCE_ROOT WORK_DIR [SECONDS]}
work=${2:?usage: run-fuzz.sh SOURCE_ROOT WORK_DIR [SECONDS]}
secs=${3:-20}
cc=${CLANG:-clang}
dir=$work/fuzz-decode

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz-decode: $cc not found, skipping"
	exit 77
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
	echo "fuzz-decode: $cc cannot link -fsanitize=fuzzer (libFuzzer runtime missing), skipping"
	exit 77
fi

lib_srcs="$src/lib/spate_err.c $src/lib/spate_types.c"
for f in "$src"/lib/spate_proto*.c; do
	lib_srcs="$lib_srcs $f"
done
flags="-g -O1 -std=gnu11 -I$src/lib -I$src/tests/proto -Wall -Wextra"
# UB is a crash, not a message.
san="-fsanitize=address,undefined -fno-sanitize-recover=all"

# shellcheck disable=SC2086 # word splitting of the lists is wanted
"$cc" $flags $san -fsanitize=fuzzer "$src/tests/proto/fuzz_decode.c" $lib_srcs -lm \
	-o "$dir/fuzz_decode" || { echo "fuzz-decode: build failed"; exit 1; }
# shellcheck disable=SC2086
"$cc" $flags $san -DSPATE_FUZZ_SEEDS "$src/tests/proto/fuzz_decode.c" $lib_srcs -lm \
	-o "$dir/fuzz_seeds" || { echo "fuzz-decode: seed generator build failed"; exit 1; }

# A fresh corpus every run: the same seeds give comparable runs.
rm -rf "$dir/corpus"
mkdir -p "$dir/corpus" "$dir/crashes" || exit 1
"$dir/fuzz_seeds" "$dir/corpus" || { echo "fuzz-decode: seed generation failed"; exit 1; }

"$dir/fuzz_decode" -max_total_time="$secs" -print_final_stats=1 -max_len=4096 \
	-artifact_prefix="$dir/crashes/" "$dir/corpus" >"$dir/fuzz.log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log")
if [ "$rc" -ne 0 ]; then
	tail -n 60 "$dir/fuzz.log"
	echo "fuzz-decode: FAILED (exit $rc) after ${execs:-?} executions; crash input in $dir/crashes/"
	exit 1
fi
echo "fuzz-decode: ${execs:-?} executions in $secs s, no crash (log: $dir/fuzz.log)"
exit 0
