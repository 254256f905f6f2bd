# tools/netns.sh - network namespace helpers for the e2e tests and the demo.
# Source it (bash), then:
#
#   netns_install_trap          # cleanup on EXIT, INT, TERM
#   netns_create                # two namespaces + a veth pair
#   netns_spated_start LOG [spated args...]   # spated in the server ns
#   netns_spated_in NS PREFIX LOG SECS ARGS...  # spated in any namespace
#   netns_cli CMD...            # run a command in the client namespace
#   netns_spated_stats          # SIGUSR1, print the fresh counters line
#   netns_spated_stop           # SIGTERM, wait (bounded)
#
# Layout: spate-srv-$$-N holds the server end of the veth with NO kernel
# IPv4 address (spated owns 198.18.0.1 through net_af_packet, answers ARP
# and ping itself); spate-cli-$$-N holds the client end, 198.18.0.2/24,
# with TX checksum offload off so that the kernel puts real UDP checksums
# in the frames spated reads (af_packet would otherwise see partial ones).
# Only these two addresses are used. Everything created is recorded and
# removed by netns_cleanup, which is safe to call more than once.

NETNS_SRV_IP=198.18.0.1
NETNS_CLI_IP=198.18.0.2
NETNS_PORT=47100
NETNS_SPATED=${NETNS_SPATED:-build/app/spated}
NETNS_NAMES=""
NETNS_PIDS=""
NETNS_PREFIXES=""
NETNS_SPATED_PID=""
NETNS_SPATED_LOG=""
_netns_n=0

netns_log() { echo "netns: $*" >&2; }

# Kill one process we started: TERM, up to 5 s, then KILL.
_netns_kill() {
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	return 0
}

netns_cleanup() {
	local pid ns p
	for pid in $NETNS_PIDS; do
		_netns_kill "$pid"
	done
	for pid in $NETNS_PIDS; do
		wait "$pid" 2>/dev/null
	done
	NETNS_PIDS=""
	for ns in $NETNS_NAMES; do
		# Anything still running inside our own namespaces was started
		# by us (through netns_cli, say): end it by pid.
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$p" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null
	done
	NETNS_NAMES=""
	for p in $NETNS_PREFIXES; do
		rm -rf "/var/run/dpdk/$p"
	done
	NETNS_PREFIXES=""
}

netns_install_trap() {
	trap netns_cleanup EXIT
	trap 'netns_cleanup; exit 130' INT
	trap 'netns_cleanup; exit 143' TERM
}

# Remember a background pid for netns_cleanup.
netns_track() { NETNS_PIDS="$NETNS_PIDS $1"; }

# Creates the pair; sets NETNS_SRV, NETNS_CLI, NETNS_SRV_IF, NETNS_CLI_IF.
netns_create() {
	_netns_n=$((_netns_n + 1))
	NETNS_SRV=spate-srv-$$-$_netns_n
	NETNS_CLI=spate-cli-$$-$_netns_n
	# Interface names: at most 15 bytes; pids have at most 7 digits.
	NETNS_SRV_IF=sps$$-$_netns_n
	NETNS_CLI_IF=spc$$-$_netns_n
	ip netns add "$NETNS_SRV" || return 1
	NETNS_NAMES="$NETNS_NAMES $NETNS_SRV"
	ip netns add "$NETNS_CLI" || return 1
	NETNS_NAMES="$NETNS_NAMES $NETNS_CLI"
	ip link add "$NETNS_SRV_IF" netns "$NETNS_SRV" type veth \
		peer name "$NETNS_CLI_IF" netns "$NETNS_CLI" || return 1
	# No IPv6 on either side: its router and neighbour solicitations would
	# only be noise in spated's counters.
	ip netns exec "$NETNS_SRV" sysctl -qw "net.ipv6.conf.$NETNS_SRV_IF.disable_ipv6=1" 2>/dev/null
	ip netns exec "$NETNS_CLI" sysctl -qw "net.ipv6.conf.$NETNS_CLI_IF.disable_ipv6=1" 2>/dev/null
	ip -n "$NETNS_SRV" link set lo up || return 1
	ip -n "$NETNS_SRV" link set "$NETNS_SRV_IF" up || return 1
	ip -n "$NETNS_CLI" link set lo up || return 1
	ip -n "$NETNS_CLI" addr add "$NETNS_CLI_IP/24" dev "$NETNS_CLI_IF" || return 1
	ip -n "$NETNS_CLI" link set "$NETNS_CLI_IF" up || return 1
	ip netns exec "$NETNS_CLI" ethtool -K "$NETNS_CLI_IF" tx off >/dev/null 2>&1 || {
		netns_log "ethtool -K $NETNS_CLI_IF tx off failed (is ethtool installed?)"
		return 1
	}
}

# netns_bridge BRNS: a namespace BRNS (cleaned up with the others) holding
# bridge br0, up: the switch of a multi-host set-up.
netns_bridge() {
	ip netns add "$1" || return 1
	NETNS_NAMES="$NETNS_NAMES $1"
	ip -n "$1" link add br0 type bridge || return 1
	ip -n "$1" link set br0 up
}

