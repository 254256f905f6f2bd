#!/bin/bash
# realdata.sh - issue 17's workload as a user runs it: a real-data stream
# (tools/airports-stream.py on ../shared/data/airports.tsv: standing
# subscriptions around real airports, a fifth with a numeric constraint,
# then events at airports, more than 5 notifications an event) replayed by
# spate-replay at its default rate against spated with the shipped
# configuration (conf/demo.conf, everything derived from its defaults):
#  1. one lcore: exactly spate-match --engine brute's notifications;
#  2. the multi-lcore layout of docs/operations.md ("Choosing lcores",
#     its seven lcores on this machine's CPUs): exactly the same;
#  3. conservation under overload (the matching worker stalled by the
#     test hook while an unpaced publisher streams): every datagram the
#     client sent is one spated counted or a drop counted somewhere
#     (spated's shed at its door, the af_packet kernel ring, the client
#     host's veth), every event it published is matched or counted shed,
#     the publisher was told OVERLOADED and backed off, and every
#     datagram spated sent back arrived or is a drop the client counted.
# The stream is smaller under ASan (ASAN_OPTIONS set by run-tests.sh),
# still checked for exactness.
. "$(dirname "$0")/common.sh"

data=${SPATE_AIRPORTS:-$SPATE_SRC/../shared/data/airports.tsv}
if [ ! -r "$data" ]; then
	[ "${CI:-}" = true ] && fail "no $data (the real data must be there under CI)"
	echo "SKIP: no $data"
	exit 77
fi
subs=5000 events=40000
if [ -n "${ASAN_OPTIONS:-}" ]; then
	# 5.2 notifications an event (2,000: 4.5). ASan and UBSan make spated
	# several times slower: on a loaded 2-core machine it cannot keep the
	# default 20,000 events/s and its af_packet ring drops (counted); the
	# regular build checks the default rate, this one exactness at 5,000.
	subs=4000 events=10000
	export E2E_REPLAY_ARGS="--rate 5000"
fi
# A subscription's answer may wait for a descheduled lcore: on the shared
# 2-CPU test machine perf saw spated without a CPU for up to 1.8 s, and
# once, on the seven-lcore layout, no answer came within the client's
# default 11 tries of 200 ms. 50 retries (10 s) an operation; exactness
# and the loss counters are checked as before.
export E2E_REPLAY_ARGS="--retries 50${E2E_REPLAY_ARGS:+ $E2E_REPLAY_ARGS}"
# half-width of the rectangles: about 7 notifications an event at 5,000
# subscriptions (the issue's stream: 20,000 and 2 degrees)
extent=$(python3 -c "import sys; print(round(2 * (20000 / int(sys.argv[1])) ** 0.5, 2))" "$subs")
python3 "$SPATE_SRC/tools/airports-stream.py" "$data" --order subs-first --sub-count "$subs" \
	--events "$events" --max-extent "$extent" --seed 17 >"$E2E_TMP/real.tsv" || fail "airports-stream.py"
"$SPATE_BUILD/tools/spate-match" --engine brute --conf "$SPATE_CONF" "$E2E_TMP/real.tsv" \
	2>/dev/null | sort >"$E2E_TMP/real.expected" || fail "spate-match"
n_exp=$(wc -l <"$E2E_TMP/real.expected")
per_event=$(python3 -c "import sys; print(round(int(sys.argv[1]) / int(sys.argv[2]), 2))" "$n_exp" "$events")
python3 -c "import sys; sys.exit(float(sys.argv[1]) < 5)" "$per_event" ||
	fail "the stream has $per_event notifications an event, fewer than 5"
echo "stream: $subs subscriptions, $events events, $n_exp notifications ($per_event an event)"

# check_losses NAME: spated's counters of drops are all 0 after an exact run
check_losses() {
	local stats
	stats=$(netns_spated_stats) || fail "$1: no counters"
	python3 - "$1" "$stats" <<'PY' || fail "$1: losses counted"
import json, sys
name, c = sys.argv[1], json.loads(sys.argv[2])
keys = ("ring_full_rx", "shed_events", "backpressure", "port_kernel_drops", "port_imissed",
        "port_rx_nombuf", "port_oerrors", "ring_full_tx", "tx_drops", "no_mbuf", "msg_no_memory")
bad = {k: c[k] for k in keys if c.get(k)}
print("  %s: events=%d notifications=%d notify_dgrams=%d tx=%d; drops: %s" % (
    name, c["events"], c["notifications"], c["notify_dgrams"], c["tx"], bad or "none"))
sys.exit(1 if bad else 0)
PY
}

# 1. One lcore: the shipped configuration as it is.
e2e_start
e2e_replay_check "$E2E_TMP/real.tsv" realdata-one-lcore
check_losses "one lcore"
netns_spated_stop || fail "spated did not exit cleanly"

# 2. The multi-lcore layout of docs/operations.md, on this machine's CPUs.
cpus=$(nproc)
map=""
for l in 0 1 2 3 4 5 6; do
	map="$map${map:+,}$l@$((l % cpus))"
