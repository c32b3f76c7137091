#!/bin/sh
# Install the dependencies, then generate, configure and build libactors
# out of tree in build/<name>. Usage: scripts/build.sh NAME [configure args]
# (scripts/test.sh builds build/release and build/debug; demo.sh
# build/release.)
set -eu
cd "$(dirname "$0")/.."
name=$1
shift
scripts/install-deps.sh
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
	[ Makefile.am -nt configure ] || [ tests/tests.am -nt configure ]; then
	./autogen.sh >/dev/null
fi
# An in-tree configuration blocks out-of-tree builds: clear it.
if [ -f config.status ]; then
	make distclean >/dev/null
fi
mkdir -p "build/$name"
cd "build/$name"
if [ ! -f Makefile ] || [ ../../configure -nt Makefile ]; then
	../../configure -q "$@"
fi
make -j"$(nproc)"
