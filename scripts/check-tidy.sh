#!/bin/sh
# SPDX-License-Identifier: MIT
# check-tidy.sh - lib/'s functions within the size limit of .clang-tidy
# (readability-function-size, libuv's: 150 lines, 80 statements), by
# clang-tidy 14 (Debian 12's clang-tidy-14, installed by
# scripts/install-deps.sh). `make check` runs it (tests/tidy.sh) with its
# build directory, whose config.h the sources include; prints each
# function over the limit and exits 1 if there is one.
#
#   scripts/check-tidy.sh BUILD_DIR
#
# $CLANG_TIDY names another binary of version 14. Without one it exits
# 77, the automake code for a skipped test, saying why on stderr and in
# the test's log: the check is then not made, which `make check`'s
# summary shows as a SKIP, never as a PASS.
set -eu
[ $# -eq 1 ] || { echo "usage: check-tidy.sh BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd) || { echo "check-tidy: no build directory $1" >&2; exit 2; }
cd "$(dirname "$0")/.."
[ -f "$build/config.h" ] || { echo "check-tidy: no $build/config.h: configure first" >&2; exit 2; }

ct=
for c in ${CLANG_TIDY-} clang-tidy-14 clang-tidy; do
	if command -v "$c" >/dev/null 2>&1 &&
		"$c" --version 2>/dev/null | grep -q 'version 14\.'; then
		ct=$c
		break
	fi
done
if [ -z "$ct" ]; then
	echo "check-tidy: SKIPPED: no clang-tidy 14 (install clang-tidy-14:" \
		"scripts/install-deps.sh); lib/'s function sizes are not checked" >&2
	exit 77
fi

if [ -d .git ] || [ -f .git ]; then
	files=$(git ls-files 'lib/*.c')
else
	files=$(find lib -name '*.c' | sort)
fi
# the library's flags (Makefile.am AM_CPPFLAGS, libactors_core_la_CPPFLAGS);
# the other architecture's sources are left out, as the build leaves them
case $(uname -m) in
x86_64) other=aarch64 ;;
aarch64) other=x86_64 ;;
*) other=none ;;
esac
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bad=0
n=0
for f in $files; do
	case $f in
	lib/arch/$other/*) continue ;;
	esac
	n=$((n + 1))
	if ! "$ct" --quiet "$f" -- -std=gnu11 -DHAVE_CONFIG_H -D_GNU_SOURCE \
		-DACT_BUILDING_LIBRARY -I"$build" -I"$build/include" \
		-Iinclude -Ilib >"$out" 2>&1; then
		bad=$((bad + 1))
		grep -A3 'error:\|warning:' "$out" || cat "$out"
	fi
done
if [ $bad -gt 0 ]; then
	echo "check-tidy: $bad of $n files of lib/ with a function over the" \
		"limit of .clang-tidy: split it" >&2
	exit 1
fi
echo "check-tidy: $n files of lib/ within .clang-tidy's limits ($ct)"
