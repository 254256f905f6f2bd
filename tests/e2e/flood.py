#!/usr/bin/env python3
"""flood.py - send event datagrams to spated as fast as this host can,
to overload its rings and pools on purpose (tests/e2e/overload.sh).

  flood.py --count N [--events-per-dgram K] [--seconds S] [--seed N]

Bounded in both datagrams (N) and time (S). Events fall in the
gen-stream.py area with its vocabulary, so they match subscriptions and
make the matching stages work. Prints how many datagrams it sent.
"""
import argparse
import random
import socket
import struct
import time

from craft import SERVER_IP, PORT, EVENT, dgram, msg

VOCAB = [b"cafe", b"museum", b"park", b"station", b"airport", b"hotel", b"bar",
         b"school", b"river", b"bridge", b"market", b"beach"]


def event(eid, rng):
    lon = int(rng.uniform(-10, 10) * 1e7)
    lat = int(rng.uniform(40, 60) * 1e7)
    kws = rng.sample(VOCAB, 3)
    body = struct.pack(">QiiBBH", eid, lon, lat, len(kws), 0, 0)
    for k in kws:
        body += bytes([len(k)]) + k
    return msg(EVENT, body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--events-per-dgram", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # a few hundred distinct datagrams, sent round robin: building them
    # is slower than sending them
    pool = [dgram([event(1000000 + i * a.events_per_dgram + k, rng)
                   for k in range(a.events_per_dgram)], seq=i + 1) for i in range(256)]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    deadline = time.monotonic() + a.seconds
    sent = 0
    while sent < a.count and time.monotonic() < deadline:
        try:
            s.sendto(pool[sent % len(pool)], (SERVER_IP, PORT))
            sent += 1
        except BlockingIOError:
            time.sleep(0.0005)
    print("flood: sent %d datagrams" % sent)


if __name__ == "__main__":
    main()
