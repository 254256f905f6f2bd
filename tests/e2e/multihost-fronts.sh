#!/bin/bash
# multihost-fronts.sh - issue 9, the paper's shape: 2 fronts + 4 match
# hosts, each a spated in its own namespace on a bridge. Each front
# clusters the subscriptions sent to it (its own category ids) and
# relays every event a client sends it to the other front, which routes
# it through its own categories; the match hosts hold categories of both
# fronts, move them between each other as both fronts decide (rehome.sh's
# settings: many moves), and answer the clients. Subscriber A subscribes
# through front 1, subscriber B through front 2; half the events are
# published through each front; every notification must be what
# spate-match --engine brute gives for all the subscriptions and events.
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"

gen() { python3 "$E2E_DIR/gen-stream.py" --seed "$1" --subs 300 --events 3000; }
# B's subscription and event ids apart from A's (brute sees one id space)
shift_ids() { awk -F'\t' -v OFS='\t' '/^#/ || NF < 2 { next } { $2 += 100000; print }'; }
gen 21 | grep -v '^event' | grep -v '^#' >"$E2E_TMP/subs-a.tsv" || fail "gen-stream.py"
gen 21 | grep '^event' >"$E2E_TMP/events-a.tsv" || fail "gen-stream.py"
gen 22 | shift_ids | grep -v '^event' >"$E2E_TMP/subs-b.tsv" || fail "gen-stream.py"
gen 22 | shift_ids | grep '^event' >"$E2E_TMP/events-b.tsv" || fail "gen-stream.py"
cat "$E2E_TMP"/subs-a.tsv "$E2E_TMP"/subs-b.tsv "$E2E_TMP"/events-a.tsv "$E2E_TMP"/events-b.tsv \
	>"$E2E_TMP/all.tsv"

mh_base "$MH_REHOME_DRT" f1 f2 m3 m4 m5 m6 cli
# addresses: front 1 .1, the client .2, match hosts 3-6 .3-.6, front 2 .7
ip_of() { case $1 in 1) echo 198.18.0.1 ;; 2) echo 198.18.0.7 ;; *) echo "198.18.0.$1" ;; esac; }
peers_of() { # HOST: every other host; fronts without lcores
	local h out=""
	for h in 1 2 3 4 5 6; do
		[ "$h" = "$1" ] && continue
		out="$out${out:+, }{ host = $h; ipv4 = \"$(ip_of $h)\";"
		[ "$h" -gt 2 ] && out="$out lcores = 1;"
		out="$out }"
	done
	echo "$out"
}
mh_conf "$E2E_TMP/f1.conf" front 1 "$(ip_of 1)" "$(peers_of 1)" || fail "front conf"
mh_conf "$E2E_TMP/f2.conf" front 2 "$(ip_of 2)" "$(peers_of 2)" || fail "front conf"
for h in 3 4 5 6; do
	mh_conf "$E2E_TMP/m$h.conf" match "$h" "$(ip_of $h)" "$(peers_of $h)" || fail "match conf"
done
SPATED_LOG=$E2E_TMP/f1.log
for h in 3 4 5 6; do
	mh_spated "m$h" "$E2E_TMP/m$h.conf" "$E2E_TMP/m$h.log" || fail "match host $h did not start"
done
mh_spated f1 "$E2E_TMP/f1.conf" "$E2E_TMP/f1.log" || fail "front 1 did not start"
mh_spated f2 "$E2E_TMP/f2.conf" "$E2E_TMP/f2.log" || fail "front 2 did not start"
for h in 1 2 3 4 5 6; do
	ip netns exec "$(mh_ns cli)" ping -c 1 -W 2 "$(ip_of $h)" >/dev/null || fail "ping host $h"
done
counter() { # HOST NAME
	mh_stats "$1" "$E2E_TMP/$1.log" | python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1], 0))' "$2"
}
sub() { # NAME FRONT PORT ID STREAM (exec: its pid is the subscriber's, for kill -INT)
	exec ip netns exec "$(mh_ns cli)" timeout 600 "$SPATE_BUILD/tools/spate-sub" --conf "$SPATE_CONF" \
		--server "$(ip_of "$2"):$NETNS_PORT" --listen "198.18.0.2:$3" --client-id "$4" \
		--out "$E2E_TMP/$1.raw" "$5" 2>"$E2E_TMP/$1.err"
}
sub sub-a 1 45001 11 "$E2E_TMP/subs-a.tsv" &
sa=$!
sub sub-b 2 45002 12 "$E2E_TMP/subs-b.tsv" &
sb=$!
netns_track "$sa"
netns_track "$sb"
# every subscription acknowledged before the first event: each
# spate-sub says "listening" once all its changes are (the ACK comes
# from the match host holding the category, once applied there); at
# most 120 s (a count on the fronts and 0.5 s lost the first event's
# matches at load 17)
for s in a b; do
	e2e_wait_listening "$E2E_TMP/sub-$s.err" 1200 || fail "subscriber $s"
