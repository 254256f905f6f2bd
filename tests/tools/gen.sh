#!/bin/bash
# gen.sh - spate-gen: every workload reproducible by seed and accepted by
# spate-match; sizes, deletes and interleaving as asked; GeoNames and TSV
# input; bad input refused cleanly with nothing written.
. "$(dirname "$0")/common.sh"
G=$T/spate-gen

# Same arguments and seed: same bytes; another seed: other bytes.
for wl in "--workload drt --events 3000 --sub-ratio 0.05 --deletes 0.3" \
	  "--workload fast --events 500 --subs 800 --space skewed --deletes 0.1" \
	  "--workload rein --events 300 --subs 300 --order interleaved" \
	  "--workload drt --space skewed --hotspots 3 --events 2000 --vocab 30 --order subs-first"; do
	# shellcheck disable=SC2086
	"$G" $wl --seed 7 --out "$TMP/a.tsv" 2>/dev/null || fail "spate-gen $wl"
	# shellcheck disable=SC2086
	"$G" $wl --seed 7 >"$TMP/b.tsv" 2>/dev/null || fail "spate-gen $wl to stdout"
	# shellcheck disable=SC2086
	"$G" $wl --seed 8 --out "$TMP/c.tsv" 2>/dev/null || fail "spate-gen $wl seed 8"
	cmp -s "$TMP/a.tsv" "$TMP/b.tsv" || fail "seed 7 twice differs: $wl"
	! cmp -s <(grep -v '^#' "$TMP/a.tsv") <(grep -v '^#' "$TMP/c.tsv") || fail "seeds 7 and 8 give the same: $wl"
	"$T/spate-match" --engine brute --quiet "$TMP/a.tsv" >"$TMP/m.out" ||
		fail "spate-match refuses spate-gen $wl"
	[ -s "$TMP/m.out" ] || fail "no match at all in: $wl"
	ok "reproducible, valid, $(wc -l <"$TMP/m.out") matches: $wl"
done

# --out to what is not a regular file (a FIFO here, /dev/null in use):
# written through, never renamed over (it stays a FIFO, its reader gets
# everything).
mkfifo "$TMP/fifo" || fail "mkfifo"
timeout 10 cat "$TMP/fifo" >"$TMP/from-fifo" &
"$G" --workload drt --events 50 --seed 3 --out "$TMP/fifo" 2>/dev/null || fail "spate-gen --out FIFO"
wait $! || fail "reading the FIFO"
[ -p "$TMP/fifo" ] || fail "--out replaced the FIFO with a file"
"$G" --workload drt --events 50 --seed 3 --out "$TMP/regular.tsv" 2>/dev/null || fail "spate-gen --out"
cmp -s "$TMP/from-fifo" "$TMP/regular.tsv" || fail "--out FIFO: other content than a regular file's"
ok "--out to a FIFO written through, left a FIFO"

# Sizes, deletes, order.
"$G" --workload drt --events 5000 --sub-ratio 0.01 --deletes 0.5 --seed 3 --out "$TMP/d.tsv" 2>/dev/null
[ "$(grep -c '^event' "$TMP/d.tsv")" = 5000 ] || fail "drt: not 5000 events"
[ "$(grep -c '^sub' "$TMP/d.tsv")" = 50 ] || fail "drt: not 0.01 x 5000 subs"
n_un=$(grep -c '^unsub' "$TMP/d.tsv")
[ "$n_un" -ge 10 ] && [ "$n_un" -le 40 ] || fail "drt --deletes 0.5: $n_un unsubs of 50"
# Interleaved: a subscription after the first event; every unsub after its sub.
awk -F'\t' '$1=="event"{ev=1} $1=="sub"{if(ev)late=1; s[$2]=1} $1=="unsub"{if(!s[$2])bad=1}
	END{exit !(late && !bad)}' "$TMP/d.tsv" || fail "drt: not interleaved, or unsub before its sub"
