# SPDX-License-Identifier: MIT
# distlib.sh - what the distribution's shell tests share (tests/dist-*.sh);
# sourced after tests/lib.sh, with $me the script's name. Exits 77
# (skipped, said so) without erl or epmd, or when the short host name
# does not resolve (erl -sname needs it). Gives $host, $pids (killed at
# exit), wait_for, start_epmd ($port, $epmd_pid) and erl_node.
for t in erl epmd; do
	if ! command -v "$t" >/dev/null; then
		echo "$me: no $t (erlang-base): skipped"
		exit 77
	fi
done
host=$(hostname -s 2>/dev/null)
if [ -z "$host" ] || ! getent hosts "$host" >/dev/null; then
	echo "$me: the short host name '$host' does not resolve" \
		"(erl -sname needs it): skipped"
	exit 77
fi
pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null || :; done; rm -rf "$tmp"' EXIT

# wait_for FILE PATTERN [COUNT]: until FILE has COUNT lines (1 unless
# said) matching PATTERN; 1 after the failure limit
wait_for() {
	i=0
	while :; do
		n=$(grep -c -- "$2" "$1" 2>/dev/null)
		[ "${n:-0}" -lt "${3:-1}" ] || return 0
		i=$((i + 1))
		[ "$i" -le 1200 ] || return 1
		sleep 0.1
	done
}

# the epmd of this test, on a port nothing else has: $port, $epmd_pid
start_epmd() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		port=$(($(od -An -N2 -tu2 /dev/urandom) % 20000 + 30000))
		epmd -port "$port" >"$tmp/epmd.log" 2>&1 &
		epmd_pid=$!
		i=0
		# up once it answers; gone if the port was taken
		while kill -0 "$epmd_pid" 2>/dev/null && [ "$i" -le 1200 ]; do
			if epmd -port "$port" -names >/dev/null 2>&1 &&
				kill -0 "$epmd_pid" 2>/dev/null; then
				pids="$pids $epmd_pid"
				return 0
			fi
			i=$((i + 1))
			sleep 0.1
		done
		kill "$epmd_pid" 2>/dev/null
		wait "$epmd_pid" 2>/dev/null
	done
	return 1
}

# node_ready OUT LINE: until an actors node's standard output OUT has its
# "ready" line, LINE a pattern matching it (its start): 0, or 1 after
# the failure limit; exits 77 (skipped, said so) when the node said the
# library has no distribution (configure --without-ei)
node_ready() {
	if wait_for "$1" "^\\($2\\|start: \\)" &&
		grep -q '^start: Operation not supported' "$1"; then
		echo "$me: this library was built without libei" \
			"(configure --without-ei): skipped"
		exit 77
	fi
	wait_for "$1" "^$2"
}

# erl_node NAME COOKIE EVAL [ERL ARGS]: a node of this test's epmd (the
# shell's process becomes timeout's, so that $! of one run with & is a
# pid whose TERM reaches the node)
erl_node() {
	n=$1 c=$2 e=$3
	shift 3
	ERL_EPMD_PORT=$port exec timeout 300 erl -sname "$n" -setcookie "$c" \
		-start_epmd false -noshell "$@" -eval "$e"
}

