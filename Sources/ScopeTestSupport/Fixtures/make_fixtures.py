#!/usr/bin/env python3
"""Regenerates the small capture fixtures in this folder (see README.md).

Every good fixture is built from 24 records of a Bumble-generated scenario capture
(good_central.btsnoop of the scenario corpus), re-encoded here in Python,
independently of the Swift writers, so that reader tests do not merely check the writers against
themselves. Those 24 records are kept as the reference fixture btsnoop/h4.btsnoop, which this
script reads back, so it runs from a clone alone; with HCISCOPE_CORPUS set it also checks that
the reference still equals the scenario's records.
The bad fixtures are good ones with one deliberate defect each.

Run from anywhere: python3 Sources/ScopeTestSupport/Fixtures/make_fixtures.py
Output is deterministic.
"""
import os
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Scripts"))
from capture_encoders import *  # noqa: E402,F403  (the format encoders, shared with gen-scenarios.py)

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "btsnoop" / "h4.btsnoop"


# The 24 records of good_central (H4 byte + packet; direction from flags bit0): its first 12
# records (controller set-up) and 12 around the first ACL traffic (both directions, records 41-52).
HEAD = read_btsnoop(REFERENCE)
assert len(HEAD) == 24, f"{REFERENCE}: {len(HEAD)} records, expected 24"
_corpus = os.environ.get("HCISCOPE_CORPUS")
if _corpus and (Path(_corpus) / "scenarios" / "good_central.btsnoop").exists():
    _records = read_btsnoop(Path(_corpus) / "scenarios" / "good_central.btsnoop")
    assert _records[:12] + _records[40:52] == HEAD, "btsnoop/h4.btsnoop no longer equals good_central's records"


# ---------------------------------------------------------------- defects

def record_offsets_btsnoop(data):
    pos, offs = 16, []
    while pos + 24 <= len(data):
        offs.append(pos)
        pos += 24 + struct.unpack(">I", data[pos + 4:pos + 8])[0]
    return offs


def record_offsets_pklg(data, big):
    e = ">" if big else "<"
    pos, offs = 0, []
    while pos + 13 <= len(data):
        offs.append(pos)
        pos += 4 + struct.unpack(e + "I", data[pos:pos + 4])[0]
    return offs


def record_offsets_pcap(data, big=False):
    e = ">" if big else "<"
    pos, offs = 24, []
    while pos + 16 <= len(data):
        offs.append(pos)
        pos += 16 + struct.unpack(e + "I", data[pos + 8:pos + 12])[0]
    return offs


def patch(data, offset, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, offset, value)
    return bytes(b)


