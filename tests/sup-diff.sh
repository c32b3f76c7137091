#!/bin/sh
# SPDX-License-Identifier: MIT
# The differential test of the supervisor (lib/actor/sup.c) against
# OTP's own (stdlib's supervisor, erlang-base): seeded random scripts of
# supervisor operations (tests/sup-diff.py: children made to exit by
# every kind of reason, failed and ignored starts, start_child,
# terminate, restart, delete, stops and starts, six sessions of every
# strategy and intensity per seed) run by tests/sup-diff.erl on OTP and
# by tests/sup_diff on act_sup_*, at 1, 2 and 4 workers; after every
# operation both print its result and the supervisor's whole state
# (its children in order with their state and starts, count_children,
# and which ids have a live process), and every line is compared. A
# difference prints the seed, the lines before it, both versions and
# the rerun command. Run by `make check` from the build directory; one
# line per run and "N passed, N failed". Nothing is timed.
#
#   SUP_DIFF_SEEDS="1 2 3"   the seeds (1 to 8 by default)
#   SUP_DIFF_OPS=N           operations per session; default 40
#
# Exits 77 (skipped, said so) without escript or python3.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
seeds=${SUP_DIFF_SEEDS:-1 2 3 4 5 6 7 8}
ops=${SUP_DIFF_OPS:-40}
for t in escript python3; do
	if ! command -v "$t" >/dev/null; then
		echo "sup-diff.sh: no $t (erlang-base, python3): skipped"
		exit 77
	fi
done
driver=$(pwd)/tests/sup_diff
for s in $seeds; do
	python3 "$src/tests/sup-diff.py" gen "$s" 6 "$ops" >"$tmp/script"
	# OTP's supervisor logs its reports on stderr: not compared
	if ! escript "$src/tests/sup-diff.erl" <"$tmp/script" >"$tmp/otp" \
		2>"$tmp/otp.err"; then
		bad "seed $s: the OTP side failed: $(tail -n 3 "$tmp/otp.err")"
		continue
	fi
	for w in 1 2 4; do
		if ! "$driver" --workers "$w" <"$tmp/script" >"$tmp/act" \
			2>"$tmp/act.err"; then
			bad "seed $s, $w workers: sup_diff failed:" \
				"$(tail -n 3 "$tmp/act.err")"
		elif python3 "$src/tests/sup-diff.py" cmp "$tmp/otp" \
			"$tmp/act" "$s" >"$tmp/cmp"; then
			ok "seed $s, $w workers: $(wc -l <"$tmp/script") operations" \
				"as OTP's supervisor"
		else
			cat "$tmp/cmp"
			bad "seed $s, $w workers: differs from OTP's supervisor"
		fi
	done
done
finish