done
pub() { # FRONT STREAM
	ip netns exec "$(mh_ns cli)" timeout 60 "$SPATE_BUILD/tools/spate-pub" --conf "$SPATE_CONF" \
		--server "$(ip_of "$1"):$NETNS_PORT" --rate 2000 --quiet "$2"
}
pub 1 "$E2E_TMP/events-a.tsv" 2>"$E2E_TMP/pub-a.err" & pa=$!
pub 2 "$E2E_TMP/events-b.tsv" 2>"$E2E_TMP/pub-b.err" || { cat "$E2E_TMP/pub-b.err"; fail "spate-pub via front 2"; }
wait "$pa" || { cat "$E2E_TMP/pub-a.err"; fail "spate-pub via front 1"; }
# the subscribers listen until told (a fixed duration ran out before the
# events on a loaded machine, where subscribing is slow): once the match
# hosts' notification counts stand still for a second (at most 60 s)
prev=-1
for i in $(seq 1 60); do
	n=0
	for h in 3 4 5 6; do
		n=$((n + $(counter "m$h" notifications)))
	done
	[ "$n" = "$prev" ] && break
	prev=$n
	sleep 1
done
sleep 0.5 # what is still in the subscribers' sockets
kill -INT "$sa" "$sb"
wait "$sa" || { cat "$E2E_TMP/sub-a.err"; fail "subscriber A"; }
wait "$sb" || { cat "$E2E_TMP/sub-b.err"; fail "subscriber B"; }
"$SPATE_BUILD/tools/spate-match" --engine brute --conf "$SPATE_CONF" "$E2E_TMP/all.tsv" \
	2>"$E2E_TMP/match.err" | sort >"$E2E_TMP/want" || fail "spate-match"
sort "$E2E_TMP/sub-a.raw" "$E2E_TMP/sub-b.raw" >"$E2E_TMP/got"
[ -s "$E2E_TMP/want" ] || fail "no match at all: the test would prove nothing"
if ! cmp -s "$E2E_TMP/want" "$E2E_TMP/got"; then
	diff "$E2E_TMP/want" "$E2E_TMP/got" | head -n 10
	tail -n 2 "$E2E_TMP/sub-a.err" "$E2E_TMP/sub-b.err"
	mh_dump
	fail "$(wc -l <"$E2E_TMP/want") notifications expected, $(wc -l <"$E2E_TMP/got") got"
fi
echo "ok: 2 fronts + 4 match hosts: $(wc -l <"$E2E_TMP/got") notifications identical to brute"
all=$(mh_stats_all f1 f2 m3 m4 m5 m6) || fail "no counters"
python3 - "$E2E_DIR" "$all" <<'PY' || fail "counters"
import sys
sys.path.insert(0, sys.argv[1])
from mh_counters import read, total, verdict
keys = ("peer_relayed_out", "peer_relayed_in", "events_routed", "peer_moves", "merges",
        "cats_visited", "peer_handoff_subs", "peer_handoff_subs_in")
st, bad = read(sys.argv[2], keys)
for f in ("f1", "f2"):
    if st[f].get("peer_relayed_out", 0) == 0 or st[f].get("peer_relayed_in", 0) == 0:
        bad.append("%s relayed nothing" % f)
    if st[f].get("peer_moves", 0) < 5:
        bad.append("%s moved fewer than 5 categories between hosts" % f)
for h in ("m3", "m4", "m5", "m6"):
    if st[h].get("cats_visited", 0) == 0:
        bad.append("%s matched nothing" % h)
if total(st, "peer_handoff_subs") != total(st, "peer_handoff_subs_in"):
    bad.append("shipped %d != received %d"
               % (total(st, "peer_handoff_subs"), total(st, "peer_handoff_subs_in")))
sys.exit(verdict(bad))
PY
for h in m3 m4 m5 m6 f1 f2; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: multihost-fronts"
