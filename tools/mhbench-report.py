#!/usr/bin/env python3
"""mhbench-report.py - the arithmetic and plots of tools/multihost-bench.sh.

Input files hold one line per host, "NAME JSON", NAME "front" or "mI", the
JSON a spated counters line (SIGUSR1). Subcommands:
  line A B [--bench ...]   one JSON line from two snapshots (exit 3 when
                           an error counter moved or nothing was routed)
  series S0 S1 ...         fig7: one line per interval and a summary
  plot-scale|plot-fig5|plot-fig7 DIR   CSV (and PNG with gnuplot) in DIR
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

STAGES = ("rx", "cluster", "link", "match", "tx")
PEER = ("peer_frames_out", "peer_frames_in", "peer_retransmits", "peer_msgs_out",
        "peer_msgs_in", "peer_window_full", "peer_moves", "peer_handoff_subs",
        "peer_handoff_subs_in")
BAD = ("peer_bad", "peer_unknown_host", "peer_unsupported", "peer_handoff_bad",
       "cat_unknown", "msg_no_memory")


def snap(path):
    out = {}
    for line in open(path):
        if line.strip():
            name, js = line.split(" ", 1)
            out[name] = json.loads(js)
    return out


def hosts_of(s):
    return ["front"] + sorted((h for h in s if h != "front"), key=lambda h: int(h[1:]))


def delta(a, b, key):
    return b.get(key, 0) - a.get(key, 0)


def mhz():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("cpu MHz"):
                return float(line.split(":")[1])
    except OSError:
        pass
    return 0.0


def per_host(a, b, ev, dt, cpu_mhz):
    """Each host's cost per front event: busy cycles, stage cycles, its
    busy share of the wall time, and what it matched."""
    out = {}
    for h in hosts_of(b):
        x, y = a[h], b[h]
        busy = delta(x, y, "busy_cycles")
        d = {"busy_cycles_per_event": round(busy / max(ev, 1)),
             "busy": round(busy / (dt * cpu_mhz * 1e6), 3) if cpu_mhz and dt > 0 else None,
             "cycles_per_event": {s: round(delta(x, y, "cycles_" + s) / max(ev, 1)) for s in STAGES
                                  if delta(x, y, "cycles_" + s)}}
        for k in ("cats_visited", "event_parts", "matches", "rehome_subs", "merges",
                  "rehomes_out", "rehomes_in", "parked", "ring_full_rx", "backpressure") + PEER + BAD:
            v = delta(x, y, k)
            if v:
                d[k] = v
        out[h] = d
    return out


def total(a, b, key):
    return sum(delta(a[h], b[h], key) for h in b)


def cmd_line(o):
    a, b = snap(o.a), snap(o.b)
    dt = b["front"]["uptime_s"] - a["front"]["uptime_s"]
    ev = delta(a["front"], b["front"], "events")
    cpu_mhz = mhz()
    r = {"bench": o.bench, "hosts": o.hosts, "lcores_per_host": o.lcores, "subs": o.subs}
    if o.events:
        r["events"] = o.events
    else:
        r["events"] = ev
        r["seconds"] = round(dt, 3)
        r["events_per_s"] = round(ev / dt) if dt > 0 else 0
    if o.wall is not None:
        r["wall_s"] = o.wall
    if o.exact is not None:
        r["exact_vs_brute"] = o.exact == "true"
    if o.sleep_us is not None:
        r["idle_sleep_us"] = o.sleep_us
    if o.side is not None:
        r["side"] = o.side
    if o.cpus is not None:
        r["cpus"] = o.cpus
    r["matches"] = total(a, b, "matches")
    r["events_routed"] = delta(a["front"], b["front"], "events_routed")
    r["datatra_innode"] = total(a, b, "rehome_subs")
    r["datatra_between_hosts"] = total(a, b, "peer_handoff_subs")
    r["moves_between_hosts"] = delta(a["front"], b["front"], "peer_moves")
    r["merges"] = total(a, b, "merges")
    r["rehomes"] = total(a, b, "rehomes_out")
    r["cpu_mhz"] = cpu_mhz
    r["per_host"] = per_host(a, b, ev if not o.events else max(o.events, 1), dt, cpu_mhz)
    r["errors"] = {k: total(a, b, k) for k in BAD if total(a, b, k)}
    print(json.dumps(r))
    if r["errors"] or r["events_routed"] == 0:
        sys.exit(3)  # a refused frame, a lost part, or nothing routed: look


def cmd_series(o):
    snaps = [snap(p) for p in o.snaps]
    cpu_mhz = mhz()
    t0 = snaps[0]["front"]["uptime_s"]
    sums = {}
    for p, c in zip(snaps, snaps[1:]):
        dt = c["front"]["uptime_s"] - p["front"]["uptime_s"]
        ev = delta(p["front"], c["front"], "events")
        line = {"bench": "multihost-fig7-series", "balancing": o.balancing,
                "t": round(c["front"]["uptime_s"] - t0, 3),
                "events_per_s": round(ev / dt) if dt > 0 else 0,
                "moves_between_hosts": delta(p["front"], c["front"], "peer_moves"),
                "hosts": {}}
        for h in hosts_of(c):
            if h == "front":
                continue
            busy = delta(p[h], c[h], "busy_cycles")
            line["hosts"][h] = {"cats_visited": delta(p[h], c[h], "cats_visited"),
                                "event_parts": delta(p[h], c[h], "event_parts"),
                                "busy": round(busy / (dt * cpu_mhz * 1e6), 3) if cpu_mhz and dt > 0 else None}
        print(json.dumps(line))
    a, b = snaps[0], snaps[-1]
    half = snaps[len(snaps) // 2]
    dt = b["front"]["uptime_s"] - a["front"]["uptime_s"]
    ev = delta(a["front"], b["front"], "events")
    r = {"bench": "multihost-fig7", "balancing": o.balancing, "lambda": o.__dict__["lambda"],
         "subs": o.subs, "skew": o.skew, "seconds": round(dt, 3),
         "events_per_s": round(ev / dt) if dt > 0 else 0,
         "moves_between_hosts": delta(a["front"], b["front"], "peer_moves"),
         "datatra_between_hosts": total(a, b, "peer_handoff_subs"),
         "datatra_innode": total(a, b, "rehome_subs")}
    # the load share of each match host, over the first and the second half
    for name, x, y in (("first_half", a, half), ("second_half", half, b)):
        vis = {h: delta(x[h], y[h], "cats_visited") for h in hosts_of(y) if h != "front"}
        tot = sum(vis.values()) or 1
        hdt = y["front"]["uptime_s"] - x["front"]["uptime_s"]
        hev = delta(x["front"], y["front"], "events")
        r[name] = {"events_per_s": round(hev / hdt) if hdt > 0 else 0,
                   "load_share": {h: round(v / tot, 3) for h, v in vis.items()}}
    if o.placement:
        # the front's workers are the match hosts' lcores, in peers order
        for name, path in zip(("placement_start", "placement_end"), o.placement):
            try:
                r[name] = json.loads(open(path).read()).get("workers")
            except (OSError, ValueError):
                r[name] = None
    r["per_host"] = per_host(a, b, ev, dt, cpu_mhz)
    r["errors"] = {k: total(a, b, k) for k in BAD if total(a, b, k)}
    print(json.dumps(r))


def rows(path, bench):
    out = []
    if os.path.exists(path):
        for line in open(path):
            o = json.loads(line)
            if o["bench"] == bench:
                out.append(o)
    return out


def gnuplot(script):
    if shutil.which("gnuplot") is None:
        print("mhbench-report.py: gnuplot missing: CSV only (tools/install-deps.sh)", file=sys.stderr)
        return
    subprocess.run(["gnuplot"], input=script.encode(), check=True)


def cmd_plot_scale(o):
    rs = rows(os.path.join(o.dir, "scale.jsonl"), "multihost-scale")
    csv = os.path.join(o.dir, "scale.csv")
    dats = {}
    with open(csv, "w") as f:
        f.write("side,hosts,subs,events_per_s,front_cycles_per_event,match_cycles_per_event_sum,"
                "match_cycles_per_event_per_host,front_link_cycles,match_link_cycles_per_host,"
                "match_busy_max\n")
        for r in rs:
            ph = r["per_host"]
            m = [v for h, v in ph.items() if h != "front"]
            msum = sum(v["busy_cycles_per_event"] for v in m)
            mlink = sum(v["cycles_per_event"].get("link", 0) for v in m)
            row = (r.get("side", 0.01), r["hosts"], r["subs"], r["events_per_s"],
                   ph["front"]["busy_cycles_per_event"], msum, round(msum / len(m)),
                   ph["front"]["cycles_per_event"].get("link", 0), round(mlink / len(m)),
                   max(v["busy"] or 0 for v in m))
            f.write("%s,%d,%d,%d,%d,%d,%d,%d,%d,%.3f\n" % row)
            dats.setdefault(row[0], []).append(row)
    if not rs:
        return
    rate, cost = [], []
    for i, (sd, rws) in enumerate(sorted(dats.items())):
        dat = os.path.join(o.dir, "scale-side%s.dat" % sd)
        with open(dat, "w") as f:
            for row in rws:
                f.write(" ".join(str(x) for x in row) + "\n")
        rate.append('"%s" using 2:4 with linespoints lw 2 lc %d title "side %s"' % (dat, i + 1, sd))
        cost.append('"%s" using 2:5 with linespoints lc %d title "front, side %s"' % (dat, i + 1, sd))
        cost.append('"%s" using 2:6 with linespoints dt 2 lc %d title "all match hosts, side %s"'
                    % (dat, i + 1, sd))
        cost.append('"%s" using 2:7 with linespoints dt 3 lc %d title "a match host (mean), side %s"'
                    % (dat, i + 1, sd))
    gnuplot("""set terminal pngcairo size 900,800
