#!/bin/sh
# SPDX-License-Identifier: MIT
# An actors node (tests/dist_node, on the public API: act_dist_start(3))
# against erl nodes (tests/dist-node.escript), all on this test's own
# epmd on a free port:
#
#   a. an erl node connects to us; every term type of the external
#      format (integers small and big, floats, atoms latin1 and UTF-8,
#      binaries and bit binaries, lists proper and improper, strings,
#      tuples, maps, pids, references, funs) goes to our "echo" by name
#      and by pid and comes back equal, through act_send (the user form
#      {Tag, Binary}) or act_send_term (any other term); a send by name
#      from us (act_send_name); 2,000 messages there and back in the order
#      sent (DESIGN.md I7 across nodes); a 64 MiB binary there and back
#   links and monitors both ways: an erl process linked to and
#      monitoring ours gets the EXIT and DOWN of each exit reason (normal,
#      shutdown, an integer, mailbox_limit, killed), ours linked to and
#      monitoring an erl process gets them too (normal, shutdown, kill,
#      an integer, noproc, and terms: ACT_EXIT_TERM with the term's
#      bytes); a link to a dead process gets noproc; an unlink, no exit;
#      monitors by name of ours: DOWN with the reason, noproc for a name
#      no process has
#   actors dist names lists our node; actors dist ping answers pong for
#      it and pang (exit 1) for a name epmd does not know
#   1,000 processes on each side: each of either side sends 20 messages
#      to random ones of the other, both sides at once, and gets each
#      answered
#   two actors nodes (tests/dist_pair.c, two OS processes, no BEAM): the
#      cases of the messaging and lifecycle tests with their ends on
#      either node: order per sender with several senders at once,
#      fan-in both ways, sizes from 0 bytes to 16 MiB, terms,
#      selective receive, msg->from, sends to a dead pid or a name no
#      process has, a cross flood, EXIT and DOWN after the messages
#      before them; links both ways with each exit reason, trapping or
#      not, act_kill both ways, unlinks, links and monitors of dead
#      pids (noproc), two monitors, act_demonitor before and after the
#      DOWN, the order at exit; the peer's clean stop (noconnection to
#      each relation, once), the peer down (noconnection), and the
#      peer restarted (its earlier run's pids: dropped, noproc);
#      act_process_info and act_dump of a process linked to and
#      monitoring one there and monitored from there (each named with
#      its node, the connection's process too); the peer's ACTORS_STATS
#      interval lines (no more than its line at the stop) and ACTORS_TRACE
#      counters of the node (the last sample that line)
#   b. we connect to an erl node (act_dist_connect) and send its
#      registered "tester" {4, <<"hello">>}; an ACTORS_STATS interval line
#      of the node shows the frame sent
#   c. a node with another cookie is refused both ways, each side saying
#      why; a second node of our name is refused by epmd; the cookie
#      from ACTORS_COOKIE and from ~/.erlang.cookie, refused when others
#      can read that file
#   d. kill -9 of the erl node: ours says the node is down, and our
#      process linked to and monitoring one there gets EXIT and DOWN
#      noconnection, once each; kill -9 of our node: the erl node gets
#      nodedown, and its process linked to and monitoring one of ours
#      gets noconnection (the socket closes at once: no tick waited for)
#
# Nothing is timed: each wait is for a line of output, with 120 s as a
# failure limit only (dist_pair's, for its own, in it).
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
me=dist-node.sh
. "$src/tests/distlib.sh"
node=$(pwd)/tests/dist_node
esc="$src/tests/dist-node.escript"
cookie=dn$$

# escript NAME-ARGS...: the Erlang side, on this test's epmd
escript_run() {
	ERL_EPMD_PORT=$port exec timeout 300 escript "$esc" "$@"
}

if ! start_epmd; then
	bad "no epmd would start: $(cat "$tmp/epmd.log")"
	finish
	exit
fi
echo "epmd on port $port, host $host"

# --- a. erl connects to us: every term type both ways -----------------------
"$node" c1 "$cookie" "$port" 20000 >"$tmp/c1" 2>"$tmp/c1.err" &
pids="$pids $!"
c1=$!
if node_ready "$tmp/c1" 'ready c1$'; then
	ok "act_dist_start: c1 registered with epmd"
else
	bad "our node did not start: $(cat "$tmp/c1" "$tmp/c1.err")"
