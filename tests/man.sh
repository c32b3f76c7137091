#!/bin/sh
# SPDX-License-Identifier: MIT
# Every man page of doc/man1 and doc/man3 reads from anywhere, as the
# README says to read them before installing: `man -l PAGE` run from
# another directory prints the page and nothing on stderr (an alias page
# that was a ".so man3/X.3" line failed so: "can't open man3/X.3"), and
# groff -man -ww (or mandoc -T lint) finds no warning in it. Each alias
# page is the copy of its page that scripts/man-aliases.sh makes. SKIP
# (77) only when none of man, groff and mandoc is installed. Run by
# `make check` from the build directory.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"

have() { command -v "$1" >/dev/null 2>&1; }
if ! have man && ! have groff && ! have mandoc; then
	echo "SKIP: none of man, groff or mandoc is installed: no page can be rendered"
	exit 77
fi
# man-db's sandbox fails in some containers; the pages are ours
MAN_DISABLE_SECCOMP=1
MANWIDTH=80
export MAN_DISABLE_SECCOMP MANWIDTH

pages=$(ls "$src"/doc/man1/*.1 "$src"/doc/man3/*.3)
n=$(echo "$pages" | wc -l)
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1

# render TOOL PAGE: the page rendered, stderr kept; why it failed, or ""
render() {
	case $1 in
	man) man -l "$2" >"$tmp/out" 2>"$tmp/err" </dev/null ;;
	groff) groff -man -Tutf8 -P -cbou -ww "$2" >"$tmp/out" 2>"$tmp/err" ;;
	mandoc) mandoc -T lint -W warning "$2" >"$tmp/err" 2>&1 &&
		mandoc -T utf8 "$2" >"$tmp/out" 2>>"$tmp/err" ;;
	esac
	rc=$?
	if [ "$rc" != 0 ] || [ -s "$tmp/err" ]; then
		echo "exit $rc: $(head -n 3 "$tmp/err" | tr '\n' ' ')"
	elif ! grep -q NAME "$tmp/out"; then
		echo "no NAME section in what it printed"
	fi
}

for tool in man groff mandoc; do
	if ! have $tool; then
		echo "$tool: not installed, not run"
		continue
	fi
	nbad=0
	for p in $pages; do
		why=$(render $tool "$p")
		if [ -n "$why" ]; then
			bad "$tool: ${p#"$src"/}: $why"
			nbad=$((nbad + 1))
		fi
	done
	[ "$nbad" = 0 ] && ok "$tool: all $n pages render from another directory, no warning"
done

# no page is a .so line; each alias is a copy of its page as it is now
sos=$(grep -l '^\.so' $pages)
if [ -z "$sos" ]; then
	ok "no page includes another (.so)"
else
	bad "pages with .so, which man -l resolves only from a man root:" \
		"$sos (run scripts/man-aliases.sh)"
fi
if out=$("$src/scripts/man-aliases.sh" --check 2>&1); then
	ok "$out"
else
	bad "$out"
fi

finish
