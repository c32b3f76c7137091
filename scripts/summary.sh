#!/bin/sh
# Sum the results of `make check` (every *.trs under tests/ and model/ of
# each build directory given; default: the source tree) into one closing
# line: "N passed, N failed". A Check program counts its Check cases; a
# script that prints its own "N passed, N failed" counts those; any other
# test counts as one. A program that failed without a summary counts as
# one failure. Check cases left out of a build's suite (a "SKIP: " line in
# the log, see tests/testrt.h) are listed, not counted. SUMMARY_EXTRA,
# if set, is a list of "name:pass" or "name:fail" words for steps that are
# not `make check` (stress runs, distcheck): each counts as one test, and
# a failed one is named. Exits 1 when anything failed.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- .
passed=0
failed=0
skipped=0

count_one() { # $1: .trs file
	log="${1%.trs}.log"
	# cases a build cannot run, left out of the suite (testrt.h)
	skips=$(grep -c '^SKIP: ' "$log" 2>/dev/null)
	if [ "${skips:-0}" -gt 0 ]; then
		skipped=$((skipped + skips))
		grep '^SKIP: ' "$log" |
			sed "s|^SKIP: |summary: ${1%.trs}: skipped |"
	fi
	result=$(sed -n 's/^:test-result: //p' "$1" | head -n 1)
	line=$(grep -E '^[0-9]+%: Checks: ' "$log" 2>/dev/null | tail -n 1)
	if [ -n "$line" ]; then
		checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
		fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
		errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
		bad=$((fails + errs))
		passed=$((passed + checks - bad))
		failed=$((failed + bad))
		[ "$bad" -eq 0 ] || grep -E ':[EF]:' "$log" | head -n 20
		return
	fi
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null |
		tail -n 1)
	if [ -n "$line" ]; then
		passed=$((passed + $(echo "$line" | sed -E 's/^([0-9]+) .*/\1/')))
		failed=$((failed + $(echo "$line" |
			sed -E 's/.* ([0-9]+) failed.*/\1/')))
		return
	fi
	case "$result" in
	PASS) passed=$((passed + 1)) ;;
	SKIP) echo "summary: ${1%.trs}: skipped" ;;
	*)
		echo "summary: ${1%.trs}: $result without a summary (crashed?)"
		failed=$((failed + 1))
		;;
	esac
}

for dir in "$@"; do
	found=0
	for trs in "$dir"/tests/*.trs "$dir"/tests/*/*.trs "$dir"/model/*.trs; do
		[ -f "$trs" ] || continue
		found=1
		count_one "$trs"
	done
	# a build whose make check ran nothing has not passed
	if [ "$found" = 0 ]; then
		echo "summary: $dir: no test results"
		failed=$((failed + 1))
	fi
done
for step in ${SUMMARY_EXTRA:-}; do
	case $step in
	*:pass) passed=$((passed + 1)) ;;
	*)
		echo "summary: ${step%:*}: FAILED"
		failed=$((failed + 1))
		;;
	esac
done
if [ $((passed + failed)) -eq 0 ]; then
	echo "summary: no test results found"
	failed=1
fi
[ "$skipped" -eq 0 ] || echo "summary: $skipped cases skipped, not counted"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
