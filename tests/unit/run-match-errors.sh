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
# conf_case DESCRIPTION STATUS PATTERN NAME CONTENT: spate-match on
# basic.tsv with the config file NAME holding CONTENT (printf %b) exits
# STATUS and says PATTERN on stderr.
conf_case() {
	printf '%b' "$5" > "$tmp/$4"
	"$match" --conf "$tmp/$4" "$dir/basic.tsv" > /dev/null 2> "$tmp/err"
	check "$1" $? "$2" "$3"
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
conf_case "bad conf range" 2 "bad.conf:1: spate.limits.max_keywords = 1000 is out of range" \
	bad.conf 'spate: { limits: { max_keywords = 1000; }; };\n'
conf_case "conf limit applies" 1 "basic.tsv:4: more than 1 keywords" \
	small.conf 'spate: { limits: { max_keywords = 1; }; };\n'
conf_case "conf syntax" 2 "syntax.conf:" \
	syntax.conf 'spate: { engine = 3 \n'
# The attribute schema: a constraint outside a declared domain is refused
# where it enters (file:line), event values outside it still match, and
# bad schema entries name their line.
printf 'spate: {\n  attributes = (\n    { name = "price"; min = 0; max = 100.0; cells = 10; }\n  );\n};\n' > "$tmp/schema.conf"
printf 'sub\t1\t-180\t-90\t180\t90\t-\tprice>=50\nevent\t1\t0\t0\t-\tprice=1e9\nsub\t2\t-180\t-90\t180\t90\t-\tprice<=100.5\n' > "$tmp/dom.tsv"
for e in rein rein-list mprein ivx; do
	"$match" --engine $e --conf "$tmp/schema.conf" "$tmp/dom.tsv" > "$tmp/out" 2> "$tmp/err"
	check "out of domain ($e)" $? 1 "dom.tsv:3: constraint value outside the attribute's declared domain"
	[ "$(cat "$tmp/out")" = "$(printf '1\t1')" ] || { echo "FAIL: $e: clamped event" >&2; fail=1; }
done
conf_case "schema min > max" 2 "inv.conf:3: spate.attributes\[0\]: min = 5, max = 1" \
	inv.conf 'spate: {\n  attributes = (\n    { name = "price"; min = 5; max = 1; }\n  );\n};\n'
conf_case "schema declared twice" 2 "twice.conf:4: spate.attributes\[1\]: attribute 'a' is declared twice" \
	twice.conf 'spate: {\n  attributes = (\n    { name = "a"; min = 0; max = 1; },\n    { name = "a"; min = 0; max = 1; cells = 10; }\n  );\n};\n'
conf_case "schema cells" 2 "cells.conf:1: spate.attribute_default.cells = 70000 is out of range" \
	cells.conf 'spate: { attribute_default = { min = 0; max = 1; cells = 70000; }; };\n'
conf_case "schema unknown key" 2 "key.conf:1: spate.attributes\[0\]: unknown setting 'colour'" \
	key.conf 'spate: { attributes = ( { name = "a"; min = 0; max = 1; colour = 3; } ); };\n'
exit $fail
