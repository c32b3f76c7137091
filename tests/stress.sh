#!/bin/sh
# SPDX-License-Identifier: MIT
# `actors stress` (tools/stress.c): every stress test run briefly through
# the tool, its result line and the command that reruns it; a rerun of
# that command with the same seed; --json; --all-paths' table; a run
# that fails (its watchdog's timeout) gives a non-zero exit, a verdict
# and the rerun line; each run ends with its verdict ("N passed, N
# failed"); bad command lines give one line and exit 2. Sizes
# are small and nothing depends on timing: spawn_burst runs on one worker
# without its steal count, mailbox_flood without its RSS check (sanitizer
# builds' memory is not the runtime's). make stress runs the big sizes.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
actors=$(pwd)/tools/actors # make check runs in the build directory

# 1. each test, briefly
while read -r name sizes; do
	if "$actors" stress "$name" $sizes --workers 2 --timeout 300 \
		>"$tmp/out" 2>"$tmp/err" &&
		grep -q "^$name \[default\]: $name: workers " "$tmp/out" &&
		grep -q "^  rerun: actors stress $name .*--seed [0-9][0-9]*$" \
			"$tmp/out"; then
		ok "$name: passed, with its rerun line"
	else
		bad "$name: $(cat "$tmp/out" "$tmp/err")"
	fi
done <<EOF
wake_storm --pairs 8 --iters 2000
fanin --senders 4 --iters 5000
spawn_burst --iters 1000 --workers 1 --min-steals 0
exit_churn --snipers 4 --iters 3000
queue_hammer --procs 64 --iters 30000
exit_storm --chains 20 --length 5 --monitors 10 --watchers 10
kill_churn --drivers 2 --iters 2000
mailbox_flood --senders 4 --rounds 1 --iters 500 --rss-check 0
timer_race --racers 8 --iters 500
park_race --pairs 4 --iters 300
io_cancel_race --readers 8 --acceptors 2 --iters 500
sup_churn --sups 2 --children 8 --iters 2000
fail_random --senders 4 --iters 3000 --rate 16
EOF

# mailbox_flood's bound of message memory with two memory homes: a
# worker carves for each home's receivers from that home's slab, so its
# bound is a limit's worth per home (it once counted one, and failed
# every such run)
if ACT_TEST_NUMA=fake:2 "$actors" stress mailbox_flood --workers 2 \
	--rounds 20 --rss-check 0 --timeout 300 >"$tmp/out" 2>"$tmp/err"; then
	ok "mailbox_flood with two memory homes: passed"
else
	bad "mailbox_flood with two memory homes: $(cat "$tmp/out" "$tmp/err")"
fi

# every test of the table was run above
n=$("$actors" stress --list | wc -l)
if [ "$n" = 13 ]; then
	ok "--list: 13 tests"
else
	bad "--list: $n tests: $("$actors" stress --list)"
fi

# 2. the rerun line, run again: the same workload (sizes and seed)
"$actors" stress fanin --senders 3 --iters 2000 --seed 4242 >"$tmp/a" 2>&1
cmd=$(sed -n 's/^  rerun: actors //p' "$tmp/a")
# shellcheck disable=SC2086
"$actors" $cmd >"$tmp/b" 2>&1
rc=$?
sizes_a=$(sed -n 's/^fanin \[default\]: \(fanin: [^:]*\):.*/\1/p' "$tmp/a")
sizes_b=$(sed -n 's/^fanin \[default\]: \(fanin: [^:]*\):.*/\1/p' "$tmp/b")
if [ $rc = 0 ] && [ -n "$sizes_a" ] && [ "$sizes_a" = "$sizes_b" ] &&
	echo "$cmd" | grep -q -- '--seed 4242$' &&
	grep -q -- "^  rerun: actors $cmd\$" "$tmp/b"; then
	ok "the rerun line reruns it: $cmd"
else
	bad "rerun: '$cmd' exit $rc: $(cat "$tmp/a" "$tmp/b")"
fi

# the tool's options take --name=value too, after a test's name as well
if "$actors" stress wake_storm --pairs 2 --iters 100 --seed=77 >"$tmp/out" \
	2>&1 && grep -q -- '^  rerun: actors stress wake_storm .*--seed 77$' \
	"$tmp/out" && ! grep -q -- '--seed=77' "$tmp/out"; then
	ok "--seed=77 after the test's name is the tool's seed"
