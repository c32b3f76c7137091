#!/bin/bash
# SPDX-License-Identifier: MIT
# The servers under a low RLIMIT_NOFILE (issue 33): examples/kv_server
# and examples/echo_server started with `ulimit -n` lowered, then more
# clients at once than the limit leaves room for (scripts/kv-burst.py).
# No client may be left waiting with no answer: each gets its reply, or
# kv's "-ERR max number of clients reached" (echo's: a close), and a new
# client is served once others have gone. The start-up line names the
# lowered cap. Then the same with descriptors the server inherited open,
# so that accept itself runs out (EMFILE) below the cap: the clients that
# wait meanwhile are refused too (act_io_accept_shed), and the server
# says so once when it starts and once when it ends. Last, kv_server's
# stop line counts a connection still open at SIGTERM as closed (it
# once counted it accepted and never closed). Run by `make check` from
# the build directory; nothing here is timed: a hang shows as a
# client's 30 s limit.
set -u
srcdir=${srcdir:-..}
tests=$srcdir/tests
[ -f "$tests/kvlib.sh" ] || tests=$(dirname "$0")
burst=$tests/../scripts/kv-burst.py
. "$tests/kvlib.sh"

if ! command -v python3 >/dev/null; then
	echo "nofile.sh: no python3: skipped"
	exit 77
fi

