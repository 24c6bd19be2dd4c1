#!/usr/bin/env python3
"""Seed corpus for one fuzz target (Scripts/fuzz.sh), extracted from the real captures.

    fuzz-seeds.py TARGET OUTDIR

Readers get whole small files (the first 64 KiB of larger ones); decoders get individual record
payloads (HCI commands, events, ATT and SMP PDUs from single-fragment ACL packets, advertising
data from LE advertising reports), the L2CAP target sequences of ACL packets, and the Dissector
target record streams, in the input layouts documented in Fuzz/*.swift. Container targets get
the container fixtures (bug report zips, sysdiagnose tars, btsnooz texts, compressed captures),
the same containers made around the heads of the real captures, and the small hostile inputs of
Scripts/make-hostile.py. Sources: the fixtures (Sources/ScopeTestSupport/Fixtures), the project's
captures/ and the corpus named by HCISCOPE_CORPUS when set.
"""
import base64, bz2, gzip, hashlib, io, lzma, os, struct, subprocess, sys, tarfile, tempfile, zipfile, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 65536
MAX_SEEDS = 400

def files():
    dirs = [os.path.join(ROOT, "Sources/ScopeTestSupport/Fixtures"), os.path.join(ROOT, "captures")]
    if os.environ.get("HCISCOPE_CORPUS"):
        dirs.append(os.environ["HCISCOPE_CORPUS"])
    for d in dirs:
        for base, _, names in os.walk(d):
            for n in sorted(names):
                if not (n.endswith(".json") or n.endswith(".md") or n.endswith(".tsv") or n.endswith(".py")):
                    yield os.path.join(base, n)

def head(path, n=LIMIT):
    with open(path, "rb") as f:
        return f.read(n)

def kind_of(data):
    if data.startswith(b"btsnoop\0"): return "btsnoop"
    if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4", b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d", b"\x0a\x0d\x0d\x0a"):
        return "pcap"
    if len(data) >= 13:
        be = struct.unpack(">I", data[:4])[0]
        le = struct.unpack("<I", data[:4])[0]
        if 9 <= be <= 70000 or 9 <= le <= 70000: return "pklg"
    return None

# Monitor opcode -> (kind name, direction); kind names index FuzzSupport.fuzzKinds.
KINDS = ["command", "event", "acl", "acl", "acl", "sco", "iso", "newIndex", "deleteIndex", "openIndex", "closeIndex",
         "indexInfo", "vendorDiagnostic", "systemNote", "userLogging", "controlOpen", "controlClose", "controlCommand", "controlEvent"]
MONITOR = {0: ("newIndex", 0), 1: ("deleteIndex", 0), 2: ("command", 0), 3: ("event", 1), 4: ("acl", 0), 5: ("acl", 1),
           6: ("sco", 0), 7: ("sco", 1), 8: ("openIndex", 0), 9: ("closeIndex", 0), 10: ("indexInfo", 0),
           11: ("vendorDiagnostic", 0), 12: ("systemNote", 0), 13: ("userLogging", 0), 14: ("controlOpen", 0),
           15: ("controlClose", 0), 16: ("controlCommand", 0), 17: ("controlEvent", 0), 18: ("iso", 0), 19: ("iso", 1)}
H4 = {1: "command", 2: "acl", 3: "sco", 4: "event", 5: "iso"}

def records(path, cap=3000):
    """(kind, direction 0/1, adapter, payload) of a btsnoop file's first records."""
    out = []
    with open(path, "rb") as f:
        data = f.read(4 << 20)
    if not data.startswith(b"btsnoop\0") or len(data) < 16: return out
    link = struct.unpack(">I", data[12:16])[0]
    i = 16
    while i + 24 <= len(data) and len(out) < cap:
        orig, incl, flags, drops, ts = struct.unpack(">IIIIQ", data[i:i + 24])
        body = data[i + 24:i + 24 + incl]
        i += 24 + incl
        if link == 2001:
            k = MONITOR.get(flags & 0xFFFF)
            if k: out.append((k[0], k[1], flags >> 16 & 3, body))
        elif link == 1002 and body:
            k = H4.get(body[0])
            if k: out.append((k, flags & 1, 0, body[1:]))
        elif link == 1001:
            out.append(("event" if flags & 2 and flags & 1 else "command" if flags & 2 else "acl", flags & 1, 0, body))
    return out

