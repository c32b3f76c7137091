#!/bin/sh
# SPDX-License-Identifier: MIT
# examples/opt.c, the one option parser, through every program that uses
# it: a bad value, a missing value, an unknown option, a value given to a
# flag and an extra operand each give status 2, nothing on stdout, and
# one line on stderr "NAME: WHY" that names the option (tests/cli.sh
# checks the convention on every program); --help gives status 0 and the
# usage on stdout; a
# value may start with '-', take the --name=value form or follow a
# prefix of the name, and operands may come between options. Nothing is
# run: each case stops at the parse. Run by `make check` from the build
# directory.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
actors=tools/actors

# fails NAME WANT ARGS...: status 2, no stdout, stderr one line that
# starts "NAME: WANT" (an unknown option's hint follows)
fails() {
	name=$1 want=$2
	shift 2
	rc=0
	timeout 30 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	first=$(head -n 1 "$tmp/err")
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] &&
		[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		case $first in "$name: $want"*) true ;; *) false ;; esac then
		ok "$*: status 2: $first"
	else
		bad "$*: status $rc, '$first' (want '$name: $want')," \
			"stdout: $(head -c 200 "$tmp/out")"
	fi
}

# helps ARGS...: status 0, the usage on stdout
helps() {
	rc=0
	timeout 30 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	if [ "$rc" -eq 0 ] && head -n 1 "$tmp/out" | grep -q '^usage: '; then
		ok "$*: usage on stdout, status 0"
	else
		bad "$*: status $rc: $(cat "$tmp/out" "$tmp/err")"
	fi
}

