#!/bin/sh
# The runtime's benchmark workloads against Go: the programs of bench/
# (pingpong, ring, skynet, fanin, spawnburst) and their Go peer,
# bench/peers/go_bench, which does the same work with goroutines and
# channels, checks the same checksum and times the same span
# (bench/bench.h, "Timing"). Each round runs, for each worker count W,
# each workload with actors (ACTORS_SCHEDULERS=W), then with Go
# (GOMAXPROCS=W), one right after the other, so that a round's ratio is
# fair even when this machine's speed drifts between rounds.
#
# It prints, per workload and W, each side's time per operation (the
# median over the rounds) and actors/go, the median of the rounds' time
# ratios (below 1: actors faster). The operations:
#
#   pingpong    ns/msg   per message (2 a round trip)
#   ring        ns/hop   per hop of the token
#   skynet      ns/proc  per process (goroutine) of the tree, spawned,
#                        run and replied: 1,111,111 for a million leaves
#   fanin       ns/msg   per message received
#   spawnburst  ns/step  per xorshift64 step of the children's work
#
# Then, against the first worker count B (1 by default), each other W's
# scaling, the median of the rounds' ratios, for both sides: skynet's and
# spawnburst's speedup tB/tW, and fanin's time tW/tB (the issue's targets
# at 1 -> 2 workers: spawnburst >= 1.9x, fanin <= 1.05).
#
#   PEERS_ROUNDS=R      rounds; default 5
#   PEERS_WORKERS="1 2" worker counts, the first the base of the
#                       scaling; those above the CPUs this script may
#                       use (nproc) are dropped; default "1 2"
#   PEERS_WORKLOADS="pingpong ..."  a subset, in this order; default all
#   PEERS_PINGPONG_ROUNDS=N        default 2000000
#   PEERS_RING_PROCS=N             default 503
#   PEERS_RING_HOPS=N              default 4000000
#   PEERS_SKYNET_LEAVES=N          default 1000000 (window 10)
#   PEERS_FANIN_SENDERS=N          default 100
#   PEERS_FANIN_MESSAGES=N         per sender; default 100000
#   PEERS_FANIN_WINDOW=N           ACK window, 0: none; default 1000
#   PEERS_SPAWNBURST_CHILDREN=N    default 100
#   PEERS_SPAWNBURST_TOTAL=N       steps in all; default 400000000
#   PEERS_TIMEOUT=S     give up on one run after S seconds; default 300
#   PEERS_OUT=FILE      also write every run to FILE, a line each:
#                       "workload workers round impl seconds ops" (impl
#                       actors or go; seconds "-" for a failed run; ops
#                       the operations above), for scripts/plot-peers.sh
#   PEERS_BUILD=NAME    use build/NAME; default release
#   PEERS_NO_BUILD=1    skip scripts/build.sh and use build/NAME as it is
#                       (the Go peer is still built); default 0
#
# The default sizes are meant for 0.2 to 1 s a run on the 2-CPU
# development VM (sized from doc/benchmarks.md's figures for ours and
# 1/100-size runs of Go's), about a minute in all at the defaults.
# Builds first: scripts/install-deps.sh --bench (golang-go), then
# scripts/build.sh NAME, then the Go peer with `go build` (no proxy, no
# network: the module has no dependencies) into build/NAME/bench/peers/.
# ACTORS_STATS is off; other ACTORS_* and GO* variables pass through.
# Exits 2 for a bad setting, 1 if a run failed (an error, a timeout, a
# wrong checksum, or actors' and Go's checksums differing).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
# shellcheck source=scripts/go-peer.sh
. scripts/go-peer.sh
rounds=${PEERS_ROUNDS:-5}
counts=${PEERS_WORKERS:-1 2}
wls=${PEERS_WORKLOADS:-pingpong ring skynet fanin spawnburst}
pp_rounds=${PEERS_PINGPONG_ROUNDS:-2000000}
ring_procs=${PEERS_RING_PROCS:-503}
ring_hops=${PEERS_RING_HOPS:-4000000}
sky_leaves=${PEERS_SKYNET_LEAVES:-1000000}
fi_senders=${PEERS_FANIN_SENDERS:-100}
fi_msgs=${PEERS_FANIN_MESSAGES:-100000}
fi_window=${PEERS_FANIN_WINDOW:-1000}
sb_children=${PEERS_SPAWNBURST_CHILDREN:-100}
sb_total=${PEERS_SPAWNBURST_TOTAL:-400000000}
limit=${PEERS_TIMEOUT:-300}
out_file=${PEERS_OUT:-}
name=${PEERS_BUILD:-release}
no_build=${PEERS_NO_BUILD:-0}
build=build/$name
tmp=
failed=0

