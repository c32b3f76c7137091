#!/bin/sh
# `actors topo` against golden files (tests/topo/NAME.txt and NAME.json):
# the plans of machines that are not this one (hwloc synthetic
# descriptions, an XML file, simulated cgroups), under each bind policy,
# the environment and the options that beat it; then the errors, each of
# which must exit 2 with one line on stderr and nothing on stdout. Every
# golden file was checked by hand against the rules of lib/affinity/plan.h
# (doc/topology.md): after a change, `TOPO_UPDATE=1 tests/topo.sh` (from
# the build directory) rewrites them, and `git diff tests/topo/` is what
# must be reviewed. Run by `make check` from the build directory. Prints
# one line per check and ends with "N passed, N failed"
# (scripts/summary.sh counts that).
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
actors=$(pwd)/tools/actors # make check runs in the build directory
golden=$src/tests/topo

# The caller's own settings must not leak into the plans: tests/lib.sh
# unset every ACTORS_* variable.

SERVER='pack:2 numa:2 core:16 pu:2'    # 2 sockets, 4 nodes, 64 cores, SMT2
LAPTOP='pack:1 l3:1 core:8 pu:1'       # 8 cores, one L3, no SMT

# Simulated cgroups: a container given 4 cores (8 threads) of the server
# with no time limit, and one limited to 2.5 CPUs of time.
mkdir "$tmp/cpuset" "$tmp/quota"
echo "4-7,12-15" >"$tmp/cpuset/cpuset.cpus.effective"
echo "max 100000" >"$tmp/cpuset/cpu.max"
echo "250000 100000" >"$tmp/quota/cpu.max"
# The XML file is named relative to $tmp, where the tool runs, so that
# the source line of the report is the same in every build directory.
cp "$golden/2x12-smt2.xml" "$tmp/"

has_json=false
command -v python3 >/dev/null 2>&1 && has_json=true

# run ENV ARGS...: the tool in $tmp with ENV ("-" for none: a list of
# VAR=VALUE words); stdout in $tmp/out, stderr in $tmp/err, status in rc.
run() {
	envs=$1
	shift
	rc=0
	[ "$envs" = - ] && envs=
	# shellcheck disable=SC2086 # the assignments, split on purpose
	(cd "$tmp" && env $envs "$actors" topo "$@") >"$tmp/out" \
		2>"$tmp/err" || rc=$?
}

# plan NAME ENV ARGS...: text and --json against NAME.txt and NAME.json.
plan() {
	name=$1
	envs=$2
	shift 2
	for form in txt json; do
		if [ $form = json ]; then
			run "$envs" "$@" --json
		else
			run "$envs" "$@"
		fi
		what="$name.$form: ${envs:+$envs }topo $*"
		if [ "$rc" -ne 0 ] || [ -s "$tmp/err" ]; then
			bad "$what: status $rc: $(cat "$tmp/err")"
			continue
		fi
		if [ $form = json ] && $has_json &&
			! python3 -m json.tool "$tmp/out" >/dev/null; then
			bad "$what: not valid JSON"
			continue
		fi
		if [ -n "${TOPO_UPDATE:-}" ]; then
			cp "$tmp/out" "$golden/$name.$form"
			ok "$what: golden file written, review it"
		elif diff -u "$golden/$name.$form" "$tmp/out" >"$tmp/diff"; then
			ok "$what"
		else
			bad "$what: differs from tests/topo/$name.$form:"
			cat "$tmp/diff"
		fi
	done
}

plan server - --synthetic "$SERVER"
plan server-spread - --synthetic "$SERVER" --bind spread
plan server-compact - --synthetic "$SERVER" --bind compact
plan server-numa - --synthetic "$SERVER" --bind numa
plan server-pu - --synthetic "$SERVER" --bind pu
plan server-none ACTORS_BIND=none --synthetic "$SERVER"
plan laptop - --synthetic "$LAPTOP"
plan container - --synthetic "$SERVER" --cgroup cpuset
plan laptop-quota - --synthetic "$LAPTOP" --cgroup quota
plan xml - --xml 2x12-smt2.xml
plan xml-compact - --xml 2x12-smt2.xml --bind compact
# The environment, as act_main reads it.
envs="ACTORS_SCHEDULERS=8 ACTORS_BIND=spread ACTORS_CPUS=0-31,64-95"
plan server-env "$envs ACTORS_REACTOR_CPU=none" --synthetic "$SERVER"
# The options are act_config fields: they beat the environment.
envs="ACTORS_SCHEDULERS=100 ACTORS_BIND=pu ACTORS_REACTOR_CPU=none"
plan server-options "$envs ACTORS_CPUS=0-127" --synthetic "$SERVER" \
	--workers 4 --bind core --cpus 96-111 --reactor-cpu 110
