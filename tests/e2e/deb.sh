#!/bin/bash
# deb.sh - the Debian packages as an operator gets them: tools/build-deb.sh
# builds them from this checkout (lintian: no error), dpkg installs them
# into a scratch root (dpkg --root, maintainer scripts run with
# DPKG_ROOT: sysusers and tmpfiles act on that root, this machine's
# users, dpkg database and services are left alone), and then, with the
# installed files only: their dependencies are what this machine has,
# the spate user and /var/lib/spate exist, /etc/spate/spated.conf is a
# conffile that checks OK, systemd-analyze verifies the installed unit
# and rates it at most 5.0, every installed manual page renders (man -l),
# every program says the package's version, Wireshark's plugin folder is
# where the dissector went and tshark loads it, the installed spated runs
# the demo profile in a namespace (ping, an exact replay with the
# installed clients), every page's EXAMPLES run as printed
# (tests/e2e/man-examples.py), and a purge leaves nothing of the
# packages behind.
#
# The build reuses the packages of an earlier run when the sources are the
# same (build-deb.sh hashes them), and skips the unit suite (nocheck: the
# test suite runs it anyway). A fresh build is most of this test's time.
. "$(dirname "$0")/common.sh"
# This test's scratch folder is in the build tree, not in /tmp: on the
# shared machine, /tmp/spate-e2e.* folders (this test's and a bare one
# made to watch) vanished three times during the minutes of a package
# build, removed by something outside this test (cause not found).
rm -rf "$E2E_TMP"
E2E_TMP=$(mktemp -d "$SPATE_BUILD/e2e-deb.XXXXXX") || fail "mktemp in $SPATE_BUILD"
SPATED_LOG=$E2E_TMP/spated.log

for t in dpkg dpkg-deb dpkg-checkbuilddeps man systemd-analyze tshark; do
	command -v "$t" >/dev/null || fail "$t not installed"
done
# spatectl's default socket is the service's, /run/spate/spated.sock: the
# demo spated puts its socket there for the pages' spatectl examples
[ -e /run/spate ] && { echo "SKIP: /run/spate exists (a spated service?)"; exit 77; }

debs=$SPATE_BUILD/deb
root=$E2E_TMP/root
deb_cleanup() {
	rm -rf /run/spate
	e2e_cleanup
}
trap deb_cleanup EXIT
trap 'deb_cleanup; exit 130' INT
trap 'deb_cleanup; exit 143' TERM

t0=$(date +%s)
DEB_BUILD_OPTIONS=nocheck sh "$SPATE_SRC/tools/build-deb.sh" "$debs" >"$E2E_TMP/build.out" 2>&1 ||
	{ cat "$E2E_TMP/build.out"; fail "tools/build-deb.sh"; }
grep -q "^build-deb: packages in $debs$" "$E2E_TMP/build.out" || { cat "$E2E_TMP/build.out"; fail "no output folder printed"; }
grep -v '^Get:\|^Reading\|^Building\|^Selecting\|^Unpacking\|^Setting up\|^Preparing' "$E2E_TMP/build.out" |
	sed 's/^/  /' | tail -n 20
version=$(sed -n '1s/^spate (\([^)]*\)).*/\1/p' "$SPATE_SRC/debian/changelog")
pkgs="$debs/spate_${version}_$(dpkg --print-architecture).deb $debs/spate-tools_${version}_$(dpkg --print-architecture).deb"
for d in $pkgs; do [ -f "$d" ] || fail "$d not built"; done
echo "ok: packages built in $(($(date +%s) - t0)) s"

# the installed programs run with this machine's libraries: it must have
# every dependency the packages declare
for d in $pkgs; do
	deps=$(dpkg-deb -f "$d" Depends)
	dpkg-checkbuilddeps -d "$deps" "$SPATE_SRC/debian/control" >"$E2E_TMP/deps.log" 2>&1 ||
		{ cat "$E2E_TMP/deps.log"; fail "$(basename "$d"): dependencies this machine lacks"; }
done
# docs/operations.md's `apt install ./spate_*.deb ./spate-tools_*.deb`:
# apt resolves it with nothing else to fetch (simulated, as nobody: no
# lock, no change to this machine)
if setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "${pkgs%% *}"; then
	# shellcheck disable=SC2086
	setpriv --reuid=nobody --regid=nogroup --clear-groups apt-get -s install \
		--no-install-recommends $pkgs >"$E2E_TMP/apt.log" 2>&1 || { cat "$E2E_TMP/apt.log"; fail "apt-get -s install"; }
	grep -q "^0 upgraded, 2 newly installed, 0 to remove" "$E2E_TMP/apt.log" ||
		{ cat "$E2E_TMP/apt.log"; fail "apt install of the packages would change more than them"; }
	echo "ok: apt install ./spate_$version*.deb ./spate-tools_$version*.deb: 2 new packages, nothing else (simulated)"