else
	bad "--seed=77: $(cat "$tmp/out")"
fi
# a test that refuses its own sizes: its line, exit 2 as for the tool's
"$actors" stress wake_storm --pairs 0 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "^actors stress wake_storm: --pairs: bad value '0'" \
	"$tmp/err"; then
	ok "a test's bad size: exit 2, the test's line"
else
	bad "a test's bad size: exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi
# TEST --help: the last test named
if "$actors" stress fanin --window 1 timer_race --help >"$tmp/out" 2>&1 &&
	grep -q '^usage: actors stress timer_race ' "$tmp/out" &&
	grep -q -- '--racers N' "$tmp/out"; then
	ok "TEST --help: the last test's own options"
else
	bad "TEST --help: $(cat "$tmp/out")"
fi

# 3. --json: one object a test, nothing else on stdout
if "$actors" stress wake_storm --pairs 4 --iters 1000 fanin --iters 1000 \
	--json >"$tmp/j" 2>"$tmp/err" &&
	python3 - "$tmp/j" <<'PY'; then
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert [o["test"] for o in objs] == ["wake_storm", "fanin"], objs
for o in objs:
    assert o["verdict"] == "pass" and o["status"] == 0, o
    assert o["path"] == "default" and o["runs"] == 1, o
    assert o["violations"] == 0 and o["operations"] > 0, o
    assert o["rerun"].startswith("actors stress " + o["test"]), o
assert objs[0]["figures"]["lost"] == 0, objs[0]
assert objs[0]["figures"]["double-run"] == 0, objs[0]
assert objs[1]["figures"]["out-of-order"] == 0, objs[1]
assert objs[1]["figures"]["received"] == 8000, objs[1]
PY
	ok "--json: an object a test, the figures parsed"
else
	bad "--json: $(cat "$tmp/j" "$tmp/err")"
fi

# 4. --all-paths: each path a column, every cell passed
if "$actors" stress wake_storm --pairs 4 --iters 500 --all-paths \
	>"$tmp/t" 2>"$tmp/err" &&
	grep -q '^test  *default  *.*park=futex ' "$tmp/t" &&
	grep -q 'doorbell=none' "$tmp/t" &&
	grep -q 'guard=mprotect' "$tmp/t" && grep -q 'guard=canary' "$tmp/t" &&
	row=$(grep '^wake_storm  ' "$tmp/t") &&
	! echo "$row" | grep -q 'fail\|timeout\|crash' &&
	[ "$(echo "$row" | grep -o 'pass (1)' | wc -l)" = \
		"$(sed -n 's/^test//p' "$tmp/t" | wc -w)" ]; then
	ok "--all-paths: $(sed -n 's/^test//p' "$tmp/t" | wc -w) paths, all passed"
else
	bad "--all-paths: $(cat "$tmp/t" "$tmp/err")"
fi

# a forced path is the one taken: the runtime's paths line says so
if ACTORS_STATS=1 "$actors" stress wake_storm --pairs 2 --iters 100 \
	--park futex --doorbell none >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^actors: paths: park FUTEX_WAIT (forced)' "$tmp/err" &&
	grep -q 'doorbell FUTEX_WAIT (no ring)' "$tmp/err"; then
	ok "--park futex --doorbell none: the runtime took them"
else
	bad "forced paths: $(grep '^actors: park' "$tmp/err")"
fi

# 5. a run that fails: exit 1, its verdict, the line that reruns it
"$actors" stress wake_storm --iters 1000000000 --timeout 1 --json \
	>"$tmp/j" 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && python3 - "$tmp/j" <<'PY'; then
import json, sys
o = json.loads(open(sys.argv[1]).read())
assert o["verdict"] == "timeout" and o["status"] == 2, o
assert "TIMEOUT after 1 s" in o["result"], o
assert "--timeout 1" in o["rerun"] and "--seed" in o["rerun"], o
PY
	ok "a timed-out run: exit 1, verdict timeout, its rerun line"
else
	bad "a failing run: exit $rc: $(cat "$tmp/j" "$tmp/err")"
fi
"$actors" stress wake_storm --iters 1000000000 --timeout 1 >"$tmp/out" 2>&1
if grep -q '^  rerun with: actors stress wake_storm .*--timeout 1 ' \
	"$tmp/out"; then
	ok "a failed run says 'rerun with'"
