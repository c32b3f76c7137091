#!/bin/sh
# Install the Debian 12 packages that build and test libactors.
# Idempotent: does nothing when every package is already installed.
# Run as root (or with sudo) on Debian or Ubuntu.
#
#   --bench    also the benchmarks' extras: golang-go, for the Go peer of
#              scripts/bench-echo.sh, and gnuplot-nox for
#              scripts/plot-servers.sh
#   --aarch64  also scripts/check-aarch64.sh's: the cross compiler,
#              qemu-user, and the arm64 -dev packages of the libraries
#              (Debian multiarch: adds the arm64 architecture to dpkg)
set -eu

# clang and libclang-rt-dev: the TSan build (scripts/test.sh); redis-tools
# and redis-server: tests/kv.sh's clients and the server it compares with
# (python3: its fuzzer); clang-format-14: tests/format.sh, the pinned
# formatter of .clang-format; clang-tidy-14: tests/tidy.sh, the function
# size limit of .clang-tidy; erlang-base: escript and OTP's supervisor,
# which tests/sup-diff.sh compares the library's with, and epmd and the
# erl nodes of the distribution tests; erlang-dev: erl_interface's libei,
# the external term format of Erlang distribution (configure --without-ei
# builds without it)
PKGS="build-essential autoconf automake libtool pkg-config \
liburing-dev libhwloc-dev libnuma-dev check spin clang libclang-rt-dev \
redis-tools redis-server python3 clang-format-14 clang-tidy-14 erlang-base \
erlang-dev"

arm64=no
for arg in "$@"; do
	case $arg in
	--bench) PKGS="$PKGS golang-go gnuplot-nox" ;;
	--aarch64)
		arm64=yes
		PKGS="$PKGS gcc-aarch64-linux-gnu qemu-user libc6-dev:arm64 \
libhwloc-dev:arm64 libnuma-dev:arm64 liburing-dev:arm64 check:arm64"
		;;
	*)
		echo "usage: install-deps.sh [--bench] [--aarch64]" >&2
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
if [ "$arm64" = yes ] && ! dpkg --print-foreign-architectures | grep -qx arm64
then
	$SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
