#!/bin/bash
# SPDX-License-Identifier: MIT
# b49f0b8-kv-emfile-silent-hang.sh - under a low RLIMIT_NOFILE, the
# clients past what kv_server's descriptors allowed hung: no reply, no
# close, no line in the log.
#
# Found by trying kv_server as a new user would (issue 33): under `ulimit
# -n 300`, 109 of 400 clients at once got nothing. The acceptor met
# EMFILE and tried again every 10 ms for as long as the clients it had
# stayed, and those it could not accept waited in the listen queue.
# Fixed in b49f0b8: kv_server lowers maxclients at start to what the
# limit leaves (a line says so), and a client past it gets "-ERR max
# number of clients reached" and a close (examples/kv/kv_server.c).
#
# Here a kv_server of 2 workers under `ulimit -n 100` gets 150 clients
# at once (scripts/kv-burst.py), every one held open until all have had
# their answer: each must get +PONG, or the error line and a close,
# within 20 s. A client with neither then is the defect (silent); the
# limit bounds a hang, it times nothing. Fails without the fix in every
# build. Needs python3, else skipped (77).
set -u
srcdir=${srcdir:-../..}
tests=$srcdir/tests
[ -f "$tests/kvlib.sh" ] || tests=$(dirname "$0")/..
burst=$tests/../scripts/kv-burst.py
. "$tests/kvlib.sh"

if ! command -v python3 >/dev/null; then
	echo "b49f0b8: no python3: skipped"
	exit 77
fi
NOFILE=100
CONNS=150

# kv_server --port 0 --workers 2 under `ulimit -n $NOFILE`; pid and port
# once it listens (60 s at most, or at once if it died)
: >"$tmp/kv.out"
bash -c 'ulimit -n "$1" && shift && exec "$@"' _ "$NOFILE" \
	examples/kv_server --port 0 --workers 2 >"$tmp/kv.out" \
	2>"$tmp/kv.err" &
pid=$!
pids+=("$pid")
port=
for ((i = 0; i < 600 && ${#port} == 0; i++)); do
	port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$tmp/kv.out")
	[ -n "$port" ] || { kill -0 "$pid" 2>/dev/null || break; sleep 0.1; }
done
if [ -z "$port" ]; then
	bad "kv_server under ulimit -n $NOFILE did not start: $(cat "$tmp/kv.err")"
	finish
	exit
fi

# "conns N pong N refused N silent N other N"
line=$(python3 "$burst" --port "$port" --conns "$CONNS" --timeout 20 2>&1)
n() { echo "$line" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"; }
answered=$(($(n pong) + $(n refused)))
if [ "$answered" = "$CONNS" ] && [ "$(n silent)" = 0 ] &&
	[ "$(n other)" = 0 ]; then
	ok "$CONNS clients at once under ulimit -n $NOFILE, each served or" \
		"refused: $line"
else
	bad "$CONNS clients at once under ulimit -n $NOFILE: wanted each" \
		"served or refused (silent: nothing in 20 s): $line;" \
		"kv_server said: $(head -c 1000 "$tmp/kv.err")"
fi
finish