# More workers than CPUs: shared CPUs, no CPU left for the reactor.
plan laptop-over - --synthetic "$LAPTOP" --workers 12 --steal all
# Several runtimes on one host: the usable cores split along nodes and
# shared caches (lib/affinity/instances.h), each share's settings and
# plan; within a container's cpuset; under the environment's bind.
plan server-instances4 - --synthetic "$SERVER" --instances 4
plan server-instances3 - --synthetic "$SERVER" --instances 3
plan server-l3-instances6 - --synthetic 'pack:2 numa:2 l3:2 core:8 pu:2' \
	--instances 6
plan laptop-instances3 - --synthetic "$LAPTOP" --instances 3
plan container-instances2 - --synthetic "$SERVER" --cgroup cpuset \
	--instances 2
plan server-instances2-pu ACTORS_BIND=pu --synthetic "$SERVER" --instances 2

# fails ENV WANT ARGS...: status 2, nothing on stdout, and exactly one
# line on stderr, which starts with "actors: " and contains WANT.
fails() {
	envs=$1
	want=$2
	shift 2
	run "$envs" "$@"
	what="${envs:+$envs }topo $*"
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$lines" -eq 1 ] &&
		grep -q '^actors: ' "$tmp/err" &&
		grep -qF -- "$want" "$tmp/err"; then
		ok "$what: status 2: $(cat "$tmp/err")"
	else
		bad "$what: status $rc, $lines line(s), want 2 and one line" \
			"with '$want': $(cat "$tmp/err")"
	fi
}

fails - 'bad hwloc synthetic description "pack:2 bogus:3"' \
	--synthetic 'pack:2 bogus:3'
fails - 'cannot read hwloc XML file "missing.xml"' --xml missing.xml
# 21 bytes that crash hwloc 2.9's XML importer (tests/fuzz/fuzz_topo found
# them): the tool loads a file in a child first, and says so
printf '<topologyversion="2.0' >"$tmp/crash.xml"
fails - "hwloc crashed reading the XML file \"$tmp/crash.xml\"" \
	--xml "$tmp/crash.xml"
# hwloc takes a file whose hardware threads are not the CPUs its cpusets
# name (their numbers moved past them; the topo fuzz target found it):
# nothing to run on, said so, not a plan of 0 cores
sed 's/\(type="PU" os_index="\)\([0-9]*\)"/\19\2"/' \
	"$src/tests/topo/2x12-smt2.xml" >"$tmp/moved.xml"
fails - 'none of its hardware threads is among the CPUs 0-47' \
	--xml "$tmp/moved.xml"
fails ACTORS_BIND=bogus 'ACTORS_BIND="bogus"' --synthetic "$SERVER"
fails ACTORS_CPUS=0-3,200 'CPU 200 is not in the allowed set 0-127' \
	--synthetic "$SERVER"
fails ACTORS_CPUS=0-7 'CPU 0 is not in the allowed set 4-7,12-15' \
	--synthetic "$SERVER" --cgroup cpuset
fails ACTORS_CPUS=7-3 'ACTORS_CPUS="7-3"' --synthetic "$SERVER"
fails - 'CPU 128 is not in the allowed set 0-127' --synthetic "$SERVER" \
	--cpus 120-128
fails - 'CPU 200 is not one this process may use' --synthetic "$SERVER" \
	--reactor-cpu 200
fails ACTORS_REACTOR_CPU=200 'CPU 200 is not one this process may use' \
	--synthetic "$SERVER"
fails ACTORS_REACTOR_CPU=any 'ACTORS_REACTOR_CPU="any"' \
	--synthetic "$SERVER"
