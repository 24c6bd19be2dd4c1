#!/usr/bin/env python3
"""The truth of a generated scenario capture, worked out independently of hciscope.

    python3 Scripts/scenario_truth.py CAPTURE.btsnoop            # print what it finds
    python3 Scripts/scenario_truth.py --check captures/scenarios # recompute every truth file, compare

A small reader of btsnoop 1002 (H4) files and an HCI/L2CAP/ATT/SMP decoder of just what the
rules read, then the rule definitions of docs/RULES.md applied to the facts, written here a
second time in Python on purpose: hciscope's analysis is checked against this, not against
itself. Scripts/gen-scenarios.py uses it to write each capture's NAME.truth.json, and checks that
the verdicts it derives are the ones the scenario was designed to produce.

Python 3 standard library only (it runs without Bumble).
"""
from __future__ import annotations

import json
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

BTSNOOP_EPOCH = 0x00DCDDB30F2F8000

RULE_IDS = [
    "scan.left-running", "scan.duplicates-allowed", "gatt.discover-all-services",
    "gatt.discover-all-characteristics", "gatt.polling", "conn.idle-before-disconnect",
    "conn.subscriptions-left-on", "conn.reconnect-by-scan", "conn.attempt-unbounded",
    "adv.payload-budget", "adv.without-need", "security.insufficient-auth", "security.legacy-pairing",
    "security.unauthenticated-pairing", "security.pairing-failed", "att.small-writes",
    "att.acknowledged-bulk",
]

# Default thresholds, as in docs/RULES.md (the truth files' expected_rules_config).
THRESHOLDS = {
    "scan.left-running": {"after_connection_request_s": 2.0, "without_connection_request_s": 30.0},
    "scan.duplicates-allowed": {"duplicate_ratio": 0.5},
    "gatt.discover-all-services": {"used_fraction": 0.5, "reads_that_count_as_use": 1,
                                   "just_in_case_sweep_reads_count": False},
    "gatt.discover-all-characteristics": {"reads_that_count_as_use": 1, "just_in_case_sweep_reads_count": False},
    "gatt.polling": {"min_reads": 5, "max_median_gap_s": 2.0},
    "conn.idle-before-disconnect": {"idle_s": 10.0, "supervision_timeout_reason": "0x08"},
    "conn.attempt-unbounded": {"pending_s": 10.0},
    "adv.payload-budget": {"legacy_max_bytes": 31, "ios_adv_bytes_excluding_flags": 28, "ios_scan_rsp_bytes": 10},
    "adv.without-need": {"connectable_enabled_without_connection_s": 60.0},
    "att.small-writes": {"min_writes": 20, "max_write_bytes": 20, "max_gap_s": 1.0},
    "att.acknowledged-bulk": {"min_run_write_requests": 20, "max_gap_s": 1.0},
}


# ------------------------------------------------------------------------------------------------
# Records


@dataclass
class Frame:
    n: int          # 1-based frame number
    ts: int         # µs since the Unix epoch
    sent: bool      # host → controller
    kind: str       # "cmd", "evt", "acl", "sco", "iso"
    data: bytes     # packet without the H4 type byte


def read_btsnoop(path: Path) -> list[Frame]:
    raw = path.read_bytes()
    if raw[:8] != b"btsnoop\0":
        raise ValueError(f"{path}: not a btsnoop file")
    version, datalink = struct.unpack(">II", raw[8:16])
    if datalink != 1002:
        raise ValueError(f"{path}: datalink {datalink}; this reader takes H4 (1002) only")
    out, pos = [], 16
    kinds = {1: "cmd", 2: "acl", 3: "sco", 4: "evt", 5: "iso"}
    while pos + 24 <= len(raw):
        orig, incl, flags, _drops, ts = struct.unpack(">IIIIq", raw[pos:pos + 24])
        body = raw[pos + 24:pos + 24 + incl]
        pos += 24 + incl
        out.append(Frame(len(out) + 1, ts - BTSNOOP_EPOCH, (flags & 1) == 0, kinds.get(body[0], "?"), body[1:]))
    return out


def addr(b: bytes) -> str:
    return ":".join(f"{x:02X}" for x in reversed(b))


# ------------------------------------------------------------------------------------------------
# Facts


@dataclass
class Command:
    frame: Frame
    opcode: int
    params: bytes
    status: int | None = None       # from its Command Complete / Command Status
    answer: Frame | None = None


@dataclass
class ScanSession:
    start: Command
    api: str
    filter_duplicates: bool
    active: bool
    stop: Command | None = None
    reports: list = field(default_factory=list)   # (frame, address, event type, data)

    def end_ts(self, last_ts):
        return self.stop.frame.ts if self.stop else last_ts


@dataclass
class Attempt:
    request: Command
    peer: str | None
    filter_policy: int
    cancel: Command | None = None
    complete: Frame | None = None
    status: int | None = None


@dataclass
class ATT:
    frame: Frame
    sent: bool
    opcode: int
    pdu: bytes


