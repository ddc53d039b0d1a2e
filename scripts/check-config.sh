#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fail if an option requested in a config fragment did not survive olddefconfig.
set -eu
config=$1 fragment=$2 bad=0
while IFS= read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	grep -qx "$line" "$config" || { echo "config: $line not set in $config" >&2; bad=1; }
done < "$fragment"
exit $bad
