#!/bin/bash
# latency.sh - what spated measures inside (latency.h) against what a
# client measures outside (spate-probe, one event at a time): every
# probed event is timed at both stages, exactly once; spated's part of a
# round trip is never more than the round trip (to the histograms' 1/16);
# an event in no category is timed as matched and never as transmitted;
# `show latency --window` shows what came since the last one; telemetry's
# /spate/latency gives the same counts as spatectl.
. "$(dirname "$0")/common.sh"

for b in spate-probe spate-pub spatectl; do
	[ -x "$SPATE_BUILD/tools/$b" ] || fail "$b not built"
done
tel=$(command -v dpdk-telemetry.py) || fail "dpdk-telemetry.py not installed (dpdk-dev)"
sock=$E2E_TMP/ctl.sock
conf=$E2E_TMP/spated.conf
cp "$SPATE_CONF" "$conf"
echo "control: { socket = \"$sock\"; };" >>"$conf"
ctl() { "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }
netns_create || fail "cannot create the namespaces"
netns_spated_start "$SPATED_LOG" -c "$conf" || fail "spated did not start"

# no warm-up: spated's figures and the probe's cover the same events
n=450 w=0
netns_cli timeout 60 "$SPATE_BUILD/tools/spate-probe" --server "$NETNS_SRV_IP:$NETNS_PORT" \
	--count $n --warmup $w --json >"$E2E_TMP/probe.json" || fail "spate-probe"
ctl --json show latency --window >"$E2E_TMP/win1.json" || fail "show latency --window"
python3 - "$E2E_TMP/probe.json" "$E2E_TMP/win1.json" $((n + w)) <<'PY' || fail "latency against the probe"
import json, sys
probe, lat, events = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
m, t = lat["rx_to_matched"], lat["rx_to_tx"]
print("probe:", probe)
print("spated:", lat)
assert probe["lost"] == 0, probe
# every event matched once, every NOTIFY sent once (the ACKs are not timed)
assert m["count"] == events and t["count"] == events, (m["count"], t["count"], events)
slack = 17 / 16  # a histogram bucket's width
for q in ("p50", "p90", "p99", "max"):
    assert m[q + "_us"] <= t[q + "_us"] * slack + 0.1, (q, m, t)
    assert t[q + "_us"] <= probe[q + "_us"] * slack + 0.1, (q, t, probe)
assert 0 < m["p50_us"] and m["mean_us"] <= t["mean_us"]
print("ok: %d events timed; p50 matched %.1f, sent %.1f, round trip %.1f us"
      % (events, m["p50_us"], t["p50_us"], probe["p50_us"]))
PY

# Events in no category: matched (with nothing) in the cluster stage, never sent.
k=25
for i in $(seq 1 $k); do printf 'event\t%d\t10.0\t10.0\tnowhere\n' "$i"; done >"$E2E_TMP/far.tsv"
netns_cli timeout 30 "$SPATE_BUILD/tools/spate-pub" --server "$NETNS_SRV_IP:$NETNS_PORT" \
	--quiet "$E2E_TMP/far.tsv" 2>/dev/null || fail "spate-pub"
end=$((SECONDS + 10))
while [ $SECONDS -lt $end ]; do
	c=$(ctl --json show latency | python3 -c 'import json,sys; print(json.load(sys.stdin)["rx_to_matched"]["count"])')
	[ "$c" -ge $((n + w + k)) ] && break
	sleep 0.2
done
ctl --json show latency --window >"$E2E_TMP/win2.json" || fail "show latency --window"
ctl --json show latency --window >"$E2E_TMP/win3.json" || fail "show latency --window"
ctl --json show latency >"$E2E_TMP/total.json" || fail "show latency"
python3 - "$E2E_TMP/win2.json" "$E2E_TMP/win3.json" "$E2E_TMP/total.json" $k $((n + w)) <<'PY' || fail "windows"
import json, sys
w2, w3, tot = (json.load(open(p)) for p in sys.argv[1:4])
k, events = int(sys.argv[4]), int(sys.argv[5])
assert w2["rx_to_matched"]["count"] == k and w2["rx_to_tx"]["count"] == 0, w2
assert w3["rx_to_matched"]["count"] == 0 and w3["rx_to_tx"]["count"] == 0, w3
assert w3["rx_to_matched"]["p50_us"] == 0, w3
assert tot["rx_to_matched"]["count"] == events + k and tot["rx_to_tx"]["count"] == events, tot
print("ok: %d events in no category timed as matched only; windows" % k)
PY
ctl show latency | grep -q 'p99.9_us' || fail "show latency (text)"

prefix=spate-$$-$_netns_n # netns_spated_start's --file-prefix
echo /spate/latency | timeout 20 python3 "$tel" -f "$prefix" >"$E2E_TMP/tel.out" 2>&1 ||
	{ cat "$E2E_TMP/tel.out"; fail "dpdk-telemetry.py /spate/latency"; }
python3 - "$E2E_TMP/tel.out" "$E2E_TMP/total.json" <<'PY' || { cat "$E2E_TMP/tel.out"; fail "/spate/latency"; }
import json, sys
ans = [json.loads(l) for l in open(sys.argv[1]).read().splitlines() if l.startswith("{")]
d = [a["/spate/latency"] for a in ans if "/spate/latency" in a][0]
tot = json.load(open(sys.argv[2]))
for st in ("rx_to_matched", "rx_to_tx"):
    assert d[st]["count"] == tot[st]["count"], (st, d, tot)
    for q in ("p50", "p90", "p99", "p999", "max"):
        assert q + "_ns" in d[st], (st, q, d)
    assert abs(d[st]["p50_ns"] / 1000 - tot[st]["p50_us"]) <= 0.1, (d, tot)
print("ok: /spate/latency agrees with spatectl")
PY
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: latency"
