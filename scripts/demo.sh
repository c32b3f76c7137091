#!/bin/sh
# Install, build and run the main job: `actors demo`.
#
# Each step prints one line, "building the actors tool... done (41 s)";
# what the steps themselves print (apt-get, autogen, configure, make)
# is appended to build/demo.log, named at the end, and when a step fails
# its last lines are shown with the log's name. Then the demo's own
# output. A second run skips what is done: the packages installed,
# configure generated, build/release configured (scripts/build.sh's
# rules and build folder, so its later runs take this one as it is).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
mkdir -p build
log=$top/build/demo.log
echo "=== scripts/demo.sh, $(date)" >>"$log"

# step WHAT COMMAND...: one line for it, its output to the log
step() {
	what=$1
	shift
	printf '%s... ' "$what"
	echo "=== $what: $*" >>"$log"
	from=$(($(wc -l <"$log") + 1))
	t0=$(date +%s)
	rc=0
	"$@" >>"$log" 2>&1 </dev/null || rc=$?
	if [ "$rc" = 0 ]; then
		echo "done ($(($(date +%s) - t0)) s)"
		return
	fi
	echo "failed (exit $rc); the last lines of its output:"
	tail -n "+$from" "$log" | tail -n 20 | sed 's/^/  /'
	echo "the whole log: $log"
	exit 1
}

# build.sh's rules: configure generated again when its sources changed,
# an in-tree configuration cleared (it blocks out-of-tree builds), the
# build configured once, with the arguments it was given recorded
needs_autogen() {
	[ ! -x configure ] || [ configure.ac -nt configure ] ||
		[ Makefile.am -nt configure ] || [ tests/tests.am -nt configure ]
}
configure_release() (
	if [ -f config.status ]; then
		make distclean || exit 1
	fi
	mkdir -p build/release && cd build/release && ../../configure -q &&
		echo >configure-args # no arguments (scripts/build.sh)
)

step "installing the build dependencies that are missing" \
	scripts/install-deps.sh
if needs_autogen; then
	step "generating configure (autogen.sh)" ./autogen.sh
fi
if [ ! -f build/release/Makefile ]; then
	step "configuring build/release" configure_release
fi
step "building the actors tool (build/release/tools/actors)" \
	make -C build/release -j"$(nproc)" tools/actors
echo "running actors demo:"
echo
rc=0
build/release/tools/actors demo || rc=$?
echo
echo "the log of the install and build steps: $log"
exit $rc
