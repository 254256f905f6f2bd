#!/bin/bash
# journal-damage.sh - a journal written by spated (30,000 adds and 6,000
# deletes), then one byte damaged in a copy of it at three places:
# - at 40 % of the file: the start is refused, naming the byte offset and
#   the record number of the damaged record, and the file is left as it
#   was; with --salvage-journal spated starts with every subscription but
#   the damaged record's, says 1 record was lost, keeps the damaged file
#   aside byte for byte, and the next plain start is clean;
# - in the file header: refused the same way; salvaged with nothing lost;
# - in the last record: a torn tail, cut as always, no option needed.
# The expected counts come from journal_model below, which reads the
# records itself (docs: lib/spate_journal.h).
. "$(dirname "$0")/common.sh"

sock=$E2E_TMP/ctl.sock
ctl() { timeout 20 "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }
jnl=$E2E_TMP/subs.journal
conf=$E2E_TMP/spated.conf
cp "$SPATE_CONF" "$conf"
cat >>"$conf" <<CONF
journal: { path = "$jnl"; sync = "none"; compact_min = 1000000000; };
control: { socket = "$sock"; };
CONF
subs() { ctl show subs --count | sed -n 's/^count: //p'; }
netns_create || fail "cannot create the namespaces"
netns_spated_start "$SPATED_LOG" -c "$conf" || fail "spated did not start"

netns_cli timeout 120 python3 - "$E2E_DIR" <<'PY' || fail "loading subscriptions"
import sys, time
sys.path.insert(0, sys.argv[1])
from spatecli import Client, sub_add, sub_del
c = Client(7)
end = time.time() + 30
while not c.request([sub_del(1)], timeout=0.5):
    assert time.time() < end, "no reply"
ops = []
for i in range(30000):
    lon = (i * 7919) % 3_590_000_000 - 1_795_000_000
    lat = (i * 104729) % 1_700_000_000 - 850_000_000
    ops.append(sub_add(1000 + i, (lon, lat, lon + 100000, lat + 100000), ["k%d" % (i % 50)]))
    if i % 5 == 4:
        ops.append(sub_del(1000 + i - 2))
for k in range(0, len(ops), 40):
    batch = ops[k:k + 40]
    for _ in range(10):
        got = c.request(batch, timeout=2.0)
        if len(got) == len(batch):
            break
    assert all(kind == "ACK" or code == 16 for kind, code, _ in got), got  # 16: a resent add
PY
[ "$(subs)" = 24000 ] || fail "after loading: $(subs) subscriptions, want 24000"
netns_spated_stop || fail "spated did not exit cleanly"
cp "$jnl" "$E2E_TMP/good.journal"
echo "ok: journal of $(stat -c %s "$jnl") bytes written by spated"

# journal_model FILE [SKIP_RECORD]: "records live boundary_of_record..."
# as lines: the record count, the live subscriptions with record SKIP
# (1-based) left out, and the byte offset of each record.
journal_model() {
	python3 - "$@" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
skip = int(sys.argv[2]) if len(sys.argv) > 2 else 0
off, n, live, offs = 16, 0, set(), []
while off + 8 <= len(data):
    size = struct.unpack(">I", data[off:off + 4])[0]
    n += 1
    offs.append(off)
    payload = data[off + 8:off + 8 + size]
    mtype = payload[16]
    sid = struct.unpack(">Q", payload[20:28])[0]
    if n != skip:
        if mtype == 2:
            live.add(sid)
        else:
            live.discard(sid)
    off += 8 + size
print(n, len(live), *offs)
PY
}
read -r -a model <<<"$(journal_model "$E2E_TMP/good.journal")"
nrec=${model[0]}
[ "${model[1]}" = 24000 ] || fail "the model reads ${model[1]} live subscriptions, spated had 24000"

# damage OFFSET: flip one bit of the byte at OFFSET in a fresh copy.
damage() {
	cp "$E2E_TMP/good.journal" "$jnl"
	python3 -c '
import sys
p, at = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read())
b[at] ^= 0x10
open(p, "wb").write(b)' "$jnl" "$1"
}

