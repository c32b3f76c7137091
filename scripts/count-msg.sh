#!/bin/sh
# count-msg.sh - what one message costs in counts that do not drift with
# this machine's speed: instructions, data reads and writes, L1d misses
# (lines from elsewhere), conditional branches and their mispredictions,
# indirect branches, per pingpong message and per ring hop, one worker.
# valgrind's cachegrind simulates the caches and the branch predictor
# (this VM has no PMU: perf stat counts none of these); each figure is
# the difference of a short and a long run divided by the difference of
# their messages, so the start-up and the stop cancel out. The table of
# doc/design/scheduling.md "One message, step by step" comes from it.
#
#   COUNT_BUILD=NAME   build/NAME; default release (built first)
#   COUNT_SHORT=N      messages of the short run; default 200000
#   COUNT_LONG=N       messages of the long run; default 600000
#
# Needs valgrind. The runtime runs without io_uring under valgrind
# (ACT_TEST_RING=none): valgrind does not know the ring's system calls.
set -eu
cd "$(dirname "$0")/.."
name=${COUNT_BUILD:-release}
short=${COUNT_SHORT:-200000}
long=${COUNT_LONG:-600000}
build=build/$name
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v valgrind >/dev/null || { echo "count-msg: no valgrind" >&2; exit 1; }
case "$short$long" in
*[!0-9]*) echo "count-msg: COUNT_SHORT and COUNT_LONG are counts" >&2; exit 2 ;;
esac
[ "$long" -gt "$short" ] || { echo "count-msg: COUNT_LONG must exceed COUNT_SHORT" >&2; exit 2; }
[ -d "$build" ] || scripts/build.sh "$name" >/dev/null
make -s -C "$build" bench/pingpong bench/ring >/dev/null

# one cachegrind run; prints "Ir Dr Dw D1mr D1mw Bc Bcm Bi Bim"
run() {
	out=$tmp/cg.$$
	# the bench programs are libtool wrappers: run the real binary
	ACT_TEST_RING=none ACTORS_SCHEDULERS=1 \
		LD_LIBRARY_PATH="$build/.libs" valgrind --tool=cachegrind \
		--cache-sim=yes --branch-sim=yes --cachegrind-out-file="$out" \
		"$build/bench/.libs/$@" >/dev/null 2>&1 ||
		{ echo "count-msg: valgrind $* failed" >&2; exit 1; }
	awk '/^summary:/ { $1 = ""; print; exit }' "$out"
}

# the events' order in cachegrind's summary line
ev="Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim"

per() { # label args-short args-long messages-short messages-long
	a=$(run $2)
	b=$(run $3)
	echo "$1 $4 $5 $ev $a | $b"
}

{
	per pingpong "pingpong $short" "pingpong $long" "$((2 * short))" "$((2 * long))"
	per ring "ring 503 $short" "ring 503 $long" "$short" "$long"
} | awk '{
	label = $1; n = $3 - $2
	for (i = 0; i < 13; i++) name[i] = $(4 + i)
	for (i = 0; i < 13; i++) { a[name[i]] = $(17 + i); b[name[i]] = $(31 + i) }
	for (k in a) d[k] = (b[k] - a[k]) / n
	printf "%-8s instructions %6.1f  data reads+writes %6.1f  L1d misses %5.2f (%.2f read, %.2f written)  cond branches %5.1f mispredicted %5.2f  indirect %4.1f\n",
		label, d["Ir"], d["Dr"] + d["Dw"], d["D1mr"] + d["D1mw"],
		d["D1mr"], d["D1mw"], d["Bc"], d["Bcm"], d["Bi"]
}'
