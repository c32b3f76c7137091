#!/bin/bash
# examples/kv_server's append-only file (--appendonly yes), with the
# tools people would use on it: kill -9 under a write load, then a
# restart that must keep every write it acknowledged, with appendfsync
# always and everysec alike (the file is written before a reply, as
# redis does; everysec's second of risk is a crash of the machine's, not
# of the server), redis-check-aof on every file it leaves, a record cut
# short by a crash cut off with a line that says so, a file
# that is not an AOF refused, BGREWRITEAOF under load keeping every
# write and shrinking the file, and the keys after a replay the same as
# redis-server's after the same commands, on a different number of
# shards than wrote them. Run by `make check` from the build directory;
# nothing here is timed: each wait is for a count or a line, bounded.
set -u
srcdir=${srcdir:-..}
tests=$srcdir/tests
[ -f "$tests/kv-aof-load.py" ] || tests=$(dirname "$0")
. "$tests/kvlib.sh"

for tool in redis-cli redis-check-aof python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "kv-aof.sh: no $tool: skipped"
		exit 77
	fi
done

cli() { timeout 60 redis-cli -p "$@"; }

# load_and_kill NAME: the write load on $port until it has 3000
# acknowledgments, then kill -9 of $pid while it runs.
load_and_kill() {
	local name=$1 i n=0
	rm -f "$tmp/$name.prog"
	python3 "$tests/kv-aof-load.py" "$port" 8 "$tmp/$name.prog" \
		"$tmp/$name.res" &
	local loader=$!
	for ((i = 0; i < 1200; i++)); do
		n=$(cat "$tmp/$name.prog" 2>/dev/null || echo 0)
		[ "${n:-0}" -ge 3000 ] && break
		sleep 0.05
	done
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	wait "$loader"
}

aof_valid() { # aof_valid FILE: redis-check-aof's verdict
	redis-check-aof "$1" 2>&1 | tail -n 1
}

# ---- kill -9 under load ------------------------------------------------------
for policy in always everysec; do
	dir=$tmp/$policy
	mkdir -p "$dir"
	if ! kv_start "$policy" --appendonly yes --appendfsync "$policy" \
		--dir "$dir" --workers 2 --shards 3; then
		bad "kv_server --appendfsync $policy did not start:" \
			"$(cat "$tmp/$policy.err")"
		continue
	fi
	load_and_kill "$policy"
	# the restart on another sharding: the records route by the keys
	if ! kv_start "$policy-2" --appendonly yes --appendfsync "$policy" \
		--dir "$dir" --workers 2 --shards 2; then
		bad "kv_server did not restart on its $policy file:" \
			"$(cat "$tmp/$policy-2.err")"
		continue
	fi
	got=$(python3 "$tests/kv-aof-load.py" --check "$port" \
		"$tmp/$policy.res")
	rc=$?
	lost=$(echo "$got" | sed -n 's/.* lost \([0-9]*\),.*/\1/p')
	if [ "$rc" -ne 0 ]; then
		bad "$policy: what was kept is not each connection's first" \
			"writes: $got"
	elif [ "$lost" != 0 ]; then # a crash of the machine could, not kill
		bad "$policy: kill -9 lost acknowledged writes: $got"
	else
		ok "$policy: kill -9 under 8 writers, restart on 2 shards:" \
			"$got; $(grep -o '[0-9]* commands loaded' \
				"$tmp/$policy-2.err")"
	fi
	v=$(aof_valid "$dir/appendonly.aof")
	case $v in
	*"is valid"*) ok "$policy: redis-check-aof: $v" ;;
	*) bad "$policy: redis-check-aof: $v" ;;
	esac
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null
done

# ---- a record cut short, and a file that is not an AOF -------------------
dir=$tmp/cut
mkdir -p "$dir"
if kv_start cut --appendonly yes --dir "$dir"; then
	cli "$port" SET a 1 >/dev/null
	cli "$port" RPUSH l x y z >/dev/null
	kill -TERM "$pid"
	wait "$pid"
	size=$(stat -c %s "$dir/appendonly.aof")
	printf '*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$5\r\nhal' >>"$dir/appendonly.aof"
	if kv_start cut2 --appendonly yes --dir "$dir" &&
		grep -q "cut short.*cut to $size bytes" "$tmp/cut2.err"; then
		ok "a record cut short: $(grep 'cut short' "$tmp/cut2.err" |
			sed 's/^kv_server: [^:]*: //')"
	else
		bad "a record cut short: $(cat "$tmp/cut2.err")"
	fi
	got="$(cli "$port" GET a) $(cli "$port" LRANGE l 0 -1 | tr '\n' ' ')"
	got="$got$(cli "$port" EXISTS b)"
	[ "$got" = "1 x y z 0" ] && ok "the rest kept: $got" ||
		bad "after the cut: $got"
	[ "$(stat -c %s "$dir/appendonly.aof")" = "$size" ] &&
		ok "the file cut to $size bytes, $(aof_valid "$dir/appendonly.aof")" ||
		bad "the file is $(stat -c %s "$dir/appendonly.aof") bytes, not $size"
	kill -TERM "$pid"
	wait "$pid"
	printf 'garbage\r\n' >"$dir/appendonly.aof"
	cat "$tmp/$policy/appendonly.aof" >>"$dir/appendonly.aof" 2>/dev/null
	rc=0
	timeout 60 examples/kv_server --port 0 --appendonly yes --dir "$dir" \
		>"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
	if [ "$rc" -eq 1 ] && grep -q "not an append-only file from byte 0" \
		"$tmp/bad.err"; then
		ok "not an AOF: refused, $(cat "$tmp/bad.err")"
	else
		bad "not an AOF: status $rc, $(cat "$tmp/bad.err")"
	fi
