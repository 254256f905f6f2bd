#!/bin/bash
# pubsub.sh - spate-pub and spate-sub end to end against spated in a
# network namespace (tests/e2e/common.sh, tools/netns.sh): two
# subscribers, each with half of the subscriptions and its own port,
# then a publisher; the union of what they receive equals spate-match
# --engine brute on the same stream, each gets only its own
# subscriptions, no sequence gap is seen, and --cleanup removes them all.
. "$(dirname "$0")/../e2e/common.sh"
T=$SPATE_BUILD/tools
for b in spate-pub spate-sub spate-gen; do
	[ -x "$T/$b" ] || fail "$T/$b not built"
done

"$T/spate-gen" --workload drt --order subs-first --events 4000 --sub-ratio 0.05 --max-extent 15 \
	--vocab 40 --space skewed --seed 31 --out "$E2E_TMP/s.tsv" 2>/dev/null || fail "spate-gen"
awk -F'\t' '$1=="sub" && $2%2==1' "$E2E_TMP/s.tsv" >"$E2E_TMP/a.tsv"
awk -F'\t' '$1=="sub" && $2%2==0' "$E2E_TMP/s.tsv" >"$E2E_TMP/b.tsv"
n_subs=$(grep -c '^sub' "$E2E_TMP/s.tsv")
"$SPATE_BUILD/tools/spate-match" --engine brute --quiet "$E2E_TMP/s.tsv" | sort >"$E2E_TMP/want" ||
	fail "spate-match"
awk '$2%2==1' "$E2E_TMP/want" | grep -q . && awk '$2%2==0' "$E2E_TMP/want" | grep -q . ||
	fail "the workload gives one subscriber nothing: the test would prove little"

e2e_start
srv=$NETNS_SRV_IP:$NETNS_PORT
pids=""
for s in a b; do
	port=47201
	[ "$s" = b ] && port=47202
	# a's progress line on, as on a terminal (checked below)
	show=--quiet
	[ "$s" = a ] && show=--progress
	netns_cli timeout 120 "$T/spate-sub" --server "$srv" --listen "0.0.0.0:$port" --idle-ms 2000 \
		--duration 90 --cleanup $show --out "$E2E_TMP/$s.got" "$E2E_TMP/$s.tsv" 2>"$E2E_TMP/$s.err" &
	pids="$pids $!"
	netns_track $!
done
for s in a b; do
	e2e_wait_listening "$E2E_TMP/$s.err" 300 || fail "spate-sub $s not listening"
done
netns_cli timeout 120 "$T/spate-pub" --server "$srv" --rate 20000 --batch 8 "$E2E_TMP/s.tsv" \
	2>"$E2E_TMP/pub.err" || { cat "$E2E_TMP/pub.err"; fail "spate-pub"; }
for p in $pids; do
	wait "$p" || { cat "$E2E_TMP/a.err" "$E2E_TMP/b.err"; fail "spate-sub exited non-zero"; }
done
sort "$E2E_TMP/a.got" "$E2E_TMP/b.got" >"$E2E_TMP/got"
if ! cmp -s "$E2E_TMP/want" "$E2E_TMP/got"; then
	diff "$E2E_TMP/want" "$E2E_TMP/got" | head -n 10
	cat "$E2E_TMP/a.err" "$E2E_TMP/b.err" "$E2E_TMP/pub.err"
	fail "notifications differ from spate-match ($(wc -l <"$E2E_TMP/want") expected, $(wc -l <"$E2E_TMP/got") got)"
fi
awk '$2%2==0 {exit 1}' "$E2E_TMP/a.got" && awk '$2%2==1 {exit 1}' "$E2E_TMP/b.got" ||
	fail "a subscriber received another's notifications"
for s in a b; do
	grep -q "seq_lost=0 seq_late=0 seq_restarts=0" "$E2E_TMP/$s.err" ||
		{ cat "$E2E_TMP/$s.err"; fail "spate-sub $s saw sequence gaps"; }
done
stats=$(netns_spated_stats) || fail "no counters"
[ "$(e2e_counter "$stats" sub_adds)" = "$n_subs" ] || fail "sub_adds is not $n_subs: $stats"
[ "$(e2e_counter "$stats" sub_dels)" = "$n_subs" ] || fail "--cleanup: sub_dels is not $n_subs"
# the progress lines: redrawn in place (\r), the last one with the totals
na=$(wc -l <"$E2E_TMP/a.got")
tr '\r' '\n' <"$E2E_TMP/a.err" | grep -q "^spate-sub: subscribing: [0-9]* changes applied" ||
	{ cat -A "$E2E_TMP/a.err" | head; fail "spate-sub --progress: no subscribing line"; }
tr '\r' '\n' <"$E2E_TMP/a.err" | grep -q "^spate-sub: $((n_subs / 2 + n_subs % 2)) subscriptions; $na notifications in [0-9]* datagrams, 0 lost, [0-9.]* s$" ||
	{ cat -A "$E2E_TMP/a.err" | tail -n 5; fail "spate-sub --progress: no final line with $na notifications"; }
grep -q $'\r' "$E2E_TMP/b.err" && fail "spate-sub --quiet drew a progress line"
netns_cli timeout 120 "$T/spate-replay" --server "$srv" --stream "$E2E_TMP/s.tsv" --out "$E2E_TMP/r.got" \
	--progress 2>"$E2E_TMP/r.err" || { cat "$E2E_TMP/r.err"; fail "spate-replay"; }
sort "$E2E_TMP/r.got" | cmp -s - "$E2E_TMP/want" || fail "spate-replay --progress: matches differ"
ops=$(sed -n 's/^spate-replay: ops=\([0-9]*\) .*/\1/p' "$E2E_TMP/r.err")
tr '\r' '\n' <"$E2E_TMP/r.err" | grep -q "^spate-replay: $ops lines sent, $(wc -l <"$E2E_TMP/want") notifications, [0-9.]* s$" ||
	{ cat -A "$E2E_TMP/r.err" | tail -n 3; fail "spate-replay --progress: no final line"; }
echo "ok: progress lines of spate-sub and spate-replay ($(tr '\r' '\n' <"$E2E_TMP/r.err" | grep -c '^spate-replay: .* lines sent') redraws)"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: pubsub: $(wc -l <"$E2E_TMP/want") notifications to 2 subscribers identical to spate-match ($(tail -n 1 "$E2E_TMP/pub.err"))"
