#!/bin/bash
# access.sh - access control through the daemon: only the owner deletes
# a subscription (NOT_OWNER), quotas (OVER_QUOTA), per-client rate limits
# (RATE_LIMITED), and authenticated datagrams: wrong keys and replays are
# dropped and counted; with keys required, unsigned datagrams are too.
. "$(dirname "$0")/common.sh"

netns_create || fail "cannot create the namespaces"
key=404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f
# The example config with other quotas and an access group.
conf_with() {
	sed 's/max_subs_per_client = 0;/max_subs_per_client = 5;/' "$SPATE_CONF"
	cat <<CONF
access: { rate = 50.0; burst = 20; require_auth = $1;
          keys = ( { client = 21; key = "$key"; } ); };
CONF
}
conf_with false >"$E2E_TMP/open.conf"
conf_with true >"$E2E_TMP/required.conf"
grep -q 'max_subs_per_client = 5;' "$E2E_TMP/open.conf" || fail "quota not set in the test config"

delta() { # delta BEFORE AFTER hdr_err-code
	python3 -c 'import json,sys; a,b=json.loads(sys.argv[1]),json.loads(sys.argv[2]); print(b["hdr_err"].get(sys.argv[3],0)-a["hdr_err"].get(sys.argv[3],0))' "$@"
}

netns_spated_start "$SPATED_LOG" -c "$E2E_TMP/open.conf" || fail "spated did not start"
before=$(netns_spated_stats) || fail "no counters"
netns_cli timeout 120 python3 "$E2E_DIR/access.py" open || fail "access checks (keys optional)"
after=$(netns_spated_stats) || fail "no counters"
[ "$(delta "$before" "$after" AUTH_FAILED)" -ge 1 ] || fail "AUTH_FAILED not counted"
[ "$(delta "$before" "$after" AUTH_REPLAY)" -ge 1 ] || fail "AUTH_REPLAY not counted"
[ "$(e2e_counter "$after" auth_dropped)" -ge 2 ] || fail "auth_dropped not counted"
echo "ok: refused datagrams counted (AUTH_FAILED, AUTH_REPLAY)"
netns_spated_stop || fail "spated did not exit cleanly"

netns_spated_start "$SPATED_LOG" -c "$E2E_TMP/required.conf" || fail "spated did not restart"
before=$(netns_spated_stats) || fail "no counters"
netns_cli timeout 120 python3 "$E2E_DIR/access.py" required || fail "access checks (keys required)"
after=$(netns_spated_stats) || fail "no counters"
[ "$(delta "$before" "$after" AUTH_REQUIRED)" -ge 1 ] || fail "AUTH_REQUIRED not counted"
echo "ok: unsigned datagrams counted (AUTH_REQUIRED)"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: access"
