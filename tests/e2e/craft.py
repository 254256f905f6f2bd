#!/usr/bin/env python3
"""craft.py - bad (and a few good) frames and datagrams for spated.

Run in the client namespace:
  craft.py --iface IF --server-mac MAC --out EXPECT.json

Sends, over a UDP socket, datagrams whose Spate header is refused (no
reply expected) and one datagram of refused messages (one NACK each
expected, in one reply datagram); over an AF_PACKET socket, hand-made
Ethernet frames that spated must drop at the Ethernet, IPv4, ICMP or UDP
layer. Writes the counter increments spated should show to EXPECT.json:
{"eq": {counter: n}, "ge": {counter: n}} ("ge" where kernel traffic may
add to the count). Exits 1 if an expected reply is missing or wrong.
Addresses: only 198.18.0.1 (spated) and 198.18.0.2 (us).
"""
import argparse
import json
import random
import socket
import struct
import sys

SERVER_IP, CLIENT_IP, PORT = "198.18.0.1", "198.18.0.2", 47100
MAGIC, VERSION = 0x5350, 1
EVENT, SUB_ADD, SUB_DEL, ACK, NACK, NOTIFY = 1, 2, 3, 4, 5, 6
E = {"INVERTED_RECT": 6, "UNKNOWN_TYPE": 15, "UNKNOWN_ID": 17, "NOT_ALLOWED": 26}


# --- Spate codec, written from the byte layout in lib/proto/spate_proto.h ---
def hdr(length, count, client_id=4242, seq=1, flags=0, magic=MAGIC, version=VERSION):
    return struct.pack(">HBBHHII", magic, version, flags, length, count, client_id, seq)


def msg(mtype, body):
    return struct.pack(">BBH", mtype, 0, 4 + len(body)) + body


def dgram(msgs, **kw):
    body = b"".join(msgs)
    return hdr(16 + len(body), len(msgs), **kw) + body


def sub_add(sid, rect, kws=()):
    body = struct.pack(">Qiiii", sid, *rect) + struct.pack(">IHBB", 0, 0, len(kws), 0)
    for k in kws:
        body += bytes([len(k)]) + k
    return msg(SUB_ADD, body)


def sub_del(sid):
    return msg(SUB_DEL, struct.pack(">Q", sid))


def parse_replies(data):
    """[(type, req_type, code, req_seq, id)] of a server datagram."""
    magic, ver, flags, length, count, cid, seq = struct.unpack(">HBBHHII", data[:16])
    if magic != MAGIC or ver != VERSION or not flags & 1 or length != len(data):
        raise ValueError("bad reply header %r" % (data[:16],))
    out, off = [], 16
    for _ in range(count):
        mtype, _f, mlen = struct.unpack(">BBH", data[off:off + 4])
        if mtype in (ACK, NACK):
            rt, code, _z, rseq, mid = struct.unpack(">BBHIQ", data[off + 4:off + 20])
            out.append((mtype, rt, code, rseq, mid))
        off += mlen
    return out


# --- IPv4 / UDP / Ethernet by hand ---
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(payload, proto, dst=SERVER_IP, bad_csum=False, frag=0, ihl=5, version=4,
         tot_len=None):
    tl = 20 + len(payload) if tot_len is None else tot_len
    h = struct.pack("!BBHHHBBH4s4s", version << 4 | ihl, 0, tl, 1, frag, 64, proto, 0,
                    socket.inet_aton(CLIENT_IP), socket.inet_aton(dst))
    c = csum(h)
    if bad_csum:
        c ^= 0x5a5a
    return h[:10] + struct.pack("!H", c) + h[12:] + payload


def udp(payload, sport=40000, dport=PORT, cs="ok", ulen=None, dst=SERVER_IP):
    ln = 8 + len(payload) if ulen is None else ulen
    u = struct.pack("!HHHH", sport, dport, ln, 0) + payload
    c = 0
    if cs != "zero":
        ph = socket.inet_aton(CLIENT_IP) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 17, len(u))
        c = csum(ph + u) or 0xffff
        if cs == "bad":
            c ^= 0x00ff
    return u[:6] + struct.pack("!H", c) + u[8:]