def seeds(target):
    for path in files():
        try:
            data = head(path)
        except OSError:
            continue
        fmt = kind_of(data)
        if target == "reader_btsnoop" and fmt == "btsnoop":
            link = struct.unpack(">I", data[12:16])[0] if len(data) >= 16 else 1002
            yield bytes([{1001: 0, 1002: 1, 2001: 2}.get(link, 1)]) + data[16:]
        elif target == "reader_pcap" and fmt == "pcap":
            yield data
        elif target == "reader_pklg" and fmt == "pklg" and (path.endswith(".pklg") or "/pklg/" in path):
            yield data
        elif target == "reader_stream" and fmt == "btsnoop":
            # Byte 0: 0 monitor framing / 1 H4; byte 1: chunk size. A Zephyr-style monitor stream
            # (TS32 first) of the records with an opcode, and the HCI packets as H4.
            recs = [r for r in records(path, cap=400) if len(r[3]) <= 0xFF00]
            opcode = {v: k for k, v in MONITOR.items()}
            mon, h4 = bytearray([0, 37]), bytearray([1, 37])
            for n, (k, d, _, p) in enumerate(recs):
                op = opcode.get((k, d), opcode.get((k, 0)))
                if op is not None:
                    ext = struct.pack("<BI", 8, n * 10)
                    mon += struct.pack("<HHBB", 4 + len(ext) + len(p), op, 0, len(ext)) + ext + p
                t = {v: k2 for k2, v in H4.items()}.get(k)
                if t is not None:
                    h4 += bytes([t]) + p
            yield bytes(mon)
            yield bytes(h4)
        elif fmt == "btsnoop" and not target.startswith("reader_"):
            recs = records(path)
            if target == "hci_command":
                yield from (p for k, _, _, p in recs if k == "command")
            elif target == "hci_event":
                yield from (p for k, _, _, p in recs if k == "event")
            elif target in ("att", "smp", "ad"):
                for k, _, _, p in recs:
                    if target == "ad" and k == "event" and len(p) > 4 and p[0] == 0x3E and p[2] == 0x02:
                        j = 4
                        for _ in range(p[3]):
                            if j + 9 > len(p): break
                            n = p[j + 8]
                            yield p[j + 9:j + 9 + n]
                            j += 10 + n
                    if k == "acl" and len(p) >= 8 and (p[1] >> 4 & 3) in (0, 2):
                        length, cid = struct.unpack("<HH", p[4:8])
                        if length == len(p) - 8 and cid == (4 if target == "att" else 6):
                            yield p[8:]
            elif target == "l2cap":
                acl = [(d, p) for k, d, _, p in recs if k == "acl" and len(p) <= 255]
                for start in range(0, min(len(acl), 1200), 150):
                    yield b"".join(bytes([d, len(p)]) + p for d, p in acl[start:start + 150])
            elif target == "dissector":
                # The input layout holds 16-bit lengths: a record over 64 KiB (a fixture of a
                # record larger than any HCI packet) is left out.
                fit = [r for r in recs if len(r[3]) <= 0xFFFF]
                for start in range(0, min(len(fit), 1500), 250):
                    yield b"".join(bytes([KINDS.index(k), d | a << 2]) + struct.pack("<H", len(p)) + p
                                   for k, d, a, p in fit[start:start + 250])

CONTAINERS = os.path.join(ROOT, "Sources/ScopeTestSupport/Fixtures/containers")
HOSTILE = ["zip64-cd-size-max", "zip64-cd-offset-max", "zip64-locator-max", "zip64-local-offset-max", "zip64-sizes-max",
           "tar-dir-size-max", "tar-symlink-size-max", "tar-cut-second", "tar-badsum-second", "zip-names", "tar-names",
           "zstd-window", "xz-dict", "stopped-early", "zip-crc"]


def hostile():
    """The small hostile inputs of make-hostile.py (name -> bytes)."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        if subprocess.run([sys.executable, os.path.join(ROOT, "Scripts/make-hostile.py"), d] + HOSTILE,
                          stderr=subprocess.DEVNULL).returncode != 0:
            return out
        for n in os.listdir(d):
            with open(os.path.join(d, n), "rb") as f:
                out[n] = f.read()
    return out


def capture_heads(limit=8192, count=40):
    """The first `limit` bytes of the captures (real ones first), at most `count`."""
    heads = []
    for path in files():
        try:
            data = head(path, limit)
        except OSError:
            continue
        if kind_of(data) and not path.startswith(CONTAINERS):
            heads.append((os.path.basename(path), data))
    heads.sort(key=lambda h: ("real" not in h[0], h[0]))
    return heads[:count]


def zip_of(members, method=zipfile.ZIP_DEFLATED):
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", compression=method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, (2026, 3, 14, 9, 26, 52)), data)
    return raw.getvalue()


def tar_of(members):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 1_773_480_412
            t.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def snooz_of(data, version):
    """A btsnooz summary text of a btsnoop 1002 capture's records."""
    types = {(4, 1): 0x10, (2, 1): 0x11, (3, 1): 0x12, (1, 0): 0x20, (2, 0): 0x21, (3, 0): 0x22}
    if not data.startswith(b"btsnoop\0") or struct.unpack(">I", data[12:16])[0] != 1002:
        return None
    i, body, prev, last = 16, bytearray(), None, 0
    while i + 24 <= len(data):
        orig, incl, flags, drops, ts = struct.unpack(">IIIIq", data[i:i + 24])
        pkt = data[i + 24:i + 24 + incl]
        i += 24 + incl
        if not pkt or (pkt[0], flags & 1) not in types:
            continue
        kept = pkt[1:151]
        delta = 0 if prev is None else max(0, min(ts - prev, 0xFFFFFFFF))
        prev = last = ts
        if version == 1:
            body += struct.pack("<HIB", len(kept) + 1, delta, types[(pkt[0], flags & 1)]) + kept
        else:
            body += struct.pack("<HHIB", len(kept) + 1, len(pkt), delta, types[(pkt[0], flags & 1)]) + kept
    if not body:
        return None
    raw = struct.pack("<BQ", version, max(0, last - 0x00DCDDB30F2F8000)) + zlib.compress(bytes(body), 9)
    text = base64.b64encode(raw).decode()
    return ("--- BEGIN:BTSNOOP_LOG_SUMMARY (%d bytes in) ---\n" % len(raw)
            + "\n".join(text[k:k + 76] for k in range(0, len(text), 76)) + "\n--- END:BTSNOOP_LOG_SUMMARY ---\n").encode()


