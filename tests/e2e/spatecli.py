"""spatecli.py - a small Spate client for the e2e tests: builds SUB_ADD,
SUB_DEL and EVENT messages (framing from craft.py), optionally signs
datagrams (docs/protocol.md, "Authenticated datagrams"), and reads the
server's ACK, NACK and NOTIFY messages. Only 198.18.0.1 (spated) and
198.18.0.2 (the client namespace) are used."""
import hashlib
import hmac
import socket
import struct
import sys
import time

from craft import (ACK, CLIENT_IP, E, EVENT, NACK, NOTIFY, PORT, SERVER_IP, SUB_ADD,
                   SUB_DEL, hdr, msg)

FLAG_AUTH = 0x02
WORLD = (-180_000_000, -90_000_000, 180_000_000, 90_000_000)  # a rectangle over everything
AUTH_TRAILER = 40  # u64 nonce + HMAC-SHA256


def fail(text):
    """The test's verdict: print it and exit 1."""
    print("FAIL: " + text)
    sys.exit(1)


def expect(what, got, want):
    """One check: "ok: WHAT", or the verdict (fail) when got is not want."""
    if got != want:
        fail("%s: got %s, want %s" % (what, got, want))
    print("ok: %s" % what)


def wait_for_server(c, sid=1, seconds=30, why="no reply from the server"):
    """Until the server answers client c (a SUB_DEL of sid, sent again
    every 0.5 s), at most `seconds`; else fail with `why`."""
    end = time.time() + seconds
    while not c.request([sub_del(sid)], timeout=0.5):
        if time.time() > end:
            fail(why)


def bound_sockets(addrs, timeout=5.0):
    """One UDP socket bound to each (ip, port) of addrs, in order."""
    out = []
    for a in addrs:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(a)
        s.settimeout(timeout)
        out.append(s)
    return out


def kw(s):
    b = s.encode()
    return bytes([len(b)]) + b


def sub_add(sid, rect, kws=(), dest=(0, 0)):
    ip = struct.unpack(">I", socket.inet_aton(dest[0]))[0] if isinstance(dest[0], str) else dest[0]
    body = struct.pack(">Qiiii", sid, *rect) + struct.pack(">IHBB", ip, dest[1], len(kws), 0)
    return msg(SUB_ADD, body + b"".join(kw(k) for k in kws))


def sub_del(sid):
    return msg(SUB_DEL, struct.pack(">Q", sid))


def event(eid, lon, lat, kws=()):
    body = struct.pack(">QiiBBH", eid, lon, lat, len(kws), 0, 0)
    return msg(EVENT, body + b"".join(kw(k) for k in kws))


DGRAM_MAX = 1472  # SPATE_DGRAM_MAX, lib/proto/spate_proto.h


def datagram(msgs, client_id, seq, key=None, nonce=0, oversize=False):
    """A datagram; with a key, signed: flag 0x02 and a trailer of the nonce
    and HMAC-SHA256(key, every byte before the MAC). Over DGRAM_MAX only
    with oversize=True (e2e-oversize)."""
    body = b"".join(msgs)
    size = 16 + len(body) + (AUTH_TRAILER if key is not None else 0)
    if size > DGRAM_MAX and not oversize:
        # spated drops (and counts) these; a test meaning to send one
        # says so, never builds one by accident here.
        raise ValueError("datagram of %d bytes exceeds %d" % (size, DGRAM_MAX))
    if key is None:
        return hdr(16 + len(body), len(msgs), client_id=client_id, seq=seq) + body
    length = 16 + len(body) + AUTH_TRAILER
    signed = hdr(length, len(msgs), client_id=client_id, seq=seq, flags=FLAG_AUTH) + body + \
        struct.pack(">Q", nonce)
    return signed + hmac.new(key, signed, hashlib.sha256).digest()


def parse(data):
    """[('ACK'|'NACK', req_type, code, req_seq, id) | ('NOTIFY', event_id, [sub ids])]"""
    _m, _v, _f, length, count, _cid, _seq = struct.unpack(">HBBHHII", data[:16])
    out, off = [], 16
    for _ in range(count):
        mtype, _mf, mlen = struct.unpack(">BBH", data[off:off + 4])
        if mtype in (ACK, NACK):
            rt, code, _z, rseq, mid = struct.unpack(">BBHIQ", data[off + 4:off + 20])
            out.append(("ACK" if mtype == ACK else "NACK", rt, code, rseq, mid))
        elif mtype == NOTIFY:
            eid, n, _z = struct.unpack(">QHH", data[off + 4:off + 16])
            ids = list(struct.unpack(">%dQ" % n, data[off + 16:off + 16 + 8 * n]))
            out.append(("NOTIFY", eid, ids))
        off += mlen
    return out


class Client:
    def __init__(self, client_id, port=0, key=None):
        self.client_id, self.key, self.seq, self.nonce = client_id, key, 0, 0
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.bind((CLIENT_IP, port))
        self.port = self.s.getsockname()[1]

    def send(self, msgs, key=None, client_id=None):
        self.seq += 1
        self.nonce += 1
        k = self.key if key is None else key
        if k == b"":
            k = None
        d = datagram(msgs, self.client_id if client_id is None else client_id, self.seq, k,
                     self.nonce)
        self.s.sendto(d, (SERVER_IP, PORT))
        return self.seq

    def replies(self, want, timeout=2.0):
        """Read until `want` ACK/NACKs arrived or `timeout` s of silence."""
        got = []
        self.s.settimeout(timeout)
        while sum(1 for r in got if r[0] != "NOTIFY") < want:
            try:
                data = self.s.recv(65536)
            except socket.timeout:
                break
            got.extend(parse(data))
        return got

    def request(self, msgs, timeout=2.0, **kw):
        """Send one datagram; return its ACK/NACKs as [(kind, code, id)]."""
        seq = self.send(msgs, **kw)
        return [(r[0], r[2], r[4]) for r in self.replies(len(msgs), timeout) if
                r[0] != "NOTIFY" and r[3] == seq]

    def notifications(self, quiet=1.0, limit=30.0):
        """{event_id: set(sub ids)} until `quiet` s without a datagram."""
        out, end = {}, time.time() + limit
        self.s.settimeout(quiet)
        while time.time() < end:
            try:
                data = self.s.recv(65536)
            except socket.timeout:
                break
            for r in parse(data):
                if r[0] == "NOTIFY":
                    out.setdefault(r[1], set()).update(r[2])
        return out


__all__ = ["WORLD", "fail", "bound_sockets", "Client", "sub_add", "sub_del", "event", "datagram", "parse", "E", "SUB_ADD",
           "SUB_DEL", "FLAG_AUTH", "CLIENT_IP"]