@dataclass
class Connection:
    handle: int
    complete: Frame
    role: str
    peer: str
    request: Attempt | None = None
    disconnect_command: Command | None = None
    disconnect: Frame | None = None
    reason: int | None = None
    last_acl: Frame | None = None
    att: list = field(default_factory=list)
    smp: list = field(default_factory=list)        # (frame, sent, code, pdu)
    encryption: list = field(default_factory=list)  # (frame, status, enabled)
    mtu: int = 23
    mtu_exchanges: list = field(default_factory=list)


@dataclass
class AdvData:
    command: Command
    kind: str            # "advertising" / "scan response"
    legacy: bool
    data: bytes


@dataclass
class AdvSpan:
    enable: Command
    connectable: bool
    stop: Command | None = None


class Facts:
    def __init__(self, frames: list[Frame]):
        self.frames = frames
        self.last_ts = frames[-1].ts if frames else 0
        self.commands: list[Command] = []
        self.scans: list[ScanSession] = []
        self.attempts: list[Attempt] = []
        self.connections: list[Connection] = []
        self.adv_data: list[AdvData] = []
        self.adv_spans: list[AdvSpan] = []
        self._decode()

    # The connection a handle names at this point of the capture.
    def conn(self, handle):
        for c in reversed(self.connections):
            if c.handle == handle:
                return c
        return None

    def _decode(self):
        pending: list[Command] = []
        reassembly: dict = {}
        legacy_adv_type = 0          # LE Set Advertising Parameters: ADV_IND unless set
        ext_props: dict = {}          # advertising handle → event properties
        open_scan: ScanSession | None = None
        for f in self.frames:
            d = f.data
            if f.kind == "cmd" and len(d) >= 3:
                opcode, plen = struct.unpack("<HB", d[:3])
                cmd = Command(f, opcode, d[3:3 + plen])
                self.commands.append(cmd)
                pending.append(cmd)
                p = cmd.params
                if opcode in (0x200C, 0x2042):                       # LE Set (Extended) Scan Enable
                    cmd.scan = (p[0] == 1, p[1] == 1)
                elif opcode == 0x200D:                              # LE Create Connection
                    self.attempts.append(Attempt(cmd, addr(p[6:12]), p[4]))
                elif opcode == 0x2043:                              # LE Extended Create Connection
                    self.attempts.append(Attempt(cmd, addr(p[3:9]), p[0]))
                elif opcode == 0x200E:                              # LE Create Connection Cancel
                    for a in reversed(self.attempts):
                        if a.complete is None and a.cancel is None:
                            a.cancel = cmd
                            break
                elif opcode == 0x0406:                              # Disconnect
                    c = self.conn(struct.unpack("<H", p[:2])[0] & 0x0FFF)
                    if c and c.disconnect is None and c.disconnect_command is None:
                        c.disconnect_command = cmd
                elif opcode == 0x2006:                              # LE Set Advertising Parameters
                    legacy_adv_type = p[4]
                elif opcode == 0x2036:                              # LE Set Extended Advertising Parameters
                    ext_props[p[0]] = struct.unpack("<H", p[1:3])[0]
                elif opcode in (0x2008, 0x2009):                    # LE Set Advertising / Scan Response Data
                    self.adv_data.append(AdvData(cmd, "advertising" if opcode == 0x2008 else "scan response",
                                                 True, p[1:1 + p[0]]))
                elif opcode in (0x2037, 0x2038):                    # LE Set Extended Advertising / Scan Response Data
                    legacy = bool(ext_props.get(p[0], 0) & 0x10)
                    self.adv_data.append(AdvData(cmd, "advertising" if opcode == 0x2037 else "scan response",
                                                 legacy, p[4:4 + p[3]]))
                elif opcode == 0x200A:                              # LE Set Advertising Enable
                    cmd.adv = [(None, p[0] == 1, legacy_adv_type in (0, 1, 4))]
                elif opcode == 0x2039:                              # LE Set Extended Advertising Enable
                    sets = [(p[2 + 4 * i], p[0] == 1, bool(ext_props.get(p[2 + 4 * i], 0) & 0x01)) for i in range(p[1])]
                    cmd.adv = sets
            elif f.kind == "evt" and len(d) >= 2:
                code, plen = d[0], d[1]
                p = d[2:2 + plen]
                if code in (0x0E, 0x0F):                            # Command Complete / Status
                    opcode, status = (struct.unpack("<H", p[1:3])[0], p[3] if len(p) > 3 else None) if code == 0x0E \
                        else (struct.unpack("<H", p[2:4])[0], p[0])
                    for cmd in pending:
                        if cmd.opcode == opcode:
                            pending.remove(cmd)
                            cmd.status, cmd.answer = status, f
                            self._answered(cmd, f)
                            open_scan = self._scan_state(cmd, open_scan)
                            break
                elif code == 0x05:                                  # Disconnection Complete
                    status, handle, reason = p[0], struct.unpack("<H", p[1:3])[0], p[3]
                    c = self.conn(handle)
                    if status == 0 and c and c.disconnect is None:
                        c.disconnect, c.reason = f, reason
                elif code in (0x08, 0x30):                          # Encryption Change / Key Refresh Complete
                    c = self.conn(struct.unpack("<H", p[1:3])[0])
                    if c:
                        c.encryption.append((f, p[0], (p[3] != 0) if code == 0x08 else True))
                elif code == 0x3E:
                    self._le_meta(f, p, open_scan)
            elif f.kind == "acl" and len(d) >= 4:
                hf, length = struct.unpack("<HH", d[:4])
                handle, pb = hf & 0x0FFF, (hf >> 12) & 0x3
                c = self.conn(handle)
                if c is None:
                    continue
                c.last_acl = f
                key = (handle, f.sent)
                body = d[4:4 + length]
                if pb in (0, 2):
                    reassembly[key] = bytearray(body)
                elif key in reassembly:
                    reassembly[key] += body
                buf = reassembly.get(key)
                if buf is None or len(buf) < 4:
                    continue
                l2len, cid = struct.unpack("<HH", buf[:4])
                if len(buf) - 4 < l2len:
                    continue
                pdu = bytes(buf[4:4 + l2len])
                del reassembly[key]
                if cid == 4 and pdu:
                    c.att.append(ATT(f, f.sent, pdu[0], pdu))
                    if pdu[0] == 0x03 and any(a.opcode == 0x02 for a in c.att):
                        request = next(a for a in reversed(c.att) if a.opcode == 0x02)
                        c.mtu = max(23, min(struct.unpack("<H", request.pdu[1:3])[0], struct.unpack("<H", pdu[1:3])[0]))
                        c.mtu_exchanges += [request.frame, f]
                elif cid == 6 and pdu:
                    c.smp.append((f, f.sent, pdu[0], pdu))

    def _answered(self, cmd, f):
        if cmd.opcode in (0x200D, 0x2043) and cmd.status not in (0, None):
            for a in self.attempts:
                if a.request is cmd:
                    a.complete, a.status = f, cmd.status
        if hasattr(cmd, "adv") and cmd.status == 0:
            for handle, enable, connectable in cmd.adv:
                if enable:
                    if not any(s.stop is None and getattr(s, "handle", None) == handle for s in self.adv_spans):
                        span = AdvSpan(cmd, connectable)
                        span.handle = handle
                        self.adv_spans.append(span)
                else:
                    for s in self.adv_spans:
                        if s.stop is None and (handle is None or s.handle == handle):
                            s.stop = cmd

    def _scan_state(self, cmd, open_scan):
        if not hasattr(cmd, "scan") or cmd.status != 0:
            return open_scan
        enable, dup = cmd.scan
        if enable and open_scan is None:
            active = True
            api = "extended" if cmd.opcode == 0x2042 else "legacy"
            # Scan type from the last parameters command.
            for prev in reversed(self.commands):
                if prev.opcode == 0x200B:
                    active = prev.params[0] == 1
                    break
                if prev.opcode == 0x2041:
                    active = prev.params[3] == 1
                    break
            session = ScanSession(cmd, api, dup, active)
            self.scans.append(session)
            return session
        if not enable and open_scan is not None:
            open_scan.stop = cmd
            return None
        return open_scan

    def _le_meta(self, f, p, open_scan):
        sub = p[0]
        if sub in (0x01, 0x0A):                                 # LE (Enhanced) Connection Complete
            status, handle, role = p[1], struct.unpack("<H", p[2:4])[0], p[4]
            peer = addr(p[6:12])
            attempt = next((a for a in reversed(self.attempts) if a.complete is None), None) if role == 0 else None
            if attempt:
                attempt.complete, attempt.status = f, status
            if status == 0:
                c = Connection(handle, f, "central" if role == 0 else "peripheral", peer, attempt)
                self.connections.append(c)
        elif sub == 0x02 and open_scan is not None:              # LE Advertising Report
            n = p[1]
            pos = 2
            types = p[pos:pos + n]; pos += n
            pos += n                                             # address types
            addrs = [addr(p[pos + 6 * i:pos + 6 * i + 6]) for i in range(n)]; pos += 6 * n
            lens = p[pos:pos + n]; pos += n
            for i in range(n):
                open_scan.reports.append((f, addrs[i], types[i], bytes(p[pos:pos + lens[i]])))
                pos += lens[i]
        elif sub == 0x0D and open_scan is not None:              # LE Extended Advertising Report
            n, pos = p[1], 2
            for _ in range(n):
                etype = struct.unpack("<H", p[pos:pos + 2])[0]
                address = addr(p[pos + 3:pos + 9])
                dlen = p[pos + 23]
                data = bytes(p[pos + 24:pos + 24 + dlen])
                if (etype >> 5) & 0x3 == 0:                      # complete (not a fragment)
                    open_scan.reports.append((f, address, etype, data))
                pos += 24 + dlen


