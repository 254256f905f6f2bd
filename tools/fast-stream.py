#!/usr/bin/env python3
"""fast-stream.py - a FAST-style synthetic workload (Mahmood et al., ICDE
2018) as a Spate stream: a US-sized extent, subscriptions of 1-3 keywords
from a Zipf vocabulary, squares of side uniform up to --side (fraction of
the extent), events of --event-kw keywords. All subscriptions first, then
the events (the "after training" phase). Deterministic by --seed.
"""
import argparse
import bisect
import itertools
import random
import sys

LON0, LON1, LAT0, LAT1 = -125.0, -66.0, 24.0, 50.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--subs", type=int, default=100000)
    ap.add_argument("--events", type=int, default=10000)
    ap.add_argument("--vocab", type=int, default=20000)
    ap.add_argument("--zipf", type=float, default=1.0, help="Zipf exponent")
    ap.add_argument("--side", type=float, default=0.01, help="largest square side, fraction of the extent")
    ap.add_argument("--event-kw", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    cum = list(itertools.accumulate(1.0 / (r ** a.zipf) for r in range(1, a.vocab + 1)))
    total = cum[-1]

    def word():
        return "w%d" % bisect.bisect_left(cum, rnd.random() * total)

    out = sys.stdout
    w, h = LON1 - LON0, LAT1 - LAT0
    for i in range(1, a.subs + 1):
        kws = sorted({word() for _ in range(rnd.randint(1, 3))})
        side = rnd.uniform(0, a.side)
        x = rnd.uniform(LON0, LON1 - side * w)
        y = rnd.uniform(LAT0, LAT1 - side * h)
        out.write(f"sub\t{i}\t{x:.7f}\t{y:.7f}\t{x + side * w:.7f}\t{y + side * h:.7f}\t{','.join(kws)}\n")
    for i in range(1, a.events + 1):
        kws = sorted({word() for _ in range(a.event_kw)})
        out.write(f"event\t{i}\t{rnd.uniform(LON0, LON1):.7f}\t{rnd.uniform(LAT0, LAT1):.7f}\t{','.join(kws)}\n")


if __name__ == "__main__":
    main()
