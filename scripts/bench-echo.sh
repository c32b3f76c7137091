#!/bin/sh
# The echo benchmark: three TCP echo servers on 127.0.0.1, one after
# another, each against the same load generator (bench/echo: closed loop,
# 64-byte requests, one in flight per connection), in rounds: each round
# runs the three, one after the other. A table per engine of the load
# generator (its --engine: io_uring, then epoll) gives each server's
# requests per second, p50 and p99 latency, CPU per request (the
# server's utime + stime over the run, from /proc, over the requests of
# the run and its 0.5 s warm-up, in microseconds: fair on any number of
# cores) and the load generator's own CPUs over its run (near
# ECHO_THREADS, the load itself was the bottleneck: no server could have
# been measured faster), the median over the rounds, and the ratios actors/epoll and
# actors/go, the median of each round's ratio (this machine's speed
# drifts between rounds). The servers:
#
#   actors  examples/echo_server: a process per connection on act_io_*
#   epoll   bench/peers/epoll_echo: one thread, level-triggered epoll
#   go      bench/peers/go_echo: a goroutine per connection (GOMAXPROCS
#           left at its default)
#
#   ECHO_SECONDS=S   measured seconds of each run; default 5 (after a
#                    0.5 s warm-up)
#   ECHO_ROUNDS=R    rounds per engine, each running the three servers
#                    one after the other; default 3
#   ECHO_CONNS=K     connections; default 100
#   ECHO_THREADS=T   load generator threads; default 1
#   ECHO_ENGINES="E ..."  the load generator's engines, a table each;
#                    default "uring epoll"
#   ECHO_WORKERS=N   the actors server's workers (--workers); default:
#                    ACTORS_SCHEDULERS, else the runtime's choice
#   ECHO_BUILD=NAME  use build/NAME; default release
#   ECHO_PIN=P       where the programs run: "server" (the default, with
#                    two or more CPUs): every server on the last CPU this
#                    script may use, the load generator on the others,
#                    so that each server has one CPU, as the epoll loop
#                    uses one, and none shares it with its load; "none":
#                    wherever the kernel puts them (the actors server's
#                    reactor then takes a CPU of the load's)
#
# Builds first: scripts/install-deps.sh --bench (golang-go), then
# scripts/build.sh NAME, then the Go server with `go build` into
# build/NAME/bench/peers/. Each server listens on an ephemeral port, which
# it prints; the script stops it with SIGTERM after its run, and kills any
# still running when it exits. Exits 1 if a run failed (a server that did
# not start, a load error, a wrong response, a lost connection).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
secs=${ECHO_SECONDS:-5}
conns=${ECHO_CONNS:-100}
threads=${ECHO_THREADS:-1}
engines=${ECHO_ENGINES:-uring epoll}
rounds=${ECHO_ROUNDS:-3}
workers=${ECHO_WORKERS:-}
name=${ECHO_BUILD:-release}
pin=${ECHO_PIN:-server}
build=build/$name
tmp=
server_pid=
port=
result=
failed=0

usage_error() {
	echo "bench-echo: $1" >&2
	exit 2
}

check_env() {
	case $secs in
	'' | *[!0-9.]* | . | *.*.*) secs=0 ;;
	esac
	awk -v s="$secs" 'BEGIN { exit !(s + 0 > 0) }' ||
		usage_error "ECHO_SECONDS must be a number of seconds above 0"
	case $conns in
	'' | *[!0-9]* | 0*) usage_error "ECHO_CONNS must be 1 or more" ;;
	esac
	case $threads in
	'' | *[!0-9]* | 0*) usage_error "ECHO_THREADS must be 1 or more" ;;
	esac
	case $workers in
	*[!0-9]* | 0*) usage_error "ECHO_WORKERS must be 1 or more" ;;
	esac
	case $rounds in
	'' | *[!0-9]* | 0*) usage_error "ECHO_ROUNDS must be 1 or more" ;;
	esac
	[ -n "$engines" ] || usage_error "ECHO_ENGINES is empty"
	case $pin in
	server | none) ;;
	*) usage_error "ECHO_PIN: '$pin' is not server or none" ;;
	esac
	for e in $engines; do
		case $e in
		uring | epoll) ;;
		*) usage_error "ECHO_ENGINES: '$e' is not uring or epoll" ;;
		esac
	done
}

