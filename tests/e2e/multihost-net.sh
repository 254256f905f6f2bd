# multihost-net.sh - sourced by the multi-host e2e tests after common.sh:
# one namespace per host (a front, match hosts, the client) joined by a
# Linux bridge in a namespace of its own, and spated instances in them.
# Everything is recorded in netns.sh's lists, so netns_cleanup (the EXIT
# trap of common.sh) ends the processes and deletes the namespaces (and
# with them every veth and the bridge) even on failure.
#
# Addresses: 198.18.0.1 front, .2 the client (a kernel address), .3, .4,
# ... match hosts; spated owns its address through net_af_packet.
MH_TAG=mh$$
# rehome.sh's DRt settings: a load period of 4 events, few categories
# allowed: many moves and merges, many between hosts, while events stream
MH_REHOME_DRT="lambda = 4; sigma = 0.0; cmax = 24; new_th = 0.8; route_cell = 1; alpha = 0.5; cat_cell = 2;"
MH_BR=multihost-$$-br
# mh_rehome_drt: MH_REHOME_DRT when MH_REHOME=1 (the tests' rehoming
# variant), else nothing.
mh_rehome_drt() {
	[ "${MH_REHOME:-0}" = 1 ] && echo "$MH_REHOME_DRT"
	return 0
}
MH_PIDS=()

# mh_host NAME IP: a namespace NAME with a veth into the bridge; the
# client gets IP as a kernel address, spated hosts none (IP "-").
mh_host() {
	local name=$1 ip=$2 ns=multihost-$$-$1 ifn=$MH_TAG$1 brif=${MH_TAG}b$1
	netns_bridge_port "$ns" "$ifn" "$brif" "$MH_BR" || return 1
	if [ "$ip" != - ]; then
		ip -n "$ns" addr add "$ip/24" dev "$ifn" || return 1
		ip netns exec "$ns" ethtool -K "$ifn" tx off >/dev/null 2>&1 || return 1
	fi
	ip -n "$ns" link set "$ifn" up || return 1
}

mh_ns() { echo "multihost-$$-$1"; }

# mh_net NAMES...: the bridge, then a host per name ("cli" gets
# 198.18.0.2; others none).
mh_net() {
	netns_bridge "$MH_BR" || return 1
	local h
	for h in "$@"; do
		if [ "$h" = cli ]; then
			mh_host cli 198.18.0.2 || return 1
		else
			mh_host "$h" - || return 1
		fi
	done
}

# The cluster's key file (docs/operations.md, "Cluster keys"): one key
# made per test, mode 0600, and ZooKeeper digest credentials.
MH_KEYS=$E2E_TMP/cluster.key
mh_keys() {
	[ -f "$MH_KEYS" ] && return 0
	(umask 077 && python3 -c 'import secrets
print("# made by multihost-net.sh\nkey 1 %s\nzk_digest spate:%s" % (secrets.token_hex(32), secrets.token_hex(12)))' \
		>"$MH_KEYS")
}

# mh_conf OUT ROLE HOST_ID IPV4 PEERS [LCORES] [EXTRA]: conf/demo.conf
# with the multi-host keys set (PEERS: the libconfig list body), signing
# with the test's cluster key (MH_AUTH="none": unsigned, debug_hooks).
mh_conf() {
	local out=$1 role=$2 id=$3 ip=$4 peers=$5 lcores=${6:-"rx = 0; tx = 0; cluster = 0; match = [ 0 ];"}
	local extra=${7:-}
	mh_keys || return 1
	if [ "${MH_AUTH:-}" = none ]; then
		case $extra in *debug_hooks*) ;; *) extra="debug_hooks = true; $extra" ;; esac
		extra="peer_auth = \"none\"; $extra"
	else
		extra="peer_key_file = \"$MH_KEYS\"; $extra"
	fi
	e2e_conf "$out" "$lcores" "${MH_DRT:-}" || return 1
	python3 - "$out" "$role" "$id" "$ip" "$peers" "$extra" <<'PY' || return 1
import re, sys
out, role, hid, ip, peers, extra = sys.argv[1:7]
t = open(out).read()
t = re.sub(r'\n\s*ipv4\s*=[^;]*;', '\n', t, count=1)
t = re.sub(r'\n\s*idle_sleep_us\s*=[^;]*;', '\n', t, count=1)
t = t.replace("spated: {", 'spated: {\n  role = "%s"; host_id = %s; ipv4 = "%s"; idle_sleep_us = 200;\n'
              '  peers = ( %s ); %s' % (role, hid, ip, peers, extra), 1)
open(out, "w").write(t)
PY
}

# mh_spated NAME CONF LOG: spated in host NAME on its veth; waits for its
# ready line (30 s at most). Its pid is MH_PID[NAME].
declare -A MH_PID
mh_spated() {
	local name=$1 conf=$2 log=$3 prefix=multihost-$$-$1 rc=0
	netns_spated_in "$(mh_ns "$name")" "$prefix" "$log" 30 -c "$conf" -- \
		--no-huge -m 512 --no-pci --file-prefix="$prefix" -l 0 \
		--vdev="net_af_packet0,iface=$MH_TAG$name" || rc=1
	MH_PID[$name]=$NETNS_RUN_PID
	return $rc
}

