#!/bin/bash
# multihost-forge.sh - issue 23, "only members speak between hosts": an
# attacker on the inter-host segment. A front and a match host (static
# peers), a subscriber and a publisher in the client namespace, and the
# attacker in the bridge (tests/e2e/peer_forge.py: it sees the front's
# frames, as a mirror port would, and puts frames on match host 2's
# link). Every frame below answers to an address of the attacker's, so
# one applied frame shows as an ACK or a NOTIFY there.
#  1. one forged frame: the front's frame header read off the segment
#     (hosts, epochs, ack, a category of host 2), the next sequence
#     number, CREATE + SUB_ADD of a whole-world subscription, a random
#     tag, from the front's own MAC, IP and port: host 2 counts it
#     (peer_auth_fail = 1) and answers nothing, and the front's real
#     frame of that sequence number is still taken;
#  2. the same from the attacker's own address (peer_auth_addr);
#  3. the same signed by someone else's key, or by the cluster's key
#     under an id the key file does not have (peer_auth_fail), by the
#     cluster's key from the front's IP but another port
#     (peer_auth_addr), by the cluster's key naming an older epoch of
#     the front or another epoch of host 2 (peer_auth_epoch: what a
#     frame of another incarnation looks like);
#  4. the front's own last frames replayed, twice each (peer_dup, none
#     applied: the subscriber gets no second ACK);
#  5. client datagrams to host 2 (its client port: udp_other_port; its
#     inter-host port: peer_bad), none answered;
#  6. blind frames claiming to be the front (sequence 1, 2, ...) while
#     the events stream, until host 2 has refused 20,000 of them
#     (peer_auth_fail; the kernel drops some of each burst on a loaded
#     machine): none applied;
#  7. one frame claiming host 2 to the front (host 2's header read off
#     the wire, a random tag): peer_auth_fail = 1 on the front;
# and every notification the subscriber gets equals spate-match --engine
# brute for its subscriptions and the events (nothing lost, nothing
# added), with no gap in its per-server sequence numbers. Last, the
# control: the "one" frame signed right by the cluster's key is applied
# (the attacker hears its ACK), so each refusal above is its one wrong
# field's.
#  8. both hosts restart (static peers: each incarnation's epoch is its
#     boot time, bound by a handshake) and the front's first and last
#     frames recorded before are replayed to host 2: its fresh channel
#     would take the first ones' sequence numbers, but every one names
#     the old incarnation of host 2 and is refused (peer_auth_epoch),
#     nothing delivered (peer_msgs_in unchanged).
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"
mh_two_hosts 23 300 3000
# a key rotation half done: the front signs with key 1 and accepts key 2,
# host 2 signs with key 2 and accepts key 1 (each counts the other's
# frames in peer_auth_old_key)
mh_keys || fail "no key file"
new_key=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
(umask 077 && { echo "key 2 $new_key"; grep -v '^key 2 ' "$MH_KEYS"; } >"$E2E_TMP/m1.key") ||
	fail "host 2's key file"
echo "key 2 $new_key" >>"$MH_KEYS"
mh_conf "$E2E_TMP/front.conf" front 1 198.18.0.1 '{ host = 2; ipv4 = "198.18.0.3"; lcores = 1; }' ||
	fail "front conf"
MH_KEYS=$E2E_TMP/m1.key mh_conf "$E2E_TMP/m1.conf" match 2 198.18.0.3 '{ host = 1; ipv4 = "198.18.0.1"; }' ||
	fail "conf"
grep -q "m1.key" "$E2E_TMP/m1.conf" || fail "host 2 does not use its own key file"
SPATED_LOG=$E2E_TMP/front.log
mh_spated m1 "$E2E_TMP/m1.conf" "$E2E_TMP/m1.log" || fail "match host 2 did not start"
mh_spated front "$E2E_TMP/front.conf" "$SPATED_LOG" || fail "front did not start"
mh_el "hosts up"
for ip in 198.18.0.1 198.18.0.3; do
	ip netns exec "$(mh_ns cli)" ping -c 1 -W 2 "$ip" >/dev/null || fail "ping $ip"
