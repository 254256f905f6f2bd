#!/bin/bash
# delegate.sh - control.group + control.mode delegate spatectl to a
# non-root operator: with the socket in DPDK's runtime directory (the
# default, /var/run/dpdk/<prefix>/, which DPDK makes 0700), a user this
# test creates in the group runs spatectl -p <prefix> (its default path
# for non-root finds the root daemon's socket) and gets answers; a user
# outside the group is refused by the kernel (exit 2, "Permission
# denied"); the runtime directory lets the group through (0710) and
# nothing more. Users and group are removed on exit.
. "$(dirname "$0")/common.sh"

for t in useradd userdel groupadd groupdel runuser; do
	command -v "$t" >/dev/null || fail "$t not installed"
done
grp=spatet$$
member=spatem$$
other=spateo$$
cleanup_users() {
	userdel "$member" 2>/dev/null
	userdel "$other" 2>/dev/null
	groupdel "$grp" 2>/dev/null
}
trap 'cleanup_users; e2e_cleanup' EXIT
groupadd --system "$grp" || fail "groupadd"
useradd --system --no-create-home --shell /usr/sbin/nologin -G "$grp" "$member" || fail "useradd member"
useradd --system --no-create-home --shell /usr/sbin/nologin "$other" || fail "useradd other"

cp "$SPATE_CONF" "$E2E_TMP/d.conf"
echo "control: { group = \"$grp\"; mode = \"0660\"; };" >>"$E2E_TMP/d.conf"
SPATE_CONF=$E2E_TMP/d.conf
e2e_start
prefix=spate-$$-$_netns_n   # netns_spated_start's --file-prefix
rundir=/var/run/dpdk/$prefix
sock=$rundir/spated.sock
[ -S "$sock" ] || fail "no socket at $sock"
[ "$(stat -c '%a %G' "$sock")" = "660 $grp" ] || fail "socket: $(stat -c '%a %G' "$sock")"
[ "$(stat -c '%a %G' "$rundir")" = "710 $grp" ] || fail "runtime dir: $(stat -c '%a %G' "$rundir")"
[ $(( 0$(stat -c '%a' /var/run/dpdk) & 1 )) = 1 ] || fail "/var/run/dpdk: $(stat -c '%a' /var/run/dpdk)"
echo "ok: socket 0660 group $grp in $rundir (0710 group $grp)"

as() { local u=$1; shift; (cd / && runuser -u "$u" -- "$@"); }
as "$member" "$SPATE_BUILD/tools/spatectl" -p "$prefix" --json show version >"$E2E_TMP/v.json" 2>"$E2E_TMP/v.err" ||
	{ cat "$E2E_TMP/v.err"; fail "spatectl as $member (in $grp)"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"], d' "$E2E_TMP/v.json" ||
	fail "show version as $member"
as "$member" "$SPATE_BUILD/tools/spatectl" -p "$prefix" get drt.alpha >/dev/null ||
	fail "spatectl get as $member"
echo "ok: $member (uid $(id -u "$member"), in $grp) runs spatectl -p $prefix"

as "$other" "$SPATE_BUILD/tools/spatectl" -p "$prefix" show version >"$E2E_TMP/o.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] || { cat "$E2E_TMP/o.out"; fail "$other (not in $grp): exit $rc, want 2"; }
grep -q "Permission denied" "$E2E_TMP/o.out" || { cat "$E2E_TMP/o.out"; fail "$other: no 'Permission denied'"; }
echo "ok: $other (not in $grp) refused: $(head -n 1 "$E2E_TMP/o.out")"
e2e_ping 2
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: delegate"
