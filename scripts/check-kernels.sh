#!/bin/sh
# check-kernels.sh - run the test programs on Debian's own kernels.
#
# Boots Debian's 5.10 (bullseye), 6.1 (bookworm) and 6.12
# (bookworm-backports) kernels under QEMU (TCG: no KVM needed) with 4 CPUs
# in 2 NUMA nodes (4 GiB each) and a busybox initramfs that holds every
# Check program, tests/echo.sh (with examples/echo_server and bench/echo)
# and the actors tool, runs each program in the guest and prints a table,
# program x kernel. doc/kernels.md says what each kernel has and the last
# table.
#
# It installs qemu-system-x86, busybox-static and cpio when missing, and
# the build's own packages (scripts/install-deps.sh). The kernels are
# fetched with `apt-get download` and never installed: bookworm's from the
# system's apt sources, the two others through an apt state of their own
# under build/kernels/apt (the system's sources stay untouched). Kernels
# are kept in build/kernels/, so a rerun downloads nothing. The project
# is built with ./configure --disable-shared in build/kernels-build
# (real executables, no libtool wrappers).
#
# Not part of .ci/run: one boot runs the whole suite in 10-15 minutes.
#
# usage: scripts/check-kernels.sh [options]
#   --kernels LIST     kernels to boot, of 5.10,6.1,6.12 (default: all)
#   --only LIST        programs to run: test_io,...,echo.sh,demo
#                      (default: every Check program, echo.sh, demo)
#   --repeat N         run each program N times in one boot (default 1)
#   --env VAR=VALUE    set VAR in the guest for every program (repeatable)
#   --timeout SECS     limit of one boot (default: 600 + 1500 per program
#                      run, at most 4 h)
#   --prog-timeout S   limit of one program in the guest (default 1500)
#   --dump-after S     after S seconds of one program, print every task's
#                      kernel stack, system call and wait channel to the
#                      log once (default: at --prog-timeout, before the
#                      kill)
#   --no-build         use build/kernels-build as it is
#   --add FILE         also put the executable FILE (and its libraries)
#                      in the guest, run as x/NAME in --only (debugging)
#
# Results: the table on stdout and in build/kernels/table.md; the
# guest's serial log of each kernel in build/kernels/logs/KERNEL.log.
# Exit status 0 when every program passed on every kernel, 1 otherwise.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
kdir=$top/build/kernels
bdir=$top/build/kernels-build

kernels=5.10,6.1,6.12
only=
repeat=1
boot_timeout=
prog_timeout=1500
dump_after=
build=1
guest_env=
extra_bins=

usage() {
	sed -n 's/^# \{0,1\}//; /^usage:/,/^Results:/p' "$0" | sed '$d' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernels) kernels=${2:?}; shift ;;
	--only) only=${2:?}; shift ;;
	--repeat) repeat=${2:?}; shift ;;
	--env)
		case ${2:-} in
		[A-Za-z_]*=*) ;;
		*) usage ;;
		esac
		guest_env="$guest_env$2
"
		shift
		;;
	--timeout) boot_timeout=${2:?}; shift ;;
	--prog-timeout) prog_timeout=${2:?}; shift ;;
	--dump-after) dump_after=${2:?}; shift ;;
	--no-build) build=0 ;;
	--add)
		[ -x "${2:-}" ] || usage
		extra_bins="$extra_bins $(realpath "$2")"
		shift
		;;
	*) usage ;;
	esac
	shift
done
for n in "$repeat" "$prog_timeout" ${boot_timeout:+"$boot_timeout"} \
	${dump_after:+"$dump_after"}; do
	case $n in
	'' | *[!0-9]* | 0) usage ;;
	esac
done
kernels=$(echo "$kernels" | tr ',' ' ')
for k in $kernels; do
	case $k in
	5.10 | 6.1 | 6.12) ;;
	*) echo "check-kernels: unknown kernel $k (5.10, 6.1, 6.12)" >&2
		exit 2 ;;
	esac
done

say() {
	echo "check-kernels: $*" >&2
}

# ---- packages ---------------------------------------------------------

install_tools() {
	missing=
	for p in qemu-system-x86 busybox-static cpio; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed"; then
			missing="$missing $p"
		fi
	done
	[ -n "$missing" ] || return 0
	say "installing:$missing"
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing
}

