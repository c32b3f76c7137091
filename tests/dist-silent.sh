#!/bin/sh
# SPDX-License-Identifier: MIT
# dist-silent.sh - a peer that goes silent is declared down after the
# tick time (issue 32, item 2), and only then.
#
# Two actors nodes (tests/dist_node.c), net_ticktime 5 s (a busy machine
# would have to hold a node 5 s to drop it): s2 connects to
# s1, then is stopped (SIGSTOP): its process is alive and its socket
# open, but it sends nothing, not even the ticks. s1 must say "node s2
# down: nothing received for net_ticktime (5000 ms)" and count one tick
# miss (its ACTORS_STATS interval lines); s2, let go on (SIGCONT), finds
# its connection closed by s1 and says that node is down. Before the
# stop, s1 and s2 stay connected through ticks alone for more than a
# tick time: a quiet peer that ticks is not silent. Nothing is timed: each
# wait has a failure limit only (distlib.sh's wait_for, 120 s).
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
me=dist-silent.sh
. "$src/tests/distlib.sh"
node=$(pwd)/tests/dist_node
cookie=ds$$

if ! start_epmd; then
	bad "no epmd would start: $(cat "$tmp/epmd.log")"
	finish
	exit
fi
ACTORS_STATS=1s "$node" s1 "$cookie" "$port" 5000 >"$tmp/s1" \
	2>"$tmp/s1.err" &
s1=$!
pids="$pids $s1"
if ! node_ready "$tmp/s1" 'ready s1$'; then
	bad "s1 did not start: $(cat "$tmp/s1" "$tmp/s1.err")"
	finish
	exit
fi
"$node" s2 "$cookie" "$port" 5000 "s1@$host" >"$tmp/s2" 2>"$tmp/s2.err" &
s2=$!
pids="$pids $s2"
if wait_for "$tmp/s2" "^connected s1@$host\$"; then
	ok "s2 connected to s1"
else
	bad "s2 did not connect: $(cat "$tmp/s2" "$tmp/s2.err")"
	finish
	exit
fi

# ticks alone keep a quiet connection up: 7 of s1's interval lines (7 s,
# more than a tick time) with s2 up and no tick missed
if wait_for "$tmp/s1.err" "node s2@$host (up): .* 0 tick misses\$" 7 &&
	! grep -q "node s2@$host down" "$tmp/s1.err"; then
	ok "quiet but ticking, s2 stays up on s1 for more than a tick time"
else
	bad "s2 on s1 while ticking: $(tail -n 5 "$tmp/s1.err")"
fi

kill -STOP "$s2"
if wait_for "$tmp/s1.err" "^actors: dist: node s2@$host down: nothing received for net_ticktime (5000 ms)\$"; then
	ok "s2 stopped: s1 says it is down, nothing received for net_ticktime"
else
	bad "s2 stopped, s1 said: $(tail -n 5 "$tmp/s1.err")"
fi
if wait_for "$tmp/s1.err" "node s2@$host (down): .* 1 tick misses\$"; then
	ok "s1 counts the tick miss"
else
	bad "s1's count: $(grep "node s2@$host" "$tmp/s1.err" | tail -n 3)"
fi
kill -CONT "$s2"
if wait_for "$tmp/s2.err" "^actors: dist: node s1@$host down: "; then
	ok "s2 let go on: s1 is down for it ($(grep -m 1 \
		"^actors: dist: node s1@$host down: " "$tmp/s2.err" |
		sed 's/.*down: //'))"
else
	bad "s2 let go on: $(tail -n 5 "$tmp/s2.err")"
fi
if [ "$(grep -c "node s2@$host down" "$tmp/s1.err")" = 1 ]; then
	ok "s1 said it once"
else
	bad "s1's lines: $(grep "node s2@$host down" "$tmp/s1.err")"
fi
finish
