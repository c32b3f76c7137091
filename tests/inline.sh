#!/bin/sh
# The Check programs that use timers, I/O and the lifecycle again with the
# reactor inline (ACT_REACTOR_INLINE: no reactor thread, the one worker
# runs its turns and sleeps in its ring): ACT_TEST_INLINE=1, read by
# tests/testrt.h's tu_run_main, gives every runtime those programs start
# one worker and the inline reactor, whatever the case asks. Also on the
# ring's fallbacks (an eventfd doorbell, a plain ring, no io_uring), and
# the settings' errors: inline with more than one worker is refused, with
# one line that says why. Prints each program's Check line indented and
# ends with "N passed, N failed" (scripts/summary.sh counts that).
set -u
. "$(dirname "$0")/tally.sh"
dir=tests # make check runs in the build directory
actors=tools/actors
passed=0
failed=0
for v in $(env | sed -n 's/^\(ACTORS_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
for run in "- test_io" "- test_io_kill" "- test_timers" "- test_invariants" \
	"- test_links" "- test_monitors" "- test_registry" "- test_lifetime" \
	"- test_spawn" "- test_mailbox" "- test_mailbox_limit" "- test_info" \
	"- test_exit_handlers" "- test_backpressure" "- test_guard" \
	"ACT_TEST_RING=eventfd test_io" "ACT_TEST_RING=eventfd test_timers" \
	"ACT_TEST_RING=eventfd test_io_kill" "ACT_TEST_RING=plain test_io" \
	"ACT_TEST_RING=none test_timers" "ACT_TEST_RING=none test_mailbox"; do
	var=${run%% *}
	prog=${run#* }
	label="$prog (inline)"
	if [ "$var" = - ]; then
		var=ACT_TEST_INLINE=1
	else
		label="$prog (inline, $var)"
	fi
	out=$(env ACT_TEST_INLINE=1 "$var" CK_VERBOSITY=normal \
		"$dir/$prog" 2>&1)
	tally "$label" "$out" $?
done

# check WHAT EXPECT_RC GREP ENV...: `actors topo` under ENV exits EXPECT_RC
# and prints GREP (stdout then stderr)
check() {
	c_what=$1 c_rc=$2 c_grep=$3
	shift 3
	c_out=$(env "$@" "$actors" topo 2>&1)
	c_got=$?
	if [ "$c_got" = "$c_rc" ] && echo "$c_out" | grep -qF -- "$c_grep"; then
		echo "PASS: $c_what"
		passed=$((passed + 1))
	else
		echo "FAIL: $c_what: exit $c_got, want $c_rc and '$c_grep':"
		echo "$c_out" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}
check "one worker, inline: the plan says so" 0 \
	"reactor: inline (run by worker 0, no thread)" \
	ACTORS_SCHEDULERS=1 ACTORS_REACTOR_CPU=inline
check "two workers, inline: refused, with the reason" 2 \
	'ACTORS_REACTOR_CPU="inline": the reactor runs inline only with one worker, and there are 2' \
	ACTORS_SCHEDULERS=2 ACTORS_REACTOR_CPU=inline
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
