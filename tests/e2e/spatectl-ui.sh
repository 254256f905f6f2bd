#!/bin/bash
# spatectl-ui.sh - spatectl as operators use it: --json answers are typed
# (counts and numeric settings are JSON numbers, booleans booleans, paths
# and modes strings) and errors are JSON too ({"error": ...}, exit 1 for
# a refusal, 2 for no daemon); commands read from stdin one per line; the
# interactive mode on a terminal (a pty) completes a command with Tab,
# runs it, keeps its history; the bash completion offers commands and
# setting names from the running daemon.
. "$(dirname "$0")/common.sh"

sock=$E2E_TMP/ctl.sock
ctl() { "$SPATE_BUILD/tools/spatectl" -s "$sock" "$@"; }
cp "$SPATE_CONF" "$E2E_TMP/ui.conf"
echo "control: { socket = \"$sock\"; mode = \"0600\"; };" >>"$E2E_TMP/ui.conf"
echo "access: { require_auth = false; };" >>"$E2E_TMP/ui.conf"
SPATE_CONF=$E2E_TMP/ui.conf
e2e_start

# typed JSON
for c in "show params" "show config" "show subs --count" "show version" "get drt.alpha" \
	"get control.mode" "get access.require_auth"; do
	# shellcheck disable=SC2086 # the words are the command
	ctl --json $c >"$E2E_TMP/$(echo "$c" | tr ' ' _).json" || fail "--json $c"
done
python3 - "$E2E_TMP" <<'PY' || fail "typed JSON"
import json, os, sys
d = sys.argv[1]
J = lambda n: json.load(open(os.path.join(d, n + ".json")))
p = J("show_params")
def typed(k, want):
    v = p[k]
    assert type(v) is want, "%s = %r is %s, want %s" % (k, v, type(v).__name__, want.__name__)
typed("drt.alpha", float)
typed("drt.cmax", int)
typed("quotas.max_subs", int)
typed("drt.variant", str)
typed("access.require_auth", bool)
typed("control.log_level", str)
c = J("show_config")["settings"]
assert c["control.mode"] == "0600" and c["control.socket"].endswith("ctl.sock"), c
assert type(c["access.burst"]) is int and type(c["access.rate"]) in (int, float), c
s = J("show_subs_--count")
assert s["count"] == 0 and type(s["max_subs"]) is int, s
assert J("get_drt.alpha") == {"drt.alpha": p["drt.alpha"]}
assert J("get_control.mode") == {"control.mode": "0600"}
assert J("get_access.require_auth") == {"access.require_auth": False}
print("ok: --json typed: drt.alpha %r, drt.cmax %r, require_auth %r, mode %r"
      % (p["drt.alpha"], p["drt.cmax"], p["access.require_auth"], c["control.mode"]))
PY

# errors as JSON: a refusal (exit 1) and no daemon (exit 2), on stdout
ctl --json get no.such.setting >"$E2E_TMP/err1.json" 2>"$E2E_TMP/err1.stderr"
rc=$?
[ "$rc" -eq 1 ] || fail "refusal: exit $rc, want 1"
"$SPATE_BUILD/tools/spatectl" -s "$E2E_TMP/nothing.sock" --json show stats >"$E2E_TMP/err2.json" 2>/dev/null
rc=$?
[ "$rc" -eq 2 ] || fail "no daemon: exit $rc, want 2"
ctl --json set drt.alpha 7 >"$E2E_TMP/err3.json"
[ $? -eq 1 ] || fail "set drt.alpha 7 accepted"
python3 - "$E2E_TMP" <<'PY' || fail "errors as JSON"
import json, os, sys
d = sys.argv[1]
e1, e2, e3 = (json.load(open(os.path.join(d, f))) for f in ("err1.json", "err2.json", "err3.json"))
assert list(e1) == ["error"] and "unknown setting 'no.such.setting'" in e1["error"], e1
assert list(e2) == ["error"] and "cannot connect" in e2["error"], e2
assert list(e3) == ["error"] and "alpha = 7 is out of range" in e3["error"], e3
print("ok: errors as JSON: %s | %s | %s" % (e1["error"], e2["error"], e3["error"]))
PY
[ -s "$E2E_TMP/err1.stderr" ] && fail "--json error also on stderr"
# without --json the refusal goes to stderr, as before
ctl get no.such.setting 2>&1 >/dev/null | grep -q "unknown setting" || fail "text refusal"

# commands from stdin (not a terminal), the worst exit status
printf 'show version\n# a comment\n\nget drt.cmax\n' | ctl --json >"$E2E_TMP/batch.out" ||
	fail "commands from stdin"
[ "$(wc -l <"$E2E_TMP/batch.out")" -eq 2 ] || { cat "$E2E_TMP/batch.out"; fail "stdin: 2 answers"; }
printf 'get drt.cmax\nget nope\n' | ctl >/dev/null 2>&1
[ $? -eq 1 ] || fail "stdin: a refusal must give exit 1"
echo "ok: commands from stdin, one JSON answer each"

# interactive on a pty: "show vers<Tab>" completes, runs; history kept
HOME=$E2E_TMP python3 - "$SPATE_BUILD/tools/spatectl" "$sock" <<'PY' || fail "interactive mode"
import os, pty, select, sys, time
prog, sock = sys.argv[1:3]
pid, fd = pty.fork()
if pid == 0:
    os.execv(prog, [prog, "-s", sock])
out = b""
def read_until(token, limit=10):
    global out
    end = time.time() + limit
    while token not in out and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    return token in out
assert read_until(b"spatectl> "), out
# one candidate: completed in place (the echo is a redraw, so the
# answer is the proof: "show vers" alone is no command)
os.write(fd, b"show vers\t")
time.sleep(0.5)
os.write(fd, b"\r")
assert read_until(b"version: "), out
os.write(fd, b"get drt.cm\t")
time.sleep(0.5)
os.write(fd, b"\r")
assert read_until(b"drt.cmax: "), out
os.write(fd, b"quit\r")
os.waitpid(pid, 0)
# libedit's history file escapes blanks as in vis(3): "show\\040version"
hist = open(os.path.join(os.environ["HOME"], ".spatectl_history")).read().replace("\\040", " ")
assert "show version" in hist and "get drt.cmax" in hist, hist
print("ok: interactive: Tab completed 'show vers' and 'drt.cm', answers shown, history kept")
PY

# bash completion, with the daemon's lists
bc=/usr/share/bash-completion/bash_completion
[ -f "$bc" ] || fail "bash-completion not installed (tools/install-deps.sh)"
PATH=$SPATE_BUILD/tools:$PATH bash -c '
. "$1"; . "$2"
comp() { COMP_LINE=$3; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<"$COMP_LINE";
	[[ $COMP_LINE == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));
	COMPREPLY=(); _spatectl; echo "${COMPREPLY[*]}"; }
a=$(comp x x "spatectl -s $3 show ")
b=$(comp x x "spatectl -s $3 get drt.c")
c=$(comp x x "spatectl --js")
echo "show: $a"; echo "get drt.c: $b"; echo "--js: $c"
[[ " $a " == *" version "* && " $a " == *" stats "* && " $a " == *" config "* ]] || exit 1
[[ " $b " == *" drt.cmax "* && " $b " == *" drt.cat_cell "* ]] || exit 1
[[ $c == --json ]] || exit 1
' _ "$bc" "$SPATE_SRC/tools/spatectl.bash-completion" "$sock" || fail "bash completion"
echo "ok: bash completion: commands and settings from the daemon"
netns_spated_stop || fail "spated did not exit cleanly"
echo "ok: spatectl-ui"
