# pin.sh - sourced by the server benchmarks (bench-echo.sh, bench-kv.sh):
# where the servers and their load run.
#
# pin_split MODE sets server_on and load_on, the prefixes of the server's
# and the load generator's commands, and where, in words. MODE "server":
# every server on the last CPU this shell may use, the load on the
# others, so that each server has one CPU (as a one-thread server uses
# one) and none shares it with its load; "none": both empty, wherever the
# kernel puts them. With one CPU, "server" is "none".

# allowed_cpus: the CPUs this shell may run on, one per line.
allowed_cpus() {
	taskset -pc $$ | sed 's/.*: *//' | tr ',' '\n' | awk -F- '
	NF == 1 { print $1 }
	NF == 2 { for (c = $1; c <= $2; c++) print c }'
}

pin_split() {
	server_on=
	load_on=
	where="unpinned"
	[ "$1" = server ] || return 0
	if ! command -v taskset >/dev/null; then
		echo "pinning needs taskset (util-linux)" >&2
		return 1
	fi
	pin_list=$(allowed_cpus)
	pin_n=$(echo "$pin_list" | wc -l)
	if [ "$pin_n" -lt 2 ]; then
		where="unpinned (one CPU)"
		return 0
	fi
	pin_last=$(echo "$pin_list" | tail -n 1)
	pin_rest=$(echo "$pin_list" | head -n $((pin_n - 1)) | paste -sd, -)
	server_on="taskset -c $pin_last"
	load_on="taskset -c $pin_rest"
	where="servers on CPU $pin_last, load on CPUs $pin_rest"
}
