#!/bin/sh
# The soak: examples/kv_server under a mixed load for DURATION, its
# memory, descriptors and processes sampled all along, to show that
# they stay flat (no leak) while clients come, go and misbehave.
#
#   scripts/soak.sh DURATION      30m, 90s, 2h, or seconds
#
# The load, all at once, for the whole run (redis-benchmark is Debian's
# redis-tools):
#   steady   redis-benchmark -l, SOAK_CLIENTS clients, the SET GET INCR
#            LPUSH LPOP SADD SPOP HSET ZADD ZPOPMIN tests over SOAK_KEYS
#            random keys (and members), so that the keyspace stops
#            growing within seconds and what grows after is not data;
#   kills    a pipelined redis-benchmark (8 clients, -P 4) killed with
#            SIGKILL after 0.2 to 3 s, again and again: connections cut
#            in the middle of commands, so that each connection's
#            process ends on a failed receive or send;
#   timers   storms of DEBUG SLEEP (kv_server --enable-debug-command
#            local): 100 clients, 2,000 sleeps of 20 ms, each a timer of
#            the runtime, every 2 s, one in three killed while its
#            connections sleep; and a burst of 5,000 SETs with a 50 ms
#            TTL over a tenth of SOAK_KEYS keys, which the shards expire;
#   floods   clients that pipeline GETs of a 64 KiB value and never read
#            (scripts/soak-flood.py): 1 to 5 s of that, then a TCP
#            reset; every fourth stays past the server's 30 s limit on a
#            send that takes nothing, and must find itself closed.
#
# A sample at the start, every SOAK_INTERVAL and at the end: the time,
# the server's RSS (VmRSS of /proc/PID/status), open descriptors
# (/proc/PID/fd), live processes (INFO's kv_processes: the runtime's
# act_stats procs_alive, each a slot of the process table) and their
# peak, connected clients (the larger of two reads, before and after
# the descriptors'), commands done (total_commands_processed),
# and the load's counts so far: connections killed, timer storms,
# floods. On stdout and, as CSV, in SOAK_CSV.
#
# The verdict, at the end: RSS is flat when its median over the last
# third of the run is at most SOAK_TOLERANCE percent over its median
# from SOAK_WARMUP (the keyspace and the allocator's arenas filled) to
# the last third: medians, because RSS is a saw (a timer storm's 100
# clients come and go, kv_server's trimmer gives memory back every 10
# s) and one sample at a tooth's top or foot says nothing of a trend,
# while a leak lifts the whole last third; descriptors when the server's own (those
# open less the connected clients': a timer storm alone brings 100
# clients and takes them away), their median over the last third, are
# at most SOAK_FD_SLACK over their median between the warm-up and the
# last third (a client that comes and goes between a sample's reads
# makes one sample wrong, not the median). Then the load stops, and
# the server at rest must hold what it held before the load: as many
# processes and descriptors, exactly; and it must stop at SIGTERM with
# status 0.
# Exits 1 when the server died, or either figure grew, or the rest
# differs, or the stop failed; 0 otherwise.
#
#   SOAK_INTERVAL=S   seconds between samples; default 60
#   SOAK_WARMUP=S     the warm-up, whose samples the verdict leaves out;
#                     default a tenth of DURATION
#   SOAK_TOLERANCE=P  RSS's growth allowed, percent; default 10
#   SOAK_FD_SLACK=N   the server's own descriptors' growth allowed;
#                     default 8 (a sample's count and its INFO are a
#                     moment apart)
#   SOAK_CLIENTS=N    the steady load's clients; default 20
#   SOAK_KEYS=N       the load's keys (redis-benchmark -r); default 10000
#   SOAK_WORKERS=N    kv_server's --workers; default 2
#   SOAK_CSV=FILE     the samples; default build/soak.csv
#   SOAK_NICE=N       the niceness of the server and the load; default
#                     10, so that the soak yields to other work
#   SOAK_BUILD=NAME   use build/NAME; default release
#
# Builds first (scripts/install-deps.sh, scripts/build.sh NAME). Not
# part of make check or scripts/test.sh: it is long by design.
set -eu
cd "$(dirname "$0")/.."

