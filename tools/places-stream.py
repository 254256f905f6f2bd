#!/usr/bin/env python3
"""places-stream.py - turn a table of real places into a Spate stream in
the manner of the DRt-Cluster paper's workload: every place is an event;
subscriptions (--subs per event, the paper: 0.01) are made from random
events with a random subset of up to 3 of their keywords and a rectangle
centred on the event, extended by a random amount; a fifth of them carry
one numeric constraint (--cons-rate). Subscriptions, deletes and events are
interleaved, or all subscriptions come first (--order subs-first: a
standing set, then a stream of events). --events larger than the table
replays the places again, shuffled anew each pass, under new event ids
(the real-data load of e2e-realdata and tools/realdata-bench.sh).
Deterministic by --seed.

Input: one place a line, tab-separated, no header:
  lon  lat  keywords(comma-separated)  value  value ...
the values named by --attrs (airports.tsv: altitude_ft,utc_offset;
tools/cities-places.js writes population,feature_rank). Constraints are
--cons (a ';'-separated list to draw from, the airports' fixed set by
default for airports-stream.py) or, with --cons data, `attr>=v` /
`attr<v` / `attr=v` with v the value of a random place: selectivity as
in the data.
"""
import argparse
import random
import sys


def fmt(v):
    return f"{v:.7f}"


def read_places(path, names):
    places = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 + len(names):
                sys.exit(f"{path}:{n}: expected {3 + len(names)} tab-separated fields")
            lon, lat = float(parts[0]), float(parts[1])
            kws = sorted(set(k for k in parts[2].split(",") if k))[:16]
            vals = parts[3:3 + len(names)]
            attrs = ",".join(f"{a}={v}" for a, v in zip(names, vals))
            places.append((lon, lat, kws, attrs, vals))
    return places


def constraint(rnd, places, names, cons):
    if cons != "data":
        return rnd.choice(cons.split(";"))
    i = rnd.randrange(len(names))
    v = rnd.choice(places)[4][i]
    return f"{names[i]}{rnd.choice(['>=', '<', '='])}{v}"


def main(argv=None, defaults=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("places", help="places TSV (lon, lat, keywords, values)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--subs", type=float, default=0.01,
                    help="subscriptions per event (default 0.01)")
    ap.add_argument("--max-extent", type=float, default=5.0,
                    help="largest half-width of a rectangle, degrees")
    ap.add_argument("--events", type=int, default=0,
                    help="this many events (0 = every place once); more than the table has: "
                         "the places again, reshuffled")
    ap.add_argument("--sub-count", type=int, default=0,
                    help="this many subscriptions instead of --subs per event")
    ap.add_argument("--order", choices=("interleaved", "subs-first"), default="interleaved")
    ap.add_argument("--attrs", default="population,feature_rank",
                    help="names of the value columns, comma-separated")
    ap.add_argument("--min-kw", type=int, default=0,
                    help="fewest keywords a subscription takes (default 0; peers such as FAST need 1)")
    ap.add_argument("--cons-rate", type=float, default=0.2,
                    help="share of subscriptions with a constraint (default 0.2; 0 for peers without)")
    ap.add_argument("--cons", default="data",
                    help="';'-separated constraints to draw from, or 'data'")
    if defaults:
        ap.set_defaults(**defaults)
    a = ap.parse_args(argv)
    rnd = random.Random(a.seed)
    names = [x for x in a.attrs.split(",") if x]

    places = read_places(a.places, names)
    if not places:
        sys.exit(f"{a.places}: no places")
    rnd.shuffle(places)
    events = places
    if a.events:
        # subscriptions are drawn from the events' places (the paper's
        # method); past the table's size, from every place
        places = events = places[:a.events]
        while len(events) < a.events:
            again = places[:]
            rnd.shuffle(again)
            events = events + again[:a.events - len(events)]
    per_event = a.sub_count / len(events) if a.sub_count else a.subs

    out = sys.stdout
    live = []
    next_sub = 1

    def sub():
        nonlocal next_sub
        slon, slat, skws, _, _ = rnd.choice(places)
        k = rnd.randint(min(a.min_kw, len(skws)), min(3, len(skws)))
        chosen = rnd.sample(skws, k)
        dx, dy = rnd.uniform(0, a.max_extent), rnd.uniform(0, a.max_extent)
        r = (max(-180, slon - dx), max(-90, slat - dy), min(180, slon + dx), min(90, slat + dy))
        cons = ""
        if names and rnd.random() < a.cons_rate:
            cons = "\t" + constraint(rnd, places, names, a.cons)
        out.write(f"sub\t{next_sub}\t{fmt(r[0])}\t{fmt(r[1])}\t{fmt(r[2])}\t{fmt(r[3])}\t"
                  f"{','.join(chosen) or '-'}{cons}\n")
        live.append(next_sub)
        next_sub += 1

    if a.order == "subs-first":
        for _ in range(a.sub_count or int(per_event * len(events))):
            sub()
    budget = 0.0
    for i, (lon, lat, kws, attrs, _) in enumerate(events):
        if a.order == "interleaved":
            budget += per_event
            while budget >= 1:
                budget -= 1
                sub()
            if live and rnd.random() < per_event / 10:
                out.write(f"unsub\t{live.pop(rnd.randrange(len(live)))}\n")
        out.write(f"event\t{i + 1}\t{fmt(lon)}\t{fmt(lat)}\t{','.join(kws) or '-'}"
                  f"{chr(9) + attrs if attrs else ''}\n")


if __name__ == "__main__":
    main()
