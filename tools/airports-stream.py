#!/usr/bin/env python3
"""airports-stream.py - turn the OpenFlights airports table (lon, lat,
keywords, altitude_ft, utc_offset; tab-separated) into a Spate stream, in
the manner of the DRt-Cluster paper's workload: every airport is an event;
subscriptions (--subs per event, default 0.01, paper) are made from random
events with a random subset of their keywords and a rectangle centred on
the event, extended by a random amount; some carry a numeric constraint.
Subscriptions, deletes and events are interleaved. Deterministic by --seed.
"""
import argparse
import random
import sys


def fmt(v):
    return f"{v:.7f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("airports", help="airports.tsv")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--subs", type=float, default=0.01,
                    help="subscriptions per event (default 0.01)")
    ap.add_argument("--max-extent", type=float, default=5.0,
                    help="largest half-width of a rectangle, degrees")
    ap.add_argument("--events", type=int, default=0, help="at most this many events (0 = all)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    places = []
    with open(a.airports, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 5:
                sys.exit(f"{a.airports}:{n}: expected 5 tab-separated fields")
            lon, lat = float(parts[0]), float(parts[1])
            kws = sorted(set(k for k in parts[2].split(",") if k))[:16]
            attrs = f"altitude_ft={parts[3]},utc_offset={parts[4]}"
            places.append((lon, lat, kws, attrs))
    rnd.shuffle(places)
    if a.events:
        places = places[:a.events]

    out = sys.stdout
    live = []
    next_sub = 1
    budget = 0.0
    for i, (lon, lat, kws, attrs) in enumerate(places):
        budget += a.subs
        while budget >= 1:
            budget -= 1
            slon, slat, skws, _ = rnd.choice(places)
            k = rnd.randint(0, min(3, len(skws)))
            chosen = rnd.sample(skws, k)
            dx, dy = rnd.uniform(0, a.max_extent), rnd.uniform(0, a.max_extent)
            r = (max(-180, slon - dx), max(-90, slat - dy), min(180, slon + dx), min(90, slat + dy))
            cons = ""
            if rnd.random() < 0.2:
                cons = "\t" + rnd.choice(["altitude_ft>=1000", "altitude_ft<500",
                                          "utc_offset!=0", "utc_offset=1"])
            out.write(f"sub\t{next_sub}\t{fmt(r[0])}\t{fmt(r[1])}\t{fmt(r[2])}\t{fmt(r[3])}\t"
                      f"{','.join(chosen) or '-'}{cons}\n")
            live.append(next_sub)
            next_sub += 1
        if live and rnd.random() < a.subs / 10:
            out.write(f"unsub\t{live.pop(rnd.randrange(len(live)))}\n")
        out.write(f"event\t{i + 1}\t{fmt(lon)}\t{fmt(lat)}\t{','.join(kws) or '-'}\t{attrs}\n")


if __name__ == "__main__":
    main()
