#!/bin/sh
# Every Check program again on a simulated larger machine, so that no test
# passes only because this box has 2 CPUs (one worker by default). The
# test switch ACT_TEST_TOPOLOGY (lib/affinity/topology.c) makes the runtime
# take an hwloc synthetic machine for this one: by default 2 packages of
# 4 cores of 2 hardware threads, so the default plan has 7 workers here
# (nothing bound, a NUMA home per package without mbind). A test either
# states the worker count it assumes or holds at any count
# (tests/testrt.h: tu_with_workers, tu_default_workers, tu_real_machine for
# the few about this machine's real CPUs and nodes); this run shows it.
#
# ANYCOUNT_TOPOLOGY overrides the machine (an hwloc synthetic
# description: "pack:1 core:4 pu:1" has 3 workers), or names several,
# separated by ";", each run in turn (scripts/test.sh: 7 workers and 3),
# or is "off" to skip the run (the sanitizer builds). The programs are
# the test_* executables of the build's tests/ folder. Prints each
# program's Check line indented and ends with its own "N passed,
# N failed" over their cases (scripts/summary.sh counts that).
set -u
. "$(dirname "$0")/tally.sh"
dir=tests # make check runs in the build directory
topos=${ANYCOUNT_TOPOLOGY:-pack:2 numa:1 l3:1 core:4 pu:2}
if [ "$topos" = off ]; then
	echo "anycount: ANYCOUNT_TOPOLOGY=off, skipped"
	exit 77
fi
passed=0
failed=0
n=0
while [ -n "$topos" ]; do
	topo=${topos%%;*}
	case $topos in
	*\;*) topos=${topos#*;} ;;
	*) topos= ;;
	esac
	echo "anycount: every Check program on ACT_TEST_TOPOLOGY=\"$topo\""
	for path in "$dir"/test_*; do
		prog=${path#"$dir"/}
		case $prog in
		*.*) continue ;; # objects, logs, results
		# no runtime started, so the machine changes nothing: the
		# kv example's data structures and parser, the distribution's
		# node table and codecs
		test_resp | test_kvdb | test_kvset | test_kvzset | \
			test_kvstream | test_dist_peers | test_dist_term | \
			test_dist_codec | test_dist_ctrl | test_dist_wire)
			continue ;;
		esac
		[ -f "$path" ] && [ -x "$path" ] || continue
		n=$((n + 1))
		out=$(ACT_TEST_TOPOLOGY="$topo" CK_VERBOSITY=normal "$path" 2>&1)
		tally "$prog" "$out" $?
	done
done
if [ "$n" -eq 0 ]; then
	echo "anycount: no test_* program in $dir"
	failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
