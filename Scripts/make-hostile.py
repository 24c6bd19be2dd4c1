#!/usr/bin/env python3
"""Hostile and damaged inputs: one file (or folder) per class of issue 29, for
Tests/ScopeCommandsTests/HostileInputTests.swift and Scripts/hostile.sh (which measures each).

    make-hostile.py OUTDIR [CASE...]     build every case (or the ones named) into OUTDIR
    make-hostile.py --list               the cases, one per line: name, file, what it is

Every file is made here from the project's own captures (captures/, the fixtures), with
Python's zipfile/tarfile/gzip/lzma and the zstd command, independently of hciscope's readers.
Deterministic: the same bytes on every run. Large data is made by concatenating compressed
members (gzip members, xz streams and zstd frames may follow one another), so that a 5 GB note
stream costs a few seconds to build and a few hundred KB of disk. Nothing here is committed.
"""
import bz2
import gzip
import io
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Scripts"))
import capture_encoders as enc  # noqa: E402

FIXTURES = ROOT / "Sources/ScopeTestSupport/Fixtures"
H4 = (FIXTURES / "btsnoop/h4.btsnoop").read_bytes()          # 24 records, 935 bytes
PKLG = (FIXTURES / "pklg/be.pklg").read_bytes()              # 26 records, 716 bytes
SAMPLE = ROOT / "captures/btvirt-le-pairing.btsnoop"         # 400 frames
T0 = 1_773_480_412_000_000                                   # 2026-03-14 09:26:52 UTC, µs
DOS_TIME = (2026, 3, 14, 9, 26, 52)

CASES = []


def case(name, file, what):
    def register(f):
        CASES.append((name, file, what, f))
        return f
    return register


# ---------------------------------------------------------------- helpers

def zstd(data_or_path, level=3, extra=()):
    """zstd-compresses bytes."""
    return subprocess.run(["zstd", "-q", f"-{level}", *extra, "-c"], input=data_or_path, capture_output=True,
                          check=True).stdout


def repeat_stream(chunk_compressed, times, path):
    """Writes `times` copies of a compressed member (gzip member / xz stream / zstd frame)."""
    with open(path, "wb") as f:
        for _ in range(times):
            f.write(chunk_compressed)


