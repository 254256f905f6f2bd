#!/bin/sh
# run-tests.sh - the whole test suite, as the README and CI run it:
# install what is missing, build with warnings as errors, run every test;
# then build again with ASan + UBSan (build-san/) and run the unit, codec
# and end-to-end tests once more under the sanitizers (fuzz targets carry
# their own). Closes with "N passed, N failed" over both runs and exits
# non-zero on any failure. Extra arguments go to both `meson test` runs.
# SPATE_SANITIZE=0 skips the sanitizer run (quicker local iterations).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sh tools/install-deps.sh

# build DIR [meson options...]: configure (once) and build; 1 on failure.
build() {
	dir=$1
	shift
	if [ -f "$dir/build.ninja" ]; then
		meson setup --reconfigure "$dir" -Dwerror=true "$@" > /dev/null
	else
		meson setup "$dir" -Dwerror=true "$@"
	fi
	ninja -C "$dir"
}

logs=""
rc=0
if build build; then
	meson test -C build --print-errorlogs --num-processes 2 "$@" || rc=1
	logs="build"
else
	echo "build failed"
	rc=1
fi

if [ "${SPATE_SANITIZE:-1}" != 0 ]; then
	# b_lundef=false: the sanitizer runtimes resolve symbols at load time.
	if build build-san -Db_sanitize=address,undefined -Db_lundef=false; then
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 E2E_TIMEOUT_MULT=3 \
			meson test -C build-san --print-errorlogs --num-processes 2 \
			--no-suite fuzz --timeout-multiplier 3 "$@" || rc=1
		logs="$logs build-san"
	else
		echo "sanitizer build failed"
		rc=1
	fi
fi

# Count every test of every run; a build that failed counts as one failure.
python3 - "$rc" "$#" $logs <<'PY'
import json, sys
passed = failed = skipped = 0
# The codec's tests must have run (and passed) under ASan + UBSan too:
# an over-read there is the bug ASan exists for (issue 24).
must_san = {"codec", "proto", "protocol-doc", "journal_io"}
logs = sys.argv[3:]
for d in logs:
    with open(f"{d}/meson-logs/testlog.json") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            t = json.loads(line)
            r = t.get("result")
            # meson names a test "project:suite / name"
            if d == "build-san" and r == "OK":
                must_san.discard(t.get("name", "").rsplit(" / ", 1)[-1])
            if r in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif r == "SKIP":
                skipped += 1
            else:
                failed += 1
                print(f"FAILED: {d}: {t.get('name')} ({r})")
if "build-san" in logs and must_san and sys.argv[2] == "0":  # (not when a subset was asked)
    for n in sorted(must_san):
        print(f"FAILED: build-san: {n} did not run and pass under the sanitizers")
    failed += len(must_san)
if sys.argv[1] != "0" and failed == 0:
    failed = 1  # a build failed, or meson test failed outside any test
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
