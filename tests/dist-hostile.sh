#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile peers against an actors node (tests/dist_hostile, on the public
# API), on this test's own epmd on a free port (doc/distribution.md
# "Bounds and hostile input"). A hostile peer (tests/dist-hostile.py,
# Python's standard library) attacks the node, one connection per case:
#
#   before the handshake is done: a bad tag, a handshake length over the
#      bound (0xffff), a 4-byte 64 MiB length as the first bytes (alone,
#      and with a body streamed after it), the version 5 send_name, a name
#      over 255 bytes, mandatory flags missing, a wrong cookie (under a
#      new name, and under the name of the erl node connected), half a
#      frame and a close;
#   after it (the right cookie, one round trip to echo first): a frame of
#      a bad first byte, a distribution header (131 68) with an atom
#      cache reference out of range, ATOM_CACHE_REF in a term, a message
#      nested 100,000 deep, a 4-byte length of 0xffffffff and of
#      ACT__CONN_FRAME_MAX + 1 with no body, half a frame and a close;
#   and, not an attack, 120 messages of 0 to 200 KiB whose frames come cut
#      into random pieces (seeded, the seed in the line; PIECES_SEED picks
#      it): each answered whole and in order.
#
# Each case passes when the node closes that connection, says why in a
# line of its standard error (each case's own text), and lives. The
# node's peak resident memory (VmHWM) rises by less than 16 MiB across
# them, far below the 64 MiB the lengths claim; and by less than that
# for a 64 MiB length within the bound whose body never comes (not
# checked in the sanitizer builds, whose shadow of the block the node
# reserves for it is resident). Then 2,100
# send_names of distinct names with a wrong cookie, more than the node
# table's 2,047, after which a new erl node must still connect. Through
# it all an erl node does round trips to the node's echo; after the last
# case it does one more, and it must never have seen a nodedown. The
# node's log holds no sanitizer's report.
#
# Nothing is timed: each wait is for a line of output or a closed socket,
# with 30 s (the peer) or 120 s (wait_for) as a failure limit only. The
# node's setup_ms is 5000, so that the peer that sends a length and then
# nothing is closed at that deadline.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
me=dist-hostile.sh
. "$src/tests/distlib.sh"
if ! command -v python3 >/dev/null; then
	echo "$me: no python3: skipped"
	exit 77
fi
node=$(pwd)/tests/dist_hostile
cookie=dh$$
bound_kb=16384 # the rise of VmHWM allowed: 16 MiB

# vmhwm PID: the process's peak resident memory, kB
vmhwm() {
	sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$1/status"
}

if ! start_epmd; then
	bad "no epmd would start: $(cat "$tmp/epmd.log")"
	finish
	exit
fi
echo "epmd on port $port, host $host"

"$node" h1 "$cookie" "$port" 20000 5000 >"$tmp/h1" 2>"$tmp/h1.err" &
h1=$!
pids="$pids $h1"
if ! node_ready "$tmp/h1" 'ready h1 '; then
	bad "our node did not start: $(cat "$tmp/h1" "$tmp/h1.err")"
	finish
	exit
fi
ok "the node h1 started: $(cat "$tmp/h1")"
alloc=$(sed -n 's/^ready h1 [0-9]* //p' "$tmp/h1")

# the erl node: round trips to h1's echo until $tmp/stop, then one more;
# a nodedown or a round trip not answered within 30 s ends it
erl_node e1 "$cookie" "
	Node = 'h1@$host',
	Stop = \"$tmp/stop\",
	case net_kernel:connect_node(Node) of
	true -> ok;
	R0 -> io:format(\"connect ~p~n\", [R0]), halt(1)
	end,
	monitor_node(Node, true),
	RT = fun(N) ->
		{echo, Node} ! {1, <<N:32>>},
		receive
			{1, <<N:32>>} -> ok;
			{nodedown, Node} -> nodedown
		after 30000 -> timeout
		end
	end,
	Loop = fun L(N) ->
		case filelib:is_file(Stop) of
		true ->
			R = RT(N),
			D = receive {nodedown, Node} -> nodedown
			    after 0 -> none end,
			io:format(\"final ~p after ~p round trips, ~p~n\",
				  [R, N, D]),
			halt();
		false ->
			case RT(N) of
			ok ->
				N =:= 0 andalso io:format(\"up~n\"),
				timer:sleep(20),
				L(N + 1);
			Bad ->
				io:format(\"FAIL ~p at round trip ~p~n\",
					  [Bad, N]),
				halt(1)
			end
		end
	end,
	Loop(0)." -kernel net_ticktime 20 >"$tmp/e1" 2>&1 &
pids="$pids $!"
if wait_for "$tmp/e1" '^\(up\|FAIL\|connect\)' && grep -q '^up$' "$tmp/e1"; then
	ok "the erl node e1 connected, round trips to h1's echo going"
else
	bad "the erl node: $(cat "$tmp/e1"); ours: $(cat "$tmp/h1.err")"
fi

# --- the attacks
# hostile MODE [N]: the peer (tests/dist-hostile.py) against h1, its
# lines into ok/bad; output in $tmp/MODE
hostile() {
	python3 "$src/tests/dist-hostile.py" "$@" "$port" h1 "$host" \
		"$cookie" "$h1" "$tmp/h1.err" "e1@$host" >"$tmp/$1" 2>&1
	hrc=$?
	while read -r verdict rest; do
		case $verdict in
		ok) ok "$rest" ;;
		FAIL) bad "$rest" ;;
		esac
	done <"$tmp/$1"
	if ! grep -q '^done ' "$tmp/$1"; then
		bad "the hostile peer ($1) stopped short (exit $hrc):" \
			"$(tail -n 20 "$tmp/$1")"
	fi
}
hwm0=$(vmhwm "$h1")
hostile refuse
hwm1=$(vmhwm "$h1")
# the peak across them, against a bound under what the lengths claim
if [ -n "$hwm0" ] && [ -n "$hwm1" ] &&
	[ $((hwm1 - hwm0)) -lt "$bound_kb" ]; then
	ok "VmHWM rose by $((hwm1 - hwm0)) kB across the refused attacks" \
		"($hwm0 to $hwm1 kB), under $bound_kb kB"
