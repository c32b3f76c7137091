#!/bin/bash
# The differential test of examples/kv_server against redis-server
# 7.0 (tests/kv-diff.py): seeded random streams of every command
# kv_server implements, pipelined to both, every reply compared. One
# redis-server on a unix socket, and kv_server in three configurations:
# one worker and one shard, two workers and one shard, two workers and
# three shards (commands of several keys split across shards); each runs
# every seed twice, in RESP2 and in RESP3 (HELLO 3 first on both
# connections: every reply in RESP3's types, maps, sets, doubles and
# nulls compared as they come). A mismatch prints the seed, the
# protocol, the command, both replies, the shortest stream that still
# fails (redis-cli lines) and the command line that reruns it (with
# --resp3 for RESP3). Run by `make check` from the build directory;
# prints one line per run and ends with "N passed, N failed". Nothing is
# timed but the bounded polls for the servers to come up.
#
#   KV_DIFF_SEEDS="1 2 3"   the seeds (these by default)
#   KV_DIFF_COMMANDS=N      commands of each seed; default 20000
#
# Exits 77 without redis-server, redis-cli or python3, or with a
# redis-server other than 7.0 (whose replies kv_server gives).
set -u
srcdir=${srcdir:-..}
tests=$srcdir/tests
[ -f "$tests/kv-diff.py" ] || tests=$(dirname "$0")
seeds=${KV_DIFF_SEEDS:-1 2 3}
commands=${KV_DIFF_COMMANDS:-20000}
reduce=60 # seconds of reduction for the first mismatch; then 15
. "$tests/kvlib.sh"
trap 'exit 130' INT
trap 'exit 143' TERM



for t in redis-server redis-cli python3; do
	if ! command -v "$t" >/dev/null; then
		echo "kv-diff.sh: no $t: skipped"
		exit 77
	fi
done
version=$(redis-server --version | sed -n 's/.* v=\([0-9.]*\).*/\1/p')
case $version in
7.0.*) ;;
*)
	echo "kv-diff.sh: redis-server ${version:-of no version}, not 7.0:" \
		"skipped (kv_server answers as 7.0 does)"
	exit 77
	;;
esac
case $commands in
'' | *[!0-9]*)
	echo "kv-diff.sh: KV_DIFF_COMMANDS: a count" >&2
	exit 2
	;;
esac
for s in $seeds; do
	case $s in
	'' | *[!0-9]*)
		echo "kv-diff.sh: KV_DIFF_SEEDS: numbers" >&2
		exit 2
		;;
	esac
done

# ---- redis-server, on a unix socket (no port to choose) ----------------
if ! redis_start "$tmp/redis.sock"; then
	bad "redis-server did not come up: $(tail -5 "$tmp/redis.sock.log")"
	finish
	exit 1
fi

# ---- each configuration, each seed --------------------------------------
kv=$(pwd)/examples/kv_server
for cfg in 1,1 2,1 2,3; do
	args=(--workers "${cfg%,*}" --shards "${cfg#*,}")
	name="kv-${cfg%,*}-${cfg#*,}"
	what="kv_server ${args[*]}"
	pid=
	for run in $(for s in $seeds; do echo "$s,2 $s,3"; done); do
		seed=${run%,*}
		resp=()
		[ "${run#*,}" = 3 ] && resp=(--resp3)
		if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
			if ! kv_start "$name" "${args[@]}"; then
				bad "$what did not start:" \
					"$(tail -5 "$tmp/$name.err")"
				pid=
				continue
			fi
		fi
		if got=$(timeout 900 python3 "$tests/kv-diff.py" \
			--redis "$tmp/redis.sock" --kv "$port" --seed "$seed" \
			"${resp[@]}" --commands "$commands" \
			--reduce-seconds "$reduce" --quiet \
			--kv-cmd "$kv --port 0 ${args[*]}" 2>&1); then
			ok "$what: ${got##*$'\n'} against redis-server $version"
		else
			bad "$what, seed $seed, RESP${run#*,}:"$'\n'"$got"
			if ! kill -0 "$pid" 2>/dev/null; then
				echo "  $what died; its stderr:"
				sed 's/^/    /' "$tmp/$name.err" | tail -20
				wait "$pid" 2>/dev/null
				echo "  (exit status $?)"
			fi
			reduce=15
		fi
	done
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	fi
done

finish