done
counter() { mh_counter "$@"; }
forge() { ip netns exec "$MH_BR" python3 "$E2E_DIR/peer_forge.py" "$@"; }
in_cli() { ip netns exec "$(mh_ns cli)" "$@"; }
# listen_start NAME PORT: the attacker's listener at 198.18.0.2:PORT,
# bound when this returns; listen_end NAME: a second more for late
# answers, then how many datagrams came in $heard (at most 120 s in all)
declare -A LISTENER
listen_start() {
	local i
	in_cli python3 "$E2E_DIR/peer_forge.py" listen "198.18.0.2:$2" 120 "$E2E_TMP/$1.stop" \
		>"$E2E_TMP/$1.heard" &
	LISTENER[$1]=$!
	netns_track "$!"
	for i in $(seq 1 300); do
		[ -f "$E2E_TMP/$1.stop.bound" ] && return 0
		sleep 0.1
	done
	fail "the attacker's listener $1 did not start"
}
listen_end() {
	sleep 1
	touch "$E2E_TMP/$1.stop"
	wait "${LISTENER[$1]}"
	heard=$(cat "$E2E_TMP/$1.heard")
}

# the order the test applies them in: every subscription, then the events
cat "$E2E_TMP/subs.tsv" "$E2E_TMP/events.tsv" >"$E2E_TMP/ordered.tsv"
"$SPATE_BUILD/tools/spate-match" --engine brute --conf "$SPATE_CONF" "$E2E_TMP/ordered.tsv" \
	2>/dev/null | sort >"$E2E_TMP/want" || fail "spate-match"
want_n=$(wc -l <"$E2E_TMP/want")
[ "$want_n" -gt 1000 ] || fail "only $want_n matches: the test would prove little"

# the attacker watches the front's link while the subscriptions go in
forge sniff "${MH_TAG}bfront" "$E2E_TMP/state.json" "$E2E_TMP/subs-done" 60 >"$E2E_TMP/sniff.out" 2>&1 &
sniffer=$!
netns_track "$sniffer"
for i in $(seq 1 100); do
	[ -f "$E2E_TMP/state.json.ready" ] && break
	sleep 0.1
done
[ -f "$E2E_TMP/state.json.ready" ] || fail "the attacker's sniffer did not start"
mh_subscriber "$want_n" 4000 80
n_ops=$(wc -l <"$E2E_TMP/subs.tsv")
mh_wait_ops front "$n_ops"
ops_in=$?
touch "$E2E_TMP/subs-done"
[ "$ops_in" = 0 ] ||
	{ cat "$E2E_TMP/sub.err"; mh_dump; fail "the subscriptions were not applied"; }
wait "$sniffer" || { cat "$E2E_TMP/sniff.out"; mh_dump; fail "the attacker saw no frame of the front"; }
cat "$E2E_TMP/sniff.out"
mh_el "subscriptions in"
grep -q "listening" "$E2E_TMP/sub.err" || sleep 1

# 1. one forged frame, next sequence number, the front's own addresses
listen_start one 46666
forge one "${MH_TAG}bm1" "$E2E_TMP/state.json" 198.18.0.2:46666 || fail "forge one"
for i in $(seq 1 50); do
	[ "$(counter m1 peer_auth_fail)" -ge 1 ] && break
	sleep 0.1
done
listen_end one
[ "$heard" = 0 ] || { mh_dump; fail "the forged frame was applied: the attacker got $heard datagrams (ACK, NOTIFYs)"; }
[ "$(counter m1 peer_auth_fail)" = 1 ] || { mh_dump; fail "peer_auth_fail = $(counter m1 peer_auth_fail) after one forged frame, want 1"; }
echo "ok: one forged frame claiming host 1 (seq $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seq"] + 1)' "$E2E_TMP/state.json")): refused (peer_auth_fail = 1), nothing sent to the attacker"

# 2. from another address
forge wrongaddr "${MH_TAG}bm1" "$E2E_TMP/state.json" || fail "forge wrongaddr"
for i in $(seq 1 50); do
	[ "$(counter m1 peer_auth_addr)" -ge 1 ] && break
	sleep 0.1
