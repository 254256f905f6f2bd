#!/bin/bash
# dissector.sh - tools/wireshark/spate.lua under tshark: its NACK codes
# are lib/proto/spate_err.h's; the worked examples of docs/protocol.md (every
# message type) and spate-pcap captures of generated streams decode field
# by field to what the bytes hold; display filters select what they say;
# spate-pcap's IPv4 and UDP checksums are good by Wireshark's own check.
. "$(dirname "$0")/common.sh"
command -v tshark >/dev/null || fail "tshark not installed (sh tools/install-deps.sh)"
LUA=$SPATE_SRC/tools/wireshark/spate.lua
TS() { tshark -n -X "lua_script:$LUA" "$@" 2>"$TMP/tshark.err"; }

# 1. The code table.
sed -n '/^local err_codes/,/^}/p' "$LUA" | grep -o '\[[0-9]*\] = "[A-Z_]*"' | sed 's/\[\([0-9]*\)\] = "\(.*\)"/\1 \2/' | sort -n >"$TMP/lua.codes"
sed -n 's/^[[:space:]]*X(\([A-Z_]*\),[[:space:]]*\([0-9]*\),.*/\2 \1/p' "$SPATE_SRC/lib/proto/spate_err.h" |
	sort -n >"$TMP/c.codes"
[ -s "$TMP/c.codes" ] || fail "no codes found in lib/proto/spate_err.h"
cmp -s "$TMP/c.codes" "$TMP/lua.codes" ||
	{ diff "$TMP/c.codes" "$TMP/lua.codes"; fail "spate.lua's NACK codes differ from lib/proto/spate_err.h"; }
ok "dissector: $(wc -l <"$TMP/c.codes") NACK codes as in lib/proto/spate_err.h"
# ... and as tshark shows them (the loaded table, the expert info), one
# NACK per code and one past the last (docs/protocol.md's table is
# checked against the same X-macro by tests/proto/test_protocol_doc.c)
python3 "$TT_DIR/dissector-check.py" codes "$SPATE_SRC/lib/proto/spate_err.h" "$LUA" "$TMP" ||
	fail "spate.lua's NACK codes as tshark shows them"

# 2. docs/protocol.md examples: EVENT, SUB_ADD, ACK, NOTIFY, SUB_DEL, NACK,
# two messages in one datagram.
python3 "$TT_DIR/dissector-check.py" doc "$SPATE_SRC/docs/protocol.md" "$LUA" "$TMP" || fail "protocol.md examples"

# 3. Generated streams, with every constraint operator, attributes,
# deletes, odd coordinates.
G=$T/spate-gen
"$G" --workload drt --input "$TT_DIR/data/cities-sample.txt" --input-format geonames --subs 8 \
	--cons-ratio 1 --deletes 0.5 --order subs-first --seed 3 --out "$TMP/a.tsv" 2>/dev/null || fail "spate-gen geonames"
printf 'sub\t900\t-1.5\t-2.25\t3.0000001\t4\tx,y\ta>=1,b<=2,c>3,d<4,e=5,f!=-6.5\nevent\t901\t-0.00000005\t0.00000005\t-\tz=1e+300\n' >>"$TMP/a.tsv"
"$G" --workload rein --events 40 --subs 40 --deletes 0.3 --order interleaved --seed 4 --out "$TMP/b.tsv" 2>/dev/null ||
	fail "spate-gen rein"
for s in a b; do
	"$T/spate-pcap" --out "$TMP/$s.pcap" "$TMP/$s.tsv" 2>/dev/null || fail "spate-pcap $s"
	python3 "$TT_DIR/dissector-check.py" stream "$TMP/$s.tsv" "$TMP/$s.pcap" "$LUA" || fail "stream $s"
done

# 4. Display filters, counted in one tshark pass per capture (io,stat:
# one column per filter). counts PCAP FILTER...: the frame counts.
counts() {
	local pcap=$1 spec="io,stat,0"
	shift
	for f in "$@"; do spec="$spec,$f"; done
	TS -r "$pcap" -q -z "$spec" "${TS_OPTS[@]}" |
		awk -F'|' '/<>/ { for (i = 3; i + 1 < NF && $(i + 1) ~ /^ *[0-9]+ *$/; i += 2)
			printf "%s%d", (i > 3 ? " " : ""), $i; print "" }'
}
TS_OPTS=()
n_paris=$(grep -v '^#' "$TMP/a.tsv" | grep -c 'n:paris')
got=$(counts "$TMP/a.pcap" 'spate.event.id == 901' 'spate.cons.op == 6 && spate.cons.value == -6.5' \
	'spate.keyword == "n:paris"')
[ "$got" = "1 1 $n_paris" ] || fail "filters on a.pcap: got '$got', want '1 1 $n_paris'"
n_ev=$(grep -c '^event' "$TMP/b.tsv")
n_all=$(grep -vc '^#' "$TMP/b.tsv")
got=$(counts "$TMP/b.pcap" 'spate.msg.type == 1' 'spate.flags.server == 0' 'spate.attr.name == "a3" && spate.attr.value >= 0')
[ "${got% *}" = "$n_ev $n_all" ] && [ "${got##* }" -gt 0 ] ||
	fail "filters on b.pcap: got '$got', want '$n_ev $n_all >0'"
ok "dissector: display filters"

# 5. Checksums (Wireshark's own verification), and the heuristic on
# ports other than 47100.
"$T/spate-pcap" --batch 5 --src 10.0.0.1:5000 --dst 10.0.0.2:6000 --out "$TMP/c.pcap" "$TMP/b.tsv" 2>/dev/null ||
	fail "spate-pcap other ports"
TS_OPTS=(-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE)
frames=$(( (n_all + 4) / 5 ))
got=$(counts "$TMP/c.pcap" 'frame' 'ip.checksum.status == "Good" && udp.checksum.status == "Good" && spate')
[ "$got" = "$frames $frames" ] ||
	fail "frames / good checksums decoded as Spate on ports 5000/6000: got '$got', want '$frames $frames'"
ok "dissector: $frames frames on other ports found by the heuristic, checksums good"
