#!/bin/sh
# The multicore scaling run, for a machine with many more cores than the
# 2-CPU development VMs (doc/benchmarks.md, "Multicore scaling"):
#
#   1. `actors topo` of the machine;
#   2. every benchmark at 1, 2, 4, 8 and 15 workers (scripts/bench-scaling.sh);
#   3. spawnburst and fanin with ACTORS_BIND=none and core, alternating, at
#      2, 8 and 15 workers (scripts/bench-bind.sh);
#   4. the stress programs' quick profile at 15 workers (the same commands
#      as `make stress`, with --workers 15 last);
#   5. kv_server at 1, 2, 4, 8 and 15 workers against redis-server with
#      1, 2, 4 and 8 io-threads (scripts/bench-kv-scaling.sh), when
#      redis-benchmark and redis-server are there (KV_TOOLS=DIR: carried
#      along, with LD_LIBRARY_PATH for their libraries).
#
# It uses an existing build, as it is: BENCH_BUILD=NAME (default release)
# names build/NAME, whose bench/, stress/ and tools/ programs must be
# built (`make -C build/NAME` and `make -C build/NAME stress` builds the
# stress programs without running them). A machine without the
# dependencies can run a build made with --disable-shared, with the
# shared libraries it needs in LD_LIBRARY_PATH.
#
#   DEVICE_WORKERS="1 2 4 8 15"  worker counts of step 2
#   DEVICE_BIND_WORKERS="2 8 15" worker counts of step 3
#   DEVICE_ROUNDS=3              rounds of step 3
#   DEVICE_STRESS_WORKERS=15     workers of step 4 (0: skip step 4)
#
# Each step's output goes to stdout as it comes; exit status 1 when a run
# failed.
set -u
cd "$(dirname "$0")/.."
name=${BENCH_BUILD:-release}
build=build/$name
workers=${DEVICE_WORKERS:-1 2 4 8 15}
bind_workers=${DEVICE_BIND_WORKERS:-2 8 15}
rounds=${DEVICE_ROUNDS:-3}
stress_workers=${DEVICE_STRESS_WORKERS:-15}
failed=0

step() {
	echo
	echo "== $* ($(date -u +%H:%M:%S))"
}

step "machine"
uname -a
echo "CPUs online: $(nproc)"
grep -m1 'model name' /proc/cpuinfo || true
"$build/tools/actors" topo || failed=1

step "bench-scaling, workers $workers"
BENCH_BUILD=$name BENCH_WORKERS=$workers BENCH_TIMEOUT=120 \
	scripts/bench-scaling.sh || failed=1

step "ACTORS_BIND none vs core, workers $bind_workers, $rounds rounds"
BENCH_BUILD=$name BIND_WORKERS=$bind_workers BIND_ROUNDS=$rounds \
	scripts/bench-bind.sh || failed=1

if [ "$stress_workers" != 0 ]; then
	step "stress quick profile, --workers $stress_workers"
	# make stress's runs (stress/tests.c), on every path this kernel has
	"$build/tools/actors" stress --quick --all-paths --timeout 120 \
		--workers "$stress_workers" >/tmp/bench-device-stress.$$ ||
		failed=1
	cat /tmp/bench-device-stress.$$
	echo "stress: $(grep -c '^  rerun' /tmp/bench-device-stress.$$) runs," \
		"$(grep -c '^  rerun with' /tmp/bench-device-stress.$$) failed"
	rm -f /tmp/bench-device-stress.$$
fi

step "kv_server against redis-server, workers $workers"
KV_BUILD=$name KV_SCALE_WORKERS=$workers scripts/bench-kv-scaling.sh
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || failed=1

step "done, status $failed"
exit "$failed"
