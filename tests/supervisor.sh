#!/bin/sh
# The supervisor example (examples/supervisor): its demo crashes the
# workers of a one-for-one supervisor (act_sup_start), checks each restart
# and the give-up, and exits 0 only when every check held; run with the
# defaults, with the intensity at its edges, and with bad options (one
# line on stderr and status 2). Run by `make check` from the build directory. Prints one
# line per check and ends with "N passed, N failed" (scripts/summary.sh
# counts that). The program bounds every wait itself; `timeout` here only
# guards against a hang, and no time limit below it: a busy machine makes
# a run slow, not wrong.
set -u
passed=0
failed=0
tmp=$(mktemp -d)

cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() {
	echo "PASS: $1"
	passed=$((passed + 1))
}

bad() {
	echo "FAIL: $1"
	failed=$((failed + 1))
}

# ms: a monotonic-enough clock in milliseconds (GNU date).
ms() {
	echo $(($(date +%s%N) / 1000000))
}

# demo NAME ARGS...: a run that must exit 0, the supervisor having given
# up (ACT_EXIT_SHUTDOWN) and every check held.
demo() {
	name=$1
	shift
	rc=0
	t0=$(ms)
	timeout 30 examples/supervisor "$@" >"$tmp/out" 2>&1 || rc=$?
	took=$(($(ms) - t0))
	if [ "$rc" -eq 0 ] &&
		grep -q '^client: the supervisor gave up .*: EXIT shutdown' \
			"$tmp/out" &&
		grep -q '^client: all [0-9]* checks held' "$tmp/out"; then
		ok "$name: $(tail -n 1 "$tmp/out") in $took ms"
	else
		bad "$name: status $rc in $took ms: $(cat "$tmp/out")"
	fi
}

demo "defaults"
demo "--intensity 1" --intensity 1
demo "--workers 1 --intensity 0" --workers 1 --intensity 0
demo "--workers 2 --intensity 3 --period 100" --workers 2 --intensity 3 \
	--period 100

# Bad options: one line on stderr and status 2, nothing run.
for args in "--workers 0" "--workers 65" "--workers x" "--intensity -1" \
	"--intensity 101" "--period 0" "--period 60001" "--period 10ms" \
	"--bogus" "extra"; do
	rc=0
	# shellcheck disable=SC2086 # the options, split on purpose
	timeout 30 examples/supervisor $args >"$tmp/out" 2>"$tmp/err" || rc=$?
	# one line on stderr naming the program, nothing on stdout
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] &&
		[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^supervisor: ' "$tmp/err"; then
		ok "supervisor $args: one usage line, status 2"
	else
		bad "supervisor $args: status $rc: $(cat "$tmp/out" "$tmp/err")"
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
