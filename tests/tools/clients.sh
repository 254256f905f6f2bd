#!/bin/bash
# clients.sh - spate-pub, spate-sub, spate-replay without the daemon, on
# 127.0.0.1: --help everywhere; spate-sub retransmits an unanswered
# SUB_ADD and reports the sequence gaps of a lossy fake server; spate-pub
# sends every event, batched as asked, after a probe the server answers;
# bad input, a closed port, a silent server and an unresolvable name give
# a clear message, a non-zero exit and no output file.
. "$(dirname "$0")/common.sh"
FAKE=$TT_DIR/fake-server.py
FAKE_PID="" FAKE_PIDS=""
stop_fake() {
	[ -z "$FAKE_PID" ] || { kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null; }
	for p in ${FAKE_PIDS:-}; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
}
TT_CLEANUP_HOOK=stop_fake

for t in spate-pub spate-sub spate-gen spate-pcap spate-replay spate-match spate-bench; do
	"$T/$t" --help >"$TMP/help" 2>&1 || fail "$t --help exits non-zero"
	grep -q "^usage: $t" "$TMP/help" || fail "$t --help: no usage line"
done
ok "--help on every tool"

# wait_port FILE: the port the fake server wrote (at most 10 s).
wait_port() {
	for _ in $(seq 1 100); do
		[ -s "$1" ] && { cat "$1"; return 0; }
		sleep 0.1
	done
	fail "fake server did not start"
}

# A port nobody answers on (probably: nothing listens there).
silent=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

# 1. spate-sub: retransmission and loss reports.
printf 'sub\t7\t0\t0\t1\t1\ta\nevent\t1\t0\t0\ta\nsub\t9\t0\t0\t1\t1\t-\n' >"$TMP/subs.tsv"
python3 "$FAKE" "$TMP/port" & FAKE_PID=$!
port=$(wait_port "$TMP/port")
timeout 30 "$T/spate-sub" --server "127.0.0.1:$port" --timeout-ms 100 --retries 5 --count 10 \
	--duration 20 --out "$TMP/notes" "$TMP/subs.tsv" 2>"$TMP/sub.err" ||
	{ cat "$TMP/sub.err"; fail "spate-sub against the fake server"; }
wait "$FAKE_PID"; FAKE_PID=""
printf '100\t7\n100\t9\n101\t7\n101\t9\n104\t7\n104\t9\n102\t7\n102\t9\n105\t7\n105\t9\n' >"$TMP/notes.want"
cmp -s "$TMP/notes" "$TMP/notes.want" || { diff "$TMP/notes.want" "$TMP/notes"; fail "spate-sub notifications"; }
grep -q "gap: datagrams 5..6 of server 127.0.0.1:[0-9]* missing (2 lost;" "$TMP/sub.err" || { cat "$TMP/sub.err"; fail "gap not reported"; }
grep -q "retransmits=1 .* seq_lost=1 seq_late=1 seq_restarts=0" "$TMP/sub.err" ||
	{ cat "$TMP/sub.err"; fail "summary: retransmits or losses wrong"; }
grep -q "skipped_event_lines=1" "$TMP/sub.err" || { cat "$TMP/sub.err"; fail "event line not skipped"; }
ok "spate-sub: retransmission, notifications, gap reports"

# 2. spate-pub: every event, in order, --batch events a datagram.
"$T/spate-gen" --workload drt --events 1000 --sub-ratio 0.01 --seed 3 --out "$TMP/pub.tsv" 2>/dev/null
python3 "$FAKE" --sink "$TMP/port2" "$TMP/count" & FAKE_PID=$!
port=$(wait_port "$TMP/port2")
"$T/spate-pub" --server "127.0.0.1:$port" --batch 7 --linger-ms 0 "$TMP/pub.tsv" \
	2>"$TMP/pub.err" || { cat "$TMP/pub.err"; fail "spate-pub"; }