# ------------------------------------------------------------------------------------------------
# GATT from ATT


def att_is_request(op):
    return op in (0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20, 0x52, 0xD2)


@dataclass
class Characteristic:
    decl: int
    props: int
    value: int
    uuid: str
    end: int = 0xFFFF


class GATT:
    """What the GATT client of one connection learned and did (client side: `sent`)."""

    def __init__(self, c: Connection, client_sent: bool):
        self.services = []            # (start, end, uuid, discovered frame)
        self.chars: list[Characteristic] = []
        self.cccds: dict = {}         # CCCD handle → characteristic value handle
        self.full_range_discovery = []
        self.by_uuid_discovery = []
        self.char_discovery = []      # (frame, start, end)
        requests = {}
        atts = c.att
        for a in atts:
            ours = a.sent == client_sent
            op, pdu = a.opcode, a.pdu
            if ours and att_is_request(op) and op not in (0x52, 0xD2):
                requests["last"] = a
            req = requests.get("last")
            if ours and op == 0x10 and len(pdu) >= 7:
                start, end = struct.unpack("<HH", pdu[1:5])
                if pdu[5:7] == b"\x00\x28" and start == 0x0001:
                    self.full_range_discovery.append(a.frame)
            if ours and op == 0x06 and len(pdu) >= 7 and pdu[5:7] == b"\x00\x28":
                if struct.unpack("<H", pdu[1:3])[0] == 0x0001:
                    self.by_uuid_discovery.append(a.frame)
            if ours and op in (0x08, 0x04):
                start, end = struct.unpack("<HH", pdu[1:5])
                if op == 0x04 or pdu[5:7] == b"\x03\x28":
                    self.char_discovery.append((a.frame, start, end, op))
            if not ours and op == 0x11 and req is not None and req.opcode == 0x10:
                size = pdu[1]
                for i in range(2, len(pdu) - size + 1, size):
                    s, e = struct.unpack("<HH", pdu[i:i + 4])
                    self.services.append((s, e, uuid_text(pdu[i + 4:i + size]), a.frame))
            if not ours and op == 0x07 and req is not None and req.opcode == 0x06:
                for i in range(1, len(pdu) - 3, 4):
                    s, e = struct.unpack("<HH", pdu[i:i + 4])
                    self.services.append((s, e, uuid_text(req.pdu[7:]), a.frame))
            if not ours and op == 0x09 and req is not None and req.opcode == 0x08:
                size = pdu[1]
                for i in range(2, len(pdu) - size + 1, size):
                    decl = struct.unpack("<H", pdu[i:i + 2])[0]
                    props, value = pdu[i + 2], struct.unpack("<H", pdu[i + 3:i + 5])[0]
                    self.chars.append(Characteristic(decl, props, value, uuid_text(pdu[i + 5:i + size])))
            if not ours and op == 0x05 and req is not None and req.opcode == 0x04:
                fmt = pdu[1]
                size = 4 if fmt == 1 else 18
                for i in range(2, len(pdu) - size + 1, size):
                    h = struct.unpack("<H", pdu[i:i + 2])[0]
                    if pdu[i + 2:i + 4] == b"\x02\x29" and fmt == 1:
                        owner = max((ch for ch in self.chars if ch.value < h), key=lambda ch: ch.value, default=None)
                        if owner:
                            self.cccds[h] = owner.value
        self.chars.sort(key=lambda ch: ch.decl)
        for i, ch in enumerate(self.chars):
            ch.end = self.chars[i + 1].decl - 1 if i + 1 < len(self.chars) else 0xFFFF

    def service_of(self, handle):
        for s in self.services:
            if s[0] <= handle <= s[1]:
                return s
        return None