"$G" --workload fast --events 100 --subs 100 --seed 3 --out "$TMP/f.tsv" 2>/dev/null
awk -F'\t' '$1=="sub"&&ev{bad=1} $1=="event"{ev=1; n=split($5,k,","); if(n<5)few++}
	$1=="sub"{n=split($7,k,","); if(n<1||n>3)bad=1}
	END{exit bad||few>50}' "$TMP/f.tsv" || fail "fast: subs not first, or 1-3 keywords broken"
# fast squares stay within the US extent and within 1% of it.
awk -F'\t' '$1=="sub"{ if($3< -125||$5> -66||$4<24||$6>50) bad=1; if($5-$3>0.59+1e-6) bad=1 }
	END{exit bad}' "$TMP/f.tsv" || fail "fast: square outside the extent or too large"
# rein: intervals of width 0.5 x 1e6 on 5 attributes, events with 10.
"$G" --workload rein --events 50 --subs 50 --seed 3 --out "$TMP/r.tsv" 2>/dev/null
awk -F'\t' '$1=="sub"{n=split($8,c,","); if(n!=10)bad=1;
	for(i=1;i<=n;i+=2){split(c[i],a,">=");split(c[i+1],b,"<="); if(b[2]-a[2]!=500000)bad=1}}
	$1=="event"{if(split($6,x,",")!=10)bad=1} END{exit bad}' "$TMP/r.tsv" ||
	fail "rein: intervals or attribute counts wrong"
# The REIN suites' check: a subscription matches with probability
# w^psiS * C(psiE, psiS) / C(d, psiS); here 0.5^2 * C(5,2)/C(10,2) = 1/18.
"$G" --workload rein --attrs 10 --sub-attrs 2 --event-attrs 5 --width 0.5 --subs 2000 \
	--events 200 --seed 4 --out "$TMP/rp.tsv" 2>/dev/null || fail "rein 10/2/5"
n=$("$T/spate-match" --engine brute --quiet "$TMP/rp.tsv" | wc -l)
exp=$((2000 * 200 / 18))
[ "$n" -ge $((exp * 9 / 10)) ] && [ "$n" -le $((exp * 11 / 10)) ] ||
	fail "rein: $n matches, expected about $exp (w^psiS C(psiE,psiS)/C(d,psiS))"
ok "sizes, deletes, order and shapes as asked; rein: $n matches for about $exp expected"

# Skewed space concentrates points: the busiest 1-degree cell holds many.
"$G" --workload drt --events 4000 --space skewed --hotspots 2 --spread 0.001 --subs 0 --seed 5 \
	--out "$TMP/sk.tsv" 2>/dev/null
top=$(awk -F'\t' '$1=="event"{c[int($3)" "int($4)]++} END{m=0; for(k in c) if(c[k]>m)m=c[k]; print m}' "$TMP/sk.tsv")
[ "$top" -ge 1000 ] || fail "skewed space: busiest cell has only $top of 4000 events"
ok "skewed space: busiest cell $top of 4000"

# GeoNames and plain TSV input.
"$G" --workload places --input "$TT_DIR/data/cities-sample.txt" --input-format geonames \
	--out "$TMP/geo.tsv" 2>/dev/null || fail "geonames input"
[ "$(grep -c '^event' "$TMP/geo.tsv")" = "$(grep -vc '^#' "$TT_DIR/data/cities-sample.txt")" ] ||
	fail "geonames: not one event per row"
grep -P '^event\t1\t2.3488000\t48.8534100\t' "$TMP/geo.tsv" | grep -q 'n:paris' ||
	fail "geonames: Paris row not converted: $(sed -n 2p "$TMP/geo.tsv")"
grep -P '^event\t1\t' "$TMP/geo.tsv" | grep -q 'ctry:fr' || fail "geonames: no country keyword"
grep -P '^event\t1\t' "$TMP/geo.tsv" | grep -q 'population=2138551' || fail "geonames: no population"
"$T/spate-match" --engine brute --quiet "$TMP/geo.tsv" >/dev/null || fail "geonames output refused"
printf '145.392\t-6.08169\ttype:airport,iata:GKA\t5282\t10\n-0.4614\t51.4706\t-\tfoo=1,bar=2.5\n' >"$TMP/p.tsv"
"$G" --workload places --input "$TMP/p.tsv" --attr-names altitude_ft,utc_offset --out "$TMP/p.out" 2>/dev/null ||
	fail "tsv input"
