#!/usr/bin/env python3
"""Regenerates the small capture fixtures in this folder (see README.md).

Every good fixture is built from 24 records of a Bumble-generated scenario capture
(good_central.btsnoop of the scenario corpus, sha256 below), re-encoded here in Python,
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

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "btsnoop" / "h4.btsnoop"
BTSNOOP_EPOCH = 0x00DCDDB30F2F8000


def read_btsnoop(path):
    data = path.read_bytes()
    assert data[:8] == b"btsnoop\0"
    pos, out = 16, []
    while pos + 24 <= len(data):
        orig, incl, flags, drops, ts = struct.unpack(">IIIIq", data[pos:pos + 24])
        out.append(dict(orig=orig, incl=incl, flags=flags, drops=drops, ts=ts - BTSNOOP_EPOCH,
                        data=data[pos + 24:pos + 24 + incl]))
        pos += 24 + incl
    return out


# The 24 records of good_central (H4 byte + packet; direction from flags bit0): its first 12
# records (controller set-up) and 12 around the first ACL traffic (both directions, records 41-52).
HEAD = read_btsnoop(REFERENCE)
assert len(HEAD) == 24, f"{REFERENCE}: {len(HEAD)} records, expected 24"
_corpus = os.environ.get("HCISCOPE_CORPUS")
if _corpus and (Path(_corpus) / "scenarios" / "good_central.btsnoop").exists():
    _records = read_btsnoop(Path(_corpus) / "scenarios" / "good_central.btsnoop")
    assert _records[:12] + _records[40:52] == HEAD, "btsnoop/h4.btsnoop no longer equals good_central's records"


def h4(r):
    return r["data"][0], r["data"][1:], bool(r["flags"] & 1)


# ---------------------------------------------------------------- btsnoop

def btsnoop_header(datalink, version=1):
    return b"btsnoop\0" + struct.pack(">II", version, datalink)


def btsnoop_record(payload, flags, ts_us, orig=None, drops=0):
    orig = len(payload) if orig is None else orig
    return struct.pack(">IIIIq", orig, len(payload), flags, drops, ts_us + BTSNOOP_EPOCH) + payload


def btsnoop_h4(records):
    return btsnoop_header(1002) + b"".join(
        btsnoop_record(r["data"], r["flags"], r["ts"], orig=r["orig"], drops=r["drops"]) for r in records)


def btsnoop_h1(records):
    out = btsnoop_header(1001)
    for r in records:
        t, pkt, rx = h4(r)
        if t in (1, 4):
            flags = 2 | (1 if t == 4 else 0)
        elif t == 2:
            flags = 1 if rx else 0
        else:
            continue
        out += btsnoop_record(pkt, flags, r["ts"])
    return out


MONITOR_OPCODE = {(1, False): 2, (1, True): 2, (4, True): 3, (4, False): 3, (2, False): 4, (2, True): 5}


def monitor_records(records):
    """(adapter, opcode, payload, ts): monitor meta records, then the HCI traffic on index 0."""
    t0 = records[0]["ts"] - 1000
    new_index = bytes([0, 1]) + bytes.fromhex("b4c932d3c5d0") + b"hci0\0\0\0\0"  # primary, USB
    note = b"Bluetooth subsystem version 2.22\0"
    out = [(0xFFFF, 12, note, t0), (0, 0, new_index, t0 + 1), (0, 8, b"", t0 + 2),
           (0, 10, bytes.fromhex("b4c932d3c5d0") + struct.pack("<H", 0x0002), t0 + 3)]
    for r in records:
        t, pkt, rx = h4(r)
        out.append((0, MONITOR_OPCODE[(t, rx)], pkt, r["ts"]))
    return out


def btsnoop_monitor(mrecs):
    return btsnoop_header(2001) + b"".join(
        btsnoop_record(p, (a << 16) | o, ts) for a, o, p, ts in mrecs)


# ---------------------------------------------------------------- pcap

def pcap_file(linktype, packets, ns=False, big=False):
    e = ">" if big else "<"
    magic = 0xA1B23C4D if ns else 0xA1B2C3D4
    out = struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, 262144, linktype)
    for ts, data, orig in packets:
        sec, us = divmod(ts, 1_000_000)
        frac = us * 1000 + 789 if ns else us  # ns files get sub-µs digits that must be truncated
        out += struct.pack(e + "iIII", sec, frac, len(data), orig if orig is not None else len(data)) + data
    return out


def phdr_packets(records):
    return [(r["ts"], struct.pack(">I", 1 if h4(r)[2] else 0) + r["data"], None) for r in records]


def h4_packets(records):
    return [(r["ts"], r["data"], None) for r in records]


def monitor_packets(mrecs):
    return [(ts, struct.pack(">HH", a, o) + p, None) for a, o, p, ts in mrecs]


# ---------------------------------------------------------------- pcapng

def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def block(btype, body):
    body = pad4(body)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def pcapng_file(linktype, packets, tsresol=6):
    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    opts = b""
    if tsresol != 6:
        opts = struct.pack("<HH", 9, 1) + bytes([tsresol]) + b"\0\0\0" + struct.pack("<HH", 0, 0)
    idb = block(1, struct.pack("<HHI", linktype, 0, 262144) + opts)
    out = shb + idb
    scale = 10 ** (tsresol - 6)
    for ts, data, orig in packets:
        t = ts * scale + (123 if tsresol == 9 else 0)
        out += block(6, struct.pack("<IIIII", 0, (t >> 32) & 0xFFFFFFFF, t & 0xFFFFFFFF, len(data),
                                    orig if orig is not None else len(data)) + data)
    return out


# ---------------------------------------------------------------- PacketLogger

PKLG_TYPE = {(1, False): 0x00, (1, True): 0x00, (4, True): 0x01, (4, False): 0x01, (2, False): 0x02, (2, True): 0x03}


def pklg_record(ptype, payload, ts, big):
    e = ">" if big else "<"
    sec, us = divmod(ts, 1_000_000)
    return struct.pack(e + "IIIB", 9 + len(payload), sec, us, ptype) + payload


def pklg_file(records, big):
    t0 = records[0]["ts"] - 500
    out = pklg_record(0xFC, b"hciscope fixture: PacketLogger note", t0, big)
    out += pklg_record(0xFD, b"config: PacketLogger 5.0", t0 + 1, big)
    for r in records:
        t, pkt, rx = h4(r)
        out += pklg_record(PKLG_TYPE[(t, rx)], pkt, r["ts"], big)
    return out


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

    for name, data in sorted(files.items()):
        path = HERE / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        assert len(data) < 20_000, name
        print(f"{len(data):6d}  {name}")


if __name__ == "__main__":
    main()
