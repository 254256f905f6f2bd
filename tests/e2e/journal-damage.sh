#!/bin/bash
# journal-damage.sh - a journal written by spated (12,000 adds and 2,400
# deletes), then one byte damaged in a copy of it at three places:
# - at 40 % of the file: the start is refused, naming the byte offset and
#   the record number of the damaged record, and the file is left as it
#   was; with --salvage-journal spated starts with every subscription but
#   the damaged record's, says 1 record was lost, keeps the damaged file
#   aside byte for byte, and the next plain start is clean;
# - in the file header: refused the same way; salvaged with nothing lost;
# - in the last record: a torn tail, cut as always, no option needed.
# The expected counts come from a reading of the records here.
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
for i in range(12000):
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
[ "$(subs)" = 9600 ] || fail "after loading: $(subs) subscriptions, want 9600"
netns_spated_stop || fail "spated did not exit cleanly"
cp "$jnl" "$E2E_TMP/good.journal"
echo "ok: journal of $(stat -c %s "$jnl") bytes written by spated"

# The journal read here, record by record (lib/store/spate_journal.h): the
# live subscriptions of all of it, and without the record holding the
# byte at 40 % or without the last record, with where those start:
# "LIVE AT40 REC40 START40 LIVE_WITHOUT40 LAST_START LIVE_WITHOUT_LAST".
read -r live at rec start without40 last without_last <<<"$(python3 - "$E2E_TMP/good.journal" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
recs, off = [], 16
while off + 8 <= len(data):
    size = struct.unpack(">I", data[off:off + 4])[0]
    payload = data[off + 8:off + 8 + size]
    recs.append((off, payload[16], struct.unpack(">Q", payload[20:28])[0]))  # type, id
    off += 8 + size
assert off == len(data), "records do not end at the end of the file"
def live(skip=-1):
    s = set()
    for i, (_o, t, sid) in enumerate(recs):
        if i != skip:
            (s.add if t == 2 else s.discard)(sid)
    return len(s)
at = len(data) * 40 // 100
k = max(i for i, r in enumerate(recs) if r[0] <= at)
print(live(), at, k + 1, recs[k][0], live(k), recs[-1][0], live(len(recs) - 1))
PY
)"
[ "$live" = 9600 ] || fail "the journal read here holds $live live subscriptions, spated had 9600"

# damage OFFSET: flip one bit of the byte at OFFSET in a fresh copy.
damage() {
	local b
	cp "$E2E_TMP/good.journal" "$jnl"
	b=$(od -An -tu1 -j "$1" -N1 "$jnl")
	# shellcheck disable=SC2059 # the format is the byte
	printf "\\$(printf %o $((b ^ 16)))" | dd of="$jnl" bs=1 seek="$1" conv=notrunc status=none
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

# salvaged LIVE LOST [restart]: start with --salvage-journal, LIVE
# subscriptions, LOST records reported; the damaged file kept aside as it
# was; with "restart", a plain restart is clean and keeps LIVE.
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
	if [ -n "${3:-}" ]; then
		netns_spated_start "$SPATED_LOG" -c "$conf" || fail "plain start after salvage"
		[ "$(subs)" = "$1" ] || fail "after salvage and restart: $(subs) subscriptions, want $1"
		grep -q "damaged\|cut [0-9]* bytes" "$SPATED_LOG" && fail "the salvaged journal is not clean"
		netns_spated_stop || fail "spated did not exit cleanly"
	fi
	echo "ok: salvaged: $1 subscriptions, $2 records lost, damaged file kept as ${aside##*/}"
}

# 1. One byte at 40 % of the file.
damage "$at"
refused "damaged at byte $start (record $rec)"
salvaged "$without40" 1 restart

# 2. The file header.
damage 5
refused "damaged at byte 0 (the file header)"
salvaged 9600 0

# 3. The last record: a torn tail, cut without any option.
damage $((last + 12))
netns_spated_start "$SPATED_LOG" -c "$conf" || fail "a damaged last record stopped the start"
grep -q "cut [0-9]* bytes after the last good record" "$SPATED_LOG" || fail "no cut reported"
[ "$(subs)" = "$without_last" ] || fail "after the cut: $(subs) subscriptions, want $without_last"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: a damaged last record is a torn tail: cut, $without_last subscriptions"
echo "ok: journal damage"