wait "$FAKE_PID"; FAKE_PID=""
read -r dg ev ids <"$TMP/count"
[ "$ev" = 1000 ] && [ "$dg" = 143 ] || fail "sink got $ev events in $dg datagrams (want 1000 in 143)"
[ "$ids" = "$(seq -s, 1 1000)" ] || fail "events not in order"
grep -q "skipped_sub_lines=10 " "$TMP/pub.err" || { cat "$TMP/pub.err"; fail "pub summary"; }
ok "spate-pub: 1000 events in 143 datagrams, in order"
# --rate paces: 1000 events at 4000/s take at least 0.25 s (a lower
# bound only: never a timing upper bound on a shared machine).
python3 "$FAKE" --sink "$TMP/port3" "$TMP/count3" & FAKE_PID=$!
port=$(wait_port "$TMP/port3")
"$T/spate-pub" --server "127.0.0.1:$port" --rate 4000 --count 1000 --linger-ms 0 "$TMP/pub.tsv" \
	2>"$TMP/pub2.err" || { cat "$TMP/pub2.err"; fail "spate-pub --rate"; }
wait "$FAKE_PID"; FAKE_PID=""
el=$(sed -n 's/.* elapsed=\([0-9.]*\)s .*/\1/p' "$TMP/pub2.err")
awk -v e="$el" 'BEGIN { exit !(e >= 0.245) }' || fail "--rate 4000: 1000 events in ${el}s"
grep -q " events=1000 " "$TMP/pub2.err" || { cat "$TMP/pub2.err"; fail "--count 1000"; }
ok "spate-pub: --rate and --count"
# A list of servers: the first dies after 300 events (its socket closed:
# ICMP port unreachable, read through IP_RECVERR), then after 300 more
# the second falls silent (probes unanswered for --failover-ms): each
# time spate-pub moves on, says so, and counts what it sent unheard.
# Every event reached a server but those sent into the silence, and
# unconfirmed_events covers them.
for k in 5 6 7; do
	python3 "$FAKE" --sink "$TMP/port$k" "$TMP/count$k" $([ $k = 5 ] && echo --die-after 300) \
		$([ $k = 6 ] && echo --mute-after 300) & FAKE_PIDS="$FAKE_PIDS $!"
done
p5=$(wait_port "$TMP/port5") p6=$(wait_port "$TMP/port6") p7=$(wait_port "$TMP/port7")
"$T/spate-pub" --server "127.0.0.1:$p5,127.0.0.1:$p6" --server "127.0.0.1:$p7" --failover-ms 200 \
	--rate 1000 --linger-ms 0 "$TMP/pub.tsv" 2>"$TMP/pub3.err" || { cat "$TMP/pub3.err"; fail "spate-pub list"; }
for p in $FAKE_PIDS; do wait "$p"; done; FAKE_PIDS=""
# (the ICMP error comes back on the error queue or on the next send)
grep -Eq "server 127.0.0.1:$p5 unreachable \((ICMP: )?Connection refused\): now 127.0.0.1:$p6" "$TMP/pub3.err" ||
	{ cat "$TMP/pub3.err"; fail "no move on ICMP unreachable"; }
grep -q "server 127.0.0.1:$p6 silent for [0-9]* ms: now 127.0.0.1:$p7" "$TMP/pub3.err" ||
	{ cat "$TMP/pub3.err"; fail "no move on silence"; }
python3 - "$TMP" "$(sed -n 's/.*unconfirmed_events=\([0-9]*\).*/\1/p' "$TMP/pub3.err")" <<'PY' || fail "spate-pub list: events"
import sys
d, unconf = sys.argv[1], int(sys.argv[2])
got = []
for k in (5, 6, 7):
    f = open("%s/count%d" % (d, k)).read().split()
    got += [int(x) for x in f[2].split(",")] if len(f) > 2 else []
lost = set(range(1, 1001)) - set(got)
print("  list: %d events reached a server, %d lost, %d counted unconfirmed" % (len(set(got)), len(lost), unconf))
if len(got) != len(set(got)) or not set(got) <= set(range(1, 1001)):
    sys.exit("an event twice, or one never sent")
if 1000 not in got or len(lost) > unconf:
    sys.exit("lost %d, unconfirmed %d, last event %s" % (len(lost), unconf, 1000 in got))
PY
ok "spate-pub: a list of servers, moved on ICMP unreachable and on silence"
# With a list, probes go out every failover_ms / 4 (50 ms here) and are
# answered: the linger after the last event (300 ms) must still end, as
# answers to our own probes are not the server speaking (it waited for
# ever: e2e-multihost-client-list's publisher, --failover-ms 500, hung).
python3 "$FAKE" --sink "$TMP/port8" "$TMP/count8" & FAKE_PID=$!
p8=$(wait_port "$TMP/port8")
timeout 20 "$T/spate-pub" --server "127.0.0.1:$p8,127.0.0.1:$p7" --failover-ms 200 \
	--rate 1000 --count 300 --linger-ms 300 "$TMP/pub.tsv" 2>"$TMP/pub4.err" ||
	{ cat "$TMP/pub4.err"; fail "spate-pub list with a linger: failed or did not end in 20 s"; }
