#!/bin/sh
# An actors node against an Erlang node, as Erlang nodes talk to each
# other (issue 32): one Erlang client node does the same round trips
# with two servers on this machine's loopback, an actors node
# (bench/dist_echo) and an Erlang node (scripts/bench-dist.escript
# server), turn about within each round, so that a round's ratio is
# fair even when the machine's speed drifts. Both servers open an echo
# process per client process and answer each {1, Binary} with the same
# message, so the frames on the wire are the same.
#
# A third server in each round is the floor (bench/peers/dist_floor):
# the same round trips on one loopback connection with nothing but the
# kernel on either side, a blocking recv and send on one thread each,
# frames of the same size (the client keeps as many in flight as the
# workload has clients). No node can spend less CPU per round trip on
# this machine than it does; its CPU beside the Erlang server's shows
# how far a target below it is out of reach.
#
# Workloads (each client process does its round trips one after
# another):
#   rt1     1 client,  32-byte binaries: one round trip's latency
#   rt64    64 clients, 32-byte binaries: round trips under load
#   bytes   4 clients, 64 KiB binaries: bytes per second
#
# It prints, per workload and server, the medians over the rounds of
# round trips/s, payload MB/s (both ways) and CPU per round trip (one
# message in and one out) of the server and of the client node
# (utime+stime over the run, from /proc; the floor's server from its
# getrusage, its client not counted), then actors/erlang, the median of
# the rounds' ratios, of round trips/s and of the servers' CPU per round
# trip, and floor/erlang of the CPU. Its last line is "ratio X": X the median of the
# rounds' actors/erlang round trips/s of DIST_HEADLINE's workload.
# The targets (issue 32): X >= 1.0; the actors server's CPU per round
# trip <= 0.5x the Erlang server's.
#
#   DIST_ROUNDS=R        rounds; default 5
#   DIST_WORKLOADS="NAME:CLIENTS:SIZE:TRIPS,..."  TRIPS per client;
#                        default rt1:1:32:20000,rt64:64:32:4000,
#                        bytes:4:65536:2000 (enough round trips
#                        that the servers' CPU, counted in clock
#                        ticks of 10 ms, is read to a few percent)
#   DIST_HEADLINE=NAME   the workload of the last line; default rt64
#   DIST_BUILD=NAME      use build/NAME; default release
#   DIST_NO_BUILD=1      skip scripts/build.sh; default 0
#   DIST_SERVER=FILE     the actors server; default
#                        build/NAME/bench/dist_echo (DIST_BUILD's)
#   DIST_FLOOR=0         leave the floor out; default 1 (its program
#                        is peers/dist_floor beside the server's)
#   DIST_PIN=P           where the nodes run: "server" (the default,
#                        with two or more CPUs): both servers on the
#                        last CPU this script may use, the client node
#                        on the others, so that each server has one CPU
#                        and none shares it with its load (each runtime
#                        sizes itself to that CPU: one scheduler, one
#                        worker); "none": wherever the kernel puts them
#                        (the client's busy-waiting schedulers then take
#                        CPU from the server they load)
#   DIST_OUT=FILE        also write each run's line to FILE:
#                        "run WORKLOAD ROUND SERVER NS TRIPS BYTES
#                        SERVER_TICKS CLIENT_TICKS" (SERVER actors,
#                        erlang or floor)
#
# Needs erl and epmd (scripts/install-deps.sh installs erlang-base) and
# a build with ei (configure found erlang-dev). Exits 2 for a bad
# setting, 77 when erl is missing, 1 when a run fails.
set -eu
# DIST_SERVER is read from where the script was started
server_file=${DIST_SERVER:-}
case $server_file in '' | /*) ;; *) server_file=$PWD/$server_file ;; esac
cd "$(dirname "$0")/.."
rounds=${DIST_ROUNDS:-5}
wls=${DIST_WORKLOADS:-rt1:1:32:20000,rt64:64:32:4000,bytes:4:65536:2000}
headline=${DIST_HEADLINE:-rt64}
name=${DIST_BUILD:-release}
no_build=${DIST_NO_BUILD:-0}
floor=${DIST_FLOOR:-1}
out_file=${DIST_OUT:-}
pin=${DIST_PIN:-server}
build=build/$name

usage_error() {
	echo "bench-dist: $1" >&2
	exit 2
}

case $rounds in
'' | *[!0-9]* | 0*) usage_error "DIST_ROUNDS must be a whole number from 1, not '$rounds'" ;;
esac
[ "${#rounds}" -le 6 ] || usage_error "DIST_ROUNDS must be at most 999999, not $rounds"
case $pin in
server | none) ;;
*) usage_error "DIST_PIN must be server or none, not '$pin'" ;;
esac
case $no_build in
0 | 1) ;;
*) usage_error "DIST_NO_BUILD must be 0 or 1, not '$no_build'" ;;
esac
case $floor in
0 | 1) ;;
*) usage_error "DIST_FLOOR must be 0 or 1, not '$floor'" ;;
esac
seen=
for w in $(echo "$wls" | tr ',' ' '); do
	echo "$w" | grep -Eq '^[a-z0-9_]+:[1-9][0-9]{0,4}:[0-9]{1,8}:[1-9][0-9]{0,8}$' ||
		usage_error "DIST_WORKLOADS: '$w' is not NAME:CLIENTS:SIZE:TRIPS (CLIENTS 1-99999, SIZE 0-99999999 bytes, TRIPS 1-999999999)"
	seen="$seen ${w%%:*}"
done
[ -n "$seen" ] || usage_error "DIST_WORKLOADS is empty"
case " $seen " in
*" $headline "*) ;;
*) usage_error "DIST_HEADLINE '$headline' is not one of DIST_WORKLOADS' names:$seen" ;;
esac
for t in erl epmd escript; do
	if ! command -v "$t" >/dev/null; then
		echo "bench-dist: no $t (scripts/install-deps.sh installs erlang-base): skipped" >&2
		exit 77
	fi
done
. scripts/pin.sh
pin_split "$pin" || exit 2
host=$(hostname -s)
getent hosts "$host" >/dev/null ||
	{ echo "bench-dist: the short host name '$host' does not resolve (erl -sname needs it)" >&2; exit 1; }

if [ "$no_build" = 0 ]; then
	scripts/build.sh "$name" >/dev/null
fi
server=${server_file:-$build/bench/dist_echo}
[ -x "$server" ] || { echo "bench-dist: no $server: build it (make bench/dist_echo)" >&2; exit 1; }
# the floor is built beside the server
floor_prog=$(cd "$(dirname "$server")" && pwd)/peers/dist_floor
[ "$floor" = 0 ] || [ -x "$floor_prog" ] ||
	{ echo "bench-dist: no $floor_prog: build it (make bench/peers/dist_floor), or DIST_FLOOR=0" >&2; exit 1; }

tmp=$(mktemp -d)
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null || :; done; rm -rf "$tmp"' EXIT
cookie=bench$$

# epmd on a port of its own
for _ in 1 2 3 4 5; do
	port=$(($(od -An -N2 -tu2 /dev/urandom) % 20000 + 30000))
	epmd -port "$port" >/dev/null 2>&1 &
	pids="$pids $!"
	i=0
	until epmd -port "$port" -names >/dev/null 2>&1 || [ "$i" -gt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$!" 2>/dev/null && break
done

# wait_line FILE PATTERN: the first line of FILE matching PATTERN, within
# 30 s
wait_line() {
	i=0
	until grep -q -- "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -gt 300 ]; then
			echo "bench-dist: no '$2' in $1:" >&2
			cat "$1" >&2
			exit 1
		fi
		sleep 0.1
	done
	grep -m1 -- "$2" "$1"
}

ERL_EPMD_PORT=$port $server_on escript scripts/bench-dist.escript server \
	bench_erl "$cookie" >"$tmp/erl.out" 2>&1 &
pids="$pids $!"
erl_pid=$(wait_line "$tmp/erl.out" '^ready' | cut -d' ' -f2)
ACTORS_STATS=1 $server_on "$server" "bench_actors@$host" "$cookie" "$port" \
	>"$tmp/actors.out" 2>&1 &
pids="$pids $!"
actors_pid=$(wait_line "$tmp/actors.out" '^ready' | cut -d' ' -f3)
floor_target=
floor_said=
if [ "$floor" = 1 ]; then
	$server_on "$floor_prog" serve >"$tmp/floor.out" 2>&1 &
	pids="$pids $!"
	floor_pid=$!
	floor_port=$(wait_line "$tmp/floor.out" '^ready' | cut -d' ' -f2)
	floor_target="floor=$floor_prog=$floor_port"
	floor_said=", floor (pid $floor_pid)"
fi

echo "bench-dist: $rounds rounds of $wls; servers: actors (pid $actors_pid), erlang (pid $erl_pid)$floor_said; $(nproc) CPUs ($where)"
tck=$(getconf CLK_TCK)
ERL_EPMD_PORT=$port $load_on escript scripts/bench-dist.escript client bench_client \
	"$cookie" "$rounds" "$tck" "$wls" \
	"actors=bench_actors@$host=$actors_pid" \
	"erlang=bench_erl@$host=$erl_pid" $floor_target >"$tmp/runs" 2>&1 || {
	echo "bench-dist: the client failed:" >&2
	cat "$tmp/runs" "$tmp/actors.out" >&2
	exit 1
}
if ! grep -q '^run ' "$tmp/runs"; then
	echo "bench-dist: no runs:" >&2
	cat "$tmp/runs" >&2
	exit 1
fi
[ -z "$out_file" ] || grep '^run ' "$tmp/runs" >"$out_file"
# the actors server's own count of the client's frames, and of the
# reads and writes that moved them (ACTORS_STATS at its stop)
i=0
while kill -0 "$actors_pid" 2>/dev/null && [ "$i" -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep "^actors: dist: node bench_client@" "$tmp/actors.out" |
	sed 's/^actors: dist: /actors server: /' || true

# medians per workload and server, then the rounds' ratios
grep '^run ' "$tmp/runs" | awk -v tck="$tck" -v head="$headline" '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	w = $2; r = $3; s = $4; sec = $5 / 1e9
	if (!(w in seenw)) { seenw[w] = 1; order[++nw] = w }
	rt[w, s] = rt[w, s] " " $6 / sec
	mb[w, s] = mb[w, s] " " $7 / sec / 1e6
	scpu[w, s] = scpu[w, s] " " $8 / tck * 1e6 / $6
	ccpu[w, s] = ccpu[w, s] " " $9 / tck * 1e6 / $6
	one[w, r, s] = $6 / sec
	cpu1[w, r, s] = $8 / $6
	rounds[w, r] = 1
}
END {
	printf "%-6s %-7s %12s %9s %16s %16s\n", "work", "server",
	       "trips/s", "MB/s", "server us/trip", "client us/trip"
	split("actors erlang floor", servers, " ")
	for (i = 1; i <= nw; i++) {
		w = order[i]
		for (k = 1; k <= 3; k++) {
			s = servers[k]
			if (rt[w, s] == "")
				continue
			c = s == "floor" ? "-" : sprintf("%.2f", median(ccpu[w, s]))
			printf "%-6s %-7s %12.0f %9.2f %16.2f %16s\n", w, s,
			       median(rt[w, s]), median(mb[w, s]),
			       median(scpu[w, s]), c
		}
	}
	for (i = 1; i <= nw; i++) {
		w = order[i]; rl = ""; cl = ""; fl = ""
		for (key in rounds) {
			split(key, p, SUBSEP)
			if (p[1] != w)
				continue
			r = p[2]
			rl = rl " " one[w, r, "actors"] / one[w, r, "erlang"]
			if (cpu1[w, r, "erlang"] > 0) {
				cl = cl " " cpu1[w, r, "actors"] / cpu1[w, r, "erlang"]
				if ((w, r, "floor") in cpu1)
					fl = fl " " cpu1[w, r, "floor"] / cpu1[w, r, "erlang"]
			}
		}
		ratio[w] = median(rl)
		c = "- (no Erlang CPU ticks)"
		if (cl != "")
			c = sprintf("%.2f", median(cl))
		f = ""
		if (fl != "")
			f = sprintf(", floor/erlang %.2f", median(fl))
		printf "%s: actors/erlang round trips/s %.2f, server CPU per trip %s%s\n",
		       w, ratio[w], c, f
	}
	printf "ratio %.2f\n", ratio[head]
}'
