#!/bin/sh
# Install the dependencies, generate, configure and build libactors in the
# source tree. Extra arguments go to configure. Used by test.sh and demo.sh.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
	[ Makefile.am -nt configure ]; then
	./autogen.sh >/dev/null
fi
if [ ! -f Makefile ] || [ configure -nt Makefile ] || [ $# -gt 0 ]; then
	./configure -q "$@"
fi
make -j"$(nproc)"