else
	bad "kv_server --appendonly yes did not start: $(cat "$tmp/cut.err")"
fi

# ---- BGREWRITEAOF under load -------------------------------------------------
dir=$tmp/rw
mkdir -p "$dir"
if kv_start rw --appendonly yes --appendfsync always --dir "$dir" \
	--workers 2 --shards 3; then
	# much to compact: 200 keys incremented 50 times each
	for ((i = 0; i < 50; i++)); do
		for ((k = 0; k < 200; k++)); do echo "INCR c$k"; done
	done | cli "$port" >/dev/null
	before=$(stat -c %s "$dir/appendonly.aof")
	rm -f "$tmp/rw.prog"
	python3 "$tests/kv-aof-load.py" "$port" 8 "$tmp/rw.prog" \
		"$tmp/rw.res" &
	loader=$!
	for ((i = 0; i < 1200; i++)); do
		[ "$(cat "$tmp/rw.prog" 2>/dev/null || echo 0)" -ge 500 ] && break
		sleep 0.05
	done
	started=$(cli "$port" BGREWRITEAOF)
	for ((i = 0; i < 1200; i++)); do
		info=$(cli "$port" INFO persistence | tr -d '\r')
		case $info in
		*aof_rewrites:1*aof_last_write_status:ok*) break ;;
		esac
		sleep 0.05
	done
	after=$(echo "$info" | sed -n 's/^aof_current_size://p')
	n=$(cat "$tmp/rw.prog")
	for ((i = 0; i < 1200; i++)); do # more writes after the switch
		[ "$(cat "$tmp/rw.prog" 2>/dev/null || echo 0)" -ge $((n + 500)) ] &&
			break
		sleep 0.05
	done
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	wait "$loader"
	if kv_start rw2 --appendonly yes --dir "$dir"; then
		got=$(python3 "$tests/kv-aof-load.py" --check "$port" \
			"$tmp/rw.res")
		c=$(cli "$port" GET c199)
		case $got in
		*" lost 0,"*)
			if [ "$c" = 50 ] && [ "$started" = \
				"Background append only file rewriting started" ]
			then
				ok "BGREWRITEAOF under 8 writers: $got, c199=$c," \
					"the file $before bytes before its" \
					"writers, $after after the rewrite"
			else
				bad "BGREWRITEAOF: '$started', c199=$c"
			fi ;;
		*) bad "BGREWRITEAOF under load lost writes: $got" ;;
		esac
		v=$(aof_valid "$dir/appendonly.aof")
		case $v in
		*"is valid"*) ok "after the rewrite: redis-check-aof: $v" ;;
		*) bad "after the rewrite: redis-check-aof: $v" ;;
		esac
		kill -TERM "$pid"
		wait "$pid"
	else
		bad "no restart after the rewrite: $(cat "$tmp/rw2.err")"
	fi
else
	bad "kv_server for BGREWRITEAOF did not start: $(cat "$tmp/rw.err")"
fi

# ---- a replay gives redis-server's keys -----------------------------------
# the differential test's stream (every command kv_server has) to both,
# then kv_server killed and restarted on another number of shards: its
# keys, from the file alone, must be redis-server's
if command -v redis-server >/dev/null; then
	dir=$tmp/same
	mkdir -p "$dir"
	redis_start "$tmp/redis.sock"
	if kv_start same --appendonly yes --dir "$dir" --workers 2 --shards 3
	then
		if got=$(timeout 600 python3 "$tests/kv-diff.py" --redis \
			"$tmp/redis.sock" --kv "$port" --seed 7 --commands 20000 \
			--quiet 2>&1); then
			kill -KILL "$pid"
			wait "$pid" 2>/dev/null
			if kv_start same2 --appendonly yes --dir "$dir" \
				--workers 2 --shards 2; then
				st=$(timeout 300 python3 "$tests/kv-state.py" \
					"$tmp/redis.sock" "$port" 2>&1) &&
					ok "replayed on 2 shards after kill -9:" \
						"${got##*$'\n'}; keys: $st" ||
					bad "the replay differs from redis: $st"
				# and the rewrite of that: the snapshot alone
				cli "$port" BGREWRITEAOF >/dev/null
				for ((i = 0; i < 1200; i++)); do
					cli "$port" INFO persistence | tr -d '\r' |
						grep -q '^aof_rewrites:1' && break
					sleep 0.05
				done
				kill -KILL "$pid"
				wait "$pid" 2>/dev/null
				if kv_start same3 --appendonly yes --dir "$dir"; then
					st=$(timeout 300 python3 \
						"$tests/kv-state.py" \
						"$tmp/redis.sock" "$port" 2>&1) &&
						ok "its rewrite replayed on 1" \
							"shard: $st" ||
						bad "the rewrite differs: $st"
				fi
				kill -TERM "$pid"
				wait "$pid"
			else
				bad "no restart: $(cat "$tmp/same2.err")"
			fi
		else
			bad "the stream before the replay: $got"
		fi
	else
		bad "kv_server did not start: $(cat "$tmp/same.err")"
	fi
else
	echo "kv-aof.sh: no redis-server here: the replay comparison skipped"
fi

finish