def main():
    files = {}
    good_h4 = btsnoop_h4(HEAD)
    mon = monitor_records(HEAD)
    files["btsnoop/h4.btsnoop"] = good_h4
    files["btsnoop/h1.btsnoop"] = btsnoop_h1(HEAD)
    files["btsnoop/monitor.btsnoop"] = btsnoop_monitor(mon)
    files["pcap/h4phdr-us-le.pcap"] = pcap_file(201, phdr_packets(HEAD))
    files["pcap/h4phdr-us-be.pcap"] = pcap_file(201, phdr_packets(HEAD), big=True)
    files["pcap/h4phdr-ns-le.pcap"] = pcap_file(201, phdr_packets(HEAD), ns=True)
    files["pcap/h4phdr-ns-be.pcap"] = pcap_file(201, phdr_packets(HEAD), ns=True, big=True)
    files["pcap/h4-187.pcap"] = pcap_file(187, h4_packets(HEAD))
    files["pcap/monitor-254.pcap"] = pcap_file(254, monitor_packets(mon))
    files["pcapng/h4phdr-201.pcapng"] = pcapng_file(201, phdr_packets(HEAD))
    files["pcapng/h4phdr-201-ns.pcapng"] = pcapng_file(201, phdr_packets(HEAD), tsresol=9)
    files["pcapng/monitor-254.pcapng"] = pcapng_file(254, monitor_packets(mon))
    files["pklg/be.pklg"] = pklg_file(HEAD, big=True)
    files["pklg/le.pklg"] = pklg_file(HEAD, big=False)

    offs = record_offsets_btsnoop(good_h4)
    # Header defects.
    files["bad/truncated-file-header.btsnoop"] = good_h4[:11]
    files["bad/truncated-file-header.pcap"] = files["pcap/h4phdr-us-le.pcap"][:20]
    files["bad/truncated-file-header.pcapng"] = files["pcapng/h4phdr-201.pcapng"][:20]
    files["bad/wrong-magic.btsnoop"] = b"BTSNOOP\0" + good_h4[8:200]
    files["bad/empty.btsnoop"] = b""
    files["bad/datalink-1004.btsnoop"] = btsnoop_header(1004) + good_h4[16:100]
    files["bad/link-type-272.pcap"] = pcap_file(272, h4_packets(HEAD[:2]))
    files["bad/link-type-256.pcapng"] = pcapng_file(256, h4_packets(HEAD[:2]))
    # Record defects (btsnoop): each names the record it breaks in README.md.
    files["bad/truncated-last-record.btsnoop"] = good_h4[:offs[-1] + 24 + 3]
    files["bad/oversized-length.btsnoop"] = patch(good_h4, offs[4] + 4, ">I", 0x7FFFFF00)
    files["bad/incl-gt-orig.btsnoop"] = patch(good_h4, offs[2], ">I", 2)
    bw = patch(good_h4, offs[3] + 16, ">q", HEAD[1]["ts"] + BTSNOOP_EPOCH)
    files["bad/backwards-timestamp.btsnoop"] = bw
    files["bad/implausible-year.btsnoop"] = btsnoop_h4(
        [dict(r, ts=r["ts"] - 50 * 365 * 86400 * 1_000_000) for r in HEAD[:6]])
    skew = 378 * 86400 * 1_000_000
    files["bad/epoch-skew.btsnoop"] = btsnoop_h4(
        [dict(r, ts=r["ts"] + (skew if i >= 3 else 0)) for i, r in enumerate(HEAD[:6])])
    files["bad/original-over-64k.btsnoop"] = patch(good_h4, offs[1], ">I", 70_000)
    files["bad/garbage-between-records.btsnoop"] = (
        good_h4[:offs[3]] + bytes((i * 37 + 11) & 0xFF for i in range(37)) + good_h4[offs[3]:])
    files["bad/no-h4-byte.btsnoop"] = (
        good_h4[:offs[2]] + struct.pack(">IIIIq", 0, 0, 0, 0, HEAD[2]["ts"] + BTSNOOP_EPOCH) + good_h4[offs[2]:])
    files["bad/record-cut-then-resync.btsnoop"] = good_h4[:offs[5] + 30] + good_h4[offs[6]:]
    # pcap defects (read through libpcap: it stops at its first error).
    p = files["pcap/h4phdr-us-le.pcap"]
    poffs = record_offsets_pcap(p)
    files["bad/truncated-last-record.pcap"] = p[:poffs[-1] + 16 + 4]
    files["bad/oversized-length.pcap"] = patch(p, poffs[4] + 8, "<I", 0x7FFFFF00)
    files["bad/incl-gt-orig.pcap"] = patch(p, poffs[2] + 12, "<I", 3)
    files["bad/short-phdr.pcap"] = pcap_file(
        201, phdr_packets(HEAD[:2]) + [(HEAD[2]["ts"], b"\0\0\x01", None)] + phdr_packets(HEAD[2:5]))
    files["bad/backwards-timestamp.pcap"] = pcap_file(
        201, phdr_packets(HEAD[:3]) + [(HEAD[0]["ts"], phdr_packets(HEAD[3:4])[0][1], None)] + phdr_packets(HEAD[4:6]))
    # PacketLogger defects.
    k = files["pklg/be.pklg"]
    koffs = record_offsets_pklg(k, True)
    files["bad/truncated-last-record.pklg"] = k[:koffs[-1] + 13 + 2]
    files["bad/oversized-length.pklg"] = patch(k, koffs[5], ">I", 0x00FFFFFF)
    files["bad/short-length.pklg"] = patch(k, koffs[5], ">I", 4)

    # One fixture per remaining reader error path (FixtureTests.readerPathsHaveFixtures lists them).
    files["bad/unconvertible-timestamp.btsnoop"] = patch(good_h4, offs[-1] + 16, ">q", -(1 << 63) + 5)
    files["bad/unknown-flags.btsnoop"] = patch(good_h4, offs[1] + 8, ">I", 0x13)
    files["bad/version-2.btsnoop"] = btsnoop_header(1002, version=2) + good_h4[16:]
    files["bad/datalink-1003.btsnoop"] = btsnoop_header(1003) + good_h4[16:100]
    files["bad/datalink-2002.btsnoop"] = btsnoop_header(2002) + good_h4[16:100]
    files["bad/datalink-9999.btsnoop"] = btsnoop_header(9999) + good_h4[16:100]
    files["bad/truncated-record-header.btsnoop"] = good_h4[:offs[-1] + 10]
    files["bad/garbage-to-end.btsnoop"] = good_h4[:offs[5]] + b"\xff" * 40
    big = dict(HEAD[12], data=HEAD[12]["data"][:5] + bytes(70_000), orig=70_005)
    files["bad/oversized-framed.btsnoop"] = btsnoop_h4(HEAD[:3] + [big] + HEAD[13:16])
    files["bad/truncated-magic.pcap"] = files["pcap/h4phdr-us-le.pcap"][:3]
    files["bad/version-3.pcap"] = patch(files["pcap/h4phdr-us-le.pcap"], 4, "<H", 3)
    files["bad/link-type-1.pcap"] = pcap_file(1, h4_packets(HEAD[:2]))
    files["bad/original-over-64k.pcap"] = patch(p, poffs[1] + 12, "<I", 70_000)
    files["bad/direction-bits.pcap"] = pcap_file(
        201, phdr_packets(HEAD[:2]) + [(HEAD[2]["ts"], struct.pack(">I", 0x0300) + HEAD[2]["data"], None)]
        + phdr_packets(HEAD[3:5]))
    files["bad/oversized-framed.pcap"] = pcap_file(201, phdr_packets(HEAD[:3] + [big] + HEAD[13:16]))
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb = block(1, struct.pack("<HHI", 201, 0, 262144))
    epb = block(6, struct.pack("<IIIII", 0, 0, 1000, 5, 5) + b"\0\0\0\0\x01")
    files["bad/byte-order-magic.pcapng"] = shb[:8] + struct.pack("<I", 0x12345678) + shb[12:] + idb
    files["bad/shb-length.pcapng"] = patch(shb, 4, "<I", 13) + idb
    files["bad/truncated-shb.pcapng"] = patch(shb, 4, "<I", 64)[:40]
    files["bad/no-idb.pcapng"] = shb + block(0x0BAD, b"\0" * 8) * 3
    files["bad/block-length.pcapng"] = shb + struct.pack("<II", 0x0BAD, 5) + b"\0" * 8 + idb
    files["bad/packet-before-idb.pcapng"] = shb + epb + idb
    files["bad/timestamp-overflow.pcapng"] = (
        shb + block(1, struct.pack("<HHI", 201, 0, 262144) + struct.pack("<HH", 9, 1) + b"\0\0\0\0"
                    + struct.pack("<HH", 0, 0))
        + block(6, struct.pack("<IIIII", 0, 0x7FFFFFFF, 0xFFFFFFFF, 5, 5) + b"\0\0\0\0\x01") + epb)
    files["bad/microseconds-over-1e6.pklg"] = patch(k, koffs[10] + 8, ">I", 1_500_000)
    files["bad/truncated-record-header.pklg"] = k[:koffs[-1] + 7]
    times = [r["ts"] for r in HEAD]
    files["bad/many-backwards.btsnoop"] = btsnoop_h4([dict(r, ts=t) for r, t in zip(HEAD, reversed(times))])

    for name, data in sorted(files.items()):
        path = HERE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        # Small, but for the two records over the largest HCI record (65,540 bytes) that are framed.
        assert len(data) < 20_000 or name.endswith(("oversized-framed.btsnoop", "oversized-framed.pcap")), name
        print(f"{len(data):6d}  {name}")


if __name__ == "__main__":
    main()
