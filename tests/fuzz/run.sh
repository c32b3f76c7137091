#!/bin/sh
# SPDX-License-Identifier: MIT
# make fuzz: each fuzz target (tests/fuzz/fuzz_*, configure --enable-fuzz)
# runs SECONDS (default 30) from its seed corpus, tests/fuzz/corpus/NAME,
# and the regression inputs, tests/regress/fuzz_NAME. New inputs go to a
# temporary directory, not into the source tree. A crash, a leak, a
# sanitizer's report, a failed check of the target, an input that takes
# over 10 s or over 2 GiB: the run fails, with libFuzzer's report, the
# input in hex, and where it goes (tests/regress/fuzz_NAME/, named for the
# commit that fixes it: then make check replays it in every build). One
# line per target with its runs, coverage and corpus; "N passed,
# N failed". Run from the build directory.
#
#   FUZZ_TARGETS="kv resp"   the targets; default all six (dist with
#                            libei only)
#   FUZZ_JOBS=N              targets run at a time; default one per CPU
#   FUZZ_SEED=N              libFuzzer's seed, so that a run is repeated
#                            (scripts/test.sh: 1); default a new one each
#                            time, which the failure's report shows
set -u
seconds=${1:-30}
src=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
. "$src/tests/lib.sh"
# one target's run: its verdict line in $tmp/T.res ("ok ..." or "bad ..."),
# what to show of a failure in $tmp/T.show
fuzz_one() {
	t=$1
	mkdir -p "$tmp/$t" "$tmp/$t.crash"
	set -- "$src/tests/fuzz/corpus/$t"
	[ -d "$src/tests/regress/fuzz_$t" ] &&
		set -- "$@" "$src/tests/regress/fuzz_$t"
	# stderr (-close_fd_mask=2): the settings' error lines; libFuzzer
	# keeps its own report and the sanitizers' on a copy of it
	if ./tests/fuzz/fuzz_"$t" ${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
		-max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1 \
		-artifact_prefix="$tmp/$t.crash/" "$tmp/$t" "$@" \
		>"$tmp/$t.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
			"$tmp/$t.log")
		line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' \
			"$tmp/$t.log" | tail -n 1)
		echo "ok $t: $seconds s, $runs runs, $(echo "$line" |
			sed -E 's/.*(cov: [0-9]+ ft: [0-9]+ corp: [^ ]+).*/\1/')" \
			>"$tmp/$t.res"
		return
	fi
	{
		grep -v '^#[0-9]' "$tmp/$t.log" | tail -n 40
		for f in "$tmp/$t.crash"/*; do
			[ -f "$f" ] || continue
			echo "the input ($f), in hex:"
			od -An -tx1 -v "$f" | head -n 20
		done
	} >"$tmp/$t.show"
	echo "bad $t: failed (above); keep the input as" \
		"tests/regress/fuzz_$t/WHAT-IT-BROKE once fixed" >"$tmp/$t.res"
}

# FUZZ_JOBS targets at a time (default: one per CPU), each one process
# dist: when configure found libei (it is built only then)
all="settings cgroup topo resp kv"
[ -x ./tests/fuzz/fuzz_dist ] && all="$all dist"
targets=${FUZZ_TARGETS:-$all}
jobs=${FUZZ_JOBS:-$(nproc)}
running=0
for t in $targets; do
	fuzz_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for t in $targets; do
	[ -f "$tmp/$t.show" ] && cat "$tmp/$t.show"
	read -r verdict line <"$tmp/$t.res"
	if [ "$verdict" = ok ]; then ok "$line"; else bad "$line"; fi
done
finish
