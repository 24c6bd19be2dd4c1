#!/usr/bin/env python3
"""Makes the container fixtures (containers/): what users hand over instead of a bare capture,
built from the project's own captures with Python's zipfile/tarfile/gzip/lzma/bz2 and the zstd
command, independently of hciscope's readers. Deterministic: `python3 make_containers.py`.

Sources (repository captures/):
  btvirt-le-pairing.btsnoop       btsnoop 1002, recorded by hciscope in the kernel lab
  scenarios/gatt.polling-fires.btsnoop / .pcapng / and security.legacy-pairing-fires.be.pklg

What each fixture must read as is listed in ../README.md ("Containers"); ContainerTests checks every record.
"""
import base64
import bz2
import gzip
import io
import lzma
import shutil
import struct
import subprocess
import sys
import tarfile
import zipfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "Scripts"))
import capture_encoders as enc  # noqa: E402

OUT = HERE / "containers"
CAPTURES = ROOT / "captures"
PAIRING = CAPTURES / "btvirt-le-pairing.btsnoop"
POLLING = CAPTURES / "scenarios" / "gatt.polling-fires.btsnoop"
POLLING_PCAPNG = CAPTURES / "scenarios" / "gatt.polling-fires.pcapng"
LEGACY_PKLG = CAPTURES / "scenarios" / "security.legacy-pairing-fires.be.pklg"
DOS_TIME = (2026, 3, 14, 9, 26, 52)

# btsnooz record types by (H4 type, received)
SNOOZ_TYPE = {(4, True): 0x10, (2, True): 0x11, (3, True): 0x12, (5, True): 0x17,
              (1, False): 0x20, (2, False): 0x21, (3, False): 0x22, (5, False): 0x2D}


def snooz_cut(t, pkt):
    """What the Android stack keeps of a packet: ACL outside L2CAP signalling (CID 1 and 5) 14
    bytes, everything at most 150."""
    if t == 2 and len(pkt) >= 8:
        cid = struct.unpack_from("<H", pkt, 6)[0]
        if cid not in (1, 5):
            return pkt[:14]
    return pkt[:150]


def snooz_records(records, version):
    """btsnooz records (v1 or v2) of btsnoop 1002 records; returns (bytes, last timestamp)."""
    out = bytearray()
    previous = records[0]["ts"]
    for r in records:
        t, pkt, rx = enc.h4(r)
        kept = snooz_cut(t, pkt)
        delta = r["ts"] - previous
        previous = r["ts"]
        if version == 1:
            out += struct.pack("<HIB", len(kept) + 1, delta, SNOOZ_TYPE[(t, rx)])
        else:
            out += struct.pack("<HHIB", len(kept) + 1, len(pkt) + 1, delta, SNOOZ_TYPE[(t, rx)])
        out += kept
    return bytes(out), records[-1]["ts"]


def summary_block(records, version):
    body, last = snooz_records(records, version)
    raw = struct.pack("<BQ", version, last) + zlib.compress(body, 9)
    text = base64.b64encode(raw).decode()
    lines = "\n".join(text[i:i + 76] for i in range(0, len(text), 76))
    return (f"--- BEGIN:BTSNOOP_LOG_SUMMARY ({len(raw)} bytes in) ---\n{lines}\n"
            "--- END:BTSNOOP_LOG_SUMMARY ---\n")


def bugreport_text(block):
    return ("========================================================\n"
            "== dumpstate: 2026-03-14 09:26:52\n"
            "========================================================\n"
            "Build: UP1A.231005.007\n" + "DUMP OF SERVICE bluetooth_manager:\n" + "  filler line\n" * 400
            + block + "  more filler\n" * 100)


