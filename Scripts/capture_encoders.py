"""Encoders for the capture formats hciscope reads, written independently of hciscope's own
writers (so that reader tests do not merely check the writers against themselves). Used by the
fixture generator (Sources/ScopeTestSupport/Fixtures/make_fixtures.py) and the scenario generator
(Scripts/gen-scenarios.py). Layouts: FORMATS of each reader in Sources/ScopeCapture.

A record is a dict: data (H4 type byte + packet), flags (btsnoop: bit0 received, bit1
command/event), ts (µs since the Unix epoch), orig and drops.
"""
import struct
from pathlib import Path

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


def monitor_records(records, lead_us=1000):
    """(adapter, opcode, payload, ts): 4 monitor meta records (a system note, New Index, Open Index,
    Index Info), then the HCI traffic on index 0. The meta records start `lead_us` before it."""
    t0 = records[0]["ts"] - lead_us
    step = 1 if lead_us else 0
    new_index = bytes([0, 1]) + bytes.fromhex("b4c932d3c5d0") + b"hci0\0\0\0\0"  # primary, USB
    note = b"Bluetooth subsystem version 2.22\0"
    out = [(0xFFFF, 12, note, t0), (0, 0, new_index, t0 + step), (0, 8, b"", t0 + 2 * step),
           (0, 10, bytes.fromhex("b4c932d3c5d0") + struct.pack("<H", 0x0002), t0 + 3 * step)]
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


def pklg_file(records, big, lead_us=500, note=b"hciscope fixture: PacketLogger note"):
    """A PacketLogger note (0xFC) and a config record (0xFD) `lead_us` before the records, then them."""
    t0 = records[0]["ts"] - lead_us
    out = pklg_record(0xFC, note, t0, big)
    out += pklg_record(0xFD, b"config: PacketLogger 5.0", t0 + (1 if lead_us else 0), big)
    for r in records:
        t, pkt, rx = h4(r)
        out += pklg_record(PKLG_TYPE[(t, rx)], pkt, r["ts"], big)
    return out
