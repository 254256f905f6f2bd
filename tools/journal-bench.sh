#!/bin/bash
# journal-bench.sh - what the subscription journal costs: ACKed
# SUB_ADD/SUB_DEL operations a second through spated for each sync policy
# (off, none, always, interval), one client sending 8 operations a
# datagram, WINDOW datagrams in flight (1 = each waits for its replies).
# One JSON line per row. Root; makes and deletes its own namespaces.
# The journal goes to JOURNAL_DIR (default /var/tmp: a disk, where /tmp
# may be a tmpfs whose fdatasync costs nothing). The client is Python: at
# some thousands of operations a second it, not spated, is the limit of
# the "off" row.
#   tools/journal-bench.sh [SECONDS [WINDOW...]]   (default 5 s, windows 1 16)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export SPATE_SRC=$top SPATE_BUILD=${SPATE_BUILD:-$top/build}
. "$top/tests/e2e/common.sh"
secs=${1:-5}
shift || true
windows=${*:-1 16}
jdir=$(mktemp -d "${JOURNAL_DIR:-/var/tmp}/spate-jbench.XXXXXX") || fail "mktemp"
trap 'rm -rf "$jdir"; e2e_cleanup' EXIT
netns_create || fail "cannot create the namespaces"
for policy in off none always interval; do
	conf=$E2E_TMP/$policy.conf
	cp "$SPATE_CONF" "$conf"
	[ "$policy" = off ] || cat >>"$conf" <<CONF
journal: { path = "$jdir/$policy.journal"; sync = "$policy"; sync_interval_us = 10000; };
CONF
	netns_spated_start "$SPATED_LOG" -c "$conf" || fail "spated did not start ($policy)"
	for w in $windows; do
		rm -f "$E2E_TMP/state"
		out=$(netns_cli timeout $((secs + 30)) python3 "$E2E_DIR/journal.py" load \
			"$E2E_TMP/state" "$secs" "$w" | grep "^{") || fail "load ($policy)"
		echo "$out" | sed "s/^{/{\"policy\": \"$policy\", /"
	done
	netns_spated_stop || fail "spated did not exit cleanly ($policy)"
done
