#!/bin/bash
# spatectl.sh - every spatectl command against a running spated: show
# (stats, categories, lcores, placement, config, params, subs --count), get
# and set of every setting (same value back, bad values refused with the
# allowed range, start-only ones refused), settings that take effect on
# the data plane at once, set while a stream plays (matches stay exact),
# rebalance, journal compact, save + restart, errors and the socket mode.
. "$(dirname "$0")/common.sh"

sock=$E2E_TMP/ctl.sock
ctl() { "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }
conf=$E2E_TMP/spated.conf
sed 's/engine = "grid";/engine = "drt";/' "$SPATE_CONF" >"$conf"
cat >>"$conf" <<CONF
control: { socket = "$sock"; mode = "0660"; overrides = "$E2E_TMP/overrides.conf"; };
CONF
netns_create || fail "cannot create the namespaces"
netns_spated_start "$SPATED_LOG" -c "$conf" || fail "spated did not start"

[ "$(stat -c %a "$sock")" = 660 ] || fail "socket mode $(stat -c %a "$sock"), want 660"
ctl help | grep -q 'set NAME VALUE' || fail "help"
for c in "show stats" "show lcores" "show config" "show params" "show subs --count"; do
	# shellcheck disable=SC2086 # the words are the command
	ctl --json $c | python3 -c 'import json,sys; json.load(sys.stdin)' || fail "$c --json"
	# shellcheck disable=SC2086
	ctl $c >/dev/null || fail "$c"
done
echo "ok: show commands (text and JSON)"

# Every setting: read, set to the same value, read back; the start-only
# ones are refused with a reason.
ctl --json show params | python3 -c '
import json, sys
for k, v in json.load(sys.stdin).items():
    print(k, v if isinstance(v, str) else json.dumps(v))' >"$E2E_TMP/params"
[ "$(wc -l <"$E2E_TMP/params")" -ge 25 ] || fail "too few settings listed"
while read -r name value; do
	got=$(ctl get "$name") || fail "get $name"
	[ "$got" = "$name: $value" ] || fail "get $name: '$got', want '$value'"
	got=$(ctl set "$name" "$value") || fail "set $name $value"
	[ "$got" = "$name: $value" ] || fail "set $name: read back '$got'"
done <"$E2E_TMP/params"
echo "ok: get and set of $(wc -l <"$E2E_TMP/params") settings"
# What shapes the grids, the placement or the notifier changes at the next
# start only: another value is refused, saying so.
for nv in drt.route_cell=3 drt.workers=2 drt.cat_cell=1 limits.max_messages=32 ivx.groups=8; do
	ctl set "${nv%=*}" "${nv#*=}" 2>"$E2E_TMP/err" && fail "set $nv was accepted"
	grep -q "next start" "$E2E_TMP/err" || fail "set $nv: $(cat "$E2E_TMP/err")"
done
echo "ok: start-only settings refused at run time"

# New values: read back; bad ones: refused, naming what is allowed.
while read -r name good bad want; do
	got=$(ctl set "$name" "$good") || fail "set $name $good"
	[ "$got" = "$name: $good" ] || fail "set $name $good: read back '$got'"
	ctl set "$name" "$bad" 2>"$E2E_TMP/err" && fail "set $name $bad was accepted"
	grep -qF -- "$want" "$E2E_TMP/err" || fail "set $name $bad: '$(cat "$E2E_TMP/err")' lacks '$want'"
	[ "$(ctl get "$name")" = "$name: $good" ] || fail "a refused set changed $name"
done <<'CASES'
drt.alpha 0.7 1.5 out of range [0, 1]
drt.new_th 0.4 -0.1 out of range [0, 1]
drt.cmax 128 0 out of range [1, 1000000]
drt.lambda 1000 0 out of range [1, 1000000000]
drt.sigma 0.3 11 out of range [0, 10]
drt.merge_th 2 -1 out of range
drt.variant fre bogus not one of nonfre, fre, freco
limits.max_keywords 8 65 out of range [1, 64]
limits.max_keyword_len 32 256 out of range [1, 255]
quotas.max_subs 100000 -1 out of range [0, 4294967295]
quotas.max_subs_per_client 5000 x not an integer
access.rate 1000 -1 out of range [0, 1e+09]
access.burst 500 0 out of range [1, 1000000000]
journal.sync interval sometimes not one of none, always, interval
journal.sync_interval_us 5000 1 out of range [100, 10000000]
control.log_level debug loud not one of emerg
spated.idle_spin_us 200 1000001 out of range [0, 1000000]
spated.idle_sleep_us 20 x not an integer
CASES
ctl set access.require_auth true 2>"$E2E_TMP/err" && fail "require_auth without keys accepted"
grep -q "no keys" "$E2E_TMP/err" || fail "require_auth: $(cat "$E2E_TMP/err")"
ctl set no.such 1 2>"$E2E_TMP/err" && fail "unknown setting accepted"
ctl show nonsense 2>/dev/null && fail "unknown command accepted"
echo "ok: new values read back, bad values refused with the range"

# The idle strategy changes at once: busy polling never sleeps, no spin
# sleeps at every idle poll (the counter idle_sleeps, lcore_idle.h).
sleeps() { ctl --json show stats | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"]["idle_sleeps"])'; }
ctl set spated.idle_sleep_us 0 >/dev/null || fail "set idle_sleep_us 0"
a=$(sleeps); sleep 0.5; b=$(sleeps)
[ "$a" = "$b" ] || fail "busy polling slept: idle_sleeps $a -> $b"
ctl set spated.idle_sleep_us 50 >/dev/null && ctl set spated.idle_spin_us 0 >/dev/null || fail "set idle"
a=$(sleeps); sleep 0.5; b=$(sleeps)
[ "$b" -gt $((a + 100)) ] || fail "an idle lcore with no spin did not sleep: idle_sleeps $a -> $b"
echo "ok: idle strategy changed live ($a -> $b sleeps in 0.5 s)"

# The data plane uses new limits at once.
ctl set quotas.max_subs_per_client 2 >/dev/null || fail "set quota"
ctl set limits.max_keywords 2 >/dev/null || fail "set max_keywords"
netns_cli timeout 60 python3 - "$E2E_DIR" <<'PY' || fail "new limits not in force"
import sys
sys.path.insert(0, sys.argv[1])
from spatecli import Client, sub_add, sub_del
c = Client(77)
r = [10_000_000] * 0 + [-10_000_000, -10_000_000, 10_000_000, 10_000_000]
import time
end = time.time() + 30
while not c.request([sub_del(1)], timeout=0.5):
    assert time.time() < end, "no reply"
got = c.request([sub_add(70001, r, ["a"]), sub_add(70002, r, ["b"]), sub_add(70003, r, ["c"]),
                 sub_add(70004, r, ["a", "b", "c"])])
codes = sorted((k, code) for k, code, _ in got)  # ACKs and NACKs come from two stages
print(codes)
assert codes == [("ACK", 0), ("ACK", 0), ("NACK", 7), ("NACK", 19)], codes
c.request([sub_del(70001), sub_del(70002)])
PY
ctl set quotas.max_subs_per_client 0 >/dev/null && ctl set limits.max_keywords 16 >/dev/null ||
	fail "restore limits"
echo "ok: quota and keyword limit changed at run time are enforced at once"

# Settings change while a stream plays: the matches stay exact.
python3 "$E2E_DIR/gen-stream.py" --seed 7 --subs 300 --events 3000 >"$E2E_TMP/gen.tsv" ||
	fail "gen-stream.py"
( for i in $(seq 1 200); do
	ctl set drt.alpha "0.$((i % 10))" >/dev/null
	ctl set drt.new_th "0.$(((i + 3) % 10))" >/dev/null
	ctl set drt.cmax $((8 + i % 5)) >/dev/null
	ctl rebalance now >/dev/null
	sleep 0.05
done ) &
setter=$!
netns_track "$setter"
e2e_replay_check "$E2E_TMP/gen.tsv" generated-while-set
kill "$setter" 2>/dev/null
wait "$setter" 2>/dev/null
grep -c 'control: set drt.alpha' "$SPATED_LOG" >"$E2E_TMP/nsets"
echo "ok: $(cat "$E2E_TMP/nsets") changes of drt.alpha during the stream"
ctl --json show categories --top 3 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["categories"]) <= 3 and d["total"] >= len(d["categories"]), d' || fail "show categories"
ctl show categories --top 2 --worker 0 --page 1 >/dev/null || fail "show categories paged"
ctl --json show placement | python3 -c 'import json,sys; assert json.load(sys.stdin)["workers"]' ||
	fail "show placement"
ctl rebalance now >/dev/null || fail "rebalance now"
ctl journal compact 2>"$E2E_TMP/err" && fail "journal compact without a journal"
grep -q "no journal" "$E2E_TMP/err" || fail "journal compact: $(cat "$E2E_TMP/err")"
# the load figures of show lcores are counted (after the streams above: the lcore
# polled, and some polls found work)
ctl --json show lcores | python3 -c '
import json, sys
l = json.load(sys.stdin)["lcores"][0]
sys.exit(0 if l["polls"] > 0 and 0 < l["busy_polls"] <= l["polls"] and l["busy_cycles"] > 0 else 1)' ||
	fail "show lcores: polls/busy_polls not counted: $(ctl --json show lcores)"
echo "ok: set while streaming, categories, placement, rebalance; compact refused without a journal"

# save, restart: the settings come back.
ctl set drt.alpha 0.25 >/dev/null && ctl set limits.max_keywords 12 >/dev/null &&
	ctl set spated.idle_spin_us 300 >/dev/null || fail "set"
ctl save | grep -q overrides.conf || fail "save"
netns_spated_stop || fail "spated did not exit cleanly"
ctl show stats 2>/dev/null; [ $? -eq 2 ] || fail "spatectl without a daemon should exit 2"
netns_spated_start "$SPATED_LOG" -c "$conf" || fail "spated did not restart"
[ "$(ctl get drt.alpha)" = "drt.alpha: 0.25" ] || fail "drt.alpha not restored: $(ctl get drt.alpha)"
[ "$(ctl get limits.max_keywords)" = "limits.max_keywords: 12" ] || fail "max_keywords not restored"
[ "$(ctl get log_level)" = "control.log_level: debug" ] || fail "log level not restored"
[ "$(ctl get spated.idle_spin_us)" = "spated.idle_spin_us: 300" ] ||
	fail "idle_spin_us not restored: $(ctl get spated.idle_spin_us)"
echo "ok: save, restart, settings restored"
netns_spated_stop || fail "spated did not exit cleanly"
[ -e "$sock" ] && fail "socket left behind"
echo "ok: spatectl"
