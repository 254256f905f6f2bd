#!/bin/bash
# multihost-shed.sh - issue 23, "loss is never silent", across hosts: a
# match host that stops taking work (its matching worker stalled 3 s by
# the test hook) while a publisher streams events through the front.
# Its channel's window fills, the front's backpressure reaches its RX
# ring (small rings here), and the front sheds whole datagrams there.
# Checked:
#  - the front counts what it shed (shed_events > 0) and tells the
#    publisher (NACK OVERLOADED: overload_nacks > 0 at the front,
#    overloaded > 0 in spate-pub's summary); what its port dropped before
#    spated read it is counted there (port_kernel_drops here, imissed on
#    a NIC), and not told (nobody read it);
#  - nothing is lost anywhere else: every event is delivered with all of
#    its matches or with none (the subscriber's notifications against
#    spate-match --engine brute), no notification is added, the events
#    missing are at most the front's shed_events plus its port's drops,
#    host 2 lost no message (msg_no_memory, peer_down_dropped) and the
#    subscriber saw no gap in its sequence numbers.
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"
mh_two_hosts 29 300 20000
mh_conf "$E2E_TMP/front.conf" front 1 198.18.0.1 '{ host = 2; ipv4 = "198.18.0.3"; lcores = 1; }' ||
	fail "front conf"
# the front's rings small, so that a stalled match host fills them fast
sed -i -e 's/^  ring_size = [0-9]*;/  ring_size = 256;/' -e 's/^  backlog_max = [0-9]*;/  backlog_max = 64;/' \
	"$E2E_TMP/front.conf"
grep -q "ring_size = 256;" "$E2E_TMP/front.conf" || fail "could not size the front's rings"
mh_conf "$E2E_TMP/m1.conf" match 2 198.18.0.3 '{ host = 1; ipv4 = "198.18.0.1"; }' "" \
	"debug_hooks = true;" || fail "conf"
SPATED_LOG=$E2E_TMP/front.log
mh_spated m1 "$E2E_TMP/m1.conf" "$E2E_TMP/m1.log" || fail "match host 2 did not start"
mh_spated front "$E2E_TMP/front.conf" "$SPATED_LOG" || fail "front did not start"
mh_el "hosts up"
in_cli() { ip netns exec "$(mh_ns cli)" "$@"; }
counter() { mh_counter "$@"; }
for ip in 198.18.0.1 198.18.0.3; do
	in_cli ping -c 1 -W 2 "$ip" >/dev/null || fail "ping $ip"
done

cat "$E2E_TMP/subs.tsv" "$E2E_TMP/events.tsv" >"$E2E_TMP/ordered.tsv"
"$SPATE_BUILD/tools/spate-match" --engine brute --conf "$SPATE_CONF" "$E2E_TMP/ordered.tsv" \
	2>/dev/null | sort >"$E2E_TMP/want" || fail "spate-match"
want_n=$(wc -l <"$E2E_TMP/want")
[ "$want_n" -gt 10000 ] || fail "only $want_n matches: the test would prove little"

mh_subscriber "$want_n" 6000 140
n_ops=$(wc -l <"$E2E_TMP/subs.tsv")
mh_wait_ops front "$n_ops" ||
	{ cat "$E2E_TMP/sub.err"; mh_dump; fail "the subscriptions were not applied"; }
mh_el "subscriptions in"

# the stall, and the events while it lasts (20,000 at 5,000/s: the
# first 3 s of them meet a host that takes nothing)
"$SPATE_BUILD/tools/spatectl" -p "multihost-$$-m1" debug stall 0 3000 >"$E2E_TMP/stall.out" 2>&1 ||
	{ cat "$E2E_TMP/stall.out"; fail "spatectl debug stall on host 2"; }
in_cli timeout 100 "$SPATE_BUILD/tools/spate-pub" --conf "$SPATE_CONF" \
	--server "198.18.0.1:$NETNS_PORT" --rate 5000 "$E2E_TMP/events.tsv" 2>"$E2E_TMP/pub.err"