usage_error() {
	echo "bench-peers: $1" >&2
	exit 2
}

# number VAR VALUE MIN MAX: VALUE is a whole decimal number in [MIN, MAX]
# (no sign, no leading zero; MAX at most 18 digits, so the shell's
# arithmetic holds it).
number() {
	case $2 in
	'' | *[!0-9]* | 0?*) usage_error "$1 must be a whole number, not '$2'" ;;
	esac
	if [ "${#2}" -gt 18 ] || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		usage_error "$1 must be from $3 to $4, not $2"
	fi
}

check_env() {
	number PEERS_ROUNDS "$rounds" 1 1000000
	number PEERS_TIMEOUT "$limit" 1 1000000
	number PEERS_PINGPONG_ROUNDS "$pp_rounds" 1 999999999999999999
	number PEERS_RING_PROCS "$ring_procs" 1 16777216
	number PEERS_RING_HOPS "$ring_hops" 1 999999999999999999
	number PEERS_SKYNET_LEAVES "$sky_leaves" 1 1000000000
	number PEERS_FANIN_SENDERS "$fi_senders" 1 1048576
	number PEERS_FANIN_MESSAGES "$fi_msgs" 1 1099511627775
	number PEERS_FANIN_WINDOW "$fi_window" 0 1073741824
	number PEERS_SPAWNBURST_CHILDREN "$sb_children" 1 1000000
	number PEERS_SPAWNBURST_TOTAL "$sb_total" 1 999999999999999999
	[ "$sb_total" -ge "$sb_children" ] ||
		usage_error "PEERS_SPAWNBURST_TOTAL must be at least PEERS_SPAWNBURST_CHILDREN"
	case $no_build in
	0 | 1) ;;
	*) usage_error "PEERS_NO_BUILD must be 0 or 1, not '$no_build'" ;;
	esac
	seen=
	for wl in $wls; do
		case $wl in
		pingpong | ring | skynet | fanin | spawnburst) ;;
		*) usage_error "PEERS_WORKLOADS: '$wl' is not pingpong, ring, skynet, fanin or spawnburst" ;;
		esac
		case " $seen " in
		*" $wl "*) usage_error "PEERS_WORKLOADS: '$wl' twice" ;;
		esac
		seen="$seen $wl"
	done
	[ -n "$seen" ] || usage_error "PEERS_WORKLOADS is empty"
	cpus=$(nproc)
	seen=
	for w in $counts; do
		number PEERS_WORKERS "$w" 1 4096
		case " $seen " in
		*" $w "*) usage_error "PEERS_WORKERS: $w twice" ;;
		esac
		if [ "$w" -gt "$cpus" ]; then
			echo "bench-peers: $w workers dropped: $cpus CPUs" >&2
		else
			seen="$seen $w"
		fi
	done
	[ -n "$seen" ] || usage_error "PEERS_WORKERS: no count of $cpus or fewer"
	counts=${seen# }
}

cleanup() {
	[ -z "$tmp" ] || rm -rf "$tmp"
}

build_all() {
	scripts/install-deps.sh --bench
	if [ "$no_build" -eq 0 ]; then
		scripts/build.sh "$name" >&2
	fi
	for p in pingpong ring skynet fanin spawnburst; do
		[ -x "$build/bench/$p" ] || {
			echo "bench-peers: no $build/bench/$p" >&2
			exit 1
		}
	done
	go_peer_build bench-peers go_bench
}

# args WORKLOAD: its arguments, the same for both programs.
args() {
	case $1 in
	pingpong) echo "$pp_rounds" ;;
	ring) echo "$ring_procs $ring_hops" ;;
	skynet) echo "$sky_leaves" ;;
	fanin) echo "$fi_senders $fi_msgs $fi_window" ;;
	spawnburst) echo "$sb_children $sb_total" ;;
	esac
}

# expect WORKLOAD: its checksum (bench/bench.h), or nothing for
# spawnburst's, which only the programs compute (they check it; here
# actors' and Go's must agree).
expect() {
	case $1 in
	pingpong) echo $((2 * pp_rounds)) ;;
	ring) echo "$ring_hops" ;;
	skynet) echo $((sky_leaves * (sky_leaves - 1) / 2)) ;;
	fanin) echo $((fi_senders * fi_msgs)) ;;
	esac
}

