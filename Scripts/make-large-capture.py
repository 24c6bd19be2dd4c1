#!/usr/bin/env python3
"""Build a large, deterministic btsnoop 1002 capture of real LE traffic for benchmarks.

Replays the records of real Android snoop logs from the corpus's real/ folder (HCISCOPE_CORPUS; Scripts/fetch-corpus.sh) (scans, advertising
reports, connections, ATT, SMP) round after round until N frames are written:

- timestamps are made monotonic: each replayed file keeps its own gaps (a backwards step is
  clamped), and starts one second after the previous one ended;
- connection handles are offset per round (every handle field this script knows: ACL header,
  connection/disconnection/encryption/LE meta events, Number Of Completed Packets, handle-bearing
  commands and their Command Complete), so each replay's connections are distinct;
- a synthetic Disconnection Complete closes every connection a replayed file left open, so no
  handle is reused while it is still connected.

The output is the same for the same inputs and --frames. Never commit it (it is large):

    python3 Scripts/make-large-capture.py                      # 1,000,000 frames → /tmp/hciscope-1m.btsnoop
    python3 Scripts/make-large-capture.py --frames 10000000 --out /tmp/hciscope-10m.btsnoop

One capture on its own (Scripts/bench.sh's per-capture mode), same rules, round after round:

    python3 Scripts/make-large-capture.py --capture FILE --frames 300000 --out /tmp/one.btsnoop
    python3 Scripts/make-large-capture.py --check FILE   # "ok RECORDS ADV_REPORT_EVENTS", or why not
"""
import argparse
import os
import struct
import sys

SOURCES = [
    "Syed-Bipul-Rahman__bluethooth_light_controll__btsnoop_hci.log",
    "phlash__blefun__btsnoop_hci.log",
    "bbmp__AndroidPad__btsnoop_hci.cfa",
    "whoisbe__pongbot-mcp__btsnoop_hci.log.last",
    "jpvargasdev__MachineSpiritTimetable__btsnoop_aaaa.log",
    "dandwhelan__fossibot-bluetooth__btsnoop_hci.log",
    "wangdalian__btsnooper__btsnoop_hci.log",
    "soaresden__IX7TrackerPro__btsnoop_hci.log",
    "crossnite__NovaX-Escooter__btsnoop_hci.log",
    "csacca__horizon-74-at-ble__btsnoop_hci.log",
    "mchwalisz__lightsapp-cli__btsnoop_hci.log",
    "cnrd__yeelock__btsnoop_hci.log",
    "danisla__iot-bed__btsnoop_hci.log",
]

HANDLE_STEP = 0x40          # per-round handle offset
HANDLE_SPACE = 0x0F00       # valid handles are 0x000-0xEFF
GAP_US = 1_000_000          # between replayed files

# Command opcodes whose parameters start with a connection handle.
CMD_WITH_HANDLE = {
    0x0406,  # Disconnect
    0x041D,  # Read Remote Version Information
    0x2013,  # LE Connection Update
    0x2016,  # LE Read Remote Features
    0x2019,  # LE Enable Encryption
    0x201A,  # LE Long Term Key Request Reply
    0x201B,  # LE Long Term Key Request Negative Reply
    0x2020,  # LE Remote Connection Parameter Request Reply
    0x2021,  # LE Remote Connection Parameter Request Negative Reply
    0x2022,  # LE Set Data Length
    0x2030,  # LE Read PHY
    0x2032,  # LE Set PHY
    0x1405,  # Read RSSI
    0x0C2D,  # Read Transmit Power Level
}
# Command Complete return parameters: status, then handle.
CC_WITH_HANDLE = {0x201A, 0x201B, 0x2020, 0x2021, 0x2022, 0x2030, 0x1405, 0x0C2D}
# Events whose parameters are (status, handle, ...).
EVT_STATUS_HANDLE = {0x03, 0x05, 0x08, 0x0B, 0x0C, 0x30}
# LE meta subevents: (status, handle) or (handle) first.
LE_STATUS_HANDLE = {0x01, 0x03, 0x04, 0x0A, 0x0C, 0x29}
LE_HANDLE_FIRST = {0x05, 0x06, 0x07, 0x14}


