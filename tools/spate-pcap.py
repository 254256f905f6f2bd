#!/usr/bin/env python3
"""spate-pcap.py - a stream file (docs/stream-format.md) as a pcap of
Spate datagrams, for replaying into spated with DPDK's net_pcap vdev
(rx_pcap=FILE,infinite_rx=1) in tools/pipeline-bench.sh.

  spate-pcap.py STREAM.tsv --out FILE.pcap [--events-per-dgram K]
                [--subs-per-dgram K] [--dst-mac MAC]

Subscriptions (and unsubscriptions) come first, each datagram a batch of
them, then the events in datagrams of K. Frames are Ethernet/IPv4/UDP from
198.18.0.2:40000 to 198.18.0.1:47100 with real checksums. Only what the
benchmark streams use is encoded: keywords and numeric constraints and
attributes.
"""
import argparse
import struct
import sys

SRC_IP, DST_IP, SPORT, DPORT = "198.18.0.2", "198.18.0.1", 40000, 47100
EVENT, SUB_ADD, SUB_DEL = 1, 2, 3
OPS = {">=": 1, "<=": 2, ">": 3, "<": 4, "=": 5, "!=": 6}


def fixed(x):
    v = float(x) * 1e7
    return int(v + 0.5) if v >= 0 else -int(-v + 0.5)


def kws(field):
    return [] if field == "-" else [k.encode() for k in field.split(",")]


def enc_kw(k):
    return bytes([len(k)]) + k


def msg(mtype, body):
    return struct.pack(">BBH", mtype, 0, 4 + len(body)) + body


def sub_add(f):
    sid, x0, y0, x1, y1 = int(f[1]), fixed(f[2]), fixed(f[3]), fixed(f[4]), fixed(f[5])
    k = kws(f[6])
    cons = []
    if len(f) > 7 and f[7] != "-":
        for c in f[7].split(","):
            for op in (">=", "<=", "!=", ">", "<", "="):
                if op in c:
                    n, v = c.split(op, 1)
                    cons.append((n.encode(), OPS[op], float(v)))
                    break
    body = struct.pack(">Qiiii", sid, x0, y0, x1, y1) + struct.pack(">IHBB", 0, 0, len(k), len(cons))
    body += b"".join(enc_kw(x) for x in k)
    for n, op, v in cons:
        body += enc_kw(n) + struct.pack(">Bd", op, v)
    return msg(SUB_ADD, body)


def event(f):
    eid, lon, lat = int(f[1]), fixed(f[2]), fixed(f[3])
    k = kws(f[4])
    attrs = []
    if len(f) > 5 and f[5] != "-":
        for a in f[5].split(","):
            n, v = a.split("=", 1)
            attrs.append((n.encode(), float(v)))
    body = struct.pack(">QiiBBH", eid, lon, lat, len(k), len(attrs), 0)
    body += b"".join(enc_kw(x) for x in k)
    for n, v in attrs:
        body += enc_kw(n) + struct.pack(">d", v)
    return msg(EVENT, body)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ip4(a):
    return bytes(int(x) for x in a.split("."))


def frame(payload, dst_mac, seq):
    hdr = struct.pack(">HBBHHII", 0x5350, 1, 0, 16 + len(payload[1]), payload[0], 4242, seq)
    data = hdr + payload[1]
    ulen = 8 + len(data)
    pseudo = ip4(SRC_IP) + ip4(DST_IP) + struct.pack("!BBH", 0, 17, ulen)
    u = struct.pack("!HHHH", SPORT, DPORT, ulen, 0) + data
    c = csum(pseudo + u) or 0xffff
    u = u[:6] + struct.pack("!H", c) + u[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(u), seq & 0xffff, 0x4000, 64, 17, 0,
                     ip4(SRC_IP), ip4(DST_IP))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return dst_mac + bytes.fromhex("020000000002") + b"\x08\x00" + ip + u


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stream")
    ap.add_argument("--out", required=True)
    ap.add_argument("--events-per-dgram", type=int, default=16)
    ap.add_argument("--subs-per-dgram", type=int, default=16)
    ap.add_argument("--dst-mac", default="ff:ff:ff:ff:ff:ff")
    a = ap.parse_args()
    dst = bytes.fromhex(a.dst_mac.replace(":", ""))
    subs, events = [], []
    for line in open(a.stream):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\r\n").split("\t")
        if f[0] == "sub":
            subs.append(sub_add(f))
        elif f[0] == "unsub":
            subs.append(msg(SUB_DEL, struct.pack(">Q", int(f[1]))))
        elif f[0] == "event":
            events.append(event(f))
    dgrams = []
    for group, k in ((subs, a.subs_per_dgram), (events, a.events_per_dgram)):
        for i in range(0, len(group), k):
            part = group[i:i + k]
            dgrams.append((len(part), b"".join(part)))
    with open(a.out, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for seq, d in enumerate(dgrams, 1):
            fr = frame(d, dst, seq)
            if len(fr) > 1514:
                sys.exit("spate-pcap: datagram %d is %d bytes: fewer per datagram" % (seq, len(fr)))
            out.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)) + fr)
    print("spate-pcap: %d subscription ops, %d events in %d frames" % (len(subs), len(events),
                                                                   len(dgrams)), file=sys.stderr)


if __name__ == "__main__":
    main()
