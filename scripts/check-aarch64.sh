#!/bin/sh
# Cross-build the runtime for aarch64 and run tests/arch_smoke.c and
# examples/hello.c under qemu-user: the AArch64 context switch, FPCR
# preservation, the trampoline and the stack-overflow report. Installs
# gcc-aarch64-linux-gnu and qemu-user (Debian) when missing. Not part of
# scripts/test.sh: it checks an architecture the CI machines are not.
set -eu
cd "$(dirname "$0")/.."
for p in gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q "install ok installed"; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
		break
	fi
done
out=build/aarch64
mkdir -p "$out"
CC="aarch64-linux-gnu-gcc -std=gnu11 -O2 -Wall -D_GNU_SOURCE \
-DACT_BUILDING_LIBRARY -Iinclude -Ilib -Iaffinity"
LIB="lib/*.c lib/arch/aarch64/ctx.S lib/arch/aarch64/ctx_make.c affinity/env.c"
# shellcheck disable=SC2086
$CC $LIB tests/arch_smoke.c -static -lpthread -lm -o "$out/arch_smoke"
# shellcheck disable=SC2086
$CC $LIB examples/hello.c -static -lpthread -o "$out/hello"
qemu-aarch64 "$out/hello"
qemu-aarch64 "$out/arch_smoke"
set +e
msg=$(qemu-aarch64 "$out/arch_smoke" overflow 2>&1 >/dev/null)
st=$?
set -e
echo "$msg"
if [ "$st" -ne 134 ] || ! echo "$msg" | grep -q "stack overflow in process"; then
	echo "overflow: expected status 134 and the report, got $st"
	exit 1
fi
echo "aarch64: all checks passed"
