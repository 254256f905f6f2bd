#!/usr/bin/env python3
"""gen-stream.py - a deterministic Spate workload in the stream format
(docs/stream-format.md): subscriptions, events, unsubscriptions and re-adds
interleaved, so that the daemon's order of operations matters.

  gen-stream.py [--seed N] [--subs N] [--events N] > stream.tsv

Same seed and sizes -> byte-identical output (random.Random(seed), no
clock, no hash ordering). Keywords come from a small vocabulary and the
area is small so that events do match; rectangles range from a few
hundred metres to tens of degrees; about a third of the subscriptions
carry constraints such as population>=1000.
"""
import argparse
import random

VOCAB = ["cafe", "museum", "park", "station", "airport", "hotel", "bar",
         "school", "river", "bridge", "market", "beach", "castle", "tower",
         "stadium", "zoo", "library", "harbour", "church", "gallery"]
ATTRS = ["population", "altitude_ft", "rating", "price", "age"]
OPS = [">=", "<=", ">", "<", "=", "!="]
# The area: a box of 20 x 20 degrees.
LON0, LON1, LAT0, LAT1 = -10.0, 10.0, 40.0, 60.0


def coord(x):
    return f"{x:.5f}"


def attr_value(rng, name):
    if name == "population":
        return rng.choice([0, 10, 500, 1000, 5000, 20000, 100000])
    if name == "altitude_ft":
        return rng.randrange(0, 12000, 250)
    if name == "rating":
        return rng.randrange(0, 11) / 2
    if name == "price":
        return round(rng.uniform(0, 200), 2)
    return rng.randrange(0, 100)


def make_sub(rng, sid):
    size = rng.choice([0.005, 0.05, 0.5, 2.0, 5.0, 10.0, 20.0])
    w = size * rng.uniform(0.5, 1.5)
    h = size * rng.uniform(0.5, 1.5)
    lon = rng.uniform(LON0 - 1, LON1 + 1 - w)
    lat = rng.uniform(LAT0 - 1, LAT1 + 1 - h)
    max_lon = min(lon + w, 180.0)
    max_lat = min(lat + h, 90.0)
    nkw = rng.choice([0, 1, 1, 1, 2])
    kws = ",".join(sorted(rng.sample(VOCAB, nkw))) if nkw else "-"
    fields = ["sub", str(sid), coord(lon), coord(lat), coord(max_lon), coord(max_lat), kws]
    if rng.random() < 0.35:
        cons = []
        for name in rng.sample(ATTRS, rng.choice([1, 1, 2])):
            cons.append(f"{name}{rng.choice(OPS)}{attr_value(rng, name)}")
        fields.append(",".join(cons))
    return "\t".join(fields)


def make_event(rng, eid):
    lon = rng.uniform(LON0, LON1)
    lat = rng.uniform(LAT0, LAT1)
    kws = ",".join(rng.sample(VOCAB, rng.choice([1, 2, 3, 4])))
    fields = ["event", str(eid), coord(lon), coord(lat), kws]
    if rng.random() < 0.8:
        attrs = [f"{n}={attr_value(rng, n)}" for n in rng.sample(ATTRS, rng.choice([1, 2, 3]))]
        fields.append(",".join(attrs))
    return "\t".join(fields)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--subs", type=int, default=400)
    ap.add_argument("--events", type=int, default=4000)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    out = [f"# gen-stream.py --seed {args.seed} --subs {args.subs} --events {args.events}"]
    active, removed = [], []
    next_sub = 1
    # Half of the subscriptions up front, the rest spread among the events,
    # with unsubs and re-adds of removed ids (a re-added id starts anew).
    for _ in range(args.subs // 2):
        out.append(make_sub(rng, next_sub))
        active.append(next_sub)
        next_sub += 1
    sub_every = max(1, args.events // max(1, args.subs - args.subs // 2))
    for eid in range(1, args.events + 1):
        out.append(make_event(rng, eid))
        if eid % sub_every == 0 and next_sub <= args.subs:
            out.append(make_sub(rng, next_sub))
            active.append(next_sub)
            next_sub += 1
        r = rng.random()
        if r < 0.02 and active:
            sid = active.pop(rng.randrange(len(active)))
            out.append(f"unsub\t{sid}")
            removed.append(sid)
        elif r < 0.03 and removed:
            sid = removed.pop(rng.randrange(len(removed)))
            out.append(make_sub(rng, sid))
            active.append(sid)
    print("\n".join(out))


if __name__ == "__main__":
    main()
