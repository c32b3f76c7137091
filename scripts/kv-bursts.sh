#!/bin/sh
# SPDX-License-Identifier: MIT
# kv-bursts.sh - memory after bursts of clients: examples/kv_server and
# redis-server each take BURSTS bursts (default 10) of 2,000 to 4,000
# clients at once, each client connecting, sending PING, reading +PONG,
# then all closing (scripts/kv-burst.py); after each burst, the server's
# RSS (VmRSS of /proc/PID/status) when the clients have gone, and again
# KV_BURSTS_SETTLE seconds later, when the server has been idle that
# long. One server at a time, the same bursts for both.
#
#   scripts/kv-bursts.sh [BURSTS]
#
#   KV_BURSTS_SETTLE=S    seconds between a burst and its second sample;
#                         default 3
#   KV_BURSTS_BUILD=NAME  use build/NAME; default release
#   KV_BURSTS_KV=PATH     the kv_server to measure; default
#                         build/NAME/examples/kv_server (another build's,
#                         to compare)
#   KV_BURSTS_WORKERS=N   kv_server's --workers; default the runtime's
#
# Prints a line per burst and server as it goes, then a table in
# Markdown (RSS in MiB), as doc/benchmarks.md "Bursts" has it.
# Builds first (scripts/build.sh NAME); needs python3 and redis-server
# (Debian's redis-server), and raises its own RLIMIT_NOFILE to 16384 if
# the hard limit allows (each burst's clients are this shell's children).
set -eu
cd "$(dirname "$0")/.."
bursts=${1:-10}
settle=${KV_BURSTS_SETTLE:-3}
build=${KV_BURSTS_BUILD:-release}
workers=${KV_BURSTS_WORKERS:-}
case $bursts in '' | *[!0-9]*) echo "kv-bursts: BURSTS: a count" >&2; exit 2 ;; esac
command -v redis-server >/dev/null || {
	echo "kv-bursts: no redis-server (Debian's redis-server)" >&2
	exit 1
}
if [ -z "${KV_BURSTS_KV:-}" ]; then
	scripts/build.sh "$build" >/dev/null
	KV_BURSTS_KV=build/$build/examples/kv_server
fi
ulimit -n 16384 2>/dev/null || ulimit -n "$(ulimit -Hn)"
tmp=$(mktemp -d)
server=
trap '[ -z "$server" ] || kill -KILL "$server" 2>/dev/null || :; rm -rf "$tmp"' EXIT

# clients_of I: burst I's, 2,000, 3,000, 4,000, 2,500, 3,500, again
clients_of() {
	case $((($1 - 1) % 5)) in
	0) echo 2000 ;; 1) echo 3000 ;; 2) echo 4000 ;; 3) echo 2500 ;;
	*) echo 3500 ;;
	esac
}

rss_mib() { # the server's VmRSS, MiB with one decimal
	awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$server/status"
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_up PORT: until a PING is answered (60 s at most)
wait_up() {
	i=0
	while [ "$i" -lt 600 ]; do
		if python3 scripts/kv-burst.py --port "$1" --conns 1 \
			--timeout 5 >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "kv-bursts: the server on port $1 never answered" >&2
	exit 1
}

# run NAME: the bursts against the server started as $server on $port;
# the samples in $tmp/NAME, "burst clients at_once settled" a line
run() {
	: >"$tmp/$1"
	wait_up "$port"
	echo "$1: $(rss_mib) MiB at rest"
	echo "0 0 $(rss_mib) $(rss_mib)" >>"$tmp/$1"
	b=1
	while [ "$b" -le "$bursts" ]; do
		n=$(clients_of "$b")
		out=$(python3 scripts/kv-burst.py --port "$port" --conns "$n" \
			--timeout 60) || {
			echo "kv-bursts: $1, burst $b: $out" >&2
			exit 1
		}
		now=$(rss_mib)
		sleep "$settle"
		later=$(rss_mib)
		echo "$1: burst $b, $out: $now MiB, $later MiB ${settle} s later"
		echo "$b $n $now $later" >>"$tmp/$1"
		b=$((b + 1))
	done
	kill -TERM "$server"
	wait "$server" || true
	server=
}

port=$(free_port)
# shellcheck disable=SC2086
"$KV_BURSTS_KV" --port "$port" ${workers:+--workers $workers} \
	>"$tmp/kv.out" 2>"$tmp/kv.err" &
server=$!
run kv
port=$(free_port)
redis-server --port "$port" --save '' --appendonly no \
	>"$tmp/redis.log" 2>&1 &
server=$!
run redis

echo
echo "| burst | clients | kv_server | kv_server, ${settle} s later | redis-server | redis-server, ${settle} s later |"
echo "|---|---|---|---|---|---|"
paste -d' ' "$tmp/kv" "$tmp/redis" | while read -r b n kn kl _ _ rn rl; do
	[ "$b" = 0 ] && b="at rest" && n=0
	echo "| $b | $n | $kn | $kl | $rn | $rl |"
done
