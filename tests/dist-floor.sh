#!/bin/sh
# SPDX-License-Identifier: MIT
# dist-floor.sh - bench/peers/dist_floor, the floor under
# scripts/bench-dist.sh: its server answers every frame and reports its
# CPU, whatever the workload, and bad arguments get a usage error.
#
# The workloads are bench-dist's shapes, small: one frame in flight, 64
# in flight, four 64 KiB frames in flight, and sixteen 1 MB frames in
# flight, more than the loopback socket buffers hold at first: a client
# that blocked in its sends while the server blocked in its own would
# hang there (each run has a failure limit of 120 s). One server serves
# them all, one connection after another, as bench-dist's rounds do.
# Nothing is timed; each "floor NS TRIPS SERVER_NS" line must count
# CLIENTS x TRIPS round trips, with NS above 0 and SERVER_NS 0 or more.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
me=dist-floor.sh
prog=$(pwd)/bench/peers/dist_floor
server=

stop_server() {
	[ -z "$server" ] || kill "$server" 2>/dev/null || :
}
trap 'stop_server; rm -rf "$tmp"' EXIT

"$prog" serve >"$tmp/serve" 2>"$tmp/serve.err" &
server=$!
i=0
until grep -q '^ready [0-9]' "$tmp/serve" 2>/dev/null || [ "$i" -gt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
port=$(sed -n 's/^ready \([0-9]*\)$/\1/p' "$tmp/serve")
if [ -z "$port" ]; then
	bad "$me: the server did not say 'ready PORT': $(cat "$tmp/serve" "$tmp/serve.err")"
	finish
	exit
fi
ok "$me: the server listens on port $port"

for w in "1 112 200" "64 112 50" "4 65616 20" "16 1000000 5"; do
	set -- $w
	if timeout 120 "$prog" load "$port" "$@" >"$tmp/load" 2>&1; then
		rc=0
	else
		rc=$?
	fi
	line=$(cat "$tmp/load")
	if [ "$rc" != 0 ]; then
		bad "$me: load $w: exit $rc (124: it hung): $line"
	elif echo "$line" | awk -v n=$(($1 * $3)) '
		NF == 4 && $1 == "floor" && $2 > 0 && $3 == n && $4 >= 0 \
		{ ok = 1 } END { exit !ok }'; then
		ok "$me: load $w: '$line'"
	else
		bad "$me: load $w: expected 'floor NS $(($1 * $3)) SERVER_NS', got '$line'"
	fi
done
if kill -0 "$server" 2>/dev/null; then
	ok "$me: the server is still serving after four connections"
else
	bad "$me: the server has gone: $(cat "$tmp/serve.err")"
fi

# usage errors: exit 2 and a line that names what is wrong
check_usage() { # check_usage WORD ARGS...: exit 2, WORD in the line
	word=$1
	shift
	"$prog" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -q -- "$word" "$tmp/err"; then
		ok "$me: '$*': exit 2, '$(head -1 "$tmp/err")'"
	else
		bad "$me: '$*': expected exit 2 and '$word', got exit $rc: $(cat "$tmp/err")"
	fi
}
check_usage "a command is missing"
check_usage "unknown command 'op'" op
check_usage "unknown option --bogus" --bogus
check_usage "unexpected operand 'x' after serve" serve x
check_usage "FRAME is missing" load "$port" 1
check_usage "CLIENTS: bad value '0'" load "$port" 0 112 10
check_usage "FRAME: bad value '67108865'" load "$port" 1 67108865 10
check_usage "PORT: bad value '65536'" load 65536 1 112 10
check_usage "TRIPS: bad value '-1'" load "$port" 1 112 -1
# no server there: exit 1, said
"$prog" load 1 1 112 10 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "connect to the server" "$tmp/err"; then
	ok "$me: no server on port 1: exit 1, '$(head -1 "$tmp/err")'"
else
	bad "$me: no server on port 1: expected exit 1 and 'connect to the server', got exit $rc: $(cat "$tmp/err")"
fi
if "$prog" --help | grep -q "^usage: bench/peers/dist_floor serve"; then
	ok "$me: --help prints the usage"
else
	bad "$me: --help does not print the usage"
fi
finish