grep -v '^#' "$TMP/p.out" >"$TMP/p.got"
printf 'event\t1\t145.3920000\t-6.0816900\ttype:airport,iata:GKA\taltitude_ft=5282,utc_offset=10\nevent\t2\t-0.4614000\t51.4706000\t-\tfoo=1,bar=2.5\n' >"$TMP/p.want"
cmp -s "$TMP/p.got" "$TMP/p.want" || { diff "$TMP/p.want" "$TMP/p.got"; fail "tsv conversion"; }
"$G" --workload drt --input "$TT_DIR/data/cities-sample.txt" --input-format geonames --subs 5 \
	--cons-ratio 1 --order subs-first --seed 2 --out "$TMP/geo-drt.tsv" 2>/dev/null || fail "drt from geonames"
[ "$(grep -c '^sub.*\(>=\|<=\)' "$TMP/geo-drt.tsv")" = 5 ] || fail "drt --cons-ratio 1: not every sub constrained"
"$T/spate-match" --engine brute --quiet "$TMP/geo-drt.tsv" >"$TMP/geo-drt.m" || fail "drt from geonames refused"
# Every subscription derives from an event: each one matches at least that event.
[ "$(cut -f2 "$TMP/geo-drt.m" | sort -u | wc -l)" = 5 ] || fail "drt: a subscription matches no event"
ok "GeoNames and TSV input"

# Bad input: clear message, non-zero exit, no output file.
out=$TMP/never.tsv
expect_fail 2 "unknown 'nope'" "$out" "$G" --workload nope --out "$out"
expect_fail 2 "--events: bad value" "$out" "$G" --events -3 --out "$out"
expect_fail 2 "--deletes: bad value" "$out" "$G" --deletes 1.5 --out "$out"
expect_fail 2 "--extent: bad value" "$out" "$G" --extent 10,0,5,1 --out "$out"
expect_fail 2 "needs --input" "$out" "$G" --workload places --out "$out"
expect_fail 2 "max_constraints" "$out" "$G" --workload rein --sub-attrs 9 --attrs 10 --out "$out"
expect_fail 2 "unexpected argument" "$out" "$G" stray --out "$out"
expect_fail 1 "no-such-file" "$out" "$G" --workload places --input "$TMP/no-such-file" --out "$out"
printf '1\tParis\n' >"$TMP/short.txt"
expect_fail 1 "short.txt:1: expected 19 tab-separated GeoNames fields, got 2" "$out" \
	"$G" --workload places --input "$TMP/short.txt" --input-format geonames --out "$out"
printf '1\t2\tok\n200\t2\tok\n' >"$TMP/badlon.tsv"
expect_fail 1 "badlon.tsv:2: bad coordinates" "$out" "$G" --workload places --input "$TMP/badlon.tsv" --out "$out"
printf '1\t2\tok,bad kw\n' >"$TMP/badkw.tsv"
expect_fail 1 "badkw.tsv:1: keyword 'bad kw'" "$out" "$G" --workload places --input "$TMP/badkw.tsv" --out "$out"
printf '1\t2\tok\tx\n' >"$TMP/badcol.tsv"
expect_fail 1 "badcol.tsv:1: column 4: not a number" "$out" "$G" --workload places --input "$TMP/badcol.tsv" --out "$out"
expect_fail 1 "No such file or directory" "$TMP/no/dir/x.tsv" "$G" --out "$TMP/no/dir/x.tsv"
# A failed run leaves an existing output as it was.
echo keep >"$TMP/keep.tsv"
"$G" --workload places --input "$TMP/badlon.tsv" --out "$TMP/keep.tsv" 2>/dev/null && fail "bad input accepted"
[ "$(cat "$TMP/keep.tsv")" = keep ] || fail "a failed run overwrote its output"
ok "spate-gen"
