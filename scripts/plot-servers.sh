#!/bin/sh
# plot-servers.sh - the servers' figures as one SVG: req/s, p99
# latency and CPU per request per server, for each load of
# scripts/bench-echo.sh and each test of scripts/bench-kv.sh (the medians
# of their tables; with KV_TESTS=default, the whole default suite).
#
#   scripts/plot-servers.sh ECHO_OUTPUT KV_OUTPUT OUT.svg
#
# ECHO_OUTPUT and KV_OUTPUT are what those scripts printed (either may be
# "-": left out). Needs gnuplot (Debian's gnuplot-nox; install-deps.sh
# --bench installs it).
set -eu
[ $# -eq 3 ] || {
	echo "usage: plot-servers.sh ECHO_OUTPUT KV_OUTPUT OUT.svg" >&2
	exit 2
}
echo_out=$1 kv_out=$2 svg=$3
command -v gnuplot >/dev/null || {
	echo "plot-servers: no gnuplot (apt-get install gnuplot-nox)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One line per group and server: GROUP SERVER RPS P99 CPU, from the tables.
: >"$tmp/data"
if [ "$echo_out" != - ]; then
	awk '
	/^load: / { eng = $2; next }
	eng != "" && ($1 == "actors" || $1 == "epoll" || $1 == "go") &&
	    $2 != "FAIL" {
		printf "echo-%s %s %s %s %s\n", eng, $1, $2, $4, $5
	}' "$echo_out" >>"$tmp/data"
fi
if [ "$kv_out" != - ]; then
	# every test of its table (SET, GET, GET-P16, or the default
	# suite's): the rows of kv and redis with figures
	awk '
	($2 == "kv" || $2 == "redis") && $3 ~ /^[0-9.]+$/ {
		printf "kv-%s %s %s %s %s\n", $1, $2, $3, $4, $5
	}' "$kv_out" >>"$tmp/data"
fi
[ -s "$tmp/data" ] || {
	echo "plot-servers: no figures found in the outputs" >&2
	exit 1
}
# a table for gnuplot's boxes: a row per group and server, with its
# colour (ours, the C or redis peer, Go)
awk '{ c = ($2 == "actors" || $2 == "kv") ? 1 : $2 == "go" ? 3 : 2
	printf "%d \"%s %s\" %s %s %d %s\n", NR - 1, $1, $2, $3, $4, c, $5 }' \
	"$tmp/data" >"$tmp/rows"
gnuplot <<EOF
set terminal svg size $(awk 'END { w = 300 + NR * 66; print (w < 1400 ? 1400 : w) }' "$tmp/rows"),440 dynamic font "sans,11"
set output "$svg"
set multiplot layout 1,3 title "servers on this machine (medians)"
set style fill solid 0.8 border -1
set boxwidth 0.7
set xtics rotate by -35 scale 0 font ",9"
set grid ytics
set xrange [-0.6:*]
unset key
set linetype 1 lc rgb "#4477aa"
set linetype 2 lc rgb "#999999"
set linetype 3 lc rgb "#ddaa33"
set title "requests per second (log scale; blue: actors)"
set logscale y
set format y "%.0s%c"
plot "$tmp/rows" using 1:3:5:xtic(2) with boxes lc variable
unset logscale y
set title "p99 latency (us)"
set format y "%.0f"
set yrange [0:*]
plot "$tmp/rows" using 1:4:5:xtic(2) with boxes lc variable
set title "server CPU per request (us)"
set format y "%.1f"
plot "$tmp/rows" using 1:6:5:xtic(2) with boxes lc variable
unset multiplot
EOF
echo "plot-servers: $svg ($(wc -l <"$tmp/rows") bars a panel)"