set output "%s"
set multiplot layout 2,1 title "1 front + N match hosts, namespaces on one 2-CPU machine, %d subscriptions"
set xlabel "match hosts"
set xtics 1
set grid
set key outside right
set logscale y
set ylabel "events/s through the front"
plot %s
unset logscale y
set yrange [0:*]
set ylabel "busy cycles per event"
plot %s
unset multiplot
""" % (os.path.join(o.dir, "scale.png"), rs[0]["subs"], ", \\\n     ".join(rate),
       ", \\\n     ".join(cost)))


def cmd_plot_fig5(o):
    rs = rows(os.path.join(o.dir, "fig5.jsonl"), "multihost-fig5")
    csv = os.path.join(o.dir, "fig5.csv")
    layouts = sorted({(r["hosts"], r["lcores_per_host"]) for r in rs}, key=lambda x: x[0])
    subs = sorted({r["subs"] for r in rs})
    with open(csv, "w") as f:
        f.write("layout,hosts,lcores_per_host,subs,events,datatra_innode,datatra_between_hosts,"
                "moves_between_hosts,merges,rehomes,exact\n")
        for r in rs:
            f.write("%dx%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s\n" % (
                r["hosts"], r["lcores_per_host"], r["hosts"], r["lcores_per_host"], r["subs"],
                r["events"], r["datatra_innode"], r["datatra_between_hosts"],
                r["moves_between_hosts"], r["merges"], r["rehomes"], r["exact_vs_brute"]))
    if not rs:
        return
    # one cluster of bars per subscription count: InNode and between hosts,
    # per layout (rowstacked: InNode + between = all shipped)
    dat = os.path.join(o.dir, "fig5.dat")
    with open(dat, "w") as f:
        for s in subs:
            for (n, l) in layouts:
                r = [x for x in rs if x["subs"] == s and x["hosts"] == n and x["lcores_per_host"] == l]
                if r:
                    f.write("\"%d subs, %d host%s x %d\" %d %d\n" % (
                        s, n, "" if n == 1 else "s", l, r[-1]["datatra_innode"],
                        r[-1]["datatra_between_hosts"]))
    gnuplot("""set terminal pngcairo size 900,480