else
	bad "VmHWM across the refused attacks: expected a rise under" \
		"$bound_kb kB, saw ${hwm0:-?} kB before and ${hwm1:-?} kB after"
fi
# a length within the bound, its body never sent: nothing held for it
# (a sanitizer's shadow of the block the node reserves is held: 8 MiB
# under ASan, 33 under TSan, not the runtime's memory)
hostile within
hwm2=$(vmhwm "$h1")
if [ "$alloc" = sanitizer ]; then
	echo "$me: VmHWM for the 64 MiB length within the bound not" \
		"checked: the allocator is a sanitizer's ($hwm1 to $hwm2 kB)"
elif [ -n "$hwm1" ] && [ -n "$hwm2" ] &&
	[ $((hwm2 - hwm1)) -lt "$bound_kb" ]; then
	ok "VmHWM rose by $((hwm2 - hwm1)) kB for the 64 MiB length" \
		"within the bound ($hwm1 to $hwm2 kB), under $bound_kb kB"
else
	bad "VmHWM for the 64 MiB length within the bound: expected a rise" \
		"under $bound_kb kB, saw ${hwm1:-?} kB before and ${hwm2:-?}" \
		"kB after"
fi

# --- not an attack: frames cut at every kind of place, each answer whole
hostile pieces

# --- a flood of unauthenticated names, then a node never seen before
# more names than the node table holds (2,047: doc/distribution.md
# "Bounds"), none of them authenticated: a node that connects after
# them with the cookie must still be let in
hostile flood 2100
echo "VmHWM across the flood: ${hwm2:-?} to $(vmhwm "$h1") kB"
erl_node e2 "$cookie" "
	Node = 'h1@$host',
	case net_kernel:connect_node(Node) of
	true ->
		{echo, Node} ! {1, <<\"e2\">>},
		receive {1, <<\"e2\">>} -> io:format(\"e2 answered~n\")
		after 30000 -> io:format(\"e2 no answer~n\")
		end;
	R ->
		io:format(\"e2 connect ~p~n\", [R])
	end,
	halt()." -kernel net_ticktime 20 >"$tmp/e2" 2>&1 &
pids="$pids $!"
if wait_for "$tmp/e2" '^e2 ' && grep -q '^e2 answered$' "$tmp/e2"; then
	ok "a new erl node e2 after the flood: connected, echo answered"
else
	bad "a new erl node e2 after the flood: expected it connected and" \
		"answered, saw: $(cat "$tmp/e2"); ours:" \
		"$(grep "e2@$host" "$tmp/h1.err" | head -n 3)"
fi

# --- every other node kept being served
: >"$tmp/stop"
if wait_for "$tmp/e1" '^\(final\|FAIL\)' &&
	grep -q '^final ok after [0-9]* round trips, none$' "$tmp/e1"; then
	ok "the erl node, through every attack: $(grep '^final' "$tmp/e1")," \
		"no nodedown"
else
	bad "the erl node: expected a last round trip answered and no" \
		"nodedown, saw: $(cat "$tmp/e1")"
fi
# alive: there, and not a zombie (it is this shell's child)
if [ -r "/proc/$h1/stat" ] &&
	! sed 's/.*) //' "/proc/$h1/stat" | grep -q '^[ZX]'; then
	ok "the node h1 is alive after the attacks"
else
	bad "the node h1 is gone: $(tail -n 20 "$tmp/h1.err")"
fi

# TERM is not caught by the runtime: the wait is for the log's end
kill "$h1" 2>/dev/null
wait "$h1" 2>/dev/null
# a sanitizer's report in our node's log (the sanitizer builds run this
# test too; the node is killed, so no exit status carries it)
if grep -qE 'Sanitizer|runtime error' "$tmp/h1.err"; then
	bad "a sanitizer's report:" \
		"$(grep -E -A5 'Sanitizer|runtime error' "$tmp/h1.err" | head -n 40)"
else
	ok "no sanitizer's report in our node's log"
fi
finish
