#!/bin/sh
# Cross-build libactors for AArch64 and run its tests under qemu-user.
#
# build/aarch64 is configured --host=aarch64-linux-gnu --enable-werror
# against the arm64 -dev packages of Debian multiarch (installed by
# scripts/install-deps.sh --aarch64, with the cross compiler and
# qemu-user), and builds the library (shared and static), the actors tool,
# the examples, the benchmarks and every Check program. Then, under
# qemu-aarch64:
#
#   - every Check program, case by case, on this machine's CPUs and again
#     on tests/anycount.sh's simulated 8-core, 16-thread machine (7
#     workers), and tests/fallback.sh's NUMA runs (fallback.sh --list);
#   - tests/topo.sh (the actors tool's plans against the goldens) and
#     tests/supervisor.sh (the supervisor example), which run the build's
#     programs through shims in build/aarch64/qemu/;
#   - tests/arch_smoke.c (each process keeps its FPCR; 10,000 spawns
#     return their argument; a runaway recursion is reported by pid with
#     status 134) and examples/hello.
#
# qemu-user has no io_uring, no futex_waitv and no NUMA system calls, so
# the runtime runs on its fallbacks (ACTORS_STATS's paths line: park and
# doorbell FUTEX_WAIT, ring none, one NUMA home); the I/O cases say
# "SKIP: ... (no io_uring)" themselves. qemu is pinned to one CPU: on an
# x86-64 host qemu 7.2 lets a store-release (STLR) pass a later
# load-acquire (LDAR), which AArch64 forbids, so the runtime's seq_cst
# Dekker pairs lose wakeups when qemu's threads run on two CPUs at once
# (test_migrate and test_links hang there); on one CPU the host orders
# them. The cases qemu-user cannot run at all are listed in NOT_UNDER_QEMU
# with the reason, and the programs' SKIP lines are listed too: neither
# counts as a pass. Ends with "N passed, N failed, N not run" over the
# cases and checks; exits 1 if any failed, or if a listed case passed
# (the list is then out of date).
#
# Not part of scripts/test.sh: it checks an architecture the CI machines
# are not. QEMU_CPU picks qemu's CPU (default: the first one allowed).
set -u
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)