set output "%s"
set title "DataTra: subscriptions shipped by rehoming and merging (4 matching lcores in all)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.7 border -1
set boxwidth 0.7
set ylabel "subscriptions shipped"
set yrange [0:*]
set xtics rotate by -30
set key outside bottom center horizontal
set grid ytics
plot "%s" using 2:xtic(1) title "InNode (between lcores of a host)", \\
     "" using 3 title "between hosts (network)"
""" % (os.path.join(o.dir, "fig5.png"), dat))


def cmd_plot_fig7(o):
    path = os.path.join(o.dir, "fig7.jsonl")
    ser = rows(path, "multihost-fig7-series")
    csv = os.path.join(o.dir, "fig7.csv")
    hosts = sorted({h for r in ser for h in r["hosts"]}, key=lambda h: int(h[1:]))
    with open(csv, "w") as f:
        f.write("balancing,t,events_per_s,moves_between_hosts,%s\n" % ",".join(
            "%s_cats_visited,%s_busy" % (h, h) for h in hosts))
        for r in ser:
            f.write("%s,%s,%d,%d,%s\n" % (r["balancing"], r["t"], r["events_per_s"],
                                          r["moves_between_hosts"], ",".join(
                "%d,%s" % (r["hosts"].get(h, {}).get("cats_visited", 0),
                           r["hosts"].get(h, {}).get("busy", "")) for h in hosts)))
    if not ser:
        return
    datf = {}
    for mode in ("off", "on"):
        datf[mode] = os.path.join(o.dir, "fig7-%s.dat" % mode)
        with open(datf[mode], "w") as f:
            for r in ser:
                if r["balancing"] == mode:
                    vis = [r["hosts"].get(h, {}).get("cats_visited", 0) for h in hosts]
                    tot = sum(vis) or 1
                    f.write("%s %d %s\n" % (r["t"], r["events_per_s"],
                                            " ".join("%.4f" % (v / tot) for v in vis)))
    share = []
    for mode, dash in (("off", 2), ("on", 1)):
        for i, h in enumerate(hosts):
            share.append('"%s" using 1:%d with linespoints dt %d title "%s, balancing %s"'
                         % (datf[mode], i + 3, dash, h, mode))
    gnuplot("""set terminal pngcairo size 900,720
