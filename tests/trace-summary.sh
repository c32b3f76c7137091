#!/bin/sh
# `actors trace` on the hand-written traces of tests/trace/ (README there
# says what each holds): the exact figures of each part of the report
# (shares, the top process, the longest slice, steal matrix cells, the
# reactor's I/O, drops), the same numbers in --json, the errors (bad
# JSON with its byte offset, no "traceEvents", a missing file: status 1
# and one line on stderr; bad usage: status 2), and a 200,000-event trace
# that tests/trace/gen-big.py writes at test time, on one line. Run by
# `make check` from the build directory. Prints one line per check and
# ends with "N passed, N failed" (scripts/summary.sh counts that).
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
actors=$(pwd)/tools/actors # make check runs in the build directory
fixtures=$src/tests/trace

has_json=false
command -v python3 >/dev/null 2>&1 && has_json=true

# run ARGS...: the tool in $tmp; stdout in $tmp/out, stderr in $tmp/err,
# status in rc.
run() {
	rc=0
	(cd "$tmp" && "$actors" trace "$@") >"$tmp/out" 2>"$tmp/err" || rc=$?
}

# has WHAT LINE: the output has LINE exactly (a fixed string).
has() {
	if grep -qxF -- "$2" "$tmp/out"; then
		ok "$1"
	else
		bad "$1: no line '$2' in: $(cat "$tmp/out" "$tmp/err")"
	fi
}

