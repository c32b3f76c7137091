#!/bin/sh
# Install, build and run the whole test suite, in three builds:
#
#   build/release  every Check program and script, and every Check
#                  program again on two simulated machines (7 workers
#                  and 3: tests/anycount.sh); a bounded `make stress`;
#                  then `make distcheck`, which builds the release
#                  tarball --enable-systematic and runs its scripts,
#                  tests/systematic.sh with every stress test under
#                  200 seeded schedules among them (doc/systematic.md),
#                  and the reproducers of tests/regress/
#   build/tsan     ThreadSanitizer: the Check programs and scripts, and
#                  a shorter `make stress`
#   build/asan     AddressSanitizer and UBSan, and the debug build
#                  (invariant violations abort): the Check programs and
#                  scripts (the kv example's hostile clients,
#                  differential and crash tests among them), a shorter
#                  `make stress`, then each fuzz target for 30 s
#                  (`make fuzz`, doc/fuzzing.md)
#
# The checks of the sources alone (clang-format's, clang-tidy's) run in
# release and in the tarball (SOURCE_CHECKS=off in the others). Prints
# the time of each phase, then the failed tests and steps again, and
# ends with the line "N passed, N failed" over the Check cases of the
# builds, with each stress run, the fuzz run and distcheck counted as
# one more. Every build, distcheck's too, is configured --enable-werror:
# a compiler warning fails CI.
set -u
cd "$(dirname "$0")/.."
rc=0
extra=
# what failed, printed again after the summary: CI shows the end
digest=$(mktemp)
times=$(mktemp)
trap 'rm -f "$digest" "$times"' EXIT
t0=$(date +%s)
# phase NAME: the time since the start, for the table printed at the end
phase() {
	echo "$(($(date +%s) - t0)) s: $1" | tee -a "$times"
}
# tests_but NAME REGEX: build/NAME's tests (make check's TESTS) less the
# ones REGEX matches, for TESTS="..."; from the top of the tree. None at
# all stops the run: an empty TESTS would pass having run nothing.
tests_but() {
	list=$(cd "build/$1" && make -s print-tests | tail -n 1 |
		tr ' ' '\n' | grep -vE "$2" | tr '\n' ' ')
	case $list in
	*[!\ ]*) echo "$list" ;;
	*)
		echo "test.sh: no tests listed in build/$1" >&2
		exit 1
		;;
	esac
}
# step NAME COMMAND...: run it, count it for the summary; its output is
# shown as it comes and, when it failed, its failing lines (a stress
# test's result and rerun line, a sanitizer's report) go to the digest
step() {
	name=$1
	shift
	log=$(mktemp)
	# the pipe to tee loses the status: the command's comes as a line
	{
		"$@" 2>&1
		echo "step-status: $?"
	} | tee "$log"
	if grep -q '^step-status: 0$' "$log"; then
		extra="$extra $name:pass"
	else
		extra="$extra $name:fail"
		rc=1
		{
			echo "--- $name failed:"
			grep -E -B1 -A1 'rerun with|Sanitizer|runtime error|FAILED' \
				"$log" | head -n 60
		} >>"$digest"
	fi
	rm -f "$log"
}
phase release
scripts/build.sh release --enable-werror || exit 1
# the run on simulated machines: 2 packages of 4 cores of 2 threads (7
# workers), then the shape of a 4-CPU machine (3 workers, one package,
# no SMT)
(cd build/release &&
	ANYCOUNT_TOPOLOGY="pack:2 numa:1 l3:1 core:4 pu:2;pack:1 core:4 pu:1" \
	make -j"$(nproc)" check) || rc=1
phase stress-release
step stress-release sh -c 'cd build/release && make stress'
phase distcheck
# the tarball's own make check builds everything and runs the scripts,
# which read the tree's data files (a file missing from the tarball fails
# one), not the Check programs, which the three builds run,
# nor the scripts that only run those again (the simulated machine, the
# fallbacks, the inline reactor). The tarball is built --enable-systematic
# (doc/systematic.md: the library's atomics are switch points, idle
# without ACTORS_SEED), and its tests/systematic.sh runs every stress
# test under SYSTEMATIC_SEEDS seeded schedules, one thread at a time: a
# failure prints ACTORS_SEED=N and the command that reruns it exactly.
# The reproducers of tests/regress/ run there too: they are short, and
# one (c87300e's) only a systematic build can show
dtests=$(tests_but release \
	'^(tests/(anycount|fallback|inline)|model/check)\.sh$') || exit 1
dtests=$(echo "$dtests" | tr ' ' '\n' |
	grep -E '\.sh$|/replay_|^tests/regress/' | tr '\n' ' ')
# Nor does it build those Check programs (check_PROGRAMS less test_* and
# the ABI ones, nor the libraries only they link), nor run the checks of the
# sources alone or the spin models, which release ran on the same files
dprogs=$(cd build/release && make -s print-check-programs | tail -n 1 |
	tr ' ' '\n' | grep -vE '^tests/(test_|abi/)' | tr '\n' ' ')
if (cd build/release && make -j"$(nproc)" distcheck TESTS="$dtests" \
	check_PROGRAMS="$dprogs" check_LTLIBRARIES= SOURCE_CHECKS=off \
	DISTCHECK_CONFIGURE_FLAGS="--enable-werror --enable-systematic" \
	SYSTEMATIC_SEEDS=200 >distcheck.log 2>&1); then
	extra="$extra distcheck:pass"
