#!/bin/bash
# oversize.sh - datagrams larger than the protocol's limit (mtu - 28 =
# 1472 bytes at the shipped MTU), sent as a client would: the client's
# kernel fragments them; net_af_packet has the kernel of spated's side
# put the fragments together again (PACKET_FANOUT_FLAG_DEFRAG) before
# spated sees them. Whatever the PMD, such a datagram is dropped without
# reply and counted under its own reason:
#   1472 bytes          served (ACKs)
#   1473 to 1900 bytes  whole but over the MTU: ip_over_mtu
#   2000 bytes and up   cut by the kernel to af_packet's frame: ip_truncated
# and the kernel's own figures, read by spated: port_kernel_reasm_ok for
# each of those, port_kernel_reasm_fails for a lone fragment (held by the
# kernel, never seen by spated) once its time is up (docs/protocol.md
# "Limits", docs/operations.md). ip_bad_header stays 0.
. "$(dirname "$0")/common.sh"

e2e_start
# the kernel gives up on an incomplete datagram after 1 s, not 30
netns_srv sysctl -qw net.ipv4.ipfrag_time=1 || fail "ipfrag_time"
before=$(netns_spated_stats) || fail "no counters"
netns_cli timeout 60 python3 - "$E2E_DIR" <<'PY' || fail "oversized datagrams"
import sys, time
sys.path.insert(0, sys.argv[1])
from spatecli import Client, datagram, sub_add, sub_del, wait_for_server
from craft import PORT, SERVER_IP

def sized(size, first_id, client, seq):
    """A datagram of SUB_ADDs (ids first_id, ...) of exactly `size` bytes:
    keywords pad each message (at most 16 of 64 bytes)."""
    msgs, left, sid = [], size - 16, first_id
    while left > 0:
        n = min(left, 36 + 16 * 65)
        if 0 < left - n < 37:
            n = left - 37  # leave room for a whole last message
        kws, k = [], n - 36
        while k > 0:
            w = min(64, k - 1)
            kws.append("k%02d" % len(kws) + "x" * (w - 3))
            k -= w + 1
        msgs.append(sub_add(sid, (0, 0, 10, 10), kws))
        assert len(msgs[-1]) == n, (len(msgs[-1]), n)
        left -= n
        sid += 1
    d = datagram(msgs, client, seq, oversize=True)
    assert len(d) == size, (len(d), size)
    return d, len(msgs)

c = Client(9)
wait_for_server(c)
for i, size in enumerate((1472, 1473, 1600, 1800, 1900, 2000, 2500, 4000, 8000)):
    d, n = sized(size, 1000 * (i + 1), 9, 100 + i)
    c.s.sendto(d, (SERVER_IP, PORT))
    got = [r for r in c.replies(n, timeout=1.5) if r[0] != "NOTIFY"]
    want = n if size <= 1472 else 0
    if len(got) != want or any(r[0] != "ACK" for r in got):
        print("FAIL: a datagram of %d bytes (%d messages): %d replies %s, want %d ACKs"
              % (size, n, len(got), got[:2], want))
        sys.exit(1)
    print("ok: %d bytes: %s" % (size, "%d ACKs" % n if want else "no reply"))

# A first fragment whose rest never comes (MF set, offset 0), twice.
import socket, struct
raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
udp = struct.pack(">HHHH", 40000, PORT, 8 + 64, 0) + bytes(56)
for ident in (0x4242, 0x4243):
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), ident, 0x2000, 64, 17, 0,
                     socket.inet_aton("198.18.0.2"), socket.inet_aton(SERVER_IP))
    raw.sendto(ip + udp, (SERVER_IP, 0))
time.sleep(3)  # ipfrag_time is 1 s
print("ok: two lone fragments sent")
PY
after=$(netns_spated_stats) || fail "no counters"
python3 - "$before" "$after" <<'PY' || fail "oversized datagrams not counted under their reasons"
import json, sys
a, b = (json.loads(x) for x in sys.argv[1:3])
d = {k: b.get(k, 0) - a.get(k, 0) for k in ("ip_over_mtu", "ip_truncated", "ip_bad_header",
                                            "ip_fragment", "port_kernel_reasm_ok",
                                            "port_kernel_reasm_fails")}
print("counted:", d)
# The kernel put the 8 oversized datagrams together (spated's namespace
# has no other traffic) and gave up on the two lone fragments.
assert d == {"ip_over_mtu": 4, "ip_truncated": 4, "ip_bad_header": 0, "ip_fragment": 0,
             "port_kernel_reasm_ok": 8, "port_kernel_reasm_fails": 2}, d
PY
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: oversize"
