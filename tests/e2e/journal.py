#!/usr/bin/env python3
"""journal.py - the client side of journal.sh (crash safety).

  journal.py load STATE SECONDS [WINDOW]
                                  stream SUB_ADD/SUB_DEL until SECONDS pass
                                  or the server stops answering (journal.sh
                                  kills it with -9 meanwhile); STATE records
                                  what was ACKed and what got no answer
  journal.py verify STATE         against a restarted server: answer every
                                  unanswered operation by retransmitting it,
                                  then check with events that every ACKed
                                  add is present and every ACKed delete gone

Subscription i: the whole world, one keyword "k<i>"; so an event carrying
k<a>..k<b> is notified to exactly the live subscriptions among a..b.
Prints "ok: ..." lines; exits 1 on the first lost or resurrected
subscription, naming it.
"""
import json
import os
import random
import sys
import time

from spatecli import WORLD, Client, event, fail, parse, sub_add, sub_del, wait_for_server

CLIENT_ID = 77
PORT = 40400            # fixed: restarts must find the subscriptions' address
OPS_PER_DGRAM = 8
WINDOW = 16             # datagrams in flight
SILENCE = 1.5           # s without any reply with ops outstanding: server gone
UNKNOWN_ID = 17
EVENT_KW = 16           # keywords per check event (limits.max_keywords)


def load_state(path):
    if os.path.exists(path):
        with open(path) as f:
            st = json.load(f)
        st["present"], st["gone"] = set(st["present"]), set(st["gone"])
        return st
    return {"next_id": 1, "present": set(), "gone": set(), "pending": [], "iteration": 0,
            "acked_adds": 0, "acked_dels": 0}


def save_state(path, st):
    out = dict(st)
    out["present"], out["gone"] = sorted(st["present"]), sorted(st["gone"])
    with open(path + ".tmp", "w") as f:
        json.dump(out, f)
    os.replace(path + ".tmp", path)


def op_msg(kind, sid):
    return sub_add(sid, WORLD, ["k%d" % sid]) if kind == "add" else sub_del(sid)


def settle_reply(st, kind, sid, r):
    """Apply one answer (kind ACK/NACK, code) to the state."""
    what, code = r
    if kind == "add":
        if what != "ACK":
            fail("SUB_ADD %d refused with code %d" % (sid, code))
        st["present"].add(sid)
        st["gone"].discard(sid)
        st["acked_adds"] += 1
    else:
        if what != "ACK" and code != UNKNOWN_ID:
            fail("SUB_DEL %d refused with code %d" % (sid, code))
        st["present"].discard(sid)
        st["gone"].add(sid)
        st["acked_dels"] += 1


def load(path, seconds, window=WINDOW):
    st = load_state(path)
    if st["pending"]:
        fail("load with unanswered operations: run verify first")
    acked0, t0 = st["acked_adds"] + st["acked_dels"], time.time()
    c = Client(CLIENT_ID, port=PORT)
    rng = random.Random(st["iteration"] * 7919 + 1)
    inflight = {}           # seq -> {id: kind}
    deleting = set()
    end = time.time() + seconds
    last_reply = time.time()
    c.s.settimeout(0.02)
    while True:
        now = time.time()
        if now > end and not inflight:
            break
        if inflight and now - last_reply > SILENCE:
            break                       # killed: what is in flight stays unanswered
        if now > end + 5:
            break
        if now <= end and len(inflight) < window:
            ops = {}
            for _ in range(OPS_PER_DGRAM):
                live = st["present"] - deleting
                if live and rng.random() < 0.25:
                    sid = rng.choice(sorted(live)) if len(live) < 64 else \
                        rng.choice(list(live))
                    ops[sid] = "del"
                    deleting.add(sid)
                else:
                    sid = st["next_id"]
                    st["next_id"] += 1
                    ops[sid] = "add"
            seq = c.send([op_msg(k, i) for i, k in ops.items()])
            inflight[seq] = ops
            continue
        try:
            data = c.s.recv(65536)
        except OSError:
            continue
        for r in parse(data):
            if r[0] == "NOTIFY":
                continue
            ops = inflight.get(r[3])
            if ops is None or r[4] not in ops:
                continue
            last_reply = time.time()
            kind = ops.pop(r[4])
            deleting.discard(r[4])
            settle_reply(st, kind, r[4], (r[0], r[2]))
            if not ops:
                del inflight[r[3]]
    for ops in inflight.values():
        st["pending"].extend([[k, i] for i, k in ops.items()])
    save_state(path, st)
    rate = (st["acked_adds"] + st["acked_dels"] - acked0) / max(time.time() - t0, 1e-3)
    print(json.dumps({"bench": "journal-load", "window": window, "ops_per_dgram": OPS_PER_DGRAM,
                      "acked_ops_per_s": round(rate)}))
    print("ok: load: %d adds and %d deletes ACKed so far, %d operations unanswered, "
          "%d subscriptions live" % (st["acked_adds"], st["acked_dels"], len(st["pending"]),
                                     len(st["present"])))