wait "$FAKE_PID"; FAKE_PID=""
grep -q " events=300 .*servers=1$" "$TMP/pub4.err" && grep -q "failovers=0 " "$TMP/pub4.err" ||
	{ cat "$TMP/pub4.err"; fail "spate-pub list with a linger: summary"; }
ok "spate-pub: a list of servers, its linger ends though probes are answered"

# 3. Failures.
out=$TMP/never.out
expect_fail 1 "no answer from 127.0.0.1:$silent after 2 tries" "$out" \
	"$T/spate-sub" --server "127.0.0.1:$silent" --timeout-ms 50 --retries 1 --out "$out" "$TMP/subs.tsv"
expect_fail 1 "no answer" "$out" \
	"$T/spate-replay" --server "127.0.0.1:$silent" --timeout-ms 50 --retries 1 --stream "$TMP/subs.tsv" --out "$out"
printf 'event\t1\t0\t0\ta\nevent\t2\t0\t91\ta\n' >"$TMP/bad.tsv"
python3 "$FAKE" --sink "$TMP/port4" "$TMP/count4" & FAKE_PID=$!
port=$(wait_port "$TMP/port4")
expect_fail 1 "bad.tsv:2: " - "$T/spate-pub" --server "127.0.0.1:$port" "$TMP/bad.tsv"
stop_fake; FAKE_PID=""
# spate-pub tells the truth about the server: a closed port (the kernel
# answers ICMP port unreachable), a socket that never answers the probe,
# a name that does not resolve
expect_fail 1 "no Spate server at 127.0.0.1:$silent: nothing listens there \(ICMP port unreachable\)" - \
	"$T/spate-pub" --server "127.0.0.1:$silent" "$TMP/pub.tsv"
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True); time.sleep(15)' >"$TMP/mute.port" & FAKE_PID=$!
mute=$(wait_port "$TMP/mute.port")
expect_fail 1 "no Spate server at 127.0.0.1:$mute: no answer within 2200 ms \(11 tries\)" - \
	"$T/spate-pub" --server "127.0.0.1:$mute" "$TMP/pub.tsv"
stop_fake; FAKE_PID=""
expect_fail 2 "cannot resolve host 'no-such-host.invalid'" - \
	"$T/spate-pub" --server no-such-host.invalid:47100 "$TMP/pub.tsv"
expect_fail 1 "bad.tsv:2: " "$out" "$T/spate-sub" --server "127.0.0.1:$silent" --out "$out" "$TMP/bad.tsv"
expect_fail 2 "bad address 'nowhere' \(want HOST:PORT\)" - "$T/spate-pub" --server nowhere "$TMP/pub.tsv"
expect_fail 2 "bad address '127.0.0.1:0' \(port 0\)" "$out" "$T/spate-sub" --server 127.0.0.1:0 --out "$out" "$TMP/subs.tsv"
expect_fail 2 "--rate: bad value" - "$T/spate-pub" --server 127.0.0.1:1 --rate fast "$TMP/pub.tsv"
expect_fail 2 "--batch: bad value" - "$T/spate-pub" --server 127.0.0.1:1 --batch 0 "$TMP/pub.tsv"
expect_fail 2 "--count: bad value" "$out" "$T/spate-sub" --server 127.0.0.1:1 --count -1 --out "$out" "$TMP/subs.tsv"
expect_fail 2 "no-such.tsv" - "$T/spate-pub" --server 127.0.0.1:1 "$TMP/no-such.tsv"
expect_fail 2 "no-such.tsv" "$out" "$T/spate-sub" --server 127.0.0.1:1 --out "$out" "$TMP/no-such.tsv"
expect_fail 2 "usage:" - "$T/spate-pub" "$TMP/pub.tsv"
expect_fail 2 "usage:" "$out" "$T/spate-replay" --server 127.0.0.1:1 --out "$out"
expect_fail 2 "bind 192.0.2.1:0: " "$out" "$T/spate-sub" --server 127.0.0.1:1 --listen 192.0.2.1:0 --out "$out" "$TMP/subs.tsv"
ok "clients"
