#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: every source file of lib/ (.c, .h, .S) is named in
# Makefile.am. One that is not builds here, since the compiler finds an
# included header in the tree, but make dist leaves it out and the
# tarball does not build: lib/sched/worker_obs.h and
# lib/reactor/reactor_obs.h were such files. And every reproducer of
# tests/regress/ (a .c or .sh there) and every fuzz target's folder of
# inputs (fuzz_*) is named in tests/regress/regress.am, so that make
# check runs it and make dist ships it.
cd "${srcdir:-.}" || exit 2
bad=0
for f in $(find lib -name '*.[chS]' | sort); do
	if ! grep -qF "$f" Makefile.am; then
		echo "sources: $f is not in Makefile.am (make dist leaves it out)" >&2
		bad=1
	fi
done
for f in $(find tests/regress -maxdepth 1 \( -name '*.c' -o -name '*.sh' \
	-o -name 'fuzz_*' \) | sort); do
	if ! grep -qF "$f" tests/regress/regress.am; then
		echo "sources: $f is not in tests/regress/regress.am (make check does not run it, make dist leaves it out)" >&2
		bad=1
	fi
done
[ "$bad" -eq 0 ] &&
	echo "sources: every file of lib/ is in Makefile.am, every reproducer of tests/regress/ in regress.am"
exit "$bad"
