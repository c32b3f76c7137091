#!/bin/sh
# The ACTORS_* variables the runtime reads are one table,
# lib/settings/vars.c, which `actors vars` prints. The docs must list
# exactly its entries:
#   - README.md's table under "## Environment": the same names, and each
#     default the same (a cell that starts with `x` says the default is
#     x; one that does not, that it is computed: `-` in the table);
#   - act_config_init(3)'s ENVIRONMENT section: its entries, from the
#     first .TP to the next .SH, are what `actors vars --man` prints, line
#     for line;
#   - README.md and doc/ name no ACTORS_ variable that is not in it;
#   - its test class (ACT_TEST_*, `actors vars --test`) is doc/testing.md's
#     table of the library's switches, and the docs name no other
#     ACT_TEST_ variable than those and the test programs' own.
# Then each default, given as the variable's value, starts act_main with
# nothing on stderr: the default is a value the variable takes, and the
# warning about unknown names knows the name. Run by `make check` from
# the build directory; prints one line per check and ends with
# "N passed, N failed" (scripts/summary.sh counts that).
set -u
passed=0
failed=0
tmp=$(mktemp -d)
actors=$(pwd)/tools/actors # make check runs in the build directory
hello=$(pwd)/examples/hello
src=$(cd "${srcdir:-$(dirname "$0")/..}" && pwd)

# The caller's own settings must not reach the runs of act_main below.
for v in $(env | sed -n 's/^\(ACTORS_[A-Za-z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done

cleanup() {
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() {
	echo "PASS: $1"
	passed=$((passed + 1))
}

bad() {
	echo "FAIL: $1"
	failed=$((failed + 1))
}

# same WHAT A B: files A and B hold the same lines, else say which differ
same() {
	if diff -u "$2" "$3" >"$tmp/diff"; then
		ok "$1"
	else
		bad "$1: - $(basename "$2"), + $(basename "$3"):"
		sed -n '3,$p' "$tmp/diff"
	fi
}

if ! "$actors" vars >"$tmp/vars" 2>"$tmp/err" || [ -s "$tmp/err" ] ||
	[ ! -s "$tmp/vars" ]; then
	bad "actors vars: $(cat "$tmp/err")"
	echo "$passed passed, $failed failed"
	exit 1
fi
ok "actors vars: $(wc -l <"$tmp/vars") variables"
# name and default, as the README gives them
cut -f 1,2 "$tmp/vars" | tr '\t' ' ' | sort >"$tmp/table"

# README.md: the rows of the table under "## Environment"
awk -F'|' '
/^## / { inside = ($0 == "## Environment") }
inside && /^\| `ACTORS_/ {
	name = $2
	gsub(/[ `]/, "", name)
	def = $(NF - 1)
	sub(/^ +/, "", def)
	if (def ~ /^`/) {
		sub(/^`/, "", def)
		sub(/`.*/, "", def)
	} else {
		def = "-"
	}
	print name, def
}' "$src/README.md" | sort >"$tmp/readme"
same "README.md's Environment table: names and defaults" \
	"$tmp/table" "$tmp/readme"

# act_config_init(3): ENVIRONMENT, from its first .TP to the next .SH
awk '
/^\.SH / { inside = ($0 == ".SH ENVIRONMENT"); listing = 0; next }
inside && /^\.TP/ { listing = 1 }
listing' "$src/doc/man3/act_config_init.3" >"$tmp/man"
"$actors" vars --man >"$tmp/vars-man"
same "act_config_init(3) ENVIRONMENT: actors vars --man" \
	"$tmp/vars-man" "$tmp/man"

# no doc names a variable the runtime does not read (a variable's name
# starts with a letter: ACTORS_0.1 is a symbol version, doc/design/abi.md)
cut -f 1 "$tmp/vars" | sort >"$tmp/names"
find "$src/README.md" "$src/doc" \( -name '*.md' -o -name '*.3' \) \
	-exec grep -ohE 'ACTORS_[A-Z]([A-Z0-9_]*[A-Z0-9])?' {} + |
	sort -u >"$tmp/named"
if comm -13 "$tmp/names" "$tmp/named" >"$tmp/extra" && [ ! -s "$tmp/extra" ]
then
	ok "README.md and doc/ name only variables of the table"
else
	bad "README.md or doc/ name variables not in the table:" \
		"$(tr '\n' ' ' <"$tmp/extra")"
fi

# the test class (ACT_TEST_*): `actors vars --test` prints it, plain
# `actors vars` none of it; doc/testing.md's table of the library's
# switches lists exactly its names, and README.md and doc/ name no
# ACT_TEST_ variable but those and the test programs' own (its second
# table)
if ! "$actors" vars --test >"$tmp/tests" 2>"$tmp/err" || [ -s "$tmp/err" ] ||
	[ ! -s "$tmp/tests" ] || grep -q '^ACT_TEST_' "$tmp/vars" ||
	grep -qv '^ACT_TEST_' "$tmp/tests"; then
	bad "actors vars --test: the test class alone: $(cat "$tmp/err")"
else
	ok "actors vars --test: $(wc -l <"$tmp/tests") test switches"
fi
cut -f 1 "$tmp/tests" | sort >"$tmp/tnames"
doc_table() { # the names in the first column of the table under ## $1...
	awk -F'|' -v h="$1" '
	/^## / { inside = (index($0, "## " h) == 1) }
	inside && /^\| `ACT_TEST_/ { n = $2; gsub(/[ `]/, "", n); print n }
	' "$src/doc/testing.md" | sort
}
doc_table "The library" >"$tmp/tdoc"
same "doc/testing.md's table of switches: actors vars --test" \
	"$tmp/tnames" "$tmp/tdoc"
# (ACT_TEST_HOOK and ACT_TEST_HOOKS are the hooks' macro and its build
# switch, lib/base/park.h, not variables)
{
	cat "$tmp/tnames"
	doc_table "The test programs"
	printf '%s\n' ACT_TEST_HOOK ACT_TEST_HOOKS
} | sort -u >"$tmp/tknown"
find "$src/README.md" "$src/doc" \( -name '*.md' -o -name '*.[0-9]' \) \
	-exec grep -ohE 'ACT_TEST_[A-Z0-9_]*[A-Z0-9]' {} + |
	sort -u >"$tmp/tnamed"
if comm -13 "$tmp/tknown" "$tmp/tnamed" >"$tmp/extra" && [ ! -s "$tmp/extra" ]
then
	ok "README.md and doc/ name only the test switches of doc/testing.md"
else
	bad "README.md or doc/ name test switches doc/testing.md lacks:" \
		"$(tr '\n' ' ' <"$tmp/extra")"
fi

# each fixed default is a value its variable takes, and a known name
while read -r name def; do
	[ "$def" = - ] && continue
	rc=0
	env "$name=$def" "$hello" >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$tmp/err" ]; then
		ok "$name=$def: act_main starts, nothing on stderr"
	else
		bad "$name=$def: status $rc: $(cat "$tmp/err")"
	fi
done <"$tmp/table"
# and a name that is not in the table is said
rc=0
env ACTORS_SCHEDULER=2 "$hello" >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" -eq 0 ] &&
	grep -q '^actors: ACTORS_SCHEDULER is not a variable' "$tmp/err"; then
	ok "ACTORS_SCHEDULER=2: said to be no variable"
else
	bad "ACTORS_SCHEDULER=2: status $rc: $(cat "$tmp/err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