for p in examples/echo_server examples/supervisor examples/kv_server \
	bench/echo; do
	n=${p#examples/} # each program's own name: kv_server, bench/echo
	fails "$n" "unknown option --bogus" "$p" --bogus
	fails "$n" "unknown option -x" "$p" -x
	fails "$n" "unexpected operand extra" "$p" extra
	helps "$p" --help
	helps "$p" -h
done
fails echo_server "--port: bad value 'x': expected 0 to 65535" examples/echo_server \
	--port x
fails echo_server "--port needs a value" examples/echo_server --port
fails echo_server "--workers: bad value '0': expected 1 to 1024" \
	examples/echo_server --workers=0
fails supervisor "--period: bad value '10ms': expected 50 to 60000" \
	examples/supervisor --period 10ms
fails supervisor "--intensity: bad value '-1': expected 0 to 100" \
	examples/supervisor --inten -1
fails kv_server "--appendonly: bad value 'maybe': expected yes or no" \
	examples/kv_server --appendonly maybe
fails kv_server "--appendfsync: bad value 'x': expected always, everysec or no" \
	examples/kv_server --appendfsync x
fails bench/echo "--engine: bad value 'io_uring': expected uring, epoll or auto" \
	bench/echo --engine io_uring --port 1
fails bench/echo "--seconds: bad value '0': expected 0.001 to 1e+06" bench/echo --port 1 \
	--seconds 0
fails bench/echo "--json takes no value" bench/echo --port 1 --json=yes
fails bench/echo "--port is required" bench/echo
fails bench/echo "ambiguous option --s" bench/echo --s 1 --port 1

fails "actors bench" "unknown option --bogus" $actors bench --bogus
fails "actors bench" "--rounds needs a value" $actors bench --rounds
fails "actors bench" "--rounds: bad value 'x': expected 1 to 2305843009213693951" \
	$actors bench --rounds x
fails "actors bench" "unknown workload" $actors bench nosuch
fails "actors bench echo" "--conns: bad value '0': expected 1 to 100000" \
	$actors bench echo --conns 0
fails "actors bench timeouts" "unexpected operand x" \
	$actors bench timeouts x
fails "actors topo" "--workers: bad value '0': expected 1 to 1024" $actors topo \
	--workers 0
fails "actors topo" "--reactor-cpu: bad value '-1': expected auto, none, inline or a CPU number from 0 to 65535" \
	$actors topo --reactor-cpu -1
fails "actors trace" "--top: bad value 'x': expected 0 to 1000000" $actors trace \
	--top x f
fails "actors vars" "unknown option --bogus" $actors vars --bogus
for c in bench "bench echo" "bench timeouts" topo trace vars; do
	# shellcheck disable=SC2086 # the command's words
	helps $actors $c --help
done

# what parses: operands between options, --name=value, a prefix, "--"
syn='pack:1 core:2 pu:1'
rc=0
$actors topo --syn "$syn" --workers=1 >"$tmp/a" 2>&1 || rc=$?
$actors topo --synthetic="$syn" --work 1 >"$tmp/b" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && cmp -s "$tmp/a" "$tmp/b" &&
	grep -q '^plan: bind core, 1 worker' "$tmp/a"; then
	ok "topo: --name=value and prefixes give the same plan"
else
	bad "topo: status $rc: $(cat "$tmp/a" "$tmp/b")"
fi
rc=0
$actors trace --top 1 -- "$src/tests/trace/normal.json" >"$tmp/a" 2>&1 ||
	rc=$?
$actors trace "$src/tests/trace/normal.json" --top=1 >"$tmp/b" 2>&1 ||
	rc=$?
if [ "$rc" -eq 0 ] && cmp -s "$tmp/a" "$tmp/b"; then
	ok "trace: an operand before an option, and after --"
else
	bad "trace: status $rc: $(diff "$tmp/a" "$tmp/b" | head -5)"
fi
# the usage, made from the table: every option once in the usage line
# and once as a line of its own, "-h, --help" last of them, no line over
# 80 columns
# lists PROGRAM... -- OPTION...
lists() {
	cmd=
	while [ "$1" != -- ]; do
		cmd="$cmd $1"
		shift
	done
	shift
	rc=0
	# shellcheck disable=SC2086 # the command's words
	timeout 30 $cmd --help >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	why=
	for name in "$@"; do
		n=$(grep -c -- "^  --$name\( \|\$\)" "$tmp/out")
		[ "$n" -eq 1 ] || why="$why --$name: $n lines;"
		n=$(awk '/^usage:/ { u = 1; print; next }
			u && /^ +\[/ { print; next } { u = 0 }' "$tmp/out" |
			grep -o -- "\[--$name[] ]" | wc -l)
		[ "$n" -eq 1 ] || why="$why --$name: $n times in the usage line;"
	done
	n=$(grep -c '^  --' "$tmp/out")
	[ "$n" -eq $# ] || why="$why $n option lines, want $#;"
	grep -q '^  -h, --help  *this text$' "$tmp/out" ||
		why="$why no -h, --help line;"
	long=$(awk 'length > 80' "$tmp/out" | head -n 1)
	[ -z "$long" ] || why="$why over 80 columns: $long;"
	if [ "$rc" -eq 0 ] && [ -z "$why" ]; then
		ok "$cmd --help: its $# options, each once"
	else
		bad "$cmd --help: status $rc:$why"
	fi
}
lists examples/echo_server -- host port workers
lists examples/supervisor -- workers intensity period
lists examples/kv_server -- host port workers shards maxclients \
	proto-max-bulk-len appendonly appendfsync dir enable-debug-command \
	malloc-trim-period
lists bench/echo -- host port conns seconds warmup threads size engine json
lists $actors bench -- rounds procs hops leaves window senders messages \
	credit total
lists $actors bench echo -- conns seconds
lists $actors bench timeouts -- procs rounds
lists $actors bench call -- calls rounds queued
lists $actors topo -- synthetic xml cgroup json workers bind cpus \
	reactor-cpu steal instances
lists $actors trace -- top json
lists $actors vars -- man test

# the defaults shown are the command's, whatever came before --help; a
# value that looks like -h is the option's, not a request for help
rc=0
$actors bench --rounds 5 --help >"$tmp/out" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] &&
	grep -q '^  --rounds N  *ping-pong round trips (default 1000000)$' \
		"$tmp/out"; then
	ok "bench --rounds 5 --help: the default, 1000000, not 5"
else
	bad "bench --rounds 5 --help: status $rc: $(grep rounds "$tmp/out")"
fi
fails "actors trace" "--top: bad value '-h': expected 0 to 1000000" $actors trace \
	--top -h f
finish