fi
(escript_run checks e1 "$cookie" "c1@$host") >"$tmp/e1" 2>&1
grep -E '^(ok|FAIL)' "$tmp/e1" | head -n 20
if grep -q '^done [0-9]* 0$' "$tmp/e1" && ! grep -q '^FAIL' "$tmp/e1"; then
	ok "every term type there and back, by name and by pid:" \
		"$(grep '^done' "$tmp/e1")"
else
	bad "terms: $(tail -n 20 "$tmp/e1"); ours: $(tail -n 5 "$tmp/c1.err")"
fi

# --- actors dist names|ping ----------------------------------------------------
actors=$(pwd)/tools/actors
"$actors" dist --epmd-port "$port" names >"$tmp/names" 2>&1
if grep -q "^name c1 at port [0-9]*\$" "$tmp/names"; then
	ok "actors dist names: c1 in epmd's list"
else
	bad "actors dist names: $(cat "$tmp/names")"
fi
"$actors" dist --epmd-port "$port" --cookie "$cookie" ping "c1@$host" \
	>"$tmp/ping" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -qx "pong c1@$host" "$tmp/ping"; then
	ok "actors dist ping c1: pong"
else
	bad "actors dist ping c1, exit $rc: $(cat "$tmp/ping")"
fi
# ACTORS_STATS: a line for the node's traffic at the stop
ACTORS_STATS=1 "$actors" dist --epmd-port "$port" --cookie "$cookie" \
	ping "c1@$host" >"$tmp/ping" 2>"$tmp/ping.err"
if grep -qE "^actors: dist: node c1@$host: [0-9]+ frames in \([0-9]+ bytes, [0-9]+ reads\), [0-9]+ out \([0-9]+ bytes, [0-9]+ writes\), 0 tick misses\$" \
	"$tmp/ping.err"; then
	ok "ACTORS_STATS: $(grep "^actors: dist: node" "$tmp/ping.err")"
else
	bad "ACTORS_STATS, no line for the node: $(cat "$tmp/ping.err")"
fi
"$actors" dist --epmd-port "$port" --cookie "$cookie" ping "nosuch@$host" \
	>"$tmp/ping" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "^pang nosuch@$host: " "$tmp/ping"; then
	ok "actors dist ping of no node: pang, exit 1"
else
	bad "actors dist ping nosuch, exit $rc: $(cat "$tmp/ping")"
fi

# --- 1,000 processes each side ------------------------------------------------
(escript_run swarm e7 "$cookie" "c1@$host" 1000 20) >"$tmp/e7" 2>&1
if grep -q '^swarm 1000 here, 1000 there, 20000 messages each way, 0 short here, 0 short there, 20000 answered there$' \
	"$tmp/e7"; then
	ok "1,000 processes each side, messages at random: $(grep '^swarm' "$tmp/e7")"
else
	bad "the swarm: $(tail -n 5 "$tmp/e7"); ours: $(tail -n 5 "$tmp/c1.err")"
fi

# --- two actors nodes, no BEAM (tests/dist_pair.c) ---------------------------
# The cases of the messaging and lifecycle tests across two OS processes
# of the runtime: p0 runs them against p1, stops it (its act_main
# returns), and once this script has started p1 again, checks what a
# restarted node does with the pids of its earlier run.
pair=$(pwd)/tests/dist_pair
pair_cases=110
# wait_line FILE PATTERN PID: until FILE has a line matching PATTERN, or
# PID is gone (p0's own limits end it: no limit here); 1 if none came
wait_line() {
	while ! grep -q -- "$2" "$1" 2>/dev/null; do
		kill -0 "$3" 2>/dev/null || { grep -q -- "$2" "$1"; return; }
		sleep 0.1
	done
}
# p1's first run also shows its traffic with p0: the interval lines, the
# trace's counters, and the line at the stop
ACTORS_STATS=5ms ACTORS_TRACE=$tmp/p1.json ACTORS_TRACE_BUFFER=1m \
	"$pair" serve p1 "$cookie" "$port" 20000 >"$tmp/p1" 2>"$tmp/p1.err" &
pids="$pids $!"
p1=$!
wait_for "$tmp/p1" '^ready p1$'
timeout 600 "$pair" check p0 "$cookie" "$port" 20000 "p1@$host" \
	>"$tmp/p0" 2>"$tmp/p0.err" &