done
[ "$(counter m1 peer_auth_addr)" = 1 ] || { mh_dump; fail "a frame from 198.18.0.2 claiming host 1 not counted (peer_auth_addr)"; }
echo "ok: the same frame from the attacker's own address: peer_auth_addr = 1"

# wait_counter HOST NAME WANT: until HOST's counter NAME reaches WANT (5 s);
# then it must be WANT exactly
wait_counter() {
	local i v
	for i in $(seq 1 50); do
		v=$(counter "$1" "$2")
		[ "$v" -ge "$3" ] && break
		sleep 0.1
	done
	[ "$v" = "$3" ] || { mh_dump; fail "$1: $2 = $v, want $3 ($4)"; }
}

# 3. signed frames, each with one field wrong
listen_start signed 46670
for c in wrongkey unknownkey wrongport srcepoch dstepoch; do
	forge signed "${MH_TAG}bm1" "$E2E_TMP/state.json" "$MH_KEYS" $c 198.18.0.2:46670 ||
		fail "forge signed $c"
done
wait_counter m1 peer_auth_fail 3 "a random tag, another key, an unknown key id"
wait_counter m1 peer_auth_addr 2 "from the attacker's address, from the front's IP but port 47111"
wait_counter m1 peer_auth_epoch 2 "the front's epoch - 1, host 2's epoch + 1"
listen_end signed
[ "$heard" = 0 ] ||
	{ mh_dump; fail "a signed frame with a wrong key, port or epoch was applied: $heard datagrams to the attacker"; }
echo "ok: signed by another key, under an unknown key id (peer_auth_fail), from port 47111 (peer_auth_addr), naming another epoch of either host (peer_auth_epoch = 2): none applied"

# 4. the front's own frames again
dup0=$(counter m1 peer_dup)
replayed=$(forge replay "${MH_TAG}bm1" "$E2E_TMP/state.json") || fail "forge replay"
[ "$replayed" -ge 8 ] || fail "only $replayed frames to replay"
for i in $(seq 1 50); do
	[ "$(( $(counter m1 peer_dup) - dup0 ))" -ge "$replayed" ] && break
	sleep 0.1
done
dups=$(( $(counter m1 peer_dup) - dup0 ))
[ "$dups" -ge "$replayed" ] || { mh_dump; fail "$replayed authentic frames replayed, peer_dup grew by $dups"; }
echo "ok: $replayed authentic frames of the front replayed: peer_dup + $dups"

# 5. client datagrams to the match host, which serves no client
other0=$(counter m1 udp_other_port)
bad0=$(counter m1 peer_bad)
heard=$(in_cli python3 "$E2E_DIR/peer_forge.py" client "198.18.0.3:$NETNS_PORT" 46672 1)
heard2=$(in_cli python3 "$E2E_DIR/peer_forge.py" client 198.18.0.3:47110 46673 1)
[ "$heard" = 0 ] && [ "$heard2" = 0 ] || fail "host 2 answered a client: $heard, $heard2 datagrams"
[ "$(( $(counter m1 udp_other_port) - other0 ))" = 1 ] ||
	{ mh_dump; fail "a client datagram to host 2's client port not counted (udp_other_port)"; }
[ "$(( $(counter m1 peer_bad) - bad0 ))" = 1 ] ||
	{ mh_dump; fail "a client datagram to host 2's port 47110 not counted (peer_bad)"; }
echo "ok: client datagrams to host 2 (client port: udp_other_port; port 47110: peer_bad): none answered"

# 6. the events, and 20,000 blind frames while they stream
listen_start sweep 46668
forge sniff "${MH_TAG}bfront" "$E2E_TMP/state2.json" "$E2E_TMP/events-done" 90 >"$E2E_TMP/sniff2.out" 2>&1 &
sniffer=$!
netns_track "$sniffer"
# and host 2's frames to the front (acks, or FEEDBACK)
forge sniff "${MH_TAG}bm1" "$E2E_TMP/state3.json" "$E2E_TMP/events-done" 90 2 1 >"$E2E_TMP/sniff3.out" 2>&1 &
sniffer3=$!
netns_track "$sniffer3"
for i in $(seq 1 100); do
	[ -f "$E2E_TMP/state2.json.ready" ] && [ -f "$E2E_TMP/state3.json.ready" ] && break
	sleep 0.1