# ---- kernels ----------------------------------------------------------

# The archive the system's apt already uses (deb822 or one-line form).
archive_uri() {
	uri=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v security | head -n 1)
	[ -n "$uri" ] || uri=$(sed -n \
		's/^deb  *\(\[[^]]*\] *\)\{0,1\}\([^ ]*\) .*/\2/p' \
		/etc/apt/sources.list 2>/dev/null | grep -v security |
		head -n 1)
	echo "${uri:-http://deb.debian.org/debian}"
}

# An apt state of our own that knows bullseye and bookworm-backports;
# sets extra_apt to the options that select it.
extra_state() {
	a=$kdir/apt
	extra_apt="-o Dir::Etc::SourceList=/dev/null \
-o Dir::Etc::SourceParts=$a/sources.list.d -o Dir::State::Lists=$a/lists \
-o Dir::Cache=$a/cache -o Dir::State::status=/dev/null \
-o APT::Sandbox::User=root"
	[ ! -f "$a/updated" ] || return 0
	mkdir -p "$a/sources.list.d" "$a/lists/partial" \
		"$a/cache/archives/partial"
	cat >"$a/sources.list.d/kernels.sources" <<-EOF
	Types: deb
	URIs: $(archive_uri)
	Suites: bullseye bookworm-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	say "apt update of bullseye and bookworm-backports (own state)"
	# shellcheck disable=SC2086
	apt-get $extra_apt update -qq
	touch "$a/updated"
}

# The vmlinuz of kernel $1 in $kdir/vmlinuz-$1, downloaded once.
fetch_kernel() {
	k=$1
	out=$kdir/vmlinuz-$k
	[ ! -s "$out" ] || return 0
	mkdir -p "$kdir/debs"
	if [ "$k" = 6.1 ]; then
		apt=""
		if ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then
			apt-get update -qq
		fi
		ver=$(apt-cache policy linux-image-amd64 |
			sed -n 's/^ *Candidate: *//p')
	else
		extra_state
		apt=$extra_apt
		case $k in
		5.10) pat='^5\.10\.' ;;
		6.12) pat='^6\.12\..*bpo12' ;;
		esac
		# shellcheck disable=SC2086
		ver=$(apt-cache $apt madison linux-image-amd64 |
			awk -F' *[|] *' '{ print $2 }' | grep -E "$pat" |
			head -n 1)
	fi
	[ -n "$ver" ] || { say "no linux-image-amd64 for $k"; exit 1; }
	# the versioned image package behind the metapackage
	# shellcheck disable=SC2086
	pkg=$(apt-cache $apt depends "linux-image-amd64=$ver" |
		sed -n 's/^ *Depends: *\(linux-image-[^ ]*\).*/\1/p' |
		head -n 1)
	[ -n "$pkg" ] || { say "no image package for $k ($ver)"; exit 1; }
	say "downloading $pkg (for $k)"
	# shellcheck disable=SC2086
	(cd "$kdir/debs" && apt-get $apt -o APT::Sandbox::User=root \
		-qq download "$pkg")
	for deb in "$kdir/debs/${pkg}"_*.deb; do :; done
	dpkg-deb --fsys-tarfile "$deb" |
		tar -xO --wildcards './boot/vmlinuz-*' >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "$pkg $(dpkg-deb -f "$deb" Version)" >"$kdir/vmlinuz-$k.pkg"
	rm -f "$deb" # only the image is kept
}

# ---- the build --------------------------------------------------------

build_tree() {
	if [ ! -x configure ] || [ configure.ac -nt configure ] ||
		[ Makefile.am -nt configure ] ||
		[ tests/tests.am -nt configure ]; then
		./autogen.sh >/dev/null 2>&1
	fi
	mkdir -p "$bdir"
	if [ ! -f "$bdir/Makefile" ] || [ configure -nt "$bdir/Makefile" ]; then
		say "configure --disable-shared in $bdir"
		(cd "$bdir" && "$top/configure" --disable-shared \
			>configure.log 2>&1) ||
			{ say "configure failed: $bdir/configure.log"; exit 1; }
	fi
	say "building in $bdir"
	j=$(nproc)
	(make -C "$bdir" -j"$j" && make -C "$bdir" -j"$j" check TESTS=) \
		>"$bdir/make.log" 2>&1 ||
		{ tail -n 30 "$bdir/make.log"; say "build failed"; exit 1; }
}

