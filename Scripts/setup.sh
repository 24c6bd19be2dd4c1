#!/usr/bin/env bash
# Installs what hciscope needs on Debian/Ubuntu, only what is missing.
#   Scripts/setup.sh            build needs: libpcap-dev, libbluetooth-dev, pkg-config, and the
#                               compression libraries for compressed captures and archives
#                               (zlib1g-dev, liblzma-dev, libzstd-dev, libbz2-dev)
#   Scripts/setup.sh --test     also the reference decoders and tools the test suite compares with:
#                               tshark, bluez (btmon), python3, chromium (HTML screenshot test),
#                               what building BlueZ 5.87's btmon needs (Scripts/build-btmon.sh:
#                               curl, build-essential, libglib2.0-dev, libdbus-1-dev),
#                               patchelf (the kernel lab's libpcap capture: Scripts/kernel-lab.sh),
#                               Java (openjdk-17-jre-headless, for Spark), and PyPI bumble
#                               (capture --h4-proxy end-to-end test), duckdb (fleet table test)
#                               and pyspark (the fleet on Spark: Scripts/spark-fleet-test.py)
#                               when pip exists
set -euo pipefail
packages=(libpcap-dev libbluetooth-dev pkg-config zlib1g-dev liblzma-dev libzstd-dev libbz2-dev)
if [ "${1:-}" = "--test" ]; then
    packages+=(tshark bluez python3 chromium curl build-essential libglib2.0-dev libdbus-1-dev gzip xz-utils zstd bzip2 patchelf openjdk-17-jre-headless)
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
# PyPI modules the tests use: bumble (capture --h4-proxy end-to-end test), duckdb (the fleet
# table of analyze --format jsonl loaded as docs/FLEET.md and the README show), pyspark (the
# fleet table on Spark, integrations/spark; it needs the Java above). Each test skips with a
# note when its module is missing.
if [ "${1:-}" = "--test" ]; then
    for module in bumble duckdb pyspark; do
        python3 -c "import $module" 2>/dev/null && continue
        pip=""
        for candidate in pip3 pip; do command -v "$candidate" >/dev/null && { pip=$candidate; break; }; done
        if [ -z "$pip" ] && python3 -m pip --version >/dev/null 2>&1; then pip="python3 -m pip"; fi
        if [ -n "$pip" ]; then
            echo "setup: installing $module (pip)" >&2
            $pip install -q "$module" || $pip install -q --break-system-packages "$module" \
                || echo "setup: could not install $module; the tests that need it will be skipped" >&2
        else
            echo "setup: no pip; the tests that need PyPI $module will be skipped" >&2
        fi
    done
fi
