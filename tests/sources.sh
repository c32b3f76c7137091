#!/bin/sh
# SPDX-License-Identifier: MIT
# make check: every source file of lib/ (.c, .h, .S) is named in
# Makefile.am. One that is not builds here, since the compiler finds an
# included header in the tree, but make dist leaves it out and the
# tarball does not build: lib/sched/worker_obs.h and
# lib/reactor/reactor_obs.h were such files.
cd "${srcdir:-.}" || exit 2
bad=0
for f in $(find lib -name '*.[chS]' | sort); do
	if ! grep -qF "$f" Makefile.am; then
		echo "sources: $f is not in Makefile.am (make dist leaves it out)" >&2
		bad=1
	fi
done
[ "$bad" -eq 0 ] && echo "sources: every file of lib/ is in Makefile.am"
exit "$bad"
