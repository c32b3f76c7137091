#!/bin/sh
# SPDX-License-Identifier: MIT
#
# model/check.sh - verify the spin model of park/wake (model/parkwake.pml)
# and check that spin rejects each of its mutants. See model/README.md.
#
# Exit: 0 all checks passed, 1 a check failed, 77 (automake SKIP) no spin
# or no C compiler. Works from any directory: finds the model through
# $srcdir (set by `make check`) or this script's own directory, and works
# in a temporary directory that it removes.

me=model/check.sh

# --- find the model ------------------------------------------------------
pml=
if [ -n "${srcdir:-}" ] && [ -f "$srcdir/model/parkwake.pml" ]; then
	pml=$srcdir/model/parkwake.pml
else
	here=$(dirname "$0")
	[ -f "$here/parkwake.pml" ] && pml=$here/parkwake.pml
fi
if [ -z "$pml" ]; then
	echo "$me: cannot find parkwake.pml (srcdir=${srcdir:-unset})" >&2
	exit 1
fi
pml=$(cd "$(dirname "$pml")" && pwd)/parkwake.pml

# --- tools ---------------------------------------------------------------
if ! command -v spin >/dev/null 2>&1; then
	echo "$me: spin is not installed: skipping the model check (SKIP)"
	exit 77
fi
cc=${PAN_CC:-}
if [ -z "$cc" ]; then
	for c in cc gcc clang; do
		if command -v "$c" >/dev/null 2>&1; then
			cc=$c
			break
		fi
	done
fi
if [ -z "$cc" ]; then
	echo "$me: no C compiler to build spin's verifier: skipping (SKIP)"
	exit 77
fi
limit=
command -v timeout >/dev/null 2>&1 && limit="timeout 300"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/parkwake.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cd "$tmp" || exit 1

passed=0
failed=0

# verify N: generate, build and run pan for MUTANT=N (0: the model as the
# code is). Sets out (pan's output), errors, states, secs, first (the
# first error pan reports); returns 1 if pan could not be built or run,
# or the search was cut short.
verify()
{
	rm -rf "m$1"
	mkdir "m$1" && cd "m$1" || return 1
	if ! spin -DMUTANT="$1" -a "$pml" >spin.log 2>&1; then
		sed 's/^/  spin: /' spin.log
		cd .. && return 1
	fi
	# Safety mode: assertions and invalid end states. COLLAPSE:
	# compressed state vectors; the search stays exhaustive.
	if ! $cc -O2 -w -DSAFETY -DCOLLAPSE -o pan pan.c >cc.log 2>&1; then
		sed 's/^/  cc: /' cc.log
		cd .. && return 1
	fi
	# -m: search depth (reached: ~200); -w22: hash table size hint
	out=$($limit ./pan -m100000 -w22 2>&1)
	errors=$(printf '%s\n' "$out" | sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p')
	states=$(printf '%s\n' "$out" | awk '/states, stored/ { print $1; exit }')
	secs=$(printf '%s\n' "$out" | sed -n 's/^pan: elapsed time \([0-9.e+-]*\) seconds.*/\1/p')
	first=$(printf '%s\n' "$out" | sed -n 's/^pan:1: \(.*\) (at depth [0-9]*)$/\1/p' | head -n 1)
	cd ..
	if [ -z "$errors" ] || [ -z "$states" ]; then
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/  pan: /'
		return 1
	fi
	if printf '%s\n' "$out" | grep -q 'max search depth too small'; then
		echo "  pan: search depth too small: the search was cut short"
		return 1
	fi
	if printf '%s\n' "$out" | grep -q 'out of memory'; then
		echo "  pan: out of memory: the search was cut short"
		return 1
	fi
	return 0
}

# --- the model: no errors, and every statement reached --------------------
if verify 0; then
	# Guard against a vacuous pass: apart from the end of the workers'
	# endless loop, pan must report no unreached statement.
	unreached=$(printf '%s\n' "$out" |
		awk '/^unreached in /     { on = 1; next }
		     /^pan: elapsed time/ { on = 0 }
		     on && /, state [0-9]+, "/ && !/"-end-"/' )
	if [ "$errors" = 0 ] && [ -z "$unreached" ]; then
		echo "model parkwake: ok ($errors errors, $states states, ${secs}s)"
		passed=$((passed + 1))
	else
		echo "model parkwake: FAILED ($errors errors, $states states)"
		[ -n "$first" ] && echo "  first error: $first"
		[ -n "$unreached" ] && printf '  unreached:%s\n' "$unreached"
		failed=$((failed + 1))
	fi
else
	echo "model parkwake: FAILED (no result)"
	failed=$((failed + 1))
fi

# --- mutants: each must be rejected, and for its own reason ------------
# what: the kind of the first error pan reports, from its text
what()
{
	case $(printf '%s' "$1" | tr -d ' ') in
	invalidendstate) echo lost ;;
	'assertionviolated!(queued)') echo dup ;;
	'assertionviolated(ps==1)') echo notrunnable ;;
	'assertionviolated((ps==1)&&!(queued))') echo popped ;;
	'assertionviolated(regs_saved&&(oncpu==0))') echo regs ;;
	'assertionviolated((taken=='*) echo unreceived ;;
	*) echo other ;;
	esac
}
# say: that kind in words
say()
{
	case $1 in
	lost) echo "invalid end state: P left WAITING for ever (I2, lost wakeup)" ;;
	dup) echo "assertion !queued in enqueue: P queued twice (I1)" ;;
	notrunnable) echo "assertion ps == RUNNABLE in enqueue: P queued while not runnable (I1)" ;;
	popped) echo "assertion in run_one: P popped while not runnable or still queued (I1)" ;;
	regs) echo "assertion regs_saved on resume: P resumed before its registers were saved (I2)" ;;
	unreceived) echo "assertion at P's exit: a message never received (I2)" ;;
	*) echo "$2" ;;
	esac
}

for m in 1 2 3; do
	case $m in
	1) name="no re-check"; want="lost" ;;
	2) name="WAITING on own stack"; want="regs" ;;
	3) name="waker without CAS"; want="dup notrunnable" ;;
	esac
	if ! verify $m; then
		echo "mutant $m ($name): FAILED (no result)"
		failed=$((failed + 1))
		continue
	fi
	kind=$(what "$first")
	if [ "$errors" -lt 1 ]; then
		echo "mutant $m ($name): FAILED (not rejected: 0 errors, $states states)"
		failed=$((failed + 1))
	elif [ "${want#*"$kind"}" != "$want" ]; then
		[ "$errors" = 1 ] && e=error || e=errors
		echo "mutant $m ($name): rejected as expected ($errors $e: $(say "$kind" "$first"); $states states)"
		passed=$((passed + 1))
	else
		echo "mutant $m ($name): FAILED (rejected for another reason: $(say "$kind" "$first"))"
		failed=$((failed + 1))
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
