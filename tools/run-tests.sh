#!/bin/sh
# run-tests.sh - the whole test suite, as the README and CI run it:
# install what is missing, build with warnings as errors, run every test,
# and close with "N passed, N failed". Exits non-zero on any failure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sh tools/install-deps.sh
if [ -f build/build.ninja ]; then
	meson setup --reconfigure build -Dwerror=true > /dev/null
else
	meson setup build -Dwerror=true
fi
if ! ninja -C build; then
	echo "build failed"
	echo "0 passed, 1 failed"
	exit 1
fi

set +e
meson test -C build --print-errorlogs --num-processes 2 "$@"
rc=$?
set -e

python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
with open(sys.argv[1]) as f:
    for line in f:
        line = line.strip()
        if not line:
            continue
        r = json.loads(line).get("result")
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
PY
py=$?
[ "$rc" -eq 0 ] && [ "$py" -eq 0 ]