# Cases that cannot run under qemu-user: program, case ("*": every case,
# the program is not run), why.
NOT_UNDER_QEMU='
test_seccomp * qemu-user refuses seccomp filters (prctl(PR_SET_SECCOMP) fails: a filter would apply to qemu'"'"'s own system calls)
test_invariants test_I10_no_syscall_busy_fast_path it traces the workers with ptrace, which qemu-user does not offer the programs it runs
test_invariants test_I10_no_syscall_foreign_send it traces the workers with ptrace, which qemu-user does not offer the programs it runs
test_spawn test_out_of_memory it needs RLIMIT_AS, which qemu-user does not enforce (it would bind qemu itself)
test_stack famine_reaches_every_cache it needs RLIMIT_AS, which qemu-user does not enforce (it would bind qemu itself)
test_numa off_binds_nothing it calls get_mempolicy, which qemu-user does not have (ENOSYS)
'
# make check's scripts not run here, and why.
SCRIPTS_NOT_RUN='
tests/echo.sh the echo server'"'"'s I/O is io_uring, which qemu-user does not have
tests/kv.sh the kv server'"'"'s I/O is io_uring, which qemu-user does not have
tests/fallback.sh its ACT_TEST_RING=eventfd and plain runs need io_uring; its ACT_TEST_FUTEX_WAIT=1 and ACT_TEST_RING=none runs are what every run here is (its NUMA runs are run above)
model/check.sh the spin models are checked by make check on the build machine; no AArch64 code is in them
'
ANYCOUNT_TOPO="pack:2 numa:1 l3:1 core:4 pu:2" # tests/anycount.sh's default

scripts/install-deps.sh --aarch64 || exit 1
# -no-install: programs linked with the uninstalled libactors.so are the
# programs themselves, with a RUNPATH to it, instead of libtool's wrapper
# scripts, which qemu cannot run.
MAKEFLAGS="LDFLAGS=-no-install" scripts/build.sh aarch64 \
	--host=aarch64-linux-gnu --enable-werror PKG_CONFIG=pkg-config \
	PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig ||
	exit 1
out=$top/build/aarch64
(cd "$out" && MAKEFLAGS="LDFLAGS=-no-install" make -j"$(nproc)" check TESTS= &&
	MAKEFLAGS="LDFLAGS=-no-install" make tests/arch_smoke) >/dev/null ||
	exit 1

cpu=${QEMU_CPU:-$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')}
export CK_TIMEOUT_MULTIPLIER=4 # qemu runs the tests 5-20 times slower
passed=0
failed=0
notrun=0
skipped=""

# count OK BAD NO: add to the totals
count() {
	passed=$((passed + $1))
	failed=$((failed + $2))
	notrun=$((notrun + $3))
}

# cases PROG < Check's verbose output: prints "skip ...", "say ..." and
# "sum OK BAD NO" lines. A case NOT_UNDER_QEMU lists is not run (its
# result is not counted) unless it passed: then the list is stale, and
# that is a failure.
cases() {
	awk -v prog="$1" -v list="$NOT_UNDER_QEMU" '
	BEGIN {
		n = split(list, rows, "\n")
		for (i = 1; i <= n; i++) {
			split(rows[i], f, " ")
			if (f[1] == prog)
				listed[f[2]] = 1
		}
	}
	/^SKIP: / { print "skip " prog ": " substr($0, 7); next }
	/^[0-9]+%: Checks: / { summary = 1 }
	match($0, /:[0-9]+:[PFE]:[^:]*:[^:]*:[0-9]+:/) {
		split(substr($0, RSTART + 1), f, ":")
		if (f[4] in listed) {
			if (f[2] != "P")
				no++
			else {
				bad++
				print "say   " f[4] ": passed, but NOT_UNDER_QEMU lists it"
			}
		} else if (f[2] == "P")
			ok++
		else {
			bad++
			print "say   " $0
		}
	}
	END {
		if (!summary) {
			bad++
			print "say   no Check summary: the program crashed or hung"
		}
		printf "sum %d %d %d\n", ok, bad, no
	}'
}

# run_prog LABEL PROG [VAR=VALUE]: one Check program under qemu, by case
log=$out/check-case.log
run_prog() {
	label=$1
	prog=$2
	shift 2
	if echo "$NOT_UNDER_QEMU" | grep -q "^$prog \* "; then
		echo "  $label: not run"
		notrun=$((notrun + 1))
		return
	fi
	# every case's result, passes too, goes to Check's log file
	rm -f "$log"
	txt=$(cd "$out" && env "$@" CK_LOG_FILE_NAME="$log" timeout 1800 \
		taskset -c "$cpu" qemu-aarch64 "tests/$prog" 2>&1 </dev/null)
	res=$( { echo "$txt" | grep '^SKIP: '; cat "$log"; } 2>/dev/null |
		cases "$prog")
	echo "$res" | sed -n 's/^say //p'
	echo "$res" | grep -q '^say   no Check summary' &&
		echo "$txt" | tail -n 5 | sed 's/^/    /'
	sk=$(echo "$res" | sed -n 's/^skip //p')
	[ -z "$sk" ] || skipped="$skipped
$sk"
	read -r ok bad no <<EOF
$(echo "$res" | sed -n 's/^sum //p')
EOF
	echo "  $label: $ok passed, $bad failed, $no not run"
	count "$ok" "$bad" "$no"
}

# run_all LABEL [VAR=VALUE]: every Check program
run_all() {
	echo "aarch64: the Check programs, $1"
	shift
	for path in "$out"/tests/test_*; do
		prog=${path##*/}
		case $prog in *.*) continue ;; esac
		[ -f "$path" ] && [ -x "$path" ] && run_prog "$prog" "$prog" "$@"
	done
}

run_all "this machine's CPUs (qemu on CPU $cpu)"
run_all "simulated \"$ANYCOUNT_TOPO\"" ACT_TEST_TOPOLOGY="$ANYCOUNT_TOPO"
# tests/fallback.sh's NUMA runs (fake homes, every chunk bound); its
# others force what every run here has already: no ring, FUTEX_WAIT
echo "aarch64: tests/fallback.sh's NUMA runs"
while read -r var prog; do
	case $var in
	ACT_TEST_NUMA=*) run_prog "$prog ($var)" "$prog" "$var" ;;
	esac
done <<EOF
$(sh tests/fallback.sh --list)
EOF

# make check's scripts that run the build's programs: through shims that
# run each under qemu, in a tree shaped like the build's.
shims=$out/qemu
rm -rf "$shims"
mkdir -p "$shims/tools" "$shims/examples"
for p in tools/actors examples/supervisor; do
	# shellcheck disable=SC2016 # $0 and $@ are the shim's
	printf '#!/bin/sh\nexec taskset -c %s qemu-aarch64 -0 "$0" %s "$@"\n' \
		"$cpu" "$out/$p" >"$shims/$p"
	chmod +x "$shims/$p"
done
for t in tests/topo.sh tests/supervisor.sh; do
	res=$(cd "$shims" && srcdir=$top sh "$top/$t" 2>&1)
	echo "$res" | grep -E '^FAIL' | sed 's/^/  /'
	sk=$(echo "$res" | sed -n "s|^SKIP: |$t: |p")
	[ -z "$sk" ] || skipped="$skipped
$sk"
	line=$(echo "$res" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -z "$line" ]; then
		echo "  $t: no summary"
		echo "$res" | tail -n 5 | sed 's/^/    /'
		count 0 1 0
		continue
	fi
	echo "aarch64: $t: $line"
	count "${line%% *}" "$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')" 0
done

# the smoke test: the context switch, FPCR per process, the trampoline,
# the overflow report; and the README's example
check() {
	if [ "$1" = ok ]; then
		count 1 0 0
	else
		echo "  FAIL: $2"
		count 0 1 0
	fi
}
msg=$(cd "$out" && taskset -c "$cpu" qemu-aarch64 examples/hello 2>&1)
echo "aarch64: examples/hello: $(echo "$msg" | grep sum)"
echo "$msg" | grep -q "sum of squares 1..10 = 385" && r=ok || r=bad
check "$r" "examples/hello: $msg"
msg=$(cd "$out" && taskset -c "$cpu" qemu-aarch64 tests/arch_smoke 2>&1)
st=$?
echo "aarch64: tests/arch_smoke: $(echo "$msg" | tail -n 1)"
[ "$st" -eq 0 ] && r=ok || r=bad
check "$r" "tests/arch_smoke: status $st: $msg"
msg=$(cd "$out" && taskset -c "$cpu" qemu-aarch64 tests/arch_smoke overflow \
	2>&1 >/dev/null)
st=$?
echo "aarch64: tests/arch_smoke overflow: status $st: $(echo "$msg" |
	grep "stack overflow")"
[ "$st" -eq 134 ] && echo "$msg" | grep -q "stack overflow in process" &&
	r=ok || r=bad
check "$r" "overflow: expected status 134 and the report, got $st: $msg"

echo "aarch64: not run under qemu-user:"
echo "$NOT_UNDER_QEMU" | sed '/^$/d; s/^\([^ ]*\) \* /  \1, every case: /; t
	s/^\([^ ]*\) \([^ ]*\) /  \1: \2: /'
echo "$SCRIPTS_NOT_RUN" | sed '/^$/d; s/^\([^ ]*\) /  \1: /'
if [ -n "$skipped" ]; then
	echo "aarch64: skipped by the programs themselves:"
	echo "$skipped" | sed '/^$/d' | sort | uniq -c |
		sed 's/^ *\([0-9]*\) \(.*\)/  \2 (x\1)/'
fi
echo "$passed passed, $failed failed, $notrun not run"
[ "$failed" -eq 0 ]