fails ACTORS_SCHEDULERS=0 'ACTORS_SCHEDULERS="0"' --synthetic "$SERVER"
fails ACTORS_SCHEDULERS=1025 'ACTORS_SCHEDULERS="1025"' \
	--synthetic "$SERVER"
fails - '65 instances: each needs a core of its own, and 64 usable cores' \
	--synthetic "$SERVER" --instances 65
fails ACTORS_CPUS=4-7 '3 instances: each needs a core of its own, and 2' \
	--synthetic "$SERVER" --instances 3

# Usage errors: status 2, the reason first, nothing on stdout.
for args in "--bogus" "--xml" "--workers 0" "--workers 1025" "--bind x" \
	"--reactor-cpu -1" "--steal 1" "--cgroup nodir" "extra" \
	"--synthetic x --xml y" "--instances 0" "--instances 1025" \
	"--instances 2 --workers 3" "--instances 2 --reactor-cpu 1"; do
	# shellcheck disable=SC2086 # the options, split on purpose
	run - $args
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] &&
		head -n 1 "$tmp/err" | grep -q '^actors topo: '; then
		ok "topo $args: usage, status 2: $(head -n 1 "$tmp/err")"
	else
		bad "topo $args: status $rc: $(cat "$tmp/err")"
	fi
done

run - --help
if [ "$rc" -eq 0 ] && grep -q '^usage: actors topo' "$tmp/out"; then
	ok "topo --help: usage on stdout, status 0"
else
	bad "topo --help: status $rc: $(cat "$tmp/out" "$tmp/err")"
fi

# This machine: not golden, but it must work and be valid JSON.
run -
if [ "$rc" -eq 0 ] && grep -q '^topology: this machine' "$tmp/out"; then
	ok "topo on this machine: $(grep '^plan: ' "$tmp/out")"
else
	bad "topo on this machine: status $rc: $(cat "$tmp/err")"
fi
run - --json
if [ "$rc" -eq 0 ] && { ! $has_json ||
	python3 -m json.tool "$tmp/out" >/dev/null; }; then
	ok "topo --json on this machine"
else
	bad "topo --json on this machine: status $rc: $(cat "$tmp/err")"
fi
# ... with the kernel paths a runtime would take here, every one named
if $has_json && python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["paths"]
assert sorted(p) == ["doorbell", "guard", "numa", "park", "ring"], p
assert all(p.values()), p' "$tmp/out"; then
	ok "topo --json on this machine: paths park, doorbell, ring, guard, numa"
elif $has_json; then
	bad "topo --json on this machine: no paths: $(cat "$tmp/out")"
fi
run -
n=$(sed -n '/^kernel paths (this machine, probed now):$/,$p' "$tmp/out" |
	grep -cE '^  (park|doorbell|ring|guard|numa) ')
if [ "$n" -eq 5 ]; then
	ok "topo on this machine: 5 kernel paths"
else
	bad "topo on this machine: $n kernel paths: $(cat "$tmp/out")"
fi
# a fallback forced is named as such
run ACT_TEST_RING=none
if grep -q '^  ring      none (io_uring is off' "$tmp/out" &&
	grep -q '^  doorbell  FUTEX_WAIT (no ring)' "$tmp/out"; then
	ok "topo with ACT_TEST_RING=none: ring none, doorbell FUTEX_WAIT"
else
	bad "topo with ACT_TEST_RING=none: $(tail -n 6 "$tmp/out")"
fi
run ACT_TEST_RING=eventfd
if grep -q '^  ring      none (io_uring is unavailable' "$tmp/out"; then
	# no ring to read an eventfd in (qemu-user, a kernel without it)
	echo "SKIP: topo with ACT_TEST_RING=eventfd (no io_uring)"
elif grep -q '^  doorbell  eventfd read in the ring' "$tmp/out"; then
	ok "topo with ACT_TEST_RING=eventfd: doorbell eventfd"
else
	bad "topo with ACT_TEST_RING=eventfd: $(tail -n 6 "$tmp/out")"
fi
# another machine's plan: no paths, they are this kernel's
run - --synthetic 'pack:1 core:4 pu:1'
if [ "$rc" -eq 0 ] && ! grep -q '^kernel paths' "$tmp/out"; then
	ok "topo --synthetic: no kernel paths"
else
	bad "topo --synthetic: status $rc: $(tail -n 6 "$tmp/out")"
fi

finish
