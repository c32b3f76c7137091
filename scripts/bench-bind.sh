#!/bin/sh
# spawnburst and fanin with ACTORS_BIND=none against ACTORS_BIND=core, in
# alternating rounds of one run (drift in the machine's speed then falls on
# both), and the median of the per-round ratios none/core (above 1: the
# bound workers are faster).
#
#   BIND_WORKERS="2"   worker counts (ACTORS_SCHEDULERS); default 2
#   BIND_ROUNDS=5      rounds; default 5
#   BENCH_BUILD=NAME   use build/NAME; default release
#
# The programs are bench/spawnburst and bench/fanin of that build, at the
# sizes of scripts/bench-scaling.sh. Exits 1 if a run failed.
set -u
cd "$(dirname "$0")/.."
build=build/${BENCH_BUILD:-release}
workers=${BIND_WORKERS:-2}
rounds=${BIND_ROUNDS:-5}
failed=0

case $rounds in
'' | *[!0-9]* | 0) echo "bench-bind: BIND_ROUNDS must be 1 or more" >&2
	exit 2 ;;
esac
for p in spawnburst fanin; do
	if [ ! -x "$build/bench/$p" ]; then
		echo "bench-bind: $build/bench/$p is not built" >&2
		exit 2
	fi
done

# run BIND WORKERS PROGRAM ARGS: the seconds of its RESULT line, or FAIL
run() {
	ACTORS_BIND=$1 ACTORS_SCHEDULERS=$2 timeout 300 "$build/bench/$3" $4 \
		2>/dev/null |
		awk '/^RESULT/ { print $NF; found = 1 }
			END { if (!found) print "FAIL" }'
}

echo "bench-bind: $build, $(nproc) CPUs, $rounds rounds, seconds per run"
printf '%-16s %7s %5s %10s %10s %9s\n' workload workers round none core \
	none/core
for w in $workers; do
	for wl in "spawnburst|10000 400000000" "fanin|100 100000 1000"; do
		prog=${wl%%|*}
		args=${wl#*|}
		label=$prog${args%% *}
		ratios=
		r=1
		while [ "$r" -le "$rounds" ]; do
			if [ $((r % 2)) = 1 ]; then
				n=$(run none "$w" "$prog" "$args")
				c=$(run core "$w" "$prog" "$args")
			else
				c=$(run core "$w" "$prog" "$args")
				n=$(run none "$w" "$prog" "$args")
			fi
			case "$n$c" in
			*FAIL*) ratio=-; failed=1 ;;
			*) ratio=$(awk -v a="$n" -v b="$c" \
				'BEGIN { printf "%.2f", a / b }')
			   ratios="$ratios $ratio" ;;
			esac
			printf '%-16s %7s %5s %10s %10s %9s\n' "$label" "$w" \
				"$r" "$n" "$c" "$ratio"
			r=$((r + 1))
		done
		med=$(echo "$ratios" | tr ' ' '\n' | sed '/^$/d' | sort -n |
			awk '{ v[NR] = $1 }
			END {
				if (!NR) { print "-"; exit }
				if (NR % 2) print v[(NR + 1) / 2]
				else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2
			}')
		printf '%-16s %7s %5s %10s %10s %9s\n' "$label" "$w" median \
			"" "" "$med"
	done
done
exit "$failed"
