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

# machine_numa MEM NODES: set MACHINE_NUMA to the QEMU options that split
# MEM (QEMU's -m syntax: a number of MiB or a number with a K/M/G suffix)
# into NODES NUMA nodes of equal size, as a two-socket server or a machine
# with a memory tier would have: the firmware's ACPI SRAT table tells the
# kernel, as on real hardware.  The CPUs are all on node 0; the other
# nodes have memory only (as CXL memory does).  NODES 1: no options.
machine_numa() {
	local mem=$1 nodes=$2 mib=${1%[KkMmGg]} node cpus
	MACHINE_NUMA=()
	if ! [[ $nodes =~ ^[1-9][0-9]*$ && $mib =~ ^[0-9]+$ ]]; then
		echo "cannot split $mem of memory into $nodes nodes" >&2
		return 1
	fi
	case $mem in
	*[Gg]) mib=$((mib * 1024)) ;;
	*[Kk]) mib=$((mib / 1024)) ;;
	esac
	if [ $((mib % nodes)) -ne 0 ]; then
		echo "cannot split $mem of memory into $nodes equal nodes" >&2
		return 1
	fi
	[ "$nodes" -gt 1 ] || return 0
	cpus=",cpus=0-$((${MACHINE_SMP:-1} - 1))"
	for ((node = 0; node < nodes; node++)); do
		MACHINE_NUMA+=(-object "memory-backend-ram,id=mem$node,size=$((mib / nodes))M"
			-numa "node,nodeid=$node,memdev=mem$node$cpus")
		cpus=
	done
}

# machine_cmd KERNEL INIT STATE_DIR UMID [NAME=VALUE...]: set MACHINE_CMD
# to the command that boots KERNEL (after machine_platform) with
# init=INIT and the NAME=VALUE words for it.  STATE_DIR and UMID are for
# UML's pid file and sockets.  MACHINE_MEM (default 1G) is the memory,
# MACHINE_SMP (default 1) a QEMU machine's CPUs and MACHINE_NODES (default
# 2) its NUMA nodes (machine_numa).  No word may contain white space.  By
# default the console writes to stdout and reads nothing; the arrays
# MACHINE_UML_CON (UML channel words, default con0=null,fd:1) and
# MACHINE_QEMU_SERIAL (QEMU options, default -serial stdio) connect it
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
	# The machine restarts instead of powering off: -no-reboot makes
	# QEMU exit then, and after a panic (panic=-1).
	# The clock: the TSC (under TCG it is the host's TSC), QEMU's HPET
	# (found through ACPI; the kernel leaves out the ACPI PM timer) and
	# the ticks, which lag whenever the emulating thread is busy.  Left
	# alone, the kernel calibrates the TSC against the PIT (which fails
	# on a busy host) and its watchdog then finds the TSC skewed against
	# jiffies; either way it falls back to jiffies: timers fire on 4 ms
	# ticks (a 5 ms sleep takes 8) and a thread's run time is counted in
	# ticks.  So: the host's TSC rate (its "cpu MHz", which is the TSC
	# rate on a host with constant_tsc) and tsc=reliable, no watchdog.
	append="console=ttyS0 tsc=reliable"
	khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
	grep -qw constant_tsc /proc/cpuinfo && [ "${khz:-0}" -gt 0 ] &&
		append+=" tsc_early_khz=$khz"
	append+=" root=root rootfstype=9p"
	append+=" rootflags=trans=virtio,version=9p2000.L,msize=262144 rw"
	append+=" panic=-1 init=$init MACHINE_PLATFORM=qemu $*"
	machine_numa "${MACHINE_MEM:-1G}" "${MACHINE_NODES:-2}" || return
	serial=(-serial stdio)
	[ -n "${MACHINE_QEMU_SERIAL[*]:+set}" ] && serial=("${MACHINE_QEMU_SERIAL[@]}")
	# shellcheck disable=SC2054 # commas belong to -fsdev and -device
	MACHINE_CMD=(qemu-system-x86_64 -accel tcg -m "${MACHINE_MEM:-1G}"
		-smp "${MACHINE_SMP:-1}" -display none -monitor none
		"${serial[@]}" -no-reboot -kernel "$kernel" -append "$append"
		"${MACHINE_NUMA[@]}"
		-fsdev local,id=root,path=/,security_model=none,multidevs=remap
		-device virtio-9p-pci,fsdev=root,mount_tag=root)
}
