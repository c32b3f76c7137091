#!/bin/sh
# make check: lib/'s functions within .clang-tidy's size limit
# (scripts/check-tidy.sh, with this build's config.h). SOURCE_CHECKS=off
# skips it (scripts/test.sh runs it in release and in the tarball only).
if [ "${SOURCE_CHECKS:-on}" = off ]; then
	echo "tidy.sh: SOURCE_CHECKS=off, skipped"
	exit 77
fi
exec "${srcdir:-.}/scripts/check-tidy.sh" .
