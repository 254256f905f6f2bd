#!/usr/bin/env python3
"""dissector-check.py - decode pcaps with tshark and tools/wireshark/spate.lua
and compare every field with what the bytes are known to hold.

  dissector-check.py doc PROTOCOL.md SPATE.lua WORKDIR
      the worked examples of docs/protocol.md (hex payload + decoded
      lines, themselves checked against lib/proto/spate_proto.c by
      tests/proto/test_protocol_doc.c) are written into a pcap, one UDP
      datagram each, and tshark's fields must equal the decoded lines.
  dissector-check.py stream STREAM.tsv FILE.pcap SPATE.lua
      FILE.pcap was written by `spate-pcap --batch 1` from STREAM.tsv: every
      frame's fields must equal its stream line.

  dissector-check.py codes SPATE_ERR.h SPATE.lua WORKDIR
      one NACK per code of lib/proto/spate_err.h's X-macro (and one code
      past the last) goes through tshark: the name Wireshark shows for
      each must be the X-macro's (the table tshark loaded, not its text),
      and the code past the last must show as unknown.

Prints one "ok:" line, or the first differences and exits 1.
"""
import decimal
import os
import struct
import subprocess
import sys

FIELDS = [
    "spate.version", "spate.flags", "spate.length", "spate.count", "spate.client_id", "spate.seq",
    "spate.msg.type", "spate.event.id", "spate.event.lon", "spate.event.lat", "spate.keyword",
    "spate.attr.name", "spate.attr.value", "spate.sub.id", "spate.sub.min_lon", "spate.sub.min_lat",
    "spate.sub.max_lon", "spate.sub.max_lat", "spate.sub.dest_ip", "spate.sub.dest_port",
    "spate.cons.name", "spate.cons.op", "spate.cons.value", "spate.ack.req_type", "spate.ack.code",
    "spate.ack.req_seq", "spate.ack.id", "spate.notify.event_id", "spate.notify.n_subs",
    "spate.notify.sub_id", "spate.flags.auth", "spate.auth.nonce", "spate.auth.mac",
]
TYPES = {"EVENT": 1, "SUB_ADD": 2, "SUB_DEL": 3, "ACK": 4, "NACK": 5, "NOTIFY": 6}
OPS = {">=": 1, "<=": 2, ">": 3, "<": 4, "=": 5, "!=": 6}
# Longest operator first, as the stream parser reads them.
OP_ORDER = [">=", "<=", "!=", ">", "<", "="]
SEP = "\x1f"  # between occurrences of one field (keywords may hold commas? no, but be safe)


def err_codes(header):
    """NAME -> value, from the X-macro of lib/proto/spate_err.h."""
    codes = {}
    for line in open(header, encoding="utf-8"):
        line = line.strip()
        if line.startswith("X(") and "," in line:
            name, val = [p.strip() for p in line[2:].split(",")[:2]]
            codes[name] = int(val)
    return codes