def container_seeds(target):
    fixtures = {}
    for n in sorted(os.listdir(CONTAINERS)):
        with open(os.path.join(CONTAINERS, n), "rb") as f:
            fixtures[n] = f.read()
    heads = capture_heads()
    bad = hostile()
    logs = "FS/data/misc/bluetooth/logs/"
    if target == "container_zip":
        yield from (d for n, d in fixtures.items() if n.endswith(".zip"))
        yield from (d for n, d in bad.items() if n.endswith(".zip"))
        for k, (name, data) in enumerate(heads):
            yield zip_of([(logs + "btsnoop_hci.log", data)], zipfile.ZIP_STORED if k % 2 else zipfile.ZIP_DEFLATED)
            if k + 1 < len(heads):
                yield zip_of([(logs + "btsnoop_hci.log.last", data), (logs + "btsnoop_hci.log", heads[k + 1][1]),
                              ("bugreport.txt", b"== dumpstate\n")])
    elif target == "container_tar":
        yield from (gzip.decompress(d) for n, d in fixtures.items() if n.endswith(".tar.gz"))
        yield from (d for n, d in bad.items() if n.endswith(".tar"))
        for k, (name, data) in enumerate(heads):
            yield tar_of([("sysdiagnose/logs/Bluetooth/%s" % name, data), ("sysdiagnose/summaries/x.txt", b"x\n")])
    elif target == "container_btsnooz":
        yield from (d for n, d in fixtures.items() if "btsnooz" in n)
        for name, data in heads:
            for version in (1, 2):
                text = snooz_of(data, version)
                if text:
                    yield b"== dumpstate\nDUMP OF SERVICE bluetooth_manager:\n" + text
    elif target.startswith("decompress_"):
        codec = target[len("decompress_"):]
        suffix = {"gzip": ".gz", "xz": ".xz", "zstd": ".zst", "bzip2": ".bz2"}[codec]
        yield from (d for n, d in fixtures.items() if n.endswith(suffix))
        yield from (d for n, d in bad.items() if n.endswith(suffix))
        for name, data in heads[:20]:
            if codec == "gzip":
                yield gzip.compress(data, mtime=0)
            elif codec == "xz":
                yield lzma.compress(data)
            elif codec == "bzip2":
                yield bz2.compress(data)
            else:
                r = subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True)
                if r.returncode == 0:
                    yield r.stdout
    elif target == "merge":
        small = [d[:4096] for _, d in heads] + [d for n, d in fixtures.items() if n.endswith(".pklg")]
        with open(os.path.join(ROOT, "Sources/ScopeTestSupport/Fixtures/pklg/be.pklg"), "rb") as f:
            small.append(f.read())
        for k in range(len(small)):
            group = [small[k], small[(k + 1) % len(small)], small[(k + 3) % len(small)]]
            yield b"".join(struct.pack("<H", len(m)) + m for m in group)


def main():
    target, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    found = {}
    generated = container_seeds(target) if target.startswith(("container_", "decompress_")) or target == "merge" else seeds(target)
    for s in generated:
        if s:
            found.setdefault(hashlib.sha1(s).hexdigest(), s[:LIMIT])
    for name in sorted(found)[:MAX_SEEDS]:
        with open(os.path.join(out, name), "wb") as f:
            f.write(found[name])
    # Regression inputs found by earlier runs are seeds too.
    reg = os.path.join(ROOT, "Sources/ScopeTestSupport/Fixtures/fuzz", target)
    if os.path.isdir(reg):
        for n in os.listdir(reg):
            with open(os.path.join(reg, n), "rb") as src, open(os.path.join(out, "regression-" + n), "wb") as dst:
                dst.write(src.read())

if __name__ == "__main__":
    main()
