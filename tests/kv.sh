#!/bin/bash
# examples/kv_server with the clients people use: redis-cli runs every
# command and error class of tests/kv-commands.txt and must print what
# redis-server 7.0.15 printed for it (tests/kv-expected.txt, captured
# with `redis-cli --no-raw` against `redis-server --databases 1`); when a
# redis-server is installed the same stream runs against it too, and the
# two outputs must match; INFO's sections and fields, CLIENT's
# subcommands, and an unknown command answered with the connection kept.
# Then hostile clients, each over a raw socket
# (bash's /dev/tcp): a malformed frame, a bulk over the limit, a client
# past --maxclients, one that sends a byte at a time and one that never
# reads, while others are served; inline commands, pipelining, QUIT and
# a clean stop on SIGTERM. Run by `make check` from the build directory;
# prints one line per check and ends with "N passed, N failed". Nothing
# here is timed: a stall shows as a client's 30 s limit.
set -u
srcdir=${srcdir:-..}
tests=$srcdir/tests
[ -f "$tests/kv-commands.txt" ] || tests=$(dirname "$0")
. "$tests/kvlib.sh"

if ! command -v redis-cli >/dev/null; then
	echo "kv.sh: no redis-cli (Debian's redis-tools): skipped"
	exit 77
fi

cli() { # cli PORT ARGS...: redis-cli with a limit, as a user types it
	timeout 30 redis-cli --no-raw -p "$@"
}

rcli() { # rcli PORT ARGS...: the same, the replies as they are (--raw)
	timeout 30 redis-cli --raw -p "$@"
}

# raw PORT BYTES [SECONDS]: send BYTES (printf %b) on a new connection,
# print what comes back until the server closes it or SECONDS pass.
raw() {
	local port=$1 bytes=$2 secs=${3:-5}
	(
		exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
		printf '%b' "$bytes" >&3
		timeout "$secs" cat <&3 2>/dev/null # a reset after an error
	)
}

vm_rss_kib() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$1/status"
}

