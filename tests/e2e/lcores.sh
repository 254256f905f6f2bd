#!/bin/bash
# lcores.sh - the pipeline on several lcores: for 1, 2 and 3 matching
# workers (and three workers on two lcores), replaying interleaved
# subscribe/unsubscribe/event streams gives exactly spate-match --engine
# brute's matches, and nothing is lost on the way (rings, pools).
# Five EAL lcores share the machine's CPUs (--lcores=N@CPU).
. "$(dirname "$0")/common.sh"

python3 "$E2E_DIR/gen-stream.py" --seed 7 --subs 600 --events 3000 >"$E2E_TMP/gen.tsv" ||
	fail "gen-stream.py"
cpus=$(nproc)
map=""
for l in 0 1 2 3 4; do
	map="$map${map:+,}$l@$((l % cpus))"
done
export NETNS_EAL_LCORES="--lcores=$map"

netns_create || fail "cannot create the namespaces"
# layout: "name|lcores group"
for layout in \
	"1 worker|rx = 0; tx = 0; cluster = 0; match = [ 1 ];" \
	"2 workers|rx = 0; tx = 0; cluster = 1; match = [ 2, 3 ];" \
	"3 workers|rx = 0; tx = 1; cluster = 1; match = [ 2, 3, 4 ];" \
	"3 workers on 2 lcores|rx = 0; tx = 0; cluster = 0; match = [ 1, 2, 1 ];"; do
	name=${layout%%|*}
	SPATE_CONF=$E2E_TMP/spated-${name// /-}.conf
	e2e_conf "$SPATE_CONF" "${layout#*|}" "route_cell = 2;"
	netns_spated_start "$SPATED_LOG" -c "$SPATE_CONF" || fail "$name: spated did not start"
	e2e_replay_check "$E2E_DIR/data/interleaved.tsv" "interleaved-${name// /-}"
	e2e_restart
	e2e_replay_check "$E2E_TMP/gen.tsv" "generated-${name// /-}"
	stats=$(netns_spated_stats) || fail "$name: no counters"
	for c in ring_full_rx ring_full_tx tx_drops no_mbuf msg_no_memory cat_unknown no_neighbour; do
		[ "$(e2e_counter "$stats" "$c")" -eq 0 ] || fail "$name: counter $c is not 0"
	done
	# every matching worker had work: the categories are spread
	python3 - "$stats" "${layout#*|}" <<'PY' || fail "$name: per-lcore counters"
import json, re, sys
st = json.loads(sys.argv[1])
lcores = sorted(set(int(x) for x in re.search(r"match = \[([^]]*)\]", sys.argv[2]).group(1).split(",")))
for l in lcores:
    v = st["lcores"].get(str(l), {}).get("cats_visited", 0)
    print("  lcore %d: cats_visited %d" % (l, v))
    if v == 0:
        sys.exit(1)
PY
	netns_spated_stop || fail "$name: spated did not exit cleanly"
	echo "ok: $name"
done

# Two RX queues (af_packet qpairs, spread by flow hash), an RX lcore each:
# exact as above, and datagrams from 16 client ports reach both queues.
name="2 RX queues"
SPATE_CONF=$E2E_TMP/spated-rxq.conf
e2e_conf "$SPATE_CONF" "rx = [ 0, 1 ]; tx = 0; cluster = 2; match = [ 3, 4 ];" "route_cell = 2;"
export NETNS_VDEV_EXTRA=",qpairs=2"
netns_spated_start "$SPATED_LOG" -c "$SPATE_CONF" || fail "$name: spated did not start"
e2e_replay_check "$E2E_DIR/data/interleaved.tsv" "interleaved-rxq"
e2e_restart
e2e_replay_check "$E2E_TMP/gen.tsv" "generated-rxq"
netns_cli timeout 60 python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
from spatecli import Client, sub_del
for i in range(16):
    c = Client(100 + i)
    for k in range(5):
        got = c.request([sub_del(999999)], timeout=2.0)
        if got:
            break
    if not got or got[0][1] != 17:
        print("FAIL: client port %d: %s" % (c.port, got)); sys.exit(1)
print("ok: 16 client ports answered (UNKNOWN_ID)")
' "$E2E_DIR" || fail "$name: 16 client ports"
stats=$(netns_spated_stats) || fail "$name: no counters"
python3 - "$stats" <<'PY' || fail "$name: both RX lcores received frames"
import json, sys
st = json.loads(sys.argv[1])
rx = [st["lcores"].get(str(l), {}).get("rx", 0) for l in (0, 1)]
print("  rx frames per RX lcore: %s" % rx)
sys.exit(0 if min(rx) > 0 else 1)
PY
for c in ring_full_rx ring_full_tx tx_drops no_mbuf msg_no_memory cat_unknown; do
	[ "$(e2e_counter "$stats" "$c")" -eq 0 ] || fail "$name: counter $c is not 0"
done
netns_spated_stop || fail "$name: spated did not exit cleanly"
unset NETNS_VDEV_EXTRA
echo "ok: $name"
echo "ok: lcores"
