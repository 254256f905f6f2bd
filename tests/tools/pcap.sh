#!/bin/bash
# pcap.sh - spate-pcap without the daemon: a stream written as a pcap and
# read back gives one message per line in order, good IPv4 and UDP
# checksums, batching packs as asked; bad input is refused cleanly.
. "$(dirname "$0")/common.sh"
P=$T/spate-pcap

"$T/spate-gen" --workload drt --events 2000 --sub-ratio 0.05 --deletes 0.3 --vocab 40 --seed 11 \
	--out "$TMP/s.tsv" 2>/dev/null || fail "spate-gen"
n_ops=$(grep -vc '^#' "$TMP/s.tsv")
n_ev=$(grep -c '^event' "$TMP/s.tsv")
n_sub=$(grep -c '^sub' "$TMP/s.tsv")
n_un=$(grep -c '^unsub' "$TMP/s.tsv")

"$P" --out "$TMP/s.pcap" "$TMP/s.tsv" 2>"$TMP/w.err" || { cat "$TMP/w.err"; fail "write"; }
"$P" --read "$TMP/s.pcap" --messages --out "$TMP/msgs" 2>"$TMP/r.err" || { cat "$TMP/r.err"; fail "read"; }
grep -q "frames=$n_ops other=0 datagrams=$n_ops bad_datagrams=0 bad_ip_csum=0 bad_udp_csum=0 EVENT=$n_ev SUB_ADD=$n_sub SUB_DEL=$n_un " "$TMP/r.err" ||
	{ cat "$TMP/r.err"; fail "read back: counts or checksums wrong"; }
# The messages come in stream order with the stream's ids.
awk '{ split($4, a, "="); print $1 "\t" a[2] }' "$TMP/msgs" >"$TMP/order.got"
awk -F'\t' '!/^#/ { t = $1 == "sub" ? "SUB_ADD" : $1 == "unsub" ? "SUB_DEL" : "EVENT"; print t "\t" $2 }' \
	"$TMP/s.tsv" >"$TMP/order.want"
cmp -s "$TMP/order.got" "$TMP/order.want" || { diff "$TMP/order.want" "$TMP/order.got" | head; fail "order"; }
ok "write/read: $n_ops messages in order, checksums good"

# Same input, same bytes (fixed timestamps); --only and --batch.
"$P" --out "$TMP/s2.pcap" "$TMP/s.tsv" 2>/dev/null && cmp -s "$TMP/s.pcap" "$TMP/s2.pcap" ||
	fail "two writes of one stream differ"
"$P" --only events --batch 16 --out "$TMP/ev.pcap" "$TMP/s.tsv" 2>/dev/null || fail "--only events"
"$P" --read "$TMP/ev.pcap" 2>"$TMP/r2.err" >/dev/null || fail "read events pcap"
grep -q "frames=$(((n_ev + 15) / 16)) .* EVENT=$n_ev SUB_ADD=0 SUB_DEL=0 " "$TMP/r2.err" ||
	{ cat "$TMP/r2.err"; fail "--only events --batch 16"; }
"$P" --only subs --out "$TMP/sub.pcap" "$TMP/s.tsv" 2>/dev/null || fail "--only subs"
"$P" --read "$TMP/sub.pcap" 2>"$TMP/r3.err" >/dev/null || fail "read subs pcap"
grep -q "EVENT=0 SUB_ADD=$n_sub SUB_DEL=$n_un " "$TMP/r3.err" || { cat "$TMP/r3.err"; fail "--only subs"; }
# Addresses as asked, checked against the frame bytes with od.
"$P" --only subs --src 10.1.2.3:5555 --dst 10.9.8.7:4444 --src-mac 02:aa:bb:cc:dd:ee \
	--dst-mac 02:11:22:33:44:55 --out "$TMP/addr.pcap" "$TMP/s.tsv" 2>/dev/null || fail "addresses"
hdr=$(od -An -tx1 -j 40 -N 38 "$TMP/addr.pcap" | tr -d ' \n')
case "$hdr" in
021122334455""02aabbccddee0800*) ;;
*) fail "MACs not as asked: $hdr" ;;
esac
[ "${hdr:52:16}" = 0a0102030a090807 ] || fail "IPs not as asked: ${hdr:52:16}"
[ "${hdr:68:8}" = 15b3115c ] || fail "ports not as asked: ${hdr:68:8}"
ok "--only, --batch, addresses, same bytes twice"

# Bad input.
out=$TMP/never.pcap
printf 'sub\t1\t0\t0\t1\t1\tok\nevent\t2\t200\t0\tok\n' >"$TMP/bad.tsv"
expect_fail 1 "bad.tsv:2: " "$out" "$P" --out "$out" "$TMP/bad.tsv"
expect_fail 2 "--dst-mac: bad MAC" "$out" "$P" --dst-mac 1:2:3 --out "$out" "$TMP/s.tsv"
expect_fail 2 "--src: bad address 'nowhere'" "$out" "$P" --src nowhere --out "$out" "$TMP/s.tsv"
expect_fail 2 "--batch: bad value" "$out" "$P" --batch 0 --out "$out" "$TMP/s.tsv"
expect_fail 2 "--only: unknown" "$out" "$P" --only all-of-it --out "$out" "$TMP/s.tsv"
expect_fail 1 "no-such.tsv" "$out" "$P" --out "$out" "$TMP/no-such.tsv"
expect_fail 1 "no-such.pcap" - "$P" --read "$TMP/no-such.pcap"
expect_fail 1 "s.tsv: " - "$P" --read "$TMP/s.tsv"
head -c 100 "$TMP/s.pcap" >"$TMP/cut.pcap"
expect_fail 1 "cut.pcap" - "$P" --read "$TMP/cut.pcap"
# --skip-bad goes on past a bad line.
"$P" --skip-bad --out "$TMP/skip.pcap" "$TMP/bad.tsv" 2>/dev/null || fail "--skip-bad"
"$P" --read "$TMP/skip.pcap" 2>&1 >/dev/null | grep -q "SUB_ADD=1 " || fail "--skip-bad: the good line is missing"
ok "spate-pcap"
