# zk-server.sh - sourced by tests/zk/run-zk.sh and tests/e2e/multihost-zk.sh:
# a private ZooKeeper server (Debian's zookeeper, with a JRE), tick 200 ms
# so that sessions may be short, only warnings in its log.
ZK_JAR=/usr/share/java/zookeeper.jar

# zk_server_start DIR IP PORT [RUN...]: its configuration and data in DIR
# (made), listening on IP:PORT, started in the background by RUN... (the
# command that enters its network namespace; none: here), its output in
# DIR/server.log; its pid in ZK_PID. Polling it until it listens is the
# caller's (the deadline is the caller's to choose).
zk_server_start() {
	local dir=$1 ip=$2 port=$3
	shift 3
	mkdir -p "$dir/data" || return 1
	cat >"$dir/zoo.cfg" <<CFG
tickTime=200
minSessionTimeout=400
maxSessionTimeout=20000
dataDir=$dir/data
clientPort=$port
clientPortAddress=$ip
admin.enableServer=false
maxClientCnxns=100
CFG
	cat >"$dir/log4j.properties" <<'LOG'
log4j.rootLogger=WARN, CONSOLE
log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender
log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout
log4j.appender.CONSOLE.layout.ConversionPattern=%d %p %c{1}: %m%n
LOG
	"$@" java -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
		-Dlog4j.configuration="file:$dir/log4j.properties" \
		-cp "$dir:$ZK_JAR" org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" \
		>"$dir/server.log" 2>&1 &
	ZK_PID=$!
}
