#!/usr/bin/env bash
# Builds BlueZ 5.87's btmon from Debian's source tarball, for Scripts/bench.sh to measure against
# (issue 5 names btmon 5.87 as the anchor; Debian 12 packages 5.66, which crashes on real files).
# Only the monitor is built; nothing is installed. Prints the binary's path on stdout.
#
#   bash Scripts/build-btmon.sh            # → /tmp/hciscope-anchors/bluez-5.87/monitor/btmon
#   ANCHORS=/some/dir bash Scripts/build-btmon.sh
#
# Needs: curl, a C toolchain, libglib2.0-dev, libdbus-1-dev (configure insists on them even with
# every daemon feature turned off). The tarball is checked against the sha256 below (the md5 in
# Debian sid's Sources index for bluez 5.87-5 is a8638650939a33a21e654f9f03457adb).
#
# Where the tarball comes from: the Debian archive this machine's package manager uses (the first
# `deb` URI of /etc/apt/sources.list and /etc/apt/sources.list.d/*, security archives left out),
# pool/main/b/bluez/. BLUEZ_MIRROR names another Debian mirror (its root URL, the folder holding
# pool/), and BLUEZ_TARBALL a tarball already downloaded. Nothing here names a host.
set -euo pipefail

VERSION=5.87
SHA256=8e086b38e7d269781fa78fb702fe2f38bd366d107cdc4debc1674ae9381988e4
FILE=bluez_${VERSION}.orig.tar.gz
ANCHORS=${ANCHORS:-/tmp/hciscope-anchors}

# The Debian archive root apt is configured with (deb822 "URIs:" lines or one-line "deb" entries).
apt_mirror() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        awk '
            /^[[:space:]]*#/ { next }
            /^deb[[:space:]]/ { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|ftp):\/\//) { print $i; break } }
            /^URIs:/ { for (i = 2; i <= NF; i++) print $i }
        ' "$f"
    done | grep -v -- '-security' | head -n 1
}
SRC=$ANCHORS/bluez-$VERSION
BIN=$SRC/monitor/btmon

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
mkdir -p "$ANCHORS"
tarball=${BLUEZ_TARBALL:-$ANCHORS/$FILE}
if [ ! -f "$tarball" ]; then
    mirror=${BLUEZ_MIRROR:-$(apt_mirror)}
    [ -n "$mirror" ] || { echo "build-btmon: no Debian archive in the apt configuration; set BLUEZ_MIRROR (a Debian mirror's root URL) or BLUEZ_TARBALL" >&2; exit 2; }
    url=${mirror%/}/pool/main/b/bluez/$FILE
    echo "build-btmon: downloading $url" >&2
    curl -fsSL --connect-timeout 20 -o "$tarball.part" "$url"
    mv "$tarball.part" "$tarball"
fi
echo "$SHA256  $tarball" | sha256sum -c --quiet - >&2 || { echo "build-btmon: checksum mismatch: $tarball" >&2; exit 2; }
for pc in glib-2.0 dbus-1; do
    pkg-config --exists "$pc" || { echo "build-btmon: $pc missing (apt-get install libglib2.0-dev libdbus-1-dev)" >&2; exit 2; }
done
rm -rf "$SRC"
tar -C "$ANCHORS" -xzf "$tarball"
(
    cd "$SRC"
    ./configure -q --disable-udev --disable-cups --disable-obex --disable-client --disable-systemd \
        --disable-datafiles --disable-manpages --disable-a2dp --disable-avrcp --disable-network \
        --disable-hid --disable-hog --disable-bap --disable-bass --disable-mcp --disable-ccp --disable-vcp \
        --disable-micp --disable-csip --disable-tmap --disable-gmap --disable-asha --disable-hfp >&2
    make -j"$(nproc)" monitor/btmon >&2
)
"$BIN" --version >&2
echo "$BIN"
