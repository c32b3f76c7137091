#!/bin/sh
# check-layers.sh - the library's include rule: a file in lib/<folder>/
# includes headers of its own folder (by bare name) and of folders of a
# lower or equal layer (as "folder/name.h"), never of a higher one. The
# layers, lowest first (doc/design/overview.md "Layers" says what each
# folder owns):
#
#   0  arch base
#   1  settings
#   2  affinity
#   3  mem
#   4  proc
#   5  sched
#   6  reactor
#   7  actor
#   8  node
#   9  otp
#  10  dist
#
# The wire layer of lib/dist/ (Erlang distribution), `wire` below,
# includes lib/base/'s headers only: it is pure functions on byte
# buffers, with no runtime under it (doc/design/distribution.md "Wire").
#
# Also: <hwloc.h>, <numa.h> and <numaif.h> are included only in
# lib/affinity/, and so are affinity's headers that include them: their
# types do not leak out (the others declare hwloc's structs instead). A header named by a path that is not in lib/ (other
# than actors.h and config.h) is an error too, as is a bare name that is
# not in the including file's folder.
#
# With a build directory (scripts/check-layers.sh build/release; `make
# check` gives its own, tests/layers.sh), also the calls: each object of
# the library (BUILD/lib/<folder>/libactors_core_la-<name>.o, for the
# sources there are) may refer only to symbols defined in its own or a
# lower layer, but for the calls that go up by design, each declared in
# the lower layer's header (doc/design/overview.md "Layers"; the
# list `hooks` below).
#
# Prints each violation as FILE:LINE: what, and exits 1 if there is one.
set -eu
build=
if [ $# -gt 0 ]; then
	build=$(cd "$1" && pwd) || { echo "check-layers: no build directory $1" >&2; exit 2; }
fi
cd "$(dirname "$0")/.."

layers='arch:0 base:0 settings:1 affinity:2 mem:3 proc:4 sched:5 reactor:6 actor:7 node:8 otp:9 dist:10'
# lib/dist/'s wire layer: these files include lib/base/ and each other only
wire='lib/dist/md5 lib/dist/epmd lib/dist/flags lib/dist/handshake'
hooks='act__links_exit act__spawn_exit_now act__spawn_die_if_killed act__timer_arm
act__timer_fire act__timer_release act__timer_destroy_all
act__info_dump_requested act__observe_watch act__reactor_inline_turn
act__reactor_inline_sleep act__route_send act__route_stop act__route_proxy
act__route_stats act__route_figures act__route_trace'

status=0
# affinity's headers that include hwloc's or libnuma's: affinity's own
leaky=$(grep -l '^[ 	]*#[ 	]*include[ 	]*<\(hwloc\|numa\|numaif\)\.h>' \
	lib/affinity/*.h | sed 's|^lib/||' | tr '\n' ' ')
find lib -name '*.[chS]' | sort | awk -v layers="$layers" -v leaky="$leaky" -v wire="$wire" '
BEGIN {
	n = split(layers, l, " ")
	for (i = 1; i <= n; i++) {
		split(l[i], kv, ":")
		level[kv[1]] = kv[2]
	}
	n = split(leaky, lk, " ")
	for (i = 1; i <= n; i++)
		leak[lk[i]] = 1
	n = split(wire, w, " ")
	for (i = 1; i <= n; i++)
		pure[w[i]] = 1
	bad = 0
}
{
	file = $0
	split(file, part, "/")
	folder = part[2]
	if (!(folder in level)) {
		printf "%s: in no layer (lib/%s/ is not in scripts/check-layers.sh)\n", file, folder
		bad++
		next
	}
	dir = file
	sub(/\/[^\/]*$/, "", dir)
	stem = file
	sub(/\.[chS]$/, "", stem)
	line = 0
	while ((getline text < file) > 0) {
		line++
		if (text ~ /^[ \t]*#[ \t]*include[ \t]*</) {
			if (folder != "affinity" &&
			    text ~ /<(hwloc|numa|numaif)\.h>/) {
				printf "%s:%d: %s outside lib/affinity/\n", file, line, text
				bad++
			}
			continue
		}
		if (text !~ /^[ \t]*#[ \t]*include[ \t]*"/)
			continue
		name = text
		sub(/^[^"]*"/, "", name)
		sub(/".*$/, "", name)
		if (name == "actors.h" || name == "config.h")
			continue
		if (name !~ /\//) {
			if (system("test -f \"" dir "/" name "\"") != 0) {
				printf "%s:%d: \"%s\" is not in %s/\n", file, line, name, dir
				bad++
			}
			peer = dir "/" name
			sub(/\.h$/, "", peer)
			if ((stem in pure) && !(peer in pure)) {
				printf "%s:%d: includes %s: the wire layer of lib/dist/ includes lib/base/ and its own files only\n", file, line, name
				bad++
			}
			continue
		}
		split(name, np, "/")
		to = np[1]
		if (!(to in level) || system("test -f \"lib/" name "\"") != 0) {
			printf "%s:%d: \"%s\" is not a header of lib/\n", file, line, name
			bad++
			continue
		}
		if (folder != "affinity" && (name in leak)) {
			printf "%s:%d: includes %s, which includes hwloc or libnuma: only lib/affinity/ may\n", file, line, name
			bad++
		}
		if ((stem in pure) && to != "base") {
			printf "%s:%d: includes %s: the wire layer of lib/dist/ includes lib/base/ and its own files only\n", file, line, name
			bad++
		}
		if (level[to] > level[folder]) {
			printf "%s:%d: includes %s (layer %d %s) from layer %d %s: upward\n", file, line, name, level[to], to, level[folder], folder
			bad++
		}
	}
	close(file)
}
END {
	if (bad) {
		printf "check-layers: %d include(s) against the layers\n", bad
		exit 1
	}
}' || status=1

[ -n "$build" ] || exit "$status"
command -v nm >/dev/null || { echo "check-layers: no nm" >&2; exit 2; }
# "folder def|use symbol source" for every object of a source there is
# (of the other CPU architecture's none is built)
syms=$(mktemp)
trap 'rm -f "$syms"' EXIT
for src in $(find lib -name '*.[cS]' | sort); do
	folder=${src#lib/}
	folder=${folder%%/*}
	base=${src##*/}
	obj=$build/${src%/*}/libactors_core_la-${base%.*}.o
	# libtool keeps the PIC object in .libs/ (and only there with
	# --disable-static)
	[ -f "$obj" ] || obj=$build/${src%/*}/.libs/libactors_core_la-${base%.*}.o
	if [ ! -f "$obj" ]; then
		case $src in
		lib/arch/*/*) continue ;;
		esac
		echo "check-layers: $obj is missing: build first" >&2
		exit 2
	fi
	nm "$obj" | awk -v f="$folder" -v o="$src" '
		NF == 3 && $2 ~ /^[TDBR]$/ { print f, "def", $3, o }
		NF == 2 && $1 == "U" { print f, "use", $2, o }'
done >"$syms"
awk -v layers="$layers" -v hooks="$hooks" '
BEGIN {
	n = split(layers, l, " ")
	for (i = 1; i <= n; i++) {
		split(l[i], kv, ":")
		level[kv[1]] = kv[2]
	}
	n = split(hooks, h, /[ \n]+/)
	for (i = 1; i <= n; i++)
		hook[h[i]] = 1
}
$2 == "def" { def[$3] = $1 }
$2 == "use" { nu++; uf[nu] = $1; us[nu] = $3; uo[nu] = $4 }
END {
	bad = 0
	for (i = 1; i <= nu; i++) {
		s = us[i]
		if (!(s in def) || level[def[s]] <= level[uf[i]] || (s in hook))
			continue
		printf "%s: calls %s of layer %d %s from layer %d %s: upward\n", uo[i], s, level[def[s]], def[s], level[uf[i]], uf[i]
		bad++
	}
	if (bad) {
		printf "check-layers: %d call(s) against the layers\n", bad
		exit 1
	}
}' "$syms" || status=1
exit "$status"
