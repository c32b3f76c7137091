#!/bin/sh
# SPDX-License-Identifier: MIT
# One command-line convention for the tool, every example and every
# bench/ program (examples/opt.h, bench/bench.h, actors(1) DESCRIPTION),
# checked on each of them:
#
#   --help       the usage on stdout, its first line "usage: NAME", nothing
#                on stderr, exit 0
#   --bogus      exit 2, nothing on stdout, one line on stderr that starts
#                "NAME: " and names --bogus
#   a bad value  exit 2, nothing on stdout, one line on stderr that starts
#                "NAME: " and names the option and 'VALUE'
#
# NAME is the program's own ("kv_server", "actors stress wake_storm"),
# never the path libtool's wrapper runs. A command with no option that
# takes a value is given an operand it does not take instead. The list
# of what is checked is made here, and checked against what exists: the
# commands `actors help` lists, the forms `actors bench --help` names,
# the tests `actors stress --list` lists, and every program Makefile.am
# and bench/echo.am build, so that a new one cannot be missed. Also:
# `actors help`, `actors --help` and `actors -h` print the same, on
# stdout; `actors help CMD` prints what `actors CMD --help` does. Nothing
# is run past its parse. Run by `make check` from the build directory.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
actors=tools/actors

# helps NAME WORDS...: `WORDS --help` keeps the convention
helps() {
	name=$1
	shift
	rc=0
	timeout 30 "$@" --help >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	first=$(head -n 1 "$tmp/out")
	case $first in
	"usage: $name" | "usage: $name "*) good=1 ;;
	*) good=0 ;;
	esac
	if [ "$rc" = 0 ] && [ "$good" = 1 ] && [ ! -s "$tmp/err" ]; then
		ok "$* --help: usage on stdout, exit 0"
	else
		bad "$* --help: exit $rc, first line '$first' (want 'usage:" \
			"$name'), stderr: $(head -c 300 "$tmp/err")"
	fi
}

# refuses NAME 'WORD...' ARGS...: exit 2, one line "NAME: ..." on stderr
# that contains every WORD, nothing on stdout
refuses() {
	name=$1 words=$2
	shift 2
	rc=0
	timeout 30 "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	line=$(head -n 1 "$tmp/err")
	why=
	[ "$rc" = 2 ] || why="$why exit $rc, not 2;"
	[ ! -s "$tmp/out" ] || why="$why stdout: $(head -c 200 "$tmp/out");"
	[ "$(wc -l <"$tmp/err")" = 1 ] ||
		why="$why $(wc -l <"$tmp/err") lines on stderr, not 1;"
	case $line in
	"$name: "*) ;;
	*) why="$why the line does not start with '$name: ';" ;;
	esac
	for w in $words; do
		case $line in
		*"$w"*) ;;
		*) why="$why it does not name $w;" ;;
		esac
	done
	if [ -z "$why" ]; then
		ok "$*: exit 2: $line"
	else
		bad "$*:$why stderr: $(head -c 300 "$tmp/err")"
	fi
}

# check NAME OPTION VALUE WORDS...: --help, --bogus, and OPTION VALUE
# (OPTION -: an operand VALUE instead; OPTION in capitals, the operand it
# names: VALUE in its place, after the operands in $before) on `WORDS`
before=
check() {
	name=$1 opt=$2 val=$3
	shift 3
	helps "$name" "$@"
	refuses "$name" "--bogus" "$@" --bogus
	# shellcheck disable=SC2086 # the operands before, split on purpose
	case $opt in
	-) refuses "$name" "$val" "$@" "$val" ;;
	-*) refuses "$name" "$opt '$val'" "$@" "$opt" "$val" ;;
	*) refuses "$name" "$opt '$val'" "$@" $before "$val" ;;
	esac
}

# 1. the tool and its commands: NAME|OPTION|VALUE|WORDS; a command's
# other words (an operand a bad value still needs) come after the value
# as EXTRA
cases=$(
	cat <<'EOF'
actors demo|-|extra|demo
actors bench|--rounds|x|bench
actors bench echo|--conns|0|bench echo
actors bench timeouts|--procs|0|bench timeouts
actors bench call|--calls|0|bench call
actors topo|--workers|0|topo
actors trace|--top|x|trace
actors stress|--workers|0|stress
actors dist|--epmd-port|0|dist
actors vars|-|extra|vars
EOF
)
echo "$cases" >"$tmp/cases"
while IFS='|' read -r name opt val words; do
	# shellcheck disable=SC2086 # the command's words
	check "$name" "$opt" "$val" $actors $words
