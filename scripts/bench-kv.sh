#!/bin/sh
# The kv benchmark: examples/kv_server against Debian's redis-server on
# 127.0.0.1, driven by redis-benchmark (50 clients, 3-byte values): by
# default SET and GET one request at a time, and GET with 16 in flight
# per client (-P 16); KV_TESTS=default runs every test of redis-
# benchmark's own default suite too, each alone (-t). In rounds: each
# round runs the tests against kv_server, then against redis-server,
# each server fresh. A table gives each server's requests per second,
# p99 latency and CPU per request (the server's utime + stime over the
# test, from /proc, over its requests, in microseconds), the median over
# the rounds, and kv/redis, the median of each round's ratio (this
# machine's speed drifts between rounds).
#
# Then memory, for each of KV_MEMORY's types: 1,000,000 (KV_KEYS) keys
# of 100-byte values (string), fields of one hash (hash), members of one
# set (set) and of one sorted set with random integer scores (zset), as
# redis-benchmark's commands name them, loaded into each server with
# redis-cli --pipe, the count checked, and each server's RSS before and
# after, with the ratio.
#
#   KV_TESTS=LIST   tests, of SET GET GET-P16 and the default suite's
#                   PING_INLINE PING_MBULK INCR LPUSH RPUSH LPOP RPOP SADD
#                   HSET SPOP ZADD ZPOPMIN LRANGE_100 LRANGE_300
#                   LRANGE_500 LRANGE_600 MSET; "default": all of them;
#                   default "SET GET GET-P16"
#   KV_MEMORY=LIST  of string hash set zset; default all four ("": none)
#   KV_REDIS_ARGS   more redis-server arguments (--io-threads 2, say)
#   KV_SHARDS_RUN=N kv_server's --shards in the rounds; default one per
#                   worker
#   KV_ROUNDS=R     rounds; default 3
#   KV_REQUESTS=N   requests of each unpipelined test; default 200000 (the
#                   pipelined one runs 5 times as many)
#   KV_WORKERS=N    kv_server's --workers; default 1 (redis-server is one
#                   thread)
#   KV_KEYS=N       keys (fields, members) of the memory test; default
#                   1000000 (0: none)
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
tests=${KV_TESTS:-SET GET GET-P16}
[ "$tests" = default ] && tests="PING_INLINE PING_MBULK SET GET GET-P16 \
INCR LPUSH RPUSH LPOP RPOP SADD HSET SPOP ZADD ZPOPMIN LRANGE_100 LRANGE_300 \
LRANGE_500 LRANGE_600 MSET"
mem_types=${KV_MEMORY-string hash set zset}
redis_args=${KV_REDIS_ARGS:-}
shards_run=${KV_SHARDS_RUN:-}
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
		${shards_run:+--shards "$shards_run"} \
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
	# shellcheck disable=SC2086 # KV_REDIS_ARGS: split on purpose
	$server_on redis-server --port "$port" --bind 127.0.0.1 --save '' \
		--appendonly no --databases 1 $redis_args >"$tmp/redis.log" 2>&1 &
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
	# the last line: LRANGE's tests fill their list first (a line of
	# their own before theirs)
	line=$($load_on redis-benchmark -p "$port" -c 50 -n "$n" -d 3 --csv "$@" \
		2>/dev/null | sed -n '2,$p' | tail -n 1) || line=
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
		for t in $tests; do
			case $t in
			GET-P16) bench "$1" "$srv" "$t" "$((requests * 5))" \
				-t get -P 16 ;;
			*) bench "$1" "$srv" "$t" "$requests" \
				-t "$(echo "$t" | tr '[:upper:]' '[:lower:]')" ;;
			esac
		done
		stop_server
	done
}