# mh_stats NAME LOG: SIGUSR1 to host NAME's spated, print the fresh counters line.
mh_stats() {
	spated_stats_of "${MH_PID[$1]}" "$2"
}

# mh_stats_all HOST...: a line "HOST COUNTERS_JSON" for each (its log is
# $E2E_TMP/HOST.log); 1 (and which, on stderr) when one gives none.
mh_stats_all() {
	local h st
	for h in "$@"; do
		st=$(mh_stats "$h" "$E2E_TMP/$h.log") || { echo "$h: no counters" >&2; return 1; }
		echo "$h $st"
	done
}

# mh_stop NAME: SIGTERM, at most 10 s; 0 when it exited with status 0.
mh_stop() {
	spated_stop_pid "${MH_PID[$1]}"
}

# mh_dump: every running host's nonzero counters and last log lines
# (when a check fails).
mh_dump() {
	local h st
	for h in "${!MH_PID[@]}"; do
		kill -0 "${MH_PID[$h]}" 2>/dev/null || continue
		st=$(mh_stats "$h" "$E2E_TMP/$h.log") || continue
		echo "--- $h: $(e2e_moved "$st")"
		grep -v '"spated":' "$E2E_TMP/$h.log" | tail -n ${MH_LOGLINES:-3}
	done
}

# mh_replay_check STREAM NAME: as e2e_replay_check, from the client
# namespace to the front.
mh_replay_check() {
	local name=$2
	e2e_replay_compare "$1" "$name" "198.18.0.1:$NETNS_PORT" mh_dump ip netns exec "$(mh_ns cli)"
	# a clean run: every host's datagrams to the client in sequence, none
	# missing (the client tracks each server address apart)
	case $(tail -n 1 "$E2E_TMP/$name.replay.err") in
	*" seq_lost=0 seq_late=0 "*) ;;
	*) fail "$name: gaps or reordering in the servers' sequence numbers: $(tail -n 1 "$E2E_TMP/$name.replay.err")" ;;
	esac
}

# mh_base DRT HOST...: the DRt settings of every host (MH_DRT, which
# mh_conf writes too), the common config $SPATE_CONF ($E2E_TMP/base.conf:
# every stage on lcore 0) and the hosts' namespaces (mh_net).
mh_base() {
	MH_DRT=$1
	shift
	SPATE_CONF=$E2E_TMP/base.conf
	e2e_conf "$SPATE_CONF" "rx = 0; tx = 0; cluster = 0; match = [ 0 ];" "$MH_DRT"
	mh_net "$@" || fail "cannot build the namespaces"
}

# mh_two_hosts SEED SUBS EVENTS: what multihost-forge.sh and
# multihost-shed.sh share: gen-stream.py's stream (SUBS subscriptions
# interleaved with their deletes, then EVENTS events) in $E2E_TMP/subs.tsv
# and events.tsv, the base configuration in $SPATE_CONF, the namespaces
# of a front, match host m1 and the client, and `mh_el TEXT` to print TEXT
# with the seconds since this call.
mh_two_hosts() {
	MH_T0=$(date +%s)
	python3 "$E2E_DIR/gen-stream.py" --seed "$1" --subs "$2" --events "$3" >"$E2E_TMP/all.tsv" ||
		fail "gen-stream.py"
	grep -v '^#' "$E2E_TMP/all.tsv" | grep -v '^event' >"$E2E_TMP/subs.tsv"
	grep '^event' "$E2E_TMP/all.tsv" >"$E2E_TMP/events.tsv"
	mh_base "" front m1 cli
}
mh_el() { echo "  [$(( $(date +%s) - MH_T0 )) s] $*"; }

# mh_counter NAME COUNTER: one counter of host NAME (0 when absent).
mh_counter() {
	mh_stats "$1" "$E2E_TMP/$1.log" |
		python3 -c 'import json,sys; print(json.load(sys.stdin).get(sys.argv[1], 0))' "$2"
}

# mh_wait_ops NAME N: until host NAME has applied N subscription
# operations (30 s at most); 1 if it has not.
mh_wait_ops() {
	local i
	for i in $(seq 1 300); do
		[ "$(( $(mh_counter "$1" sub_adds) + $(mh_counter "$1" sub_dels) ))" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# mh_subscriber COUNT IDLE_MS SECONDS: spate-sub in the client namespace
# (client 11 at 198.18.0.2:45001) through the front with $E2E_TMP/subs.tsv,
# until COUNT notifications, IDLE_MS without any or SECONDS; its output
# in sub.raw, its log in sub.err, its pid in $subscriber (tracked).
mh_subscriber() {
	ip netns exec "$(mh_ns cli)" timeout $(( $3 + 10 )) "$SPATE_BUILD/tools/spate-sub" \
		--conf "$SPATE_CONF" --server "198.18.0.1:$NETNS_PORT" --listen 198.18.0.2:45001 \
		--client-id 11 --count "$1" --idle-ms "$2" --duration "$3" --out "$E2E_TMP/sub.raw" \
		"$E2E_TMP/subs.tsv" 2>"$E2E_TMP/sub.err" &
	subscriber=$!
	netns_track "$subscriber"
}
