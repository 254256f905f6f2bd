#!/bin/bash
# bench-all.sh - tools/bench-all.sh --quick runs end to end: every mode
# that exists leaves its JSON lines, CSV files (and PNG plots when gnuplot
# is there) and machine.txt names the commands; a bad argument is refused.
. "$(dirname "$0")/common.sh"
SPATE_BUILD=$SPATE_BUILD sh "$SPATE_SRC/tools/bench-all.sh" --quick --no-build --out "$TMP/b" \
	2>"$TMP/err" || { cat "$TMP/err"; fail "bench-all.sh --quick"; }
grep -q '^  spate-bench drt all ' "$TMP/b/machine.txt" || fail "machine.txt does not name the drt command"
[ -s "$TMP/b/drt/bench.jsonl" ] || fail "no JSON lines from spate-bench drt"
for f in fig4 fig6 scale; do
	[ -s "$TMP/b/drt/$f.csv" ] || fail "no drt/$f.csv"
	if command -v gnuplot >/dev/null; then
		[ -s "$TMP/b/drt/$f.png" ] || fail "no drt/$f.png"
	fi
done
ls "$TMP/b"/.bench-all.* >/dev/null 2>&1 && fail "scratch directory left behind"
sh "$SPATE_SRC/tools/bench-all.sh" --bogus 2>"$TMP/err2" && fail "--bogus accepted"
grep -q "unknown argument '--bogus'" "$TMP/err2" || fail "no message for --bogus"
ok "bench-all.sh --quick: $(ls "$TMP/b" | grep -v machine.txt | tr '\n' ' ')"