# refused WANT: a start must fail, saying WANT, leaving the file as it was.
refused() {
	local sum
	sum=$(sha256sum <"$jnl")
	if netns_spated_start "$SPATED_LOG" -c "$conf" 2>/dev/null; then
		fail "spated started on a journal damaged before its tail"
	fi
	wait "$NETNS_SPATED_PID"
	local rc=$?
	NETNS_SPATED_PID=""
	[ "$rc" -ne 0 ] || fail "refused start exited 0"
	grep -qF "$1" "$SPATED_LOG" || fail "the refusal does not say '$1'"
	grep -q -- "--salvage-journal" "$SPATED_LOG" || fail "the refusal does not name --salvage-journal"
	[ "$(sha256sum <"$jnl")" = "$sum" ] || fail "a refused start changed the journal"
	echo "ok: refused (exit $rc): $(grep -o 'damaged at byte [0-9]* ([^)]*)' "$SPATED_LOG")"
}

# salvaged LIVE LOST: start with --salvage-journal, LIVE subscriptions, LOST
# records reported; the damaged file kept aside as it was; a plain restart
# is clean and keeps LIVE.
salvaged() {
	local sum aside
	sum=$(sha256sum <"$jnl")
	rm -f "$jnl".damaged-*
	netns_spated_start "$SPATED_LOG" -c "$conf" --salvage-journal || fail "salvage start"
	[ "$(subs)" = "$1" ] || fail "salvaged: $(subs) subscriptions, want $1"
	grep -q "salvaged: .* $2 records lost" "$SPATED_LOG" ||
		fail "salvage does not report $2 records lost: $(grep salvaged "$SPATED_LOG")"
	aside=$(ls "$jnl".damaged-* 2>/dev/null)
	[ -n "$aside" ] && [ "$(sha256sum <"$aside")" = "$sum" ] ||
		fail "the damaged file was not kept aside as it was ($aside)"
	netns_spated_stop || fail "spated did not exit cleanly"
	netns_spated_start "$SPATED_LOG" -c "$conf" || fail "plain start after salvage"
	[ "$(subs)" = "$1" ] || fail "after salvage and restart: $(subs) subscriptions, want $1"
	grep -q "damaged\|cut [0-9]* bytes" "$SPATED_LOG" && fail "the salvaged journal is not clean"
	netns_spated_stop || fail "spated did not exit cleanly"
	echo "ok: salvaged: $1 subscriptions, $2 records lost, damaged file kept as ${aside##*/}"
}

# 1. One byte at 40 % of the file.
size=$(stat -c %s "$E2E_TMP/good.journal")
at=$((size * 40 / 100))
rec=1
while [ "$rec" -lt "$nrec" ] && [ "${model[$((rec + 2))]}" -le "$at" ]; do
	rec=$((rec + 1))
done
start=${model[$((rec + 1))]}
read -r -a without <<<"$(journal_model "$E2E_TMP/good.journal" "$rec")"
damage "$at"
refused "damaged at byte $start (record $rec)"
salvaged "${without[1]}" 1

# 2. The file header.
damage 5
refused "damaged at byte 0 (the file header)"
salvaged 24000 0

# 3. The last record: a torn tail, cut without any option.
last=${model[$((nrec + 1))]}
read -r -a without <<<"$(journal_model "$E2E_TMP/good.journal" "$nrec")"
damage $((last + 12))
netns_spated_start "$SPATED_LOG" -c "$conf" || fail "a damaged last record stopped the start"
grep -q "cut [0-9]* bytes after the last good record" "$SPATED_LOG" || fail "no cut reported"
[ "$(subs)" = "${without[1]}" ] || fail "after the cut: $(subs) subscriptions, want ${without[1]}"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: a damaged last record is a torn tail: cut, ${without[1]} subscriptions"
echo "ok: journal damage"
