# SPDX-License-Identifier: GPL-2.0
#
# Swap on /dev/zram0, for DAMOS pageout to have somewhere to put anonymous
# and shmem pages.  Sourced inside a test machine: by `make shell`'s init
# (through scripts/init-lib.bash) and by the selftest suites that page out
# (selftests/lib.bash).

# zram_swap_on SIZE: swap on /dev/zram0 of SIZE (e.g. 256M).  Nothing to
# do if zram0 is swapped on already; ZRAM_SWAP_MADE says whether this call
# turned it on (so that whoever made it turns it off again).  Fails with
# the reason in ZRAM_SWAP_WHY.
# shellcheck disable=SC2034 # ZRAM_SWAP_* are for the caller
zram_swap_on() {
	local z=/sys/block/zram0 maj min err
	ZRAM_SWAP_WHY='' ZRAM_SWAP_MADE=''
	if [ ! -d "$z" ] && [ -r /sys/class/zram-control/hot_add ]; then
		read -r _ < /sys/class/zram-control/hot_add
	fi
	if [ ! -d "$z" ]; then
		ZRAM_SWAP_WHY="no $z: this kernel has no zram (CONFIG_ZRAM)"
		return 1
	fi
	if ! command -v mkswap > /dev/null || ! command -v swapon > /dev/null; then
		ZRAM_SWAP_WHY="mkswap or swapon is not installed"
		return 1
	fi
	grep -q '^/dev/zram0 ' /proc/swaps && return 0
	if [ ! -b /dev/zram0 ]; then
		IFS=: read -r maj min < "$z/dev"
		mknod /dev/zram0 b "$maj" "$min" 2> /dev/null
	fi
	echo 1 > "$z/reset" 2> /dev/null
	if ! err=$( { echo "$1" > "$z/disksize" &&
		mkswap /dev/zram0 > /dev/null && swapon /dev/zram0; } 2>&1); then
		ZRAM_SWAP_WHY="cannot swap on zram0: ${err:-unknown error}"
		return 1
	fi
	if ! grep -q '^/dev/zram0 ' /proc/swaps; then
		ZRAM_SWAP_WHY="swapon /dev/zram0 worked but /proc/swaps lacks it"
		return 1
	fi
	ZRAM_SWAP_MADE=1
}

# zram_swap_off: undo what zram_swap_on made.
zram_swap_off() {
	swapoff /dev/zram0 && echo 1 > /sys/block/zram0/reset
}
