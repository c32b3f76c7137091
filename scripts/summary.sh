#!/bin/sh
# Sum Check's per-program results (tests/*.log under each build directory
# given, default: the source tree) into one closing line:
# "N passed, N failed". A program that died before printing Check's
# summary counts as one failure. Exits 1 when anything failed.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- .
passed=0
failed=0
for dir in "$@"; do
	for trs in "$dir"/tests/*.trs; do
		[ -f "$trs" ] || continue
		log="${trs%.trs}.log"
		line=$(grep -E '^[0-9]+%: Checks: ' "$log" 2>/dev/null |
			tail -n 1)
		if [ -z "$line" ]; then
			echo "summary: ${trs%.trs}: no Check summary (crashed?)"
			failed=$((failed + 1))
			continue
		fi
		checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
		fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
		errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
		bad=$((fails + errs))
		passed=$((passed + checks - bad))
		failed=$((failed + bad))
		if [ "$bad" -ne 0 ]; then
			grep -E ':[EF]:' "$log" | head -n 20
		fi
	done
done
if [ $((passed + failed)) -eq 0 ]; then
	echo "summary: no test results found"
	failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