# ops WORKLOAD: what its time per operation divides by (see the top).
ops() {
	case $1 in
	pingpong) echo $((2 * pp_rounds)) ;;
	ring) echo "$ring_hops" ;;
	skynet)
		# the tree's processes, split as bench/skynet.c splits it
		awk -v l="$sky_leaves" '
		function nodes(l,    n, small, big) {
			if (l <= 1)
				return 1
			n = l < 10 ? l : 10
			small = int(l / n)
			big = l % n
			return 1 + (n - big) * nodes(small) + \
				(big ? big * nodes(small + 1) : 0)
		}
		BEGIN { printf "%.0f\n", nodes(l) }'
		;;
	fanin) echo $((fi_senders * fi_msgs)) ;;
	spawnburst) echo $((sb_total / sb_children * sb_children)) ;;
	esac
}

# run_one IMPL WORKERS WORKLOAD: one run; sets result to "CHECKSUM
# SECONDS", or to nothing when it failed (and says why).
run_one() {
	result=
	rc=0
	# shellcheck disable=SC2046 # args: the numbers, split on purpose
	if [ "$1" = actors ]; then
		out=$(ACTORS_SCHEDULERS=$2 ACTORS_STATS=0 timeout "$limit" \
			"$build/bench/$3" $(args "$3") </dev/null \
			2>"$tmp/err") || rc=$?
	else
		out=$(GOMAXPROCS=$2 timeout "$limit" \
			"$build/bench/peers/go_bench" "$3" $(args "$3") \
			</dev/null 2>"$tmp/err") || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		why="exit status $rc"
		[ "$rc" -ne 124 ] || why="timed out after $limit s"
		echo "bench-peers: $1 $3 $(args "$3"), $2 worker(s): $why" >&2
		cat "$tmp/err" >&2
		return 0
	fi
	result=$(echo "$out" | awk -v wl="$3" '
		$1 == "RESULT" && $2 == wl && NF == 4 { print $3, $4; n++ }
		END { exit n != 1 }') || {
		echo "bench-peers: $1 $3: no RESULT line in: $out" >&2
		result=
	}
}