# fails WHAT STATUS MESSAGE: that status, nothing on stdout, MESSAGE
# the one line on stderr.
fails() {
	if [ "$rc" -eq "$2" ] && [ ! -s "$tmp/out" ] &&
		[ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		[ "$(cat "$tmp/err")" = "$3" ]; then
		ok "$1"
	else
		bad "$1: status $rc (wanted $2), stderr '$(cat "$tmp/err")'," \
			"wanted '$3'"
	fi
}

# py WHAT CODE: CODE holds for d, the --json object in $tmp/out.
py() {
	if ! $has_json; then
		echo "SKIP: $1 (no python3)"
	elif python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
'"$2" "$tmp/out" 2>"$tmp/pyerr"; then
		ok "$1"
	else
		bad "$1: $(tail -n 1 "$tmp/pyerr")"
	fi
}

cp "$fixtures"/*.json "$tmp/"

# ---- normal.json: two workers and the reactor
run normal.json
[ "$rc" -eq 0 ] && ok "normal: status 0" || bad "normal: status $rc"
has "normal: events" "  events    38 read, 0 not understood, 0 malformed"
has "normal: span" "  span      1000.000 us (0.000 to 1000.000)"
has "normal: workers" "  workers   2 (otherData: 2)"
has "normal: no drops" "  dropped   0"
has "normal: worker 0 shares" \
	"  worker 0 (cpu 1)      40.0%   10.0%   50.0%    0.0%       4       1       1        0"
has "normal: worker 1 shares, steals" \
	"  worker 1 (cpu 0)      25.1%   10.0%   65.0%    0.0%       2       2       6        0"
has "normal: the reactor's loops are its busy share" \
	"  reactor                1.0%    0.0%    0.0%   99.0%       0       0       0        0"
n=$(sed -n '/^processes by run time/{n;n;p;}' "$tmp/out")
if [ "$n" = "           8388609      350.000        3     116.667     150.000          50  ping" ]; then
	ok "normal: top process ping, 350 us in 3 runs"
else
	bad "normal: top process: '$n'"
fi
n=$(sed -n '/^longest run slices/{n;n;p;}' "$tmp/out")
if [ "$n" = "         1          8388612         20.000     200.000  muted    crunch" ]; then
	ok "normal: longest slice crunch, 200 us, muted"
else
	bad "normal: longest slice: '$n'"
fi
has "normal: matrix row w0" "  w0             -       1"
has "normal: matrix row w1 (6 stolen from w0)" "  w1             6       -"
has "normal: reactor totals" \
	"reactor: 2 loops, 3 SQEs, 3 CQEs, 2 timer fires"
has "normal: reads paired by id" \
	"  read                    2      40.000      60.000"
has "normal: writes" "  write                   1      10.000      10.000"
has "normal: all I/O paired" "  0 in flight at the end, 0 ends without a begin"

run --top 1 normal.json
has "normal --top 1: one process" "processes by run time (1 of 3)"
has "normal --top 1: one slice" "longest run slices (1)"

run --json normal.json
[ "$rc" -eq 0 ] && ok "normal --json: status 0" || bad "normal --json: $rc"
py "normal --json: header" '
assert d["events"] == 38 and d["workers"] == 2 and d["dropped"] == 0, d
assert d["span_us"] == 1000.0 and d["not_understood"] == 0, d'
py "normal --json: shares" '
t = {x["tid"]: x for x in d["tracks"]}
assert t[1]["busy_pct"] == 40.0 and t[1]["parked_pct"] == 50.0, t[1]
assert t[2]["busy_us"] == 250.5 and t[2]["stolen"] == 6, t[2]
assert t[3]["reactor"] and t[3]["busy_us"] == 10.0, t[3]'
py "normal --json: top process and slice" '
p = d["top_processes"][0]
assert (p["pid"], p["name"], p["run_us"], p["runs"]) == \
	(8388609, "ping", 350.0, 3), p
assert p["reductions"] == 50 and p["max_us"] == 150.0, p
s = d["longest_slices"][0]
assert (s["worker"], s["pid"], s["dur_us"], s["why"]) == \
	(1, 8388612, 200.0, "muted"), s'
py "normal --json: steal matrix" '
assert d["steals"]["matrix"] == [[0, 1], [6, 0]], d["steals"]'
py "normal --json: reactor" '
r = d["reactor"]
assert (r["loops"], r["sqes"], r["cqes"], r["timer_fires"]) == (2, 3, 3, 2), r
io = {x["op"]: x for x in r["io"]}
assert io["read"]["count"] == 2 and io["read"]["mean_us"] == 40.0, io
assert io["write"]["max_us"] == 10.0, io'

# ---- drops.json: otherData after the events, drops on three tracks
run drops.json
has "drops: total and per track" \
	"  dropped   20, worker 0 (cpu -) 12, worker 2 (cpu -) 3, reactor 5"
has "drops: the reactor's column" \
	"  reactor                0.2%    0.0%    0.0%   99.8%       0       0       0        5"
has "drops: matrix row w2 (10 from w0, 5 from w1)" \
	"  w2            10       5       -"
run --json drops.json
py "drops --json" '
assert d["dropped"] == 20, d["dropped"]
assert [t["dropped"] for t in d["tracks"]] == [12, 0, 3, 5], d["tracks"]
assert d["steals"]["matrix"][2] == [10, 5, 0], d["steals"]'

# ---- odd.json: escapes, unknown and malformed events, no reactor
run odd.json
has "odd: counted, not fatal" \
	"  events    11 read, 5 not understood, 1 malformed"
has "odd: ph Z counted" '            ph "Z": 2'
has "odd: an element that is no object" '            ph "(not an object)": 1'
has "odd: \\u0070arked is parked" \
	"  worker 1 (cpu -)       0.0%    0.0%  100.0%    0.0%       0       0       0        0"
has "odd: no reactor" "reactor: none in the trace"
run --json odd.json
py "odd --json: escapes decoded" '
names = [p["name"] for p in d["top_processes"]]
assert names == ["say \"hi\"\\n\u00e9\U0001F600\nend", "tab\there"], names
assert d["unknown_ph"] == {"Z": 2, "B": 1, "(none)": 1,
	"(not an object)": 1}, d["unknown_ph"]'

# ---- errors: status 1, one line
run truncated.json
fails "truncated: the offset, the end and what was expected" 1 \
	"actors trace: truncated.json: invalid JSON at byte 280 (the end of the file): expected ',' or '}'"
printf '{"traceEvents":[{"ph":"X",}]}' >"$tmp/comma.json"
run comma.json
fails "a comma before '}'" 1 \
	"actors trace: comma.json: invalid JSON at byte 26: expected a key (a string)"
printf '{"traceEvents":[{"ph":"X","ts":01}]}' >"$tmp/zero.json"
run zero.json
fails "a number with a leading zero" 1 \
	"actors trace: zero.json: invalid JSON at byte 32: expected ',' or '}'"
printf '{"traceEvents":[{"name":"a\tb"}]}' >"$tmp/ctl.json"
run ctl.json
fails "a raw tab in a string" 1 \
	"actors trace: ctl.json: invalid JSON at byte 26: expected no control character in a string (escape it)"
printf '{"traceEvents":[]} x' >"$tmp/tail.json"
run tail.json
fails "text after the object" 1 \
	"actors trace: tail.json: invalid JSON at byte 19: expected the end of the text"
run no-events.json
fails "no traceEvents" 1 \
	'actors trace: no-events.json: not a trace: no "traceEvents" array'
printf '[{"ph":"X"}]\n' >"$tmp/array.json"
run array.json
fails "an array, not an object" 1 \
	'actors trace: array.json: not a trace: no "traceEvents" array'
: >"$tmp/empty.json"
run empty.json
fails "an empty file" 1 \
	"actors trace: empty.json: invalid JSON at byte 0 (the end of the file): expected an object ('{')"
run missing.json
fails "a missing file" 1 \
	"actors trace: missing.json: No such file or directory"

# ---- usage: status 2
for args in "" "--top" "--top x normal.json" "--bogus normal.json" \
	"normal.json drops.json"; do
	# shellcheck disable=SC2086 # the words are the arguments
	run $args
	if [ "$rc" -eq 2 ] && [ ! -s "$tmp/out" ] &&
		grep -q "^actors trace: " "$tmp/err"; then
		ok "usage error '$args': status 2"
	else
		bad "usage error '$args': status $rc: $(cat "$tmp/err")"
	fi
done
run --help
[ "$rc" -eq 0 ] && grep -q '^usage: actors trace' "$tmp/out" &&
	ok "--help: status 0, the usage" || bad "--help: status $rc"

# ---- a big trace, made now, on one line
if $has_json; then
	python3 "$fixtures/gen-big.py" "$tmp/big.json" 16000
	start=$(date +%s)
	run --top 3 big.json
	secs=$(($(date +%s) - start))
	has "big: events" "  events    196646 read, 0 not understood, 0 malformed"
	has "big: worker 3's shares" \
		"  worker 3 (cpu 3)      60.0%   10.0%   30.0%    0.0%   16000     160     320        0"
	has "big: matrix row w3 (320 from w0)" \
		"  w3           320       0       0       -"
	has "big: 2000 reads of 5 us" \
		"  read                 2000       5.000       5.000"
	n=$(sed -n '/^processes by run time/{n;n;p;}' "$tmp/out")
	case $n in
	*" 8388609     3840.000      640       6.000       6.000         640  pé8388609")
		ok "big: top process (ties by pid)" ;;
	*) bad "big: top process: '$n'" ;;
	esac
	[ "$secs" -le 3 ] && ok "big: read in ${secs}s" ||
		bad "big: read in ${secs}s (over 3)"
	run --json big.json
	py "big --json" '
assert d["events"] == 196646 and d["processes"] == 100, d["events"]
assert all(t["busy_pct"] == 60.0 for t in d["tracks"][:4]), d["tracks"]
assert d["steals"]["matrix"][0] == [0, 320, 0, 0], d["steals"]'
else
	echo "SKIP: big trace (no python3 to write it)"
fi

finish
