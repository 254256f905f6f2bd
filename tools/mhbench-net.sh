# mhbench-net.sh - sourced by tools/multihost-bench.sh after tools/netns.sh:
# a bridge in a namespace of its own, one namespace per host joined to it
# by a veth, spated instances in them, their configurations and counters.
# Every name starts with MHB_NAME (default mhbench-PID: namespaces, DPDK
# file prefixes) or MHB_IFP (default mhbPID: interfaces, whose names have
# 15 bytes at most, so keep it within 11); everything is recorded in
# netns.sh's lists, so netns_cleanup (the caller's trap) ends the
# processes and deletes the namespaces, and with them the veths and the
# bridge, even on failure.
#
# Addresses: 198.18.0.1 the front, 198.18.0.3, .4, ... the match hosts;
# spated owns its address through net_af_packet (no kernel address).
MHB_NAME=${MHB_NAME:-mhbench-$$}
MHB_IFP=${MHB_IFP:-mhb$$}
declare -A MHB_PID MHB_LOG

mhb_ns() { echo "$MHB_NAME-$1"; }
# interface of host NAME: MHB_IFP and a letter or the match host's number
mhb_if() {
	case $1 in
	front) echo "${MHB_IFP}f" ;;
	cli) echo "${MHB_IFP}c" ;;
	*) echo "$MHB_IFP${1#m}" ;;
	esac
}

# mhb_net NAMES...: the bridge, then a namespace per host name.
mhb_net() {
	local h ns ifn brif
	netns_bridge "$MHB_NAME-br" || return 1
	for h in "$@"; do
		ns=$(mhb_ns "$h") ifn=$(mhb_if "$h") brif=$(mhb_if "$h")b
		netns_bridge_port "$ns" "$ifn" "$brif" "$MHB_NAME-br" || return 1
		ip -n "$ns" link set "$ifn" up || return 1
	done
}

# mhb_conf OUT ROLE HOST_ID IPV4 PEERS LCORES [SPATED_EXTRA] [DRT]:
# conf/demo.conf with the multi-host keys, the lcores group, counters on
# demand only (SIGUSR1), MHB_SLEEP_US of idle sleep, the DRt keys DRT.
# Fronts and match hosts sign their frames with a cluster key made beside
# OUT (cluster.key), or send them unsigned with MHB_AUTH=none (the cost
# of authentication, docs/benchmarks.md).
mhb_conf() {
	local keys
	keys=$(dirname "$1")/cluster.key
	[ -f "$keys" ] || (umask 077 && python3 -c 'import secrets; print("key 1", secrets.token_hex(32))' \
		>"$keys") || return 1
	MHB_KEYS=$keys python3 - "$MHB_TOP/conf/demo.conf" "$@" <<'PY'
import re, sys
src, out, role, hid, ip, peers, lcores = sys.argv[1:8]
extra = sys.argv[8] if len(sys.argv) > 8 else ""
drt = sys.argv[9] if len(sys.argv) > 9 else ""
import os
if role != "both":
    if os.environ.get("MHB_AUTH") == "none":
        extra = 'peer_auth = "none"; ' + ("" if "debug_hooks" in extra else "debug_hooks = true; ") + extra
    else:
        extra = 'peer_key_file = "%s"; %s' % (os.environ["MHB_KEYS"], extra)
t = open(src).read()
for key in ("ipv4", "idle_sleep_us", "stats_interval", "mbufs"):
    t, n = re.subn(r"\n\s*%s\s*=[^;]*;" % key, "\n", t, count=1)
    assert n == 1, key
t = t.replace("spated: {", 'spated: {\n  role = "%s"; host_id = %s; ipv4 = "%s";\n'
              '  idle_sleep_us = %s; stats_interval = 0; mbufs = %s;\n'
              '  lcores: { %s };\n  peers = ( %s ); %s'
              % (role, hid, ip, os.environ.get("MHB_SLEEP_US", "50"),
                 os.environ.get("MHB_MBUFS", "16383"), lcores, peers, extra), 1)
if drt:
    t = t.replace("spate: {", "spate: {\n  drt: { %s };" % drt, 1)
open(out, "w").write(t)
PY
}

# mhb_spated NAME CONF LOG LCORES_MAP MEM [VDEV...]: spated in host NAME on
# its veth (and the extra vdevs first: the front's pcap port), its EAL
# lcores mapped by LCORES_MAP ("0@1"); waits for its ready line (60 s).
mhb_spated() {
	local name=$1 conf=$2 log=$3 map=$4 mem=$5 v rc=0
	shift 5
	local vdevs=()
	for v in "$@"; do vdevs+=("--vdev=$v"); done
	NETNS_SPATED_BIN=$MHB_BUILD/app/spated netns_spated_in "$(mhb_ns "$name")" \
		"$MHB_NAME-$name" "$log" 60 -c "$conf" -- \
		--no-huge -m "$mem" --no-pci --file-prefix="$MHB_NAME-$name" --lcores="$map" \
		"${vdevs[@]}" --vdev="net_af_packet0,iface=$(mhb_if "$name")" || rc=1
	MHB_PID[$name]=$NETNS_RUN_PID
	MHB_LOG[$name]=$log
	return $rc
}

# mhb_stats NAME: host NAME's fresh counters line (SIGUSR1).
mhb_stats() { spated_stats_of "${MHB_PID[$1]}" "${MHB_LOG[$1]}"; }

# mhb_stop_all: SIGTERM every host (bounded by spated_stop_pid), forget them.
mhb_stop_all() {
	local h
	for h in "${!MHB_PID[@]}"; do
		spated_stop_pid "${MHB_PID[$h]}" >/dev/null 2>&1
	done
	MHB_PID=()
	MHB_LOG=()
}
