#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
#   scripts/oracle-dir.sh
#
# Prints where damonitor/damo 3.3.0, the test oracle of the record format
# (never used by damo itself), is: $DAMO_ORACLE if set; else
# ../shared/oracles/damonitor-damo beside this checkout; else the same
# beside the repository this one was cloned from (a clean clone in /tmp
# for CI).  Prints the first candidate anyway when none has the oracle,
# so that a skip can say where it looked.
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "${DAMO_ORACLE:-}" ]; then
	echo "$DAMO_ORACLE"
	exit 0
fi
first=$top/../shared/oracles/damonitor-damo
origin=$(git -C "$top" config --get remote.origin.url 2>/dev/null)
for d in "$first" ${origin:+"$origin/../shared/oracles/damonitor-damo"}; do
	if [ -f "$d/src/damo.py" ]; then
		echo "$d"
		exit 0
	fi
done
echo "$first"
