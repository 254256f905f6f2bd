#!/usr/bin/env python3
"""receivers.py - the client side of receivers.sh: more receivers than
spated's receiver table holds (256: 64 sets of 4, docs/protocol.md,
"Limits"). 300 subscriptions, each notifying its own UDP port, all match
two events. Every receiver must get both notifications (the table only
numbers datagrams; eviction must never lose one), each NOTIFY datagram's
seq must be 1 for a receiver new to the table and 2 for one it kept, and
at least 300 - 256 receivers must have been evicted between the two
events. Prints the number of receivers whose seq restarted."""
import socket
import struct

from spatecli import CLIENT_IP, WORLD, Client, bound_sockets, event, fail, parse, sub_add

N = 300
TABLE = 256
BASE = 41000


def main():
    socks = bound_sockets([(CLIENT_IP, BASE + i) for i in range(N)])
    c = Client(31)
    for n in range(0, N, 25):
        msgs = [sub_add(1000 + i, WORLD, ["rcv"], dest=(CLIENT_IP, BASE + i))
                for i in range(n, n + 25)]
        got = c.request(msgs, timeout=5.0)
        if len(got) != 25 or any(k != "ACK" for k, _c, _i in got):
            fail("SUB_ADDs %d..%d: %s" % (n, n + 24, got[:3]))
    restarted = 0
    for eid in (1, 2):
        c.send([event(eid, 0, 0, ["rcv"])])
        for i, s in enumerate(socks):
            try:
                data = s.recv(65536)
            except socket.timeout:
                fail("receiver %d got no NOTIFY for event %d" % (i, eid))
            seq = struct.unpack(">I", data[12:16])[0]
            notes = [r for r in parse(data) if r[0] == "NOTIFY"]
            if notes != [("NOTIFY", eid, [1000 + i])]:
                fail("receiver %d, event %d: %s" % (i, eid, notes))
            if seq not in ((1,) if eid == 1 else (1, 2)):
                fail("receiver %d, event %d: seq %d" % (i, eid, seq))
            restarted += eid == 2 and seq == 1
    if restarted < N - TABLE:
        fail("only %d receivers restarted at seq 1; the table holds %d" % (restarted, TABLE))
    print("ok: %d receivers each got both notifications; %d restarted at seq 1 (evicted)"
          % (N, restarted))
    print(restarted)


if __name__ == "__main__":
    main()