usage_error() {
	echo "soak: $1" >&2
	exit 2
}

[ $# -eq 1 ] || usage_error "usage: soak.sh DURATION (30m, 90s, 2h)"
case $1 in
*[!0-9smh]* | [!0-9]* | *[smh]?*) usage_error "DURATION: '$1' is not N, Ns, Nm or Nh" ;;
*h) duration=$((${1%h} * 3600)) ;;
*m) duration=$((${1%m} * 60)) ;;
*s) duration=${1%s} ;;
*) duration=$1 ;;
esac
[ "$duration" -gt 0 ] || usage_error "DURATION: more than 0"
interval=${SOAK_INTERVAL:-60}
warmup=${SOAK_WARMUP:-$((duration / 10))}
tolerance=${SOAK_TOLERANCE:-10}
fd_slack=${SOAK_FD_SLACK:-8}
clients=${SOAK_CLIENTS:-20}
keys=${SOAK_KEYS:-10000}
workers=${SOAK_WORKERS:-2}
csv=${SOAK_CSV:-build/soak.csv}
niceness=${SOAK_NICE:-10}
name=${SOAK_BUILD:-release}
for v in "$interval" "$clients" "$workers" "$keys"; do
	case $v in
	'' | *[!0-9]* | 0*) usage_error "SOAK_INTERVAL, SOAK_CLIENTS, SOAK_WORKERS and SOAK_KEYS: 1 or more" ;;
	esac
done
for v in "$warmup" "$tolerance" "$fd_slack" "$niceness"; do
	case $v in
	'' | *[!0-9]*) usage_error "SOAK_WARMUP, SOAK_TOLERANCE, SOAK_FD_SLACK and SOAK_NICE: a count" ;;
	esac
done
build=build/$name
tmp=
server_pid=
port=
loads=

cleanup() {
	[ -z "$tmp" ] || : >"$tmp/stop"
	for p in $loads; do
		kill -KILL "$p" 2>/dev/null || true
	done
	if [ -n "$tmp" ]; then
		for f in "$tmp"/*.pid; do
			[ ! -f "$f" ] || kill -KILL "$(cat "$f")" 2>/dev/null ||
				true
		done
	fi
	for p in $loads; do
		wait "$p" 2>/dev/null || true
	done
	if [ -n "$server_pid" ]; then
		kill -KILL "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	[ -z "$tmp" ] || rm -rf "$tmp"
}

# rnd N: a random number from 0 to N - 1
rnd() {
	echo $(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % $1))
}

rss_kib() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status"
}

fds() {
	find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# info FIELD: the field of the server's INFO (set by refresh_info)
info() {
	sed -n "s/^$1:\([0-9]*\).*/\1/p" "$tmp/info"
}

refresh_info() {
	timeout 10 redis-cli -p "$port" INFO 2>/dev/null | tr -d '\r' \
		>"$tmp/info" || : >"$tmp/info"
}

count() {
	[ -f "$tmp/$1" ] && wc -l <"$tmp/$1" || echo 0
}

start_kv() {
	nice -n "$niceness" "$build/examples/kv_server" --port 0 \
		--workers "$workers" --enable-debug-command local \
		>"$tmp/kv.out" 2>"$tmp/kv.err" &
	server_pid=$!
	i=0
	while [ -z "$port" ] && [ "$i" -lt 50 ]; do
		sleep 0.1
		port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' \
			"$tmp/kv.out")
		i=$((i + 1))
	done
	[ -n "$port" ] || { cat "$tmp/kv.err" >&2; return 1; }
}

# the load's redis-benchmark, at its niceness: a command, not a
# function, so that $! of "$bench ARGS &" is redis-benchmark itself
bench=

