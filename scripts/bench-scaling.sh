#!/bin/sh
# Run every benchmark workload with one worker and with two
# (ACTORS_SCHEDULERS=1, then 2) and print a table: the figure at each and
# their ratio. pingpong and ring give ns per message or hop, and the ratio
# ns2/ns1 (how many times one message costs more at two workers); skynet,
# fanin and the two spawnbursts give seconds, and the ratio t1/t2 (the
# speedup). ACTORS_STATS is off; other ACTORS_* variables pass through.
#
#   BENCH_REPEAT=N    take the best (lowest) of N runs of each; default 1
#   BENCH_TIMEOUT=S   give up on one run after S seconds; default 300
#   BENCH_BUILD=NAME  use build/NAME; default release
#   BENCH_WORKERS="1 2 4 8 15"  the worker counts, first one the base;
#                     default "1 2". With more than two, each figure
#                     after the first carries its ratio to the first in
#                     brackets (same sense as above) and there is no
#                     ratio column.
#
# The programs are those of bench/ in build/release, built with
# scripts/build.sh release if one is missing; an existing build is used as
# it is (after a change, `make -C build/release` first). Exits 1 if a run
# failed (an error, a wrong checksum or the timeout).
set -eu
cd "$(dirname "$0")/.."
repeat=${BENCH_REPEAT:-1}
counts=${BENCH_WORKERS:-1 2}
limit=${BENCH_TIMEOUT:-300}
name=${BENCH_BUILD:-release}
build=build/$name
failed=0

# One line per workload: name, program and arguments, unit, operations
# (what ns per operation divides by; none for a time in seconds). The
# sizes are the defaults of doc/benchmarks.md, spelled out so the
# divisions below match them.
workloads() {
	cat <<'EOF'
pingpong|pingpong 1000000|ns/msg|2000000
ring|ring 503 2000000|ns/hop|2000000
skynet|skynet 1000000|s|
fanin|fanin 100 100000 1000|s|
spawnburst100|spawnburst 100 400000000|s|
spawnburst10000|spawnburst 10000 400000000|s|
EOF
}

usage_error() {
	echo "bench-scaling: $1" >&2
	exit 2
}

check_env() {
	case $repeat in
	'' | *[!0-9]* | 0) usage_error "BENCH_REPEAT must be 1 or more" ;;
	esac
	case $limit in
	'' | *[!0-9]* | 0) usage_error "BENCH_TIMEOUT must be 1 or more" ;;
	esac
	n=0
	for w in $counts; do
		case $w in
		*[!0-9]* | 0) usage_error "BENCH_WORKERS: \"$w\" is not a worker count" ;;
		esac
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || usage_error "BENCH_WORKERS needs two counts or more"
	ncounts=$n
}

ensure_build() {
	for p in pingpong ring skynet fanin spawnburst; do
		if [ ! -x "$build/bench/$p" ]; then
			echo "bench-scaling: building $build" >&2
			scripts/build.sh "$name" >&2
			return
		fi
	done
}

# run_once WORKERS PROGRAM ARGS...: prints the seconds of its RESULT line.
run_once() {
	w=$1
	prog=$2
	shift 2
	rc=0
	out=$(ACTORS_SCHEDULERS=$w ACTORS_STATS=0 \
		timeout "$limit" "$build/bench/$prog" "$@" </dev/null) || rc=$?
	if [ "$rc" -ne 0 ]; then
		why="exit status $rc"
		[ "$rc" -ne 124 ] || why="timed out after $limit s"
		echo "bench-scaling: $prog $*, ACTORS_SCHEDULERS=$w: $why" >&2
		return 1
	fi
	echo "$out" | awk '$1 == "RESULT" { print $4; found = 1 }
		END { exit !found }'
}

# best WORKERS PROGRAM ARGS...: the lowest seconds of $repeat runs.
best() {
	i=0
	min=
	while [ "$i" -lt "$repeat" ]; do
		t=$(run_once "$@") || return 1
		min=$(awk -v a="$t" -v b="${min:-$t}" \
			'BEGIN { print (a + 0 < b + 0) ? a : b }')
		i=$((i + 1))
	done
	echo "$min"
}

# figure SECONDS UNIT OPS: "0.123 s" or "56.2 ns/msg"; "FAIL" if no time.
figure() {
	if [ -z "$1" ]; then
		echo FAIL
	elif [ "$2" = s ]; then
		awk -v t="$1" 'BEGIN { printf "%.3f s\n", t }'
	else
		awk -v t="$1" -v n="$3" -v u="$2" \
			'BEGIN { printf "%.1f %s\n", t * 1e9 / n, u }'
	fi
}

# ratio T1 T2 UNIT: t1/t2 for times, ns2/ns1 (that is t2/t1) per op.
ratio() {
	if [ -z "$1" ] || [ -z "$2" ]; then
		echo "-"
	elif [ "$3" = s ]; then
		awk -v a="$1" -v b="$2" \
			'BEGIN { printf "%.2f (t1/t2)\n", a / b }'
	else
		awk -v a="$1" -v b="$2" \
			'BEGIN { printf "%.2f (ns2/ns1)\n", b / a }'
	fi
}

# one_row LINE: runs one workload at each worker count, prints its row.
one_row() {
	IFS='|' read -r wl cmd unit ops <<EOF
$1
EOF
	row=$(printf '%-16s' "$wl")
	base=
	last=
	first=1
	for w in $counts; do
		# shellcheck disable=SC2086 # cmd is the program and its arguments
		t=$(best "$w" $cmd) || t=
		[ -n "$t" ] || failed=1
		f=$(figure "$t" "$unit" "$ops")
		if [ "$first" = 1 ]; then
			base=$t
			first=0
		elif [ "$ncounts" -gt 2 ]; then
			f="$f [$(ratio "$base" "$t" "$unit" | cut -d' ' -f1)]"
		else
			last=$t
		fi
		row="$row $(printf '%16s' "$f")"
	done
	if [ "$ncounts" -eq 2 ]; then
		row="$row  $(ratio "$base" "$last" "$unit")"
	fi
	echo "$row"
}

check_env
ensure_build
echo "bench-scaling: $build, best of $repeat, $(nproc) CPUs, $(uname -r)"
head=$(printf '%-16s' workload)
for w in $counts; do
	if [ "$w" = 1 ]; then name="1 worker"; else name="$w workers"; fi
	head="$head $(printf '%16s' "$name")"
done
if [ "$ncounts" -eq 2 ]; then head="$head  ratio"; fi
echo "$head"
while read -r line; do
	one_row "$line"
done <<EOF
$(workloads)
EOF
if [ "$failed" -ne 0 ]; then
	echo "bench-scaling: a run failed (see above)" >&2
	exit 1
fi
