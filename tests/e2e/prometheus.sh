#!/bin/bash
# prometheus.sh - the metrics endpoint (metrics.listen) against Debian's
# own Prometheus server: spated serves in its namespace, `promtool check
# metrics` finds nothing to say about the page, a real prometheus
# (scraping every second, OpenMetrics) sees spated up, and queries
# through its HTTP API return what spatectl shows: events received,
# subscriptions, categories per worker, the latency histogram's counts
# and a quantile in the same bucket, the version. Waits on conditions.
. "$(dirname "$0")/common.sh"

need() { # a program the test cannot do without: fails under CI, else skips
	command -v "$1" >/dev/null && return 0
	[ "${CI:-}" = true ] && fail "$1 not installed (tools/install-deps.sh)"
	echo "SKIP: $1 not installed (tools/install-deps.sh)"
	exit 77
}
need prometheus
need promtool
for b in spate-probe spate-sub spatectl; do
	[ -x "$SPATE_BUILD/tools/$b" ] || fail "$b not built"
done
sock=$E2E_TMP/ctl.sock
conf=$E2E_TMP/spated.conf
cp "$SPATE_CONF" "$conf"
cat >>"$conf" <<CONF
control: { socket = "$sock"; };
metrics: { listen = "127.0.0.1:9180"; };
CONF
ctl() { "$SPATE_BUILD/tools/spatectl" -s "$sock" --json "$@"; }
netns_create || fail "cannot create the namespaces"
netns_spated_start "$SPATED_LOG" -c "$conf" || fail "spated did not start"

# GET URL [ACCEPT] inside the server namespace (where 127.0.0.1:9180 is spated's)
get() {
	netns_srv python3 - "$@" <<'PY'
import sys, urllib.request
req = urllib.request.Request(sys.argv[1])
if len(sys.argv) > 2:
    req.add_header("Accept", sys.argv[2])
with urllib.request.urlopen(req, timeout=10) as r:
    sys.stdout.write("%s\n%s" % (r.headers["Content-Type"], r.read().decode()))
PY
}

# Traffic: 300 probed round trips, then 4 subscriptions kept.
netns_cli timeout 60 "$SPATE_BUILD/tools/spate-probe" --server "$NETNS_SRV_IP:$NETNS_PORT" \
	--count 300 --warmup 20 >/dev/null || fail "spate-probe"
printf 'sub\t%d\t%d\t10\t%d.5\t10.5\tk\n' 1 1 1 2 2 2 3 3 3 4 40 40 >"$E2E_TMP/subs.tsv"
netns_cli timeout 30 "$SPATE_BUILD/tools/spate-sub" --server "$NETNS_SRV_IP:$NETNS_PORT" \
	--duration 0.2 --out /dev/null "$E2E_TMP/subs.tsv" 2>"$E2E_TMP/sub.err" ||
	{ cat "$E2E_TMP/sub.err"; fail "spate-sub"; }

get http://127.0.0.1:9180/metrics >"$E2E_TMP/page.txt" || fail "GET /metrics"
head -n 1 "$E2E_TMP/page.txt" | grep -q '^text/plain; version=0.0.4' ||
	fail "content type: $(head -n 1 "$E2E_TMP/page.txt")"
tail -n +2 "$E2E_TMP/page.txt" >"$E2E_TMP/metrics.txt"
promtool check metrics <"$E2E_TMP/metrics.txt" >"$E2E_TMP/promtool.out" 2>&1 ||
	{ head -20 "$E2E_TMP/promtool.out"; fail "promtool check metrics"; }
[ -s "$E2E_TMP/promtool.out" ] && { head -20 "$E2E_TMP/promtool.out"; fail "promtool lint"; }
echo "ok: promtool check metrics: $(grep -vc '^#' "$E2E_TMP/metrics.txt") samples, clean"
get http://127.0.0.1:9180/metrics 'application/openmetrics-text;version=1.0.0' >"$E2E_TMP/om.txt" ||
	fail "GET /metrics (OpenMetrics)"
head -n 1 "$E2E_TMP/om.txt" | grep -q '^application/openmetrics-text; version=1.0.0' ||
	fail "OpenMetrics content type: $(head -n 1 "$E2E_TMP/om.txt")"
[ "$(tail -n 1 "$E2E_TMP/om.txt")" = "# EOF" ] || fail "OpenMetrics page without # EOF"
get http://127.0.0.1:9180/nothing >/dev/null 2>&1 && fail "GET /nothing answered"

# Debian's prometheus, in spated's namespace, its data in our scratch directory.
cat >"$E2E_TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: spated
    static_configs:
      - targets: ["127.0.0.1:9180"]