# The Check programs of this build (check_PROGRAMS, as make expands it).
check_programs() {
	# shellcheck disable=SC2016 # make expands it
	printf 'print-check-programs:\n\t@echo $(check_PROGRAMS)\n' |
		make -s -C "$bdir" -f Makefile -f - print-check-programs
}

# ---- the initramfs ----------------------------------------------------

# Copy binary $1 to the guest's path $2, with the shared libraries it
# loads (at their own paths).
put_bin() {
	mkdir -p "$root/$(dirname "$2")"
	cp "$1" "$root/$2"
	ldd "$1" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' |
		while read -r lib; do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
}

# The guest's /init: runs /t/list (NAME COMMAND lines) $repeat times each,
# between @@ BEGIN / @@ END lines on the console, then powers off.
write_init() {
	cat >"$root/init" <<-'EOF'
	#!/bin/sh
	export PATH=/bin
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev
	mkdir -p /dev/shm /dev/pts
	mount -t tmpfs tmp /tmp
	mount -t tmpfs shm /dev/shm
	ip link set lo up
	. /t/env
	cd /t
	echo "@@ KERNEL $(uname -r) CPUS $(nproc)"
	echo "@@ NUMA $(ls -d /sys/devices/system/node/node* | wc -l) nodes"
	tools/actors topo 2>&1 | sed 's/^/@@ topo: /'

	# Every task of every process but this one: what it waits in, and
	# the state of its io_uring rings and eventfds.
	dump() {
		local t p f
		echo "@@ DUMP $1"
		for t in /proc/[0-9]*/task/[0-9]*; do
			p=${t#/proc/}
			p=${p%%/*}
			[ "$p" != 1 ] || continue
			[ -r "$t/stack" ] || continue
			[ -n "$(cat "$t/cmdline" 2>/dev/null)" ] || continue
			echo "@@ task $t $(cat "$t/comm") $(cut -d' ' -f3 \
				"$t/stat") wchan=$(cat "$t/wchan") \
				syscall=$(cut -d' ' -f1 "$t/syscall")"
			sed 's/^/@@   /' "$t/stack"
		done
		for f in /proc/[0-9]*/fd/*; do
			case $(readlink "$f" 2>/dev/null) in
			*io_uring* | *eventfd*)
				p=${f#/proc/}
				echo "@@ fdinfo ${p%%/*} $(readlink "$f")"
				sed 's/^/@@   /' "/proc/${p%%/*}/fdinfo/${f##*/}"
				;;
			esac
		done
		echo "@@ DUMP END"
	}

	# Kill every process but this one (the program and its forks).
	kill_rest() {
		local p
		for p in /proc/[0-9]*; do
			p=${p#/proc/}
			[ "$p" = 1 ] || kill -KILL "$p" 2>/dev/null
		done
	}

	run_one() {
		local pid t dumped
		sh -c "$2" </dev/null 2>&1 &
		pid=$!
		t=0
		dumped=0
		while kill -0 "$pid" 2>/dev/null; do
			if [ "$t" -ge "$DUMP_AFTER" ] && [ "$dumped" = 0 ]; then
				dump "$1 after $t s"
				dumped=1
			fi
			if [ "$t" -ge "$PROG_TIMEOUT" ]; then
				kill_rest
				break
			fi
			sleep 1
			t=$((t + 1))
		done
		wait "$pid"
		rc=$?
		[ "$t" -lt "$PROG_TIMEOUT" ] || rc=timeout
	}

	while read -r name cmd; do
		i=1
		while [ "$i" -le "$REPEAT" ]; do
			echo "@@ BEGIN $name $i"
			t0=$(date +%s)
			run_one "$name" "$cmd"
			echo "@@ END $name $i rc=$rc secs=$(($(date +%s) - t0))"
			i=$((i + 1))
		done
	done </t/list
	echo "@@ DONE"
	sync
	poweroff -f
	EOF
	chmod +x "$root/init"
}

# The programs to run, one "NAME COMMAND" line each, in $root/t/list.
write_list() {
	: >"$root/t/list"
	for p in $progs; do
		case $p in
		echo.sh) echo "echo.sh sh tests/echo.sh" ;;
		demo) echo "demo tools/actors demo" ;;
		x/*) echo "$p $p" ;;
		*) echo "$p tests/$p" ;;
		esac
	done >"$root/t/list"
}

build_initramfs() {
	root=$kdir/root
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/t/tests" "$root/proc" "$root/sys" \
		"$root/dev" "$root/tmp" "$root/etc" "$root/lib64"
	cp /bin/busybox "$root/bin/busybox"
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -s busybox "$root/bin/$a"
	done
	echo "127.0.0.1 localhost" >"$root/etc/hosts"
	echo "hosts: files" >"$root/etc/nsswitch.conf"
	echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
	echo "root:x:0:" >"$root/etc/group"
	for p in $(check_programs); do
		put_bin "$bdir/$p" "t/$p"
	done
	cp "$top/tests/echo.sh" "$root/t/tests/echo.sh"
	put_bin "$bdir/examples/echo_server" t/examples/echo_server
	put_bin "$bdir/bench/echo" t/bench/echo
	put_bin "$bdir/tools/actors" t/tools/actors
	for f in $extra_bins; do
		put_bin "$f" "t/x/$(basename "$f")"
	done
	{
		echo "export CK_FORK=yes CK_TIMEOUT_MULTIPLIER=10"
		echo "export REPEAT=$repeat PROG_TIMEOUT=$prog_timeout"
		echo "export DUMP_AFTER=${dump_after:-$prog_timeout}"
		printf '%s' "$guest_env" | while IFS= read -r kv; do
			[ -n "$kv" ] || continue
			v=$(printf '%s' "${kv#*=}" | sed "s/'/'\\\\''/g")
			echo "export ${kv%%=*}='$v'"
		done
	} >"$root/t/env"
	write_list
	write_init
	(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 \
		>"$kdir/initrd.gz"
}

# ---- boot, and read the log --------------------------------------------

# Memory of each NUMA node: test_stack's mprotect fallback (100,000
# processes) alone has held 3.9 GB; QEMU takes the host's memory only as
# the guest touches it.
node_mb=4096

boot() {
	k=$1
	log=$kdir/logs/$k.log
	mkdir -p "$kdir/logs"
	: >"$log"
	say "booting $k ($(cat "$kdir/vmlinuz-$k.pkg")), limit ${boot_timeout}s," \
		"log $log"
	t0=$(date +%s)
	rc=0
	timeout "$boot_timeout" qemu-system-x86_64 -nodefaults \
		-no-user-config -display none -no-reboot -machine q35 \
		-accel tcg,thread=multi -cpu max \
		-smp 4,sockets=2,cores=2,threads=1 -m "$((2 * node_mb))M" \
		-object memory-backend-ram,id=m0,size="${node_mb}M" \
		-object memory-backend-ram,id=m1,size="${node_mb}M" \
		-numa node,nodeid=0,cpus=0-1,memdev=m0 \
		-numa node,nodeid=1,cpus=2-3,memdev=m1 \
		-kernel "$kdir/vmlinuz-$k" -initrd "$kdir/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 oops=panic" \
		-serial "file:$log" -monitor none </dev/null || rc=$?
	secs=$(($(date +%s) - t0))
	if [ "$rc" -eq 124 ]; then
		say "$k: the boot passed its limit of ${boot_timeout}s"
	elif ! grep -q '^@@ DONE' "$log"; then
		say "$k: the guest ended early (qemu status $rc); see $log"
	fi
	echo "$k $secs" >>"$kdir/boots"
	say "$k: ${secs}s"
}

# cell KERNEL PROGRAM: what one program did in that kernel's log.
cell() {
	tr -d '\r' <"$kdir/logs/$1.log" | awk -v prog="$2" '
	function check_counts(s,   c, f, e) {
		c = s; sub(/.*Checks: /, "", c); sub(/,.*/, "", c)
		f = s; sub(/.*Failures: /, "", f); sub(/,.*/, "", f)
		e = s; sub(/.*Errors: /, "", e); sub(/[^0-9].*/, "", e)
		checks = c + 0; bad = f + e
	}
	function echo_counts(s,   p, f) {
		p = s; sub(/ passed.*/, "", p)
		f = s; sub(/.*passed, /, "", f); sub(/ failed.*/, "", f)
		checks = p + f; bad = f + 0
	}
	$1 == "@@" && $2 == "BEGIN" && $3 == prog { on = 1; line = "";
		checks = -1; bad = 0; next }
	on && $1 == "@@" && $2 == "END" && $3 == prog {
		on = 0; runs++
		rc = $5; sub(/rc=/, "", rc)
		s = $6; sub(/secs=/, "", s); secs += s
		if (rc == "timeout") { to++; why = "timeout" }
		else if (rc == 0 && bad == 0) ok++
		else if (checks < 0) why = "exit " rc
		else why = bad "/" checks
		if (checks > 0) nchecks = checks
		next
	}
	on && /^[0-9]+%: Checks: [0-9]+/ { check_counts($0) }
	on && /^[0-9]+ passed, [0-9]+ failed/ { echo_counts($0) }
	END {
		if (on) { runs++; why = "boot ended" }
		if (!runs) { print "-"; exit }
		n = nchecks ? " " nchecks : ""
		if (ok == runs) r = "pass" n
		else if (runs == 1) r = "FAIL " why
		else r = "FAIL " runs - ok "/" runs " runs (last: " why ")"
		if (runs > 1 && ok == runs) r = r " x" runs
		printf "%s, %ds\n", r, secs
	}'
}

