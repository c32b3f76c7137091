#!/bin/sh
# Install, build and run the whole test suite; ends with the line
# "N passed, N failed" (Check cases over every test program).
set -eu
cd "$(dirname "$0")/.."
scripts/build.sh "$@"
rc=0
make -j"$(nproc)" check || rc=$?
scripts/summary.sh
exit "$rc"
