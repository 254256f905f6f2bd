# common.sh - sourced by the tools tests: paths, a scratch directory
# removed on any exit, and helpers to check failures. meson passes
# SPATE_SRC and SPATE_BUILD; by hand they default to the checkout and
# its build/ directory.
set -u
TT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SPATE_SRC=${SPATE_SRC:-$(cd "$TT_DIR/../.." && pwd)}
SPATE_BUILD=${SPATE_BUILD:-$SPATE_SRC/build}
T=$SPATE_BUILD/tools
TMP=$(mktemp -d /tmp/spate-tools-test.XXXXXX)
TT_CLEANUP_HOOK=:

tt_cleanup() {
	$TT_CLEANUP_HOOK
	rm -rf "$TMP"
}
trap tt_cleanup EXIT
trap 'tt_cleanup; exit 130' INT
trap 'tt_cleanup; exit 143' TERM

fail() {
	echo "FAIL: $*"
	exit 1
}

ok() { echo "ok: $*"; }

# expect_fail STATUS PATTERN OUTFILE CMD...: CMD must exit with STATUS,
# say something matching PATTERN (grep -E) on stderr, and leave neither
# OUTFILE (unless "-") nor any temporary file beside it.
expect_fail() {
	local want=$1 pat=$2 out=$3 rc
	shift 3
	"$@" >"$TMP/stdout" 2>"$TMP/stderr"
	rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/stderr"; fail "exit $rc, wanted $want: $*"; }
	grep -Eq -- "$pat" "$TMP/stderr" || { cat "$TMP/stderr"; fail "no message /$pat/: $*"; }
	if [ "$out" != "-" ]; then
		[ ! -e "$out" ] || fail "$out left behind by a failed run: $*"
		! ls "$out".tmp.* >/dev/null 2>&1 || fail "temporary file left behind: $*"
	fi
	echo "ok: fails cleanly ($want, /$pat/): ${*#"$T/"}"
}

# sorted_match STREAM OUT: spate-match --engine brute, sorted.
sorted_match() {
	"$T/spate-match" --engine brute --quiet "$1" | sort >"$2" || fail "spate-match $1"
}
