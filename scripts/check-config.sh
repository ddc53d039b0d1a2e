#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   check-config.sh CONFIG FRAGMENT...
#
# Fail if an option requested in a config fragment did not survive
# olddefconfig: every "CONFIG_X=V" line must be in CONFIG as it is, and no
# "# CONFIG_X is not set" option may be set (=y or =m) there.  Fragments
# are merged in order, so an option a later fragment sets again is
# checked as that fragment asks (uml-debug.config turns back on debug
# options uml.config leaves out).
set -eu
config=$1
shift
declare -A want from
order=()
for fragment in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} ;;
		"# CONFIG_"*" is not set")
			opt=${line#"# "}
			opt=${opt%" is not set"}
			;;
		*) continue ;;
		esac
		[ -n "${want[$opt]+set}" ] || order+=("$opt")
		want[$opt]=$line
		from[$opt]=$fragment
	done < "$fragment"
done
bad=0
for opt in "${order[@]}"; do
	line=${want[$opt]}
	case $line in
	CONFIG_*)
		grep -qx -- "$line" "$config" && continue
		echo "config: $line (from ${from[$opt]}) not set in $config" >&2
		;;
	*)
		grep -qE "^$opt=[ym]\$" "$config" || continue
		echo "config: $opt (from ${from[$opt]}) should not be set in $config" >&2
		;;
	esac
	bad=1
done
exit $bad
