#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages given as arguments that are not installed yet.
set -eu
missing=()
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "missing packages: ${missing[*]} (run as root, or install them)" >&2
	exit 1
fi
echo "  APT     ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
