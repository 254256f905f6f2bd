#!/bin/sh
# install-deps.sh - install, through apt-get, every Debian 12 package Spate
# needs to build, test and run its demo. Idempotent: packages already
# installed are left alone, and apt-get is not called when none is missing.
# --bench: also what the benchmarks' data scripts and peer drivers need
# (node and npm for tools/cities-stream.sh, a JDK for tools/peers/, time
# and perf for tools/realdata-bench.sh).
# --only PACKAGE...: those packages only, the same way (tools/build-deb.sh
# for debian/control's build dependencies).
set -eu

PACKAGES="
  gcc meson ninja-build pkg-config
  libdpdk-dev dpdk dpdk-dev
  liburcu-dev libconfig-dev zlib1g-dev libssl-dev
  python3 iproute2 ethtool iputils-ping procps valgrind
  clang libclang-rt-14-dev
  libpcap-dev tshark gnuplot-nox
  zookeeper libzookeeper-mt-dev
  libsystemd-dev libedit-dev scdoc bash-completion
  libmicrohttpd-dev prometheus
  dpkg-dev debhelper fakeroot lintian
"
[ "${1:-}" = --bench ] && PACKAGES="$PACKAGES nodejs npm default-jdk-headless time linux-perf"
if [ "${1:-}" = --only ]; then
	shift
	PACKAGES="$*"
fi

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing; run as root (or: sudo $0)" >&2
	exit 1
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
