#!/bin/sh
# SPDX-License-Identifier: MIT
# 5d15326-bench-dist-exit-1.sh - scripts/bench-dist.sh printed every
# figure and then exited 1.
#
# Found running the benchmark for issue 32: the script runs under set -e
# and its EXIT trap killed each pid it had started; the actors server
# had already stopped by itself at the client's end, the kill failed, and
# set -e turned the trap's failure into the script's exit status. Fixed
# in 5d15326: each kill in such a trap ends in '|| :'
# (scripts/bench-dist.sh, and the same trap in four other scripts).
#
# Here one round of 200 round trips (a figure nobody reads) through
# bench/dist_echo of this build: the script must exit 0 and end with its
# "ratio" line. Fails without the fix in every build. Needs erl, epmd
# and escript (erlang-base) and a build with ei, else skipped (77).
set -u
srcdir=${srcdir:-../..}
me=5d15326
for t in erl epmd escript; do
	if ! command -v "$t" >/dev/null; then
		echo "$me: no $t (erlang-base): skipped"
		exit 77
	fi
done
if [ ! -x bench/dist_echo ]; then
	echo "$me: no bench/dist_echo in this build (configured without ei): skipped"
	exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
DIST_SERVER=bench/dist_echo DIST_NO_BUILD=1 DIST_ROUNDS=1 \
	DIST_WORKLOADS=rt1:1:32:200 DIST_HEADLINE=rt1 DIST_PIN=none \
	sh "$srcdir/scripts/bench-dist.sh" >"$out" 2>&1
rc=$?
if [ "$rc" = 77 ]; then
	echo "$me: bench-dist.sh skipped: $(tail -1 "$out")"
	exit 77
fi
fail=0
if [ "$rc" != 0 ]; then
	echo "$me: FAIL: bench-dist.sh exited $rc, not 0"
	fail=1
fi
if ! tail -1 "$out" | grep -Eq '^ratio [0-9]+\.[0-9]{2}$'; then
	echo "$me: FAIL: its last line is not 'ratio X'"
	fail=1
fi
# and the floor beside the two servers (bench/peers/dist_floor)
if ! grep -Eq '^rt1 +floor +[0-9]+ ' "$out"; then
	echo "$me: FAIL: no floor row for rt1"
	fail=1
fi
if [ "$fail" = 1 ]; then
	sed 's/^/  | /' "$out"
	exit 1
fi
echo "$me: bench-dist.sh exited 0 with '$(tail -1 "$out")': PASS"
