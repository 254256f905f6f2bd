#!/bin/bash
# install.sh - `meson install` puts the daemon, the tools, the example
# configuration, the systemd unit and the operator docs where they belong
# (into a scratch DESTDIR); the installed configuration checks OK with the
# installed spated, and systemd-analyze accepts the unit and rates its
# exposure at most 5.0 (when present).
set -u
src=${SPATE_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${SPATE_BUILD:-$src/build}
dest=$(mktemp -d /tmp/spate-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$dest.log" 2>&1 ||
	{ cat "$dest.log"; rm -f "$dest.log"; echo "FAIL: meson install"; exit 1; }
rm -f "$dest.log"
prefix=$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
root=$dest$prefix
for f in bin/spated bin/spatectl bin/spate-match bin/spate-replay etc/spate/spated.conf \
	lib/systemd/system/spated.service lib/sysusers.d/spate.conf lib/tmpfiles.d/spate.conf \
	share/doc/spate/operations.md \
	share/doc/spate/examples/demo.conf share/bash-completion/completions/spatectl; do
	[ -e "$root/$f" ] || { echo "FAIL: $prefix/$f not installed"; exit 1; }
done
find "$root" -name spate.lua -path '*/wireshark/plugins/*' | grep -q . ||
	{ echo "FAIL: the Wireshark dissector not installed"; exit 1; }
if command -v scdoc >/dev/null; then
	for m in man8/spated.8 man8/spatectl.8 man5/spated.conf.5 man1/spate-pub.1; do
		[ -s "$root/share/man/$m" ] || { echo "FAIL: $prefix/share/man/$m not installed"; exit 1; }
	done
fi
echo "ok: daemon, tools, config, unit, user, docs, pages, completion, dissector under $prefix"
unit=$root/lib/systemd/system/spated.service
grep -q "^ExecStart=$prefix/bin/spated -c $prefix/etc/spate/spated.conf$" "$unit" ||
	{ grep Exec "$unit"; echo "FAIL: unit paths"; exit 1; }
# its state directory (the journal's) is made by the unit at start: here
# under $dest
mkdir -p "$dest/state"
sed "s|/var/lib/spate/|$dest/state/|g" "$root/etc/spate/spated.conf" >"$dest/check.conf"
"$root/bin/spated" --check-config -c "$dest/check.conf" ||
	{ echo "FAIL: installed config"; exit 1; }
if command -v systemd-analyze >/dev/null 2>&1; then
	# verify wants the binaries at their final paths: point it at ours.
	sed "s|$prefix/bin/|$root/bin/|g; s|$prefix/etc/|$root/etc/|g" "$unit" >"$dest/spated.service"
	# and the man: links of Documentation= at the pages installed here
	MANPATH=$root/share/man systemd-analyze verify "$dest/spated.service" >"$dest/verify.log" 2>&1 ||
		{ cat "$dest/verify.log"; echo "FAIL: systemd-analyze verify"; exit 1; }
	echo "ok: systemd-analyze verify"
	# the hardening: exposure at most 5.0 (the scale's 50)
	systemd-analyze security --offline=yes --threshold=50 "$dest/spated.service" \
		>"$dest/security.log" 2>&1 ||
		{ cat "$dest/security.log"; echo "FAIL: systemd-analyze security: exposure above 5.0"; exit 1; }
	echo "ok: $(grep 'Overall exposure' "$dest/security.log")"
fi
echo "ok: install"
