# SPDX-License-Identifier: GPL-2.0
#
# How the test and bench runners boot a kernel with the host's root
# filesystem and a given init; sourced by scripts/run-selftests.sh and
# bench/run.sh.  Two platforms:
#
#   uml   a UML kernel binary (an ELF executable), root over hostfs
#   qemu  an x86_64 bzImage under qemu-system-x86_64 -accel tcg (there is
#         no usable KVM here), root over virtio-9p
#
# The init (selftests/init.sh, bench/init.sh) gets MACHINE_PLATFORM and the
# caller's NAME=VALUE words from the kernel command line (the kernel hands
# unknown NAME=VALUE words to init as its environment), and powers the
# machine off through scripts/init-lib.bash.
# shellcheck disable=SC2034 # the MACHINE_* variables are for the caller

# machine_platform KERNEL: set MACHINE_PLATFORM (uml or qemu) and
# MACHINE_NAME (UML or QEMU) for KERNEL; fail with a message if it cannot
# be booted here.
machine_platform() {
	[ -f "$1" ] || { echo "$1: no such kernel" >&2; return 1; }
	if [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = 177ELF ]; then
		MACHINE_PLATFORM=uml MACHINE_NAME=UML
		[ -x "$1" ] || { echo "$1: not executable" >&2; return 1; }
	else
		MACHINE_PLATFORM=qemu MACHINE_NAME=QEMU
		command -v qemu-system-x86_64 > /dev/null || {
			echo "qemu-system-x86_64 is not installed (Debian: qemu-system-x86)" >&2
			return 1
		}
	fi
}

# machine_cmd KERNEL INIT STATE_DIR UMID [NAME=VALUE...]: set MACHINE_CMD
# to the command that boots KERNEL (after machine_platform) with
# init=INIT and the NAME=VALUE words for it.  STATE_DIR and UMID are for
# UML's pid file and sockets.  MACHINE_MEM (default 1G) is the memory,
# MACHINE_SMP (default 1) a QEMU machine's CPUs and MACHINE_NODES (default
# 2) its NUMA nodes.  No word may contain
# white space.  By default the console writes to stdout and reads nothing;
# the arrays MACHINE_UML_CON (UML channel words, default con0=null,fd:1)
# and MACHINE_QEMU_SERIAL (QEMU options, default -serial stdio) connect it
# and further lines otherwise (scripts/shell.sh).
machine_cmd() {
	local kernel=$1 init=$2 state=$3 umid=$4 append khz serial
	shift 4
	if [ "$MACHINE_PLATFORM" = uml ]; then
		# By default no terminal: console 0 writes to stdout only,
		# every other line is disconnected, so UML never reads or
		# reconfigures a tty.
		# shellcheck disable=SC2054 # commas belong to con0=null,fd:1
		MACHINE_CMD=("$kernel" mem="${MACHINE_MEM:-1G}"
			rootfstype=hostfs rootflags=/ rw con=null ssl=null
			"${MACHINE_UML_CON[@]:-con0=null,fd:1}"
			uml_dir="$state" umid="$umid"
			init="$init" MACHINE_PLATFORM=uml "$@")
		return
	fi
	# The machine restarts instead of powering off (it has no ACPI):
	# -no-reboot makes QEMU exit then, and after a panic (panic=-1).
	# The clock: this machine has no HPET or ACPI timer, only the TSC
	# (under TCG it is the host's TSC) and the ticks, which lag whenever
	# the emulating thread is busy.  Left alone, the kernel calibrates
	# the TSC against the PIT (which fails on a busy host) and its
	# watchdog then finds the TSC skewed against jiffies; either way it
	# falls back to jiffies: timers fire on 4 ms ticks (a 5 ms sleep
	# takes 8) and a thread's run time is counted in ticks.  So: the
	# host's TSC rate (its "cpu MHz", which is the TSC rate on a host
	# with constant_tsc) and tsc=reliable, no watchdog.
	append="console=ttyS0 tsc=reliable"
	khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
	grep -qw constant_tsc /proc/cpuinfo && [ "${khz:-0}" -gt 0 ] &&
		append+=" tsc_early_khz=$khz"
	# Two NUMA nodes of half the memory each (the kernel splits it:
	# numa=fake needs no ACPI tables), for paddr's migrate actions.
	append+=" numa=fake=${MACHINE_NODES:-2}"
	append+=" root=root rootfstype=9p"
	append+=" rootflags=trans=virtio,version=9p2000.L,msize=262144 rw"
	append+=" panic=-1 init=$init MACHINE_PLATFORM=qemu $*"
	serial=(-serial stdio)
	[ -n "${MACHINE_QEMU_SERIAL[*]:+set}" ] && serial=("${MACHINE_QEMU_SERIAL[@]}")
	# shellcheck disable=SC2054 # commas belong to -fsdev and -device
	MACHINE_CMD=(qemu-system-x86_64 -accel tcg -m "${MACHINE_MEM:-1G}"
		-smp "${MACHINE_SMP:-1}" -display none -monitor none
		"${serial[@]}" -no-reboot -kernel "$kernel" -append "$append"
		-fsdev local,id=root,path=/,security_model=none,multidevs=remap
		-device virtio-9p-pci,fsdev=root,mount_tag=root)
}
