#!/bin/sh
# SPDX-License-Identifier: MIT
# lib/dist's wire layer (doc/design/distribution.md "Wire") against a
# real Erlang node (erlang-base): epmd's protocol and the version 6
# handshake in both roles, through tests/dist_wire_peer, a driver on
# plain sockets. The test starts its own epmd on a free port (a random
# one, another on a clash) and kills it at the end; every node is on
# this host, named NAME@`hostname -s`.
#
#   a. we accept: the driver registers b with epmd (ALIVE2) and listens;
#      an erl node's net_kernel:connect_node(b) is true and nodes(hidden)
#      lists b; the driver answers the node's ticks (net_ticktime 20: a
#      tick every 5 s) twice without being dropped; an erl node with
#      another cookie gets false, and the driver the cookie's reason
#   b. we connect: the driver finds an erl node through epmd
#      (PORT_PLEASE2) and completes the handshake (the node's nodeup
#      lists it in nodes(hidden)); with another cookie the driver is
#      refused with the cookie's reason and the node reports an invalid
#      challenge reply; a name epmd does not know is refused too
#
# Nothing is timed: each wait is for a line of output, with 120 s as a
# failure limit only. Exits 77 (skipped, said so) without erl or epmd,
# or when the short host name does not resolve (erl -sname needs it).
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
me=dist-erl.sh
. "$src/tests/distlib.sh"
driver=$(pwd)/tests/dist_wire_peer
cookie=dw$$

if ! start_epmd; then
	bad "no epmd would start: $(cat "$tmp/epmd.log")"
	finish
	exit
fi
echo "epmd on port $port, host $host"

# --- a. we accept --------------------------------------------------------
"$driver" accept "b@$host" "$cookie" "$port" 2 >"$tmp/acc" 2>&1 &
acc=$!
pids="$pids $acc"
if ! wait_for "$tmp/acc" '^ready'; then
	bad "the driver did not register with epmd: $(cat "$tmp/acc")"
else
	ok "the driver registered b with epmd (ALIVE2): $(head -n 1 "$tmp/acc")"
fi
erl_node a1 "$cookie" "
	R = net_kernel:connect_node('b@$host'),
	io:format(\"connect=~p hidden=~p~n\",
		  [R, lists:member('b@$host', nodes(hidden))]),
	monitor_node('b@$host', true),
	receive {nodedown, N} -> io:format(\"nodedown ~s~n\", [N]) end,
	halt()." -kernel net_ticktime 20 >"$tmp/a1" 2>&1 &
a1=$!
pids="$pids $a1"
if wait_for "$tmp/a1" '^connect=' && grep -q '^connect=true hidden=true' "$tmp/a1" &&
	grep -q "^accepted a1@$host\$" "$tmp/acc"; then
	ok "an erl node connected to us: connect_node true, in nodes(hidden)"
else
	bad "erl could not connect to us: $(cat "$tmp/a1"); driver: $(cat "$tmp/acc")"
fi
# two ticks answered, and the node never dropped us (it would after 20 s
# of silence: a tick every 5 s, so that only a stall of 20 s of a
# driver that answers at once could fail this)
i=0
while [ "$(grep -c '^tick' "$tmp/acc")" -lt 2 ] &&
	! grep -q '^closed' "$tmp/acc" && [ "$i" -le 1200 ]; do
	i=$((i + 1))
	sleep 0.1
done
if [ "$(grep -c '^tick' "$tmp/acc")" -ge 2 ] && ! grep -q '^closed' "$tmp/acc" &&
	! grep -q nodedown "$tmp/a1"; then
	ok "two ticks answered, the connection kept"
else
	bad "ticks: $(grep -c '^tick' "$tmp/acc") answered; driver:" \
		"$(tail -n 3 "$tmp/acc"); erl: $(cat "$tmp/a1")"
fi
kill "$a1" 2>/dev/null
wait "$a1" 2>/dev/null
if wait_for "$tmp/acc" "^closed a1@$host\$"; then
	ok "the node stopped: the driver saw the connection close"
else
	bad "the driver did not see the node go: $(tail -n 3 "$tmp/acc")"
fi
(erl_node a2 "wrong$cookie" "
	R = net_kernel:connect_node('b@$host'),
	io:format(\"connect=~p~n\", [R]),
	halt().") >"$tmp/a2" 2>&1
wait "$acc"
if grep -q '^connect=false' "$tmp/a2"; then
	ok "an erl node with another cookie: connect_node false"
else
	bad "erl with a wrong cookie: $(cat "$tmp/a2")"
fi
why="refused: handshake: challenge reply's digest does not match: wrong cookie (ours or the peer's)"
if grep -qxF "$why" "$tmp/acc"; then
	ok "we refused it: $why"
else
	bad "the driver did not refuse the wrong cookie: $(tail -n 3 "$tmp/acc")"
fi

# --- b. we connect ---------------------------------------------------------
erl_node a3 "$cookie" '
	ok = net_kernel:monitor_nodes(true, [{node_type, all}]),
	io:format("ready~n"),
	Loop = fun L() ->
		receive
		{nodeup, N, _} ->
			io:format("nodeup ~s hidden=~p~n",
				  [N, lists:member(N, nodes(hidden))]),
			erlang:disconnect_node(N),
			L();
		{nodedown, N, _} ->
			io:format("nodedown ~s~n", [N]),
			L()
		end
	end,
	Loop().' >"$tmp/a3" 2>&1 &
a3=$!
pids="$pids $a3"
if ! wait_for "$tmp/a3" '^ready'; then
	bad "the erl node did not start: $(cat "$tmp/a3")"
fi
if timeout 300 "$driver" connect "c1@$host" "$cookie" "$port" "a3@$host" \
	>"$tmp/c1" 2>&1 && grep -q "^connected a3@$host\$" "$tmp/c1" &&
	wait_for "$tmp/a3" "^nodeup c1@$host hidden=true\$"; then
	ok "we connected to an erl node (PORT_PLEASE2, handshake): in its nodes(hidden)"
else
	bad "we could not connect: $(cat "$tmp/c1"); erl: $(cat "$tmp/a3")"
fi
timeout 300 "$driver" connect "c2@$host" "wrong$cookie" "$port" "a3@$host" \
	>"$tmp/c2" 2>&1
rc=$?
why="refused: handshake: the peer closed the connection instead of its challenge ack: it refused our digest: wrong cookie (ours or the peer's)"
if [ "$rc" = 1 ] && grep -qxF "$why" "$tmp/c2"; then
	ok "with another cookie we are refused: $why"
else
	bad "a wrong cookie to erl, exit $rc: $(cat "$tmp/c2")"
fi
if wait_for "$tmp/a3" 'Connection attempt from node c2@.* rejected. Invalid challenge reply' &&
	! grep -q "nodeup c2@" "$tmp/a3"; then
	ok "the erl node refused it: invalid challenge reply"
else
	bad "the erl node did not refuse the wrong cookie: $(cat "$tmp/a3")"
fi
timeout 300 "$driver" connect "c3@$host" "$cookie" "$port" "nosuch@$host" \
	>"$tmp/c3" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -qxF "refused: epmd: no node of that name is registered" "$tmp/c3"; then
	ok "a name epmd does not know: refused by PORT2_RESP"
else
	bad "an unknown name, exit $rc: $(cat "$tmp/c3")"
fi
kill "$a3" 2>/dev/null
wait "$a3" 2>/dev/null
finish
