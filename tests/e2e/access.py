#!/usr/bin/env python3
"""access.py - the client side of access.sh: ownership, quotas, rate
limits and authenticated datagrams, each checked on the server's replies.

  access.py open       keys configured but not required
  access.py required   access.require_auth = true
Prints one "ok: ..." line per check; exits 1 at the first wrong answer.
Key of client 21 (and of nobody else): bytes 0x40..0x5f.
"""
import sys
import time

from spatecli import PORT, SERVER_IP, Client, datagram, expect, sub_add, sub_del, wait_for_server

KEY = bytes(range(0x40, 0x60))
WRONG = bytes(range(0x41, 0x61))
RECT = (-10_000_000, -10_000_000, 10_000_000, 10_000_000)


def codes(replies):
    return [("ACK" if k == "ACK" else E_NAME.get(c, c)) for k, c, _i in replies]


# NACK codes (lib/proto/spate_err.h) this test expects by name.
E_NAME = {16: "DUPLICATE_ID", 17: "UNKNOWN_ID", 18: "NOT_OWNER", 19: "OVER_QUOTA",
          31: "RATE_LIMITED"}


def open_mode():
    a, b = Client(11), Client(12)
    wait_for_server(a)
    expect("client 11 adds sub 100", codes(a.request([sub_add(100, RECT, ["x"])])), ["ACK"])
    expect("client 12 cannot delete client 11's sub 100",
           codes(b.request([sub_del(100)])), ["NOT_OWNER"])
    expect("client 12 cannot take over id 100 either",
           codes(b.request([sub_add(100, RECT, ["y"])])), ["DUPLICATE_ID"])
    expect("client 11 deletes its sub 100", codes(a.request([sub_del(100)])), ["ACK"])

    q = Client(13)
    # Replies of one datagram may come in several (ACKs from the matching
    # stage, NACKs from the cluster stage): compare them as sets.
    expect("quota: 5 subs per client, the 6th refused",
           sorted(codes(q.request([sub_add(200 + i, RECT, ["q"]) for i in range(6)]))),
           ["ACK"] * 5 + ["OVER_QUOTA"])
    expect("quota: a delete makes room again",
           codes(q.request([sub_del(200), sub_add(205, RECT, ["q"])])), ["ACK", "ACK"])

    # 20 tokens, 50 a second: 50 operations in one datagram (60 would
    # not fit in SPATE_DGRAM_MAX), which the server handles within a
    # millisecond, so at most one token refills.
    r = Client(14)
    msgs = []
    for i in range(25):
        msgs += [sub_add(300 + i, RECT, ["r"]), sub_del(300 + i)]
    got = codes(r.request(msgs))
    acks, limited = got.count("ACK"), got.count("RATE_LIMITED")
    print("rate: %d ACK, %d RATE_LIMITED of %d replies" % (acks, limited, len(got)))
    expect("rate limit: every operation answered", len(got), 50)
    expect("rate limit: the burst of 20 passed, the rest RATE_LIMITED",
           acks in (20, 21) and acks + limited == 50, True)

    k = Client(21, key=KEY)
    expect("client 21 signed add", codes(k.request([sub_add(400, RECT, ["k"])])), ["ACK"])
    expect("client 21 signed with a wrong key: dropped, no reply",
           k.request([sub_add(401, RECT, ["k"])], key=WRONG, timeout=1.0), [])
    # The very same bytes again: a replay.
    d = datagram([sub_add(402, RECT, ["k"])], 21, 99, KEY, nonce=10_000)
    k.s.sendto(d, (SERVER_IP, PORT))
    expect("first copy of nonce 10000 accepted",
           [r[0] for r in k.replies(1, timeout=2.0) if r[0] != "NOTIFY"], ["ACK"])
    k.s.sendto(d, (SERVER_IP, PORT))
    expect("replayed datagram: dropped, no reply", k.replies(1, timeout=1.0), [])
    u = Client(11)
    expect("unsigned datagrams are served while keys are not required",
           codes(u.request([sub_add(500, RECT, ["u"])])), ["ACK"])


def required_mode():
    k = Client(21, key=KEY)
    k.nonce = int(time.time() * 1e6)  # start from the clock: a restart forgot the window
    wait_for_server(k)
    u = Client(11)
    expect("keys required: an unsigned datagram is dropped",
           u.request([sub_add(600, RECT, ["u"])], timeout=1.0), [])
    expect("keys required: a signed one is served",
           codes(k.request([sub_add(601, RECT, ["k"])])), ["ACK"])
    expect("keys required: signed by a client without a key: dropped",
           Client(12, key=KEY).request([sub_add(602, RECT, ["k"])], timeout=1.0), [])


if __name__ == "__main__":
    {"open": open_mode, "required": required_mode}[sys.argv[1]]()
