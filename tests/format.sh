#!/bin/sh
# make check: the C files are as the pinned clang-format writes them
# (scripts/check-format.sh, .clang-format). The same in every build:
# SOURCE_CHECKS=off skips it (scripts/test.sh runs it in release and in
# the tarball only).
if [ "${SOURCE_CHECKS:-on}" = off ]; then
	echo "format.sh: SOURCE_CHECKS=off, skipped"
	exit 77
fi
exec "${srcdir:-.}/scripts/check-format.sh"
