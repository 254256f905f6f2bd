#!/usr/bin/env python3
"""peer_forge.py - an attacker on the inter-host segment (issue 23).

Run in the bridge namespace of multihost-net.sh: it listens on the
front's bridge port (every frame from the front, as a mirror port would
show them) and sends on match host 2's (what it sends reaches that host
directly):

  peer_forge.py sniff IFACE STATE STOP_FILE SECONDS [FROM TO]
      record the data frame of the highest sequence number the front
      (host 1; or the last frame
      host FROM, a data frame or an ack) sent host 2 (or host TO) (its Ethernet
      and IP addresses, header, and a category id from a SUB_ADD or
      EVENT in it) into STATE (JSON; STATE.ready appears once it
      listens), once STOP_FILE exists and the
      front has been quiet for a second; exit 1 if that took more than
      SECONDS.
  peer_forge.py one IFACE STATE REPLY_IP:PORT
      one frame claiming to be that front, with the next sequence number
      (the one the front will use next): CREATE + SUB_ADD of a whole-world
      subscription into the sniffed category, answers to REPLY_IP:PORT.
      Authentic in every field but the tag (random), so a host that does
      not check tags applies it.
  peer_forge.py sweep IFACE STATE COUNT [FIRST]
      COUNT blind frames claiming to be the front, sequence FIRST (1)
      onwards, each a SUB_ADD as above, as fast as the socket takes them.
  peer_forge.py wrongaddr IFACE STATE
      the "one" frame from another IP address (the client's).
  peer_forge.py replay IFACE STATE [first]
      every authentic frame the sniffer kept (the front's own, tag and
      all; its last ones, or with `first` its first ones), twice each,
      from the front's addresses: each one's sequence number was taken
      already - or, after both hosts restarted, their channel starts
      again and the first ones' numbers are ahead.
  peer_forge.py signed IFACE STATE KEYFILE CASE REPLY_IP:PORT
      the "one" frame signed (an insider's forgery, or an old frame of
      the cluster replayed), CASE: wrongkey (a key not the cluster's,
      under the cluster key's id), unknownkey (the cluster's key, under
      an id the file does not have), srcepoch / dstepoch (the cluster's
      key, the front's epoch - 1: an older incarnation; the host's epoch
      + 1: not this one), wrongport (the
      cluster's key, from the front's IP but not port 47110), good (the
      cluster's key, every field right: the control, it is applied).
  peer_forge.py client IP:PORT REPLY_PORT SECONDS
      a client datagram (SUB_ADD of a whole-world subscription) to
      IP:PORT from REPLY_PORT; print how many datagrams came back.
  peer_forge.py listen IP:PORT SECONDS [STOP_FILE]
      count the datagrams that arrive at IP:PORT in SECONDS (or until
      STOP_FILE exists; STOP_FILE.bound appears once it listens); print it.

The frame layout is docs/multihost.md's, written here from the table: a
version 1 frame (no tag) is forged when the host's frames are version 1,
so the same test shows what older code does.
"""
import hashlib
import hmac
import json
import os
import socket
import struct
import sys
import time

from craft import csum
from spatecli import WORLD, datagram, sub_add

PEER_PORT = 47110
ETH_P_ALL = 0x0003
MAGIC = 0x5348
HDR = struct.Struct(">HBBHHIIIIIII")  # magic ver key length count src sepoch dst depoch seq ack sack
TAG_LEN = 16
KEEP = 8  # authentic frames the sniffer keeps for "replay"
CREATE, SUB_ADD, EVENT, FEEDBACK = 2, 3, 1, 11
CLIENT_SUB_ADD = 2


def ip_of(s):
    return socket.inet_aton(s)


