#!/usr/bin/env python3
"""Write a btsnoop 1002 capture of one scan that hears ever new advertiser addresses.

`--advertisers` devices take turns sending an ADV_IND (flags, the Battery service UUID), one
report every 10 ms; each device's resolvable private address changes every `--rotate` reports
of the whole capture, so the capture names advertisers * frames / rotate distinct addresses
(at most one per report). Measures what per-advertiser state costs
on a long scan (`bash Scripts/bench.sh --addresses`). Deterministic: same arguments, same bytes.
"""
import argparse
import struct

BTSNOOP_EPOCH = 0x00DCDDB30F2F8000  # microseconds from year 0 to 1970


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=2_000_000)
    ap.add_argument("--advertisers", type=int, default=200)
    ap.add_argument("--rotate", type=int, default=2000, help="reports of the capture between address changes")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    t = 1_700_000_000_000_000
    with open(a.out, "wb") as f:
        f.write(b"btsnoop\0" + struct.pack(">II", 1, 1002))

        def record(packet, flags):
            f.write(struct.pack(">IIIIq", len(packet), len(packet), flags, 0, t + BTSNOOP_EPOCH))
            f.write(packet)

        # LE Set Scan Parameters (passive, 10 ms interval and window) and LE Set Scan Enable
        # (duplicates allowed), each answered by Command Complete.
        record(bytes([1, 0x0B, 0x20, 7, 0, 0x10, 0, 0x10, 0, 0, 0]), 2)
        t += 1000
        record(bytes([4, 0x0E, 4, 1, 0x0B, 0x20, 0]), 3)
        t += 1000
        record(bytes([1, 0x0C, 0x20, 2, 1, 0]), 2)
        t += 1000
        record(bytes([4, 0x0E, 4, 1, 0x0C, 0x20, 0]), 3)
        data = bytes([2, 1, 6, 3, 3, 0x0F, 0x18])
        for i in range(a.frames - 4):
            t += 10_000
            device, epoch = i % a.advertisers, i // a.rotate
            # A resolvable private address (top bits 01), one per device and epoch.
            address = ((device * 2654435761 + epoch * 40503) & 0x3FFFFFFFFFFF) | 0x400000000000
            report = bytes([0x02, 1, 0x00, 0x01]) + address.to_bytes(6, "little") + bytes([len(data)]) + data + bytes([0xC0])
            record(bytes([4, 0x3E, len(report)]) + report, 3)


if __name__ == "__main__":
    main()
