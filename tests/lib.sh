# SPDX-License-Identifier: MIT
# lib.sh - what the shell tests share; sourced, after `set -u`:
#
#   . "$src/tests/lib.sh"   (src: the source tree, from $srcdir)
#
# It unsets every ACTORS_* variable of the caller's environment (a test
# sets what it needs), makes $tmp, a directory removed at exit, and
# gives ok/bad, which print one line per check, and finish, which prints
# "N passed, N failed" (scripts/summary.sh counts that) and is the
# script's exit status.
passed=0
failed=0
tmp=$(mktemp -d)

for v in $(env | sed -n 's/^\(ACTORS_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
trap 'rm -rf "$tmp"' EXIT

ok() { # ok WORDS...: one line, the words joined
	echo "PASS: $*"
	passed=$((passed + 1))
}
bad() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}
