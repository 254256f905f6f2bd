#!/bin/sh
# hem-peer.sh HEM_CHECKOUT STREAM.tsv [MATCHES_OUT [DELETES]]
# HEM (Shi et al., "Hardware-aware Event Matching"; Apache-2.0; the public
# C++ code of shiwanghua/HEM, its HEM5 in the DD mode its experiments run)
# driven by a Spate stream file of the rein workload (spate-gen --workload
# rein: whole-world rectangles, no keywords, "aK>=lo,aK<=hi" constraints,
# integer values): copies HEM's sources into $SPATE_PEER_BUILD (default
# /tmp/spate-hem-build), makes the one change the driver needs (HEM5::match
# hands its bit set of non-matches to hem_driver_result; it returns only a
# count), and builds them with hem_driver.cpp (this directory: the driver,
# no HEM code) at -O3 -march=native. Then one run: insert every
# subscription, initBits, match every event, delete and re-insert online
# DELETES random subscriptions (default 10000); one JSON line; the matches
# ("event_id<TAB>sub_id", as spate-match writes them) in MATCHES_OUT.
# HEM_COUNT_ONLY=1: HEM's own figure (a count), no match set gathered.
# HEM's capacity is its compile-time `subs` (1,048,576 in constant.h).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 HEM_CHECKOUT STREAM.tsv [MATCHES_OUT [DELETES]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
hem=$1 stream=$2 pairs=${3:-} deletes=${4:-10000}
out=${SPATE_PEER_BUILD:-/tmp/spate-hem-build}
[ -f "$hem/HEM5.cpp" ] || { echo "hem-peer: no $hem/HEM5.cpp (a checkout of shiwanghua/HEM?)" >&2; exit 2; }
mkdir -p "$out"
cp "$hem"/*.h "$hem"/*.cpp "$out/"
python3 - "$out/HEM5.cpp" <<'PY'
import sys
p = sys.argv[1]
s = open(p, encoding="latin-1").read()
start = s.index("void HEM5::match(const Pub& pub, int& matchSubs)")
end = "matchSubs = numSub - b.count();"
at = s.index(end, start)
s = s[:at] + end + " hem_driver_result(&b, numSub);" + s[at + len(end):]
s = ('#include <bitset>\n#include "constant.h"\n'
     "void hem_driver_result(const std::bitset<subs> *nonmatch, int n);\n" + s)
open(p, "w", encoding="latin-1").write(s)
PY
g++ -O3 -march=native -std=c++17 -w -I"$out" -o "$out/hem-driver" "$here/hem_driver.cpp" \
	"$out/HEM5.cpp" "$out/Util.cpp" "$out/constant.cpp" "$out/printer.cpp" "$out/generator.cpp" -lpthread
exec "$out/hem-driver" ${pairs:+--out "$pairs"} ${HEM_COUNT_ONLY:+--count-only} --deletes "$deletes" "$stream"