steady_load() {
	while [ ! -e "$tmp/stop" ]; do
		$bench -c "$clients" -n 50000 -r "$keys" -d 100 -l \
			-t set,get,incr,lpush,lpop,sadd,spop,hset,zadd,zpopmin \
			>/dev/null 2>&1 &
		echo $! >"$tmp/steady.pid"
		wait $! || true
	done
}

# killer: connections killed, pipelined, in the middle of commands
killer_load() {
	while [ ! -e "$tmp/stop" ]; do
		$bench -c 8 -n 100000000 -r "$keys" -d 100 -P 4 -t set,get \
			>/dev/null 2>&1 &
		echo $! >"$tmp/killer.pid"
		ms=$((200 + $(rnd 2800)))
		sleep "$((ms / 1000)).$((ms % 1000 / 100))"
		kill -KILL $! 2>/dev/null || true
		wait $! 2>/dev/null || true
		echo 8 >>"$tmp/kills"
	done
}

timer_load() {
	n=0
	while [ ! -e "$tmp/stop" ]; do
		n=$((n + 1))
		$bench -c 100 -n 2000 DEBUG SLEEP 0.02 >/dev/null 2>&1 &
		echo $! >"$tmp/timer.pid"
		if [ $((n % 3)) -eq 0 ]; then
			sleep "0.$(rnd 10)"
			kill -KILL $! 2>/dev/null || true
			echo killed >>"$tmp/storms"
		else
			echo whole >>"$tmp/storms"
		fi
		wait $! 2>/dev/null || true
		$bench -c 10 -n 5000 -r $((keys / 10 + 1)) \
			SET soak:ttl:__rand_int__ x \
			PX 50 >/dev/null 2>&1 &
		echo $! >"$tmp/timer.pid"
		wait $! || true
		sleep 2
	done
}

flood_load() {
	n=0
	while [ ! -e "$tmp/stop" ]; do
		n=$((n + 1))
		mode=reset
		[ $((n % 4)) -ne 0 ] || mode=stall
		nice -n "$niceness" python3 scripts/soak-flood.py "$port" \
			soak:big "$mode" "$(($(rnd 5) + 1))" >>"$tmp/floods" \
			2>&1 &
		echo $! >"$tmp/flood.pid"
		wait $! || true
		sleep 1
	done
}

# sample: one line of figures, to stdout and the CSV
sample() {
	now=$(($(date +%s) - t0))
	if ! kill -0 "$server_pid" 2>/dev/null; then
		echo "soak: the server died at ${now}s:" \
			"$(tail -n 5 "$tmp/kv.err")" >&2
		died=1
		return 1
	fi
	rss=$(rss_kib "$server_pid")
	# the clients, read before and after the descriptors: the larger,
	# so that a storm that comes or goes between makes no descriptors
	# seem the server's own
	refresh_info
	conns=$(info connected_clients)
	nfd=$(fds "$server_pid")
	refresh_info
	c=$(info connected_clients)
	[ -z "$conns" ] || [ -z "$c" ] || [ "$c" -le "$conns" ] || conns=$c
	procs=$(info kv_processes)
	peak=$(info kv_processes_peak)
	cmds=$(info total_commands_processed)
	keys=$(sed -n 's/^db0:keys=\([0-9]*\).*/\1/p' "$tmp/info")
	used=$(info used_memory)
	used=${used:+$((used / 1024))}
	kills=$(awk '{ n += $1 } END { print n + 0 }' "$tmp/kills" \
		2>/dev/null || echo 0)
	storms=$(count storms)
	floods=$(count floods)
	printf '%7s %9s %9s %6s %6s %6s %6s %7s %11s %7s %6s %6s\n' \
		"$now" "$rss" "${used:--}" "$nfd" "${procs:--}" "${peak:--}" \
		"${conns:--}" "${keys:-0}" "${cmds:--}" "$kills" "$storms" \
		"$floods"
	echo "$now,$rss,${used:-},$nfd,${procs:-},${peak:-},${conns:-},${keys:-0},${cmds:-},$kills,$storms,$floods" \
		>>"$csv"
}

