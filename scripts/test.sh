#!/bin/sh
# Install, build and run the whole test suite: a release build and a
# debug build (invariant checks abort) each run every Check program and
# the spin model, the release build runs a bounded `make stress`, then
# `make distcheck` builds and tests the release tarball. Ends with the line
# "N passed, N failed" over the Check cases of both builds.
set -u
cd "$(dirname "$0")/.."
rc=0
scripts/build.sh release || exit 1
(cd build/release && make -j"$(nproc)" check) || rc=1
(cd build/release && make stress) || rc=1
scripts/build.sh debug --enable-debug || exit 1
(cd build/debug && make -j"$(nproc)" check) || rc=1
(cd build/release && make -j"$(nproc)" distcheck >distcheck.log 2>&1) || {
	tail -n 40 build/release/distcheck.log
	echo "distcheck: FAILED"
	rc=1
}
scripts/summary.sh build/release build/debug || rc=1
exit "$rc"
