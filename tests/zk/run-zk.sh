#!/bin/sh
# run-zk.sh - start a private ZooKeeper server on 127.0.0.1 (a free port,
# a fresh data dir, tick 200 ms so sessions may be short), run test_zk
# against it, and stop the server and remove its files whatever happens.
#
# usage: run-zk.sh TEST_ZK_BINARY
# Exits 77 (meson: skipped) when the ZooKeeper server (Debian's
# zookeeper, with a JRE) or the C client (libzookeeper-mt-dev: then the
# binary argument is empty) is not installed; tools/install-deps.sh
# installs both.
set -u

bin=${1:-}
jar=/usr/share/java/zookeeper.jar
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
	echo "run-zk: test_zk not built (libzookeeper-mt-dev missing), skipping"
	exit 77
fi
if ! command -v java >/dev/null 2>&1 || [ ! -f "$jar" ]; then
	echo "run-zk: ZooKeeper server or java not installed, skipping"
	exit 77
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
mkdir -p "$dir/data"
cat >"$dir/zoo.cfg" <<CFG
tickTime=200
minSessionTimeout=400
maxSessionTimeout=20000
dataDir=$dir/data
clientPort=$port
clientPortAddress=127.0.0.1
admin.enableServer=false
maxClientCnxns=100
CFG
cat >"$dir/log4j.properties" <<'LOG'
log4j.rootLogger=WARN, CONSOLE
log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender
log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout
log4j.appender.CONSOLE.layout.ConversionPattern=%d %p %c{1}: %m%n
LOG

java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
	-Dlog4j.configuration="file:$dir/log4j.properties" \
	-cp "$dir:$jar" org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" \
	>"$dir/server.log" 2>&1 &
pid=$!

# Up to 60 s for the JVM to listen (a loaded 2-core machine).
up=0
i=0
while [ $i -lt 600 ]; do
	if python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1', $port)))" 2>/dev/null; then
		up=1
		break
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
if [ "$up" != 1 ]; then
	tail -n 30 "$dir/server.log"
	echo "run-zk: the ZooKeeper server did not start"
	exit 1
fi

timeout 120 "$bin" "127.0.0.1:$port"
rc=$?
if [ "$rc" -ne 0 ]; then
	tail -n 30 "$dir/server.log"
fi
exit "$rc"
