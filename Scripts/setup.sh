#!/usr/bin/env bash
# Installs what hciscope needs on Debian/Ubuntu, only what is missing.
#   Scripts/setup.sh            build needs: libpcap-dev, libbluetooth-dev, pkg-config
#   Scripts/setup.sh --test     also the reference decoders and tools the test suite compares with:
#                               tshark, bluez (btmon), python3, chromium (HTML screenshot test)
set -euo pipefail
packages=(libpcap-dev libbluetooth-dev pkg-config)
if [ "${1:-}" = "--test" ]; then
    packages+=(tshark bluez python3 chromium)
fi
missing=()
for p in "${packages[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "setup: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "setup: Swift 6.x is required (https://www.swift.org/install/linux/)" >&2; exit 1; }