done <"$tmp/cases"
# operands that a bad value comes before: it is still the one refused
refuses "actors dist" "--epmd-port '0'" $actors dist --epmd-port 0 names
refuses "actors dist" "--epmd-port '0'" $actors dist ping n@h \
	--epmd-port 0
refuses "actors dist" "'pong'" $actors dist pong
refuses "actors trace" "--top 'x'" $actors trace --top x file.json
refuses "actors bench" "'nosuch'" $actors bench nosuch
refuses "actors stress" "'nosuch'" $actors stress nosuch
refuses "actors stress" "--park 'x'" $actors stress --park x
refuses "actors stress" "--duration '5x'" $actors stress --duration 5x
refuses "actors topo" "--bind 'x'" $actors topo --bind x
refuses "actors topo" "--reactor-cpu '-2'" $actors topo --reactor-cpu -2
# the tool itself: help, an unknown option or command
helps actors $actors
refuses actors "--bogus" $actors --bogus
refuses actors "'bogus'" $actors bogus
refuses actors "'bogus'" $actors help bogus

# each stress test, as `actors stress TEST`
tests=$($actors stress --list | awk '{ print $1 }')
for t in $tests; do
	check "actors stress $t" --iters 0 $actors stress "$t"
done
[ -n "$tests" ] || bad "actors stress --list lists no test"

# help, --help and -h; help CMD and CMD --help
rc=0
$actors help >"$tmp/a" 2>"$tmp/ae" || rc=$?
$actors --help >"$tmp/b" 2>>"$tmp/ae" || rc=$?
$actors -h >"$tmp/c" 2>>"$tmp/ae" || rc=$?
if [ "$rc" = 0 ] && [ ! -s "$tmp/ae" ] && [ -s "$tmp/a" ] &&
	cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/a" "$tmp/c"; then
	ok "actors help, --help and -h: the same, on stdout"
else
	bad "actors help, --help, -h: exit $rc, stderr $(cat "$tmp/ae")"
fi
while IFS='|' read -r name opt val words; do
	rc=0
	# shellcheck disable=SC2086
	$actors help $words >"$tmp/a" 2>&1 || rc=$?
	# shellcheck disable=SC2086
	$actors $words --help >"$tmp/b" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && cmp -s "$tmp/a" "$tmp/b"; then
		ok "actors help $words: as actors $words --help"
	else
		bad "actors help $words: exit $rc, not as $words --help:" \
			"$(diff "$tmp/a" "$tmp/b" | head -n 5)"
	fi
done <"$tmp/cases"

# 2. every command of `actors help` and form of `actors bench --help`
# is a case above (help and --version are the tool's own, checked above)
$actors help | awk '/^commands:/ { on = 1; next }
	on && /^  [^ -]/ { print $1 }' >"$tmp/cmds"
$actors bench --help | sed -n 's/^ *or: actors \(bench [a-z]*\) .*/\1/p' \
	>>"$tmp/cmds"
missing=
while read -r c; do
	[ "$c" = help ] && continue
	grep -q "^actors $c|" "$tmp/cases" || missing="$missing '$c'"
done <"$tmp/cmds"
if [ -z "$missing" ] && [ -s "$tmp/cmds" ]; then
	ok "every command of actors help and actors bench --help is checked" \
		"($(wc -l <"$tmp/cmds"))"
else
	bad "commands this test does not check:$missing: add a case"
fi

