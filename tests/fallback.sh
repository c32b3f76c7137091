#!/bin/sh
# The multi-worker Check programs again, with every worker parking in
# plain FUTEX_WAIT instead of futex_waitv (the fallback of DESIGN.md
# section 6, forced by ACT_TEST_FUTEX_WAIT, which tests/testutil.h reads).
# Prints each program's Check line indented and ends with its own
# "N passed, N failed" over their cases (scripts/summary.sh counts that).
set -u
dir=tests # make check runs in the build directory
passed=0
failed=0
for prog in test_multi test_invariants; do
	out=$(ACT_TEST_FUTEX_WAIT=1 CK_VERBOSITY=normal "$dir/$prog" 2>&1)
	rc=$?
	line=$(echo "$out" | grep -E '^[0-9]+%: Checks: ' | tail -n 1)
	echo "$out" | grep -E ':[EF]:' | sed 's/^/  /'
	if [ -z "$line" ]; then
		echo "  $prog: exit $rc without a Check summary"
		failed=$((failed + 1))
		continue
	fi
	echo "  $prog (FUTEX_WAIT): $line"
	checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	bad=$(echo "$line" |
		sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2/' |
		awk '{ print $1 + $2 }')
	passed=$((passed + checks - bad))
	failed=$((failed + bad))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
