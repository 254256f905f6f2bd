#!/bin/bash
# multihost-link-down.sh - issue 23: one match host's data link down
# while its ZooKeeper link stays up. The deployment of ha-net.sh (2
# fronts, 3 match hosts, ZooKeeper on a management bridge of its own);
# HA_FAULT_S seconds into the stream the bridge side of m5's data veth
# goes down for LINK_DOWN_S (30) seconds (its management veth stays up):
# a cable pulled on the data NIC.
#   - Every host hearing a majority finds m5 silent within peer_dead_ms,
#     the fronts rebuild its categories on m3 and m4 at once and ask
#     ZooKeeper to fence it; m5, which hears nobody, judges nobody.
#   - m5 still reaches ZooKeeper, finds its member node deleted and
#     stops (status 3): fenced, it cannot answer for anything. The test
#     restarts it at once, as systemd's Restart=always would: a new,
#     empty incarnation that nobody hears, so it is not used (nor
#     fenced) while the link is down.
#   - The link comes back: the fronts hear the new m5 and balancing
#     gives it work within seconds (a load period ends a second after
#     it is back) while events stream.
# Checked against brute over the whole stream: every match of an event
# sent more than 1 s after the link went down arrives exactly once
# (through the failover, the fence, the restart and the link's return),
# the ones missing inside the window are counted and printed.
. "$(dirname "$0")/common.sh"
. "$E2E_DIR/multihost-net.sh"
. "$E2E_DIR/multihost-zk.sh"
LINK_DOWN_S=${LINK_DOWN_S:-30}
# the stream goes on 8 s after the link is back (250 events a second)
HA_FAULT_S=${HA_FAULT_S:-5}
HA_EVENTS=${HA_EVENTS:-$(( (HA_FAULT_S + LINK_DOWN_S + 8) * ${HA_RATE:-250} ))}
HA_EVENTS_SAN=$HA_EVENTS
. "$E2E_DIR/ha-net.sh"

# m5's data link: the bridge side of its veth (multihost-net.sh)
link() { ip -n "$MH_BR" link set "${MH_TAG}bm5" "$1"; }

ha_run_into_stream "$HA_FAULT_S"
[ "$(ha_counter m5 cats_visited)" -gt 0 ] || fail "m5 matched nothing before its link went down"
t_down=$(date +%s%N)
link down || fail "m5's data link down"
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# fenced through ZooKeeper, m5 stops by itself
gone() { ! kill -0 "${MH_PID[m5]}" 2>/dev/null; }
ha_wait_for gone || { mh_dump; fail "m5 cut off from its peers was not fenced in 30 s"; }
st=0
wait "${MH_PID[m5]}" || st=$?
echo "  m5 stopped $(ms_since "$t_down") ms after its link went down, status $st:" \
	"$(grep -o "this host's member node.*" "$E2E_TMP/m5.log")"
[ "$st" = 3 ] || { tail -n 5 "$E2E_TMP/m5.log"; fail "m5 exited with status $st, want 3 (fenced)"; }
# cut off, it judged nobody (its last counters, printed as it stopped)
python3 - "$(grep '"counters"' "$E2E_TMP/m5.log" | tail -n 1)" <<'PY' || fail "the cut-off m5 judged its peers"
import json, sys
c = json.loads(sys.argv[1])
print("  the cut-off m5: peer_hb_dead=%d zk_fences=%d" % (c["peer_hb_dead"], c["zk_fences"]))
sys.exit(1 if c["peer_hb_dead"] or c["zk_fences"] else 0)
PY
# what a supervisor does: start it again at once, its link still down
ha_start m5
python3 -c "import time; time.sleep(max(0, ($t_down + $LINK_DOWN_S * 1e9 - $(date +%s%N)) / 1e9))"
link up || fail "m5's data link up"
t_up=$(date +%s%N)
echo "  m5's data link down $(( (t_up - t_down) / 1000000 )) ms"
back() { [ "$(ha_counter m5 cats_visited)" -gt 0 ]; }
ha_wait_for back || { mh_dump; fail "m5 got no work back after its link returned"; }
echo "  m5 matching again $(ms_since "$t_up") ms after its link returned"
ha_check "$t_down" 1000
for h in f1 f2 m3 m4; do
	kill -0 "${MH_PID[$h]}" 2>/dev/null || { tail -n 5 "$E2E_TMP/$h.log"; fail "$h exited"; }
done
python3 - "$(mh_stats f1 "$E2E_TMP/f1.log")" "$(mh_stats f2 "$E2E_TMP/f2.log")" \
	"$(mh_stats m3 "$E2E_TMP/m3.log")" "$(mh_stats m4 "$E2E_TMP/m4.log")" \
	"$(mh_stats m5 "$E2E_TMP/m5.log")" "$E2E_DIR" <<'PY' || { mh_dump; fail "counters"; }
import sys
sys.path.insert(0, sys.argv[6])
from mh_counters import host, verdict
bad = []
for h, js in zip(("f1", "f2", "m3", "m4", "m5"), sys.argv[1:6]):
    c, wrong = host(h, js, (
        "peer_hb_dead", "zk_fences", "peer_hosts_down", "peer_hosts_up", "failover_cats",
        "failover_subs", "rebalances_up", "quorum_waits", "link_stalls", "cats_visited"),
        zero=("repl_bad", "msg_no_memory", "peer_bad", "peer_handoff_bad", "takeovers"),
        prefix=h + ": ")
    bad += wrong
    if h.startswith("f"):
        for k in ("zk_fences", "failover_cats", "rebalances_up"):
            if c.get(k, 0) < 1:
                bad.append("%s: %s=0" % (h, k))
    # the old m5 was the only host anybody found dead (the new one is a
    # new incarnation, up when heard)
    if h != "m5" and c.get("peer_hb_dead", 0) != 1:
        bad.append("%s: peer_hb_dead=%d, want 1 (m5)" % (h, c.get("peer_hb_dead", 0)))
sys.exit(verdict(bad))
PY
grep -h "silent\|rebuilt\|fenced\|not heard\|host 5 up" "$E2E_TMP/f1.log" | sed 's/^/  f1: /'
for h in $HA_HOSTS; do
	mh_stop "$h" || fail "$h did not exit cleanly"
done
echo "ok: multihost-link-down: window $(cat "$E2E_TMP/window_ms") ms, m5 fenced, restarted" \
	"and matching again after the link's return"