pids="$pids $!"
p0=$!
# p0 has seen p1 go when it says restart
if wait_line "$tmp/p0" '^peer: restart ' "$p0" &&
	wait_for "$tmp/p1" '^stopped '; then
	wait "$p1"
	p1_rc=$?
	"$pair" serve p1 "$cookie" "$port" 20000 >"$tmp/p1b" \
		2>"$tmp/p1b.err" &
	pids="$pids $!"
fi
wait "$p0"
p0_rc=$?
# and the second run too, when it is done
[ -z "${p1_rc:-}" ] || wait_for "$tmp/p1b" '^stopped '
grep '^peer: ' "$tmp/p0"
if [ "$p0_rc" = 0 ] && grep -q "^peer: done $pair_cases 0\$" "$tmp/p0" &&
	! grep -q '^peer: FAIL' "$tmp/p0"; then
	ok "two actors nodes: the messaging and lifecycle cases across them:" \
		"$(grep '^peer: done' "$tmp/p0") (of $pair_cases)"
else
	bad "two actors nodes, exit $p0_rc: $(grep -E '^peer: (FAIL|done)' "$tmp/p0")" \
		"(expected done $pair_cases 0); ours: $(tail -n 5 "$tmp/p0.err")"
fi
# I9: the stop, with a connection up, closes every socket it opened
stop_ok='^stopped 0, descriptors \([0-9]*\) before, \1 after$'
if [ "${p1_rc:-}" = 0 ] && grep -q "$stop_ok" "$tmp/p1" &&
	grep -q "$stop_ok" "$tmp/p1b"; then
	ok "two actors nodes: the peer's two runs stopped cleanly (act_main" \
		"returned 0, as many descriptors open after as before)"
else
	bad "the peer's stops: exit ${p1_rc:-none}: $(cat "$tmp/p1" "$tmp/p1b" \
		"$tmp/p1.err" "$tmp/p1b.err" 2>/dev/null | tail -n 10)"
fi

# p1's traffic with p0: its line at the stop; the interval lines, which
# add up to no more than it (what came after the last is in no line); the
# trace's counters of the node, whose last sample (at the stop) is it
fig=$(sed -n "s/^actors: dist: node p0@$host: \([0-9]*\) frames in (\([0-9]*\) bytes, \([0-9]*\) reads), \([0-9]*\) out (\([0-9]*\) bytes, \([0-9]*\) writes), \([0-9]*\) tick misses\$/\1 \2 \3 \4 \5 \6 \7/p" \
	"$tmp/p1.err")
