#!/bin/sh
# run-engines-airports.sh SPATE_MATCH GENERATOR AIRPORTS: on real places
# (OpenFlights airports, from ../shared/data), every engine must give
# exactly the matches of the brute reference, for several seeds and
# rectangle sizes. Skips (77) when the data file is not there, and fails
# instead under CI=true (issue 24: no silent tests).
set -u
match=$1 gen=$2 data=${SPATE_AIRPORTS:-$3}
if [ ! -r "$data" ]; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: no $data (the real data must be there under CI)" >&2
		exit 1
	fi
	echo "skip: no $data"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for seed in 1 2 3; do
	for extent in 0.5 5 40; do
		python3 "$gen" "$data" --seed "$seed" --subs 0.2 --max-extent "$extent" > "$tmp/s.tsv" || exit 1
		"$match" --quiet --engine brute "$tmp/s.tsv" > "$tmp/brute" || exit 1
		n=$(wc -l < "$tmp/brute")
		[ "$n" -gt 0 ] || { echo "FAIL: seed $seed extent $extent: no matches at all" >&2; status=1; }
		for engine in $("$match" --list-engines | cut -d' ' -f1); do
			[ "$engine" = brute ] && continue
			if ! "$match" --quiet --engine "$engine" "$tmp/s.tsv" | cmp -s "$tmp/brute" -; then
				echo "FAIL: engine $engine differs from brute (seed $seed, extent $extent)" >&2
				status=1
			fi
		done
		echo "seed $seed extent $extent: $n matches"
	done
done
exit $status