done
export NETNS_EAL_LCORES="--lcores=$map" NETNS_VDEV_EXTRA=",qpairs=2"
SPATE_CONF=$E2E_TMP/multi.conf
e2e_conf "$SPATE_CONF" "rx = [ 1, 2 ]; tx = 1; cluster = 3; match = [ 4, 5, 6 ];"
netns_spated_start "$SPATED_LOG" -c "$SPATE_CONF" || fail "multi-lcore: spated did not start"
e2e_replay_check "$E2E_TMP/real.tsv" realdata-multi-lcore
check_losses "multi-lcore"
netns_spated_stop || fail "spated did not exit cleanly"

# 3. Conservation under overload: one RX lcore apart from the matching
# worker, which the test hook stalls while an unpaced publisher streams;
# the rings and the backlog set small by hand (the derived ones hold the
# whole stall: part of what this test is about, but no overload).
unset NETNS_VDEV_EXTRA
export NETNS_EAL_LCORES="--lcores=0@0,1@$((1 % cpus))"
sock=$E2E_TMP/ctl.sock
SPATE_CONF=$E2E_TMP/overload.conf
e2e_conf "$SPATE_CONF" "rx = 0; tx = 0; cluster = 0; match = [ 1 ];"
ring=1024 backlog=1024
# the ASan stream (1,410 datagrams) would fit in those: smaller ones
[ -n "${ASAN_OPTIONS:-}" ] && ring=256 backlog=64
sed -i -e "s/^spated: {/spated: {\n  debug_hooks = true;/" -e "s/^  ring_size = 0;/  ring_size = $ring;/" \
	-e "s/^  backlog_max = 0;/  backlog_max = $backlog;/" "$SPATE_CONF"
grep -q "ring_size = $ring;" "$SPATE_CONF" && grep -q "backlog_max = $backlog;" "$SPATE_CONF" ||
	fail "could not size the rings in $SPATE_CONF"
echo "control: { socket = \"$sock\"; };" >>"$SPATE_CONF"
netns_spated_start "$SPATED_LOG" -c "$SPATE_CONF" || fail "overload: spated did not start"
grep -v '^event' "$E2E_TMP/real.tsv" >"$E2E_TMP/real.subs"
grep '^event' "$E2E_TMP/real.tsv" >"$E2E_TMP/real.events"
cli="$SPATE_BUILD/tools/spate-replay --conf $SPATE_CONF --server $NETNS_SRV_IP:$NETNS_PORT --client-id 4242 --local $NETNS_CLI_IP:47301"
netns_cli timeout 120 $cli --stream "$E2E_TMP/real.subs" --out /dev/null 2>"$E2E_TMP/subs.err" ||
	{ cat "$E2E_TMP/subs.err"; fail "overload: subscriptions"; }
a=$(netns_spated_stats) || fail "overload: no counters"
# what the client's veth delivered and dropped (frames: datagrams, ARP)
veth_stats() {
	netns_cli cat "/sys/class/net/$NETNS_CLI_IF/statistics/tx_packets" \
		"/sys/class/net/$NETNS_CLI_IF/statistics/tx_dropped" | paste -sd' '
}
veth0=$(veth_stats)
"$SPATE_BUILD/tools/spatectl" -s "$sock" debug stall 0 1500 >/dev/null || fail "debug stall"
netns_cli timeout 120 $cli --stream "$E2E_TMP/real.events" --out "$E2E_TMP/over.got" --rate 0 \
	--idle-ms 2000 2>"$E2E_TMP/over.err"
tail -n 3 "$E2E_TMP/over.err" | sed 's/^/  /'
b=$(netns_spated_stats) || fail "overload: no counters"
veth1=$(veth_stats)
python3 - "$a" "$b" "$(grep -- '^spate-replay: .*events=' "$E2E_TMP/over.err" | tail -n 1)" \
	"$(grep -- '^spate-replay: .*events=' "$E2E_TMP/subs.err" | tail -n 1)" \
	"$veth0" "$veth1" "$(wc -l <"$E2E_TMP/over.got")" <<'PY' || fail "overload: conservation"
import json, re, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
cl = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)(?:\s|$)", sys.argv[3])}
v0, v1 = [int(x) for x in sys.argv[5].split()], [int(x) for x in sys.argv[6].split()]
veth_frames, veth_drops = v1[0] - v0[0], v1[1] - v0[1]
got = int(sys.argv[7])
d = lambda k: b.get(k, 0) - a.get(k, 0)
sent = cl["datagrams"]  # the events' datagrams (no sub op in this phase)
door = d("ring_full_rx")
kern = d("port_kernel_drops")
# frames the client host sent beside our datagrams (its ARP), one of which
# may be among the frames dropped unread
other = veth_frames + veth_drops - sent
print("  client sent %d datagrams, %d events (and %d other frames); spated read %d, shed %d "
      "(%d events), af_packet ring dropped %d, client veth dropped %d" % (
          sent, cl["events"], other, d("dgrams"), door, d("shed_events"), kern, veth_drops))
print("  spated: events %d, OVERLOADED notices %d; client: overloaded %d, backoffs %d" % (
    d("events"), d("overload_nacks"), cl["overloaded"], cl["backoffs"]))
