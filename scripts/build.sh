#!/bin/sh
# Install the dependencies, then generate, configure and build libactors
# out of tree in build/<name>. Usage: scripts/build.sh NAME [configure args]
# (scripts/test.sh builds build/release, build/debug and build/tsan with
# --enable-werror; demo.sh build/release without.)
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
# Configure a new build, or one given arguments other than its last
# configure's (test.sh's --enable-werror on demo.sh's build/release).
# Given none, a build keeps its own: the benchmark scripts build whatever
# build/NAME is, and make itself reruns configure, with the arguments it
# was first given, when configure has changed.
if [ ! -f Makefile ] ||
	{ [ $# -gt 0 ] && [ "$(cat configure-args 2>/dev/null)" != "$*" ]; }; then
	rm -f configure-args
	../../configure -q "$@"
	printf '%s\n' "$*" >configure-args
fi
make -j"$(nproc)"