def unsupported(data):
    """Why this script cannot replay a file (None if it can): it reads and writes btsnoop 1002 only."""
    if data[:8] != b"btsnoop\0" or len(data) < 16:
        if data[:4] == b"\x0a\x0d\x0d\x0a":
            kind = "pcapng"
        elif data[:4] in (b"\xa1\xb2\xc3\xd4", b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\x3c\x4d", b"\x4d\x3c\xb2\xa1"):
            kind = "pcap"
        else:
            kind = "not btsnoop or pcap (PacketLogger?)"
        return f"{kind}: the replay reads btsnoop 1002 only"
    link = struct.unpack(">I", data[12:16])[0]
    if link != 1002:
        return f"btsnoop {link}: monitor records, the replay rewrites H4 (btsnoop 1002) packets only"
    return None


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    why = unsupported(data)
    if why:
        raise SystemExit(f"{path}: {why}")
    off = 16
    while off + 24 <= len(data):
        orig, incl, flags, drops, ts = struct.unpack(">IIIIq", data[off:off + 24])
        off += 24
        if off + incl > len(data):
            break
        yield flags, ts, bytearray(data[off:off + incl])
        off += incl


def remap(h, shift):
    return ((h & 0x0FFF) + shift) % HANDLE_SPACE


def put_handle(buf, pos, shift):
    if pos + 2 <= len(buf):
        h = buf[pos] | (buf[pos + 1] << 8)
        n = remap(h, shift) | (h & 0xF000)
        buf[pos] = n & 0xFF
        buf[pos + 1] = n >> 8


def rewrite(pkt, shift, open_handles):
    """Offset every connection handle in one H4 packet (in place); track open connections."""
    if not pkt:
        return
    kind = pkt[0]
    if kind == 0x02:  # ACL
        put_handle(pkt, 1, shift)
    elif kind == 0x01 and len(pkt) >= 4:  # command
        op = pkt[1] | (pkt[2] << 8)
        if op in CMD_WITH_HANDLE:
            put_handle(pkt, 4, shift)
    elif kind == 0x04 and len(pkt) >= 3:  # event
        code, p = pkt[1], 3
        if code in EVT_STATUS_HANDLE:
            put_handle(pkt, p + 1, shift)
            if len(pkt) >= p + 3 and pkt[p] == 0:
                h = (pkt[p + 1] | (pkt[p + 2] << 8)) & 0x0FFF
                if code == 0x03:
                    open_handles.add(h)
                elif code == 0x05:
                    open_handles.discard(h)
        elif code == 0x13 and len(pkt) >= 4:  # Number Of Completed Packets
            for i in range(pkt[3]):
                put_handle(pkt, 4 + 4 * i, shift)
        elif code == 0x0E and len(pkt) >= 7:  # Command Complete
            op = pkt[4] | (pkt[5] << 8)
            if op in CC_WITH_HANDLE:
                put_handle(pkt, 7, shift)
        elif code == 0x3E and len(pkt) >= 4:
            sub = pkt[3]
            if sub in LE_STATUS_HANDLE:
                put_handle(pkt, 5, shift)
                if sub in (0x01, 0x0A, 0x29) and len(pkt) >= 7 and pkt[4] == 0:
                    open_handles.add((pkt[5] | (pkt[6] << 8)) & 0x0FFF)
            elif sub in LE_HANDLE_FIRST:
                put_handle(pkt, 4, shift)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=1_000_000)
    ap.add_argument("--out", default="/tmp/hciscope-1m.btsnoop")
    corpus = os.environ.get("HCISCOPE_CORPUS") or os.path.join(here, "..", "..", "shared", "captures")
    ap.add_argument("--captures", default=os.path.join(corpus, "real"), help="folder of the real captures (default: $HCISCOPE_CORPUS/real)")
    ap.add_argument("--capture", help="replay this one btsnoop 1002 file instead of the mix of SOURCES")
    ap.add_argument("--check", metavar="FILE", help="print 'ok RECORDS ADV_REPORT_EVENTS' if FILE can be replayed, else 'skip REASON'")
    args = ap.parse_args()

    if args.check:
        with open(args.check, "rb") as f:
            why = unsupported(f.read(16))
        if why:
            print("skip " + why)
            return
        recs = list(records(args.check))
        # LE Meta events carrying advertising reports: legacy 0x02, direct 0x0B, extended 0x0D
        adv = sum(1 for _, _, p in recs if len(p) >= 4 and p[0] == 0x04 and p[1] == 0x3E and p[3] in (0x02, 0x0B, 0x0D))
        print(f"ok {len(recs)} {adv}" if recs else "skip no records")
        return

    if args.capture:
        loaded = [list(records(args.capture))]
        if not loaded[0]:
            raise SystemExit(f"{args.capture}: no records to replay")
    else:
        loaded = load_mix(args.captures)
    write(loaded, args.frames, args.out)


def load_mix(folder):
    sources = [os.path.join(folder, s) for s in SOURCES]
    missing = [s for s in sources if not os.path.exists(s)]
    if missing:
        raise SystemExit("missing real captures (set HCISCOPE_CORPUS, or run Scripts/fetch-corpus.sh):\n  " + "\n  ".join(missing))
    # Parsed once; each round replays copies.
    return [list(records(s)) for s in sources]


def write(loaded, frames, path):
    written = 0
    # btsnoop µs since year 0: the Unix epoch plus 2024-01-01 (fixed, so the file is deterministic)
    clock = 0x00DCDDB30F2F8000 + 1_704_067_200 * 1_000_000
    out = open(path + ".tmp", "wb")
    out.write(b"btsnoop\0" + struct.pack(">II", 1, 1002))
    rec = struct.Struct(">IIIIq")

    def emit(flags, ts, pkt):
        nonlocal written
        out.write(rec.pack(len(pkt), len(pkt), flags, 0, ts))
        out.write(pkt)
        written += 1

    rnd = 0
    while written < frames:
        shift = (rnd * HANDLE_STEP) % HANDLE_SPACE
        for recs in loaded:
            if written >= frames:
                break
            open_handles = set()
            first = recs[0][1] if recs else 0
            start = clock
            for flags, ts, pkt in recs:
                if written >= frames:
                    break
                t = max(start + (ts - first), clock)
                clock = t
                pkt = bytearray(pkt)
                rewrite(pkt, shift, open_handles)
                emit(flags, t, pkt)
            for h in sorted(open_handles):
                if written >= frames:
                    break
                clock += 1000
                # Disconnection Complete: status 0, handle, reason 0x16 (local host terminated)
                emit(0x03, clock, bytearray([0x04, 0x05, 0x04, 0x00, h & 0xFF, h >> 8, 0x16]))
            clock += GAP_US
        rnd += 1
    out.close()
    os.replace(path + ".tmp", path)
    print(f"{path}: {written} frames, {os.path.getsize(path)} bytes, {rnd} round(s)", file=sys.stderr)


if __name__ == "__main__":
    main()
