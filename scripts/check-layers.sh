#!/bin/sh
# check-layers.sh - the library's include rule: a file in lib/<folder>/
# includes headers of its own folder (by bare name) and of folders of a
# lower or equal layer (as "folder/name.h"), never of a higher one. The
# layers, lowest first (doc/design/overview.md "Layers" says what each
# folder owns):
#
#   0  arch base
#   1  affinity
#   2  mem
#   3  proc
#   4  sched
#   5  reactor
#   6  actor
#   7  runtime
#
# Also: <hwloc.h>, <numa.h> and <numaif.h> are included only in
# lib/affinity/. A header named by a path that is not in lib/ (other
# than actors.h and config.h) is an error too, as is a bare name that is
# not in the including file's folder.
#
# Run from anywhere; `make check` runs it (tests/tests.am). Prints each
# violation as FILE:LINE: what, and exits 1 if there is one.
set -eu
cd "$(dirname "$0")/.."

layers='arch:0 base:0 affinity:1 mem:2 proc:3 sched:4 reactor:5 actor:6 runtime:7'

find lib -name '*.[chS]' | sort | awk -v layers="$layers" '
BEGIN {
	n = split(layers, l, " ")
	for (i = 1; i <= n; i++) {
		split(l[i], kv, ":")
		level[kv[1]] = kv[2]
	}
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
			continue
		}
		split(name, np, "/")
		to = np[1]
		if (!(to in level) || system("test -f \"lib/" name "\"") != 0) {
			printf "%s:%d: \"%s\" is not a header of lib/\n", file, line, name
			bad++
			continue
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
}'
