#!/bin/sh
# The kv benchmark: examples/kv_server against Debian's redis-server on
# 127.0.0.1, driven by redis-benchmark (50 clients, 3-byte values): SET
# and GET one request at a time, and GET with 16 in flight per client
# (-P 16). In rounds: each round runs the three tests against kv_server,
# then against redis-server, each server fresh. A table gives each
# server's requests per second, p99 latency and CPU per request (the
# server's utime + stime over the test, from /proc, over its requests, in
# microseconds), the median over the rounds, and kv/redis, the median of
# each round's ratio (this machine's speed drifts between rounds).
#
# Then memory: 1,000,000 keys of 100-byte values loaded into each server
# (redis-cli --pipe), DBSIZE checked, and each server's RSS before and
# after, with the ratio.
#
#   KV_ROUNDS=R     rounds; default 3
#   KV_REQUESTS=N   requests of each unpipelined test; default 200000 (the
#                   pipelined one runs 5 times as many)
#   KV_WORKERS=N    kv_server's --workers; default 1 (redis-server is one
#                   thread)
#   KV_KEYS=N       keys of the memory test; default 1000000 (0: none)
#   KV_BUILD=NAME   use build/NAME; default release
#   KV_PIN=P        "server" (the default, with two or more CPUs): both
#                   servers on the last CPU this script may use,
#                   redis-benchmark on the others (scripts/pin.sh);
#                   "none": unpinned
#
# scripts/bench-kv.sh --diff N: instead of all that, N million commands
# of the differential test (tests/kv-diff.py): one redis-server (on a
# unix socket) and one kv_server (--workers KV_WORKERS --shards
# KV_SHARDS), seeds 1, 2, ... in sequence, 1,000,000 commands each, every
# reply compared; prints the commands, seeds, mismatches and time (a
# mismatch's report as kv-diff.py prints it), and exits 1 on any
# mismatch.
#   KV_SHARDS=N     kv_server's --shards with --diff; default 3
#
# Builds first (scripts/install-deps.sh, scripts/build.sh NAME). Exits 1
# if a run failed.
set -eu
cd "$(dirname "$0")/.."
diff_m=
case ${1:-} in
--diff)
	diff_m=${2:-}
	case $diff_m in
	'' | *[!0-9]* | 0*)
		echo "usage: bench-kv.sh [--diff N], N (millions) 1 or more" >&2
		exit 2
		;;
	esac
	case ${KV_SHARDS:-3} in
	'' | *[!0-9]* | 0*)
		echo "bench-kv: KV_SHARDS: 1 or more" >&2
		exit 2
		;;
	esac
	;;
esac
shards=${KV_SHARDS:-3}
rounds=${KV_ROUNDS:-3}
requests=${KV_REQUESTS:-200000}
workers=${KV_WORKERS:-1}
keys=${KV_KEYS:-1000000}
name=${KV_BUILD:-release}
pin=${KV_PIN:-server}
build=build/$name
tmp=
server_pid=
redis_pid=
port=
failed=0

usage_error() {
	echo "bench-kv: $1" >&2
	exit 2
}

for v in "$rounds" "$requests" "$workers"; do
	case $v in
	'' | *[!0-9]* | 0*) usage_error "KV_ROUNDS, KV_REQUESTS and KV_WORKERS: 1 or more" ;;
	esac
done
case $keys in
'' | *[!0-9]*) usage_error "KV_KEYS: a count" ;;
esac
case $pin in
server | none) ;;
*) usage_error "KV_PIN: '$pin' is not server or none" ;;
esac
. scripts/pin.sh
pin_split "$pin" || exit 2

cleanup() {
	if [ -n "$redis_pid" ]; then
		kill -KILL "$redis_pid" 2>/dev/null || true
		wait "$redis_pid" 2>/dev/null || true
	fi
	if [ -n "$server_pid" ]; then
		kill -KILL "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	[ -z "$tmp" ] || rm -rf "$tmp"
}

cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

rss_kib() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status"
}

# start_kv, start_redis: a fresh server; set server_pid and port.
start_kv() {
	: >"$tmp/kv.out" # not the last round's port: the child empties it late
	# shellcheck disable=SC2086 # server_on: empty, or taskset and CPU
	$server_on "$build/examples/kv_server" --port 0 --workers "$workers" \
		>"$tmp/kv.out" 2>"$tmp/kv.err" &
	server_pid=$!
	port=
	i=0
	while [ -z "$port" ] && [ "$i" -lt 50 ]; do
		sleep 0.1
		port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' \
			"$tmp/kv.out")
		i=$((i + 1))
	done
	[ -n "$port" ] || { cat "$tmp/kv.err" >&2; return 1; }
}