table() {
	printf '| program |'
	for k in $kernels; do printf ' %s |' "$k"; done
	printf '\n|---|'
	for k in $kernels; do printf -- '---|'; done
	printf '\n'
	for p in $progs; do
		printf '| %s |' "$p"
		for k in $kernels; do
			if [ -f "$kdir/logs/$k.log" ]; then
				printf ' %s |' "$(cell "$k" "$p")"
			else
				printf ' - |'
			fi
		done
		printf '\n'
	done
}

# The failing checks and timeouts of each kernel, from its log.
details() {
	for k in $kernels; do
		[ -f "$kdir/logs/$k.log" ] || continue
		tr -d '\r' <"$kdir/logs/$k.log" | awk -v k="$k" '
		$1 == "@@" && $2 == "BEGIN" { prog = $3 }
		/:[EF]:/ || /Test timeout expired/ {
			print k ": " prog ": " $0 }
		$1 == "@@" && $2 == "END" && $4 == "rc=timeout" {
			print k ": " prog ": killed at the program limit" }
		' | head -n 60
	done
}

# ---- main -------------------------------------------------------------

install_tools
[ "$build" = 0 ] || scripts/install-deps.sh
for k in $kernels; do
	fetch_kernel "$k"
done
[ "$build" = 0 ] || build_tree
if [ -n "$only" ]; then
	progs=$(echo "$only" | tr ',' ' ')
