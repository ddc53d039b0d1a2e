# SPDX-License-Identifier: GPL-2.0
#
# Sourced by every bash the test machine starts (init.sh exports it as
# BASH_ENV): bats itself, each test's bats-exec-test and the tests.
#
# Most of a short test's time in UML went to bats' own bookkeeping, not to
# the test: for each test it execs mkdir twice, date twice, rm and sleep
# (the watchdog), and an exec costs about 100 ms of UML's one CPU under
# load.  The tests themselves make and remove configfs directories by the
# hundred.  Bash's loadable builtins (Debian's bash-builtins) do these
# without an exec; for the commands and options used here they behave as
# coreutils' do.  Without the package nothing changes but the speed.

st__loadables=/usr/lib/bash
if [ -f "$st__loadables/mkdir" ]; then
	enable -f "$st__loadables/mkdir" mkdir
	enable -f "$st__loadables/rmdir" rmdir
	enable -f "$st__loadables/rm" rm
	enable -f "$st__loadables/sleep" sleep
fi
unset st__loadables

# bats times each test with $(date +%s%N); bash's clock answers that
# without an exec.  Anything else goes to date(1).
date() {
	if [ $# -eq 1 ] && [ "$1" = +%s%N ]; then
		local now=${EPOCHREALTIME//[!0-9]/}
		printf '%s000\n' "$now"
	else
		command date "$@"
	fi
}
