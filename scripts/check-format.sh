#!/bin/sh
# SPDX-License-Identifier: MIT
# check-format.sh - every C file of the tree is as clang-format 14 writes
# it with the project's .clang-format (kernel style). `make check` runs it
# (tests/format.sh); prints each file that differs and the start of its
# diff, and exits 1 if there is one.
#
#   scripts/check-format.sh          check
#   scripts/check-format.sh --fix    rewrite the files that differ
#
# The formatter is pinned: clang-format's output changes between major
# versions, so only version 14 (Debian 12's clang-format-14, installed by
# scripts/install-deps.sh) is used. $CLANG_FORMAT names another binary of
# that version. Without one it exits 77, the automake code for a skipped
# test, saying why.
#
# The files: git's C files in a clone, else (a release tarball) the .c
# and .h files under the source folders, generated ones left out.
set -eu
cd "$(dirname "$0")/.."
fix=no
case ${1-} in
--fix) fix=yes ;;
"") ;;
*) echo "usage: check-format.sh [--fix]" >&2; exit 2 ;;
esac

cf=
for c in ${CLANG_FORMAT-} clang-format-14 clang-format; do
	if command -v "$c" >/dev/null 2>&1 &&
		"$c" --version 2>/dev/null | grep -q 'version 14\.'; then
		cf=$c
		break
	fi
done
if [ -z "$cf" ]; then
	echo "check-format: skipped: no clang-format 14 (install clang-format-14:" \
		"scripts/install-deps.sh); the format is pinned to that version" >&2
	exit 77
fi

if [ -d .git ] || [ -f .git ]; then
	files=$(git ls-files '*.c' '*.h')
else
	files=$(find bench examples include lib stress tests tools \
		-name '*.[ch]' ! -name version.h ! -name config.h | sort)
fi

bad=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for f in $files; do
	"$cf" --style=file "$f" >"$tmp"
	if ! cmp -s "$f" "$tmp"; then
		bad=$((bad + 1))
		if [ $fix = yes ]; then
			cp "$tmp" "$f"
			echo "check-format: rewrote $f"
		else
			echo "check-format: $f is not as $cf writes it:"
			diff -u "$f" "$tmp" | sed -n '3,23p'
		fi
	fi
done
n=$(echo "$files" | wc -w)
if [ $fix = yes ]; then
	echo "check-format: $bad of $n files rewritten"
	exit 0
fi
if [ $bad -gt 0 ]; then
	echo "check-format: $bad of $n files differ: scripts/check-format.sh --fix" \
		"rewrites them" >&2
	exit 1
fi
echo "check-format: $n files as $cf writes them"
