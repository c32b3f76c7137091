#!/bin/sh
# Install the Debian 12 packages that build and test libactors.
# Idempotent: does nothing when every package is already installed.
# Run as root (or with sudo) on Debian or Ubuntu.
#
#   --bench  also the benchmarks' extras: golang-go, for the Go peer of
#            scripts/bench-echo.sh, and gnuplot-nox for
#            scripts/plot-servers.sh
set -eu

# clang and libclang-rt-dev: the TSan build (scripts/test.sh); redis-tools
# and redis-server: tests/kv.sh's clients and the server it compares with
# (python3: its fuzzer)
PKGS="build-essential autoconf automake libtool pkg-config \
liburing-dev libhwloc-dev libnuma-dev check spin clang libclang-rt-dev \
redis-tools redis-server python3"

for arg in "$@"; do
	case $arg in
	--bench) PKGS="$PKGS golang-go gnuplot-nox" ;;
	*)
		echo "usage: install-deps.sh [--bench]" >&2
		exit 2
		;;
	esac
done

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
