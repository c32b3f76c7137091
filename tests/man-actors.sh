#!/bin/sh
# SPDX-License-Identifier: MIT
# actors(1), doc/man1/actors.1, against the tool it documents: every
# command that `actors help` lists has a heading of its own (.SS "actors
# NAME"), as has each form of `actors bench --help`; every --option of
# every help text (the tool's, each command's, each stress test's) and
# every bench workload and stress test is named in the page; and groff
# renders the page without a warning. The options are compared with the
# page's text once groff's escapes are taken out (\- is -, \fB is
# nothing). Run by `make check` from the build directory.
set -u
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)
. "$src/tests/lib.sh"
actors=$(pwd)/tools/actors # make check runs in the build directory
page=$src/doc/man1/actors.1

if [ ! -f "$page" ]; then
	bad "no page: $page"
	finish
	exit
fi
# the page's text: \- as -, no font changes, no zero-width \&
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\&//g' \
	"$page" >"$tmp/page"

# has WORD: the page names WORD, not as a part of a longer option or name
has() {
	grep -Eq -- "(^|[^A-Za-z0-9_-])$1([^A-Za-z0-9_-]|\$)" "$tmp/page"
}

# check WHAT FILE [WORD...]: every --option of FILE (a help text) and
# every WORD is in the page; one line for all of them
check() {
	what=$1
	file=$2
	shift 2
	words=$(grep -o -- '--[A-Za-z][A-Za-z0-9-]*' "$file" | sort -u)
	missing=
	n=0
	for w in $words "$@"; do
		n=$((n + 1))
		has "$w" || missing="$missing $w"
	done
	if [ "$n" = 0 ]; then
		bad "$what: no option found in its help text: $(cat "$file")"
	elif [ -n "$missing" ]; then
		bad "$what: not in the page:$missing"
	else
		ok "$what: its $n options and names are in the page"
	fi
}

# helptext ARGS...: the help text of `actors ARGS` (on stdout; stderr too)
# in $tmp/help; false, and said, when that does not exit 0
helptext() {
	"$actors" "$@" >"$tmp/help" 2>&1
	rc=$?
	[ "$rc" = 0 ] && return 0
	bad "actors $*: exit $rc: $(cat "$tmp/help")"
	return 1
}

# 1. a heading for every command of `actors help`
if helptext help; then
	cp "$tmp/help" "$tmp/commands"
	cmds=$(awk '/^commands:/ { on = 1; next }
		on && /^  [^ ]/ { print $1 }' "$tmp/commands")
	if [ -z "$cmds" ]; then
		bad "actors help lists no command: $(cat "$tmp/commands")"
	fi
	for c in $cmds; do
		if grep -qxF -e ".SS \"actors $c\"" -e ".SS actors $c" \
			"$tmp/page"; then
			ok "actors $c: has its .SS heading"
		else
			bad "actors $c: no .SS \"actors $c\" in $page"
		fi
	done
	check "actors help" "$tmp/commands"
fi

# 2. bench: its other forms (each a heading), options and workloads
if helptext bench --help; then
	cp "$tmp/help" "$tmp/bench"
	forms=$(sed -n -e 's/^usage: actors //p' -e 's/^ *or: actors //p' \
		"$tmp/bench" | awk '$1 == "bench" && $2 ~ /^[a-z]+$/ {
			print $1 " " $2 }')
	while read -r f; do
		[ -n "$f" ] || continue
		if grep -qxF ".SS \"actors $f\"" "$tmp/page"; then
			ok "actors $f: has its .SS heading"
		else
			bad "actors $f: no .SS \"actors $f\" in $page"
		fi
	done <<EOF
$forms
EOF
	# shellcheck disable=SC2046
	check "actors bench --help" "$tmp/bench" \
		$(sed -n 's/^workloads: //p' "$tmp/bench")
fi

# 3. the other commands' options
for c in "bench echo" "bench timeouts" topo trace vars stress; do
	# shellcheck disable=SC2086
	helptext $c --help && check "actors $c --help" "$tmp/help"
done

# 4. each stress test: its name and its own options
if "$actors" stress --list >"$tmp/list" 2>&1 && [ -s "$tmp/list" ]; then
	# shellcheck disable=SC2013 # one word a line
	for t in $(awk '{ print $1 }' "$tmp/list"); do
		helptext stress "$t" --help &&
			check "actors stress $t --help" "$tmp/help" "$t"
	done
else
	bad "actors stress --list: $(cat "$tmp/list")"
fi

# 5. groff renders it without a warning
if command -v groff >/dev/null 2>&1; then
	if groff -man -Tutf8 -ww -z "$page" >"$tmp/groff" 2>&1 &&
		[ ! -s "$tmp/groff" ]; then
		ok "groff -man -ww renders the page without a warning"
	else
		bad "groff -man -ww: $(cat "$tmp/groff")"
	fi
else
	echo "SKIP: groff is not installed: the page's rendering is not checked"
fi

finish