def first_contact(c):
    wait_for_server(c, sid=0, why="no reply from the restarted server")


def drain(c, got):
    """Take the notifications already received, without waiting."""
    c.s.setblocking(False)
    try:
        while True:
            try:
                data = c.s.recv(65536)
            except BlockingIOError:
                return
            for r in parse(data):
                if r[0] == "NOTIFY":
                    got.setdefault(r[1], set()).update(r[2])
    finally:
        c.s.setblocking(True)


def verify(path):
    st = load_state(path)
    c = Client(CLIENT_ID, port=PORT)
    first_contact(c)
    # 1. every unanswered operation gets its answer now
    resolved = 0
    for kind, sid in st["pending"]:
        for _attempt in range(3):
            got = c.request([op_msg(kind, sid)], timeout=3.0)
            if got:
                break
        else:
            fail("%s %d: no answer to 3 retransmissions after the restart" % (kind, sid))
        settle_reply(st, kind, sid, got[0][:2])
        resolved += 1
    st["pending"] = []
    # 2. every ACKed add present, every ACKed delete gone: events over
    # keyword chunks, each notified to exactly its live subscriptions
    gone = sorted(st["gone"])
    check = sorted(st["present"] | set(gone[-3000:]))
    events, expected = [], {}
    base = (st["iteration"] + 1) * 10_000_000
    for n in range(0, len(check), EVENT_KW):
        chunk = check[n:n + EVENT_KW]
        eid = base + n // EVENT_KW
        events.append(event(eid, 0, 0, ["k%d" % i for i in chunk]))
        want = set(i for i in chunk if i in st["present"])
        if want:
            expected[eid] = want
    got = {}
    for n in range(0, len(events), 4):
        c.send(events[n:n + 4])
        time.sleep(0.001)       # paced: no drop at the server's door
        drain(c, got)
    for eid, ids in c.notifications(quiet=1.5, limit=30).items():
        got.setdefault(eid, set()).update(ids)
    for eid in sorted(set(expected) | set(got)):
        want, have = expected.get(eid, set()), got.get(eid, set())
        if want != have:
            lost, back = sorted(want - have), sorted(have - want)
            fail("event %d: ACKed subscriptions missing %s, deleted ones notified %s "
                 "(%d present, %d gone in all)" % (eid, lost[:10], back[:10],
                                                    len(st["present"]), len(st["gone"])))
    st["iteration"] += 1
    save_state(path, st)
    print("ok: verify: %d unanswered operations answered after the restart; %d ACKed "
          "subscriptions present, %d ACKed deletes checked gone (%d events)"
          % (resolved, len(st["present"]), len(check) - len(st["present"]), len(events)))


def main():
    if len(sys.argv) in (4, 5) and sys.argv[1] == "load":
        load(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) == 5 else WINDOW)
    elif len(sys.argv) == 3 and sys.argv[1] == "verify":
        verify(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
