#!/bin/sh
# run-valgrind.sh SPATE_MATCH SPATE_BENCH DATA_DIR: the offline tools under
# valgrind's memcheck, every engine, on the hand-checked streams and a bad
# one: no invalid access, no uninitialised read, no leak, and the output
# still the expected one (valgrind changes timing, not results).
set -u
match=$1 bench=$2 data=$3
command -v valgrind >/dev/null || { echo "FAIL: valgrind not installed (tools/install-deps.sh)"; exit 1; }
vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,possible"
status=0
for engine in $("$match" --list-engines | cut -d' ' -f1); do
	for case in basic interleaved; do
		if ! $vg "$match" --quiet --engine "$engine" "$data/$case.tsv" |
			diff -u "$data/$case.expected" - >/dev/null; then
			echo "FAIL: valgrind spate-match --engine $engine $case.tsv" >&2
			status=1
		fi
	done
done
# A file with bad lines: errors reported (exit 1), nothing leaked.
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf 'sub\t1\t0\t0\t1\t1\ta\nevent\tx\t0\t0\ta\nsub\t2\t5\t5\t1\t1\ta\n' >"$tmp"
$vg "$match" --quiet "$tmp" >/dev/null 2>&1
[ $? -eq 99 ] && { echo "FAIL: valgrind errors on a bad stream" >&2; status=1; }
if ! $vg "$bench" --engines brute,grid,drt "$data/interleaved.tsv" >/dev/null; then
	echo "FAIL: valgrind spate-bench" >&2
	status=1
fi
[ $status -eq 0 ] && echo "ok: offline tools clean under valgrind"
exit $status