set output "%s"
set multiplot layout 2,1 title "2 match hosts, skewed events: balancing off (lambda 10^9) and on"
set xlabel "seconds into the measurement"
set grid
set key outside right
set ylabel "events/s (front)"
set yrange [0:*]
plot "%s" using 1:2 with linespoints dt 2 title "balancing off", \\
     "%s" using 1:2 with linespoints title "balancing on"
set ylabel "share of the matching (event, category pairs)"
set yrange [0:1]
plot %s
unset multiplot
""" % (os.path.join(o.dir, "fig7.png"), datf["off"], datf["on"], ", \\\n     ".join(share)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("line")
    p.add_argument("--bench", required=True)
    p.add_argument("--hosts", type=int, required=True)
    p.add_argument("--lcores", type=int, required=True)
    p.add_argument("--subs", type=int, required=True)
    p.add_argument("--events", type=int, default=0, help="a bounded run's events (else measured)")
    p.add_argument("--wall", type=float)
    p.add_argument("--exact", choices=("true", "false"))
    p.add_argument("--sleep-us", type=int)
    p.add_argument("--side", type=float)
    p.add_argument("--cpus")
    p.add_argument("a")
    p.add_argument("b")
    p = sub.add_parser("series")
    p.add_argument("--balancing", required=True)
    p.add_argument("--lambda", type=int, required=True)
    p.add_argument("--subs", type=int, required=True)
    p.add_argument("--skew", type=float, required=True)
    p.add_argument("--placement", nargs=2, metavar=("START", "END"),
                   help="the front's pipeline lines (workers' categories and subscriptions)")
    p.add_argument("snaps", nargs="+")
    for name in ("plot-scale", "plot-fig5", "plot-fig7"):
        p = sub.add_parser(name)
        p.add_argument("dir")
    o = ap.parse_args()
    {"line": cmd_line, "series": cmd_series, "plot-scale": cmd_plot_scale,
     "plot-fig5": cmd_plot_fig5, "plot-fig7": cmd_plot_fig7}[o.cmd](o)


if __name__ == "__main__":
    main()