# netns_bridge_port NS IF BRIF BRNS: a namespace NS (cleaned up with the
# others) whose veth IF has its peer BRIF in BRNS's bridge br0; no IPv6
# on IF (see netns_create), lo up. IF itself is left down.
netns_bridge_port() {
	ip netns add "$1" || return 1
	NETNS_NAMES="$NETNS_NAMES $1"
	ip link add "$2" netns "$1" type veth peer name "$3" netns "$4" || return 1
	ip -n "$4" link set "$3" master br0 up || return 1
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" 2>/dev/null
	ip -n "$1" link set lo up
}

netns_cli() { ip netns exec "$NETNS_CLI" "$@"; }
netns_srv() { ip netns exec "$NETNS_SRV" "$@"; }

# The MAC spated uses (net_af_packet takes the interface's).
netns_srv_mac() { cat "/sys/class/net/$NETNS_SRV_IF/address" 2>/dev/null ||
	netns_srv cat "/sys/class/net/$NETNS_SRV_IF/address"; }

# netns_spated_in NS PREFIX LOG SECONDS SPATED_ARGS...: starts spated
# ($NETNS_SPATED, or NETNS_SPATED_BIN when set) in namespace NS with
# SPATED_ARGS (its own options, "--", the EAL ones), its output in LOG,
# the EAL file PREFIX recorded for netns_cleanup; waits at most SECONDS
# for the ready line. Sets NETNS_RUN_PID. On failure the log's tail goes
# to stderr and it returns 1. Every script that starts spated in a
# namespace comes through here.
netns_spated_in() {
	local ns=$1 prefix=$2 log=$3 secs=$4 i
	shift 4
	NETNS_PREFIXES="$NETNS_PREFIXES $prefix"
	# a fresh log, before the start: the child truncates it only once it
	# runs, and an old spated's ready line taken for this one's sends a
	# SIGUSR1 before the handler is installed (it kills spated)
	rm -f "$log"
	ip netns exec "$ns" "${NETNS_SPATED_BIN:-$NETNS_SPATED}" "$@" >"$log" 2>&1 &
	NETNS_RUN_PID=$!
	netns_track "$NETNS_RUN_PID"
	for i in $(seq 1 $((secs * 10))); do
		grep -q '^spated: ready' "$log" 2>/dev/null && return 0
		if ! kill -0 "$NETNS_RUN_PID" 2>/dev/null; then
			netns_log "spated in $ns exited before it was ready:"
			tail -n 40 "$log" >&2
			return 1
		fi
		sleep 0.1
	done
	netns_log "spated in $ns not ready after $secs s:"
	tail -n 40 "$log" >&2
	return 1
}

# netns_spated_start LOG [spated args before "--"...]
# Starts spated in the server namespace on its veth and waits (at most
# 30 s) for its ready line. EAL: no hugepages, no PCI, a file prefix of
# our own, and the lcores in NETNS_EAL_LCORES (default "-l 0": one lcore;
# e.g. "--lcores=0@0,1@1,2@0" puts three lcores on two CPUs); the
# af_packet kernel ring of NETNS_FRAMECNT frames (conf/demo.conf's 4096).
netns_spated_start() {
	local log=$1 rc=0
	shift
	NETNS_SPATED_LOG=$log
	netns_spated_in "$NETNS_SRV" "spate-$$-$_netns_n" "$log" 30 "$@" -- \
		--no-huge -m 512 --no-pci --file-prefix="spate-$$-$_netns_n" ${NETNS_EAL_LCORES:--l 0} \
		--vdev="net_af_packet0,iface=$NETNS_SRV_IF,framecnt=${NETNS_FRAMECNT:-4096}${NETNS_VDEV_EXTRA:-}" \
		${NETNS_EAL_EXTRA:-} || rc=1
	NETNS_SPATED_PID=$NETNS_RUN_PID
	return $rc
}

# SIGUSR1 to spated, then print its new counters line (one JSON object).
netns_spated_stats() {
	spated_stats_of "$NETNS_SPATED_PID" "$NETNS_SPATED_LOG"
}

# spated_stats_of PID LOG: SIGUSR1 to the spated PID, print the fresh
# counters line it writes to LOG (up to 15 s: a loaded machine is slow).
spated_stats_of() {
	local pid=$1 log=$2 before i
	before=$(grep -c '"spated":"counters"' "$log")
	kill -USR1 "$pid" || return 1
	for i in $(seq 1 150); do
		if [ "$(grep -c '"spated":"counters"' "$log")" -gt "$before" ]; then
			grep '"spated":"counters"' "$log" | tail -n 1
			return 0
		fi
		sleep 0.1
	done
	netns_log "no counters line from spated (pid $pid) within 15 s"
	return 1
}

# SIGTERM and wait (bounded); 0 when spated exited cleanly with status 0.
netns_spated_stop() {
	local rc
	[ -n "$NETNS_SPATED_PID" ] || return 0
	spated_stop_pid "$NETNS_SPATED_PID"
	rc=$?
	NETNS_SPATED_PID=""
	return $rc
}

# spated_stop_pid PID: SIGTERM, at most 10 s, then SIGKILL (returns 1);
# otherwise spated's exit status.
spated_stop_pid() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		netns_log "spated (pid $pid) did not stop within 10 s; killing it"
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 1
	fi
	wait "$pid"
}
