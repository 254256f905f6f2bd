#!/bin/bash
# check-config.sh - spated --check-config lists every error of a bad file
# with its line (exactly data/bad.conf.expected), exits 1 for it, and
# passes both shipped profiles (conf/demo.conf, conf/spated.conf). No
# root needed: the EAL never starts.
set -u
src=${SPATE_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
spated=${SPATE_BUILD:-$src/build}/app/spated
data=$src/tests/e2e/data
tmp=$(mktemp -d /tmp/spate-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cd "$data" || exit 1
# The lists of known names (engines, keys) grow: compare without them.
"$spated" --check-config -c bad.conf >"$tmp/raw"
rc=$?
sed 's/ (known: [^)]*)//' "$tmp/raw" >"$tmp/out"
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc for bad.conf, want 1"; exit 1; }
if ! diff -u bad.conf.expected "$tmp/out"; then
	echo "FAIL: --check-config output differs from bad.conf.expected"
	exit 1
fi
echo "ok: $(grep -c '^bad.conf:' "$tmp/out") errors listed, each with its line"
# the multi-host settings (role, host_id, peers, ...)
"$spated" --check-config -c bad-hosts.conf | sed 's/ (known: [^)]*)//' >"$tmp/out-hosts"
if ! diff -u bad-hosts.conf.expected "$tmp/out-hosts"; then
	echo "FAIL: --check-config output differs from bad-hosts.conf.expected"
	exit 1
fi
printf 'spated: { role = "front"; host_id = 1; };\n' >"$tmp/front.conf"
"$spated" --check-config -c "$tmp/front.conf" | grep -q 'role = "front" needs spated.peers' ||
	{ echo "FAIL: a front without peers accepted"; exit 1; }
printf 'spated: { zookeeper = "127.0.0.1:2181"; };\n' >"$tmp/zkboth.conf"
"$spated" --check-config -c "$tmp/zkboth.conf" | grep -q 'spated.zookeeper is for role' ||
	{ echo "FAIL: zookeeper on a single box accepted"; exit 1; }
printf 'spated: { role = "match"; host_id = 2; peers = ( { host = 3; ipv4 = "10.0.0.3"; lcores = 2; } ); };\n' \
	>"$tmp/match.conf"
"$spated" --check-config -c "$tmp/match.conf" | grep -q 'its fronts (no lcores, 1 to 16)' ||
	{ echo "FAIL: a match host without a front accepted"; exit 1; }
# both shipped profiles: the demo's and the production one
for profile in demo.conf spated.conf; do
	"$spated" --check-config -c "$src/conf/$profile" || { echo "FAIL: conf/$profile refused"; exit 1; }
done
printf 'spate: { engine = "grid" \n' >"$tmp/syntax.conf"
"$spated" --check-config -c "$tmp/syntax.conf" >"$tmp/out2" && { echo "FAIL: syntax error accepted"; exit 1; }
grep -q "syntax.conf:2:" "$tmp/out2" || { cat "$tmp/out2"; echo "FAIL: syntax error line"; exit 1; }
echo "ok: check-config"