def parse(frame):
    """(eth dst, eth src, ip src, ip dst, sport, dport, payload) or None."""
    if len(frame) < 42 or frame[12:14] != b"\x08\x00":
        return None
    ihl = (frame[14] & 15) * 4
    if frame[23] != 17:
        return None
    ip = frame[14:]
    udp = ip[ihl:]
    sport, dport, ulen = struct.unpack(">HHH", udp[:6])
    return frame[0:6], frame[6:12], ip[12:16], ip[16:20], sport, dport, udp[8:ulen]


def build_eth(dst_mac, src_mac, src_ip, dst_ip, payload, sport=PEER_PORT, dport=PEER_PORT):
    """An Ethernet frame of IPv4/UDP; UDP checksum 0 (none, allowed over
    IPv4), so frames of one length differ only in their payload."""
    udp_len = 8 + len(payload)
    udp = struct.pack(">HHHH", sport, dport, udp_len, 0) + payload
    iph = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + udp_len, 0x1234, 0x4000, 64, 17, 0,
                      src_ip, dst_ip)
    iph = iph[:10] + struct.pack(">H", csum(iph)) + iph[12:]
    return dst_mac + src_mac + b"\x08\x00" + iph + udp


def first_cat(payload, count):
    """A category id named by a SUB_ADD, EVENT or FEEDBACK in the frame's
    messages."""
    off = HDR.size
    for _ in range(count):
        if off + 4 > len(payload):
            return None
        mtype, _, mlen = struct.unpack(">BBH", payload[off:off + 4])
        body = payload[off + 4:off + mlen]
        if mtype == SUB_ADD and len(body) >= 4:
            return struct.unpack(">I", body[:4])[0]
        if mtype in (EVENT, FEEDBACK) and len(body) >= 12:  # their first category
            return struct.unpack(">I", body[8:12])[0]
        off += max(mlen, 4)
    return None


