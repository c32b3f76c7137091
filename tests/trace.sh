#!/bin/sh
# SPDX-License-Identifier: MIT
# The observers (doc/observability.md) on the scripted runs of
# tests/trace_run: the trace parsed back (tests/trace-check.py), the
# interval lines of ACTORS_STATS, one report of a long schedule, and a
# clear line and -EINVAL for each bad value of the new variables. Run by
# `make check` from the build directory; prints one line per check and
# ends with "N passed, N failed" (scripts/summary.sh counts that).
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
run=$(pwd)/tests/trace_run # make check runs in the build directory

# 1. the trace of the script; a run without a steal is run again
rc=3
tries=0
while [ $rc -eq 3 ] && [ $tries -lt 20 ]; do
	tries=$((tries + 1))
	if ! ACTORS_TRACE="$tmp/t.json" "$run" script >"$tmp/pids" \
		2>"$tmp/err"; then
		bad "trace_run script: $(cat "$tmp/err")"
		rc=1
		break
	fi
	python3 "$src/tests/trace-check.py" "$tmp/t.json" "$tmp/pids" \
		>"$tmp/check"
	rc=$?
done
if [ $rc -eq 0 ]; then
	ok "trace: $(tail -1 "$tmp/check") ($tries runs)"
else
	bad "trace: $(cat "$tmp/check")"
fi

# without io_uring (the runtime's fallback, as on a kernel or seccomp
# profile that lacks it): the same trace, the read refused at once
if ACT_TEST_RING=none ACTORS_TRACE="$tmp/n.json" "$run" script \
	>"$tmp/npids" 2>"$tmp/err" && grep -q '^noring ' "$tmp/npids"; then
	python3 "$src/tests/trace-check.py" "$tmp/n.json" "$tmp/npids" \
		>"$tmp/ncheck"
	nrc=$?
	if [ $nrc = 0 ] || [ $nrc = 3 ]; then
		ok "trace without io_uring: $(head -1 "$tmp/ncheck")"
	else
		bad "trace without io_uring: $(cat "$tmp/ncheck")"
	fi
else
	bad "trace_run script without io_uring: $(cat "$tmp/err" "$tmp/npids")"
fi

# the summary tool reads what the runtime wrote
actors=$(pwd)/tools/actors
# --top: every process, whichever ran longest this time
if [ $rc -eq 0 ] && "$actors" trace --top 1000 "$tmp/t.json" >"$tmp/sum" 2>&1 &&
	grep -q '^  reactor  *[0-9.]*%  *[0-9.]*%  *[0-9.]*%' "$tmp/sum" &&
	grep -q ' trace-main$' "$tmp/sum" &&
	grep -q ' trace_echoer$' "$tmp/sum" &&
	grep -q '^  dropped   0$' "$tmp/sum"; then
	ok "actors trace on the script's trace"
else
	bad "actors trace on the script's trace: $(cat "$tmp/sum")"
fi

# 2. ACTORS_STATS=50ms: lines while it runs, never early
ACTORS_STATS=50ms "$run" sleep 2>"$tmp/stats"
n=$(grep -c '^actors: [0-9.]*s worker 0 (cpu [0-9-]*): runs [0-9]* spawns [0-9]* steals [0-9]* parks [0-9]* runq [0-9]* busy [0-9.]*ms spin [0-9.]*ms sleep [0-9.]*ms$' "$tmp/stats")
r=$(grep -c '^actors: [0-9.]*s reactor: loops [0-9]* io [0-9]* timeouts [0-9]* wakes [0-9]* inflight [0-9]* busy [0-9.]*ms sleep [0-9.]*ms$' "$tmp/stats")
if [ "$n" -ge 1 ] && [ "$n" = "$r" ]; then
	ok "ACTORS_STATS=50ms: $n worker and reactor lines"
else
	bad "ACTORS_STATS=50ms: $n worker lines, $r reactor lines: $(cat "$tmp/stats")"
fi
# the k-th line comes at k intervals from the start or later, never
# before (a late line does not move the ones after it)
if awk '/ worker 0 / { t = $2 + 0; n++; if (t < n * 0.05 - 0.001) bad = 1 }
		END { exit bad }' "$tmp/stats"; then
	ok "ACTORS_STATS=50ms: the k-th line after k intervals"
else
	bad "ACTORS_STATS=50ms: a line before its time: $(cat "$tmp/stats")"
fi
if grep -q '^actors: 1 worker, ' "$tmp/stats"; then
	ok "ACTORS_STATS=50ms: the table at exit too"
else
	bad "ACTORS_STATS=50ms: no table at exit"
fi

# 3. ACTORS_LONG_SCHEDULE=5ms: the hog's one 60 ms turn, reported once.
# (The polite process, which yields all along, is not checked: a worker
# thread the kernel takes off its CPU for 5 ms holds its worker that
# long too, and is rightly reported, on a busy machine.)
ACTORS_LONG_SCHEDULE=5ms "$run" long >"$tmp/pids" 2>"$tmp/long"
hog=$(sed -n 's/^hog //p' "$tmp/pids")
n=$(grep -c "^actors: long schedule: process $hog (name -, entry trace_hog) has held worker [01] for [0-9.]* ms without a runtime call (ACTORS_LONG_SCHEDULE 5.0 ms)\$" "$tmp/long")
held=$(sed -n "s/^actors: long schedule: process $hog .* for \([0-9.]*\) ms .*/\1/p" "$tmp/long")
if [ "$n" = 1 ] && awk -v h="$held" 'BEGIN { exit !(h >= 5.0) }'; then
	ok "ACTORS_LONG_SCHEDULE=5ms: the hog reported once, after $held ms"
else
	bad "ACTORS_LONG_SCHEDULE=5ms: $n reports of the hog: $(cat "$tmp/long")"
fi

# 4. bad values: one line, -EINVAL (exit 100 + 22)
for kv in "ACTORS_TRACE=" "ACTORS_TRACE_BUFFER=1k" "ACTORS_TRACE_BUFFER=lots" \
	"ACTORS_STATS=5" "ACTORS_STATS=1x" "ACTORS_STATS=10us" \
	"ACTORS_LONG_SCHEDULE=10" "ACTORS_LONG_SCHEDULE=1us" \
	"ACTORS_LONG_SCHEDULE=on"; do
	env "$kv" "$run" quick 2>"$tmp/err"
	rc=$?
	name=${kv%%=*}
	if [ $rc = 122 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -q "^actors: $name=\".*\": expected " "$tmp/err"; then
		ok "$kv: $(cat "$tmp/err")"
	else
		bad "$kv: exit $rc, stderr: $(cat "$tmp/err")"
	fi
done

# 5. a trace file that cannot be written: said, not fatal
ACTORS_TRACE=/nonexistent/dir/t.json "$run" quick 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && grep -q '^actors: ACTORS_TRACE: /nonexistent/dir/t.json: No such file or directory$' "$tmp/err"; then
	ok "an unwritable trace file: one line"
else
	bad "an unwritable trace file: exit $rc, $(cat "$tmp/err")"
fi

finish