def zip_file(path, members):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            info = zipfile.ZipInfo(name, DOS_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def tar_gz(path, members):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 1_773_480_412
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    path.write_bytes(gzip.compress(raw.getvalue(), mtime=0))


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()
    pairing = PAIRING.read_bytes()
    records = enc.read_btsnoop(PAIRING)
    polling = enc.read_btsnoop(POLLING)

    # 1. Compressed captures.
    (OUT / "pairing.btsnoop.gz").write_bytes(gzip.compress(pairing, mtime=0))
    (OUT / "pairing.btsnoop.xz").write_bytes(lzma.compress(pairing))
    (OUT / "pairing.btsnoop.bz2").write_bytes(bz2.compress(pairing))
    (OUT / "pairing.btsnoop.zst").write_bytes(
        subprocess.run(["zstd", "-q", "-19", "-c"], input=pairing, capture_output=True, check=True).stdout)
    (OUT / "polling.pcapng.gz").write_bytes(gzip.compress(POLLING_PCAPNG.read_bytes(), mtime=0))
    (OUT / "legacy.pklg.xz").write_bytes(lzma.compress(LEGACY_PKLG.read_bytes()))
    # Two gzip members, as `cat a.gz b.gz` makes: one stream to gunzip.
    half = len(pairing) // 2
    (OUT / "pairing-two-members.btsnoop.gz").write_bytes(
        gzip.compress(pairing[:half], mtime=0) + gzip.compress(pairing[half:], mtime=0))
    # Cut short in the middle of the compressed data.
    gz = gzip.compress(pairing, mtime=0)
    (OUT / "pairing-cut.btsnoop.gz").write_bytes(gz[: len(gz) * 2 // 3])

    # 2. Android bug reports.
    first, second = polling[: len(polling) // 2], polling[len(polling) // 2:]
    filtered = [dict(r, data=r["data"][:1] + snooz_cut(r["data"][0], r["data"][1:])) for r in polling]
    logs = "FS/data/misc/bluetooth/logs/"
    text = bugreport_text(summary_block(polling, 2))
    zip_file(OUT / "bugreport-full.zip", [
        ("bugreport-oriole-UP1A.231005.007-2026-03-14-09-26-52.txt", text.encode()),
        ("main_entry.txt", b"bugreport-oriole-UP1A.231005.007-2026-03-14-09-26-52.txt"),
        ("version.txt", b"2.0"),
        (logs + "btsnoop_hci.log.last", enc.btsnoop_h4(first)),
        (logs + "btsnoop_hci.log", enc.btsnoop_h4(second)),
        (logs + "btsnoop_hci.log.filtered", enc.btsnoop_h4(filtered)),
        ("FS/data/misc/bluetooth/bt_config.conf", b"[Info]\nFileSource = Empty\n"),
    ])
    zip_file(OUT / "bugreport-summary.zip", [
        ("bugreport-oriole-UP1A.231005.007-2026-03-14-09-26-52.txt", text.encode()),
        ("version.txt", b"2.0"),
    ])
    zip_file(OUT / "bugreport-nothing.zip", [
        ("bugreport-oriole-UP1A.231005.007-2026-03-14-09-26-52.txt", bugreport_text("").encode()),
        ("version.txt", b"2.0"),
    ])

    # 3. btsnooz: summary text (both versions), and raw v2 records after a btsnoop header.
    (OUT / "btsnooz-v1.txt").write_text(bugreport_text(summary_block(polling, 1)))
    (OUT / "btsnooz-v2.txt").write_text(bugreport_text(summary_block(polling, 2)))
    body, _ = snooz_records(polling, 2)
    (OUT / "btsnooz_hci.log").write_bytes(enc.btsnoop_header(1002) + body)

    # 4. iOS sysdiagnose: two PacketLogger logs (rotated) among other files.
    pk_first = enc.pklg_file(first, big=True, note=b"hciscope fixture: first log")
    pk_second = enc.pklg_file(second, big=True, note=b"hciscope fixture: second log")
    root = "sysdiagnose_2026.03.14_09-26-52+0000_iPhone-OS_iPhone_23D5103/"
    tar_gz(OUT / "sysdiagnose.tar.gz", [
        (root + "logs/Bluetooth/bluetoothd-hci-2026_03_14-09_20_00.pklg", pk_first),
        (root + "logs/Bluetooth/bluetoothd-hci-latest.pklg", pk_second),
        (root + "logs/Bluetooth/bluetoothd.log", b"bluetoothd started\n" * 50),
        (root + "summaries/ioreg.txt", b"+-o Root\n" * 20),
    ])
    tar_gz(OUT / "sysdiagnose-nothing.tar.gz", [
        (root + "summaries/ioreg.txt", b"+-o Root\n" * 20),
    ])
    print("wrote", ", ".join(sorted(p.name for p in OUT.iterdir())))


if __name__ == "__main__":
    main()