pub_rc=$?
mh_el "events sent (spate-pub status $pub_rc)"
wait "$subscriber" || { tail -n 3 "$E2E_TMP/sub.err"; mh_dump; fail "spate-sub"; }
mh_el "subscriber done"
pub_summary=$(grep ' overloaded=' "$E2E_TMP/pub.err" | tail -n 1)
grep -i 'overloaded' "$E2E_TMP/pub.err" | grep -v ' overloaded=' | head -n 2
sub_summary=$(tail -n 1 "$E2E_TMP/sub.err")
echo "  publisher: $pub_summary"
echo "  subscriber: $sub_summary"
sort "$E2E_TMP/sub.raw" >"$E2E_TMP/got"
python3 - "$E2E_TMP/want" "$E2E_TMP/got" "$(mh_stats front "$SPATED_LOG")" \
	"$(mh_stats m1 "$E2E_TMP/m1.log")" "$pub_summary" "$sub_summary" "$pub_rc" <<'PY' || fail "conservation"
import collections, json, re, sys
want_f, got_f, front_j, m1_j, pub, sub, pub_rc = sys.argv[1:]
front, m1 = json.loads(front_j), json.loads(m1_j)
def pairs(path):
    return [tuple(line.split()) for line in open(path) if line.strip()]
want, got = pairs(want_f), pairs(got_f)
bad = []
extra = set(got) - set(want)
if extra or len(got) != len(set(got)):
    bad.append("%d notifications not in the reference, %d duplicates" % (len(extra), len(got) - len(set(got))))
per_want, per_got = collections.Counter(e for e, _ in want), collections.Counter(e for e, _ in got)
partial = [e for e in per_got if per_got[e] != per_want[e]]
if partial:
    bad.append("%d events delivered with part of their matches (e.g. %s: %d of %d)"
               % (len(partial), partial[0], per_got[partial[0]], per_want[partial[0]]))
missing = [e for e in per_want if per_got[e] == 0]
shed, nacks = front.get("shed_events", 0), front.get("overload_nacks", 0)
# datagrams lost before spated read them: the kernel's af_packet ring
# here, the NIC's imissed/rx_nombuf on hardware (one event a datagram)
port = sum(front.get(k, 0) for k in ("port_kernel_drops", "port_imissed", "port_rx_nombuf"))
if " datagrams=20000 " not in pub or " events=20000 " not in pub:
    bad.append("spate-pub did not send one event a datagram: " + pub)
m = re.search(r"\boverloaded=(\d+)", pub)
told = int(m.group(1)) if m else -1
print("  %d of %d events with matches delivered, %d missing (%d matches); front shed_events=%d "
      "overload_nacks=%d, dropped before it read them %d; the publisher heard overloaded=%d "
      "(status %s)" % (len(per_want) - len(missing), len(per_want), len(missing),
                       len(want) - len(got), shed, nacks, port, told, pub_rc))
if shed == 0:
    bad.append("the front shed nothing: the stall did not reach its RX (the test proves nothing)")
if len(missing) > shed + port:
    bad.append("%d events missing but only %d shed and %d dropped at the port counted: a loss "
               "nobody counted" % (len(missing), shed, port))
if shed and (nacks == 0 or told <= 0 or pub_rc != "1"):
    bad.append("events shed but the publisher was not told (overload_nacks=%d, overloaded=%d, "
               "status %s)" % (nacks, told, pub_rc))
for k in ("msg_no_memory", "peer_down_dropped", "feedback_lost"):
    if m1.get(k, 0) or front.get(k, 0):
        bad.append("%s: front %d, host 2 %d" % (k, front.get(k, 0), m1.get(k, 0)))
if " seq_lost=0 " not in " " + sub + " ":
    bad.append("the subscriber saw a gap in its sequence numbers")
if bad:
    print("  WRONG: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
for h in m1 front; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: multihost-shed"
