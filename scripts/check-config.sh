#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   check-config.sh CONFIG FRAGMENT...
#
# Fail if an option requested in a config fragment did not survive
# olddefconfig: every "CONFIG_X=V" line must be in CONFIG as it is, and no
# "# CONFIG_X is not set" option may be set (=y or =m) there.
set -eu
config=$1
shift
bad=0
for fragment in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qx -- "$line" "$config" && continue
			echo "config: $line (from $fragment) not set in $config" >&2
			bad=1
			;;
		"# CONFIG_"*" is not set")
			opt=${line#"# "}
			opt=${opt%" is not set"}
			grep -qE "^$opt=[ym]\$" "$config" || continue
			echo "config: $opt (from $fragment) should not be set in $config" >&2
			bad=1
			;;
		esac
	done < "$fragment"
done
exit $bad