else
	echo "note: apt-get -s skipped: nobody cannot read the packages in $debs"
fi
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/etc"
: >"$root/var/lib/dpkg/status"
# --force-depends: the scratch root's dpkg database is empty (checked
# against this machine's just above)
# shellcheck disable=SC2086
dpkg --root="$root" --force-script-chrootless --force-depends -i $pkgs >"$E2E_TMP/install.log" 2>&1 ||
	{ cat "$E2E_TMP/install.log"; fail "dpkg -i"; }
for p in spate spate-tools; do
	dpkg --root="$root" -s "$p" 2>/dev/null | grep -qx "Status: install ok installed" ||
		{ cat "$E2E_TMP/install.log"; fail "$p not configured"; }
done
echo "ok: spate and spate-tools $version installed into $root"

# what the maintainer scripts and the package put in place
grep -q '^spate:x:[0-9]*:[0-9]*:.*:/var/lib/spate:/usr/sbin/nologin$' "$root/etc/passwd" ||
	fail "no spate user (sysusers) in $root/etc/passwd"
# (numeric ids: the root's spate, not what they name on this machine)
ids=$(awk -F: '$1 == "spate" { print $3 ":" $4 }' "$root/etc/passwd")
[ "$(stat -c '%u:%g %a' "$root/var/lib/spate" 2>/dev/null)" = "$ids 750" ] ||
	fail "/var/lib/spate (tmpfiles): $(stat -c '%u:%g %a' "$root/var/lib/spate" 2>&1), spate is $ids"
dpkg --root="$root" -s spate | sed -n '/^Conffiles:/,/^[A-Z]/p' | grep -q "^ /etc/spate/spated.conf " ||
	fail "/etc/spate/spated.conf is not a conffile"
for f in /usr/share/doc/spate/operations.md.gz /usr/share/doc/spate/examples/demo.conf \
	/usr/share/bash-completion/completions/spatectl /usr/lib/sysusers.d/spate.conf \
	/usr/lib/tmpfiles.d/spate.conf; do
	[ -s "$root$f" ] || fail "$f not installed"
done
# the file's paths, taken to the scratch root
sed "s|\"/var/lib/spate/|\"$root/var/lib/spate/|g" "$root/etc/spate/spated.conf" >"$E2E_TMP/check.conf"
"$root/usr/bin/spated" --check-config -c "$E2E_TMP/check.conf" || fail "the installed configuration"
unit=$root/lib/systemd/system/spated.service
[ -f "$unit" ] || fail "no /lib/systemd/system/spated.service"
# verify wants the unit's programs and pages at their paths: the root's
sed "s|/usr/bin/|$root/usr/bin/|g; s|/etc/spate/|$root/etc/spate/|g" "$unit" >"$E2E_TMP/spated.service"
MANPATH=$root/usr/share/man systemd-analyze verify "$E2E_TMP/spated.service" >"$E2E_TMP/verify.log" 2>&1 ||
	{ cat "$E2E_TMP/verify.log"; fail "systemd-analyze verify /lib/systemd/system/spated.service"; }
systemd-analyze security --offline=yes --threshold=50 --root="$root" spated.service \
	>"$E2E_TMP/security.log" 2>&1 ||
	{ cat "$E2E_TMP/security.log"; fail "exposure above 5.0"; }
echo "ok: user spate, /var/lib/spate, conffile, unit verified" \
	"($(grep -o 'exposure level.*' "$E2E_TMP/security.log"))"

progs=$(dpkg --root="$root" -L spate spate-tools | grep '^/usr/bin/.' | sort)
[ "$(echo "$progs" | wc -l)" -eq 10 ] || fail "programs installed: $(echo "$progs" | wc -l) of 10: $progs"
for p in $progs; do
	got=$("$root$p" --version) || fail "$p --version"
	[ "$got" = "$(basename "$p") (Spate) $version" ] || fail "$p --version: '$got'"
done
echo "ok: $(echo "$progs" | wc -l) installed programs: --version = $version"
pages=$(dpkg --root="$root" -L spate spate-tools | grep '^/usr/share/man/man[0-9]/.*\.gz$' | sort)
[ "$(echo "$pages" | wc -l)" -eq "$(ls "$SPATE_SRC"/man/*.scd | wc -l)" ] ||
	fail "installed pages: $(echo "$pages" | wc -w), sources: $(ls "$SPATE_SRC"/man/*.scd | wc -l)"
for m in $pages; do
	MANWIDTH=80 man -l "$root$m" >"$E2E_TMP/page" 2>"$E2E_TMP/page.err" || fail "man -l $m"
	[ ! -s "$E2E_TMP/page.err" ] || { cat "$E2E_TMP/page.err"; fail "man -l $m: warnings"; }
	for s in NAME SYNOPSIS EXAMPLES; do
		grep -q "^$s" "$E2E_TMP/page" || fail "man -l $m: no $s section"
	done