cleanup() {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	[ -z "$tmp" ] || rm -rf "$tmp"
}

build_all() {
	scripts/install-deps.sh --bench
	scripts/build.sh "$name" >&2
	go_peer_build bench-echo go_echo
}

# start LABEL PROGRAM ARGS...: starts a server (in this shell, so that
# the trap sees server_pid) and sets port once it says "listening on
# HOST:PORT", within 5 s.
start() {
	label=$1
	shift
	: >"$tmp/$label.out" # not the last run's port: the child empties it late
	# shellcheck disable=SC2086 # server_on: empty, or taskset and CPU
	$server_on "$@" >"$tmp/$label.out" 2>"$tmp/$label.err" &
	server_pid=$!
	i=0
	while [ "$i" -lt 50 ]; do
		port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' \
			"$tmp/$label.out")
		[ -z "$port" ] || return 0
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	echo "bench-echo: $label server did not start:" >&2
	cat "$tmp/$label.err" >&2
	stop "$label" 2>/dev/null || true
	return 1
}

stop() {
	kill -TERM "$server_pid" 2>/dev/null || true
	status=0
	wait "$server_pid" || status=$?
	server_pid=
	if [ "$status" -ne 0 ]; then
		echo "bench-echo: $1 server exited with status $status:" >&2
		cat "$tmp/$1.err" >&2
		return 1
	fi
}

# cpu_ticks PID: the process's utime + stime, all threads, in clock ticks
# (its comm, in parentheses, may hold blanks: fields counted after it).
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# field JSON KEY: the number after "KEY": in bench/echo's JSON line.
field() {
	echo "$1" | sed -n "s/.*\"$2\": *\([0-9.][0-9.]*\).*/\1/p"
}

# run LABEL PROGRAM ARGS...: one server's run against the load of engine
# $eng; sets result to "rps p50 p99 cpu_us load_cpus", or to nothing
# when it failed.
run() {
	label=$1
	result=
	start "$@" || return 0
	limit=$(awk -v s="$secs" 'BEGIN { printf "%d", s + 60 }')
	rc=0
	t0=$(cpu_ticks "$server_pid")
	# shellcheck disable=SC2086 # load_on: empty, or taskset and CPUs
	out=$(timeout "$limit" $load_on "$build/bench/echo" --json --port "$port" \
		--conns "$conns" --threads "$threads" --seconds "$secs" \
		--engine "$eng" 2>"$tmp/$label.load") || rc=$?
	t1=$(cpu_ticks "$server_pid")
	stop "$label" || rc=1
	if [ "$rc" -ne 0 ]; then
		echo "bench-echo: $label: the load failed (status $rc):" >&2
		cat "$tmp/$label.load" >&2
		return 0
	fi
	result="$(field "$out" rps) $(field "$out" p50_us)"
	result="$result $(field "$out" p99_us)"
	result="$result $(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" \
		-v rps="$(field "$out" rps)" -v s="$secs" \
		'BEGIN { printf "%.3f", t * 1e6 / hz / (rps * (s + 0.5)) }')"
	result="$result $(field "$out" load_cpus)"
}