def sniff(iface, state, stop_file, seconds, src_host=1, dst_host=2):
    """Until stop_file exists and host 1 has sent no data frame for a
    second (its last sequence number is then the one before its next),
    at most `seconds`."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.settimeout(0.1)
    open(state + ".ready", "w").close()  # the caller may start the traffic
    last, cat, frames, quiet_since, kept, first = None, None, 0, time.time(), [], []
    seen = {"frames": 0, "peer": 0}
    until = time.time() + float(seconds)
    while time.time() < until:
        # the front's next sequence number is known once it is quiet; a
        # match host's acks (heartbeats: never quiet) need no such wait
        if os.path.exists(stop_file) and last is not None and (
                src_host != 1 or time.time() - quiet_since >= 1.0):
            break
        try:
            f, where = s.recvfrom(65535)
        except socket.timeout:
            continue
        if where[2] == socket.PACKET_OUTGOING:
            continue  # sent on this port (the forger's own, or towards the front)
        seen["frames"] += 1
        p = parse(f)
        if p is None or p[4] != PEER_PORT or p[5] != PEER_PORT or len(p[6]) < HDR.size:
            continue
        seen["peer"] += 1
        h = HDR.unpack(p[6][:HDR.size])
        # the front's data frames; a match host's frames of any kind (it
        # sends the front data only for DRt feedback)
        if h[0] != MAGIC or h[5] != src_host or h[7] != dst_host or (h[4] == 0 and src_host == 1):
            continue
        frames += 1
        quiet_since = time.time()
        kept.append(p[6].hex())
        if len(first) < KEEP and h[4]:
            first.append(p[6].hex())
        del kept[:-KEEP]
        if last is not None and h[4] and ((h[9] - last["seq"]) & 0xFFFFFFFF) >= 1 << 31:
            continue  # a retransmission: the next number follows the highest
        last = {"dst_mac": p[0].hex(), "src_mac": p[1].hex(),
                "src_ip": socket.inet_ntoa(p[2]), "dst_ip": socket.inet_ntoa(p[3]),
                "version": h[1], "key": h[2], "src_host": h[5], "src_epoch": h[6],
                "dst_host": h[7], "dst_epoch": h[8], "seq": h[9], "ack": h[10]}
        c = first_cat(p[6], h[4])
        if c is not None:
            cat = c
    if cat is None and src_host != 1:
        cat = 0
    if last is None or cat is None or time.time() >= until:
        print("peer_forge: no quiet data frame of host %d with a category within %s s "
              "(%d frames seen, %d inter-host, %d data frames of host %d)"
              % (src_host, seconds, seen["frames"], seen["peer"], frames, src_host))
        return 1
    last["cat"] = cat
    last["frames"] = frames
    last["kept"] = kept
    last["first"] = first
    json.dump(last, open(state, "w"))
    print("peer_forge: %d data frames of host %d to host %d seen; last seq %d, category %d" %
          (frames, last["src_host"], last["dst_host"], last["seq"], cat))
    return 0


def forged(st, seq, reply_ip, reply_port, sub_id):
    """A frame of CREATE + SUB_ADD as the front would send it, with a random
    tag (version 2) or none (version 1)."""
    world = struct.pack(">Qiiii", sub_id, -1800000000, -900000000, 1800000000, 900000000)
    client = world + ip_of(reply_ip) + struct.pack(">HBB", reply_port, 0, 0)
    inner = struct.pack(">BBH", CLIENT_SUB_ADD, 0, 4 + len(client)) + client
    reply = ip_of(reply_ip) + struct.pack(">HBBI", reply_port, CLIENT_SUB_ADD, 0, 7)
    sa = struct.pack(">II", st["cat"], 0) + reply + inner
    msgs = (struct.pack(">BBHIHH", CREATE, 0, 12, st["cat"], 0, 0) +
            struct.pack(">BBH", SUB_ADD, 0, 4 + len(sa)) + sa)
    tag = os.urandom(TAG_LEN) if st["version"] >= 2 else b""
    length = HDR.size + len(msgs) + len(tag)
    h = HDR.pack(MAGIC, st["version"], st["key"], length, 2, st["src_host"], st["src_epoch"],
                 st["dst_host"], st["dst_epoch"], seq, st["ack"], 0)
    return h + msgs + tag


def cluster_key(path):
    """(id, bytes) of the key that signs (the first "key ID HEX" line),
    and an id no line has."""
    keys = [line.split() for line in open(path) if line.startswith("key ")]
    if not keys:
        raise SystemExit("peer_forge: no key in %s" % path)
    ids = {int(k[1]) for k in keys}
    return int(keys[0][1]), bytes.fromhex(keys[0][2]), min(set(range(1, 256)) - ids)


def sign(frame, key_id, key):
    """As spate_peer_auth_sign: byte 3 the key id, the tag the first 128
    bits of HMAC-SHA256 of every byte before it."""
    f = bytearray(frame)
    f[3] = key_id
    f[-TAG_LEN:] = hmac.new(key, bytes(f[:-TAG_LEN]), hashlib.sha256).digest()[:TAG_LEN]
    return bytes(f)


def signed(st, keyfile, case, reply_ip, reply_port):
    """The "one" frame, signed as CASE says; (frame, source port)."""
    key_id, key, unknown_id = cluster_key(keyfile)
    s2 = dict(st)
    if case == "srcepoch":
        # older (newer when there is none: static peers used to be epoch 1)
        s2["src_epoch"] = s2["src_epoch"] - 1 or s2["src_epoch"] + 1
    elif case == "dstepoch":
        s2["dst_epoch"] += 1
    s2["version"] = max(st["version"], 2)
    f = forged(s2, st["seq"] + 1, reply_ip, reply_port, 999999003)
    if case == "wrongkey":
        return sign(f, key_id, os.urandom(32)), PEER_PORT
    if case == "unknownkey":
        return sign(f, unknown_id, key), PEER_PORT
    if case in ("srcepoch", "dstepoch", "good", "wrongport"):
        return sign(f, key_id, key), PEER_PORT + 1 if case == "wrongport" else PEER_PORT
    raise SystemExit("peer_forge: no case %s" % case)


def client(addr, reply_port, seconds):
    """A client's SUB_ADD of the whole world, client id 66, to addr."""
    ip, port = addr.rsplit(":", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", int(reply_port)))
    s.settimeout(0.1)
    s.sendto(datagram([sub_add(999999010, WORLD)], 66, 1), (ip, int(port)))
    print(count_arrivals(s, seconds))
    return 0


def sender(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    return s


def send_as_front(s, st, payload, src_ip=None, sport=PEER_PORT):
    s.send(build_eth(bytes.fromhex(st["dst_mac"]), bytes.fromhex(st["src_mac"]),
                     ip_of(src_ip or st["src_ip"]), ip_of(st["dst_ip"]), payload, sport=sport))


def count_arrivals(s, seconds, stop_file=None):
    """Datagrams that reach s (timeout 0.1 s) in seconds, or until
    stop_file exists."""
    n = 0
    until = time.time() + float(seconds)
    while time.time() < until and not (stop_file and os.path.exists(stop_file)):
        try:
            s.recv(65535)
            n += 1
        except socket.timeout:
            pass
    return n


def listen(addr, seconds, stop_file=None):
    ip, port = addr.rsplit(":", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((ip, int(port)))
    s.settimeout(0.1)
    if stop_file:
        open(stop_file + ".bound", "w").close()  # the forger may send
    print(count_arrivals(s, seconds, stop_file))
    return 0


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "sniff" and len(argv) in (6, 8):
        return sniff(argv[2], argv[3], argv[4], argv[5], *(int(a) for a in argv[6:8]))
    if cmd == "listen" and len(argv) in (4, 5):
        return listen(*argv[2:])
    if cmd == "client" and len(argv) == 5:
        return client(argv[2], argv[3], argv[4])
    if cmd == "signed" and len(argv) == 7:
        st = json.load(open(argv[3]))
        ip, port = argv[6].rsplit(":", 1)
        f, sport = signed(st, argv[4], argv[5], ip, int(port))
        send_as_front(sender(argv[2]), st, f, sport=sport)
        return 0
    if cmd == "replay" and len(argv) in (4, 5):
        st = json.load(open(argv[3]))
        s = sender(argv[2])
        kept = st["first"] if len(argv) == 5 and argv[4] == "first" else st["kept"]
        for _ in range(2):
            for f in kept:
                send_as_front(s, st, bytes.fromhex(f))
        print(2 * len(kept))
        return 0
    if cmd in ("one", "sweep", "wrongaddr") and len(argv) >= 4:
        st = json.load(open(argv[3]))
        s = sender(argv[2])
        if cmd == "one":
            ip, port = argv[4].rsplit(":", 1)
            send_as_front(s, st, forged(st, st["seq"] + 1, ip, int(port), 999999001))
        elif cmd == "wrongaddr":
            send_as_front(s, st, forged(st, st["seq"] + 1, "198.18.0.2", 46667, 999999002),
                          src_ip="198.18.0.2")
        else:
            # one frame, its sequence number, subscription id and tag
            # patched in place: the sweep takes about a second
            f = bytearray(build_eth(bytes.fromhex(st["dst_mac"]), bytes.fromhex(st["src_mac"]),
                                    ip_of(st["src_ip"]), ip_of(st["dst_ip"]),
                                    forged(st, 1, "198.18.0.2", 46668, 999000000)))
            seq_at, tag_at = 42 + 24, len(f) - TAG_LEN
            id_at = f.index(struct.pack(">Q", 999000000))
            first = int(argv[5]) if len(argv) > 5 else 1
            for i in range(first - 1, first - 1 + int(argv[4])):
                struct.pack_into(">I", f, seq_at, i + 1)
                struct.pack_into(">Q", f, id_at, 999000000 + i)
                if st["version"] >= 2:
                    f[tag_at:] = os.urandom(TAG_LEN)
                s.send(f)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