def uuid_text(b: bytes) -> str:
    if len(b) == 2:
        return f"{struct.unpack('<H', b)[0]:04x}"
    return b[::-1].hex()


# ------------------------------------------------------------------------------------------------
# The rules, as docs/RULES.md defines them


def verdict(status, why, severity=None, evidence=()):
    out = {"status": status, "why": why, "evidence_frames": sorted(set(evidence))}
    if status == "violated":
        out["severity"] = severity
    return out


def client_side(c: Connection):
    """True when the local host is the GATT client (it sends an ATT request or command)."""
    return any(a.sent and (att_is_request(a.opcode)) for a in c.att)


def judge(facts: Facts, profile=None) -> dict:
    T = THRESHOLDS
    out = {}
    last = facts.last_ts

    # scan.left-running
    if not facts.scans:
        out["scan.left-running"] = verdict("not_evaluated", "no scan session")
    else:
        ev = []
        for s in facts.scans:
            start, end = s.start.frame.ts, s.end_ts(last)
            requests = [a for a in facts.attempts if start <= a.request.frame.ts <= end]
            limit = T["scan.left-running"]["without_connection_request_s"] * 1e6
            if end - start > limit and not any(a.request.frame.ts - start <= limit for a in requests):
                ev.append(s.start.frame.n)
                continue
            seen = {r[1] for r in s.reports}
            for a in requests:
                if a.peer in seen and end - a.request.frame.ts > T["scan.left-running"]["after_connection_request_s"] * 1e6:
                    ev += [s.start.frame.n, a.request.frame.n]
        out["scan.left-running"] = verdict("violated", "a session ran too long", "warning", ev) if ev \
            else verdict("passed", "every session bounded")

    # scan.duplicates-allowed
    if not facts.scans:
        out["scan.duplicates-allowed"] = verdict("not_evaluated", "no scan session")
    else:
        worst, ev = None, []
        for s in facts.scans:
            if s.filter_duplicates or not s.reports:
                continue
            seen, dups = set(), 0
            for r in s.reports:
                key = (r[1], r[2], r[3])
                dups += key in seen
                seen.add(key)
            ratio = dups / len(s.reports)
            sev = "warning" if ratio > T["scan.duplicates-allowed"]["duplicate_ratio"] else "info"
            worst = sev if worst != "warning" else worst
            ev.append(s.start.frame.n)
        out["scan.duplicates-allowed"] = verdict("violated", "duplicate filter off", worst, ev) if ev \
            else verdict("passed", "filter on")

    conns = facts.connections
    # The GATT client of each connection: the local host when it sends a request or command,
    # else the peer (findings then say `remote`).
    gatts = {id(c): GATT(c, client_side(c)) for c in conns}

    # gatt.discover-all-services
    subjects = [c for c in conns if gatts[id(c)].full_range_discovery or gatts[id(c)].by_uuid_discovery]
    if not subjects:
        out["gatt.discover-all-services"] = verdict("not_evaluated", "no primary service discovery")
    else:
        ev = []
        for c in subjects:
            g = gatts[id(c)]
            if not g.full_range_discovery:
                continue
            found = [s for s in g.services if s[2] not in ("1800", "1801")]
            used = [s for s in found if used_in(c, g, s)]
            if found and len(used) < T["gatt.discover-all-services"]["used_fraction"] * len(found):
                ev += [f.n for f in g.full_range_discovery]
        out["gatt.discover-all-services"] = verdict("violated", "full discovery, little used", "warning", ev) if ev \
            else verdict("passed", "discovery by UUID or used")

    # gatt.discover-all-characteristics
    ev, any_subject = [], False
    for c in conns:
        g = gatts[id(c)]
        for s in g.services:
            if s[2] in ("1800", "1801"):
                continue
            procs = [d for d in g.char_discovery if s[0] <= d[1] <= s[1]]
            if not procs:
                continue
            any_subject = True
            if not used_in(c, g, s):
                ev.append(procs[0][0].n)
    out["gatt.discover-all-characteristics"] = (
        verdict("violated", "unused service explored", "info", ev) if ev
        else verdict("passed", "explored services used") if any_subject
        else verdict("not_evaluated", "no characteristic discovery"))

    # gatt.polling
    reads = [(c, a) for c in conns for a in c.att if a.opcode == 0x0A]
    if not reads:
        out["gatt.polling"] = verdict("not_evaluated", "no Read Request")
    else:
        ev, worst = [], None
        for c in conns:
            g = gatts[id(c)]
            by_handle = {}
            for a in c.att:
                if a.opcode == 0x0A:
                    by_handle.setdefault((a.sent, struct.unpack("<H", a.pdu[1:3])[0]), []).append(a)
            for (_, h), rs in by_handle.items():
                if len(rs) < T["gatt.polling"]["min_reads"]:
                    continue
                gaps = [b.frame.ts - a.frame.ts for a, b in zip(rs, rs[1:])]
                if median(gaps) > T["gatt.polling"]["max_median_gap_s"] * 1e6:
                    continue
                if any(cccd_enabled(c, g, h)):
                    continue
                ch = next((x for x in g.chars if x.value == h), None)
                if ch is not None and not ch.props & 0x30:
                    continue
                sev = "warning" if ch is not None else "info"
                worst = "warning" if sev == "warning" or worst == "warning" else "info"
                ev.append(rs[0].frame.n)
        out["gatt.polling"] = verdict("violated", "polled", worst, ev) if ev else verdict("passed", "no polling")

    # conn.idle-before-disconnect
    if not conns:
        out["conn.idle-before-disconnect"] = verdict("not_evaluated", "no connection")
    else:
        ev = []
        for c in conns:
            end = c.disconnect.ts if c.disconnect else last
            since = c.last_acl.ts if c.last_acl else c.complete.ts
            if end - since > T["conn.idle-before-disconnect"]["idle_s"] * 1e6 or c.reason == 0x08:
                ev.append(c.disconnect.n if c.disconnect else facts.frames[-1].n)
        out["conn.idle-before-disconnect"] = verdict("violated", "idle", "warning", ev) if ev else verdict("passed", "busy")

    # conn.subscriptions-left-on
    subjects = [c for c in conns if c.disconnect_command and client_side(c)]
    if not subjects:
        out["conn.subscriptions-left-on"] = verdict("not_evaluated", "the host disconnected no client connection")
    else:
        ev = []
        for c in subjects:
            on = {}
            for a in c.att:
                if a.sent and a.opcode in (0x12, 0x52) and a.frame.n < c.disconnect_command.frame.n:
                    h = struct.unpack("<H", a.pdu[1:3])[0]
                    if h in gatts[id(c)].cccds and len(a.pdu) >= 5:
                        on[h] = (struct.unpack("<H", a.pdu[3:5])[0] & 3, a.frame.n)
            left = [frame for value, frame in on.values() if value]
            if left:
                ev += left + [c.disconnect_command.frame.n]
        out["conn.subscriptions-left-on"] = verdict("violated", "left on", "info", ev) if ev else verdict("passed", "off")

    # conn.reconnect-by-scan
    ev, any_subject = [], False
    for a in facts.attempts:
        earlier = [c for c in conns if c.peer == a.peer and c.disconnect and c.disconnect.n < a.request.frame.n]
        if not earlier:
            continue
        any_subject = True
        ended = earlier[-1].disconnect
        scans = [s for s in facts.scans if ended.n < s.start.frame.n < a.request.frame.n]
        if scans:
            ev += [scans[0].start.frame.n, a.request.frame.n]
    out["conn.reconnect-by-scan"] = (
        verdict("violated", "scanned to reconnect", "info", ev) if ev
        else verdict("passed", "direct reconnection") if any_subject
        else verdict("not_evaluated", "no reconnection"))

    # conn.attempt-unbounded
    if not facts.attempts:
        out["conn.attempt-unbounded"] = verdict("not_evaluated", "no connection request")
    else:
        ev = []
        for a in facts.attempts:
            bound = min([x for x in (a.complete.ts if a.complete else None,
                                     a.cancel.frame.ts if a.cancel else None) if x is not None] or [last])
            if bound - a.request.frame.ts > T["conn.attempt-unbounded"]["pending_s"] * 1e6:
                ev.append(a.request.frame.n)
        out["conn.attempt-unbounded"] = verdict("violated", "unbounded", "warning", ev) if ev else verdict("passed", "bounded")

    # adv.payload-budget
    if not facts.adv_data:
        out["adv.payload-budget"] = verdict("not_evaluated", "no advertising data set")
    else:
        ev, worst = [], None
        B = T["adv.payload-budget"]
        for d in facts.adv_data:
            if d.legacy and len(d.data) > B["legacy_max_bytes"]:
                ev.append(d.command.frame.n)
                worst = "error"
            elif profile == "ios" and d.legacy:
                if d.kind == "advertising" and len(strip_flags(d.data)) > B["ios_adv_bytes_excluding_flags"] or \
                        d.kind == "scan response" and len(d.data) > B["ios_scan_rsp_bytes"]:
                    ev.append(d.command.frame.n)
                    worst = worst or "info"
        out["adv.payload-budget"] = verdict("violated", "over budget", worst, ev) if ev else verdict("passed", "within budget")

    # adv.without-need
    spans = [s for s in facts.adv_spans if s.connectable]
    if not spans:
        out["adv.without-need"] = verdict("not_evaluated", "no connectable advertising")
    else:
        ev = []
        window = T["adv.without-need"]["connectable_enabled_without_connection_s"] * 1e6
        for s in spans:
            start = s.enable.frame.ts
            end = s.stop.frame.ts if s.stop else last
            arrived = [c for c in conns if c.role == "peripheral" and start <= c.complete.ts <= min(end, start + window)]
            if end - start > window and not arrived:
                ev.append(s.enable.frame.n)
        out["adv.without-need"] = verdict("violated", "advertised for nothing", "info", ev) if ev \
            else verdict("passed", "connection came or stopped")

    # security.insufficient-auth
    errors = [(c, a) for c in conns for a in c.att if a.opcode == 0x01 and len(a.pdu) >= 5 and a.pdu[4] in (0x05, 0x0F, 0x0C)]
    if not errors:
        out["security.insufficient-auth"] = verdict("not_evaluated", "no such ATT error")
    else:
        ev = [a.frame.n for c, a in errors
              if not any(f.n > a.frame.n and status == 0 and enabled for f, status, enabled in c.encryption)]
        out["security.insufficient-auth"] = verdict("violated", "never fixed", "warning", ev) if ev \
            else verdict("passed", "pairing followed")

    # Pairings: Pairing Request (0x01) + Pairing Response (0x02).
    pairings = []
    for c in conns:
        req = next((s for s in c.smp if s[2] == 0x01), None)
        rsp = next((s for s in c.smp if s[2] == 0x02), None)
        if req and rsp:
            pairings.append((c, req, rsp))
    if not pairings:
        out["security.legacy-pairing"] = verdict("not_evaluated", "no pairing")
        out["security.unauthenticated-pairing"] = verdict("not_evaluated", "no pairing")
    else:
        legacy = [x for x in pairings if not (x[1][3][3] & 0x08 and x[2][3][3] & 0x08)]
        out["security.legacy-pairing"] = verdict(
            "violated", "legacy", "warning", [f.n for _, r, s in legacy for f in (r[0], s[0])]) if legacy \
            else verdict("passed", "secure connections")
        ev = []
        for c, r, s in pairings:
            sc = bool(r[3][3] & 0x08 and s[3][3] & 0x08)
            mitm = bool(r[3][3] & 0x04 or s[3][3] & 0x04)
            oob = bool(r[3][2] and s[3][2]) if not sc else bool(r[3][2] or s[3][2])
            if not mitm and not oob and authenticated_possible(r[3][1], s[3][1], sc):
                ev += [r[0].n, s[0].n]
        out["security.unauthenticated-pairing"] = verdict("violated", "just works", "info", ev) if ev \
            else verdict("passed", "authenticated or impossible")

    # security.pairing-failed
    failed = [f.n for c in conns for f, sent, code, pdu in c.smp if code == 0x05]
    failed += [f.n for c in conns for f, status, enabled in c.encryption if status != 0]
    subject = any(c.smp or c.encryption for c in conns)
    out["security.pairing-failed"] = (
        verdict("violated", "failed", "error", failed) if failed
        else verdict("passed", "succeeded") if subject
        else verdict("not_evaluated", "no pairing or encryption"))

    # att.small-writes / att.acknowledged-bulk
    writes = [(c, a) for c in conns for a in c.att if a.opcode in (0x12, 0x52)]
    if not writes:
        out["att.small-writes"] = verdict("not_evaluated", "no writes")
    else:
        ev = []
        W = T["att.small-writes"]
        for c in conns:
            for run in write_runs(c, (0x12, 0x52), W["max_gap_s"]):
                small = all(len(a.pdu) - 3 <= W["max_write_bytes"] for a in run)
                if len(run) >= W["min_writes"] and small:
                    exchanged = [f for f in c.mtu_exchanges[1::2] if f.n < run[0].frame.n]
                    if not exchanged or c.mtu > 23:
                        ev.append(run[0].frame.n)
        out["att.small-writes"] = verdict("violated", "small writes", "warning", ev) if ev else verdict("passed", "fine")
    requests = [a for c in conns for a in c.att if a.opcode == 0x12]
    if not requests:
        out["att.acknowledged-bulk"] = verdict("not_evaluated", "no Write Request")
    else:
        ev = []
        A = T["att.acknowledged-bulk"]
        for c in conns:
            g = gatts[id(c)]
            for run in write_runs(c, (0x12,), A["max_gap_s"]):
                if len(run) < A["min_run_write_requests"]:
                    continue
                if sum(len(a.pdu) - 3 for a in run) <= c.mtu - 3:
                    continue
                h = struct.unpack("<H", run[0].pdu[1:3])[0]
                ch = next((x for x in g.chars if x.value == h), None)
                if ch is None or ch.props & 0x04:
                    ev.append(run[0].frame.n)
        out["att.acknowledged-bulk"] = verdict("violated", "acknowledged bulk", "info", ev) if ev \
            else verdict("passed", "fine")
    return out


