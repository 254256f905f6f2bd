#!/bin/bash
# limits.sh - every documented limit at its value and one above, through a
# running spated with small limits (badinput-common.sh): keywords per
# message, keyword bytes, constraints, attributes, name bytes, messages
# per datagram, datagram size, subscriptions per client and in total.
# At the limit: accepted; above: refused with the documented NACK code or
# a counted drop (docs/protocol.md, "Limits"). The known set of
# subscriptions is unchanged afterwards, and the configuration refuses
# limits above the hard maxima with file:line.
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/badinput-common.sh"

badinput_start
badinput_py setup
before=$(netns_spated_stats) || fail "no counters"
badinput_py limits
after=$(netns_spated_stats) || fail "no counters after the limits"
badinput_counters "$before" "$after"
badinput_py verify
[ "$(ctl show subs --count | awk '/^count/ { print $2 }')" = 150 ] || fail "show subs --count"
# the quotas are settings: lowered below the count, nothing is removed,
# new subscriptions are refused
ctl set quotas.max_subs 100 >/dev/null || fail "set quotas.max_subs 100"
[ "$(ctl show subs --count | awk '/^count/ { print $2 }')" = 150 ] || fail "lowering the quota removed subscriptions"
netns_spated_stop || fail "spated did not exit cleanly"

# Configured limits above the hard maxima (lib/proto/spate_types.h): file:line.
for kv in "max_keywords = 65" "max_keyword_len = 256" "max_constraints = 33" "max_attrs = 33" \
	"max_name_len = 256" "max_messages = 1025" "max_keywords = 0"; do
	key=${kv%% *}
	sed "s/^\(\s*\)$key = [0-9]*;/\1$kv;/" "$SPATE_CONF" >"$E2E_TMP/over.conf"
	grep -q "$kv;" "$E2E_TMP/over.conf" || fail "could not write $kv"
	out=$("$SPATE_BUILD/app/spated" -c "$E2E_TMP/over.conf" --check-config 2>&1) &&
		fail "spated --check-config accepted $kv"
	echo "$out" | grep -q "over.conf:[0-9]*: spate.limits.$key = .* is out of range" ||
		fail "$kv: no file:line reason: $out"
done
echo "ok: limits above the hard maxima refused with file:line"
echo "ok: limits"