def pklg_record(payload, rtype, ts_us):
    return struct.pack(">III", 9 + len(payload), ts_us // 1_000_000, ts_us % 1_000_000) + bytes([rtype]) + payload


def pklg_notes(count, text_len, start_us=T0, step_us=1000):
    """`count` PacketLogger notes (type 0xFC) of `text_len` bytes each."""
    out = bytearray()
    body = (b"hciscope hostile note " * (text_len // 22 + 1))[:text_len]
    t = start_us
    for _ in range(count):
        out += pklg_record(body, 0xFC, t)
        t += step_us
    return bytes(out)


def dos(t):
    y, mo, d, h, mi, s = t
    return ((h << 11) | (mi << 5) | (s // 2)), (((y - 1980) << 9) | (mo << 5) | d)


class Zip:
    """A zip written by hand, so every field can be set (PKWARE APPNOTE 6.3.x)."""

    def __init__(self):
        self.body = bytearray()
        self.central = bytearray()
        self.count = 0

    def local(self, name, data, method=0, crc=None, size=None):
        """A local header + data; returns its offset."""
        raw = data
        if method == 8:
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            data = c.compress(raw) + c.flush()
        crc = zlib.crc32(raw) if crc is None else crc
        offset = len(self.body)
        t, d = dos(DOS_TIME)
        n = name.encode("utf-8", "surrogateescape")
        self.body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x800, method, t, d, crc, len(data),
                                 len(raw) if size is None else size, len(n), 0) + n + data
        return offset, crc, len(data), len(raw) if size is None else size, method

    def entry(self, name, local, extra=b"", fields=None):
        """A central directory entry for `local` (offset, crc, csize, size, method); `fields`
        overrides csize/size/offset as written (0xFFFFFFFF for ZIP64)."""
        offset, crc, csize, size, method = local
        f = dict(csize=csize, size=size, offset=offset)
        f.update(fields or {})
        t, d = dos(DOS_TIME)
        n = name.encode("utf-8", "surrogateescape")
        self.central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x31E, 20, 0x800, method, t, d, crc,
                                    f["csize"], f["size"], len(n), len(extra), 0, 0, 0, 0o100644 << 16,
                                    f["offset"]) + n + extra
        self.count += 1

    def add(self, name, data, method=0):
        self.entry(name, self.local(name, data, method))

    def bytes(self, zip64=None, eocd=None):
        """The archive. `zip64`: dict of ZIP64 end record fields (count, cd_size, cd_offset) and
        `locator` (the record's offset as the locator gives it); `eocd`: fields of the classic end
        record (count, cd_size, cd_offset)."""
        cd_offset = len(self.body)
        out = bytes(self.body) + bytes(self.central)
        e = dict(count=self.count, cd_size=len(self.central), cd_offset=cd_offset)
        e.update(eocd or {})
        if zip64 is not None:
            z = dict(count=self.count, cd_size=len(self.central), cd_offset=cd_offset, locator=len(out))
            z.update(zip64)
            record_offset = len(out)
            out += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, z["count"], z["count"], z["cd_size"],
                               z["cd_offset"])
            out += struct.pack("<IIQI", 0x07064B50, 0, z["locator"], 1)
            e = dict(count=0xFFFF, cd_size=0xFFFFFFFF, cd_offset=0xFFFFFFFF)
            e.update(eocd or {})
            del record_offset
        out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(e["count"], 0xFFFF), min(e["count"], 0xFFFF),
                           e["cd_size"], e["cd_offset"], 0)
        return out


def tar_header(name, size_field, typeflag=b"0", linkname=b""):
    """A ustar header with the size field given as 12 raw bytes."""
    h = bytearray(512)
    n = name.encode("utf-8", "surrogateescape")
    h[0:len(n)] = n
    h[100:108] = b"0000644\0"
    h[108:116] = b"0000000\0"
    h[116:124] = b"0000000\0"
    h[124:136] = size_field
    h[136:148] = b"%011o\0" % (T0 // 1_000_000)
    h[148:156] = b" " * 8
    h[156:157] = typeflag
    h[157:157 + len(linkname)] = linkname
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def octal_size(n):
    return b"%011o\0" % n


def tar_member(name, data):
    pad = (512 - len(data) % 512) % 512
    return tar_header(name, octal_size(len(data))) + data + b"\0" * pad


def tar_end():
    return b"\0" * 1024


def gz(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


def btsnoop_records(records):
    """btsnoop 1002 records (no header) of (h4 bytes, flags, ts)."""
    return b"".join(enc.btsnoop_record(p, f, t) for p, f, t in records)


def shifted_h4(seconds):
    """The 24-record fixture with every time moved `seconds` later (distinct bytes per member)."""
    return enc.btsnoop_h4([dict(r, ts=r["ts"] + seconds * 1_000_000) for r in enc.read_btsnoop(FIXTURES / "btsnoop/h4.btsnoop")])


def large_capture(frames):
    """A btsnoop 2001 capture of `frames` records: the sample's records replayed with times moving on."""
    recs = enc.read_btsnoop(SAMPLE)
    out = bytearray(SAMPLE.read_bytes()[:16])
    t = T0
    i = 0
    while i < frames:
        for r in recs:
            if i == frames:
                break
            out += enc.btsnoop_record(r["data"], r["flags"], t)
            t += 1000
            i += 1
    return bytes(out)


def pklg_capture(note, start_us):
    """A short PacketLogger log: a note, then the fixture's records moved to `start_us`."""
    recs, p = [], 0
    while p + 13 <= len(PKLG):
        length, = struct.unpack(">I", PKLG[p:p + 4])
        recs.append(PKLG[p + 12:p + 4 + length])  # type + payload
        p += 4 + length
    out = bytearray(pklg_record(note, 0xFC, start_us))
    for i, r in enumerate(recs):
        out += pklg_record(r[1:], r[0], start_us + 1000 * (i + 1))
    return bytes(out)


# ---------------------------------------------------------------- crashes: header fields at their limits

def zip64_base():
    z = Zip()
    z.add("FS/data/misc/bluetooth/logs/btsnoop_hci.log", H4)
    return z


@case("zip64-cd-size-max", "zip64-cd-size-max.zip", "ZIP64 end record: central directory size 0xFFFFFFFFFFFFFFFF")
def _(out):
    out.write_bytes(zip64_base().bytes(zip64=dict(cd_size=0xFFFFFFFFFFFFFFFF)))


@case("zip64-cd-size-int64max", "zip64-cd-size-int64max.zip", "ZIP64 end record: central directory size INT64_MAX")
def _(out):
    out.write_bytes(zip64_base().bytes(zip64=dict(cd_size=0x7FFFFFFFFFFFFFFF)))


@case("zip64-cd-offset-max", "zip64-cd-offset-max.zip", "ZIP64 end record: central directory offset 0xFFFFFFFFFFFFFFFF")
def _(out):
    out.write_bytes(zip64_base().bytes(zip64=dict(cd_offset=0xFFFFFFFFFFFFFFFF)))


@case("zip64-locator-max", "zip64-locator-max.zip", "ZIP64 locator: end record offset 0xFFFFFFFFFFFFFFFF")
def _(out):
    out.write_bytes(zip64_base().bytes(zip64=dict(locator=0xFFFFFFFFFFFFFFFF)))


@case("zip64-locator-int64max", "zip64-locator-int64max.zip", "ZIP64 locator: end record offset INT64_MAX")
def _(out):
    out.write_bytes(zip64_base().bytes(zip64=dict(locator=0x7FFFFFFFFFFFFFFF)))


@case("zip64-local-offset-max", "zip64-local-offset-max.zip", "ZIP64 extra field: local header offset 0xFFFFFFFFFFFFFFFF")
def _(out):
    z = Zip()
    name = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"
    local = z.local(name, H4)
    extra = struct.pack("<HHQ", 1, 8, 0xFFFFFFFFFFFFFFFF)
    z.entry(name, local, extra=extra, fields=dict(offset=0xFFFFFFFF))
    out.write_bytes(z.bytes())


@case("zip64-sizes-max", "zip64-sizes-max.zip", "ZIP64 extra field: sizes 0xFFFFFFFFFFFFFFFF, local header offset INT64_MAX")
def _(out):
    z = Zip()
    name = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"
    local = z.local(name, H4)
    z.entry("a/" + name, local, extra=struct.pack("<HHQQ", 1, 16, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF),
            fields=dict(size=0xFFFFFFFF, csize=0xFFFFFFFF))
    z.entry("b/" + name, local, extra=struct.pack("<HHQ", 1, 8, 0x7FFFFFFFFFFFFFFF), fields=dict(offset=0xFFFFFFFF))
    out.write_bytes(z.bytes())


def base256(n):
    return bytes([0x80]) + n.to_bytes(11, "big")


@case("tar-dir-size-max", "tar-dir-size-max.tar", "tar: a directory entry whose size field (base-256) is INT64_MAX, then a capture")
def _(out):
    out.write_bytes(tar_header("logs/Bluetooth/", base256(0x7FFFFFFFFFFFFFFF), b"5")
                    + tar_member("logs/Bluetooth/a.pklg", PKLG) + tar_end())


@case("tar-symlink-size-max", "tar-symlink-size-max.tar", "tar: a capture, then a symbolic link whose size field (base-256) is INT64_MAX")
def _(out):
    out.write_bytes(tar_member("logs/Bluetooth/a.pklg", PKLG)
                    + tar_header("logs/Bluetooth/b.pklg", base256(0x7FFFFFFFFFFFFFFF), b"2", b"a.pklg") + tar_end())


# ---------------------------------------------------------------- memory

@case("zip-10k", "zip-10k.zip", "zip of 10,000 small captures (a bug report's logs folder)")
def _(out):
    z = Zip()
    for i in range(10_000):
        z.add(f"FS/data/misc/bluetooth/logs/btsnoop_hci.log.{i}", shifted_h4(i), method=8)
    out.write_bytes(z.bytes())


@case("zip-10k-gz", "zip-10k-gz.zip", "zip of 10,000 gzip'd small captures")
def _(out):
    z = Zip()
    for i in range(10_000):
        z.add(f"FS/data/misc/bluetooth/logs/btsnoop_hci.log.{i}.gz", gz(shifted_h4(i)))
    out.write_bytes(z.bytes())


@case("zip-nested", "zip-nested.zip", "zip of 40 sysdiagnose tar.gz of 40 PacketLogger logs each (merges inside a merge)")
def _(out):
    outer = Zip()
    for i in range(40):
        inner = b"".join(tar_member(f"sysdiagnose/logs/Bluetooth/bluetoothd-hci-{k:02d}.pklg",
                                    pklg_capture(b"member %d.%d" % (i, k), T0 + (i * 40 + k) * 100_000)) for k in range(40))
        outer.add(f"sysdiagnose-{i:02d}.tar.gz", gz(inner + tar_end()))
    out.write_bytes(outer.bytes())


@case("tar-25k", "sysdiagnose-25k.tar.gz", "sysdiagnose tar.gz with 25,000 PacketLogger members")
def _(out):
    raw = io.BytesIO()
    root = "sysdiagnose_2026.03.14_09-26-52+0000_iPhone-OS_iPhone_23D5103/logs/Bluetooth/"
    for i in range(25_000):
        raw.write(tar_member(f"{root}bluetoothd-hci-{i:05d}.pklg", pklg_capture(b"member %d" % i, T0 + i * 100_000)))
    raw.write(tar_end())
    out.write_bytes(gz(raw.getvalue()))


def pklg_folder(out, count):
    base = out / "logs/Bluetooth"
    base.mkdir(parents=True)
    for i in range(count):
        (base / f"bluetoothd-hci-{i:05d}.pklg").write_bytes(pklg_capture(b"member %d" % i, T0 + i * 100_000))


@case("folder-10k", "sysdiagnose-10k", "unpacked sysdiagnose folder of 10,000 PacketLogger logs")
def _(out):
    pklg_folder(out, 10_000)


@case("notes-10m", "notes-10m.pklg.zst", "PacketLogger log of 10,000,000 notes (zstd)")
def _(out):
    chunk = zstd(pklg_notes(1_000_000, 24), level=3)
    # Same bytes per chunk: the times go back every 1,000,000 notes (9 warnings).
    repeat_stream(chunk, 10, out)


@case("notes-64k", "notes-64k.pklg.zst", "2.6 GB of 64 KB PacketLogger notes in a 0.3 MB zstd file")
def _(out):
    chunk = zstd(pklg_notes(400, 65_000), level=3)
    repeat_stream(chunk, 100, out)


@case("notes-xz", "notes-5g.pklg.xz", "5.2 GB of PacketLogger notes through xz (concatenated streams)")
def _(out):
    chunk = lzma.compress(pklg_notes(16_000, 6_500), preset=6)
    repeat_stream(chunk, 50, out)


@case("userlog", "userlog.btsnoop.zst", "btsnoop 2001 of 1,000,000 user-logging records of 2 KB (zstd)")
def _(out):
    body = bytes([6, 9]) + b"hciscope\0" + (b"L" * 2000) + b"\0"
    one = btsnoop_records_2001([(13, body, T0 + i * 1000) for i in range(10_000)])
    chunk = zstd(one, level=3)
    with open(out, "wb") as f:
        f.write(zstd(enc.btsnoop_header(2001)))
        for _ in range(100):
            f.write(chunk)


@case("unknown", "unknown-records.btsnoop.zst", "btsnoop 2001 of 30,000 records of an unknown monitor opcode, 60 KB each (zstd)")
def _(out):
    one = btsnoop_records_2001([(0x77, b"\xAB" * 60_000, T0 + i * 1000) for i in range(300)])
    chunk = zstd(one, level=3)
    with open(out, "wb") as f:
        f.write(zstd(enc.btsnoop_header(2001)))
        for _ in range(100):
            f.write(chunk)


def btsnoop_records_2001(recs):
    return b"".join(enc.btsnoop_record(p, (0 << 16) | op, t) for op, p, t in recs)


def snooz_text(records_zlib, version, last):
    raw = struct.pack("<BQ", version, last) + records_zlib
    import base64
    text = base64.b64encode(raw).decode()
    lines = "\n".join(text[i:i + 76] for i in range(0, len(text), 76))
    return (f"== dumpstate\n--- BEGIN:BTSNOOP_LOG_SUMMARY ({len(raw)} bytes in) ---\n{lines}\n"
            "--- END:BTSNOOP_LOG_SUMMARY ---\n").encode()


@case("btsnooz-12m", "btsnooz-12m.txt", "btsnooz v1 summary inflating to 12,000,000 records (a 0.3 MB text)")
def _(out):
    # v1 record: u16 length (type byte included), u32 delta, type; an HCI event of 2 bytes.
    one = struct.pack("<HIB", 3, 10, 0x10) + b"\x0e\x00"
    c = zlib.compressobj(9)
    body = bytearray()
    for _ in range(12):
        body += c.compress(one * 1_000_000)
    body += c.flush()
    out.write_bytes(snooz_text(bytes(body), 1, T0))


@case("btsnooz-7m", "btsnooz-7m.txt", "btsnooz v1 summary inflating to 63 MB, 7,000,000 records (just under the old 64 MiB cap)")
def _(out):
    one = struct.pack("<HIB", 3, 10, 0x10) + b"\x0e\x00"
    c = zlib.compressobj(9)
    body = c.compress(one * 7_000_000) + c.flush()
    out.write_bytes(snooz_text(body, 1, T0))


@case("btsnooz-raw", "btsnooz-raw.log.zst", "btsnoop header then 12,000,000 raw btsnooz v2 records, 132 MB (zstd)")
def _(out):
    rec = struct.pack("<HHIB", 3, 3, 10, 0x10) + b"\x0e\x00"
    chunk = zstd(rec * 1_000_000, level=3)
    with open(out, "wb") as f:
        f.write(zstd(enc.btsnoop_header(1002)))
        for _ in range(12):
            f.write(chunk)


@case("advertisers-2m", "advertisers-2m.btsnoop.zst", "2,000,000 advertising reports from distinct addresses, 10,000 new a second")
def _(out):
    data = bytes([2, 1, 6, 3, 3, 0x0F, 0x18])
    head = enc.btsnoop_header(1002) + btsnoop_records([
        (bytes([1, 0x0B, 0x20, 7, 0, 0x10, 0, 0x10, 0, 0, 0]), 2, T0),
        (bytes([4, 0x0E, 4, 1, 0x0B, 0x20, 0]), 3, T0 + 1000),
        (bytes([1, 0x0C, 0x20, 2, 1, 0]), 2, T0 + 2000),
        (bytes([4, 0x0E, 4, 1, 0x0C, 0x20, 0]), 3, T0 + 3000)])
    with open(out, "wb") as f:
        f.write(zstd(head))
        t = T0 + 4000
        for block in range(20):
            buf = bytearray()
            for i in range(block * 100_000, (block + 1) * 100_000):
                t += 100  # 10,000 reports a second, each from a new address
                address = ((i * 2654435761) & 0x3FFFFFFFFFFF) | 0x400000000000
                report = bytes([0x02, 1, 0x00, 0x01]) + address.to_bytes(6, "little") + bytes([len(data)]) + data + b"\xC0"
                buf += enc.btsnoop_record(bytes([4, 0x3E, len(report)]) + report, 3, t)
            f.write(zstd(bytes(buf)))


# ---------------------------------------------------------------- time

def deflate_bomb(size):
    """Raw deflate of `size` bytes: a btsnoop header and a record, then zeros."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = H4[:16 + 24 + 8]
    out = bytearray(c.compress(head))
    zeros = b"\0" * (1 << 20)
    left = size - len(head)
    crc = zlib.crc32(head)
    while left > 0:
        n = min(left, len(zeros))
        out += c.compress(zeros[:n])
        crc = zlib.crc32(zeros[:n], crc)
        left -= n
    out += c.flush()
    return bytes(out), crc


def overlap_zip(entries, distinct_crc, size):
    data, crc = deflate_bomb(size)
    z = Zip()
    name0 = "FS/data/misc/bluetooth/logs/btsnoop_hci.log"
    n = name0.encode()
    t, d = dos(DOS_TIME)
    z.body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x800, 8, t, d, crc, len(data), size, len(n), 0) + n + data
    for i in range(entries):
        z.entry(f"{name0}.{i}", (0, (crc + i) & 0xFFFFFFFF if distinct_crc else crc, len(data), size, 8))
    return z.bytes()


@case("zip-overlap-100", "zip-overlap-100.zip", "1 MB zip of 100 entries sharing one 1 GB deflate stream, distinct CRCs (overlap bomb)")
def _(out):
    out.write_bytes(overlap_zip(100, True, 1 << 30))


@case("zip-overlap-2000", "zip-overlap-2000.zip", "2,000 valid entries, each a different prefix (own size and CRC) of one stored 2 MB capture")
def _(out):
    data = large_capture(48_000)
    name = b"FS/data/misc/bluetooth/logs/btsnoop_hci.log"
    t, d = dos(DOS_TIME)
    z = Zip()
    z.body += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0x800, 0, t, d, zlib.crc32(data), len(data), len(data), len(name), 0) + name + data
    lengths = [len(data) - k * 97 for k in range(2000)]
    crcs, crc, at = {}, 0, 0
    for length in sorted(lengths):
        crc = zlib.crc32(data[at:length], crc)
        at = length
        crcs[length] = crc
    for k, length in enumerate(lengths):
        z.entry(f"FS/data/misc/bluetooth/logs/btsnoop_hci.log.{k}", (0, crcs[length], length, length, 0))
    out.write_bytes(z.bytes())


@case("zstd-window", "zstd-window-2e40.zst", "zstd frame declaring a 2^40-byte window")
def _(out):
    frame = bytearray(zstd(H4, level=3))
    # Frame header descriptor: no single-segment flag, no content size, no dictionary id; then
    # the window descriptor: exponent 30 (10 + 30 = 2^40), mantissa 0.
    assert frame[:4] == b"\x28\xb5\x2f\xfd"
    fhd = frame[4]
    fcs_flag, single, dict_flag = fhd >> 6, (fhd >> 5) & 1, fhd & 3
    fcs = [0, 2, 4, 8][fcs_flag] if not (fcs_flag == 0 and single) else 1
    did = [0, 1, 2, 4][dict_flag]
    rest = frame[5 + (0 if single else 1) + did + fcs:]
    out.write_bytes(bytes(frame[:4]) + bytes([fhd & 0x04, 30 << 3]) + bytes(rest))


@case("xz-dict", "xz-dict-2g.xz", "xz stream whose LZMA2 dictionary is patched to 2 GiB")
def _(out):
    data = bytearray(lzma.compress(large_capture(2000), preset=6))
    # Stream header 12 bytes; block header: size byte, flags, [sizes], filter flags
    # (id 0x21, props size 1, props), padding, CRC32.
    p = 12
    header_len = (data[p] + 1) * 4
    header = data[p:p + header_len]
    i = header.index(b"\x21\x01")
    header[i + 2] = 38  # 2 GiB
    header[-4:] = struct.pack("<I", zlib.crc32(bytes(header[:-4])))
    data[p:p + header_len] = header
    out.write_bytes(bytes(data))


# ---------------------------------------------------------------- data loss

@case("large", "large.btsnoop", "a 25,200-frame btsnoop capture (over 64 KiB), for `redact x x` and `convert x x`")
def _(out):
    out.write_bytes(large_capture(25_200))


@case("header-only", "header-only.btsnoop", "a btsnoop header and no record: convert fails (exit 2)")
def _(out):
    out.write_bytes(enc.btsnoop_header(1002))


def two_pklg_tar():
    root = "sysdiagnose_x/logs/Bluetooth/"
    a = tar_member(root + "bluetoothd-hci-1.pklg", pklg_capture(b"first", T0))
    b = tar_member(root + "bluetoothd-hci-2.pklg", pklg_capture(b"second", T0 + 60_000_000) * 20)
    return a, b


@case("tar-cut-second", "tar-cut-second.tar", "tar cut inside its second member")
def _(out):
    a, b = two_pklg_tar()
    out.write_bytes(a + b[:512 + 200])


@case("tar-badsum-second", "tar-badsum-second.tar", "tar whose second header's checksum is wrong")
def _(out):
    a, b = two_pklg_tar()
    b = bytearray(b)
    b[0] ^= 0x20
    out.write_bytes(a + bytes(b) + tar_end())


@case("folder-2000", "sysdiagnose-2000", "unpacked sysdiagnose folder of 2,000 PacketLogger logs (past ulimit -n 1024)")
def _(out):
    pklg_folder(out, 2000)


@case("tar-2000", "sysdiagnose-2000.tar", "tar of 2,000 PacketLogger logs (past ulimit -n 1024)")
def _(out):
    root = "sysdiagnose_x/logs/Bluetooth/"
    out.write_bytes(b"".join(tar_member(f"{root}bluetoothd-hci-{i:05d}.pklg", pklg_capture(b"m%d" % i, T0 + i * 100_000))
                             for i in range(2000)) + tar_end())


@case("stopped-early", "stopped-early.btsnoop.gz", "20 frames gzip'd, the deflate data damaged after frame 6: reading stops there")
def _(out):
    data = large_capture(20)
    # Two gzip members: frames 1-6 intact, then a member whose compressed bytes are damaged.
    cut = 16 + sum(24 + r["incl"] for r in enc.read_btsnoop(SAMPLE)[:6])
    second = bytearray(gz(data[cut:]))
    for k in range(20, 40):
        second[k] ^= 0x5A
    out.write_bytes(gz(data[:cut]) + bytes(second))


@case("zip-crc", "zip-crc.zip", "zip whose every member fails its CRC-32 (two rotated logs)")
def _(out):
    z = Zip()
    logs = "FS/data/misc/bluetooth/logs/"
    data = large_capture(3000)
    half = 16 + (len(data) - 16) // 2
    for name, body in [("btsnoop_hci.log.last", data), ("btsnoop_hci.log", data)]:
        local = z.local(logs + name, body, method=8, crc=zlib.crc32(body) ^ 0xFFFF)
        z.entry(logs + name, local)
    out.write_bytes(z.bytes())
    del half


# ---------------------------------------------------------------- disk

@case("spool-zip", "spool.zip.zst", "a zip holding a 4 GiB member, through zstd (a zip through a compression layer is spooled)")
def _(out):
    size = 4 << 30
    name = b"FS/data/misc/bluetooth/logs/btsnoop_hci.log"
    head = H4[:16 + 24 + 8]
    # Stored, ZIP64 sizes; the CRC of head + zeros.
    crc = zlib.crc32(head)
    zeros = b"\0" * (1 << 24)
    left = size - len(head)
    while left > 0:
        n = min(left, len(zeros))
        crc = zlib.crc32(zeros[:n], crc)
        left -= n
    t, d = dos(DOS_TIME)
    extra = struct.pack("<HHQQ", 1, 16, size, size)
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 0, t, d, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra)) + name + extra
    cd_extra = struct.pack("<HHQQQ", 1, 24, size, size, 0)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x32D, 45, 0, 0, t, d, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(name),
                          len(cd_extra), 0, 0, 0, 0, 0xFFFFFFFF) + name + cd_extra
    cd_offset = len(local) + size
    tail = central
    tail += struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 1, 1, len(central), cd_offset)
    tail += struct.pack("<IIQI", 0x07064B50, 0, cd_offset + len(central), 1)
    tail += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), 0xFFFFFFFF, 0)
    p = subprocess.Popen(["zstd", "-q", "-3", "-c"], stdin=subprocess.PIPE, stdout=open(out, "wb"))
    p.stdin.write(local + head)
    left = size - len(head)
    while left > 0:
        n = min(left, len(zeros))
        p.stdin.write(zeros[:n])
        left -= n
    p.stdin.write(tail)
    p.stdin.close()
    assert p.wait() == 0


@case("spool-tar", "spool.tar.zst", "a tar whose PacketLogger member is 4 GiB (tar members are spooled)")
def _(out):
    size = 4 << 30
    name = "sysdiagnose_x/logs/Bluetooth/bluetoothd-hci-latest.pklg"
    first = pklg_capture(b"big", T0)
    p = subprocess.Popen(["zstd", "-q", "-3", "-c"], stdin=subprocess.PIPE, stdout=open(out, "wb"))
    p.stdin.write(tar_header(name, octal_size(size)) + first)
    zeros = b"\0" * (1 << 24)
    left = size - len(first)
    while left > 0:
        n = min(left, len(zeros))
        p.stdin.write(zeros[:n])
        left -= n
    p.stdin.write(tar_end())
    p.stdin.close()
    assert p.wait() == 0


# ---------------------------------------------------------------- terminal

EVIL = "FS/data/misc/bluetooth/logs/btsnoop_hci.log\x1b[2J\x1b]0;pwned\x07\nhealth: ok\r"


@case("zip-names", "zip-names.zip", "zip whose member names carry escape sequences and line breaks (one good, one damaged)")
def _(out):
    z = Zip()
    z.add(EVIL, H4, method=8)
    local = z.local(EVIL + ".last", H4, method=8, crc=1)
    z.entry(EVIL + ".last", local)
    out.write_bytes(z.bytes())


@case("tar-names", "tar-names.tar", "tar whose member names carry escape sequences and line breaks")
def _(out):
    out.write_bytes(tar_member("logs/Bluetooth/\x1b[31mred\x1b[0m\n.pklg", PKLG)
                    + tar_member("logs/Bluetooth/\x1b[2Jcut\n.pklg", PKLG[:300]) + tar_end())


def main(argv):
    if argv[:1] == ["--list"]:
        for name, file, what, _ in CASES:
            print(f"{name}\t{file}\t{what}")
        return 0
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = Path(argv[0])
    outdir.mkdir(parents=True, exist_ok=True)
    wanted = set(argv[1:])
    unknown = wanted - {c[0] for c in CASES}
    if unknown:
        print("make-hostile.py: unknown case(s): " + ", ".join(sorted(unknown)), file=sys.stderr)
        return 2
    for name, file, what, build in CASES:
        if wanted and name not in wanted:
            continue
        target = outdir / file
        if target.exists():
            continue
        partial = outdir / (file + ".partial")
        if partial.is_dir():
            shutil.rmtree(partial)
        elif partial.exists():
            partial.unlink()
        if "." not in file:
            partial.mkdir()
        build(partial)
        partial.rename(target)
        print(f"make-hostile.py: {file}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