summary() {
	awk -v rounds="$rounds" -v order_s="$tests" '
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
		printf "%-11s %-8s %12s %10s %11s\n", "test", "server",
			"req/s", "p99 us", "cpu us/req"
		nt = split(order_s, order, " ")
		for (k = 1; k <= nt; k++) {
			t = order[k]
			for (s = 1; s <= 3; s++) {
				srv = s == 1 ? "kv" : s == 2 ? "redis" : "kv/redis"
				line = sprintf("%-11s %-8s", t, srv)
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

# memory SERVER TYPE: RSS before and after the load of TYPE; appends
# "TYPE SERVER COUNT BEFORE AFTER" to the memory results.
memory() {
	"start_$1" || { failed=1; return; }
	before=$(rss_kib "$server_pid")
	redis-cli -p "$port" --pipe <"$tmp/load-$2.resp" >"$tmp/pipe.out" 2>&1 ||
		failed=1
	case $2 in
	string) n=$(redis-cli -p "$port" dbsize) ;;
	hash) n=$(redis-cli -p "$port" hlen myhash) ;;
	set) n=$(redis-cli -p "$port" scard myset) ;;
	zset) n=$(redis-cli -p "$port" zcard myzset) ;;
	esac
	after=$(rss_kib "$server_pid")
	echo "$2 $1 $n $before $after" >>"$tmp/memory"
	stop_server
}

# load TYPE: the RESP of KV_KEYS writes of TYPE, for redis-cli --pipe
# (redis-benchmark's key and member names; zset scores random integers)
load() {
	awk -v n="$keys" -v type="$1" 'function cmd(a, b, c, d) {
		printf "*%d\r\n", d == "" ? 3 : 4
		printf "$%d\r\n%s\r\n$%d\r\n%s\r\n", length(a), a,
			length(b), b
		printf "$%d\r\n%s\r\n", length(c), c
		if (d != "")
			printf "$%d\r\n%s\r\n", length(d), d
	}
	BEGIN {
		srand(1)
		v = sprintf("%0100d", 0)
		for (i = 0; i < n; i++) {
			e = sprintf("element:%d", i)
			if (type == "string")
				cmd("SET", sprintf("key:%010d", i), v)
			else if (type == "hash")
				cmd("HSET", "myhash", e, "xxx")
			else if (type == "set")
				cmd("SADD", "myset", e)
			else
				cmd("ZADD", "myzset", int(rand() * 1e9), e)
		}
	}' >"$tmp/load-$1.resp"
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
if [ "$keys" -gt 0 ] && [ -n "$mem_types" ]; then
	for type in $mem_types; do
		load "$type"
		memory kv "$type"
		memory redis "$type"
		rm -f "$tmp/load-$type.resp"
	done
	awk -v keys="$keys" '
	{ n[$1, $2] = $3; b[$1, $2] = $4; a[$1, $2] = $5; t[$1] = 1
	  order[++no] = $1 }
	END {
		printf "\nmemory: %d of each (strings: keys of 100 bytes; " \
			"hash: fields of 3; set, zset: members)\n", keys
		for (i = 1; i <= no; i += 2) {
			ty = order[i]
			for (s = 1; s <= 2; s++) {
				srv = s == 1 ? "kv" : "redis"
				printf "%-6s %-6s count %d, RSS %d KiB before, " \
					"%d after: %.1f MiB, %.0f B each\n", ty,
					srv, n[ty, srv], b[ty, srv], a[ty, srv],
					(a[ty, srv] - b[ty, srv]) / 1024,
					(a[ty, srv] - b[ty, srv]) * 1024 / keys
			}
			printf "%-6s kv/redis %.2f (RSS after: %.2f)\n", ty,
				(a[ty, "kv"] - b[ty, "kv"]) / \
				(a[ty, "redis"] - b[ty, "redis"]),
				a[ty, "kv"] / a[ty, "redis"]
		}
	}' "$tmp/memory"
	for type in $mem_types; do
		for srv in kv redis; do
			grep -q "^$type $srv $keys " "$tmp/memory" || {
				echo "bench-kv: $srv does not hold $keys of" \
					"$type" >&2
				failed=1
			}
		done
	done
fi
if [ "$failed" -ne 0 ]; then
	echo "bench-kv: a run failed (see above)" >&2
	exit 1
fi
