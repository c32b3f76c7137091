#!/bin/sh
# SPDX-License-Identifier: MIT
# man-aliases.sh [--check]: make each alias page of doc/man3 (a function
# documented on another function's page, as act_io_read_timeout is on
# act_io_read's) a full copy of that page, so that it reads from
# anywhere: `man -l doc/man3/act_io_read_timeout.3` from any directory,
# and `man act_io_read_timeout` once installed. A ".so man3/X.3" line
# resolves only against a man root (the current directory for man -l),
# so the pages hold no .so.
#
# An alias page is one whose first line is either
#   .so man3/TARGET.3            (a new one: write that, run this)
#   .\" alias of man3/TARGET.3, ... (what this script writes: the line,
#                                 then TARGET.3 as it is)
# Edit TARGET.3, never the copy, then run this script. With --check it
# changes nothing: it names each copy that differs from its page and
# exits 1 (tests/man.sh runs it so).
set -eu
cd "$(dirname "$0")/../doc/man3"
check=0
[ "${1:-}" = --check ] && check=1
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
rc=0
n=0
for f in *.3; do
	first=$(head -n 1 "$f")
	case $first in
	".so man3/"*) target=${first#.so man3/} ;;
	'.\" alias of man3/'*)
		target=${first#.\\\" alias of man3/}
		target=${target%%,*}
		;;
	*) continue ;;
	esac
	n=$((n + 1))
	if [ ! -f "$target" ] || [ "$(head -n 1 "$target" | cut -c1-3)" = .so ]; then
		echo "doc/man3/$f: its page doc/man3/$target is missing or an alias" >&2
		rc=1
		continue
	fi
	{
		printf '.\\" alias of man3/%s, copied by scripts/man-aliases.sh: ' \
			"$target"
		printf 'edit that page, then run the script\n'
		cat "$target"
	} >"$tmp"
	if cmp -s "$tmp" "$f"; then
		continue
	fi
	if [ "$check" = 1 ]; then
		echo "doc/man3/$f: not a copy of doc/man3/$target as it is now: run scripts/man-aliases.sh" >&2
		rc=1
	else
		cp "$tmp" "$f"
		echo "doc/man3/$f: copied from $target"
	fi
done
[ "$check" = 1 ] && [ "$rc" = 0 ] && echo "$n alias pages, each a copy of its page"
exit $rc
