#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages given as arguments that are not installed yet.
set -eu
# Always wanted, for tools/ (damo): cairo for heatmap and plot images
# (damo builds without it, with no images: make -C tools NO_CAIRO=1),
# pkg-config to find it, systemd-analyze and man to check the unit file.
tools_pkgs=(libcairo2-dev pkg-config systemd man-db)
missing=()
for p in "$@" "${tools_pkgs[@]}"; do
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