done
echo "ok: $(echo "$pages" | wc -l) manual pages render (man -l), each with NAME, SYNOPSIS, EXAMPLES"
lua=$(dpkg --root="$root" -L spate-tools | grep '/wireshark/plugins/spate\.lua$') || fail "no dissector"
plugins=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
[ "$(dirname "$lua")" = "$plugins" ] || fail "dissector in $(dirname "$lua"), tshark's plugins: '$plugins'"
# that folder is this machine's: tshark reaches the root's file through
# the personal plugin folder of a HOME of our own (the pages' tshark
# example too)
export HOME=$E2E_TMP/home
mkdir -p "$HOME/.local/lib/wireshark/plugins"
ln -s "$root$lua" "$HOME/.local/lib/wireshark/plugins/spate.lua"
tshark -G protocols 2>"$E2E_TMP/tshark.err" | grep -q "	spate$" ||
	{ cat "$E2E_TMP/tshark.err"; fail "tshark does not load the installed dissector"; }
echo "ok: the dissector in $plugins (Wireshark's global Lua plugins); tshark loads it"

# the installed daemon, demo profile, in a namespace; the installed
# programs first on PATH (the pages' examples use them by name)
export PATH=$root/usr/bin:$PATH
mkdir -p /run/spate
cp "$root/usr/share/doc/spate/examples/demo.conf" "$E2E_TMP/demo.conf"
echo "control: { socket = \"/run/spate/spated.sock\"; };" >>"$E2E_TMP/demo.conf"
SPATE_CONF=$E2E_TMP/demo.conf
NETNS_SPATED=$root/usr/bin/spated
e2e_start
e2e_ping 3
spatectl --version | grep -qx "spatectl (Spate) $version" || fail "spatectl --version"
spatectl --json show version | grep -q "\"version\": *\"$version\"" || fail "spatectl show version"
python3 "$E2E_DIR/gen-stream.py" --seed 5 --subs 200 --events 1000 >"$E2E_TMP/g.tsv" || fail "gen-stream.py"
spate-match --engine brute --conf "$SPATE_CONF" --quiet "$E2E_TMP/g.tsv" | sort >"$E2E_TMP/want" ||
	fail "spate-match"
[ -s "$E2E_TMP/want" ] || fail "the stream has no match"
netns_cli timeout 120 spate-replay --conf "$SPATE_CONF" --server "$NETNS_SRV_IP:$NETNS_PORT" \
	--stream "$E2E_TMP/g.tsv" --out "$E2E_TMP/got.raw" --quiet 2>"$E2E_TMP/replay.err" ||
	{ cat "$E2E_TMP/replay.err"; fail "spate-replay"; }
sort "$E2E_TMP/got.raw" | cmp -s - "$E2E_TMP/want" ||
	fail "the installed spated's matches differ from spate-match"
echo "ok: installed spated: ping, replay of $(wc -l <"$E2E_TMP/want") matches identical to spate-match"

# every page's EXAMPLES, as printed (the network ones from the client
# namespace, where 198.18.0.1:47100 is this spated, restarted fresh for
# each; the package's paths under the scratch root)
[ "$NETNS_SRV_IP:$NETNS_PORT" = 198.18.0.1:47100 ] || fail "the examples assume 198.18.0.1:47100"
man_examples() {
	python3 "$E2E_DIR/man-examples.py" "$@" "$SPATE_SRC/man" "$E2E_TMP/examples" "$NETNS_CLI" \
		"/etc/spate/spated.conf=$E2E_TMP/check.conf" "/usr/share/doc/spate/=$root/usr/share/doc/spate/"
}
network=$(python3 "$E2E_DIR/man-examples.py" --network) || fail "man-examples.py --network"
others=$(cd "$SPATE_SRC/man" && ls -- *.scd | sed 's/\.scd$//' | grep -vxF "$network" | paste -sd,)
man_examples --pages "$others" || fail "manual page examples"
for p in $network; do
	e2e_restart
	man_examples --pages "$p" || fail "manual page examples"
done
netns_spated_stop || fail "spated did not exit cleanly"

# purge: nothing of the packages is left (the dpkg database, the user
# and its directory stay, as on a real system)
dpkg --root="$root" --force-script-chrootless --force-depends -P spate-tools spate \
	>"$E2E_TMP/purge.log" 2>&1 || { cat "$E2E_TMP/purge.log"; fail "dpkg -P"; }
left=$(cd "$root" && find . ! -type d ! -path './var/lib/dpkg/*' ! -path './etc/passwd*' \
	! -path './etc/group*' ! -path './etc/shadow*' ! -path './etc/gshadow*' ! -name .pwd.lock)
[ -z "$left" ] || fail "left after the purge: $left"
echo "ok: purged, nothing left"
echo "ok: deb"
