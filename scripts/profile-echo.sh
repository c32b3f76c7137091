#!/bin/sh
# profile-echo.sh - where an echo request's CPU goes, in counts per
# request that do not drift with this machine's speed: the system calls
# of the server by name (perf's syscall tracepoints), its context
# switches and CPU time, and for the actors server the reactor's loops,
# completions and worker wakes (ACTORS_STATS). The bare epoll server
# (bench/peers/epoll_echo) is measured the same way beside it. Then,
# with PROFILE_RECORD=1, `perf record` of both servers and of the load
# generator under each: the CPU of each by kind (user space, system call
# entry and exit, epoll, io_uring, sleeps, wakes and switches, and the
# rest of the kernel: the network stack's work, which every server pays
# whatever its I/O interface), and the actors server's top symbols.
#
#   PROFILE_SECONDS=S   seconds of load; default 5
#   PROFILE_CONNS=K     connections; default 100
#   PROFILE_ENGINE=E    the load's engine, epoll or uring; default epoll
#                       (a plain client, as users' are)
#   PROFILE_WORKERS=N   the actors server's workers; default 1
#   PROFILE_RECORD=1    also perf record (call graphs) of every run
#   PROFILE_BUILD=NAME  build/NAME; default release (built first)
#   PROFILE_PIN=P       server (the default): each server on the last
#                       CPU, the load on the others, as bench-echo.sh
#                       runs them (scripts/pin.sh); none: unpinned
#
# Needs perf (linux-perf) and tracefs, as root. Exits 1 if a run failed.
set -eu
cd "$(dirname "$0")/.."
secs=${PROFILE_SECONDS:-5}
conns=${PROFILE_CONNS:-100}
engine=${PROFILE_ENGINE:-epoll}
workers=${PROFILE_WORKERS:-1}
record=${PROFILE_RECORD:-0}
name=${PROFILE_BUILD:-release}
pin=${PROFILE_PIN:-server}
build=build/$name
tmp=$(mktemp -d)
server_pid=
trap '[ -z "$server_pid" ] || kill -KILL "$server_pid" 2>/dev/null || :; rm -rf "$tmp"' EXIT

command -v perf >/dev/null || { echo "profile-echo: no perf" >&2; exit 1; }
case $pin in
server | none) ;;
*) echo "profile-echo: PROFILE_PIN: '$pin' is not server or none" >&2; exit 2 ;;
esac
. scripts/pin.sh
pin_split "$pin" || exit 2
scripts/build.sh "$name" >&2

SYSCALLS="io_uring_enter futex futex_waitv epoll_wait epoll_pwait read \
write recvfrom sendto readv writev eventfd2 sched_yield nanosleep \
clock_nanosleep"
events=context-switches,cpu-migrations
for s in $SYSCALLS; do
	[ -d "/sys/kernel/tracing/events/syscalls/sys_enter_$s" ] &&
		events="$events,syscalls:sys_enter_$s"
done

start() { # LABEL PROGRAM ARGS...
	label=$1
	shift
	: >"$tmp/$label.out"
	# shellcheck disable=SC2086 # server_on: empty, or taskset and CPU
	$server_on "$@" >"$tmp/$label.out" 2>"$tmp/$label.err" &
	server_pid=$!
	i=0
	port=
	while [ -z "$port" ] && [ "$i" -lt 50 ]; do
		sleep 0.1
		port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' \
			"$tmp/$label.out")
		i=$((i + 1))
	done
	[ -n "$port" ]
}

ticks() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# profile LABEL PROGRAM ARGS...: one server under the load, perf stat'd
profile() {
	label=$1
	start "$@" || { echo "profile-echo: $label did not start" >&2; return 1; }
	perf stat -x, -e "$events" -p "$server_pid" -o "$tmp/$label.perf" &
	perf_pid=$!
	rec_pid=
	if [ "$record" = 1 ]; then
		perf record -g -o "$tmp/$label.data" -p "$server_pid" \
			>/dev/null 2>&1 &
		rec_pid=$!
	fi
	sleep 0.2
	t0=$(ticks "$server_pid")
	# shellcheck disable=SC2086 # load_on: empty, or taskset and CPUs
	$load_on "$build/bench/echo" --json --port "$port" --conns "$conns" \
		--seconds "$secs" --warmup 0 --engine "$engine" \
		>"$tmp/$label.json" 2>"$tmp/$label.load" &
	load_pid=$!
	lrec_pid=
	if [ "$record" = 1 ]; then
		perf record -o "$tmp/$label-load.data" -p "$load_pid" \
			>/dev/null 2>&1 &
		lrec_pid=$!
	fi
	wait "$load_pid" || { cat "$tmp/$label.load" >&2; return 1; }
	t1=$(ticks "$server_pid")
	kill -INT "$perf_pid"
	wait "$perf_pid" || true
	[ -z "$rec_pid" ] || { kill -INT "$rec_pid"; wait "$rec_pid" || true; }
	[ -z "$lrec_pid" ] || wait "$lrec_pid" || true
	kill -TERM "$server_pid"
	wait "$server_pid" || true
	server_pid=
	reqs=$(sed -n 's/.*"requests": *\([0-9]*\).*/\1/p' "$tmp/$label.json")
	echo "$label requests $reqs" >"$tmp/$label.counts"
	echo "$label cpu_us $(awk -v t="$((t1 - t0))" \
		-v hz="$(getconf CLK_TCK)" 'BEGIN { print t * 1e6 / hz }')" \
		>>"$tmp/$label.counts"
	# perf -x,: value,unit,event,...
	awk -F, -v l="$label" '$1 ~ /^[0-9]+$/ {
		e = $3; sub(/^syscalls:sys_enter_/, "", e); print l, e, $1 }' \
		"$tmp/$label.perf" >>"$tmp/$label.counts"
	# ACTORS_STATS: the reactor's line, and the workers' table (runs,
	# parks, sleeps summed over the workers)
	awk -v l="$label" '
	/^actors: reactor: / {
		print l, "reactor_loops", $3
		print l, "reactor_wakes", $5
		print l, "io_ops", $8
	}
	/^worker / { table = 1; next }
	table && $1 ~ /^[0-9]+$/ { runs += $4; parks += $13; sleeps += $14 }
	END {
		if (table)
			print l, "process_runs", runs
		if (table)
			print l, "worker_parks", parks
		if (table)
			print l, "worker_sleeps", sleeps
	}' "$tmp/$label.err" >>"$tmp/$label.counts"
}

