#!/bin/sh
# run-match-errors.sh SPATE_MATCH DATADIR: bad lines are reported as
# file:line with a reason and make spate-match exit non-zero, unless
# --skip-bad is given; errors from the matcher (unknown id, duplicate id)
# too.
set -u
match=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # description, command status expected, stderr pattern
	if [ "$2" != "$3" ]; then echo "FAIL: $1: exit $2, want $3" >&2; fail=1; fi
	if ! grep -q -- "$4" "$tmp/err"; then
		echo "FAIL: $1: stderr lacks '$4':" >&2; cat "$tmp/err" >&2; fail=1
	fi
}
printf 'sub\t1\t0\t0\t1\t1\ta\nevent\t1\t0\t0\ta\nsub\t2\t5\t0\t1\t1\ta\nevent\t2\t0\t0\ta\n' > "$tmp/bad.tsv"
"$match" "$tmp/bad.tsv" > "$tmp/out" 2> "$tmp/err"
check "inverted rect" $? 1 "bad.tsv:3: rectangle min greater than max"
[ "$(cat "$tmp/out")" = "$(printf '1\t1')" ] || { echo "FAIL: output before the bad line" >&2; fail=1; }
"$match" --skip-bad "$tmp/bad.tsv" > "$tmp/out" 2> "$tmp/err"
check "skip-bad" $? 0 "bad.tsv:3:"
[ "$(wc -l < "$tmp/out")" = 2 ] || { echo "FAIL: skip-bad should go on" >&2; fail=1; }
printf 'unsub\t9\n' > "$tmp/unknown.tsv"
"$match" "$tmp/unknown.tsv" > /dev/null 2> "$tmp/err"
check "unknown id" $? 1 "unknown.tsv:1: unknown subscription id"
printf 'sub\t1\t0\t0\t1\t1\ta\nsub\t1\t0\t0\t1\t1\tb\n' > "$tmp/dup.tsv"
"$match" "$tmp/dup.tsv" > /dev/null 2> "$tmp/err"
check "duplicate id" $? 1 "dup.tsv:2: subscription id already in use"
"$match" "$tmp/missing.tsv" > /dev/null 2> "$tmp/err"
check "missing file" $? 2 "missing.tsv: No such file"
"$match" --engine nope "$dir/basic.tsv" > /dev/null 2> "$tmp/err"
check "unknown engine" $? 2 "unknown engine 'nope'"
printf 'spate: { limits: { max_keywords = 1000; }; };\n' > "$tmp/bad.conf"
"$match" --conf "$tmp/bad.conf" "$dir/basic.tsv" > /dev/null 2> "$tmp/err"
check "bad conf range" $? 2 "bad.conf:1: spate.limits.max_keywords = 1000 is out of range"
printf 'spate: { limits: { max_keywords = 1; }; };\n' > "$tmp/small.conf"
"$match" --conf "$tmp/small.conf" "$dir/basic.tsv" > /dev/null 2> "$tmp/err"
check "conf limit applies" $? 1 "basic.tsv:4: more than 1 keywords"
printf 'spate: { engine = 3 \n' > "$tmp/syntax.conf"
"$match" --conf "$tmp/syntax.conf" "$dir/basic.tsv" > /dev/null 2> "$tmp/err"
check "conf syntax" $? 2 "syntax.conf:"
exit $fail