sums=$(sed -n "s/^actors: [0-9.]*s node p0@$host (\(up\|down\)): \([0-9]*\) frames in (\([0-9]*\) bytes, \([0-9]*\) reads), \([0-9]*\) out (\([0-9]*\) bytes, \([0-9]*\) writes), \([0-9]*\) tick misses\$/\2 \3 \4 \5 \6 \7 \8/p" \
	"$tmp/p1.err" | awk '{ for (i = 1; i <= 7; i++) s[i] += $i; n++ }
		END { printf "%d", n; for (i = 1; i <= 7; i++) printf " %.0f", s[i] }')
# node_last WHAT: the in and out of the trace's last sample of p0's WHAT
node_last() {
	grep "\"name\":\"node p0@$host $1\",\"cat\":\"dist\"" "$tmp/p1.json" |
		tail -n 1 |
		sed -n 's/.*"args":{"in":\([0-9]*\),"out":\([0-9]*\)[,}].*/\1 \2/p'
}
# p1_figures IN BYTES_IN READS OUT BYTES_OUT WRITES MISSES: they agree
p1_figures() {
	[ $# = 7 ] && [ "$1" -gt 0 ] && [ "$4" -gt 0 ] &&
		echo "$sums $*" | awk '{ for (i = 2; i <= 8; i++)
			if ($i > $(i + 7)) exit 1 }' &&
		[ "$(node_last frames)" = "$1 $4" ] &&
		[ "$(node_last bytes)" = "$2 $5" ] &&
		"$actors" trace "$tmp/p1.json" >/dev/null
}
# shellcheck disable=SC2086 # the figures, a word each
if p1_figures $fig; then
	ok "ACTORS_STATS and ACTORS_TRACE: p1's traffic with p0 at the" \
		"stop ($fig), the sums of its ${sums%% *} interval lines" \
		"(${sums#* }) no more, the trace's last samples the same"
else
	bad "p1's figures of p0: at the stop: ${fig:-none}; the interval" \
		"lines (count, sums): $sums; the trace's last frames:" \
		"$(node_last frames), bytes: $(node_last bytes)"
fi

# --- links and monitors, both ways --------------------------------------------
(escript_run links e6 "$cookie" "c1@$host") >"$tmp/e6" 2>&1
grep -E '^(ok|FAIL)' "$tmp/e6"
if grep -q '^done 16 0$' "$tmp/e6" && ! grep -q '^FAIL' "$tmp/e6"; then
	ok "links and monitors both ways, every exit reason:" \
		"$(grep '^done' "$tmp/e6")"
else
	bad "links: $(tail -n 20 "$tmp/e6"); ours: $(tail -n 5 "$tmp/c1.err")"
fi

# --- b. we connect to erl ---------------------------------------------------
(escript_run tester e2 "$cookie" 20) >"$tmp/e2" 2>&1 &
pids="$pids $!"
if ! wait_for "$tmp/e2" '^ready'; then
	bad "the tester node did not start: $(cat "$tmp/e2")"
fi
ACTORS_STATS=100ms "$node" c2 "$cookie" "$port" 20000 "e2@$host" \
	>"$tmp/c2" 2>"$tmp/c2.err" &
pids="$pids $!"
c2=$!
if wait_for "$tmp/c2" "^connected e2@$host\$" &&
	wait_for "$tmp/e2" '^got {4,<<"hello">>}$'; then
	ok "act_dist_connect to an erl node, act_send_name to its tester"
else
	bad "connect: $(cat "$tmp/c2" "$tmp/c2.err"); erl: $(cat "$tmp/e2")"
fi
# its interval lines: the node up, and the interval of the send has it
if wait_for "$tmp/c2.err" "^actors: [0-9.]*s node e2@$host (up): [0-9]* frames in ([0-9]* bytes, [0-9]* reads), [1-9][0-9]* out ([1-9][0-9]* bytes, [1-9][0-9]* writes), 0 tick misses\$"; then
	ok "ACTORS_STATS=100ms: a line for e2 with the frames sent:" \
		"$(grep -m 1 "node e2@$host (up): [0-9]* frames in ([0-9]* bytes, [0-9]* reads), [1-9]" "$tmp/c2.err")"
else
	bad "ACTORS_STATS=100ms: no line for e2 with traffic out:" \
		"$(grep "node e2@" "$tmp/c2.err" | head -n 5)"
fi

# --- c. cookies and names ---------------------------------------------------
(escript_run connect e3 "wrong$cookie" "c1@$host") >"$tmp/e3" 2>&1
if grep -q '^connect=false' "$tmp/e3" &&
	wait_for "$tmp/c1.err" "connection from e3@$host refused: .*wrong cookie"; then
	ok "an erl node with another cookie: refused, and we say why:" \
		"$(grep 'e3@' "$tmp/c1.err" | head -n 1)"
else
	bad "a wrong cookie to us: $(cat "$tmp/e3"); ours: $(cat "$tmp/c1.err")"
fi
"$node" c3 "wrong$cookie" "$port" 20000 "e2@$host" >"$tmp/c3" 2>"$tmp/c3.err" &
pids="$pids $!"
if wait_for "$tmp/c3" '^connect: ' &&
	grep -q "cannot connect to e2@$host: .*digest" "$tmp/c3.err"; then
	ok "we, with another cookie: refused, and we say why:" \
		"$(grep 'e2@' "$tmp/c3.err" | head -n 1)"
else
	bad "a wrong cookie from us: $(cat "$tmp/c3" "$tmp/c3.err")"
fi
"$node" c1 "$cookie" "$port" 20000 >"$tmp/c1b" 2>"$tmp/c1b.err" &
pids="$pids $!"
if wait_for "$tmp/c1b" '^start: ' &&
	grep -q "the name c1 is registered in epmd already" "$tmp/c1b.err"; then
	ok "a second node named c1: refused by epmd, and said so"
else
	bad "a name clash: $(cat "$tmp/c1b" "$tmp/c1b.err")"
fi

# the cookie from the environment, then from ~/.erlang.cookie, which
# must be its owner's only (as Erlang's)
mkdir -p "$tmp/home"
printf '%s\n' "$cookie" >"$tmp/home/.erlang.cookie"
chmod 644 "$tmp/home/.erlang.cookie"
HOME=$tmp/home "$node" c5 - "$port" 20000 >"$tmp/c5" 2>"$tmp/c5.err"
if grep -q '^start: Permission denied' "$tmp/c5" &&
	grep -q 'readable by its owner only' "$tmp/c5.err"; then
	ok "a cookie file others can read: refused, and said so"
else
	bad "a cookie file of mode 644: $(cat "$tmp/c5" "$tmp/c5.err")"
fi
chmod 400 "$tmp/home/.erlang.cookie"
HOME=$tmp/home "$node" c5 - "$port" 20000 "e2@$host" >"$tmp/c5" \
	2>"$tmp/c5.err" &
pids="$pids $!"
c5=$!
if wait_for "$tmp/c5" "^connected e2@$host\$"; then
	ok "the cookie from ~/.erlang.cookie: connected to e2"
else
	bad "the cookie file: $(cat "$tmp/c5" "$tmp/c5.err")"
fi
kill "$c5" 2>/dev/null
ACTORS_COOKIE=$cookie "$node" c6 - "$port" 20000 "e2@$host" >"$tmp/c6" \
	2>"$tmp/c6.err" &
pids="$pids $!"
c6=$!
if wait_for "$tmp/c6" "^connected e2@$host\$"; then
	ok "the cookie from ACTORS_COOKIE: connected to e2"
else
	bad "ACTORS_COOKIE: $(cat "$tmp/c6" "$tmp/c6.err")"
fi
kill "$c6" 2>/dev/null

# --- d. a node killed -------------------------------------------------------
# the node itself, not the timeout(1) that runs it
kill -9 "$(sed -n 's/^ready //p' "$tmp/e2")"
if wait_for "$tmp/c2.err" "node e2@$host down: it closed"; then
	ok "kill -9 of the erl node: ours says so:" \
		"$(grep "node e2@$host down" "$tmp/c2.err" | head -n 1)"
else
	bad "kill -9 of the erl node, ours: $(cat "$tmp/c2.err")"
fi
(escript_run linked e5 "$cookie" "c2@$host" 20) >"$tmp/e5" 2>&1 &
pids="$pids $!"
if wait_for "$tmp/e5" '^linked ' &&
	kill -9 "$(sed -n 's/^linked //p' "$tmp/e5")" &&
	wait_for "$tmp/c2" '^watcher: exit noconnection' &&
	wait_for "$tmp/c2" '^watcher: down noconnection'; then
	ok "kill -9 of the erl node: our link's EXIT and monitor's DOWN," \
		"noconnection"
else
	bad "noconnection here: $(cat "$tmp/e5" "$tmp/c2")"
fi
(escript_run watch e4 "$cookie" "c2@$host" 20) >"$tmp/e4" 2>&1 &
pids="$pids $!"
if wait_for "$tmp/e4" '^up'; then
	kill -9 "$c2"
	if wait_for "$tmp/e4" '^down ' && grep -q '^exit noconnection$' "$tmp/e4" &&
		grep -q '^down noconnection$' "$tmp/e4"; then
		ok "kill -9 of our node: the erl node's nodedown, and" \
			"noconnection to its link and monitor"
	else
		bad "the erl side: $(cat "$tmp/e4")"
	fi
else
	bad "the watching node did not connect: $(cat "$tmp/e4")"
fi
# each noconnection once
if [ "$(grep -c '^watcher: .* noconnection' "$tmp/c2")" = 2 ]; then
	ok "noconnection came once to each relation"
else
	bad "noconnection lines: $(grep '^watcher' "$tmp/c2")"
fi
kill "$c1" 2>/dev/null
# a sanitizer's report in any of our nodes' logs (the TSan and ASan
# builds run this test too; our nodes are killed, so no exit status
# carries it)
if grep -lE 'Sanitizer|runtime error' "$tmp"/c*.err "$tmp"/p*.err \
	>/dev/null 2>&1; then
	bad "a sanitizer's report:" \
		"$(grep -hE -A5 'Sanitizer|runtime error' "$tmp"/c*.err \
			"$tmp"/p*.err | head -n 40)"
else
	ok "no sanitizer's report in our nodes' logs"
fi
finish