start_redis() {
	# a port nothing listens on, from a range of its own
	port=$((20000 + $$ % 20000))
	while ss -Htln "sport = :$port" | grep -q .; do
		port=$((port + 1))
	done
	# shellcheck disable=SC2086
	$server_on redis-server --port "$port" --bind 127.0.0.1 --save '' \
		--appendonly no --databases 1 >"$tmp/redis.log" 2>&1 &
	server_pid=$!
	i=0
	until redis-cli -p "$port" ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 50 ] || { cat "$tmp/redis.log" >&2; return 1; }
		sleep 0.1
	done
}

stop_server() {
	kill -TERM "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=
}

# bench ROUND SERVER TEST N ARGS...: one redis-benchmark test; appends
# "ROUND SERVER TEST RPS P99_US CPU_US" (or "-" figures) to the results.
bench() {
	r=$1 srv=$2 test=$3 n=$4
	shift 4
	t0=$(cpu_ticks "$server_pid")
	# shellcheck disable=SC2086 # load_on: empty, or taskset and CPUs
	line=$($load_on redis-benchmark -p "$port" -c 50 -n "$n" -d 3 --csv "$@" \
		2>/dev/null | sed -n '2p') || line=
	t1=$(cpu_ticks "$server_pid")
	if [ -z "$line" ]; then
		echo "$r $srv $test - - -" >>"$tmp/results"
		failed=1
		return
	fi
	echo "$line" | tr -d '"' | awk -F, -v r="$r" -v srv="$srv" \
		-v test="$test" -v n="$n" -v t="$((t1 - t0))" \
		-v hz="$(getconf CLK_TCK)" \
		'{ printf "%s %s %s %s %.0f %.3f\n", r, srv, test, $2,
			$7 * 1000, t * 1e6 / hz / n }' >>"$tmp/results"
}

round() {
	for srv in kv redis; do
		if ! "start_$srv"; then
			echo "bench-kv: $srv did not start" >&2
			failed=1
			continue
		fi
		bench "$1" "$srv" SET "$requests" -t set
		bench "$1" "$srv" GET "$requests" -t get
		bench "$1" "$srv" GET-P16 "$((requests * 5))" -t get -P 16
		stop_server
	done
}

