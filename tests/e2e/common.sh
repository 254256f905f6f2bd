# common.sh - sourced by every e2e test: paths, root check (exit 77 =
# skipped), namespaces with cleanup on any exit, and small helpers.
# meson passes SPATE_SRC and SPATE_BUILD; by hand they default to the
# checkout and its build/ directory.
set -u
E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SPATE_SRC=${SPATE_SRC:-$(cd "$E2E_DIR/../.." && pwd)}
SPATE_BUILD=${SPATE_BUILD:-$SPATE_SRC/build}
SPATE_CONF=$SPATE_SRC/conf/demo.conf

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (network namespaces, af_packet)"
	exit 77
fi
for t in ip ethtool python3 ping timeout; do
	command -v "$t" >/dev/null || { echo "FAIL: $t not installed (tools/install-deps.sh)"; exit 1; }
done
for b in app/spated tools/spate-match tools/spate-replay; do
	[ -x "$SPATE_BUILD/$b" ] || { echo "FAIL: $SPATE_BUILD/$b not built"; exit 1; }
done

NETNS_SPATED=$SPATE_BUILD/app/spated
# shellcheck source=../../tools/netns.sh
. "$SPATE_SRC/tools/netns.sh"
E2E_TMP=$(mktemp -d /tmp/spate-e2e.XXXXXX)
SPATED_LOG=$E2E_TMP/spated.log
# the checks written in Python say what is wrong here too (mh_counters.py,
# ha-net.sh): fail() repeats it last, after any dump of the hosts, where
# a CI summary that keeps only the end of the output still shows it
export E2E_WRONG=$E2E_TMP/wrong

e2e_cleanup() {
	[ -n "${E2E_WATCHDOG:-}" ] && kill "$E2E_WATCHDOG" 2>/dev/null
	netns_cleanup
	# E2E_KEEP=1 keeps the logs and streams of a run to read afterwards
	if [ -n "${E2E_KEEP:-}" ]; then
		echo "kept: $E2E_TMP" >&2
	else
		rm -rf "$E2E_TMP"
	fi
}
trap e2e_cleanup EXIT
trap 'e2e_cleanup; exit 130' INT
trap 'e2e_cleanup; exit 143' TERM

# A watchdog 15 s before meson's own timeout (E2E_TIMEOUT_S, from
# meson.build, times E2E_TIMEOUT_MULT, from tools/run-tests.sh): meson
# ends a test with SIGTERM and SIGKILL half a second later, too soon for
# the trap to stop spated and delete the namespaces. The watchdog ends
# the test's children and then the test while there is time to clean up.
E2E_WATCHDOG=
if [ -n "${E2E_TIMEOUT_S:-}" ]; then
	_e2e_after=$((E2E_TIMEOUT_S * ${E2E_TIMEOUT_MULT:-1} - 15))
	(
		trap 'kill "$_e2e_sleep" 2>/dev/null; exit 0' TERM
		sleep "$_e2e_after" >/dev/null 2>&1 &
		_e2e_sleep=$!
		wait "$_e2e_sleep" || exit 0
		trap '' TERM
		echo "FAIL: still running after $_e2e_after s: stopped by the e2e watchdog"
		pkill -TERM -P $$
		kill -TERM $$
	) &
	E2E_WATCHDOG=$!
fi

fail() {
	echo "FAIL: $*"
	[ -s "$E2E_WRONG" ] && sed 's/^/  why: /' "$E2E_WRONG"
	if [ -f "$SPATED_LOG" ]; then
		echo "--- last lines of the spated log:"
		tail -n 15 "$SPATED_LOG"
	fi
	exit 1
}

# Namespaces up and spated ready.
e2e_start() {
	netns_create || fail "cannot create the namespaces"
	netns_spated_start "$SPATED_LOG" -c "$SPATE_CONF" "$@" || fail "spated did not start"
}

# Stop spated (must exit 0) and start a fresh one in the same namespaces
# (with the configuration in SPATE_CONF).
e2e_restart() {
	netns_spated_stop || fail "spated did not exit cleanly"
	netns_spated_start "$SPATED_LOG" -c "$SPATE_CONF" "$@" || fail "spated did not restart"
}