def strip_flags(data: bytes) -> bytes:
    out, i = b"", 0
    while i < len(data) and data[i]:
        n = data[i]
        if data[i + 1:i + 2] != b"\x01":
            out += data[i:i + 1 + n]
        i += 1 + n
    return out


def write_runs(c: Connection, opcodes, max_gap_s):
    """Consecutive writes to one handle by one side, each within max_gap_s of the previous."""
    runs, current = [], []
    for a in c.att:
        if a.opcode not in opcodes:
            continue
        h = struct.unpack("<H", a.pdu[1:3])[0]
        if current and (struct.unpack("<H", current[-1].pdu[1:3])[0] != h or a.sent != current[-1].sent
                        or a.frame.ts - current[-1].frame.ts > max_gap_s * 1e6):
            runs.append(current)
            current = []
        current.append(a)
    if current:
        runs.append(current)
    return runs


def authenticated_possible(io_i, io_r, sc):
    """Core v5.4 Vol 3 Part H Table 2.8: can these IO capabilities do better than Just Works?
    0 DisplayOnly, 1 DisplayYesNo, 2 KeyboardOnly, 3 NoInputNoOutput, 4 KeyboardDisplay."""
    if 3 in (io_i, io_r):
        return False
    if io_i in (0, 1) and io_r in (0, 1):
        # Two displays: numeric comparison needs Secure Connections and a yes/no on both sides.
        return sc and io_i == 1 and io_r == 1
    return True