else
	bad "no 'rerun with': $(cat "$tmp/out")"
fi

# a test with nothing to race on a path (I/O without io_uring) says so
# and is no failure; the table says skip
if "$actors" stress io_cancel_race --iters 100 --doorbell none >"$tmp/out" \
	2>"$tmp/err" && grep -q ': SKIP (no io_uring: nothing to race)$' \
	"$tmp/out"; then
	ok "io_cancel_race without io_uring: skipped, said, exit 0"
else
	bad "io_cancel_race --doorbell none: $(cat "$tmp/out" "$tmp/err")"
fi

# the verdict, the last line of every run: runs passed, failed, skipped
# (on stderr with --json, whose stdout is the objects alone)
if [ "$(tail -n 1 "$tmp/out")" = "0 passed, 0 failed, 1 skipped" ]; then
	ok "the verdict of a skipped run: $(tail -n 1 "$tmp/out")"
else
	bad "the verdict of a skipped run: $(tail -n 1 "$tmp/out")"
fi
"$actors" stress wake_storm --pairs 2 --iters 100 fanin --iters 100 \
	--senders 2 >"$tmp/out" 2>"$tmp/err"
if [ "$(tail -n 1 "$tmp/out")" = "2 passed, 0 failed" ]; then
	ok "the verdict of two tests: $(tail -n 1 "$tmp/out")"
else
	bad "the verdict of two tests: $(cat "$tmp/out" "$tmp/err")"
fi
"$actors" stress wake_storm --iters 1000000000 --timeout 1 --json \
	>"$tmp/j" 2>"$tmp/err"
if [ "$(tail -n 1 "$tmp/err")" = "0 passed, 1 failed" ] &&
	! grep -q passed "$tmp/j"; then
	ok "--json: the verdict of a timed-out run on stderr"
else
	bad "--json's verdict: $(cat "$tmp/j" "$tmp/err")"
fi

# the planted lost wakeup (--drop-wakeups: one process wake in 1,000
# claimed and never queued) is reported by the park race and the wake
# storm: exit 1, the pairs that stood still, a rerun line that carries
# the switch, and that line fails again
for t in "park_race --pairs 8 --iters 5000" "wake_storm --pairs 8 --iters 5000"; do
	name=${t%% *}
	# shellcheck disable=SC2086
	"$actors" stress $t --drop-wakeups 1000 --stall 2 >"$tmp/out" \
		2>"$tmp/err"
	rc=$?
	cmd=$(sed -n 's/^  rerun with: actors //p' "$tmp/out")
	if [ $rc = 1 ] && grep -q "no progress for 2 s" "$tmp/err" &&
		echo "$cmd" | grep -q -- '--drop-wakeups 1000$'; then
		# shellcheck disable=SC2086
		"$actors" $cmd >"$tmp/out2" 2>&1
		rc2=$?
		if [ $rc2 = 1 ] && grep -q '^  rerun with: ' "$tmp/out2"; then
			ok "$name finds the planted lost wakeup, and its rerun line again"
		else
			bad "$name rerun '$cmd': exit $rc2: $(cat "$tmp/out2")"
		fi
	else
		bad "$name --drop-wakeups: exit $rc: $(cat "$tmp/out" "$tmp/err")"
	fi
done

# 6. bad command lines: one line, exit 2
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	"$actors" stress $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -q -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "stress $args: $(cat "$tmp/err")"
	else
		bad "stress $args: exit $rc: $(cat "$tmp/out" "$tmp/err")"
	fi
done <<EOF
no_such_test|unknown test 'no_such_test'
--park bogus|--park: bad value 'bogus': expected futex_waitv or futex
--doorbell|--doorbell needs a value
--guard none|--guard: bad value 'none': expected madvise, mprotect or canary
--duration 0|--duration: bad value '0': expected a duration
--duration 5x|--duration: bad value '5x': expected a duration
--workers 0|--workers: bad value '0': expected 1 to 1024
--drop-wakeups 0|--drop-wakeups: bad value '0': expected 1 to
--bind sideways|--bind: bad value 'sideways': expected none, core
--pairs 3|unknown option --pairs: not one of actors stress's
--all-paths --park futex|--all-paths: or --park
--quick --duration 1s|--quick: or --duration
EOF

finish
