#!/bin/sh
# The echo benchmark: three TCP echo servers on 127.0.0.1, one after
# another, each against the same load generator (bench/echo: closed loop,
# 64-byte requests, one in flight per connection), and a table of their
# requests per second and p50 and p99 latency, with the ratios
# actors/epoll and actors/go of each figure. The servers:
#
#   actors  examples/echo_server: a process per connection on act_io_*
#   epoll   bench/peers/epoll_echo: one thread, level-triggered epoll
#   go      bench/peers/go_echo: a goroutine per connection (GOMAXPROCS
#           left at its default)
#
#   ECHO_SECONDS=S   measured seconds of each run; default 10 (after a
#                    0.5 s warm-up)
#   ECHO_CONNS=K     connections; default 100
#   ECHO_THREADS=T   load generator threads; default 1
#   ECHO_WORKERS=N   the actors server's workers (--workers); default:
#                    ACTORS_SCHEDULERS, else the runtime's choice
#   ECHO_BUILD=NAME  use build/NAME; default release
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
secs=${ECHO_SECONDS:-10}
conns=${ECHO_CONNS:-100}
threads=${ECHO_THREADS:-1}
workers=${ECHO_WORKERS:-}
name=${ECHO_BUILD:-release}
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
	echo "bench-echo: go build $build/bench/peers/go_echo" >&2
	mkdir -p "$build/bench/peers"
	# The module has no dependencies: no proxy, no network.
	(cd bench/peers/go_echo &&
		GOCACHE=${GOCACHE:-$top/$build/go-cache} GOPROXY=off \
			go build -o "$top/$build/bench/peers/go_echo" .)
}

# start LABEL PROGRAM ARGS...: starts a server (in this shell, so that
# the trap sees server_pid) and sets port once it says "listening on
# HOST:PORT", within 5 s.
start() {
	label=$1
	shift
	"$@" >"$tmp/$label.out" 2>"$tmp/$label.err" &
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

# field JSON KEY: the number after "KEY": in bench/echo's JSON line.
field() {
	echo "$1" | sed -n "s/.*\"$2\": *\([0-9.][0-9.]*\).*/\1/p"
}

# run LABEL PROGRAM ARGS...: one server's run; sets result to "rps p50
# p99", or to nothing when it failed.
run() {
	label=$1
	result=
	start "$@" || return 0
	limit=$(awk -v s="$secs" 'BEGIN { printf "%d", s + 60 }')
	rc=0
	out=$(timeout "$limit" "$build/bench/echo" --json --port "$port" \
		--conns "$conns" --threads "$threads" --seconds "$secs" \
		2>"$tmp/$label.load") || rc=$?
	stop "$label" || rc=1
	if [ "$rc" -ne 0 ]; then
		echo "bench-echo: $label: the load failed (status $rc):" >&2
		cat "$tmp/$label.load" >&2
		return 0
	fi
	result="$(field "$out" rps) $(field "$out" p50_us)"
	result="$result $(field "$out" p99_us)"
}

# row LABEL "rps p50 p99": one line of the table.
row() {
	if [ -z "$2" ]; then
		printf '%-14s %12s %10s %10s\n' "$1" FAIL - -
		failed=1
		return
	fi
	# shellcheck disable=SC2086 # three fields
	printf '%-14s %12.1f %10.1f %10.1f\n' "$1" $2
}

# ratio LABEL "A" "B": A / B for each of the three figures.
ratio() {
	if [ -z "$2" ] || [ -z "$3" ]; then
		printf '%-14s %12s %10s %10s\n' "$1" - - -
		return
	fi
	echo "$2 $3" | awk -v l="$1" '{
		printf "%-14s %12.2f %10.2f %10.2f\n", l, $1 / $4, $2 / $5,
			$3 / $6 }'
}

check_env
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
build_all
tmp=$(mktemp -d)
wflag=
[ -z "$workers" ] || wflag="--workers $workers"
echo "bench-echo: $build, $conns connections, $threads load thread(s)," \
	"${secs} s each after 0.5 s of warm-up, 64-byte requests," \
	"$(nproc) CPUs, $(uname -r)"
# shellcheck disable=SC2086 # wflag is empty or an option and its value
run actors "$build/examples/echo_server" --port 0 $wflag
a=$result
run epoll "$build/bench/peers/epoll_echo" --port 0
e=$result
run go "$build/bench/peers/go_echo" -port 0
g=$result
printf '%-14s %12s %10s %10s\n' server req/s "p50 us" "p99 us"
row actors "$a"
row epoll "$e"
row go "$g"
ratio actors/epoll "$a" "$e"
ratio actors/go "$a" "$g"
if [ "$failed" -ne 0 ]; then
	echo "bench-echo: a run failed (see above)" >&2
	exit 1
fi