def used_in(c: Connection, g: GATT, service) -> bool:
    s, e = service[0], service[1]
    for a in c.att:
        op = a.opcode
        if op in (0x12, 0x52, 0x0A, 0x0C, 0x1B, 0x1D, 0x16) and len(a.pdu) >= 3:
            h = struct.unpack("<H", a.pdu[1:3])[0]
            if s <= h <= e:
                return True
    return False


def cccd_enabled(c: Connection, g: GATT, value_handle):
    for a in c.att:
        if a.opcode in (0x12, 0x52) and len(a.pdu) >= 5:
            h = struct.unpack("<H", a.pdu[1:3])[0]
            if g.cccds.get(h) == value_handle and struct.unpack("<H", a.pdu[3:5])[0] & 3:
                yield True


# ------------------------------------------------------------------------------------------------
# Metrics (what ScenarioTruthTests compares; "partial": keys not stated are not checked)


def ms(facts: Facts, ts):
    return None if ts is None else round((ts - facts.frames[0].ts) / 1000, 3)


def metrics(facts: Facts) -> dict:
    last = facts.last_ts
    out = {
        "partial": True,
        "time_origin": "milliseconds relative to frame 1 of this capture",
        "capture": {"frames": len(facts.frames), "last_frame_ms": ms(facts, last)},
        "scan_sessions": [],
        "connection_attempts": [],
        "connections": [],
        "pairings": [],
    }
    for s in facts.scans:
        seen, dups, first_dup = set(), 0, None
        for r in s.reports:
            key = (r[1], r[2], r[3])
            if key in seen:
                dups += 1
                first_dup = first_dup or r[0].n
            seen.add(key)
        out["scan_sessions"].append({
            "start_frame": s.start.frame.n, "start_complete_frame": s.start.answer.n,
            "stop_frame": s.stop.frame.n if s.stop else None,
            "stop_complete_frame": s.stop.answer.n if s.stop else None,
            "start_ms": ms(facts, s.start.frame.ts), "stop_ms": ms(facts, s.stop.frame.ts if s.stop else None),
            "still_running_at_end_of_capture": s.stop is None,
            "api": s.api, "scan_type": "active" if s.active else "passive",
            "filter_duplicates": s.filter_duplicates, "reports": len(s.reports), "duplicates": dups,
            "devices_seen": len({r[1] for r in s.reports}),
            "first_report_frame": s.reports[0][0].n if s.reports else None,
            "last_report_frame": s.reports[-1][0].n if s.reports else None,
            "first_duplicate_frame": first_dup,
        })
    for a in facts.attempts:
        outcome = "still pending at end of capture"
        if a.complete is not None:
            outcome = "connected" if a.status == 0 else ("cancelled" if a.cancel else "failed")
        out["connection_attempts"].append({
            "request_frame": a.request.frame.n, "request_ms": ms(facts, a.request.frame.ts),
            "api": "extended" if a.request.opcode == 0x2043 else "legacy", "peer": a.peer,
            "filter_policy": a.filter_policy, "cancel_frame": a.cancel.frame.n if a.cancel else None,
            "complete_frame": a.complete.n if a.complete else None, "outcome": outcome,
        })
    for c in facts.connections:
        out["connections"].append({
            "handle": c.handle, "role": c.role, "peer": c.peer, "complete_frame": c.complete.n,
            "complete_ms": ms(facts, c.complete.ts),
            "request_frame": c.request.request.frame.n if c.request else None,
            "disconnect_command_frame": c.disconnect_command.frame.n if c.disconnect_command else None,
            "disconnect_frame": c.disconnect.n if c.disconnect else None,
            "disconnect_ms": ms(facts, c.disconnect.ts if c.disconnect else None),
            "disconnect_reason": f"0x{c.reason:02x}" if c.reason is not None else None,
            "still_connected_at_end_of_capture": c.disconnect is None,
            "last_payload_frame": c.last_acl.n if c.last_acl else None,
            "mtu": c.mtu, "mtu_exchange_frames": [f.n for f in c.mtu_exchanges], "att_pdus": len(c.att),
            "encryption_changes": [{"frame": f.n, "status": f"0x{status:02x}", "enabled": enabled}
                                   for f, status, enabled in c.encryption],
        })
        req = next((s for s in c.smp if s[2] == 0x01), None)
        if req:
            rsp = next((s for s in c.smp if s[2] == 0x02), None)
            failed = next((s for s in c.smp if s[2] == 0x05), None)
            enc = next((f for f, status, en in c.encryption if status == 0 and en and f.n > req[0].n), None)
            pairing = {"handle": c.handle, "request_frame": req[0].n,
                       "initiated_by": "local" if req[1] else "remote",
                       "response_frame": rsp[0].n if rsp else None,
                       "result": "success" if enc and not failed else ("failed" if failed else "incomplete")}
            if rsp:
                pairing["secure_connections"] = bool(req[3][3] & 0x08 and rsp[3][3] & 0x08)
            if failed:
                pairing["failed_frame"] = failed[0].n
                pairing["reason"] = f"0x{failed[3][1]:02x}"
            out["pairings"].append(pairing)
    return out


