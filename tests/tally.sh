# Sourced by tests/fallback.sh and tests/anycount.sh, which run Check
# programs again in other configurations: tally LABEL OUTPUT RC counts
# one run, adding its cases to $passed and $failed (a run that printed no
# Check line is one failure), and prints its failed assertions and its
# Check line, indented.
tally() {
	t_label=$1
	t_out=$2
	t_rc=$3
	t_line=$(echo "$t_out" | grep -E '^[0-9]+%: Checks: ' | tail -n 1)
	echo "$t_out" | grep -E ':[EF]:' | sed 's/^/  /'
	if [ -z "$t_line" ]; then
		echo "  $t_label: exit $t_rc without a Check summary"
		echo "$t_out" | tail -n 5 | sed 's/^/    /'
		failed=$((failed + 1))
		return
	fi
	echo "  $t_label: $t_line"
	t_checks=$(echo "$t_line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	t_bad=$(echo "$t_line" |
		sed -E 's/.*Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2/' |
		awk '{ print $1 + $2 }')
	passed=$((passed + t_checks - t_bad))
	failed=$((failed + t_bad))
}