done
in_cli timeout 60 "$SPATE_BUILD/tools/spate-pub" --conf "$SPATE_CONF" \
	--server "198.18.0.1:$NETNS_PORT" --rate 1000 --quiet "$E2E_TMP/events.tsv" \
	2>"$E2E_TMP/pub.err" &
publisher=$!
kdrops0=$(counter m1 port_kernel_drops)
fails0=$(counter m1 peer_auth_fail)
mh_el "events going"
# In rounds of 5,000 until host 2 has refused 20,000: the kernel's
# af_packet ring drops part of a burst when spated is not running
# (port_kernel_drops, counted; the channel resends real frames), more
# so on a loaded machine. At most 60,000 frames.
t0=$(date +%s%N)
sent=0 fails=0
while [ "$fails" -lt 20000 ] && [ "$sent" -lt 60000 ]; do
	forge sweep "${MH_TAG}bm1" "$E2E_TMP/state.json" 5000 $(( sent + 1 )) || fail "forge sweep"
	sent=$(( sent + 5000 ))
	prev=-1
	for i in $(seq 1 25); do # until host 2 has taken what reached it
		fails=$(( $(counter m1 peer_auth_fail) - fails0 ))
		[ "$fails" = "$prev" ] && break
		prev=$fails
		sleep 0.2
	done
done
t1=$(date +%s%N)
kdrops=$(( $(counter m1 port_kernel_drops) - kdrops0 ))
mh_el "sweep sent"
wait "$publisher" || { cat "$E2E_TMP/pub.err"; fail "spate-pub"; }
touch "$E2E_TMP/events-done"
listen_end sweep
mh_el "events sent"
[ "$fails" -ge 20000 ] && [ "$fails" -le "$sent" ] ||
	{ mh_dump; fail "peer_auth_fail + $fails after $sent blind frames ($kdrops dropped by the kernel)"; }
[ "$heard" = 0 ] || fail "the sweep's frames were answered: $heard datagrams to the attacker"
echo "ok: $sent blind frames in $(( (t1 - t0) / 1000000 )) ms: $fails refused (peer_auth_fail), $kdrops frames dropped by the kernel before spated, none answered"

mh_el "events published"
wait "$subscriber" || { cat "$E2E_TMP/sub.err"; mh_dump; fail "spate-sub"; }
sort "$E2E_TMP/sub.raw" >"$E2E_TMP/got"
if ! cmp -s "$E2E_TMP/want" "$E2E_TMP/got"; then
	diff "$E2E_TMP/want" "$E2E_TMP/got" | head -n 10
	tail -n 2 "$E2E_TMP/sub.err"
	mh_dump
	fail "$want_n notifications expected, $(wc -l <"$E2E_TMP/got") got"
fi
summary=$(tail -n 1 "$E2E_TMP/sub.err")
echo "ok: $want_n notifications identical to brute ($summary)"
case $summary in
*" acks=$n_ops "*) ;;
*) fail "the subscriber's $n_ops operations were not acknowledged once each: $summary" ;;
esac
case $summary in
*" seq_lost=0 seq_late=0 "*) ;;
*) fail "the subscriber saw gaps or reordering in the servers' sequence numbers: $summary" ;;
esac
python3 - "$(mh_stats m1 "$E2E_TMP/m1.log")" "$(mh_stats front "$SPATED_LOG")" <<'PY' || fail "counters"
import json, sys
m1, front = (json.loads(a) for a in sys.argv[1:])
keys = ("peer_auth_fail", "peer_auth_addr", "peer_auth_epoch", "peer_unknown_host", "peer_bad",
        "peer_dup", "peer_stale", "peer_auth_old_key", "cats_visited")
print("  host 2: " + " ".join("%s=%d" % (k, m1.get(k, 0)) for k in keys))
bad = [k for k in ("peer_unknown_host", "peer_stale") if m1.get(k, 0)]
bad += [k for k in ("peer_bad", "peer_auth_epoch") if m1.get(k, 0) != {"peer_bad": 1}.get(k, 2)]
bad += ["front " + k for k in ("peer_auth_fail", "peer_auth_addr", "peer_bad", "peer_auth_epoch") if front.get(k, 0)]
if m1.get("cats_visited", 0) == 0:
    bad.append("host 2 matched nothing")
