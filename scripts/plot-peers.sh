#!/bin/sh
# plot-peers.sh - scripts/bench-peers.sh's runs as one SVG: for each
# workload and worker count, actors' time over Go's, a bar from 1.0 to
# the median of the rounds' ratios (as the script's table has it), each
# round's ratio a dot, on a log scale with a line at 1.0 (below it:
# actors faster). Bars are coloured by worker count.
#
#   scripts/plot-peers.sh RUNS [OUT.svg]
#
# RUNS is the file PEERS_OUT=RUNS made scripts/bench-peers.sh write (lines
# "workload workers round impl seconds ops"); OUT.svg defaults to
# doc/peers.svg. Needs gnuplot (Debian's gnuplot-nox; install-deps.sh
# --bench installs it).
set -eu
[ $# -eq 1 ] || [ $# -eq 2 ] || {
	echo "usage: plot-peers.sh RUNS [OUT.svg]" >&2
	exit 2
}
runs=$1
svg=${2:-$(dirname "$0")/../doc/peers.svg}
[ -r "$runs" ] || {
	echo "plot-peers: cannot read $runs" >&2
	exit 2
}
command -v gnuplot >/dev/null || {
	echo "plot-peers: no gnuplot (apt-get install gnuplot-nox)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bars: "X LABEL MEDIAN COLOUR" a workload and worker count (X leaves a
# gap between workloads; COLOUR the worker count's place in the runs);
# dots: "X RATIO" a round. Only rounds where both sides have a time.
awk -v bars="$tmp/bars" -v dots="$tmp/dots" '
function median(v, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
NF == 6 && ($4 == "actors" || $4 == "go") && $5 != "-" {
	if (!($1 in wseen)) { wseen[$1] = 1; wl[++nwl] = $1 }
	if (!($2 in cseen)) { cseen[$2] = ++nc; cnt[nc] = $2 }
	if (!(($1, $2, $3) in rseen)) {
		rseen[$1, $2, $3] = 1
		rl[$1, $2, ++nr[$1, $2]] = $3
	}
	t[$1, $2, $3, $4] = $5
}
END {
	x = 0
	for (i = 1; i <= nwl; i++) {
		for (k = 1; k <= nc; k++) {
			key = wl[i] SUBSEP cnt[k]
			n = 0
			for (j = 1; j <= nr[key]; j++) {
				r = rl[key, j]
				if ((key SUBSEP r SUBSEP "actors") in t &&
				    (key SUBSEP r SUBSEP "go") in t &&
				    t[key, r, "go"] > 0 && t[key, r, "actors"] > 0) {
					v[++n] = t[key, r, "actors"] / t[key, r, "go"]
					printf "%d %g\n", x, v[n] >dots
				}
			}
			if (n) {
				printf "%d \"%s %sw\" %g %d\n", x, wl[i], cnt[k],
					median(v, n), k >bars
				x++
			}
		}
		x++
	}
}' "$runs"
[ -s "$tmp/bars" ] || {
	echo "plot-peers: no pair of runs with both times in $runs" >&2
	exit 1
}
gnuplot <<EOF
set terminal svg size 900,440 dynamic font "sans,11"
set output "$svg"
set title "actors time / Go time at N workers (Nw: ACTORS_SCHEDULERS = GOMAXPROCS = N)\nbars: median of the rounds' ratios, dots: each round; below 1: actors faster" noenhanced
set style fill solid 0.8 border -1
set xtics rotate by -35 scale 0 font ",9"
set grid ytics
set xrange [-0.8:$(awk 'END { print $1 + 0.8 }' "$tmp/bars")]
set bmargin 6
set logscale y 2
set format y "%.2g"
set ylabel "actors / Go (log scale)"
unset key
set linetype 1 lc rgb "#4477aa"
set linetype 2 lc rgb "#ddaa33"
set linetype 3 lc rgb "#66aa55"
set linetype 4 lc rgb "#aa4466"
set linetype 5 lc rgb "#999999"
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 lc rgb "#000000" front
plot "$tmp/bars" using 1:(1):(\$1 - 0.4):(\$1 + 0.4):(1):3:4:xtic(2) \
	with boxxyerror lc variable, \
     "$tmp/dots" using 1:2 with points pt 7 ps 0.4 lc rgb "#333333", \
     "$tmp/bars" using 1:(\$3 >= 1 ? \$3 : 1/0):(sprintf("%.2f", \$3)) \
	with labels offset 0,0.7 font ",9", \
     "$tmp/bars" using 1:(\$3 < 1 ? \$3 : 1/0):(sprintf("%.2f", \$3)) \
	with labels offset 0,-0.7 font ",9"
EOF
echo "plot-peers: $svg ($(wc -l <"$tmp/bars") bars)"
