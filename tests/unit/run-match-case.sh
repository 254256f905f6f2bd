#!/bin/sh
# run-match-case.sh SPATE_MATCH DATA/NAME: NAME.tsv must give NAME.expected
# exactly, with every engine.
set -u
match=$1 case=$2
status=0
for engine in $("$match" --list-engines | cut -d' ' -f1); do
	if ! "$match" --quiet --engine "$engine" "$case.tsv" | diff -u "$case.expected" - ; then
		echo "FAIL: engine $engine on $case.tsv" >&2
		status=1
	fi
done
exit $status
