#!/usr/bin/env bash
# Proves `hciscope capture` on a real Linux kernel: boots Debian's kernel under qemu with two
# virtual controllers (the kernel lab in $KERNEL_LAB_DIR, default ../shared/tools/kernel-lab), records the session with hciscope while BlueZ's
# btmon records it too, then checks
#   1. every record btmon saw is in hciscope's file (index, opcode, payload), and
#   2. `hciscope analyze` on hciscope's file finds the scan, the connection and the pairing.
# usage: Scripts/kernel-lab.sh [HCISCOPE_BINARY]     (default: .build/release/hciscope)
#        SOURCE=pcap Scripts/kernel-lab.sh          records through libpcap's bluetooth-monitor device
# Exit 0 proven; 1 a check failed; 77 the lab itself could not run here (no kernel-lab, qemu or
# download failed): reported loudly as SKIPPED, since it says nothing about hciscope.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/hciscope}
lab=${KERNEL_LAB_DIR:-../shared/tools/kernel-lab}
klab=${KLAB:-/tmp/klab-hciscope}
if [ ! -x "$lab/run.sh" ]; then
    echo "kernel-lab: $lab/run.sh not found: live capture proof SKIPPED" >&2
    exit 77
fi
[ -x "$bin" ] || { echo "kernel-lab: $bin not built" >&2; exit 1; }
mkdir -p "$klab"
# The guest gets the binary and the libraries ldd names (Swift runtime included); stripping keeps
# the initramfs small.
strip -o "$klab/hciscope" "$bin" 2>/dev/null || cp "$bin" "$klab/hciscope"
source_kind=${SOURCE:-socket}
# hciscope loads libpcap only when a pcap function is first called (Sources/CPcap), so ldd does not
# name it; for --source pcap the guest's copy names it as needed, and the lab copies libpcap and
# what it pulls in like the other libraries (hciscope's dlopen then finds it loaded).
if [ "$source_kind" = pcap ]; then
    command -v patchelf >/dev/null || { echo "kernel-lab: patchelf is needed for --source pcap (bash Scripts/setup.sh --test installs it)" >&2; exit 1; }
    soname=$(ldconfig -p | grep -oE 'libpcap\.so\.(0\.8|1) ' | head -1 | tr -d ' ')
    [ -n "$soname" ] || { echo "kernel-lab: libpcap is not installed (libpcap0.8)" >&2; exit 1; }
    patchelf --add-needed "$soname" "$klab/hciscope"
fi
echo "kernel-lab: hciscope capture --source $source_kind"
if ! MEM=${MEM:-1024} BTMON=1 KLAB="$klab" CAPTURE_BIN="$klab/hciscope" CAPTURE_ARGS="capture --source $source_kind -w" \
    "$lab/run.sh" > "$klab/run.log" 2>&1; then
    if grep -q "capture process died" "$klab/out/latest/console.log" 2>/dev/null; then
        echo "kernel-lab: hciscope capture died in the guest:" >&2
        grep -A5 "capture process died" "$klab/out/latest/console.log" >&2
        exit 1
    fi
    echo "kernel-lab: the lab did not run here (see $klab/run.log): live capture proof SKIPPED" >&2
    tail -n 5 "$klab/run.log" >&2
    exit 77
fi
out="$klab/out/latest"
echo "kernel-lab: $(head -2 "$out/compare.txt" | tail -1)"
if ! grep -qE '^aligned .*; ([0-9]+)/\1 records identical' "$out/compare.txt"; then
    echo "kernel-lab: hciscope's capture differs from btmon's:" >&2
    cat "$out/compare.txt" >&2
    exit 1
fi
# Kernel timestamps: identical for every record except the per-socket SYSTEM_NOTE frames, which
# the kernel stamps at each socket's bind time (kernel-lab README, finding 6).
python3 - "$out/monitor.btsnoop" "$out/btmon.btsnoop" <<'PY' || exit 1
import struct, sys
def records(path):
    data = open(path, "rb").read()
    off, out = 16, []
    while off + 24 <= len(data):
        orig, incl, flags, drops, ts = struct.unpack(">IIIIq", data[off:off + 24])
        out.append((flags >> 16, flags & 0xFFFF, data[off + 24:off + 24 + incl], ts))
        off += 24 + incl
    return out
mine, ref = records(sys.argv[1]), records(sys.argv[2])
if [r[:3] for r in mine] != [r[:3] for r in ref]:
    sys.exit("kernel-lab: record lists differ")
diff = [(i + 1, m[3] - r[3]) for i, (m, r) in enumerate(zip(mine, ref)) if m[3] != r[3] and m[1] != 12]
if diff:
    sys.exit(f"kernel-lab: kernel timestamps differ from btmon's on {len(diff)} records, e.g. frame {diff[0][0]} by {diff[0][1]} us")
notes = sum(1 for m in mine if m[1] == 12)
print(f"kernel-lab: kernel timestamps identical on all {len(mine) - notes} records but the {notes} per-socket system notes")
PY
"$bin" analyze --format json "$out/monitor.btsnoop" > "$klab/analyze.json" || true
python3 - "$klab/analyze.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
scans, conns, pairs = len(r["scans"]), len(r["connections"]), len(r["pairing"])
print(f"kernel-lab: analyze found {scans} scan session(s), {conns} connection(s), {pairs} pairing(s)")
sys.exit(0 if scans and conns and pairs else 1)
PY
