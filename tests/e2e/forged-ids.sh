#!/bin/bash
# forged-ids.sh - datagrams that claim a client id not theirs.
# 1. client_id 0 belongs to the server (preloaded subscriptions are its
#    own): SUB_DEL, SUB_ADD and EVENT claiming it are NACKed
#    RESERVED_CLIENT and counted; the preloaded subscriptions stay.
# 2. With keys configured and access.require_auth false, an unsigned
#    datagram claiming a keyed client's id is dropped (AUTH_REQUIRED,
#    counted): it cannot delete that client's signed subscription. Clients
#    without a key are still served unsigned.
. "$(dirname "$0")/common.sh"

sock=$E2E_TMP/ctl.sock
ctl() { timeout 20 "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }
key=404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f
printf 'sub\t900\t-10\t-10\t10\t10\tpre\nsub\t901\t-10\t-10\t10\t10\t-\n' >"$E2E_TMP/preload.tsv"
conf=$E2E_TMP/spated.conf
sed "s|^spated: {|spated: {\n  preload = \"$E2E_TMP/preload.tsv\";|" "$SPATE_CONF" >"$conf"
cat >>"$conf" <<CONF
control: { socket = "$sock"; };
access: { require_auth = false; keys = ( { client = 21; key = "$key"; } ); };
CONF
grep -q preload "$conf" || fail "preload not set in the test config"
netns_create || fail "cannot create the namespaces"
netns_spated_start "$SPATED_LOG" -c "$conf" || fail "spated did not start"
for _ in $(seq 1 100); do
	grep -q "preload done" "$SPATED_LOG" && break
	sleep 0.1
done
[ "$(ctl show subs --count | sed -n 's/^count: //p')" = 2 ] ||
	fail "preloaded subscriptions not there: $(ctl show subs --count)"
before=$(netns_spated_stats) || fail "no counters"

netns_cli timeout 120 python3 - "$E2E_DIR" <<'PY' || fail "forged client ids"
import sys
sys.path.insert(0, sys.argv[1])
from spatecli import Client, event, expect, sub_add, sub_del, wait_for_server

KEY = bytes(range(0x40, 0x60))
RECT = (-10_000_000, -10_000_000, 10_000_000, 10_000_000)
RESERVED_CLIENT = 32

def codes(replies):
    return sorted((k, c) for k, c, _i in replies)

wait_for_server(Client(5))

zero = Client(0)
expect("SUB_DEL of preloaded sub 900 claiming client 0",
       codes(zero.request([sub_del(900)])), [("NACK", RESERVED_CLIENT)])
expect("SUB_ADD, SUB_DEL and EVENT claiming client 0, one datagram",
       codes(zero.request([sub_add(902, RECT, ["x"]), sub_del(901), event(1, 0, 0, ["pre"])])),
       [("NACK", RESERVED_CLIENT)] * 3)

owner = Client(21, key=KEY)
expect("keyed client 21 adds sub 500, signed", codes(owner.request([sub_add(500, RECT, ["k"])])),
       [("ACK", 0)])
forger = Client(21)
expect("an unsigned SUB_DEL claiming keyed client 21 gets no reply",
       codes(forger.request([sub_del(500)], timeout=1.0)), [])
expect("a SUB_DEL signed with the wrong key gets no reply",
       codes(forger.request([sub_del(500)], key=bytes(32), timeout=1.0)), [])
expect("sub 500 is still there: client 21 deletes it, signed",
       codes(owner.request([sub_del(500)])), [("ACK", 0)])
other = Client(22)
expect("client 22 (no key) is served unsigned",
       codes(other.request([sub_add(501, RECT, ["k"]), sub_del(501)])), [("ACK", 0)] * 2)
PY
after=$(netns_spated_stats) || fail "no counters"
[ "$(ctl show subs --count | sed -n 's/^count: //p')" = 2 ] ||
	fail "preloaded subscriptions changed: $(ctl show subs --count)"
python3 - "$before" "$after" <<'PY' || fail "refusals not counted"
import json, sys
a, b = (json.loads(x) for x in sys.argv[1:3])
d = lambda m, k: b[m].get(k, 0) - a[m].get(k, 0)
assert d("msg_err", "RESERVED_CLIENT") == 4, b["msg_err"]
assert d("hdr_err", "AUTH_REQUIRED") == 1 and d("hdr_err", "AUTH_FAILED") == 1, b["hdr_err"]
print("ok: counted: RESERVED_CLIENT 4, AUTH_REQUIRED 1, AUTH_FAILED 1")
PY
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: forged client ids"