profile actors env ACTORS_STATS=1 "$build/examples/echo_server" \
	--port 0 --workers "$workers"
profile epoll "$build/bench/peers/epoll_echo" --port 0
cat "$tmp/actors.counts" "$tmp/epoll.counts" | awk -v secs="$secs" \
	-v where="$where" \
	-v conns="$conns" -v eng="$engine" '
	$2 == "requests" { req[$1] = $3; next }
	{ v[$1, $2] += $3; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
	END {
		printf "per request: %d connections, %s load, %s s, %s " \
			"(actors %d requests, epoll %d)\n", conns, eng, secs,
			where, req["actors"], req["epoll"]
		printf "%-20s %12s %12s\n", "", "actors", "epoll"
		for (i = 1; i <= n; i++) {
			e = order[i]
			printf "%-20s %12.3f %12.3f\n", e == "cpu_us" ? \
				"cpu us" : e, v["actors", e] / req["actors"],
				req["epoll"] ? v["epoll", e] / req["epoll"] : 0
		}
	}'
# kinds FILE: perf.data's samples summed by kind, as "KIND PERCENT"
# lines. Sampled by the CPU clock in a VM, a sample lands where the
# kernel turns interrupts back on: finish_task_switch carries the
# switch, _raw_spin_unlock_irqrestore the locked work before it.
kinds() {
	perf report -i "$1" --no-children --sort symbol --stdio 2>/dev/null |
		awk '
	/^#/ || NF < 3 { next }
	{
		p = $1; sub("%", "", p); s = $3
		if ($2 == "[.]")
			k = "user_space"
		else if (s ~ /^(do_syscall_64|entry_SYSCALL|syscall_|exit_to_user|__x64_sys|x64_sys_call|fdget|fput|__fget|__rseq|rseq_|switch_fpu|fpregs|restore_fpregs|srso_|__x86_return_thunk)/)
			k = "syscall_entry_exit"
		else if (s ~ /^(ep_|do_epoll|__ep_)/)
			k = "epoll"
		else if (s ~ /^(io_|__io_|tctx_)/)
			k = "io_uring"
		else if (s ~ /(schedule|switch_to|finish_task_switch|try_to_wake|ttwu|pick_next|dequeue_|enqueue_task|update_curr|futex|select_task|wake_up|psi_|update_load|set_next_entity|put_prev)/)
			k = "sleep_wake_switch"
		else
			k = "network_and_other_kernel"
		t[k] += p
	}
	END { for (k in t) print k, t[k] }'
}

if [ "$record" = 1 ]; then
	for f in actors epoll actors-load epoll-load; do
		[ -f "$tmp/$f.data" ] && kinds "$tmp/$f.data" |
			sed "s/^/$f /"
	done | awk '
	{ v[$1, $2] = $3; seen[$2] = 1 }
	END {
		printf "\nCPU by kind, %% of samples: %-12s %12s %12s %12s\n",
			"actors", "epoll", "load(actors)", "load(epoll)"
		n = split("network_and_other_kernel user_space " \
			"syscall_entry_exit epoll io_uring sleep_wake_switch",
			order, " ")
		for (i = 1; i <= n; i++)
			printf "%-39s %12.1f %12.1f %12.1f %12.1f\n", order[i],
				v["actors", order[i]], v["epoll", order[i]],
				v["actors-load", order[i]],
				v["epoll-load", order[i]]
	}'
	echo
	echo "actors server, top symbols:"
	perf report -i "$tmp/actors.data" --no-children -g none --sort symbol \
		--stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
fi