# rest: after the load, wait (60 s at most) for the clients to be gone,
# then the processes and descriptors, as at the start
rest() {
	i=0
	while [ "$i" -lt 600 ]; do
		refresh_info
		[ "$(info connected_clients)" != 1 ] || break
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1 # a connection's process ends after its count drops
	refresh_info
	rest_procs=$(info kv_processes)
	rest_fds=$(fds "$server_pid")
	rest_conns=$(info connected_clients)
}

verdict() {
	awk -F, -v w="$warmup" -v d="$duration" -v tol="$tolerance" \
		-v slack="$fd_slack" '
	function median(v, n,    i, j, x) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				x = v[j]; v[j] = v[j - 1]; v[j - 1] = x
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	NR == 1 { next }
	base == "" && $1 >= w { base = NR; b_t = $1; b_rss = $2; b_raw = $4 }
	base == "" { next }
	$1 < d * 2 / 3 {
		mid[++nm] = $4 - $7
		mid_rss[nm] = $2
		if ($2 > b_max) b_max = $2
	}
	$1 >= d * 2 / 3 {
		last[++k] = $4 - $7
		last_rss[k] = $2
		if ($2 > m_rss) m_rss = $2
		if ($4 > m_raw) m_raw = $4
	}
	{ t[++c] = $1; rss[c] = $2 }
	END {
		if (base == "") { print "verdict: no sample after the warm-up"
			exit 1 }
		if (!k) { print "verdict: no sample in the last third"; exit 1 }
		if (!nm) { nm = 1; mid[1] = last[1]; mid_rss[1] = last_rss[1] }
		b_fd = median(mid, nm)
		m_fd = median(last, k)
		b_med = median(mid_rss, nm)
		m_med = median(last_rss, k)
		# the least-squares slope of RSS after the warm-up, KiB a minute
		for (i = 1; i <= c; i++) { sx += t[i]; sy += rss[i] }
		for (i = 1; i <= c; i++) {
			num += (t[i] - sx / c) * (rss[i] - sy / c)
			den += (t[i] - sx / c) ^ 2
		}
		slope = den ? num / den * 60 : 0
		rss_ok = m_med <= b_med * (1 + tol / 100)
		fd_ok = m_fd <= b_fd + slack
		printf "from the warm-up (%ds) to the last third (%d" \
			" samples): RSS %d KiB (median; at most %d), %d" \
			" descriptors at first; the server'"'"'s own %d" \
			" (median)\n", b_t, nm, b_med, b_max, b_raw, b_fd
		printf "last third (%d samples): RSS %d KiB (median, %+.1f%%," \
			" allowed +%d%%; at most %d), descriptors at most %d, the" \
			" server'"'"'s own %d (median, %+d, allowed +%d)\n", k,
			m_med, (m_med - b_med) * 100 / b_med, tol, m_rss, m_raw,
			m_fd, m_fd - b_fd, slack
		printf "RSS slope after the warm-up: %+.1f KiB a minute\n", slope
		printf "verdict: RSS %s, descriptors %s\n",
			rss_ok ? "flat" : "GREW", fd_ok ? "flat" : "GREW"
		exit !(rss_ok && fd_ok)
	}' "$csv"
}

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
scripts/install-deps.sh
scripts/build.sh "$name" >&2
make -C "$build" -j2 examples/kv_server >/dev/null
tmp=$(mktemp -d)
mkdir -p "$(dirname "$csv")"
start_kv || { echo "soak: kv_server did not start" >&2; exit 1; }
bench="nice -n $niceness redis-benchmark -p $port"
# the floods' value, 64 KiB
head -c 65536 /dev/zero | tr '\0' v | redis-cli -p "$port" -x SET soak:big \
	>/dev/null
