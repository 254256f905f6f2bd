# badinput-common.sh - sourced by badinput.sh and limits.sh after
# common.sh: the small-limits configuration, spated with a control
# socket, badinput.py and the counter check.
sock=$E2E_TMP/ctl.sock
ctl() { "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }

badinput_start() {
	SPATE_CONF=$E2E_TMP/badinput.conf
	python3 - "$SPATE_SRC/conf/demo.conf" "$SPATE_CONF" "$sock" <<'PY' || fail "configuration"
import re, sys
src, out, sock = sys.argv[1:4]
t = open(src).read()
lim = dict(max_keywords=4, max_keyword_len=8, max_constraints=3, max_attrs=3, max_name_len=6,
           max_messages=8, max_subs=160, max_subs_per_client=125)
for k, v in lim.items():
    t, n = re.subn(r"(\n\s*%s\s*=\s*)\d+;" % k, r"\g<1>%d;" % v, t)
    assert n == 1, k
t = t.replace("spate: {", 'spate: {\n  attributes = ( { name = "alt"; min = 0.0; max = 1000.0; } );', 1)
open(out, "w").write(t + 'control: { socket = "%s"; };\n' % sock)
PY
	e2e_start
}

# badinput_py PART... [options]: badinput.py in the client namespace.
badinput_py() {
	netns_cli timeout 120 python3 "$E2E_DIR/badinput.py" --err-h "$SPATE_SRC/lib/proto/spate_err.h" \
		--out "$E2E_TMP/expect.json" "$@" || fail "badinput.py $1"
}

# badinput_counters BEFORE AFTER: the counters moved as expect.json says.
badinput_counters() {
	python3 - "$1" "$2" "$E2E_TMP/expect.json" <<'PY' || fail "counters"
import json, sys
b, a = json.loads(sys.argv[1]), json.loads(sys.argv[2])
exp = json.load(open(sys.argv[3]))
bad = 0
def check(label, d, n, exact):
    global bad
    good = d == n if exact else d >= n
    print("  %-28s %s %5d  got %5d  %s" % (label, "==" if exact else ">=", n, d,
                                           "ok" if good else "WRONG"))
    bad += not good
for k, n in sorted(exp["eq"].items()):
    check(k, a.get(k, 0) - b.get(k, 0), n, True)
for k, n in sorted(exp["ge"].items()):
    check(k, a.get(k, 0) - b.get(k, 0), n, False)
for grp in ("hdr_err", "msg_err"):
    for k, n in sorted(exp[grp].items()):
        check("%s.%s" % (grp, k), a[grp].get(k, 0) - b[grp].get(k, 0), n, True)
    # and no other code moved
    for k in sorted(set(a[grp]) - set(exp[grp])):
        if a[grp][k] != b[grp].get(k, 0):
            check("%s.%s (not expected)" % (grp, k), a[grp][k] - b[grp].get(k, 0), 0, True)
print("  cases: %d" % exp["cases"])
sys.exit(1 if bad else 0)
PY
}