else
	progs="$(check_programs | tr ' ' '\n' | sed 's|^tests/||' |
		tr '\n' ' ')echo.sh demo"
fi
nprogs=$(echo "$progs" | wc -w)
if [ -z "$boot_timeout" ]; then
	boot_timeout=$((600 + nprogs * repeat * prog_timeout))
	[ "$boot_timeout" -le 14400 ] || boot_timeout=14400
fi
build_initramfs
rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null |
	head -n 1)
: >"$kdir/boots"
t_all=$(date +%s)
for k in $kernels; do
	boot "$k"
done
{
	echo "Commit $rev${dirty:+ (with uncommitted changes)}," \
		"$(date -u +%Y-%m-%d), QEMU TCG, 4 CPUs in 2 NUMA nodes of" \
		"$((node_mb / 1024)) GiB each," \
		"repeat $repeat${guest_env:+, env $(echo "$guest_env" |
			tr '\n' ' ')}"
	echo
	table
	echo
	for k in $kernels; do
		printf '%s: %s, boot %ss\n' "$k" \
			"$(cat "$kdir/vmlinuz-$k.pkg")" \
			"$(awk -v k="$k" '$1 == k { print $2 }' "$kdir/boots")"
	done
	echo "whole run: $(($(date +%s) - t_all))s"
	d=$(details)
	if [ -n "$d" ]; then
		echo
		echo "$d"
	fi
} | tee "$kdir/table.md"
! grep -q 'FAIL\|| - |' "$kdir/table.md"
