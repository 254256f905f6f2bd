# multihost-zk.sh - sourced after multihost-net.sh: a management network
# (a second bridge, br1, in the bridge namespace, 198.19.0.0/24, kernel
# addresses: the ZooKeeper client is an ordinary TCP client, not DPDK)
# and a private ZooKeeper server on it, like a real deployment's
# management NICs. Everything is tracked for netns_cleanup.
MH_ZK_IP=198.19.0.254
MH_ZK_PORT=2181
# shellcheck source=../zk/zk-server.sh
. "$E2E_DIR/../zk/zk-server.sh"

# mh_zk_net: br1 with the server's address.
mh_zk_net() {
	ip -n "$MH_BR" link add br1 type bridge || return 1
	ip -n "$MH_BR" addr add "$MH_ZK_IP/24" dev br1 || return 1
	ip -n "$MH_BR" link set br1 up || return 1
	ip -n "$MH_BR" link set lo up || return 1
}

# mh_zk_host NAME IP: host NAME's management interface on br1.
mh_zk_host() {
	local name=$1 ip=$2 ns ifn=${MH_TAG}m$1 brif=${MH_TAG}n$1
	ns=$(mh_ns "$name")
	ip link add "$ifn" netns "$ns" type veth peer name "$brif" netns "$MH_BR" || return 1
	ip -n "$MH_BR" link set "$brif" master br1 up || return 1
	ip -n "$ns" addr add "$ip/24" dev "$ifn" || return 1
	ip -n "$ns" link set "$ifn" up || return 1
}

# mh_zk_start: Debian's ZooKeeper server in the bridge namespace (tick
# 200 ms so sessions may be 1 s), up within 60 s; its pid in MH_ZK_PID
# (ip netns exec becomes java). Exits 77 (skipped) when it is not
# installed.
mh_zk_start() {
	local dir=$E2E_TMP/zk i
	if ! command -v java >/dev/null 2>&1 || [ ! -f "$ZK_JAR" ]; then
		echo "SKIP: the ZooKeeper server is not installed (tools/install-deps.sh)"
		exit 77
	fi
	zk_server_start "$dir" "$MH_ZK_IP" "$MH_ZK_PORT" ip netns exec "$MH_BR" || return 1
	MH_ZK_PID=$ZK_PID
	netns_track "$ZK_PID"
	for i in $(seq 1 600); do
		ip netns exec "$MH_BR" python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('$MH_ZK_IP', $MH_ZK_PORT)))" \
			2>/dev/null && return 0
		sleep 0.1
	done
	tail -n 20 "$dir/server.log"
	return 1
}

# The spated settings that join this ZooKeeper (a root of the test's own).
mh_zk_conf() {
	echo "zookeeper = \"$MH_ZK_IP:$MH_ZK_PORT\"; zk_root = \"/spate/t$$\"; zk_session_ms = ${MH_ZK_SESSION_MS:-1000}; zk_wait_ms = ${1:-0};"
}
