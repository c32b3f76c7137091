#!/bin/sh
# plot-soak.sh - scripts/soak.sh's samples as one SVG: over the run's
# minutes, the server's RSS and the memory malloc has in use (MiB, left),
# and its open descriptors and live processes (right), each a line.
#
#   scripts/plot-soak.sh CSV [OUT.svg]
#
# CSV is the file scripts/soak.sh wrote (SOAK_CSV, build/soak.csv by
# default); OUT.svg defaults to doc/soak.svg. Needs gnuplot (Debian's
# gnuplot-nox; install-deps.sh --bench installs it).
set -eu
[ $# -eq 1 ] || [ $# -eq 2 ] || {
	echo "usage: plot-soak.sh CSV [OUT.svg]" >&2
	exit 2
}
csv=$1
svg=${2:-$(dirname "$0")/../doc/soak.svg}
command -v gnuplot >/dev/null || {
	echo "plot-soak: no gnuplot (apt-get install gnuplot-nox)" >&2
	exit 1
}
head -n 1 "$csv" | grep -q '^elapsed_s,rss_kib,used_kib,fds,processes,' || {
	echo "plot-soak: $csv is not scripts/soak.sh's CSV" >&2
	exit 1
}
gnuplot <<EOF
set terminal svg size 900,420 dynamic font "sans,11"
set output "$svg"
set datafile separator ","
set key below horizontal
set termoption noenhanced
set grid
set xlabel "minutes"
set ylabel "MiB"
set y2label "count"
set yrange [0:*]
set y2range [0:*]
set ytics nomirror
set y2tics
set title "kv_server under scripts/soak.sh: memory, descriptors, processes"
plot "$csv" skip 1 using (\$1 / 60):(\$2 / 1024) with linespoints \
	lw 2 lc rgb "#4477aa" title "RSS (MiB)", \
     "" skip 1 using (\$1 / 60):(\$3 / 1024) with lines lw 2 \
	lc rgb "#88ccee" title "malloc in use (MiB)", \
     "" skip 1 using (\$1 / 60):4 axes x1y2 with linespoints lw 2 \
	lc rgb "#ddaa33" title "descriptors", \
     "" skip 1 using (\$1 / 60):5 axes x1y2 with lines lw 1 \
	lc rgb "#999999" title "processes"
EOF
echo "plot-soak: $svg"