# ---- every command and error class, as redis-server answers them -------
if kv_start main --workers 2 --shards 3; then
	main_port=$port main_pid=$pid
	cli "$main_port" <"$tests/kv-commands.txt" >"$tmp/kv.txt" 2>&1
	if cmp -s "$tests/kv-expected.txt" "$tmp/kv.txt"; then
		ok "redis-cli: $(wc -l <"$tests/kv-commands.txt") commands," \
			"every reply as redis-server 7.0.15's"
	else
		bad "redis-cli replies differ from redis-server's:" \
			"$(diff "$tests/kv-expected.txt" "$tmp/kv.txt" | head -20)"
	fi
	if command -v redis-server >/dev/null; then
		redis_start "$tmp/redis.sock"
		timeout 30 redis-cli --no-raw -s "$tmp/redis.sock" \
			<"$tests/kv-commands.txt" >"$tmp/redis.txt" 2>&1
		if cmp -s "$tmp/redis.txt" "$tmp/kv.txt"; then
			ok "the same stream against $(redis-server --version |
				cut -d' ' -f1-3): the same replies"
		else
			bad "kv_server and redis-server differ:" \
				"$(diff "$tmp/redis.txt" "$tmp/kv.txt" | head -20)"
		fi
		# random frames, mostly valid ones with a byte or three
		# changed: the same bytes back from both (tests/kv-fuzz.py),
		# redis-server on its unix socket (no port to choose)
		if [ "$redis_up" = yes ] && command -v python3 >/dev/null; then
			redis-cli -s "$tmp/redis.sock" FLUSHALL >/dev/null
			cli "$main_port" FLUSHALL >/dev/null
			if got=$(timeout 300 python3 "$tests/kv-fuzz.py" \
				"$tmp/redis.sock" "$main_port" 1 1000 2>&1); then
				ok "fuzz: ${got##*$'\n'} from redis-server's"
			else
				bad "fuzz: $got"
			fi
			cli "$main_port" FLUSHALL >/dev/null
		fi
	else
		echo "kv.sh: no redis-server here: the live comparison skipped"
	fi

	# ---- INFO, CLIENT, an unknown command ----------------------------
	rcli "$main_port" MSET i1 a i2 b i3 c i4 d >/dev/null
	rcli "$main_port" EXPIRE i1 1000 >/dev/null
	info=$(rcli "$main_port" INFO | tr -d '\r')
	missing=
	for f in "# Server" redis_version: process_id: tcp_port:$main_port \
		uptime_in_seconds: kv_processes: kv_processes_peak: \
		"# Clients" connected_clients: maxclients: \
		"# Memory" used_memory: used_memory_rss: "# Persistence" \
		aof_enabled:0 "# Stats" total_connections_received: \
		total_commands_processed: "# Replication" role:master \
		"# CPU" used_cpu_sys: "# Keyspace"; do
		case $info in *"$f"*) ;; *) missing="$missing '$f'" ;; esac
	done
	keys=$(rcli "$main_port" DBSIZE)
	case $info in
	*"db0:keys=$keys,expires=1,"*)
		[ -z "$missing" ] && ok "INFO: redis's sections and fields," \
			"db0 of all 3 shards: $(echo "$info" | grep '^db0')" ||
			bad "INFO lacks$missing" ;;
	*) bad "INFO's keyspace: $(echo "$info" | grep '^db0'), DBSIZE $keys" ;;
	esac
	check "INFO server: that section alone" "# Server" \
		"$(rcli "$main_port" INFO server | tr -d '\r' | grep '^#')"
	got=$(printf 'CLIENT SETNAME alice\nCLIENT GETNAME\nCLIENT ID\nCLIENT LIST\nCLIENT INFO\n' |
		rcli "$main_port")
	id=$(echo "$got" | sed -n 3p)
	case $got in
	OK$'\n'alice$'\n'[0-9]*$'\n'*"id=$id addr=127.0.0.1:"*" name=alice "*"cmd=client|list"*"id=$id "*"cmd=client|info"*)
		ok "CLIENT SETNAME, GETNAME, ID $id, LIST and INFO agree" ;;
	*) bad "CLIENT: $(printf %q "$got")" ;;
	esac
	check "CLIENT SETNAME with a space" \
		"ERR Client names cannot contain spaces, newlines or special characters." \
		"$(rcli "$main_port" CLIENT SETNAME 'a b')"
	check "BGREWRITEAOF with no file: says so" \
		"ERR the append-only file is off: start kv_server with --appendonly yes" \
		"$(rcli "$main_port" BGREWRITEAOF)"
	check "DEBUG with no --enable-debug-command: redis's error" \
		"ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server." \
		"$(rcli "$main_port" DEBUG SLEEP 0)"
	check "an unknown command: redis's error, and the connection stays" \
		"-ERR unknown command 'NOPE', with args beginning with: 'x' "$'\r'$'\n'"+PONG"$'\r' \
		"$(raw "$main_port" 'NOPE x\r\nPING\r\nQUIT\r\n' | head -n 2)"

	# ---- redis-cli's modes: RESP3, --scan, its hints; CONFIG SET ------
	check "redis-cli -3 (HELLO 3 first)" OK \
		"$(echo 'SET r3 1' | timeout 30 redis-cli -3 -p "$main_port")"
	check "redis-cli -3: a map, a double, a null, as RESP3's" \
		$'(integer) 1\n1# "f" => "v"\n(integer) 1\n(double) 1.5\n(nil)' \
		"$(printf 'HSET r3h f v\nHGETALL r3h\nZADD r3z 1.5 m\nZSCORE r3z m\nGET nokey\n' |
			timeout 30 redis-cli -3 --no-raw -p "$main_port")"
	check "redis-cli --scan --pattern 'i*' (of 3 shards)" \
		"i1 i2 i3 i4" \
		"$(timeout 30 redis-cli -p "$main_port" --scan --pattern 'i*' |
			sort | tr '\n' ' ' | sed 's/ $//')"
	# the hint redis-cli prints as ZADD is typed (from COMMAND DOCS), on
	# a terminal of its own; linenoise asks where its cursor is
	if command -v python3 >/dev/null; then
		hint=$(timeout 30 python3 - "$main_port" <<'PY'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    os.execvp("redis-cli", ["redis-cli", "-p", sys.argv[1]])
out = b""
def drain(s):
    global out
    end = time.time() + s
    while time.time() < end and b"score member" not in out:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                d = os.read(fd, 65536)
            except OSError:
                return
            out += d
            if b"\x1b[6n" in d:
                os.write(fd, b"\x1b[1;200R")
drain(2)
os.write(fd, b"ZADD ")
drain(10)
os.kill(pid, 9)
print("hint" if b"key [NX|XX] [GT|LT] [CH] [INCR] score member" in out
      else repr(out[-300:]))
PY
)
		check "redis-cli's hint for ZADD, from COMMAND DOCS" hint "$hint"
	fi
	check "CONFIG SET timeout 1, CONFIG GET reads it back" \
		$'OK\ntimeout\n1' \
		"$(rcli "$main_port" CONFIG SET timeout 1 &&
			rcli "$main_port" CONFIG GET timeout)"
	check "CONFIG SET timeout: an idle client closed" "" \
		"$(raw "$main_port" '' 30)"
	check "CONFIG SET timeout 0" OK "$(rcli "$main_port" CONFIG SET timeout 0)"
	check "CONFIG SET maxmemory: redis's error for what cannot change" \
		"ERR CONFIG SET failed (possibly related to argument 'maxmemory') - can't set immutable config" \
		"$(rcli "$main_port" CONFIG SET maxmemory 1gb)"

	# expiry: a TTL as set, then gone when it passes
	cli "$main_port" SET ttlkey v EX 100000 >/dev/null
	t=$(cli "$main_port" TTL ttlkey)
	case $t in
	"(integer) 1000"?? | "(integer) 999"??) ok "TTL after EX: $t" ;;
	*) bad "TTL after EX 100000: $t" ;;
	esac
	cli "$main_port" SET gone v PX 1 >/dev/null
	for ((i = 0; i < 300; i++)); do
		[ "$(cli "$main_port" EXISTS gone)" = "(integer) 0" ] && break
		sleep 0.01
	done
	check "a PX 1 key is gone once its time passed" "(integer) 0" \
		"$(cli "$main_port" EXISTS gone)"

	# ---- raw protocol ----------------------------------------------
	check "inline PING" "+PONG"$'\r' \
		"$(raw "$main_port" 'PING\r\nQUIT\r\n' | head -n 1)"
	check "inline with quotes" "\$3"$'\r\n'"+OK"$'\r' \
		"$(raw "$main_port" 'ECHO "a\\x41\\n" \r\nQUIT\r\n' |
			sed -n '1p;4p')"
	want=$(printf ':%s\r\n' 1 2 3 4 5 6 7 8 9 10)
	got=$(raw "$main_port" "$(for i in $(seq 10); do
		printf '*2\\r\\n$4\\r\\nINCR\\r\\n$4\\r\\npipe\\r\\n'
	done)QUIT\r\n" | head -n 10)
	check "10 pipelined INCRs in one write: replies in order" "$want" \
		"$got"
	check "QUIT: +OK and the connection closed" "+OK"$'\r' \
		"$(raw "$main_port" 'QUIT\r\nPING\r\n')"
	for frame in '*1\r\n%4\r\nPING\r\n' '*x\r\n' '*1\r\n$-1\r\n' \
		'ECHO "a\r\n'; do
		got=$(raw "$main_port" "PING\r\n$frame" | tr -d '\r')
		case $got in
		"+PONG"$'\n'"-ERR Protocol error: "*)
			ok "malformed $(printf %q "$frame"): ${got#*$'\n'}," \
				"then closed" ;;
		*) bad "malformed $(printf %q "$frame"): $(printf %q "$got")" ;;
		esac
	done

	# ---- slow and silent clients, and everyone else --------------
	(
		exec 3<>"/dev/tcp/127.0.0.1/$main_port" || exit 1
		frame='*3\r\n$3\r\nSET\r\n$4\r\nslow\r\n$2\r\nok\r\n'
		frame=$(printf '%b.' "$frame") # the dot keeps the last \n
		frame=${frame%.}
		for ((i = 0; i < ${#frame}; i++)); do
			printf '%s' "${frame:i:1}" >&3
			sleep 0.02
		done
		printf 'QUIT\r\n' >&3
		timeout 30 cat <&3 >"$tmp/slow.txt"
	) &
	slow=$!
	# a 1 MB value, asked for 300 times in one stream never read
	head -c 1000000 /dev/zero | tr '\0' v >"$tmp/big"
	cli "$main_port" -x SET big <"$tmp/big" >/dev/null
	check "a 1 MB value back whole (by pointer both ways)" 1000000 \
		"$(timeout 30 redis-cli --raw -p "$main_port" GET big |
			tr -d '\n' | wc -c)"
	rss0=$(vm_rss_kib "$main_pid")
	(
		exec 3<>"/dev/tcp/127.0.0.1/$main_port" || exit 1
		for ((i = 0; i < 300; i++)); do
			printf '*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n'
		done >&3
		sleep 60 # and never a read
	) &
	silent=$!
	pids+=("$silent")
	served=0
	for ((i = 0; i < 20; i++)); do
		[ "$(cli "$main_port" PING)" = PONG ] && served=$((served + 1))
	done
	check "20 PINGs answered while one client dribbles, one never reads" \
		20 "$served"
	wait "$slow"
	check "the byte-at-a-time SET done" "+OK"$'\r\n'"+OK"$'\r' \
		"$(cat "$tmp/slow.txt")"
	check "its value" '"ok"' "$(cli "$main_port" GET slow)"
	rss1=$(vm_rss_kib "$main_pid")
	# 300 MB of replies asked for; what the server holds stays bounded
	# by one batch's replies (256 x 1 MB) at most, not the 300 MB
	if [ $((rss1 - rss0)) -lt 290000 ]; then
		ok "a client that never reads: server RSS +$((rss1 - rss0))" \
			"KiB for 300 MB of replies asked for"
	else
		bad "a client that never reads grew the server by" \
			"$((rss1 - rss0)) KiB"
	fi
	kill -KILL "$silent" 2>/dev/null
	wait "$silent" 2>/dev/null

	kill -TERM "$main_pid"
	wait "$main_pid"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q '^kv_server: stopped by' "$tmp/main.err"
	then
		ok "SIGTERM: exit 0, $(cat "$tmp/main.err")"
	else
		bad "SIGTERM: status $rc, $(cat "$tmp/main.err")"
	fi
else
	bad "kv_server did not start: $(cat "$tmp/main.err")"
fi

# ---- limits ----------------------------------------------------------------
if kv_start limits --proto-max-bulk-len 1mb --maxclients 2; then
	got=$(raw "$port" '*2\r\n$3\r\nGET\r\n$1048577\r\n' | tr -d '\r')
	check "a bulk over --proto-max-bulk-len refused on its header" \
		"-ERR Protocol error: invalid bulk length" "$got"
	got=$(raw "$port" '*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n' 1 |
		tr -d '\r')
	check "a bulk at the limit is waited for" "" "$got"
	# two clients that hold their connections, each served (a client
	# of an earlier check may not have been counted out yet: then one
	# of these was refused, and they try again)
	for ((try = 0; try < 50; try++)); do
		rm -f "$tmp/hold"
		(
			exec 3<>"/dev/tcp/127.0.0.1/$port" \
				4<>"/dev/tcp/127.0.0.1/$port" || exit 1
			printf 'PING\r\n' >&3
			printf 'PING\r\n' >&4
			{ read -r a <&3 && read -r b <&4; } || exit 1
			echo "$a $b" | tr -d '\r' >"$tmp/hold"
			sleep 60
		) &
		two=$!
		pids+=("$two")
		for ((i = 0; i < 300; i++)); do
			[ -s "$tmp/hold" ] && break
			sleep 0.1
		done
		[ "$(cat "$tmp/hold" 2>/dev/null)" = "+PONG +PONG" ] && break
		kill -KILL "$two" 2>/dev/null
		wait "$two" 2>/dev/null
		sleep 0.2
	done
	got=$(raw "$port" 'PING\r\n' 10 | tr -d '\r')
	check "a third client past --maxclients 2" \
		"-ERR max number of clients reached" "$got"
	kill -KILL "$two" 2>/dev/null
	wait "$two" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		got=$(raw "$port" 'PING\r\nQUIT\r\n' 2 | head -n 1 | tr -d '\r')
		[ "$got" = "+PONG" ] && break
		sleep 0.1
	done
	check "served again once they left" "+PONG" "$got"
else
	bad "kv_server --proto-max-bulk-len 1mb did not start:" \
		"$(cat "$tmp/limits.err")"
fi

# ---- 20 clients at once against ACTORS_MAILBOX_LIMIT=2 -----------------
# the shards' mailboxes hold a batch per client, the connections' a reply
# per shard: bounded by the design, so the limit is not theirs (a shard
# killed for it would lose its keys, and its clients would wait forever)
if ACTORS_MAILBOX_LIMIT=2 kv_start mailbox --workers 2 --shards 2 \
	--enable-debug-command local; then
	# DEBUG SLEEP holds its own connection only: a PING meanwhile
	t0=$(date +%s%N)
	rcli "$port" DEBUG SLEEP 0.3 >"$tmp/sleep.out" &
	sleeper=$!
	sleep 0.1
	got=$(rcli "$port" PING)
	wait "$sleeper"
	t1=$(date +%s%N)
	if [ "$got" = PONG ] && [ "$(cat "$tmp/sleep.out")" = OK ] &&
		[ $((t1 - t0)) -ge 300000000 ]; then
		ok "DEBUG SLEEP 0.3: OK after $(((t1 - t0) / 1000000)) ms," \
			"a PING answered meanwhile"
	else
		bad "DEBUG SLEEP 0.3: '$(cat "$tmp/sleep.out")' after" \
			"$(((t1 - t0) / 1000000)) ms, PING '$got'"
	fi
	check "DEBUG SLEEP with two numbers: redis's error" \
		"ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP." \
		"$(rcli "$port" DEBUG SLEEP 0 1)"
	rc=0
	timeout 60 redis-benchmark -p "$port" -c 20 -n 4000 -t set,get,mset \
		-q >"$tmp/mb.txt" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && [ "$(cli "$port" PING)" = PONG ] &&
		kill -0 "$pid" 2>/dev/null; then
		ok "redis-benchmark -c 20 under ACTORS_MAILBOX_LIMIT=2:" \
			"$(grep -c 'requests per second' "$tmp/mb.txt") tests run," \
			"the server alive"
	else
		bad "redis-benchmark under ACTORS_MAILBOX_LIMIT=2: status $rc," \
			"$(tail -c 300 "$tmp/mb.txt") $(cat "$tmp/mailbox.err")"
	fi
else
	bad "kv_server under ACTORS_MAILBOX_LIMIT=2 did not start:" \
		"$(cat "$tmp/mailbox.err")"
fi

# ---- the trimmer: malloc's free memory given back -----------------------------
# 400 values of 64 KiB, each set after a small key that stays: deleting
# the large ones leaves malloc's arenas with some 25 MiB free between
# live chunks, which free() alone does not return (it trims only an
# arena's top). The trimmer (--malloc-trim-period) must return it: RSS
# falls by more than half of what the values took.
if kv_start trim --workers 2 --shards 2 --malloc-trim-period 1 &&
	alloc=$(rcli "$port" INFO memory | tr -d '\r' |
		sed -n 's/^mem_allocator://p') &&
	[ -n "$alloc" ] && [ "$alloc" != libc ]; then
	# a sanitizer's allocator replaces glibc's malloc, and malloc_trim
	# does not reach it: nothing to see, and nothing counted
	echo "kv.sh: the trimmer's check skipped: the allocator is the" \
		"$alloc's, which malloc_trim does not reach"
	kill -TERM "$pid"
	wait "$pid"
elif [ -n "$port" ] && kill -0 "$pid" 2>/dev/null; then
	trims() {
		rcli "$port" INFO memory | tr -d '\r' |
			sed -n 's/^kv_malloc_trims://p'
	}
	rss0=$(vm_rss_kib "$pid")
	for ((i = 0; i < 400; i++)); do
		echo "SET small:$i v"
		echo "SETRANGE big:$i 65535 x"
	done | rcli "$port" >/dev/null
	rss1=$(vm_rss_kib "$pid")
	for ((i = 0; i < 400; i++)); do echo "DEL big:$i"; done |
		rcli "$port" >/dev/null
	t0=$(trims)
	# a trim that started after the last DEL: two more than now (one
	# may have begun before it); at most 60 s on a busy machine
	for ((i = 0; i < 600; i++)); do
		[ "$(trims)" -ge $((${t0:-0} + 2)) ] 2>/dev/null && break
		sleep 0.1
	done
	rss2=$(vm_rss_kib "$pid")
	if [ -n "$t0" ] && [ $((rss1 - rss0)) -gt 20000 ] &&
		[ $((rss1 - rss2)) -gt $(((rss1 - rss0) / 2)) ]; then
		ok "--malloc-trim-period 1: RSS $rss0 KiB, $rss1 with 25 MiB" \
			"of values, $rss2 once they were deleted" \
			"($(trims) trims)"
	else
		bad "the trimmer: RSS $rss0 KiB, $rss1 with 25 MiB of values," \
			"$rss2 after deleting them; trims ${t0:-none} then" \
			"$(trims)"
	fi
	kill -TERM "$pid"
	wait "$pid"
else
	bad "kv_server --malloc-trim-period 1 did not start:" \
		"$(cat "$tmp/trim.err")"
fi

# ---- bad options -------------------------------------------------------------
for args in "--port 70000" "--shards 0" "--proto-max-bulk-len 10" \
	"--maxclients x" "--workers 0" "--enable-debug-command on" \
	"--malloc-trim-period -1" "extra"; do
	rc=0
	# shellcheck disable=SC2086 # the options, split on purpose
	examples/kv_server $args >"$tmp/opt.out" 2>"$tmp/opt.err" || rc=$?
	# one line on stderr naming the program, nothing on stdout
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/opt.out" ] &&
		[ "$(wc -l <"$tmp/opt.err")" -eq 1 ] && grep -q '^kv_server: ' "$tmp/opt.err"; then
		ok "kv_server $args: one usage line, status 2"
	else
		bad "kv_server $args: status $rc: $(cat "$tmp/opt.out" "$tmp/opt.err")"
	fi
done

finish