# start NAME NOFILE INHERIT PROGRAM ARGS...: PROGRAM --port 0 ARGS under
# `ulimit -n NOFILE`, with INHERIT descriptors of /dev/null open from
# 10 on (the server's own count toward the limit too); sets pid and
# port once it listens (60 s at most).
start() {
	local name=$1 nofile=$2 inherit=$3 i
	shift 3
	: >"$tmp/$name.out"
	bash -c 'ulimit -n "$1" && for ((i = 10; i < 10 + $2; i++)); do
			eval "exec $i</dev/null"
		done && shift 2 && exec "$@"' _ "$nofile" "$inherit" \
		"$@" --port 0 >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	pids+=("$pid")
	port=
	for ((i = 0; i < 600 && ${#port} == 0; i++)); do
		port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' \
			"$tmp/$name.out")
		[ -n "$port" ] || { kill -0 "$pid" 2>/dev/null || break; sleep 0.1; }
	done
	[ -n "$port" ]
}

# stop: SIGTERM, and the status once it exited (30 s at most)
stop() {
	local i
	kill -TERM "$pid"
	for ((i = 0; i < 300; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	wait "$pid"
}

# field LINE NAME: the number after NAME in kv-burst.py's line
field() {
	echo "$1" | sed -n "s/.* $2 \([0-9]*\).*/\1/p"
}

# ping PORT: a new client's PING, its first line, retried while it is
# refused or reset (100 tries: clients that left are counted out by
# their processes a moment later)
ping_served() {
	local i got
	for ((i = 0; i < 100; i++)); do
		got=$(raw_cmd "$1" 'PING\r\nQUIT\r\n' | head -n 1 |
			tr -d '\r')
		[ "$got" = "+PONG" ] && break
		sleep 0.1
	done
	echo "$got"
}

raw_cmd() { # raw_cmd PORT BYTES: the reply until the server closes, 5 s
	(
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf '%b' "$2" >&3
		timeout 5 cat <&3 2>/dev/null
	)
}

# hold NAME PORT N [--echo]: a burst of N whose served clients stay
# connected until release; its line in $tmp/NAME.line once all answered
hold() {
	local name=$1 p=$2 n=$3 i
	shift 3
	mkfifo "$tmp/$name.fifo"
	python3 "$burst" --port "$p" --conns "$n" --hold "$@" \
		<"$tmp/$name.fifo" >"$tmp/$name.line" 2>&1 &
	holder=$!
	pids+=("$holder")
	exec 7>"$tmp/$name.fifo"
	for ((i = 0; i < 600; i++)); do
		[ -s "$tmp/$name.line" ] && break
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.1
	done
}

release() {
	exec 7>&-
	wait "$holder"
}

# ---- kv_server: maxclients lowered to the limit, the rest refused -------
if start kvlow 300 0 examples/kv_server --workers 2; then
	line=$(grep 'maxclients lowered' "$tmp/kvlow.err")
	check "kv_server under ulimit -n 300 says maxclients lowered" \
		"kv_server: maxclients lowered from 10000 to 268:" \
		"$(echo "$line" | cut -d' ' -f1-7)"
	got=$(raw_cmd "$port" 'CONFIG GET maxclients\r\nQUIT\r\n' |
		tr -d '\r' | sed -n 5p)
	check "CONFIG GET maxclients says the lowered value" 268 "$got"
	hold kvhold "$port" 400
	l=$(cat "$tmp/kvhold.line")
	check "400 clients at once: 268 served, 132 refused, none left" \
		"pong 268 refused 132 silent 0 other 0" \
		"pong $(field "$l" pong) refused $(field "$l" refused) silent $(field "$l" silent) other $(field "$l" other)"
	got=$(raw_cmd "$port" 'PING\r\n' | tr -d '\r')
	check "a new client while 268 are held: refused, then closed" \
		"-ERR max number of clients reached" "$got"
	release
	check "a new client once they left: served" "+PONG" \
		"$(ping_served "$port")"
	if stop; then ok "kv_server exits 0 on SIGTERM"; else
		bad "kv_server's exit: $(cat "$tmp/kvlow.err")"; fi
else
	bad "kv_server under ulimit -n 300 did not start: $(cat "$tmp/kvlow.err")"
fi

# ---- kv_server: accept out of descriptors below maxclients -------------
if start kvfamine 300 100 examples/kv_server --workers 2; then
	out=$(python3 "$burst" --port "$port" --conns 400 2>&1)
	n=$(($(field "$out" pong) + $(field "$out" refused)))
	check "out of descriptors: 400 clients served or refused, none left" \
		"400 silent 0 other 0" \
		"$n silent $(field "$out" silent) other $(field "$out" other)"
	[ "$(field "$out" refused)" -gt 0 ] 2>/dev/null &&
		ok "out of descriptors: $out" ||
		bad "no client refused with 100 descriptors taken: $out"
	check "a new client after the burst: served" "+PONG" \
		"$(ping_served "$port")"
	check "one line when the descriptors ran out" 1 \
		"$(grep -c 'accept: Too many open files' "$tmp/kvfamine.err")"
	check "one line when accepts came back" 1 \
		"$(grep -c 'accepting again after' "$tmp/kvfamine.err")"
	stop
else
	bad "kv_server with 100 descriptors inherited did not start:" \
		"$(cat "$tmp/kvfamine.err")"
fi

# ---- kv_server's stop line: a connection open at SIGTERM is closed -------
if start kvstop 1024 0 examples/kv_server --workers 2; then
	exec 8<>"/dev/tcp/127.0.0.1/$port"
	printf 'PING\r\n' >&8
	read -r -t 30 got <&8
	check "a client connected at the stop: served" "+PONG" \
		"$(echo "$got" | tr -d '\r')"
	stop
	rc=$?
	exec 8<&-
	got=$(sed -n 's/^kv_server: stopped by [A-Za-z]*: //p' \
		"$tmp/kvstop.err")
	check "stop line: the client open at SIGTERM counted closed" \
		"1 clients accepted, 0 refused (maxclients, descriptors), 1 closed, 0 open at the stop" \
		"$got"
	check "exit status 0" 0 "$rc"
else
	bad "kv_server did not start: $(cat "$tmp/kvstop.err")"
fi

# ---- echo_server: a cap from the limit, the rest closed at once ----------
if start echolow 100 0 examples/echo_server --workers 2; then
	line=$(grep 'connections at once lowered' "$tmp/echolow.err")
	check "echo_server under ulimit -n 100 says its cap" \
		"echo_server: connections at once lowered from 10000 to 68:" \
		"$(echo "$line" | cut -d' ' -f1-9)"
	out=$(python3 "$burst" --echo --port "$port" --conns 120 2>&1)
	check "120 connections at once: 68 echoed, 52 closed, none left" \
		"pong 68 refused 52 silent 0 other 0" \
		"pong $(field "$out" pong) refused $(field "$out" refused) silent $(field "$out" silent) other $(field "$out" other)"
	stop
else
	bad "echo_server under ulimit -n 100 did not start:" \
		"$(cat "$tmp/echolow.err")"
fi
if start echofamine 100 50 examples/echo_server --workers 2; then
	out=$(python3 "$burst" --echo --port "$port" --conns 120 2>&1)
	n=$(($(field "$out" pong) + $(field "$out" refused)))
	check "echo out of descriptors: 120 echoed or closed, none left" \
		"120 silent 0 other 0" \
		"$n silent $(field "$out" silent) other $(field "$out" other)"
	check "echo: one line when the descriptors ran out" 1 \
		"$(grep -c 'accept: Too many open files' "$tmp/echofamine.err")"
	stop
else
	bad "echo_server with 50 descriptors inherited did not start:" \
		"$(cat "$tmp/echofamine.err")"
fi
finish
