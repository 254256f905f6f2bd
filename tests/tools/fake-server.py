#!/usr/bin/env python3
"""fake-server.py - a stand-in Spate server on 127.0.0.1 for spate-sub's
loss reporting: ACKs every SUB_ADD (the first copy of the first one is
ignored, so the client must retransmit), then sends NOTIFYs numbered
with the server's per-receiver sequence, skipping some numbers and
sending one late, as a lossy network would.

  fake-server.py PORTFILE
writes the UDP port it listens on to PORTFILE, serves one client and
exits (at most 20 s). Codec from the byte layout in docs/protocol.md.

  fake-server.py --sink PORTFILE COUNTFILE
only counts: datagrams and EVENT messages (with their ids in order)
until 1 s of silence, written to COUNTFILE as "datagrams events ids";
spate-pub's probe (one message of type 0) is answered with a NACK
UNKNOWN_TYPE, as spated does, and not counted.

  fake-server.py --sink PORTFILE COUNTFILE --die-after N | --mute-after N
the same until N events came, then a dead server: the socket closed (the
kernel answers ICMP port unreachable) or nothing answered any more
(probes neither); what came is written at once.
"""
import os
import socket
import struct
import sys
import time

MAGIC, VERSION, SERVER = 0x5350, 1, 0x01
SUB_ADD, ACK, NACK, NOTIFY = 2, 4, 5, 6
UNKNOWN_TYPE = 15


def dgram(seq, msgs):
    body = b"".join(struct.pack(">BBH", t, 0, 4 + len(b)) + b for t, b in msgs)
    return struct.pack(">HBBHHII", MAGIC, VERSION, SERVER, 16 + len(body), len(msgs), 0, seq) + body


def notify(event_id, subs):
    return (NOTIFY, struct.pack(">QHH", event_id, len(subs), 0) + b"".join(struct.pack(">Q", s) for s in subs))


def listen(portfile):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.settimeout(20)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    return s


def sink(portfile, countfile, stop=None, after=0):
    s = listen(portfile)
    n_dgrams, ids, seq = 0, [], 0
    while True:
        if stop is not None and len(ids) >= after:
            break
        try:
            data, peer = s.recvfrom(65536)
        except socket.timeout:
            break
        s.settimeout(1.0)
        count, _, req_seq = struct.unpack(">HII", data[6:16])
        if count == 1 and data[16] == 0:
            # spate-pub's probe (a message of type 0): NACK UNKNOWN_TYPE
            seq += 1
            s.sendto(dgram(seq, [(NACK, struct.pack(">BBHIQ", 0, UNKNOWN_TYPE, 0, req_seq, 0))]), peer)
            continue
        n_dgrams += 1
        off = 16
        for _ in range(count):
            mtype, _, mlen = struct.unpack(">BBH", data[off:off + 4])
            if mtype == 1:
                ids.append(struct.unpack(">Q", data[off + 4:off + 12])[0])
            off += mlen
    with open(countfile, "w") as f:
        f.write(f"{n_dgrams} {len(ids)} {','.join(map(str, ids))}\n")
    if stop == "--die-after":
        s.close()
    elif stop == "--mute-after":
        time.sleep(2)  # open, silent


def main():
    if sys.argv[1] == "--sink":
        if len(sys.argv) > 5:
            sink(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
        else:
            sink(sys.argv[2], sys.argv[3])
        return
    s = listen(sys.argv[1])
    seq, subs, ignored, peer = 0, [], False, None
    deadline = time.time() + 20
    while len(subs) < 2 and time.time() < deadline:
        data, peer = s.recvfrom(2048)
        _, _, _, _, count, _, req_seq = struct.unpack(">HBBHHII", data[:16])
        mtype, _, _ = struct.unpack(">BBH", data[16:20])
        sid = struct.unpack(">Q", data[20:28])[0]
        if mtype != SUB_ADD:
            continue
        if not ignored:
            ignored = True  # lose the first copy: the client must retransmit
            continue
        seq += 1
        s.sendto(dgram(seq, [(ACK, struct.pack(">BBHIQ", SUB_ADD, 0, 0, req_seq, sid))]), peer)
        if sid not in subs:
            subs.append(sid)
    time.sleep(0.2)
    # NOTIFYs: seq 3, 4, then 7 (5 and 6 lost), then 5 late, then 8.
    plan = [(3, 100), (4, 101), (7, 104), (5, 102), (8, 105)]
    for sq, ev in plan:
        s.sendto(dgram(sq, [notify(ev, sorted(subs))]), peer)
        time.sleep(0.05)


if __name__ == "__main__":
    main()
