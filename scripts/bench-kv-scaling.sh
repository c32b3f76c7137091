#!/bin/sh
# kv_server on many cores against redis-server with io-threads, for the
# device run (scripts/bench-device.sh) and any machine with cores to
# spare: kv_server at each of KV_SCALE_WORKERS workers (its shards one
# per worker), redis-server at each of KV_SCALE_IO_THREADS io-threads,
# each server on CPUs of its own (ACTORS_CPUS and taskset: the workers,
# the reactor, or redis's threads) and redis-benchmark on the rest, with
# --threads and enough clients to keep them busy; SET and GET, one
# request at a time and -P 16. Prints a line per run (req/s, p99, CPU per
# request) and, for kv, each worker count's req/s over 1 worker's and over
# redis-server's best.
#
#   KV_SCALE_WORKERS="1 2 4 8 15"   kv_server's worker counts
#   KV_SCALE_IO_THREADS="1 2 4 8"   redis-server's --io-threads
#   KV_SCALE_REQUESTS=2000000       requests a test
#   KV_SCALE_CLIENTS=256            redis-benchmark's -c
#   KV_BUILD=NAME                   build/NAME (default release)
#   KV_TOOLS=DIR                    where redis-server and redis-benchmark
#                                   are when they are not on PATH (with
#                                   their libraries: LD_LIBRARY_PATH)
#
# Uses the build as it is. Exits 1 when a run failed, 77 when there is no
# redis-benchmark to drive it.
set -u
cd "$(dirname "$0")/.."
build=build/${KV_BUILD:-release}
workers=${KV_SCALE_WORKERS:-1 2 4 8 15}
iothreads=${KV_SCALE_IO_THREADS:-1 2 4 8}
n=${KV_SCALE_REQUESTS:-2000000}
clients=${KV_SCALE_CLIENTS:-256}
[ -n "${KV_TOOLS:-}" ] && PATH=$KV_TOOLS:$PATH
ncpu=$(nproc)
tmp=$(mktemp -d)
pid=
failed=0
trap 'kill -KILL $pid 2>/dev/null || :; rm -rf "$tmp"' EXIT

for tool in redis-benchmark redis-server; do
	command -v "$tool" >/dev/null || {
		echo "bench-kv-scaling: no $tool (KV_TOOLS=DIR)"
		exit 77
	}
done

cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# run NAME CPUS_USED: redis-benchmark on the CPUs after the server's
# (all of them if none is left) against $port, a line per test
run() {
	first=$2
	if [ "$first" -lt "$ncpu" ]; then
		load="taskset -c $first-$((ncpu - 1))"
		threads=$((ncpu - first))
	else
		load=
		threads=$((ncpu / 2))
	fi
	[ "$threads" -gt 16 ] && threads=16
	for p in 1 16; do
		for t in set get; do
			t0=$(cpu_ticks "$pid")
			line=$($load redis-benchmark -p "$port" -c "$clients" \
				-n "$n" -d 3 -P "$p" --threads "$threads" -t "$t" \
				--csv 2>/dev/null | sed -n '2p')
			t1=$(cpu_ticks "$pid")
			if [ -z "$line" ]; then
				echo "$1 $t-P$p failed"
				failed=1
				continue
			fi
			echo "$line" | tr -d '"' | awk -F, -v s="$1" -v t="$t" \
				-v p="$p" -v c="$((t1 - t0))" \
				-v hz="$(getconf CLK_TCK)" -v n="$n" \
				-v th="$threads" '{ printf "%s %s-P%s req/s %.0f " \
				"p99_us %.0f cpu_us %.3f (load: %d threads)\n",
				s, toupper(t), p, $2, $7 * 1000,
				c * 1e6 / hz / n, th }'
		done
	done
}

wait_port() {
	i=0
	until redis-cli -p "$port" ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || return 1
		sleep 0.1
	done
}

echo "bench-kv-scaling: $ncpu CPUs, $build, $(redis-server --version |
	cut -d' ' -f1-3), $n requests a test, -c $clients"
for w in $workers; do
	[ $((w + 1)) -le "$ncpu" ] || continue
	port=$((30000 + w))
	# the workers on CPUs 0..w-1, the reactor on CPU w
	ACTORS_CPUS=0-$w taskset -c 0-$w "$build/examples/kv_server" \
		--port "$port" --workers "$w" >"$tmp/kv.out" 2>&1 &
	pid=$!
	wait_port || { echo "kv $w: did not start"; failed=1; continue; }
	run "kv-$w" $((w + 1)) | tee -a "$tmp/results"
	kill "$pid"
	wait "$pid" 2>/dev/null
done
for t in $iothreads; do
	[ "$t" -le "$ncpu" ] || continue
	port=$((31000 + t))
	taskset -c 0-$((t - 1)) redis-server --port "$port" --save '' \
		--appendonly no --io-threads "$t" --io-threads-do-reads yes \
		>"$tmp/redis.out" 2>&1 &
	pid=$!
	wait_port || { echo "redis $t: did not start"; failed=1; continue; }
	run "redis-$t" "$t" | tee -a "$tmp/results"
	kill "$pid"
	wait "$pid" 2>/dev/null
done
# kv's scaling: req/s over its 1 worker's, and over redis's best
echo
echo "kv req/s over 1 worker, over the best of redis-server:"
awk '{ split($1, a, "-"); v[a[1], a[2], $2] = $4
	if (a[1] == "redis" && $4 > best[$2]) best[$2] = $4
	if (a[1] == "kv") { ws[a[2]] = 1; ts[$2] = 1 } }
END {
	for (t in ts)
		for (w in ws)
			if (v["kv", 1, t] && best[t])
				printf "  %-8s %2d workers: %.2fx, %.2fx\n", t, w,
					v["kv", w, t] / v["kv", 1, t],
					v["kv", w, t] / best[t]
}' "$tmp/results" | sort -k1,1 -k2n
exit "$failed"
