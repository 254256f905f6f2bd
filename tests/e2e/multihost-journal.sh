#!/bin/bash
# multihost-journal.sh - the front's journal with match hosts: 200
# subscriptions added through a front (1 front + 2 match hosts, journal
# sync = always), every host stopped and started again, the front replays
# its journal into the link stage and the match hosts get the categories
# back: events published after the restart are notified exactly as
# spate-match --engine brute gives them.
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"

mh_base "" front m1 m2 cli
mh_conf "$E2E_TMP/front.conf" front 1 198.18.0.1 \
	'{ host = 2; ipv4 = "198.18.0.3"; lcores = 1; }, { host = 3; ipv4 = "198.18.0.4"; lcores = 2; }' ||
	fail "front conf"
echo "journal: { path = \"$E2E_TMP/front.journal\"; sync = \"always\"; };" >>"$E2E_TMP/front.conf"
mh_conf "$E2E_TMP/m2.conf" match 2 198.18.0.3 \
	'{ host = 1; ipv4 = "198.18.0.1"; }, { host = 3; ipv4 = "198.18.0.4"; lcores = 2; }' ||
	fail "match conf"
mh_conf "$E2E_TMP/m3.conf" match 3 198.18.0.4 \
	'{ host = 1; ipv4 = "198.18.0.1"; }, { host = 2; ipv4 = "198.18.0.3"; lcores = 1; }' \
	"rx = 0; tx = 0; cluster = 0; match = [ 0, 0 ];" || fail "match conf"
SPATED_LOG=$E2E_TMP/front.log
start_all() {
	mh_spated m1 "$E2E_TMP/m2.conf" "$E2E_TMP/m1.log" || fail "match host 2 did not start"
	mh_spated m2 "$E2E_TMP/m3.conf" "$E2E_TMP/m2.log" || fail "match host 3 did not start"
	mh_spated front "$E2E_TMP/front.conf" "$SPATED_LOG" || fail "front did not start"
}
stop_all() {
	for h in front m1 m2; do
		mh_stop "$h" || fail "$h did not exit cleanly"
	done
}
gen() { python3 "$E2E_DIR/gen-stream.py" --seed 5 --subs 400 --events 2000; }
gen | grep -v '^event' >"$E2E_TMP/subs.tsv" || fail "gen-stream.py"
gen | grep '^event' >"$E2E_TMP/events.tsv" || fail "gen-stream.py"
cat "$E2E_TMP/subs.tsv" "$E2E_TMP/events.tsv" >"$E2E_TMP/all.tsv"
: >"$E2E_TMP/none.tsv"
# the subscriber listens on a fixed port: the replayed subscriptions
# notify the address they were added from
sub() { # sub STREAM OUT SECONDS
	ip netns exec "$(mh_ns cli)" timeout 60 "$SPATE_BUILD/tools/spate-sub" --conf "$SPATE_CONF" \
		--server 198.18.0.1:47100 --listen 198.18.0.2:45000 --client-id 5 --duration "$3" \
		--out "$2" "$1"
}
start_all
sub "$E2E_TMP/subs.tsv" "$E2E_TMP/first.out" 0.5 2>"$E2E_TMP/sub1.err" ||
	{ cat "$E2E_TMP/sub1.err"; fail "subscriptions through the front"; }
stop_all
start_all
grep -q 'replayed [1-9][0-9]* records' "$SPATED_LOG" || fail "the front replayed nothing"
echo "ok: $(grep -o 'replayed [0-9]* records[^,]*' "$SPATED_LOG")"
sub "$E2E_TMP/none.tsv" "$E2E_TMP/got.raw" 8 2>"$E2E_TMP/sub2.err" &
sp=$!
netns_track "$sp"
sleep 1
ip netns exec "$(mh_ns cli)" timeout 60 "$SPATE_BUILD/tools/spate-pub" --conf "$SPATE_CONF" \
	--server 198.18.0.1:47100 --rate 2000 "$E2E_TMP/events.tsv" 2>"$E2E_TMP/pub.err" ||
	{ cat "$E2E_TMP/pub.err"; fail "spate-pub"; }
wait "$sp" || { cat "$E2E_TMP/sub2.err"; fail "spate-sub after the restart"; }
"$SPATE_BUILD/tools/spate-match" --engine brute --conf "$SPATE_CONF" "$E2E_TMP/all.tsv" \
	2>"$E2E_TMP/match.err" | sort >"$E2E_TMP/want" || fail "spate-match"
sort "$E2E_TMP/got.raw" >"$E2E_TMP/got"
cmp -s "$E2E_TMP/want" "$E2E_TMP/got" ||
	fail "after the front's replay: $(wc -l <"$E2E_TMP/want") matches expected, $(wc -l <"$E2E_TMP/got") got"
[ -s "$E2E_TMP/want" ] || fail "no match at all: the test would prove nothing"
stop_all
echo "ok: multihost-journal: $(wc -l <"$E2E_TMP/got") matches identical to spate-match after the front's replay"