sleep 0.5 # that client's descriptor closed
refresh_info
idle_procs=$(info kv_processes)
idle_fds=$(fds "$server_pid")
echo "soak: ${duration}s, $build, kv_server --workers $workers, pid" \
	"$server_pid, port $port; load at nice $niceness: $clients steady" \
	"clients over $keys keys, kills, timer storms, floods; a sample" \
	"every ${interval}s;" \
	"$(nproc) CPUs, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "soak: idle before the load: $idle_procs processes, $idle_fds" \
	"descriptors, RSS $(rss_kib "$server_pid") KiB"
echo "elapsed_s,rss_kib,used_kib,fds,processes,processes_peak,clients,keys,commands,killed,storms,floods" \
	>"$csv"
printf '%7s %9s %9s %6s %6s %6s %6s %7s %11s %7s %6s %6s\n' elapsed \
	rss_kib used_kib fds procs peak conns keys commands killed storms \
	floods
t0=$(date +%s)
died=0
steady_load &
loads="$!"
killer_load &
loads="$loads $!"
timer_load &
loads="$loads $!"
flood_load &
loads="$loads $!"
sample || true
next=$interval
while [ "$died" -eq 0 ]; do
	now=$(($(date +%s) - t0))
	[ "$now" -lt "$duration" ] || break
	if [ "$now" -ge "$next" ]; then
		sample || break
		next=$((next + interval))
		[ "$next" -le "$duration" ] || next=$duration
		continue
	fi
	sleep 1
done
[ "$died" -ne 0 ] || sample || true
: >"$tmp/stop"
for p in $loads; do
	kill -KILL "$p" 2>/dev/null || true
done
for f in "$tmp"/*.pid; do
	[ ! -f "$f" ] || kill -KILL "$(cat "$f")" 2>/dev/null || true
done
for p in $loads; do
	wait "$p" 2>/dev/null || true
done
loads=
if [ "$died" -ne 0 ]; then
	echo "soak: FAILED: the server died" >&2
	exit 1
fi
stalls=$(grep -c '^flood stall' "$tmp/floods" || true)
closed=$(grep -c '^flood stall.*closed' "$tmp/floods" || true)
echo "load: $(awk '{ n += $1 } END { print n + 0 }' "$tmp/kills")" \
	"connections killed, $(count storms) timer storms ($(grep -c killed \
		"$tmp/storms" || true) of them killed), $(count floods) floods" \
	"($stalls held past the 30 s limit, $closed of them closed by the" \
	"server), $(info total_commands_processed) commands"
failed=0
verdict || failed=1
rest
echo "at rest: $rest_procs processes (idle before: $idle_procs)," \
	"$rest_fds descriptors (idle before: $idle_fds), $rest_conns" \
	"client(s) (the sampler's own), RSS $(rss_kib "$server_pid") KiB"
if [ "$rest_procs" != "$idle_procs" ] || [ "$rest_fds" != "$idle_fds" ]; then
	echo "soak: FAILED: the server at rest holds what it did not before" \
		"the load" >&2
	failed=1
fi
if [ "$stalls" != "$closed" ]; then
	echo "soak: FAILED: a flood held past the limit was not closed" >&2
	failed=1
fi
# and it stops as it should, at SIGTERM, within 30 s
kill -TERM "$server_pid"
(
	sleep 30
	kill -KILL "$server_pid" 2>/dev/null
) &
watchdog=$!
rc=0
wait "$server_pid" || rc=$?
server_pid=
kill "$watchdog" 2>/dev/null || true
if [ "$rc" -ne 0 ]; then
	echo "soak: FAILED: kv_server's exit at SIGTERM: status $rc:" \
		"$(tail -n 3 "$tmp/kv.err")" >&2
	failed=1
fi
[ "$failed" -eq 0 ] || exit 1
echo "soak: passed"
