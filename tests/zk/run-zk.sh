#!/bin/sh
# run-zk.sh - start a private ZooKeeper server on 127.0.0.1 (a free port,
# a fresh data dir, tick 200 ms so sessions may be short), run test_zk
# against it, and stop the server and remove its files whatever happens.
#
# usage: run-zk.sh TEST_ZK_BINARY
# Exits 77 (meson: skipped) when the ZooKeeper server (Debian's
# zookeeper, with a JRE) or the C client (libzookeeper-mt-dev: then the
# binary argument is empty) is not installed; tools/install-deps.sh
# installs both. Under CI=true that is a failure instead (no silent test).
#
# No bound here depends on a guess of the machine's load: the server
# gets up to 180 s to listen (it is polled, not waited for), and test_zk
# scales its own deadlines by how fast the server answered its first
# session; the last-resort kill (a hang) comes after 900 s, which meson's
# timeout (tests/zk/meson.build) leaves room for.
set -u

bin=${1:-}
. "$(dirname "$0")/zk-server.sh"
# skip WHY: 77, or 1 under CI
skip() {
	if [ "${CI:-}" = true ]; then
		echo "run-zk: FAIL: $1 (CI=true: tools/install-deps.sh installs it)" >&2
		exit 1
	fi
	echo "run-zk: $1, skipping"
	exit 77
}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	skip "test_zk not built (libzookeeper-mt-dev missing)"
fi
if ! command -v java >/dev/null 2>&1 || [ ! -f "$ZK_JAR" ]; then
	skip "ZooKeeper server or java not installed"
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/spate-zk.XXXXXX") || exit 1
pid=""
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
zk_server_start "$dir" 127.0.0.1 "$port" || exit 1
pid=$ZK_PID

# Poll until the JVM listens, by the clock: up to 180 s (a loaded
# 2-core machine; quiet, about 1 s). One python3 does the polling: a
# process per probe would itself be slow under load.
t0=$(date +%s)
if ! python3 - "$port" "$pid" <<'PY'
import os, socket, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
until = time.monotonic() + 180
while time.monotonic() < until:
    s = socket.socket()
    s.settimeout(0.5)
    if s.connect_ex(('127.0.0.1', port)) == 0:
        sys.exit(0)
    s.close()
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit(1)  # the server died
    time.sleep(0.05)
sys.exit(1)
PY
then
	tail -n 30 "$dir/server.log"
	echo "run-zk: the ZooKeeper server did not listen within 180 s"
	exit 1
fi
echo "run-zk: server listening after $(($(date +%s) - t0)) s"

timeout 900 "$bin" "127.0.0.1:$port"
rc=$?
if [ "$rc" -ne 0 ]; then
	tail -n 30 "$dir/server.log"
fi
exit "$rc"