def icmp_echo(bad=False):
    body = struct.pack("!BBHHH", 8, 0, 0, 0x77, 1) + b"spate" * 4
    c = csum(body) ^ (0x1111 if bad else 0)
    return body[:2] + struct.pack("!H", c) + body[4:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iface", required=True)
    ap.add_argument("--server-mac", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    rng = random.Random(7)
    eq, ge = {}, {}
    ok = True

    # 1. Refused headers over an ordinary UDP socket: dropped, no reply.
    us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    us.bind((CLIENT_IP, 0))
    us.settimeout(2.0)
    good = sub_del(1)
    bad = []
    for _ in range(10):  # garbage; first byte 0 so the magic is never right
        bad.append(b"\0" + bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200))))
    bad.append(dgram([good])[:10])                             # truncated header
    bad.append(dgram([good], magic=0x1234))                    # wrong magic
    bad.append(dgram([good], version=2))                       # wrong version
    bad.append(dgram([good], flags=0x80))                      # reserved flag
    d = dgram([good])
    bad.append(d[:4] + struct.pack(">H", len(d) + 8) + d[6:])  # length lies (longer)
    bad.append(d[:4] + struct.pack(">H", len(d) - 4) + d[6:])  # length lies (shorter)
    bad.append(d + b"\0" * 8)                                  # length != payload
    bad.append(hdr(16 + 12 * 100, 100) + good * 100)          # too many messages (> 64)
    for b in bad:
        us.sendto(b, (SERVER_IP, PORT))
    eq["bad_header"] = len(bad)

    # 2. A datagram flagged as from a server: ignored (no NACK ping-pong).
    us.sendto(dgram([good], flags=1), (SERVER_IP, PORT))
    eq["from_server"] = 1

    # 3. Refused messages under a valid header: one NACK each, one reply.
    seq = 77
    msgs = [
        sub_add(900000001, (10, 10, 0, 0)),                    # INVERTED_RECT
        sub_del(900000002),                                    # UNKNOWN_ID
        msg(NOTIFY, struct.pack(">QHH", 5, 1, 0) + struct.pack(">Q", 9)),  # NOT_ALLOWED
        msg(99, struct.pack(">Q", 900000003)),                 # UNKNOWN_TYPE
        sub_add(900000004, (-10, -10, 10, 10), [b"craft"]),   # accepted: ACK
        sub_del(900000004),                                    # accepted: ACK
        sub_del(900000004),                                    # a retransmission: ACK again
    ]
    us.sendto(dgram(msgs, seq=seq), (SERVER_IP, PORT))
    want = [(NACK, SUB_ADD, E["INVERTED_RECT"], seq, 900000001),
            (NACK, SUB_DEL, E["UNKNOWN_ID"], seq, 900000002),
            (NACK, NOTIFY, E["NOT_ALLOWED"], seq, None),
            (NACK, 99, E["UNKNOWN_TYPE"], seq, None),  # no id in an unknown body
            (ACK, SUB_ADD, 0, seq, 900000004),
            (ACK, SUB_DEL, 0, seq, 900000004),
            (ACK, SUB_DEL, 0, seq, 900000004)]
    # NACKs come from the stage that refuses, ACKs from the matching lcore
    # once the change is applied: up to two datagrams, each in order.
    got = []
    try:
        while len(got) < len(want):
            got += parse_replies(us.recv(65536))
        # ids of messages whose body could not be read are not compared
        norm = [(t, rt, c, s, None if (t == NACK and rt in (NOTIFY, 99)) else i)
                for (t, rt, c, s, i) in got]
        if sorted(norm, key=str) != sorted(want, key=str):
            print("craft: replies differ:\n  got  %s\n  want %s" % (got, want))
            ok = False
        else:
            print("craft: 4 NACKs and 3 ACKs, as expected")
    except (socket.timeout, ValueError) as e:
        print("craft: no good reply to the refused messages (got %s): %s" % (got, e))
        ok = False
    eq["nacks"], eq["acks"] = 4, 3
    eq["bad_messages"] = 4

    # 4. Frames spated must drop below the Spate layer (AF_PACKET).
    ps = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    ps.bind((a.iface, 0))
    my_mac = ps.getsockname()[4]
    srv_mac = bytes.fromhex(a.server_mac.replace(":", ""))

    def eth(payload, etype=0x0800, dst=srv_mac):
        return dst + my_mac + struct.pack("!H", etype) + payload

    spate_ok = dgram([sub_del(1)])  # would be valid (NACK UNKNOWN_ID) if it got through
    frames = []

    def add(counter, frame, n=1, exact=True):
        for _ in range(n):
            frames.append(frame)
        (eq if exact else ge)[counter] = (eq if exact else ge).get(counter, 0) + n

    add("ip_bad_csum", eth(ipv4(udp(spate_ok), 17, bad_csum=True)), 5)
    add("udp_bad_csum", eth(ipv4(udp(spate_ok, cs="bad"), 17)), 5)
    # Fragments (MF set, or an offset): spated drops them as ip_fragment,
    # but net_af_packet opens its socket with PACKET_FANOUT_FLAG_DEFRAG, so
    # the kernel holds them for reassembly and spated never sees these.
    # Sent anyway, counted nowhere: they must only not be answered.
    frames += [eth(ipv4(udp(spate_ok), 17, frag=0x2000))] * 3
    frames += [eth(ipv4(udp(spate_ok), 17, frag=0x0010))] * 2
    add("ip_truncated", eth(ipv4(udp(spate_ok), 17, tot_len=400)), 3)       # longer than frame
    add("ip_bad_header", eth(ipv4(udp(spate_ok), 17, ihl=4)), 1)
    add("ip_bad_header", eth(ipv4(udp(spate_ok), 17, version=6)), 1)
    add("ip_bad_header", eth(b"\x45\0\0"), 1)                               # truncated IPv4
    add("ip_not_ours", eth(ipv4(udp(spate_ok, dst=CLIENT_IP), 17, dst=CLIENT_IP)), 3)
    add("udp_bad_len", eth(ipv4(udp(spate_ok, ulen=8 + len(spate_ok) + 4), 17)), 2)
    add("udp_other_port", eth(ipv4(udp(spate_ok, dport=PORT + 1), 17)), 2)
    add("icmp_bad", eth(ipv4(icmp_echo(bad=True), 1)), 2)
    add("ip_other_proto", eth(ipv4(b"\0" * 20, 6)), 2)                      # TCP
    add("rx_other_ethertype", eth(b"\0" * 46, etype=0x88b5), 3, exact=False)
    add("rx_other_mac", eth(ipv4(udp(spate_ok), 17), dst=bytes.fromhex("020000000001")), 2,
        exact=False)
    # UDP checksum 0 = not computed: accepted; the payload is garbage, so
    # it ends as a refused header (and shows that zero is let through).
    frames.append(eth(ipv4(udp(b"\0garbage-with-no-checksum", cs="zero"), 17)))
    eq["bad_header"] += 1
    for f in frames:
        ps.send(f)
    ps.close()

    # Nothing of section 4 may be answered.
    us.settimeout(0.5)
    try:
        data = us.recv(65536)
        print("craft: unexpected reply after the bad frames: %r" % data[:32])
        ok = False
    except socket.timeout:
        pass
    with open(a.out, "w") as f:
        json.dump({"eq": eq, "ge": ge}, f)
    print("craft: sent %d refused datagrams and %d bad frames" % (len(bad) + 2, len(frames)))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
