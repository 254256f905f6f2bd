#!/bin/bash
# overload.sh - more events than spated can take, with tiny rings and a
# tiny mbuf pool: the overflow is counted (ring_full_rx, backpressure,
# the port's imissed/rx_nombuf, no_mbuf), spated stays up and answers,
# its memory stays flat across floods, and afterwards it still matches
# exactly.
. "$(dirname "$0")/common.sh"

python3 "$E2E_DIR/gen-stream.py" --seed 5 --subs 1500 --events 10 >"$E2E_TMP/subs.tsv" ||
	fail "gen-stream.py"
cpus=$(nproc)
export NETNS_EAL_LCORES="--lcores=0@0,1@$((1 % cpus)),2@0"
# shape NAME RING_SIZE MBUFS: run the floods with these sizes.
#   rings: tiny rings, the RX ring overflows (ring_full_rx, backpressure)
#   pool:  big rings, a tiny pool: the rings hold every mbuf and the port
#          and the notification builders find the pool empty
shape() {
	local name=$1 ring=$2 mbufs=$3
	SPATE_CONF=$E2E_TMP/spated-overload-$name.conf
	e2e_conf "$SPATE_CONF" "rx = 0; tx = 0; cluster = 0; match = [ 1, 2 ];"
	sed -i -e "s/^  mbufs = [0-9]*;/  mbufs = $mbufs;/" -e "s/^  ring_size = [0-9]*;/  ring_size = $ring;/" \
		-e 's/^  backlog_max = [0-9]*;/  backlog_max = 64;/' -e 's/^  msgs = [0-9]*;/  msgs = 2047;/' \
		"$SPATE_CONF"
	grep -q "ring_size = $ring;" "$SPATE_CONF" && grep -q "mbufs = $mbufs;" "$SPATE_CONF" ||
		fail "could not size the rings and pool in the configuration"
	if [ -n "$NETNS_SPATED_PID" ]; then
		e2e_restart
	else
		e2e_start
	fi
	e2e_replay_check "$E2E_TMP/subs.tsv" "overload-$name-subs"
	flood 1
	rss1=$(rss)
	stats1=$(netns_spated_stats) || fail "$name: no counters after the first flood"
	flood 2
	rss2=$(rss)
	stats=$(netns_spated_stats) || fail "$name: no counters after the second flood"
	port=$(grep '"spated":"pipeline"' "$SPATED_LOG" | tail -n 1)
	python3 - "$name" "$stats1" "$stats" "$port" "$rss1" "$rss2" <<'PY' || fail "$name: overload counters"
import json, sys
name = sys.argv[1]
a, b = json.loads(sys.argv[2]), json.loads(sys.argv[3])
port = json.loads(sys.argv[4])["port"]
rss1, rss2 = int(sys.argv[5]), int(sys.argv[6])
keys = ("dgrams", "events", "ring_full_rx", "backpressure", "ring_full_tx", "no_mbuf",
        "msg_no_memory", "tx_drops", "cat_unknown")
print("  %s: " % name + " ".join("%s=%d" % (k, b[k]) for k in keys))
print("  %s: port imissed=%d rx_nombuf=%d; rss %d kB -> %d kB" % (
    name, port["imissed"], port["rx_nombuf"], rss1, rss2))
bad = []
if name == "rings" and b["ring_full_rx"] == 0:
    bad.append("the RX ring never overflowed")
if name == "pool" and b["no_mbuf"] == 0:
    bad.append("the pool never ran dry (no_mbuf == 0)")
if b["msg_no_memory"]:
    bad.append("msg_no_memory: the cluster must hold back, not lose event parts")
if b["cat_unknown"]:
    bad.append("cat_unknown")
# one more flood of the same size must not grow the process (flat memory)
if rss2 - rss1 > 8 * 1024:
    bad.append("memory grew by %d kB over the second flood" % (rss2 - rss1))
if bad:
    print("  WRONG: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY
}

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$NETNS_SPATED_PID/status"; }
flood() {
	netns_cli timeout 60 python3 "$E2E_DIR/flood.py" --count 40000 --seconds 15 --seed "$1" ||
		fail "flood.py"
	sleep 1
	kill -0 "$NETNS_SPATED_PID" 2>/dev/null || fail "spated died under the flood"
}
shape rings 64 1023
shape pool 4096 1023
e2e_ping 2
# and still exact afterwards, with the same tiny rings
e2e_restart
e2e_replay_check "$E2E_DIR/data/interleaved.tsv" overload-after
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: overload"