else
	tail -n 40 build/release/distcheck.log
	# name what failed, with the end of its log: the tail above ends
	# with make's summary, which does not
	grep -E '^(FAIL|ERROR|XPASS):' build/release/distcheck.log
	for trs in build/release/actors-*/_build/sub/tests/*.trs \
		build/release/actors-*/_build/sub/tests/*/*.trs \
		build/release/actors-*/_build/sub/model/*.trs; do
		[ -f "$trs" ] || continue
		grep -qE '^:test-result: (FAIL|ERROR)' "$trs" || continue
		echo "--- ${trs%.trs}.log (its last 60 lines)"
		tail -n 60 "${trs%.trs}.log"
	done
	echo "distcheck: FAILED"
	extra="$extra distcheck:fail"
	rc=1
fi
# ThreadSanitizer: every context switch is announced as a fiber switch
# (lib/arch/ctx.h). The tests and a short stress run must report no race
# (TSan makes a racy program exit 66), and tests/test_tsan checks that a
# deliberate race is reported. TSan runs 5-15 times slower: the Check
# timeouts are stretched and the stress sizes cut. Clang, because its TSan
# runtime makes a fiber (one per process) a hundred times faster than
# GCC 12's. The run on the simulated machine is left out of this build
# (ANYCOUNT_TOPOLOGY=off) for its time: release has it.
phase tsan
scripts/build.sh tsan --enable-sanitizer=thread CC=clang \
	--enable-werror || exit 1
# The inline reactor's run (tests/inline.sh) is left out too: one worker
# and the reactor on one thread, the fewest threads to race; and the
# programs of one thread, which TSan has nothing to look at in: the kv
# example's data structures and parser, the distribution's codecs (ASan
# runs them all). The spin models (model/check.sh) run in release
# alone: no build changes them.
ttests=$(tests_but tsan '^(tests/(inline\.sh|test_resp|test_kv(db|set|zset|stream)|test_dist_(term|codec|ctrl|wire))|model/check\.sh)$') ||
	exit 1
# Of the fallbacks' reruns (tests/fallback.sh), TSan takes the park/wake
# ones (FUTEX_WAIT) and one program on each other doorbell and ring; the
# rest are release's (each under TSan costs as much as 5 in release).
(cd build/tsan && CK_TIMEOUT_MULTIPLIER=4 ANYCOUNT_TOPOLOGY=off \
	FALLBACK_ONLY='FUTEX_WAIT|RING=(eventfd|none) test_timers|RING=plain test_io$' \
	SOURCE_CHECKS=off make -j"$(nproc)" check TESTS="$ttests") || rc=1
phase stress-tsan
step stress-tsan sh -c \
	'cd build/tsan && make stress STRESS_FLAGS="--iters 5000 --timeout 120"'
# AddressSanitizer and UBSan (issue 31), halting at UBSan's first report
# too: every Check program and shell test (the kv example's hostile
# clients, its differential test against redis-server and its crash tests
# among them), then a short make stress. Every context switch is
# announced to ASan as a fiber switch (lib/arch/ctx.h), slab envelopes'
# payloads and cached stacks are poisoned while free (lib/mem/slab.h,
# stack.c), and tests/test_asan checks that a planted use after free, an
# overflow and a signed overflow are reported. The run on the simulated
# machine is left out (ANYCOUNT_TOPOLOGY=off), as in the TSan build.
phase asan
# It is the debug build too (--enable-debug: an invariant violation
# aborts). ASan runs 2-3 times slower: the Check timeouts are stretched
# (test_stack's million processes took 150 s of their 120 on a busy
# machine). The reruns of the Check programs on the fallbacks and the
# inline reactor are left out of it (release and TSan run the first,
# release the second).
scripts/build.sh asan --enable-sanitizer=address --enable-debug \
	--enable-fuzz CC=clang --enable-werror || exit 1
atests=$(tests_but asan '^(tests/(inline|fallback)|model/check)\.sh$') ||
	exit 1
(cd build/asan && UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	CK_TIMEOUT_MULTIPLIER=3 ANYCOUNT_TOPOLOGY=off SOURCE_CHECKS=off \
	make -j"$(nproc)" check TESTS="$atests") || rc=1
phase stress-asan
step stress-asan sh -c 'cd build/asan &&
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	make stress STRESS_FLAGS="--iters 10000 --timeout 120"'
# the fuzz targets (doc/fuzzing.md), 30 s each from their corpora, with
# a fixed seed, so that a failure repeats; make check replayed the
# corpora and the regression inputs in every build
phase fuzz
step fuzz sh -c 'cd build/asan && FUZZ_SEED=1 make fuzz FUZZ_SECONDS=30'
phase end
# the failed tests of every build, with the end of their logs, and the
# failed steps: just before the summary, where CI's tail shows them
for trs in build/*/tests/*.trs build/*/tests/*/*.trs build/*/model/*.trs; do
	[ -f "$trs" ] || continue
	grep -qE '^:test-result: (FAIL|ERROR)' "$trs" || continue
	echo "--- ${trs%.trs}.log failed (its last lines but passes):"
	grep -v '^PASS: ' "${trs%.trs}.log" | tail -n 25
done
cat "$times" "$digest"
SUMMARY_EXTRA=$extra scripts/summary.sh build/release build/tsan build/asan ||
	rc=1
exit "$rc"