# the rotation: each took the other's frames under its second key
bad += [n + " peer_auth_old_key = 0" for n, h in (("host 2", m1), ("front", front))
        if h.get("peer_auth_old_key", 0) == 0]
if bad:
    print("  WRONG: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY

# the other way: one frame claiming host 2, to the front
wait "$sniffer3" || { cat "$E2E_TMP/sniff3.out"; mh_dump; fail "the attacker saw no frame of host 2 while the events went"; }
listen_start front 46676
forge one "${MH_TAG}bfront" "$E2E_TMP/state3.json" 198.18.0.2:46676 || fail "forge one (to the front)"
wait_counter front peer_auth_fail 1 "one forged frame claiming host 2"
listen_end front
[ "$heard" = 0 ] || fail "the front answered a forged frame: $heard datagrams"
echo "ok: one forged frame claiming host 2, to the front: peer_auth_fail = 1 there, nothing answered"

# the control: the same frame, every field right
wait "$sniffer" || { cat "$E2E_TMP/sniff2.out"; mh_dump; fail "the attacker saw no frame of the front while the events went"; }
listen_start good 46674
old_key=$(counter m1 peer_auth_old_key)
forge signed "${MH_TAG}bm1" "$E2E_TMP/state2.json" "$MH_KEYS" good 198.18.0.2:46674 || fail "forge signed good"
for i in $(seq 1 50); do # host 2 took it (under its second key)
	[ "$(counter m1 peer_auth_old_key)" -gt "$old_key" ] && break
	sleep 0.1
done
sleep 1 # its ACK on the way
listen_end good
[ "$heard" -ge 1 ] ||
	{ cat "$E2E_TMP/sniff2.out"; mh_dump; fail "the control (signed right by the cluster's key) was not applied: the forged frames are wrong in more than the field each case changes"; }
echo "ok: the control, signed right: applied ($heard datagrams to the attacker)"
for h in m1 front; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done

# 8. a restart of both hosts, then the frames recorded before replayed
mv "$E2E_TMP/m1.log" "$E2E_TMP/m1.log.1"
mv "$SPATED_LOG" "$SPATED_LOG.1"
mh_spated m1 "$E2E_TMP/m1.conf" "$E2E_TMP/m1.log" || fail "match host 2 did not start again"
mh_spated front "$E2E_TMP/front.conf" "$SPATED_LOG" || fail "front did not start again"
for i in $(seq 1 100); do
	grep -q "host 1 (epoch [0-9]*) bound" "$E2E_TMP/m1.log" &&
		grep -q "host 2 (epoch [0-9]*) bound" "$SPATED_LOG" && break
	sleep 0.1
done
grep -h "static peers\|bound" "$E2E_TMP/m1.log" "$SPATED_LOG" | sed 's/^/  /'
[ "$(counter m1 peer_auth_epoch)" = 0 ] || { mh_dump; fail "a clean restart refused frames for their epochs"; }
msgs0=$(counter m1 peer_msgs_in)
n=0
for which in first last; do
	r=$(forge replay "${MH_TAG}bm1" "$E2E_TMP/state.json" $([ $which = first ] && echo first)) ||
		fail "forge replay $which"
	n=$(( n + r ))
done
[ "$n" -ge 16 ] || fail "only $n frames to replay"
wait_counter m1 peer_auth_epoch "$n" "frames of the previous incarnations replayed"
[ "$(counter m1 peer_msgs_in)" = "$msgs0" ] || { mh_dump; fail "replayed frames were delivered"; }
[ "$(counter m1 peer_dup)" = 0 ] || fail "replayed frames reached the channel (peer_dup)"
grep -q "host 1 (epoch [0-9]*) bound" "$E2E_TMP/m1.log" || { mh_dump; fail "host 2 bound no epoch of the front"; }
echo "ok: both hosts restarted, $n frames recorded before replayed: refused (peer_auth_epoch = $n), none delivered"
for h in m1 front; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: multihost-forge"
