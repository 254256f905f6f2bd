#!/bin/sh
# fast-peer.sh FAST_CHECKOUT STREAM.tsv [ROUNDS [MATCHES_OUT]]
# The FAST index (Mahmood et al., ICDE 2018; Apache-2.0; the public Java
# code of ThatUdeshUK/fast_extension, package baselines/fast) driven by a
# Spate stream file: compiles FAST's LFAST classes and SpateFast.java (this
# directory: the driver, no FAST code) with javac into $SPATE_PEER_BUILD
# (default /tmp/spate-fast-build), then runs ROUNDS rounds (default 3; the
# first ones warm the JVM), one JSON line each, the last round's matches
# ("event_id<TAB>sub_id", as spate-match writes them) in MATCHES_OUT.
# FAST's checkout stays outside Spate's tree. Java: tools/install-deps.sh
# --bench. The stream must have no constraints and no keyword-less
# subscriptions (places-stream.py --min-kw 1 --cons-rate 0, fast-stream.py).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 FAST_CHECKOUT STREAM.tsv [ROUNDS [MATCHES_OUT]]" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
fast=$1
shift
out=${SPATE_PEER_BUILD:-/tmp/spate-fast-build}
src=$fast/src/main/java
pkg=$src/edu/purdue/cs/fast/baselines/fast
[ -d "$pkg" ] || { echo "fast-peer: no $pkg (a checkout of fast_extension?)" >&2; exit 2; }
mkdir -p "$out"
javac -nowarn -d "$out" -sourcepath "$src" "$pkg"/*.java "$pkg"/*/*.java "$here/SpateFast.java"
exec java -Xmx12g -cp "$out" SpateFast "$@"
