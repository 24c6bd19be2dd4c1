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
set -euo pipefail

VERSION=5.87
SHA256=8e086b38e7d269781fa78fb702fe2f38bd366d107cdc4debc1674ae9381988e4
URL=http://deb.debian.org/debian/pool/main/b/bluez/bluez_${VERSION}.orig.tar.gz
ANCHORS=${ANCHORS:-/tmp/hciscope-anchors}
SRC=$ANCHORS/bluez-$VERSION
BIN=$SRC/monitor/btmon

if [ -x "$BIN" ]; then echo "$BIN"; exit 0; fi
mkdir -p "$ANCHORS"
tarball=$ANCHORS/bluez_${VERSION}.orig.tar.gz
if [ ! -f "$tarball" ]; then
    echo "build-btmon: downloading $URL" >&2
    curl -fsSL -o "$tarball.part" "$URL"
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