summary() {
	awk -v rounds="$rounds" '
	function median(v, n,    i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$4 == "-" { bad[$2, $3] = 1; next }
	{ for (f = 4; f <= 6; f++) fig[$2, $3, $1, f] = $f; tests[$3] = 1 }
	END {
		printf "%-8s %-6s %12s %10s %11s\n", "test", "server",
			"req/s", "p99 us", "cpu us/req"
		split("SET GET GET-P16", order, " ")
		for (k = 1; k <= 3; k++) {
			t = order[k]
			for (s = 1; s <= 3; s++) {
				srv = s == 1 ? "kv" : s == 2 ? "redis" : "kv/redis"
				line = sprintf("%-8s %-6s", t, srv)
				if (bad["kv", t] || (s > 1 && bad["redis", t])) {
					print line "   failed"
					continue
				}
				for (f = 4; f <= 6; f++) {
					n = 0
					for (r = 1; r <= rounds; r++)
						v[++n] = s == 3 ? \
						    fig["kv", t, r, f] / \
						    fig["redis", t, r, f] : \
						    fig[srv == "kv" ? "kv" : "redis",
							t, r, f]
					m = median(v, n)
					line = line sprintf(f == 4 ? (s == 3 ? \
						" %12.2f" : " %12.0f") : f == 5 ? \
						(s == 3 ? " %10.2f" : " %10.0f") : \
						(s == 3 ? " %11.2f" : " %11.3f"), m)
				}
				print line
			}
		}
	}' "$tmp/results"
}

# memory SERVER: RSS before and after KV_KEYS keys of 100 bytes.
memory() {
	"start_$1" || { failed=1; return; }
	before=$(rss_kib "$server_pid")
	redis-cli -p "$port" --pipe <"$tmp/load.resp" >"$tmp/pipe.out" 2>&1 ||
		failed=1
	n=$(redis-cli -p "$port" dbsize)
	after=$(rss_kib "$server_pid")
	echo "$1 $n $before $after" >>"$tmp/memory"
	stop_server
}

# diff_kv: a fresh kv_server from $kv_cmd; sets server_pid and port.
diff_kv() {
	: >"$tmp/kv.out"
	# shellcheck disable=SC2086 # the command line, split
	$kv_cmd >"$tmp/kv.out" 2>"$tmp/kv.err" &
	server_pid=$!
	port=
	i=0
	while [ -z "$port" ] && [ "$i" -lt 300 ]; do
		sleep 0.1
		port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' \
			"$tmp/kv.out")
		i=$((i + 1))
	done
	[ -n "$port" ] || { cat "$tmp/kv.err" >&2; return 1; }
}

# diff_run N: the differential test, N million commands (see the top).
diff_run() {
	redis-server --port 0 --unixsocket "$tmp/redis.sock" --databases 1 \
		--save '' --appendonly no --daemonize no >"$tmp/redis.log" \
		2>&1 &
	redis_pid=$!
	i=0
	until [ -S "$tmp/redis.sock" ] &&
		redis-cli -s "$tmp/redis.sock" ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 600 ] || { cat "$tmp/redis.log" >&2; return 1; }
		sleep 0.1
	done
	kv_cmd="$(pwd)/$build/examples/kv_server --port 0 --workers $workers \
--shards $shards"
	echo "bench-kv --diff: $1 million commands, $build, kv_server" \
		"--workers $workers --shards $shards, $(redis-server --version |
			cut -d' ' -f1-3), $(nproc) CPUs, $(uname -r)"
	seed=0
	mismatches=0
	done_n=0
	t0=$(date +%s.%N)
	while [ "$seed" -lt "$1" ]; do
		seed=$((seed + 1))
		if [ -z "$server_pid" ] ||
			! kill -0 "$server_pid" 2>/dev/null; then
			diff_kv || return 1
		fi
		if ! python3 tests/kv-diff.py --redis "$tmp/redis.sock" \
			--kv "$port" --seed "$seed" --commands 1000000 --quiet \
			--kv-cmd "$kv_cmd" >"$tmp/diff.out" 2>&1; then
			mismatches=$((mismatches + 1))
			cat "$tmp/diff.out"
		fi
		# its last line: "N commands, seed S, M mismatches (...)"
		n=$(tail -1 "$tmp/diff.out" |
			sed -n 's/^\([0-9][0-9]*\) commands,.*/\1/p')
		done_n=$((done_n + ${n:-0}))
	done
	t1=$(date +%s.%N)
	awk -v n="$done_n" -v s="$seed" -v bad="$mismatches" -v t0="$t0" \
		-v t1="$t1" 'BEGIN {
		printf "commands %d, seeds %d (1 to %d), mismatches %d, " \
			"time %.1f s, %.0f commands/s\n", n, s, s, bad,
			t1 - t0, n / (t1 - t0)
	}'
	kill -KILL "$redis_pid" 2>/dev/null || true
	wait "$redis_pid" 2>/dev/null || true
	[ "$mismatches" -eq 0 ]
}

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
scripts/install-deps.sh
scripts/build.sh "$name" >&2
tmp=$(mktemp -d)
if [ -n "$diff_m" ]; then
	diff_run "$diff_m" || exit 1
	exit 0
fi
echo "bench-kv: $build, kv_server --workers $workers, $(redis-server \
--version | cut -d' ' -f1-3), redis-benchmark -c 50 -d 3, $requests" \
	"requests a test ($((requests * 5)) with -P 16), $rounds round(s)," \
	"$(nproc) CPUs ($where), $(uname -r)"
r=1
while [ "$r" -le "$rounds" ]; do
	round "$r"
	r=$((r + 1))
done
summary
if [ "$keys" -gt 0 ]; then
	# SET key:N with a 100-byte value, as RESP, for redis-cli --pipe
	awk -v n="$keys" 'BEGIN {
		v = sprintf("%0100d", 0)
		for (i = 0; i < n; i++) {
			k = sprintf("key:%010d", i)
			printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$100\r\n%s\r\n",
				length(k), k, v
		}
	}' >"$tmp/load.resp"
	memory kv
	memory redis
	awk -v keys="$keys" '
	{ n[$1] = $2; b[$1] = $3; a[$1] = $4 }
	END {
		printf "\nmemory: %d keys of 100 bytes\n", keys
		for (s = 1; s <= 2; s++) {
			srv = s == 1 ? "kv" : "redis"
			printf "%-6s dbsize %d, RSS %d KiB before, %d after:" \
				" %.1f MiB, %.0f B a key\n", srv, n[srv],
				b[srv], a[srv], (a[srv] - b[srv]) / 1024,
				(a[srv] - b[srv]) * 1024 / keys
		}
		printf "kv/redis %.2f\n", (a["kv"] - b["kv"]) / \
			(a["redis"] - b["redis"])
	}' "$tmp/memory"
	for srv in kv redis; do
		grep -q "^$srv $keys " "$tmp/memory" || {
			echo "bench-kv: $srv does not hold $keys keys" >&2
			failed=1
		}
	done
fi
if [ "$failed" -ne 0 ]; then
	echo "bench-kv: a run failed (see above)" >&2
	exit 1
fi