# pair ROUND WORKERS WORKLOAD: actors then Go; appends both to the runs.
# (No local variables in sh: none of these names is the callers'.)
pair() {
	want=$(expect "$3")
	nops=$(ops "$3")
	run_one actors "$2" "$3"
	a=$result
	run_one go "$2" "$3"
	g=$result
	for side in actors go; do
		if [ "$side" = actors ]; then res=$a; else res=$g; fi
		if [ -n "$res" ] && [ -n "$want" ] && [ "${res% *}" != "$want" ]; then
			echo "bench-peers: $side $3: checksum ${res% *}, expected $want" >&2
			res=
		fi
		if [ "$side" = actors ]; then a=$res; else g=$res; fi
	done
	if [ -n "$a" ] && [ -n "$g" ] && [ "${a% *}" != "${g% *}" ]; then
		echo "bench-peers: $3: checksums differ: actors ${a% *}, go ${g% *}" >&2
		a=
		g=
	fi
	[ -n "$a" ] && [ -n "$g" ] || failed=1
	sa=${a#* } sg=${g#* }
	[ -n "$a" ] || sa=-
	[ -n "$g" ] || sg=-
	echo "$3 $2 $1 actors $sa $nops" >>"$tmp/runs"
	echo "$3 $2 $1 go $sg $nops" >>"$tmp/runs"
}

# summary FILE: the tables, from FILE's runs (see PEERS_OUT).
summary() {
	awk -v rounds="$rounds" -v counts="$counts" -v wls="$wls" '
	function median(v, n,    i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	# t[WL, W, R, IMPL]: the seconds of a run that went well
	$5 != "-" { t[$1, $2, $3, $4] = $5; ops[$1] = $6 }
	function ok(wl, w, r, impl) { return ((wl, w, r, impl) in t) }
	# the median over the rounds of each side time per operation
	function per_op(wl, w, impl,    r, n, v) {
		n = 0
		for (r = 1; r <= rounds; r++)
			if (ok(wl, w, r, impl))
				v[++n] = t[wl, w, r, impl] * 1e9 / ops[wl]
		return n ? sprintf("%10.2f", median(v, n)) : sprintf("%10s", "FAIL")
	}
	# the median of the rounds ratios a / b, where a is t[A...] and b
	# t[B...]; "-" when no round has both
	function ratio(wla, wa, ia, wlb, wb, ib,    r, n, v) {
		n = 0
		for (r = 1; r <= rounds; r++)
			if (ok(wla, wa, r, ia) && ok(wlb, wb, r, ib) &&
			    t[wlb, wb, r, ib] > 0)
				v[++n] = t[wla, wa, r, ia] / t[wlb, wb, r, ib]
		return n ? median(v, n) : -1
	}
	function each(wl, w,    r, line) {
		line = ""
		for (r = 1; r <= rounds; r++)
			if (ok(wl, w, r, "actors") && ok(wl, w, r, "go") &&
			    t[wl, w, r, "go"] > 0)
				line = line sprintf(" %.2f",
					t[wl, w, r, "actors"] / t[wl, w, r, "go"])
			else
				line = line " -"
		return line
	}
	function fmt(x, suffix) {
		return x < 0 ? sprintf("%8s", "-") : sprintf("%7.2f%s", x, suffix)
	}
	END {
		nw = split(counts, ws, " ")
		nl = split(wls, wk, " ")
		unit["pingpong"] = "ns/msg"; unit["ring"] = "ns/hop"
		unit["skynet"] = "ns/proc"; unit["fanin"] = "ns/msg"
		unit["spawnburst"] = "ns/step"
		printf "\n%-11s %7s %-8s %10s %10s %9s  %s\n", "workload",
			"workers", "unit", "actors", "go", "actors/go",
			"each round"
		for (i = 1; i <= nl; i++)
			for (k = 1; k <= nw; k++) {
				x = ratio(wk[i], ws[k], "actors", wk[i], ws[k], "go")
				printf "%-11s %7d %-8s %s %s %9s %s\n", wk[i], ws[k],
					unit[wk[i]], per_op(wk[i], ws[k], "actors"),
					per_op(wk[i], ws[k], "go"),
					x < 0 ? "-" : sprintf("%.2f", x), each(wk[i], ws[k])
			}
		if (nw < 2)
			exit
		b = ws[1]
		printf "\n%-11s %-10s %8s %8s  %s\n", "scaling", "ratio",
			"actors", "go", "target (at 1 -> 2 workers)"
		for (i = 1; i <= nl; i++) {
			if (wk[i] != "skynet" && wk[i] != "spawnburst" &&
			    wk[i] != "fanin")
				continue
			for (k = 2; k <= nw; k++) {
				w = ws[k]
				if (wk[i] == "fanin") {
					name = "t" w "/t" b
					xa = ratio(wk[i], w, "actors", wk[i], b, "actors")
					xg = ratio(wk[i], w, "go", wk[i], b, "go")
					sfx = " "
				} else {
					name = "t" b "/t" w
					xa = ratio(wk[i], b, "actors", wk[i], w, "actors")
					xg = ratio(wk[i], b, "go", wk[i], w, "go")
					sfx = "x"
				}
				target = ""
				if (b == 1 && w == 2 && wk[i] == "spawnburst")
					target = ">= 1.9x: " (xa < 0 ? "-" : \
						xa >= 1.9 ? "met" : "missed")
				if (b == 1 && w == 2 && wk[i] == "fanin")
					target = "<= 1.05: " (xa < 0 ? "-" : \
						xa <= 1.05 ? "met" : "missed")
				line = sprintf("%-11s %-10s %s %s  %s", wk[i], name,
					fmt(xa, sfx), fmt(xg, sfx), target)
				sub(/ +$/, "", line)
				print line
			}
		}
	}' "$1"
}

check_env
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
build_all
tmp=$(mktemp -d)
: >"$tmp/runs"
echo "bench-peers: $build, $rounds round(s), workers $counts, $(nproc) CPUs," \
	"$(go version | sed 's/^go version //'), $(uname -r)"
sizes=
for wl in $wls; do
	sizes="$sizes, $wl $(args "$wl")"
done
echo "bench-peers: ${sizes#, }"
r=1
while [ "$r" -le "$rounds" ]; do
	for w in $counts; do
		echo "bench-peers: round $r of $rounds, $w worker(s)" >&2
		for wl in $wls; do
			pair "$r" "$w" "$wl"
		done
	done
	r=$((r + 1))
done
[ -z "$out_file" ] || cp "$tmp/runs" "$out_file"
summary "$tmp/runs"
if [ "$failed" -ne 0 ]; then
	echo "bench-peers: a run failed (see above)" >&2
	exit 1
fi