# e2e_conf OUT LCORES [DRT]: conf/demo.conf with the group
# "lcores: { LCORES };" in "spated" and "drt: { DRT };" in "spate".
e2e_conf() {
	python3 - "$SPATE_SRC/conf/demo.conf" "$1" "$2" "${3:-}" <<'PY' || fail "e2e_conf"
import sys
src, out, lcores, drt = sys.argv[1:5]
text = open(src).read()
assert text.count("spated: {") == 1 and text.count("spate: {") == 1
import re
text = text.replace("spated: {", "spated: {\n  lcores: { %s };" % lcores)
if drt:
    m = re.search(r"\n(\s*)drt\s*:\s*\{([^}]*)\}", text)
    if m is None:
        text = text.replace("spate: {", "spate: {\n  drt: { %s };" % drt)
    else:
        # the file has a drt group: set our keys in it (libconfig refuses
        # a second group or a repeated key)
        body = m.group(2)
        for kv in filter(None, (x.strip() for x in drt.split(";"))):
            key = kv.split("=")[0].strip()
            body, n = re.subn(r"(^|\n|\s)%s\s*=[^;]*;" % re.escape(key), r"\1%s;" % kv, body)
            if n == 0:
                body = " %s;" % kv + body
        text = text[:m.start(2)] + body + text[m.end(2):]
open(out, "w").write(text)
PY
}

# e2e_ping COUNT: COUNT echo replies or fail.
e2e_ping() {
	netns_cli ping -c "$1" -i 0.2 -W 2 -w 15 "$NETNS_SRV_IP" >"$E2E_TMP/ping.out" 2>&1 ||
		{ cat "$E2E_TMP/ping.out"; fail "ping $NETNS_SRV_IP"; }
	grep -q " $1 received" "$E2E_TMP/ping.out" || { cat "$E2E_TMP/ping.out"; fail "ping: replies lost"; }
}

# e2e_wait_listening ERR TENTHS [PID]: until spate-sub's stderr (file ERR)
# says it listens (its subscriptions acknowledged), at most TENTHS tenths
# of a second, and while PID (when given) runs. 0, or 1 with ERR shown.
e2e_wait_listening() {
	local i
	for i in $(seq 1 "$2"); do
		grep -q "listening" "$1" 2>/dev/null && return 0
		[ -z "${3:-}" ] || kill -0 "$3" 2>/dev/null || break
		sleep 0.1
	done
	grep -q "listening" "$1" 2>/dev/null && return 0
	cat "$1" 2>/dev/null
	return 1
}

# e2e_counter JSON NAME: one counter from a counters line.
e2e_counter() {
	python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2], 0))' "$1" "$2"
}

# e2e_moved COUNTERS_JSON: the counters that moved (nonzero scalars), on
# one line: what a failing check prints to tell a counted drop from a
# silent one.
e2e_moved() {
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(" ".join("%s=%s" % kv for kv in d.items()
               if kv[1] and not isinstance(kv[1], (dict, list)) and kv[0] != "spated"))' "$1"
}

# e2e_replay_compare STREAM NAME SERVER DUMP RUN...: replay STREAM to
# SERVER (HOST:PORT) with spate-replay run by RUN... (the command that
# enters the client's namespace) and compare (sorted) with spate-match
# --engine brute on the same stream; DUMP (a command) tells what the
# servers counted when either fails. The replay's summary line is in
# $E2E_TMP/NAME.replay.err.
# E2E_REPLAY_ARGS: more spate-replay options (default: none, the client's defaults)
e2e_replay_compare() {
	local stream=$1 name=$2 server=$3 dump=$4
	local exp=$E2E_TMP/$2.expected got=$E2E_TMP/$2.got err=$E2E_TMP/$2.replay.err
	shift 4
	"$SPATE_BUILD/tools/spate-match" --engine brute --conf "$SPATE_CONF" "$stream" \
		2>"$E2E_TMP/$name.match.err" | sort >"$exp" || fail "spate-match $stream"
	"$@" timeout 300 "$SPATE_BUILD/tools/spate-replay" --conf "$SPATE_CONF" \
		--server "$server" --stream "$stream" --out "$got.raw" \
		${E2E_REPLAY_ARGS:-} 2>"$err" ||
		{ cat "$err"; $dump; fail "spate-replay $stream"; }
	sort "$got.raw" >"$got"
	if ! cmp -s "$exp" "$got"; then
		echo "--- diff expected got (first lines):"
		diff "$exp" "$got" | head -n 20
		cat "$err"
		$dump
		fail "$name: matches differ from spate-match ($(wc -l <"$exp") expected, $(wc -l <"$got") got)"
	fi
	echo "ok: $name: $(wc -l <"$exp") matches identical to spate-match ($(tail -n 1 "$err"))"
}

# e2e_spated_moved: spated's own view, every counter that moved (to tell
# a counted drop from a silent one).
e2e_spated_moved() {
	local stats
	stats=$(netns_spated_stats 2>/dev/null) && echo "spated: $(e2e_moved "$stats")"
	return 0
}

# e2e_replay_check STREAM NAME: replay STREAM from the client namespace to
# spated and compare with spate-match (e2e_replay_compare).
e2e_replay_check() {
	e2e_replay_compare "$1" "$2" "$NETNS_SRV_IP:$NETNS_PORT" e2e_spated_moved netns_cli
}
