#!/bin/sh
# SPDX-License-Identifier: MIT
# The systematic mode (doc/systematic.md): in a library built with
# --enable-systematic, ACTORS_SEED runs the threads one at a time in the
# order the seed draws. Checked: every stress test passes its systematic
# profile under two seeds; a seed's run, rerun alone with the command the
# tool printed, takes the same path (the hash the runtime prints); two
# seeds take different paths; the planted lost wakeup (--mutant
# parkwake:1, model/parkwake.pml's mutant 1) is found within 200 seeds,
# its report says how to rerun it, that rerun fails the same way, and the
# same seeds pass without the mutant; with SYSTEMATIC_SEEDS=N, every
# stress test under N seeds. In any other build ACTORS_SEED and
# --systematic are refused, each with its line. Bad ACTORS_SEED values
# are refused in both.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
actors=$(pwd)/tools/actors # make check runs in the build directory

# the path line of seed $1 in file $2 (the tool's summary indents it);
# the last, where a test runs act_main again (fail_random, when a fault
# stopped the first)
path_of() {
	sed -n "s/^ *actors: systematic run ACTORS_SEED=$1: .* path \([0-9a-f]*\)$/\1/p" "$2" |
		tail -n 1
}

# bad values, refused by the variables' table in every build
for v in 0 x -3 99999999999999999999; do
	if ACTORS_SEED=$v "$actors" stress wake_storm --workers 2 --pairs 1 \
		--iters 10 --seed 1 >"$tmp/out" 2>"$tmp/err"; then
		bad "ACTORS_SEED=$v: taken: $(cat "$tmp/out" "$tmp/err")"
	elif grep -q "ACTORS_SEED=\"$v\"" "$tmp/out" "$tmp/err"; then
		ok "ACTORS_SEED=$v: refused, with its line"
	else
		bad "ACTORS_SEED=$v: $(cat "$tmp/out" "$tmp/err")"
	fi
done

if ! "$actors" stress wake_storm --systematic 1 --seed 1 >"$tmp/out" \
	2>"$tmp/err"; then
	# not a systematic build: refused both ways
	if grep -q "built without --enable-systematic" "$tmp/err"; then
		ok "--systematic: refused in a build without it"
	else
		bad "--systematic: $(cat "$tmp/out" "$tmp/err")"
	fi
	if ACTORS_SEED=5 "$actors" stress wake_storm --workers 2 --pairs 1 \
		--iters 10 --seed 1 >"$tmp/out" 2>"$tmp/err"; then
		bad "ACTORS_SEED=5: ran unseeded: $(cat "$tmp/out")"
	elif grep -q "ACTORS_SEED=5: this library was built without --enable-systematic" "$tmp/err"; then
		ok "ACTORS_SEED=5: refused in a build without --enable-systematic"
	else
		bad "ACTORS_SEED=5: $(cat "$tmp/out" "$tmp/err")"
	fi
	finish
	exit
fi

# 1. each test: two seeds pass; the second rerun alone takes its path
for name in $("$actors" stress --list | cut -d' ' -f1); do
	if ! "$actors" stress "$name" --systematic 1 --seed 41 --timeout 120 \
		>"$tmp/out41" 2>"$tmp/err" ||
		! "$actors" stress "$name" --systematic 2 --seed 41 \
			--timeout 120 >"$tmp/out" 2>"$tmp/err"; then
		bad "$name: --systematic: $(cat "$tmp/out41" "$tmp/out" "$tmp/err")"
		continue
	fi
	p41=$(path_of 41 "$tmp/out41")
	p42=$(path_of 42 "$tmp/out")
	cmd=$(sed -n 's/^  rerun: \(ACTORS_SEED=42 actors stress .*\)$/\1/p' \
		"$tmp/out")
	if [ -z "$p41" ] || [ -z "$p42" ] || [ -z "$cmd" ]; then
		bad "$name: no path or rerun line: $(cat "$tmp/out" "$tmp/err")"
		continue
	fi
	ok "$name: seeds 41 and 42 passed"
	# the printed command, with this build's tool
	cmd=$(echo "$cmd" | sed "s|actors stress|\"$actors\" stress|")
	eval "$cmd" >"$tmp/out2" 2>"$tmp/err2"
	again=$(path_of 42 "$tmp/err2")
	if [ "$again" = "$p42" ]; then
		ok "$name: seed 42 rerun alone: the same path ($p42)"
	else
		bad "$name: seed 42 rerun alone took path '$again', not $p42: $(cat "$tmp/out2" "$tmp/err2")"
	fi
	if [ "$p41" != "$p42" ]; then
		ok "$name: seeds 41 and 42 took different paths"
	else
		bad "$name: seeds 41 and 42 took one path ($p41)"
	fi
done

# 2. SYSTEMATIC_SEEDS (scripts/test.sh's tarball: 200): every stress test
# under that many seeds
seeds=${SYSTEMATIC_SEEDS:-0}
if [ "$seeds" -gt 0 ]; then
	if "$actors" stress --systematic "$seeds" --seed 1 --timeout 120 \
		>"$tmp/out" 2>"$tmp/err"; then
		ok "every stress test under $seeds seeds: $(grep -c ' runs (seeds 1 to ' "$tmp/out") tests passed"
	else
		bad "stress under $seeds seeds: $(cat "$tmp/out" "$tmp/err")"
	fi
	grep ' runs (seeds ' "$tmp/out"
fi

# 3. the planted lost wakeup, found within 200 seeds
if "$actors" stress wake_storm --systematic 200 --seed 1 --mutant parkwake:1 \
	--timeout 120 >"$tmp/out" 2>"$tmp/err"; then
	bad "--mutant parkwake:1: 200 seeds passed: the lost wakeup was not found"
else
	cmd=$(sed -n 's/^  rerun with: \(ACTORS_SEED=[0-9]* actors stress .*\)$/\1/p' \
		"$tmp/out" | head -n 1)
	seed=$(echo "$cmd" | sed -n 's/^ACTORS_SEED=\([0-9]*\) .*/\1/p')
	said=$(grep -c "a lost wakeup or a deadlock.*rerun with ACTORS_SEED=$seed\$" \
		"$tmp/err")
	if [ -n "$seed" ] && [ "$said" -ge 1 ]; then
		ok "--mutant parkwake:1: found at seed $seed, with the line to rerun it"
	else
		bad "--mutant parkwake:1: $(cat "$tmp/out" "$tmp/err")"
	fi
	where=$(sed -n "s/.*nothing is due (a lost wakeup or a deadlock), after \([0-9]*\) points; rerun with ACTORS_SEED=$seed\$/\1/p" \
		"$tmp/err" | head -n 1)
	cmd=$(echo "$cmd" | sed "s|actors stress|\"$actors\" stress|")
	if eval "$cmd" >"$tmp/out2" 2>"$tmp/err2"; then
		bad "--mutant parkwake:1: the rerun of seed $seed passed"
	elif grep -q "after $where points; rerun with ACTORS_SEED=$seed\$" \
		"$tmp/err2"; then
		ok "--mutant parkwake:1: the rerun of seed $seed failed the same way, after $where points"
	else
		bad "--mutant parkwake:1: the rerun of seed $seed: $(cat "$tmp/out2" "$tmp/err2")"
	fi
	if [ -n "$seed" ] && "$actors" stress wake_storm --systematic "$seed" \
		--seed 1 --timeout 120 >"$tmp/out2" 2>"$tmp/err2"; then
		ok "without the mutant, seeds 1 to $seed pass"
	else
		bad "without the mutant: $(cat "$tmp/out2" "$tmp/err2")"
	fi
fi

finish
