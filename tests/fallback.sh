#!/bin/sh
# Check programs again on the fallbacks of DESIGN.md section 6:
#   - the multi-worker ones with every worker parking in plain FUTEX_WAIT
#     instead of futex_waitv (ACT_TEST_FUTEX_WAIT, read by
#     tests/testutil.h);
#   - the timer and I/O ones with the reactor's doorbell an eventfd read
#     instead of IORING_OP_FUTEX_WAIT (ACT_TEST_RING=eventfd), on a ring
#     without SINGLE_ISSUER and DEFER_TASKRUN (ACT_TEST_RING=plain), and
#     with no io_uring at all (ACT_TEST_RING=none), read by lib/reactor/ring.c;
#   - spawning and the process table with two memory homes on this
#     one-node machine (ACT_TEST_NUMA=fake:2: stolen processes give
#     their slots and stacks back across homes) and with every chunk
#     bound by mbind (ACT_TEST_NUMA=force), read by lib/affinity/homes.c.
# Prints each program's Check line indented and ends with its own
# "N passed, N failed" over their cases (scripts/summary.sh counts that).
# --list prints the runs, "VAR=VALUE PROGRAM" a line, and runs nothing
# (scripts/check-aarch64.sh runs some of them under qemu-user).
set -u
list=${1:-}
set -- "ACT_TEST_FUTEX_WAIT=1 test_multi" \
	"ACT_TEST_FUTEX_WAIT=1 test_invariants" \
	"ACT_TEST_RING=eventfd test_timers" \
	"ACT_TEST_RING=eventfd test_mailbox" \
	"ACT_TEST_RING=eventfd test_io" \
	"ACT_TEST_RING=plain test_io" \
	"ACT_TEST_RING=plain test_io_kill" \
	"ACT_TEST_RING=plain test_timers" \
	"ACT_TEST_RING=eventfd test_io_kill" \
	"ACT_TEST_RING=none test_timers" \
	"ACT_TEST_RING=none test_mailbox" \
	"ACT_TEST_RING=none test_info" \
	"ACT_TEST_NUMA=fake:2 test_multi" \
	"ACT_TEST_NUMA=fake:2 test_spawn" \
	"ACT_TEST_NUMA=force test_spawn" \
	"ACT_TEST_NUMA=force test_proc"
if [ "$list" = --list ]; then
	printf '%s\n' "$@"
	exit 0
fi
# FALLBACK_ONLY: an extended regex; only the runs ("VAR=VALUE PROGRAM")
# it matches (scripts/test.sh's TSan build: the park/wake and ring
# fallbacks, not the memory homes' and not each ring's every program)
if [ -n "${FALLBACK_ONLY:-}" ]; then
	for run in "$@"; do
		shift
		printf '%s\n' "$run" | grep -qE -- "$FALLBACK_ONLY" &&
			set -- "$@" "$run"
	done
	if [ $# -eq 0 ]; then
		echo "fallback.sh: FALLBACK_ONLY=$FALLBACK_ONLY matches no run"
		exit 1
	fi
fi
. "$(dirname "$0")/tally.sh"
dir=tests # make check runs in the build directory
passed=0
failed=0
for run in "$@"; do
	var=${run%% *}
	prog=${run#* }
	out=$(env "$var" CK_VERBOSITY=normal "$dir/$prog" 2>&1)
	tally "$prog ($var)" "$out" $?
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