def truth(path: Path, designed: dict | None = None) -> dict:
    """The truth file content for one capture (without the scenario's description)."""
    frames = read_btsnoop(path)
    facts = Facts(frames)
    rules = judge(facts)
    result = {
        "capture": path.name,
        "capture_info": {"format": "btsnoop-1002", "packets": len(frames)},
        "expected_rules_config": {"profile": None, "thresholds": THRESHOLDS},
        "expected_rules": {r: rules[r] for r in RULE_IDS},
        "expected_metrics": metrics(facts),
    }
    if facts.adv_data:
        ios = judge(facts, profile="ios")
        result["expected_rules_by_profile"] = {"ios": {"adv.payload-budget": ios["adv.payload-budget"]}}
    if designed is not None:
        mismatches = {r: (designed[r], rules[r]["status"]) for r in designed
                      if designed[r] != rules[r]["status"] and designed[r] != rules[r].get("severity")}
        result["design_check"] = {"designed": designed, "mismatches": mismatches}
    return result


def main(argv):
    if argv[:1] == ["--check"]:
        folder = Path(argv[1] if len(argv) > 1 else "captures/scenarios")
        bad = 0
        for t in sorted(folder.glob("*.truth.json")):
            stored = json.loads(t.read_text())
            if stored.get("capture_info", {}).get("format") != "btsnoop-1002":
                continue
            fresh = truth(folder / stored["capture"])
            for key in ("expected_rules", "expected_metrics"):
                if stored.get(key) != fresh[key]:
                    print(f"{t.name}: {key} differs from a fresh derivation")
                    bad += 1
        print(f"scenario_truth: {'all truth files agree' if not bad else f'{bad} differences'}")
        return 1 if bad else 0
    for p in argv:
        print(json.dumps(truth(Path(p)), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
