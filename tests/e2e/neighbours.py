#!/usr/bin/env python3
"""neighbours.py - the client side of neighbours.sh: notifications to
receivers spated never heard from, more of them than a small table would
hold. neighbours.sh gave the client namespace the addresses
198.18.0.100 .. 198.18.0.(100+N-1); each gets one subscription notifying
its own address, port 42000, and two events match all of them. Every
receiver must get both notifications: the first ones wait in spated for
the ARP answer instead of being dropped.

  neighbours.py N [UNREACHABLE_IP]
  neighbours.py --addrs IP...
With UNREACHABLE_IP, one more subscription notifies that address (which
nobody holds): its notifications must be held, then dropped and counted
(checked by neighbours.sh), never sent elsewhere. --addrs names the
receivers' addresses instead (a receiver behind spated's gateway)."""
import socket
import sys
import time

from spatecli import WORLD, Client, bound_sockets, event, fail, parse, sub_add

PORT = 42000


def main():
    unreachable = None
    if sys.argv[1] == "--addrs":
        addrs = sys.argv[2:]
    else:
        addrs = ["198.18.0.%d" % (100 + i) for i in range(int(sys.argv[1]))]
        unreachable = sys.argv[2] if len(sys.argv) > 2 else None
    n = len(addrs)
    socks = bound_sockets([(a, PORT) for a in addrs])
    c = Client(41)
    subs = [sub_add(5000 + i, WORLD, ["nb"], dest=(a, PORT)) for i, a in enumerate(addrs)]
    if unreachable:
        subs.append(sub_add(9999, WORLD, ["nb"], dest=(unreachable, PORT)))
    for k in range(0, len(subs), 20):
        got = c.request(subs[k:k + 20], timeout=5.0)
        if len(got) != len(subs[k:k + 20]) or any(r[0] != "ACK" for r in got):
            fail("SUB_ADDs from %d: %s" % (k, got[:3]))
    for eid in (1, 2):
        c.send([event(eid, 0, 0, ["nb"])])
        for i, s in enumerate(socks):
            try:
                data = s.recv(65536)
            except socket.timeout:
                fail("receiver %s got no notification of event %d" % (addrs[i], eid))
            notes = [r for r in parse(data) if r[0] == "NOTIFY"]
            if notes != [("NOTIFY", eid, [5000 + i])]:
                fail("receiver %s, event %d: %s" % (addrs[i], eid, notes))
        time.sleep(0.2)
    print("ok: %d receivers new to spated each got both notifications (%s ..)" % (n, addrs[0]))


if __name__ == "__main__":
    main()
