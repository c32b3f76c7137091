# SPDX-License-Identifier: MIT
# kvlib.sh - what the kv example's shell tests share (kv.sh, kv-diff.sh,
# kv-aof.sh); sourced, after `set -u`, from the build directory:
#
#   . "$tests/kvlib.sh"     (tests: the source tree's tests/)
#
# It sources lib.sh ($tmp, ok, bad, finish; no ACTORS_* inherited) and
# adds: pids, the processes to kill at exit (with $tmp's removal);
# kv_start, a kv_server on an ephemeral port; redis_start, a redis-server
# on a unix socket; check, one comparison as one line. Every wait is a
# bounded poll for a line or an answer, never a sleep of a guessed
# length.
. "$tests/lib.sh"
pids=()

kv_cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap kv_cleanup EXIT

# kv_start NAME ARGS...: examples/kv_server --port 0 ARGS, its stdout
# in $tmp/NAME.out and stderr in $tmp/NAME.err; once it says it listens
# (after the replay of its append-only file, if any: 60 s at most, or at
# once if it died) sets port and pid and returns 0.
kv_start() {
	local name=$1 i
	shift
	: >"$tmp/$name.out" # there before the child writes it
	examples/kv_server --port 0 "$@" >"$tmp/$name.out" \
		2>>"$tmp/$name.err" &
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

# redis_start SOCKET: a redis-server of one database, no persistence, on
# a unix socket (no port to choose); redis_up is yes once it answers (60
# s at most), else no.
redis_start() {
	local i
	redis-server --port 0 --unixsocket "$1" --databases 1 --save '' \
		--appendonly no --daemonize no >"$1.log" 2>&1 &
	pids+=("$!")
	redis_up=no
	for ((i = 0; i < 600; i++)); do
		if [ -S "$1" ] && redis-cli -s "$1" PING 2>/dev/null |
			grep -q PONG; then
			redis_up=yes
			return 0
		fi
		sleep 0.1
	done
	return 1
}

check() { # check NAME WANT GOT
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		bad "$1: wanted $(printf %q "$2"), got $(printf %q "$3")"
	fi
}
