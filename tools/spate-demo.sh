#!/bin/bash
# spate-demo.sh - the whole appliance in one go, as root on Debian 12:
# install what is missing, build, start spated in a network namespace,
# ping it, replay a generated workload from a second namespace, and check
# the daemon's matches against the offline matcher. Cleans up on any exit.
#
#   sh tools/spate-demo.sh [--subs N] [--events N] [--seed N]
# (re-executes itself under bash: the namespace helpers are bash.)
if [ -z "${BASH_VERSION:-}" ]; then
	exec bash "$0" "$@"
fi
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

subs=400 events=4000 seed=2024
while [ $# -gt 0 ]; do
	case $1 in
	--subs) subs=$2; shift 2 ;;
	--events) events=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	*) echo "usage: $0 [--subs N] [--events N] [--seed N]" >&2; exit 2 ;;
	esac
done
if [ "$(id -u)" != 0 ]; then
	echo "spate-demo: needs root (network namespaces, af_packet)" >&2
	exit 1
fi

step() { printf '\n== %s\n' "$*"; }

step "dependencies"
sh tools/install-deps.sh || exit 1

step "build"
if [ ! -f build/build.ninja ]; then
	meson setup build || exit 1
fi
ninja -C build || exit 1
for b in app/spated tools/spate-match tools/spate-replay; do
	[ -x "build/$b" ] || { echo "spate-demo: build/$b was not built" >&2; exit 1; }
done

NETNS_SPATED=$top/build/app/spated
. tools/netns.sh
work=$(mktemp -d /tmp/spate-demo.XXXXXX)
demo_cleanup() {
	netns_cleanup
	rm -rf "$work"
}
trap demo_cleanup EXIT
trap 'demo_cleanup; exit 130' INT
trap 'demo_cleanup; exit 143' TERM

step "namespaces"
netns_create || exit 1
echo "server namespace $NETNS_SRV ($NETNS_SRV_IF, no kernel IP; spated is $NETNS_SRV_IP)"
echo "client namespace $NETNS_CLI ($NETNS_CLI_IF, $NETNS_CLI_IP/24)"

step "spated"
netns_spated_start "$work/spated.log" -c conf/demo.conf || exit 1
grep '^spated: ready' "$work/spated.log"

step "ping $NETNS_SRV_IP from the client namespace"
netns_cli ping -c 3 -i 0.2 -W 2 -w 10 "$NETNS_SRV_IP" || { echo "spate-demo: ping failed" >&2; exit 1; }

step "workload: $subs subscriptions, $events events (seed $seed)"
python3 tests/e2e/gen-stream.py --seed "$seed" --subs "$subs" --events "$events" >"$work/stream.tsv" || exit 1
grep -c -E '^(sub|unsub|event)' "$work/stream.tsv" | sed 's/^/operations: /'
head -n 4 "$work/stream.tsv"

step "replay to spated ($NETNS_SRV_IP:$NETNS_PORT)"
netns_cli timeout 300 build/tools/spate-replay --conf conf/demo.conf \
	--server "$NETNS_SRV_IP:$NETNS_PORT" --stream "$work/stream.tsv" --out "$work/online.tsv" ||
	{ echo "spate-demo: spate-replay failed" >&2; exit 1; }
echo "a few matches (event_id<TAB>sub_id):"
head -n 5 "$work/online.tsv"
echo "total: $(wc -l <"$work/online.tsv") notifications"

step "offline check: spate-match --engine brute"
build/tools/spate-match --engine brute --conf conf/demo.conf "$work/stream.tsv" >"$work/offline.tsv" || exit 1
if cmp -s <(sort "$work/online.tsv") <(sort "$work/offline.tsv"); then
	echo "identical: $(wc -l <"$work/offline.tsv") matches"
	result=0
else
	echo "DIFFERENT: online $(wc -l <"$work/online.tsv"), offline $(wc -l <"$work/offline.tsv")"
	diff <(sort "$work/offline.tsv") <(sort "$work/online.tsv") | head -n 10
	result=1
fi

step "spated counters"
netns_spated_stats | python3 -c '
import json, sys
c = json.loads(sys.stdin.read())
for k, v in c.items():
    if v and k not in ("spated", "lcores") and not isinstance(v, dict):
        print("  %-18s %s" % (k, v))
    elif isinstance(v, dict) and v and k != "lcores":
        # refusals by reason: {code name: count}
        print("  %-18s %s" % (k, ", ".join("%s %s" % kv for kv in sorted(v.items()))))
for l, lc in sorted(c.get("lcores", {}).items()):
    print("  lcore %s: %d polls, %d found work" % (l, lc.get("polls", 0), lc.get("busy_polls", 0)))'
netns_spated_stop || true
exit $result