YML
netns_srv prometheus --config.file="$E2E_TMP/prometheus.yml" --storage.tsdb.path="$E2E_TMP/tsdb" \
	--web.listen-address=127.0.0.1:9090 >"$E2E_TMP/prometheus.log" 2>&1 &
netns_track $!

# One process asks both sides (python's start-up is slow on a loaded
# machine): spatectl's figures, then prometheus's through its HTTP API,
# until they agree (60 s at most).
netns_srv python3 - "$SPATE_BUILD/tools/spatectl" "$sock" "$SPATE_SRC/tools/grafana/spate.json" \
	"$E2E_TMP/metrics.txt" <<'PY' || { tail -5 "$E2E_TMP/prometheus.log"; fail "prometheus against spatectl"; }
import json, re, subprocess, sys, time, urllib.parse, urllib.request
spatectl, sock, dashboard, page = sys.argv[1:5]

def ctl(*words):
    return json.loads(subprocess.check_output([spatectl, "-s", sock, "--json", *words]))

def query_all(expr):
    url = "http://127.0.0.1:9090/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return json.load(r)["data"]["result"]
    except Exception:
        return None

def query(expr):
    res = query_all(expr)
    return float(res[0]["value"][1]) if res is not None and len(res) == 1 else None

def wait_for(want, what):
    end = time.time() + 60
    while True:
        got = {e: query(e) for e in want}
        if all(got[e] == want[e] for e in want):
            return
        if time.time() > end:
            sys.exit("%s: prometheus %s, spatectl %s" % (what, got, want))
        time.sleep(0.5)

wait_for({'up{job="spated"}': 1}, "scrape")
print("ok: prometheus scrapes spated (OpenMetrics)")
stats, subs = ctl("show", "stats"), ctl("show", "subs", "--count")
place, lat, ver = ctl("show", "placement"), ctl("show", "latency"), ctl("show", "version")
tx = lat["rx_to_tx"]
assert subs["count"] == 4 and stats["total"]["events"] >= 320 and tx["count"] >= 320, (subs, tx)
want = {
    "sum(spate_events_received_total)": stats["total"]["events"],
    "spate_subscriptions": subs["count"],
    "sum(spate_categories)": sum(w["categories"] for w in place["workers"]),
    'spate_latency_seconds_count{stage="rx_to_tx"}': tx["count"],
    'spate_latency_seconds_count{stage="rx_to_matched"}': lat["rx_to_matched"]["count"],
    'count(spate_build_info{version="%s"})' % ver["version"]: 1,
}
wait_for(want, "figures")
print("ok: prometheus = spatectl:", ", ".join("%s %g" % kv for kv in want.items()))
# the median from the buckets (interpolated) lies in the 1-2-5 bucket
# that holds spatectl's
p50 = query('histogram_quantile(0.5, spate_latency_seconds_bucket{stage="rx_to_tx"})') * 1e6
edges = [0] + [m * 10 ** e for e in range(0, 6) for m in (1, 2, 5)]
lo = max(x for x in edges if x < tx["p50_us"] / (17 / 16))
hi = min(x for x in edges if x >= tx["p50_us"])
assert lo <= p50 <= hi, (p50, tx["p50_us"], lo, hi)
print("ok: histogram_quantile(0.5) %.1f us, spatectl p50 %.1f us (bucket %g-%g)" % (p50, tx["p50_us"], lo, hi))

# The Grafana dashboard: every metric it names is on the page, every
# query is valid PromQL to this prometheus, the main panels have data.
# (rates want two scrapes at least)
end = time.time() + 30
while (query('count_over_time(up{job="spated"}[1m])') or 0) < 3 and time.time() < end:
    time.sleep(0.5)
names = set(re.findall(r"^([a-z_:][a-z0-9_:]*)[{ ]", open(page).read(), re.M))
exprs = [t["expr"] for p in json.load(open(dashboard))["panels"] for t in p["targets"]]
empty = []
for e in exprs:
    for m in re.findall(r"\bspate_[a-z0-9_]+", e):
        assert m in names, "dashboard names %s, not on the page" % m
    q = e.replace("$job", "spated").replace("$instance", ".*").replace("$__rate_interval", "1m")
    res = query_all(q)
    assert res is not None, "dashboard query refused: %s" % q
    if not res:
        empty.append(e)
for must in ("spate_events_received_total", 'stage="rx_to_tx"', "spate_categories", "spate_subscriptions{"):
    assert not [e for e in empty if must in e], (must, empty)
print("ok: dashboard: %d queries valid, %d with data now" % (len(exprs), len(exprs) - len(empty)))
PY
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: prometheus"