def tshark(pcap, lua):
    cmd = ["tshark", "-n", "-X", "lua_script:" + lua, "-r", pcap, "-T", "fields",
           "-E", "occurrence=a", "-E", "aggregator=" + SEP, "-E", "separator=\t"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        vals = line.split("\t")
        rows.append({f: (v.split(SEP) if v != "" else []) for f, v in zip(FIELDS, vals)})
    return rows


def norm(field, v):
    """Compare as numbers where the field is numeric."""
    if field in ("spate.keyword", "spate.attr.name", "spate.cons.name", "spate.sub.dest_ip"):
        return v
    if field == "spate.auth.mac":
        return v.replace(":", "").lower()
    if field == "spate.flags.auth":
        return float(v in ("1", "True", "true", 1))
    return float(int(v, 16)) if isinstance(v, str) and v.startswith("0x") else float(v)


def compare(where, want, got):
    bad = []
    for f, vals in want.items():
        g = got.get(f, [])
        if [norm(f, v) for v in vals] != [norm(f, v) for v in g]:
            bad.append(f"{where}: {f}: want {vals} got {g}")
    return bad


def write_pcap(path, payloads):
    """payloads: (bytes, from_server); Ethernet/IPv4/UDP, UDP checksum 0."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, (p, server) in enumerate(payloads):
            src, dst = (b"\xc6\x12\x00\x01", b"\xc6\x12\x00\x02") if server else (b"\xc6\x12\x00\x02", b"\xc6\x12\x00\x01")
            sport, dport = (47100, 47101) if server else (47101, 47100)
            udp = struct.pack(">HHHH", sport, dport, 8 + len(p), 0) + p
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), i, 0x4000, 64, 17, 0, src, dst)
            s = sum(struct.unpack(">10H", ip))
            while s >> 16:
                s = (s & 0xffff) + (s >> 16)
            ip = ip[:10] + struct.pack(">H", ~s & 0xffff) + ip[12:]
            frame = b"\x02\x00\x00\x00\x00\x02" * 2 + b"\x08\x00" + ip + udp
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)) + frame)


def kv(words):
    return dict(w.split("=", 1) for w in words)


def doc_expect(decoded, codes, payload):
    """Fields from the decoded lines of one example; None if not checkable."""
    want = {}

    def add(f, *vals):
        want.setdefault(f, []).extend(str(v) for v in vals)

    for line in decoded:
        word, *rest = line.split(" ")
        a = kv(rest)
        if word == "BAD_HEADER" or word == "REFUSED":
            return None  # the dissector shows what the bytes say; not comparable
        if word == "AUTH":
            # The trailer: the nonce as decoded, the MAC as the last 32 bytes
            # (the dissector has no key: it shows the MAC, it cannot verify it).
            add("spate.auth.nonce", a["nonce"])
            add("spate.auth.mac", payload[-32:].hex())
            continue
        if word == "HDR":
            for k in ("version", "flags", "length", "count", "client_id", "seq"):
                add("spate." + k, a[k])
            add("spate.flags.auth", 1 if int(a["flags"], 16) & 2 else 0)
            want["spate.auth.nonce"] = []  # no trailer unless an AUTH line says so
            continue
        add("spate.msg.type", TYPES[word])
        if word == "EVENT":
            add("spate.event.id", a["id"]); add("spate.event.lon", a["lon"]); add("spate.event.lat", a["lat"])
            if a["kw"] != "-":
                add("spate.keyword", *a["kw"].split(","))
            if a["attrs"] != "-":
                for at in a["attrs"].split(","):
                    n, v = at.split("=")
                    add("spate.attr.name", n); add("spate.attr.value", v)
        elif word == "SUB_ADD":
            add("spate.sub.id", a["id"])
            r = a["rect"].split(",")
            for k, v in zip(("min_lon", "min_lat", "max_lon", "max_lat"), r):
                add("spate.sub." + k, v)
            ip, port = a["dest"].split(":")
            add("spate.sub.dest_ip", ip); add("spate.sub.dest_port", port)
            if a["kw"] != "-":
                add("spate.keyword", *a["kw"].split(","))
            if a["cons"] != "-":
                for c in a["cons"].split(","):
                    op = next(o for o in OP_ORDER if o in c)
                    n, v = c.split(op, 1)
                    add("spate.cons.name", n); add("spate.cons.op", OPS[op]); add("spate.cons.value", v)
        elif word == "SUB_DEL":
            add("spate.sub.id", a["id"])
        elif word in ("ACK", "NACK"):
            add("spate.ack.req_type", TYPES[a["req_type"]])
            add("spate.ack.code", codes[a["code"]] if word == "NACK" else 0)
            add("spate.ack.req_seq", a["req_seq"]); add("spate.ack.id", a["id"])
        elif word == "NOTIFY":
            subs = a["subs"].split(",")
            add("spate.notify.event_id", a["event_id"]); add("spate.notify.n_subs", len(subs))
            add("spate.notify.sub_id", *subs)
    return want


def cmd_doc(doc, lua, work):
    codes = err_codes(os.path.join(os.path.dirname(doc), "..", "lib", "proto", "spate_err.h"))
    examples, block, kind = [], [], None
    for line in open(doc, encoding="utf-8"):
        s = line.rstrip("\n")
        if s in ("```hex", "```decoded"):
            kind, block = s[3:], []
        elif s == "```" and kind:
            if kind == "hex":
                examples.append([bytes.fromhex(" ".join(block)), None])
            else:
                examples[-1][1] = block
            kind = None
        elif kind:
            block.append(s)
    if len(examples) < 6:
        sys.exit(f"FAIL: only {len(examples)} examples found in {doc}")
    pcap = os.path.join(work, "doc.pcap")
    write_pcap(pcap, [(p, len(p) > 3 and p[3] & 1) for p, _ in examples])
    rows = tshark(pcap, lua)
    bad, checked = [], 0
    for i, ((payload, decoded), got) in enumerate(zip(examples, rows)):
        want = doc_expect(decoded, codes, payload)
        if want is None:
            continue
        checked += 1
        bad += compare(f"example {i + 1}", want, got)
    if len(rows) != len(examples) or bad or checked < 6:
        print("\n".join(bad[:20]) or f"FAIL: {len(rows)} frames decoded, {checked} checked")
        sys.exit(1)
    print(f"ok: dissector: {checked} protocol.md examples decoded field by field")


def fixed(deg):
    """Decimal degrees to 1e-7 fixed point, ties away from zero."""
    q = (decimal.Decimal(deg) * 10000000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
    return str(int(q))


def cmd_stream(stream, pcap, lua):
    rows = tshark(pcap, lua)
    lines = [l.rstrip("\n").split("\t") for l in open(stream, encoding="utf-8")
             if l.strip() and not l.startswith("#")]
    bad = []
    for i, (f, got) in enumerate(zip(lines, rows)):
        want = {}

        def add(k, *vals):
            want.setdefault(k, []).extend(str(v) for v in vals)
        add("spate.seq", i + 1)
        add("spate.count", 1)
        add("spate.msg.type", {"event": 1, "sub": 2, "unsub": 3}[f[0]])
        if f[0] == "event":
            add("spate.event.id", f[1]); add("spate.event.lon", fixed(f[2])); add("spate.event.lat", fixed(f[3]))
            add("spate.keyword", *([] if f[4] == "-" else f[4].split(",")))
            attrs = [] if len(f) < 6 or f[5] == "-" else f[5].split(",")
            add("spate.attr.name", *[a.split("=")[0] for a in attrs])
            add("spate.attr.value", *[a.split("=")[1] for a in attrs])
        elif f[0] == "sub":
            add("spate.sub.id", f[1])
            for k, v in zip(("min_lon", "min_lat", "max_lon", "max_lat"), f[2:6]):
                add("spate.sub." + k, fixed(v))
            add("spate.keyword", *([] if f[6] == "-" else f[6].split(",")))
            cons = [] if len(f) < 8 or f[7] == "-" else f[7].split(",")
            for c in cons:
                op = next(o for o in OP_ORDER if o in c)
                n, v = c.split(op, 1)
                add("spate.cons.name", n); add("spate.cons.op", OPS[op]); add("spate.cons.value", v)
        else:
            add("spate.sub.id", f[1])
        bad += compare(f"{stream} line {i + 1}", want, got)
        if len(bad) > 20:
            break
    if len(rows) != len(lines) or bad:
        print("\n".join(bad[:20]) or f"FAIL: {len(rows)} frames for {len(lines)} lines")
        sys.exit(1)
    print(f"ok: dissector: {len(rows)} frames of {os.path.basename(stream)} decoded field by field")


def cmd_codes(header, lua, workdir):
    codes = err_codes(header)
    if len(codes) < 2 or sorted(codes.values()) != list(range(len(codes))):
        sys.exit(f"codes: {header}: the X-macro's values are not 0..N-1: {codes}")
    past = len(codes)
    payloads = []
    for code in range(past + 1):
        msg = struct.pack(">BBH", TYPES["NACK"], 0, 20) + struct.pack(">BBHIQ", 2, code, 0, 7, 9)
        hdr = struct.pack(">HBBHHII", 0x5350, 1, 1, 16 + len(msg), 1, 0, code + 1)
        payloads.append((hdr + msg, True))
    pcap = os.path.join(workdir, "codes.pcap")
    write_pcap(pcap, payloads)
    out = subprocess.run(["tshark", "-n", "-X", "lua_script:" + lua, "-r", pcap, "-V"],
                         check=True, capture_output=True, text=True).stdout
    shown = []    # (name, value) per "Code: NAME (N)" line, in frame order
    refused = []  # the expert info's "Refused: NAME", from the lua table at run time
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("Code: ") and line.endswith(")"):
            name, _, val = line[len("Code: "):-1].rpartition(" (")
            shown.append((name, int(val)))
        elif line.startswith("[Refused: ") and line.endswith("]"):
            refused.append(line[len("[Refused: "):-1])
    want = sorted(((n, v) for n, v in codes.items()), key=lambda c: c[1])
    bad = []
    if len(shown) != past + 1:
        bad.append(f"codes: tshark showed {len(shown)} NACK codes, {past + 1} sent")
    for (name, val), got in zip(want, shown):
        if got != (name, val):
            bad.append(f"codes: code {val} is {name} in spate_err.h, tshark shows {got[0]} ({got[1]})")
    if len(shown) == past + 1 and shown[past][0] != "Unknown":
        bad.append(f"codes: code {past} (past the last) shows as {shown[past][0]}")
    want_refused = [n for n, _ in want] + [str(past)]
    if refused != want_refused:
        diff = [f"{i}: {w} != {g}" for i, (w, g) in enumerate(zip(want_refused, refused)) if w != g]
        bad.append(f"codes: 'Refused:' names differ (spate_err.h != tshark): "
                   f"{diff[:5] or (len(want_refused), len(refused))}")
    if bad:
        print("\n".join(bad[:10]))
        sys.exit(1)
    print(f"ok: {past} NACK codes shown by the dissector as in {os.path.basename(header)}")


if __name__ == "__main__":
    if sys.argv[1] == "doc":
        cmd_doc(*sys.argv[2:5])
    elif sys.argv[1] == "codes":
        cmd_codes(*sys.argv[2:5])
    else:
        cmd_stream(*sys.argv[2:5])
