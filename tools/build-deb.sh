#!/bin/sh
# build-deb.sh - the Debian packages (spate, spate-tools) from this
# checkout, with debian/ (debhelper + meson). Installs the build
# dependencies debian/control names through apt-get, as install-deps.sh
# does, builds in a copy of the checkout (the tree itself stays clean),
# runs lintian, and prints the folder the .deb files are in.
#
#   sh tools/build-deb.sh [OUT]        OUT: default <checkout>/build-deb
#
# Work is reused: when OUT already holds packages built from exactly the
# same sources (a hash of every tracked file as it is now), they are
# kept and nothing is built; with ccache installed, the compiler's work
# is kept between builds. SPATE_DEB_LINTIAN=0 skips lintian;
# DEB_BUILD_OPTIONS=nocheck skips the unit tests of the package build.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-deb}
version=$(sed -n '1s/^spate (\([^)]*\)).*/\1/p' "$top/debian/changelog")
[ -n "$version" ] || { echo "build-deb: no version in debian/changelog" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The checkout's files as they are now: tracked and untracked files of a
# git checkout (working-tree content; new files count before they are
# committed), else everything; build directories left out either way.
list_sources() {
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$top" ls-files -z --cached --others --exclude-standard |
			grep -z -v -E '^(build|build-[^/]*|obj-[^/]*)/'
	else
		(cd "$top" && find . -path ./build -prune -o -path './build-*' -prune -o \
			-path './obj-*' -prune -o -path ./.git -prune -o -type f -print0 | sed -z 's|^\./||')
	fi
}
hash=$( (list_sources | (cd "$top" && xargs -0 sha256sum); echo "lintian=${SPATE_DEB_LINTIAN:-1}") |
	sha256sum | cut -d' ' -f1)
if [ -f "$out/.source-hash" ] && [ "$(cat "$out/.source-hash")" = "$hash" ] &&
	ls "$out"/spate_"$version"_*.deb "$out"/spate-tools_"$version"_*.deb >/dev/null 2>&1; then
	echo "build-deb: the packages in $out are from these very sources: kept"
	echo "build-deb: packages in $out"
	exit 0
fi

# Build dependencies, from debian/control (apt-get, as install-deps.sh).
need() { sh "$top/tools/install-deps.sh" --only "$@"; }
need dpkg-dev debhelper fakeroot lintian
unmet=$(cd "$top" && dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p' |
	sed 's/([^)]*)//g; s/|[^ ]*//g; s/:[a-z0-9]*//g')
# shellcheck disable=SC2086
[ -z "$unmet" ] || need $unmet

# A copy of the sources to build in: dpkg-buildpackage writes beside
# them and under debian/.
rm -rf "$out/src" "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes "$out/.source-hash"
src=$out/src/spate-$version
mkdir -p "$src"
list_sources | (cd "$top" && tar --null -T - -cf -) | tar -C "$src" -xf -
if command -v ccache >/dev/null 2>&1; then
	export CCACHE_DIR="${CCACHE_DIR:-$out/.ccache}" CC="ccache gcc"
	echo "build-deb: ccache in $CCACHE_DIR"
fi
jobs=$(nproc 2>/dev/null || echo 1)
[ "$jobs" -le 2 ] || jobs=2 # a shared machine: two jobs, as ninja would
echo "build-deb: building spate $version in $src"
opts="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$jobs"
t0=$(date +%s)
(cd "$src" && DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log"; echo "build-deb: the build failed (all of it in $out/build.log)" >&2; exit 1; }
echo "build-deb: dpkg-buildpackage took $(($(date +%s) - t0)) s ($opts)"
mv "$out/src"/*.deb "$out/src"/*.buildinfo "$out/src"/*.changes "$out/"
rm -rf "$out/src"

if [ "${SPATE_DEB_LINTIAN:-1}" != 0 ]; then
	# errors fail the build; warnings and notes are listed in the log
	t0=$(date +%s)
	lintian --fail-on error --info --display-info --tag-display-limit 0 "$out"/*.changes \
		>"$out/lintian.log" 2>&1 ||
		{ cat "$out/lintian.log"; echo "build-deb: lintian found errors" >&2; exit 1; }
	echo "build-deb: lintian: $(grep -c '^E:' "$out/lintian.log") errors," \
		"$(grep -c '^W:' "$out/lintian.log") warnings, $(grep -c '^I:' "$out/lintian.log") notes" \
		"(in $out/lintian.log; $(($(date +%s) - t0)) s)"
fi
# only packages that passed are kept for the same sources
echo "$hash" >"$out/.source-hash"
for d in "$out"/*.deb; do
	echo "build-deb: $(basename "$d") $(du -k "$d" | cut -f1) KB"
done
echo "build-deb: packages in $out"
