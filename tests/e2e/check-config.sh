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
# misspelt keys and groups anywhere, a journal directory that is missing
"$spated" --check-config -c bad-keys.conf | sed 's/ (known: [^)]*)//' >"$tmp/out-keys"
if ! diff -u bad-keys.conf.expected "$tmp/out-keys"; then
	echo "FAIL: --check-config output differs from bad-keys.conf.expected"
	exit 1
fi
# the journal's directory is a file; a journal file that is a directory
printf 'journal: { path = "%s/subs.journal"; };\n' "$data/bad-keys.conf" >"$tmp/jfile.conf"
"$spated" --check-config -c "$tmp/jfile.conf" >"$tmp/out-jfile" &&
	{ echo "FAIL: a journal under a file accepted"; exit 1; }
grep -q "jfile.conf:1: journal.path: .*bad-keys.conf is not a directory" "$tmp/out-jfile" ||
	{ cat "$tmp/out-jfile"; echo "FAIL: journal under a file: message"; exit 1; }
mkdir "$tmp/jdir.journal"
printf 'journal: { path = "%s/jdir.journal"; };\n' "$tmp" >"$tmp/jdir.conf"
"$spated" --check-config -c "$tmp/jdir.conf" >"$tmp/out-jdir" &&
	{ echo "FAIL: a journal that is a directory accepted"; exit 1; }
grep -q "journal.path: .*jdir.journal is not a regular file" "$tmp/out-jdir" ||
	{ cat "$tmp/out-jdir"; echo "FAIL: journal that is a directory: message"; exit 1; }
printf 'journal: { path = "%s/ok.journal"; };\n' "$tmp" >"$tmp/jok.conf"
"$spated" --check-config -c "$tmp/jok.conf" >/dev/null || { echo "FAIL: a good journal path refused"; exit 1; }
[ -e "$tmp/ok.journal" ] && { echo "FAIL: --check-config created the journal"; exit 1; }
# the overrides file a start reads is checked too, groups included
printf 'jornal: { sync = "none"; };\n' >"$tmp/overrides.conf"
printf 'control: { overrides = "%s/overrides.conf"; };\n' "$tmp" >"$tmp/ov-main.conf"
"$spated" --check-config -c "$tmp/ov-main.conf" >"$tmp/out-ov" &&
	{ echo "FAIL: a bad overrides file accepted"; exit 1; }
grep -q "overrides.conf:1: unknown group 'jornal'" "$tmp/out-ov" ||
	{ cat "$tmp/out-ov"; echo "FAIL: bad overrides file: message"; exit 1; }
# --salvage-journal without a journal is a mistake, said before the EAL starts
"$spated" -c "$src/conf/demo.conf" --salvage-journal >"$tmp/out-salv" 2>&1
[ $? -eq 2 ] && grep -q "no journal is configured" "$tmp/out-salv" ||
	{ cat "$tmp/out-salv"; echo "FAIL: --salvage-journal without a journal"; exit 1; }
echo "ok: unknown keys and groups refused with their lines; journal paths checked"
# the multi-host settings (role, host_id, peers, ...)
"$spated" --check-config -c bad-hosts.conf | sed 's/ (known: [^)]*)//' >"$tmp/out-hosts"
if ! diff -u bad-hosts.conf.expected "$tmp/out-hosts"; then
	echo "FAIL: --check-config output differs from bad-hosts.conf.expected"
	exit 1
fi
# the cluster file: every host once, each host finds itself by host_id
"$spated" --check-config -c bad-cluster.conf | sed 's/ (known: [^)]*)//' >"$tmp/out-cluster"
if ! diff -u bad-cluster.conf.expected "$tmp/out-cluster"; then
	echo "FAIL: --check-config output differs from bad-cluster.conf.expected"
	exit 1
fi
printf 'key 1 %064d\n' 7 >"$tmp/cluster.key"
chmod 600 "$tmp/cluster.key"
cat >"$tmp/cluster.conf" <<EOF
cluster: {
  zk_session_ms = 1000;
  peer_key_file = "$tmp/cluster.key";
  hosts = ( { host = 1; role = "front"; ipv4 = "10.0.0.1"; service = "10.0.0.101"; },
            { host = 3; role = "match"; ipv4 = "10.0.0.3"; lcores = 2; } );
};
EOF
for id in 1 3 4; do
	printf '@include "cluster.conf"\nspated: { host_id = %s; lcores: { rx = 0; tx = 0; cluster = 0; match = [ 0, 0 ]; }; };\n' \
		"$id" >"$tmp/h$id.conf"
done
(cd / && "$spated" --check-config -c "$tmp/h1.conf" >/dev/null) || { echo "FAIL: a front of the cluster file refused"; exit 1; }
(cd / && "$spated" --check-config -c "$tmp/h3.conf" >/dev/null) || { echo "FAIL: a match host of the cluster file refused"; exit 1; }
"$spated" --check-config -c "$tmp/h4.conf" | grep -q 'spated.host_id = 4 is not in cluster.hosts (1, 3)' ||
	{ echo "FAIL: a host id the cluster file does not list accepted"; exit 1; }
echo "ok: the cluster file: errors with their file and line, each host found by host_id"
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
# both shipped profiles: the demo's and the production one. The production
# one keeps its journal in /var/lib/spate, which the systemd unit makes
# (StateDirectory) before its --check-config: checked here with that
# directory moved under $tmp, and without it it must say it is missing.
"$spated" --check-config -c "$src/conf/demo.conf" || { echo "FAIL: conf/demo.conf refused"; exit 1; }
mkdir "$tmp/state"
sed "s|/var/lib/spate/|$tmp/state/|g" "$src/conf/spated.conf" >"$tmp/production.conf"
"$spated" --check-config -c "$tmp/production.conf" || { echo "FAIL: conf/spated.conf refused"; exit 1; }
if [ ! -d /var/lib/spate ]; then
	"$spated" --check-config -c "$src/conf/spated.conf" >"$tmp/out-prod" &&
		{ echo "FAIL: a missing journal directory accepted"; exit 1; }
	grep -q "journal.path: directory /var/lib/spate does not exist" "$tmp/out-prod" ||
		{ cat "$tmp/out-prod"; echo "FAIL: missing journal directory: message"; exit 1; }
fi
printf 'spate: { engine = "grid" \n' >"$tmp/syntax.conf"
"$spated" --check-config -c "$tmp/syntax.conf" >"$tmp/out2" && { echo "FAIL: syntax error accepted"; exit 1; }
grep -q "syntax.conf:2:" "$tmp/out2" || { cat "$tmp/out2"; echo "FAIL: syntax error line"; exit 1; }
echo "ok: check-config"