bad = []
if d("port_kernel_packets") != veth_frames:
    bad.append("frames: the client's veth delivered %d, spated's kernel ring was offered %d" % (
        veth_frames, d("port_kernel_packets")))
excess = d("dgrams") + door + kern + veth_drops - sent
if not 0 <= excess <= other:
    bad.append("datagrams: %d sent != %d read + %d shed + %d kernel ring + %d veth (%d other frames)" % (
        sent, d("dgrams"), door, kern, veth_drops, other))
if door == 0:
    bad.append("nothing was shed at spated's door: no overload to check")
lost_events = cl["events"] - d("events") - d("shed_events")
if kern + veth_drops == 0 and lost_events != 0:
    bad.append("events: %d published != %d matched + %d shed" % (
        cl["events"], d("events"), d("shed_events")))
if lost_events < 0 or lost_events > 64 * (kern + veth_drops):
    bad.append("events: %d unaccounted for, beyond what %d dropped datagrams carry" % (
        lost_events, kern + veth_drops))
if d("overload_nacks") == 0 or cl["overloaded"] == 0 or cl["backoffs"] == 0:
    bad.append("no OVERLOADED notice, or the publisher did not back off")
# what spated sent the client: received, or lost where the client counts it
back = d("notify_dgrams") + d("overload_nacks") + d("acks") + d("nacks")
if cl["notify_datagrams"] + cl["overloaded"] + cl["seq_lost"] != back:
    bad.append("spated sent %d datagrams back, the client got %d + %d OVERLOADED and counts %d lost" % (
        back, cl["notify_datagrams"], cl["overloaded"], cl["seq_lost"]))
if cl["kernel_drops"] > cl["seq_lost"]:
    bad.append("the client's kernel dropped %d, more than the %d gaps" % (
        cl["kernel_drops"], cl["seq_lost"]))
if cl["notifications"] != got or d("notifications") < got:
    bad.append("notifications: spated %d, client %d, written %d" % (
        d("notifications"), cl["notifications"], got))
for m in bad:
    print("  WRONG: " + m)
sys.exit(1 if bad else 0)
PY
# The port's figures, the same on every surface: the counters line (with
# the kernel ring's: every frame it was offered was read or dropped),
# spatectl and DPDK telemetry.
sleep 0.3 # past the housekeeping's refresh (10 a second)
c=$(netns_spated_stats) || fail "no counters"
"$SPATE_BUILD/tools/spatectl" -s "$sock" --json show stats >"$E2E_TMP/ctl.json" || fail "spatectl show stats"
echo /spate/port | timeout 20 python3 "$(command -v dpdk-telemetry.py)" -f "spate-$$-$_netns_n" \
	>"$E2E_TMP/tel.out" 2>&1 || { cat "$E2E_TMP/tel.out"; fail "dpdk-telemetry.py /spate/port"; }
python3 - "$c" "$E2E_TMP/ctl.json" "$E2E_TMP/tel.out" <<'PY' || fail "port figures"
import json, sys
c = json.loads(sys.argv[1])
ctl = json.load(open(sys.argv[2]))
tel = [json.loads(l) for l in open(sys.argv[3]) if l.startswith("{")]
tel = [t["/spate/port"] for t in tel if "/spate/port" in t][0]
bad = []
if c["port_kernel_packets"] != c["port_ipackets"] + c["port_kernel_drops"]:
    bad.append("kernel ring: %d offered != %d read + %d dropped" % (
        c["port_kernel_packets"], c["port_ipackets"], c["port_kernel_drops"]))
if c["port_ipackets"] != c["rx"] or c["port_opackets"] != c["tx"]:
    bad.append("port ipackets/opackets %d/%d, spated rx/tx %d/%d" % (
        c["port_ipackets"], c["port_opackets"], c["rx"], c["tx"]))
if c["port_xstats"].get("p0_rx_good_packets") != c["port_ipackets"]:
    bad.append("counters line port_xstats: %r" % c["port_xstats"])
# read one after the other: a frame or two (the client's ARP) may come between
near = lambda v, ref: ref <= v <= ref + 2
for k in ("port_ipackets", "port_kernel_packets", "port_opackets"):
    if not near(ctl["total"][k], c[k]) or not near(tel[k], c[k]):
        bad.append("%s: counters line %d, spatectl %d, telemetry %d" % (k, c[k], ctl["total"][k], tel[k]))
if not near(ctl["port_xstats"].get("p0_rx_good_packets", -1), c["port_ipackets"]) or \
   not near(tel.get("p0_rx_good_packets", -1), c["port_ipackets"]):
    bad.append("xstats: spatectl %r, telemetry %r" % (ctl["port_xstats"], tel))
print("  port: %d frames read, %d dropped by the kernel ring, %d sent; the same in spatectl and telemetry"
      % (c["port_ipackets"], c["port_kernel_drops"], c["port_opackets"]))
for m in bad:
    print("  WRONG: " + m)
sys.exit(1 if bad else 0)
PY
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: realdata"