# 3. the examples, bench/echo (whose options are examples/opt.c's) and
# the bench drivers (bench/bench.h's bench_args, positional numbers):
# PROGRAM|NAME|OPTION|VALUE[|OPERANDS BEFORE THE VALUE]
progs=$(
	cat <<'EOF'
examples/hello|hello|-|extra
examples/echo_server|echo_server|--port|x
examples/supervisor|supervisor|--workers|99
examples/kv_server|kv_server|--proto-max-bulk-len|1k
bench/echo|bench/echo|--seconds|0
bench/pingpong|bench/pingpong|ROUNDS|x
bench/ring|bench/ring|HOPS|0|503
bench/skynet|bench/skynet|WINDOW|11|1000
bench/fanin|bench/fanin|MESSAGES|x|10
bench/spawnburst|bench/spawnburst|CHILDREN|0
bench/timeouts|bench/timeouts|PROCS|0
bench/blocking|bench/blocking|ROUNDS|22|10
bench/dist_echo|bench/dist_echo|EPMD_PORT|x|n cookie
bench/micro/micro|bench/micro/micro|-n|x
bench/peers/epoll_echo|bench/peers/epoll_echo|--port|x
bench/peers/dist_floor|bench/peers/dist_floor|TRIPS|x|load 1 1 112
EOF
)
echo "$progs" >"$tmp/progs"
while IFS='|' read -r prog name opt val before; do
	check "$name" "$opt" "$val" "$prog"
done <"$tmp/progs"
before=
refuses kv_server "--maxclients '0'" examples/kv_server --maxclients 0
refuses kv_server "--appendfsync 'x'" examples/kv_server --appendfsync x
refuses supervisor "--period '10'" examples/supervisor --period 10
refuses echo_server "--workers '0'" examples/echo_server --workers 0
refuses bench/pingpong "'7'" bench/pingpong 1 7
refuses bench/pingpong "ROUNDS '-5'" bench/pingpong -5
refuses bench/fanin "WINDOW '-1'" bench/fanin 1 1 -1
refuses bench/spawnburst "TOTAL '5'" bench/spawnburst 100 5
refuses bench/dist_echo "COOKIE" bench/dist_echo n
refuses bench/micro/micro "STEP 'nosuch'" bench/micro/micro switch nosuch
refuses bench/peers/epoll_echo "'op'" bench/peers/epoll_echo op
refuses bench/peers/dist_floor "'op'" bench/peers/dist_floor op
refuses bench/peers/dist_floor "CLIENTS" bench/peers/dist_floor load 1
# what scripts/bench-*.sh pass is taken: each form with one word more,
# refused as that word, so that nothing runs
while IFS='|' read -r name words; do
	# shellcheck disable=SC2086 # the form's words
	refuses "$name" "'x'" $name $words x
done <<'EOF'
bench/pingpong|1000000
bench/ring|503 2000000
bench/skynet|1000000
bench/skynet|1000000 4
bench/fanin|100 100000 1000
bench/fanin|100 100000 0
bench/spawnburst|100 400000000
bench/spawnburst|10000 400000000
bench/timeouts|10000 1
bench/blocking|1000 5
bench/dist_echo|bench_actors@h cookie 4369
bench/peers/epoll_echo|--port 0
bench/peers/dist_floor|serve
bench/peers/dist_floor|load 1 1 112 10
EOF
refuses bench/micro/micro "STEP 'x'" bench/micro/micro -n 10000000 switch x
# what the help says is taken, is: k, m and g for a size
for v in 2m 2M 1g 1048576 4096k; do
	rc=0
	examples/kv_server --proto-max-bulk-len "$v" --port -1 \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" = 2 ] && grep -q -- "--port: bad value '-1'" "$tmp/err"; then
		ok "kv_server --proto-max-bulk-len $v: taken"
	else
		bad "kv_server --proto-max-bulk-len $v: exit $rc: $(cat "$tmp/err")"
	fi
done

# 4. every program the build makes is checked above, or named here with
# the reason it is not (none now)
others=
sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$src/Makefile.am" \
	"$src/bench/echo.am" |
	sed -n 's/^\(bin\|noinst\)_PROGRAMS *+*= *//p' | tr ' \t' '\n\n' |
	grep -v '^$' | sed 's/\$(EXEEXT)$//' >"$tmp/built"
missing=
while read -r p; do
	[ "$p" = tools/actors ] && continue
	grep -q "^$p|" "$tmp/progs" && continue
	# shellcheck disable=SC2086 # a list of words
	[ -n "$others" ] && printf '%s\n' $others | grep -qx "$p" && continue
	missing="$missing $p"
done <"$tmp/built"
if [ -z "$missing" ] && grep -qx tools/actors "$tmp/built"; then
	ok "every program of Makefile.am is checked" \
		"($(wc -l <"$tmp/built"))"
else
	bad "programs of Makefile.am this test does not know:$missing"
fi

finish