# summary ENGINE FILE: the table of one engine's rounds, from FILE's
# lines "ROUND SERVER RPS P50 P99 CPU LOAD" (SERVER actors, epoll or go; the
# figures "-" for a failed run) and "ROUND cpus N" (see cpus). Each
# server's figure is its median over the rounds; each ratio is the
# median of the ratios of single rounds (actors and its peer ran one
# after the other in a round, so a ratio is fair even when the machine's
# speed drifts between rounds). Then, for each round, the CPUs measured
# before it and its throughput ratios.
summary() {
	awk -v eng="$1" -v rounds="$rounds" '
	function median(v, n,    i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$2 == "cpus" { cpus[$1] = $3; next }
	$3 == "-" { bad[$2] = 1; next }
	{ for (f = 3; f <= 7; f++) fig[$2, $1, f] = $f; ok[$2, $1] = 1 }
	function row(srv,    f, r, n, v, line) {
		if (bad[srv]) {
			printf "%-14s %12s %10s %10s %11s %9s\n", srv, "FAIL",
				"-", "-", "-", "-"
			return
		}
		line = sprintf("%-14s", srv)
		for (f = 3; f <= 7; f++) {
			n = 0
			for (r = 1; r <= rounds; r++)
				v[++n] = fig[srv, r, f]
			line = line sprintf(f == 3 ? " %12.1f" : f == 6 ? \
				" %11.3f" : f == 7 ? " %9.2f" : " %10.1f",
				median(v, n))
		}
		print line
	}
	function ratio(srv,    f, r, n, v, line) {
		line = sprintf("%-14s", "actors/" srv)
		if (bad["actors"] || bad[srv]) {
			printf "%s %12s %10s %10s %11s\n", line, "-", "-", "-",
				"-"
			return
		}
		for (f = 3; f <= 6; f++) {
			n = 0
			for (r = 1; r <= rounds; r++)
				v[++n] = fig["actors", r, f] / fig[srv, r, f]
			line = line sprintf(f == 3 ? " %12.2f" : f == 6 ? \
				" %11.2f" : " %10.2f", median(v, n))
		}
		print line
	}
	END {
		printf "\n%-14s %12s %10s %10s %11s %9s\n", "load: " eng,
			"req/s", "p50 us", "p99 us", "cpu us/req", "load CPUs"
		row("actors"); row("epoll"); row("go")
		ratio("epoll"); ratio("go")
		if (rounds < 2 || bad["actors"])
			exit
		for (r = 1; r <= rounds; r++) {
			line = sprintf("round %d: CPUs %s", r, cpus[r])
			if (!bad["epoll"])
				line = line sprintf(" actors/epoll %.2f",
					fig["actors", r, 3] / fig["epoll", r, 3])
			if (!bad["go"])
				line = line sprintf(" actors/go %.2f",
					fig["actors", r, 3] / fig["go", r, 3])
			print line
		}
	}' "$2"
}

check_env
. scripts/pin.sh
. scripts/go-peer.sh
pin_split "$pin" || exit 2
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
build_all
tmp=$(mktemp -d)
wflag=
[ -z "$workers" ] || wflag="--workers $workers"
echo "bench-echo: $build, $conns connections, $threads load thread(s)," \
	"$rounds round(s) of ${secs} s each after 0.5 s of warm-up," \
	"64-byte requests, $(nproc) CPUs ($where), $(uname -r)"
# cpus: how many CPUs' worth two CPU loops get at once: the time of one
# loop alone, doubled, over the time of two side by side (2.00 when both
# CPUs are free; this VM's second CPU is sometimes much slower).
cpus() {
	t0=$(date +%s%N)
	awk 'BEGIN { for (i = 0; i < 2e7; i++); }'
	t1=$(date +%s%N)
	awk 'BEGIN { for (i = 0; i < 2e7; i++); }' &
	awk 'BEGIN { for (i = 0; i < 2e7; i++); }'
	wait $!
	t2=$(date +%s%N)
	awk -v a="$((t1 - t0))" -v b="$((t2 - t1))" \
		'BEGIN { printf "%.2f", (b > 0 ? 2 * a / b : 0) }'
}

# record ROUND SERVER: appends the last run's figures to the engine's file.
record() {
	if [ -z "$result" ]; then
		echo "$1 $2 - - - - -" >>"$tmp/$eng.txt"
		failed=1
	else
		echo "$1 $2 $result" >>"$tmp/$eng.txt"
	fi
}

for eng in $engines; do
	r=1
	while [ "$r" -le "$rounds" ]; do
		echo "$r cpus $(cpus)" >>"$tmp/$eng.txt"
		# shellcheck disable=SC2086 # wflag: empty, or option and value
		run actors "$build/examples/echo_server" --port 0 $wflag
		record "$r" actors
		run epoll "$build/bench/peers/epoll_echo" --port 0
		record "$r" epoll
		run go "$build/bench/peers/go_echo" -port 0
		record "$r" go
		r=$((r + 1))
	done
	summary "$eng" "$tmp/$eng.txt"
done
if [ "$failed" -ne 0 ]; then
	echo "bench-echo: a run failed (see above)" >&2
	exit 1
fi
