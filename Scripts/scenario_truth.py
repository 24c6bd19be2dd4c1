#!/usr/bin/env python3
"""The truth of a generated scenario capture, worked out independently of hciscope.

    python3 Scripts/scenario_truth.py CAPTURE.btsnoop            # print what it finds
    python3 Scripts/scenario_truth.py --check captures/scenarios # recompute every truth file, compare

A small reader of btsnoop 1002 (H4) files and an HCI/L2CAP/ATT/SMP decoder of just what the
rules read, then the 21 rule definitions of docs/RULES.md applied to the facts, and the actor of
every finding by the signal table of docs/ATTRIBUTION.md, written here a second time in Python on
purpose: hciscope's analysis is checked against this, not against itself. A rule's status is its
verdict over all findings, whatever their actor; `actors` lists the distinct actors of a violated
rule's findings. Scripts/gen-scenarios.py uses it to write each capture's NAME.truth.json, and
checks that the verdicts it derives are the ones the scenario was designed to produce; `--check`
also rederives the truth of each re-encoded capture from its btsnoop source.

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
    "scan.left-running", "scan.duplicates-allowed", "scan.restart-throttled", "gatt.discover-all-services",
    "gatt.discover-all-characteristics", "gatt.polling", "conn.idle-before-disconnect", "conn.left-open",
    "conn.link-lost", "conn.subscriptions-left-on", "conn.reconnect-by-scan", "conn.attempt-unbounded",
    "adv.payload-budget", "adv.without-need", "security.insufficient-auth", "security.legacy-pairing",
    "security.unauthenticated-pairing", "security.pairing-failed", "security.repeated-pairing",
    "att.small-writes", "att.acknowledged-bulk",
]

# Default thresholds, as in docs/RULES.md (the truth files' expected_rules_config).
THRESHOLDS = {
    "scan.left-running": {"after_connection_request_s": 2.0, "without_connection_request_s": 30.0},
    "scan.duplicates-allowed": {"duplicate_ratio": 0.5},
    "scan.restart-throttled": {"max_starts": 5, "window_s": 30.0},
    "gatt.discover-all-services": {"used_fraction": 0.5, "reads_that_count_as_use": 1,
                                   "just_in_case_sweep_reads_count": False, "observation_s": 10.0},
    "gatt.discover-all-characteristics": {"reads_that_count_as_use": 1, "just_in_case_sweep_reads_count": False,
                                          "observation_s": 10.0},
    "gatt.polling": {"min_reads": 5, "max_median_gap_s": 2.0},
    "conn.idle-before-disconnect": {"idle_s": 10.0, "supervision_timeout_reason": "0x08"},
    "conn.left-open": {"idle_at_end_s": 30.0},
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
    # From the last LE Set (Extended) Scan Parameters before the enable: (type, interval, window)
    # per PHY, and Scanning_Filter_Policy.
    phys: tuple = ()
    filter_policy: int = 0

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
    superseded: Frame | None = None    # a later request's successful Command Status while unanswered


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
        self.resets: list[Frame] = []       # Command Complete of each successful HCI Reset
        self.has_acl = any(f.kind == "acl" for f in frames)
        self._decode()
        # README "Which stack made the capture": Android is certain when the host sent one of
        # Android's vendor commands (OGF 0x3F, OCF 0x153-0x15F: opcodes 0xFD53-0xFD5F). Nothing
        # else in a btsnoop 1002 capture of these scenarios names a platform for certain.
        android = any(0xFD53 <= c.opcode <= 0xFD5F for c in self.commands)
        self.platform = "android" if android else "unknown"

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
        if cmd.opcode == 0x0C03 and cmd.status == 0:                # HCI Reset
            self.resets.append(f)
        if cmd.opcode in (0x200D, 0x2043) and cmd.status not in (0, None):
            for a in self.attempts:
                if a.request is cmd:
                    a.complete, a.status = f, cmd.status
        elif cmd.opcode in (0x200D, 0x2043) and cmd.status == 0:
            # The controller accepted this request: an earlier one still unanswered is no longer
            # pending there (a controller refuses a second request while one is).
            for a in self.attempts:
                if a.request is not cmd and a.request.frame.n < cmd.frame.n and a.complete is None \
                        and a.superseded is None and not (a.cancel and a.cancel.status == 0):
                    a.superseded = f
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
            for prev in reversed(self.commands):
                if prev.opcode == 0x200B and len(prev.params) >= 7:
                    p = prev.params
                    session.phys = ((p[0], struct.unpack("<H", p[1:3])[0], struct.unpack("<H", p[3:5])[0]),)
                    session.filter_policy = p[6]
                    break
                if prev.opcode == 0x2041 and len(prev.params) >= 3:
                    p = prev.params
                    n = bin(p[2]).count("1")
                    session.phys = tuple((p[3 + 5 * i], struct.unpack("<H", p[4 + 5 * i:6 + 5 * i])[0],
                                          struct.unpack("<H", p[6 + 5 * i:8 + 5 * i])[0]) for i in range(n))
                    session.filter_policy = p[1]
                    break
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
# Who did it, as docs/ATTRIBUTION.md defines it


# The signal table of docs/ATTRIBUTION.md: signal → actor on Android, iOS / macOS, Linux (BlueZ),
# embedded, for a platform named for certain. A platform that is unknown (or only suggested)
# attributes nothing: every signal but the peer's names `unknown`.
PLATFORMS = ("android", "ios", "bluez", "embedded")
ACTOR_TABLE = {
    "scan_after_reset": ("os", "os", "os", "app"),
    "scan_stack_profile": ("os", "os", "os", "app"),
    "scan_controller_filtered": ("os", "unknown", "unknown", "app"),
    "scan_accept_list_passive": ("unknown", "os", "os", "app"),
    "scan_near_reset": ("unknown", "unknown", "unknown", "unknown"),
    "advertising_apple_data": ("app", "os", "app", "app"),
    "advertising_google_service": ("os", "app", "app", "app"),
    "advertising_after_reset": ("os", "os", "os", "app"),
    "request_accept_list_after_reset": ("os", "os", "os", "app"),
    "request_accept_list": ("app", "os", "os", "app"),
    "remote_central": ("peer", "peer", "peer", "peer"),
    "remote_client": ("peer", "peer", "peer", "peer"),
    "stack_discovery": ("os", "os", "os", "app"),
    "remote_pairing_features": ("peer", "peer", "peer", "peer"),
    "local_pairing_features": ("os", "os", "unknown", "app"),
    "remote_ended": ("peer", "peer", "peer", "peer"),
    "classic_link": ("unknown", "unknown", "unknown", "unknown"),
    "setup_not_captured": ("unknown", "unknown", "unknown", "unknown"),
    "local_request": ("app", "unknown", "app", "app"),
}
PEER_SIGNALS = {"remote_central", "remote_client", "remote_pairing_features", "remote_ended"}
# The scans docs/RULES.md (scan.restart-throttled) calls the system's own: left out of the count.
SYSTEM_SCAN_SIGNALS = {"scan_after_reset", "scan_stack_profile", "scan_controller_filtered"}
BOOT_WINDOW_S = 3.0          # attribution.boot_window_s
NEAR_RESET_WINDOW_S = 5.0    # attribution.near_reset_window_s
GOOGLE_SERVICES = {0xFE2C, 0xFEF3, 0xFCF1, 0xFD6F}


def actor(signal: str, platform: str) -> str:
    if signal in PEER_SIGNALS:
        return "peer"
    if platform not in PLATFORMS:
        return "unknown"
    return ACTOR_TABLE[signal][PLATFORMS.index(platform)]


def ad_elements(data: bytes):
    i = 0
    while i < len(data) and data[i]:
        n = data[i]
        yield data[i + 1], data[i + 2:i + 1 + n]
        i += 1 + n


def ad_signal(data: bytes):
    for t, v in ad_elements(data):
        if t == 0xFF and v[:2] == b"\x4c\x00":
            return "advertising_apple_data"
        if t in (0x02, 0x03, 0x16) and any(struct.unpack("<H", v[i:i + 2])[0] in GOOGLE_SERVICES
                                          for i in range(0, 2 if t == 0x16 else len(v) - 1, 2)):
            return "advertising_google_service"
    return None


class Signals:
    """The signal of every item a finding can be about (docs/ATTRIBUTION.md), then its actor."""

    def __init__(self, facts: Facts, platform: str):
        self.facts, self.platform = facts, platform
        self.scan = {}
        profiles = []
        apcf = [c.frame for c in facts.commands if c.opcode == 0xFD57]
        for s in facts.scans:
            t = s.start.frame.ts
            reset = next((r for r in reversed(facts.resets) if r.ts <= t), None)
            since = (t - reset.ts) / 1e6 if reset else None
            duty_ok = all(w * 4 <= i for _, i, w in s.phys) and bool(s.phys)
            full_duty = any(i > 0 and w >= i for _, i, w in s.phys)
            if since is not None and since <= BOOT_WINDOW_S and full_duty:
                sig = "scan_near_reset"   # an app's scan coming back with Bluetooth: not a profile
            elif since is not None and since <= BOOT_WINDOW_S:
                sig = "scan_after_reset"
                profiles.append(s.phys)
            elif s.phys and s.phys in profiles:
                sig = "scan_stack_profile"
            elif duty_ok and not s.reports and any((reset is None or f.ts >= reset.ts) and f.ts <= t for f in apcf):
                sig = "scan_controller_filtered"
            elif not s.active and s.filter_policy & 1:
                sig = "scan_accept_list_passive"
            elif since is not None and since <= NEAR_RESET_WINDOW_S:
                sig = "scan_near_reset"
            else:
                sig = "local_request"
            self.scan[id(s)] = sig

    def of_scan(self, s):
        return actor(self.scan[id(s)], self.platform)

    def request_signal(self, a: Attempt):
        if a.filter_policy == 1:
            t = a.request.frame.ts
            reset = next((r for r in reversed(self.facts.resets) if r.ts <= t), None)
            if reset is not None and t - reset.ts <= NEAR_RESET_WINDOW_S * 1e6:
                return "request_accept_list_after_reset"
            return "request_accept_list"
        return "local_request"

    def of_request(self, a: Attempt):
        return actor(self.request_signal(a), self.platform)

    def of_connection(self, c: Connection):
        """The connection itself: who opened it."""
        if c.role == "peripheral":
            return actor("remote_central", self.platform)
        if c.request is None:
            return actor("setup_not_captured", self.platform)
        return actor(self.request_signal(c.request), self.platform)

    def of_local(self, c: Connection):
        """What the local host does on a connection: the connection's (the app's for one it
        requested, the system's for one the system opened), its own request on a link the remote
        central opened."""
        if c.role == "peripheral":
            return actor("local_request", self.platform)
        return self.of_connection(c)

    def of_adv_data(self, d):
        sig = ad_signal(d.data)
        if sig is None:
            reset = next((r for r in reversed(self.facts.resets) if r.ts <= d.command.frame.ts), None)
            sig = "advertising_after_reset" if reset and d.command.frame.ts - reset.ts <= BOOT_WINDOW_S * 1e6 \
                else "local_request"
        return actor(sig, self.platform)

    def adv_span_signal(self, span):
        data = [d for d in self.facts.adv_data if d.kind == "advertising" and d.command.frame.n < span.enable.frame.n]
        sig = ad_signal(data[-1].data) if data else None
        if sig is None:
            t = span.enable.frame.ts
            reset = next((r for r in reversed(self.facts.resets) if r.ts <= t), None)
            sig = "advertising_after_reset" if reset and t - reset.ts <= BOOT_WINDOW_S * 1e6 else "local_request"
        return sig


# ------------------------------------------------------------------------------------------------
# The rules, as docs/RULES.md defines them


SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def verdict(status, why, findings=()):
    """findings: (severity, evidence frames, actor). Violated with findings of any actor; the
    severity is the worst finding's; `actors` the distinct actors of the findings."""
    out = {"status": status, "why": why, "evidence_frames": sorted({n for f in findings for n in f[1]})}
    if status == "violated":
        out["severity"] = max((f[0] for f in findings), key=SEVERITY_RANK.__getitem__)
        out["actors"] = sorted({f[2] for f in findings})
    return out


def judged(findings, why_violated, why_passed):
    return verdict("violated", why_violated, findings) if findings else verdict("passed", why_passed)


def client_side(c: Connection):
    """True when the local host is the GATT client (it sends an ATT request or command)."""
    return any(a.sent and (att_is_request(a.opcode)) for a in c.att)


@dataclass
class Pairing:
    conn: Connection
    request: tuple                     # (frame, sent, code, pdu)
    response: tuple | None = None
    failed: tuple | None = None
    encryption: Frame | None = None    # Encryption Change / Key Refresh 0x00 that completes it

    @property
    def success(self):
        return self.encryption is not None and self.failed is None

    @property
    def bonding(self):
        return self.response is not None and all(x[3][3] & 0x03 == 0x01 for x in (self.request, self.response))


def pairings_of(c: Connection) -> list[Pairing]:
    """Each SMP Pairing Request on the link starts a pairing: its Pairing Response, a Pairing
    Failed, and the Encryption Change (or Key Refresh Complete) with status 0x00 that follows it
    before the next pairing."""
    requests = [s for s in c.smp if s[2] == 0x01]
    out = []
    for i, req in enumerate(requests):
        until = requests[i + 1][0].n if i + 1 < len(requests) else 1 << 62
        later = [s for s in c.smp if req[0].n < s[0].n < until]
        p = Pairing(c, req, next((s for s in later if s[2] == 0x02), None),
                    next((s for s in later if s[2] == 0x05), None))
        p.encryption = next((f for f, status, enabled in c.encryption
                             if req[0].n < f.n < until and status == 0 and enabled), None)
        out.append(p)
    return out


def peer_identity(c: Connection) -> str:
    """The peer's identity: the address of SMP Identity Address Information it sent on the link,
    else the connection's peer address."""
    for f, sent, code, pdu in c.smp:
        if code == 0x09 and not sent and len(pdu) >= 8:
            return addr(pdu[2:8])
    return c.peer


def bonded(c: Connection, before_n: int) -> bool:
    """docs/RULES.md conn.subscriptions-left-on: paired with bonding on both sides, or encrypted
    without pairing on the link (keys of an earlier bond) — before frame `before_n`."""
    ps = pairings_of(c)
    if any(p.success and p.bonding and p.encryption.n < before_n for p in ps):
        return True
    return not ps and any(status == 0 and enabled and f.n < before_n for f, status, enabled in c.encryption)


def judge(facts: Facts, profile=None, platform=None) -> dict:
    T = THRESHOLDS
    out = {}
    last = facts.last_ts
    platform = platform or facts.platform
    sig = Signals(facts, platform)

    # scan.left-running
    if not facts.scans:
        out["scan.left-running"] = verdict("not_evaluated", "no scan session")
    else:
        found = []
        for s in facts.scans:
            start, end = s.start.frame.ts, s.end_ts(last)
            requests = [a for a in facts.attempts if start <= a.request.frame.ts <= end]
            limit = T["scan.left-running"]["without_connection_request_s"] * 1e6
            if end - start > limit and not any(a.request.frame.ts - start <= limit for a in requests):
                found.append(("warning", [s.start.frame.n], sig.of_scan(s)))
                continue
            seen = {r[1] for r in s.reports}
            for a in requests:
                if a.peer in seen and end - a.request.frame.ts > T["scan.left-running"]["after_connection_request_s"] * 1e6:
                    found.append(("warning", [s.start.frame.n, a.request.frame.n], sig.of_scan(s)))
        out["scan.left-running"] = judged(found, "a session ran too long", "every session bounded")

    # scan.duplicates-allowed
    if not facts.scans:
        out["scan.duplicates-allowed"] = verdict("not_evaluated", "no scan session")
    else:
        found, counted = [], 0
        for s in facts.scans:
            if s.filter_duplicates or not s.reports:
                continue
            seen, dups = set(), 0
            for r in s.reports:
                key = (r[1], r[2], r[3])
                dups += key in seen
                seen.add(key)
            short = s.end_ts(last) - s.start.frame.ts <= T["scan.left-running"]["without_connection_request_s"] * 1e6
            if platform == "android" and (short or not dups):
                counted += 1          # the Android stack's setting: counted, not a finding
                continue
            ratio = dups / len(s.reports)
            sev = "warning" if ratio > T["scan.duplicates-allowed"]["duplicate_ratio"] else "info"
            found.append((sev, [s.start.frame.n], sig.of_scan(s)))
        out["scan.duplicates-allowed"] = judged(found, "duplicate filter off",
                                                "filter on" + (f" ({counted} counted as the stack's)" if counted else ""))

    # scan.restart-throttled
    R = T["scan.restart-throttled"]
    if platform != "android":
        out["scan.restart-throttled"] = verdict("not_evaluated", "the capture is not from Android")
    else:
        apps = [s for s in facts.scans if sig.scan[id(s)] not in SYSTEM_SCAN_SIGNALS]
        if not apps:
            out["scan.restart-throttled"] = verdict("not_evaluated", "no scan of the app's")
        else:
            found = []
            for s in apps:
                t = s.start.frame.ts
                before = [o for o in apps if o.start.frame.n < s.start.frame.n and t - o.start.frame.ts <= R["window_s"] * 1e6]
                if len(before) >= R["max_starts"]:
                    found.append(("warning", [s.start.frame.n], sig.of_scan(s)))
            out["scan.restart-throttled"] = judged(found, "a scan started with 5 others in the 30 s before it",
                                                   "no scan started with 5 others in the 30 s before it")

    conns = facts.connections
    # The GATT client of each connection: the local host when it sends a request or command,
    # else the peer (findings then say `remote`).
    gatts = {id(c): GATT(c, client_side(c)) for c in conns}

    def observed(c, frames, key):
        """gatt.discover-all-*: a connection still up when the capture ends less than
        observation_s after its discovery is not judged."""
        if c.disconnect is not None or not frames:
            return True
        return last - max(f.ts for f in frames) >= T[key]["observation_s"] * 1e6

    # gatt.discover-all-services
    subjects = [c for c in conns if gatts[id(c)].full_range_discovery or gatts[id(c)].by_uuid_discovery]
    judged_now = [c for c in subjects if observed(c, gatts[id(c)].full_range_discovery + gatts[id(c)].by_uuid_discovery,
                                                  "gatt.discover-all-services")]
    if not subjects:
        out["gatt.discover-all-services"] = verdict("not_evaluated", "no primary service discovery")
    elif not judged_now:
        out["gatt.discover-all-services"] = verdict("not_evaluated", "the capture ended within 10 s of the discovery")
    else:
        found = []
        for c in judged_now:
            g = gatts[id(c)]
            if not g.full_range_discovery:
                continue
            found_services = [s for s in g.services if s[2] not in ("1800", "1801")]
            used = [s for s in found_services if used_in(c, g, s)]
            if found_services and len(used) < T["gatt.discover-all-services"]["used_fraction"] * len(found_services):
                who = actor("stack_discovery", platform) if client_side(c) else actor("remote_client", platform)
                found.append(("warning", [f.n for f in g.full_range_discovery], who))
        out["gatt.discover-all-services"] = judged(found, "full discovery, little used", "discovery by UUID or used")

    # gatt.discover-all-characteristics
    found, any_subject, any_unobserved = [], False, False
    for c in conns:
        g = gatts[id(c)]
        if not observed(c, [d[0] for d in g.char_discovery], "gatt.discover-all-characteristics"):
            any_unobserved = any_unobserved or bool(g.char_discovery)
            continue
        for s in g.services:
            if s[2] in ("1800", "1801"):
                continue
            procs = [d for d in g.char_discovery if s[0] <= d[1] <= s[1]]
            if not procs:
                continue
            any_subject = True
            if not used_in(c, g, s):
                if not client_side(c):
                    who = actor("remote_client", platform)
                elif platform == "android":
                    who = actor("stack_discovery", platform)
                else:
                    who = sig.of_local(c)
                found.append(("info", [procs[0][0].n], who))
    out["gatt.discover-all-characteristics"] = (
        verdict("violated", "unused service explored", found) if found
        else verdict("passed", "explored services used") if any_subject
        else verdict("not_evaluated", "the capture ended within 10 s of the discovery" if any_unobserved
                     else "no characteristic discovery"))

    # gatt.polling
    reads = [(c, a) for c in conns for a in c.att if a.opcode == 0x0A]
    if not reads:
        out["gatt.polling"] = verdict("not_evaluated", "no Read Request")
    else:
        found = []
        for c in conns:
            g = gatts[id(c)]
            by_handle = {}
            for a in c.att:
                if a.opcode == 0x0A:
                    by_handle.setdefault((a.sent, struct.unpack("<H", a.pdu[1:3])[0]), []).append(a)
            for (sent, h), rs in by_handle.items():
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
                found.append((sev, [rs[0].frame.n], sig.of_local(c) if sent else actor("remote_client", platform)))
        out["gatt.polling"] = judged(found, "polled", "no polling")

    # conn.idle-before-disconnect: LE connections one side chose to end (Disconnection Complete
    # whose reason is not a lost link).
    chosen = [c for c in conns if c.disconnect is not None and c.reason not in (0x08, 0x3E)]
    if not chosen:
        out["conn.idle-before-disconnect"] = verdict("not_evaluated", "no connection that one side chose to end")
    elif not facts.has_acl:
        out["conn.idle-before-disconnect"] = verdict("not_evaluated", "no ACL data in the capture")
    else:
        found = []
        for c in chosen:
            since = c.last_acl.ts if c.last_acl else c.complete.ts
            if c.disconnect.ts - since > T["conn.idle-before-disconnect"]["idle_s"] * 1e6:
                local = c.disconnect_command is not None or c.reason == 0x16
                found.append(("warning", [c.disconnect.n], sig.of_local(c) if local else actor("remote_ended", platform)))
        out["conn.idle-before-disconnect"] = judged(found, "idle before the disconnect", "busy until the disconnect")

    # conn.left-open: LE connections still up at the end of the capture whose setup is in it;
    # passed when each carried data within its last 30 s.
    up = [c for c in conns if c.disconnect is None and c.complete is not None and (c.last_acl is not None or facts.has_acl)]
    if not up:
        out["conn.left-open"] = verdict("not_evaluated", "no LE connection still up at the end of the capture")
    else:
        found = []
        for c in up:
            since = c.last_acl if c.last_acl else c.complete
            if last - since.ts > T["conn.left-open"]["idle_at_end_s"] * 1e6:
                found.append(("warning", [since.n, facts.frames[-1].n], sig.of_connection(c)))
        out["conn.left-open"] = judged(found, "idle until the end of the capture", "data within the last 30 s")

    # conn.link-lost
    if not conns and not facts.attempts:
        out["conn.link-lost"] = verdict("not_evaluated", "no LE connection or connection request")
    else:
        found = []
        for c in conns:
            who = sig.of_connection(c)
            for f, status, _ in c.encryption:
                if status == 0x08:
                    found.append(("warning", [f.n], who))
            if c.disconnect is not None and c.reason in (0x08, 0x3E):
                found.append(("warning", [c.disconnect.n], who))
        for a in facts.attempts:
            if a.complete is not None and a.status == 0x3E and a.complete.kind == "evt" and a.complete.data[0] == 0x3E:
                found.append(("warning", [a.complete.n], sig.of_request(a)))
        out["conn.link-lost"] = judged(found, "link lost", "no LE link lost")

    # conn.subscriptions-left-on: bonded links the local host disconnected as GATT client.
    found, subjects = [], 0
    for c in conns:
        if not (c.disconnect_command and client_side(c) and bonded(c, c.disconnect_command.frame.n)):
            continue
        on = {}
        for a in c.att:
            if a.sent and a.opcode in (0x12, 0x52) and a.frame.n < c.disconnect_command.frame.n:
                h = struct.unpack("<H", a.pdu[1:3])[0]
                if h in gatts[id(c)].cccds and len(a.pdu) >= 5:
                    on[h] = (struct.unpack("<H", a.pdu[3:5])[0] & 3, a.frame.n)
        subjects += 1
        left = [frame for value, frame in on.values() if value]
        if left:
            found.append(("info", left + [c.disconnect_command.frame.n], sig.of_local(c)))
    out["conn.subscriptions-left-on"] = (
        judged(found, "left on", "off") if subjects
        else verdict("not_evaluated", "the host disconnected no bonded connection as its GATT client"))

    # conn.reconnect-by-scan
    found, any_subject = [], False
    for a in facts.attempts:
        earlier = [c for c in conns if c.peer == a.peer and c.disconnect and c.disconnect.n < a.request.frame.n]
        if not earlier:
            continue
        any_subject = True
        ended = earlier[-1].disconnect
        scans = [s for s in facts.scans if ended.n < s.start.frame.n < a.request.frame.n]
        if scans:
            found.append(("info", [scans[0].start.frame.n, a.request.frame.n], sig.of_request(a)))
    out["conn.reconnect-by-scan"] = (
        verdict("violated", "scanned to reconnect", found) if found
        else verdict("passed", "direct reconnection") if any_subject
        else verdict("not_evaluated", "no reconnection"))

    # conn.attempt-unbounded
    if not facts.attempts:
        out["conn.attempt-unbounded"] = verdict("not_evaluated", "no connection request")
    else:
        found = []
        for a in facts.attempts:
            bound = min([x for x in (a.complete.ts if a.complete else None,
                                     a.cancel.frame.ts if a.cancel else None) if x is not None] or [last])
            if bound - a.request.frame.ts > T["conn.attempt-unbounded"]["pending_s"] * 1e6:
                if a.filter_policy == 1 and platform in ("ios", "bluez"):
                    continue                   # the platform's background reconnection: counted
                sev = "info" if a.filter_policy == 1 else "warning"
                found.append((sev, [a.request.frame.n], sig.of_request(a)))
        out["conn.attempt-unbounded"] = judged(found, "unbounded", "bounded")

    # adv.payload-budget
    if not facts.adv_data:
        out["adv.payload-budget"] = verdict("not_evaluated", "no advertising data set")
    else:
        found = []
        B = T["adv.payload-budget"]
        for d in facts.adv_data:
            if d.legacy and len(d.data) > B["legacy_max_bytes"]:
                found.append(("error", [d.command.frame.n], sig.of_adv_data(d)))
            elif profile == "ios" and d.legacy:
                if d.kind == "advertising" and len(strip_flags(d.data)) > B["ios_adv_bytes_excluding_flags"] or \
                        d.kind == "scan response" and len(d.data) > B["ios_scan_rsp_bytes"]:
                    found.append(("info", [d.command.frame.n], sig.of_adv_data(d)))
        out["adv.payload-budget"] = judged(found, "over budget", "within budget")

    # adv.without-need
    spans = [s for s in facts.adv_spans if s.connectable]
    if not spans:
        out["adv.without-need"] = verdict("not_evaluated", "no connectable advertising")
    else:
        found = []
        window = T["adv.without-need"]["connectable_enabled_without_connection_s"] * 1e6
        for s in spans:
            start = s.enable.frame.ts
            end = s.stop.frame.ts if s.stop else last
            arrived = [c for c in conns if c.role == "peripheral" and start <= c.complete.ts <= min(end, start + window)]
            if end - start > window and not arrived:
                span_sig = sig.adv_span_signal(s)
                if platform == "ios" and span_sig == "advertising_apple_data":
                    continue                   # the system's own advertising: counted
                found.append(("info", [s.enable.frame.n], actor(span_sig, platform)))
        out["adv.without-need"] = judged(found, "advertised for nothing", "connection came or stopped")

    # security.insufficient-auth
    errors = [(c, a) for c in conns for a in c.att if a.opcode == 0x01 and len(a.pdu) >= 5 and a.pdu[4] in (0x05, 0x0F, 0x0C)]
    if not errors:
        out["security.insufficient-auth"] = verdict("not_evaluated", "no such ATT error")
    else:
        found = [("warning", [a.frame.n], actor("remote_client", platform) if a.sent else sig.of_local(c))
                 for c, a in errors
                 if not any(f.n > a.frame.n and status == 0 and enabled for f, status, enabled in c.encryption)]
        out["security.insufficient-auth"] = judged(found, "never fixed", "pairing followed")

    # Pairings that negotiated a method: Pairing Request (0x01) + Pairing Response (0x02).
    every = [p for c in conns for p in pairings_of(c)]
    pairings = [p for p in every if p.response is not None]
    if not pairings:
        out["security.legacy-pairing"] = verdict("not_evaluated", "no pairing")
        out["security.unauthenticated-pairing"] = verdict("not_evaluated", "no pairing")
    else:
        def lacking(p, bit):
            """Whose PDU lacks the feature: the local stack's own first (it sets the flags, not an
            app), else the peer's (its Request or Response)."""
            ours, theirs = (p.request, p.response) if p.request[1] else (p.response, p.request)
            if not ours[3][3] & bit:
                return actor("local_pairing_features", platform)
            return actor("remote_pairing_features", platform) if not theirs[3][3] & bit else sig.of_local(p.conn)

        found = [("warning", [p.request[0].n, p.response[0].n], lacking(p, 0x08)) for p in pairings
                 if not (p.request[3][3] & 0x08 and p.response[3][3] & 0x08)]
        out["security.legacy-pairing"] = judged(found, "legacy", "secure connections")
        found = []
        for p in pairings:
            r, s = p.request[3], p.response[3]
            sc = bool(r[3] & 0x08 and s[3] & 0x08)
            mitm = bool(r[3] & 0x04 or s[3] & 0x04)
            oob = bool(r[2] and s[2]) if not sc else bool(r[2] or s[2])
            if not mitm and not oob and authenticated_possible(r[1], s[1], sc):
                found.append(("info", [p.request[0].n, p.response[0].n], lacking(p, 0x04)))
        out["security.unauthenticated-pairing"] = judged(found, "just works", "authenticated or impossible")

    # security.pairing-failed: an Encryption Change / Key Refresh with 0x08 is a lost link, not a
    # failure (conn.link-lost reports it).
    found = []
    for c in conns:
        for f, sent, code, pdu in c.smp:
            if code == 0x05:
                found.append(("error", [f.n], sig.of_local(c) if sent else actor("remote_ended", platform)))
        for f, status, enabled in c.encryption:
            if status not in (0, 0x08):
                no_key = c.role == "central" and status == 0x06
                found.append(("error", [f.n], actor("remote_ended", platform) if no_key else sig.of_local(c)))
    subject = any(c.smp or c.encryption for c in conns)
    out["security.pairing-failed"] = (
        verdict("violated", "failed", found) if found
        else verdict("passed", "succeeded") if subject
        else verdict("not_evaluated", "no pairing or encryption"))

    # security.repeated-pairing
    successes = sorted((p for p in every if p.success), key=lambda p: p.request[0].n)
    if not successes:
        out["security.repeated-pairing"] = verdict("not_evaluated", "no successful pairing")
    else:
        found, bonded_peers = [], set()
        for p in successes:
            if not p.bonding:
                continue
            who = peer_identity(p.conn)
            if who in bonded_peers:
                peer_asked = not p.request[1] or any(
                    code == 0x0B and not sent and f.n < p.request[0].n for f, sent, code, _ in p.conn.smp)
                found.append(("warning", [p.request[0].n], "peer" if peer_asked else sig.of_local(p.conn)))
            bonded_peers.add(who)
        out["security.repeated-pairing"] = judged(found, "bonded again with a peer that had bonded",
                                                  "every bonded peer bonded once")

    # att.small-writes / att.acknowledged-bulk
    writes = [(c, a) for c in conns for a in c.att if a.opcode in (0x12, 0x52)]
    if not writes:
        out["att.small-writes"] = verdict("not_evaluated", "no writes")
    else:
        found = []
        W = T["att.small-writes"]
        for c in conns:
            for run in write_runs(c, (0x12, 0x52), W["max_gap_s"]):
                small = all(len(a.pdu) - 3 <= W["max_write_bytes"] for a in run)
                if len(run) >= W["min_writes"] and small:
                    exchanged = [f for f in c.mtu_exchanges[1::2] if f.n < run[0].frame.n]
                    largest = max(len(a.pdu) - 3 for a in run)
                    if not exchanged or (c.mtu > 23 and largest >= W["max_write_bytes"]):
                        found.append(("warning", [run[0].frame.n],
                                      sig.of_local(c) if run[0].sent else actor("remote_client", platform)))
        out["att.small-writes"] = judged(found, "small writes", "fine")
    requests = [a for c in conns for a in c.att if a.opcode == 0x12]
    if not requests:
        out["att.acknowledged-bulk"] = verdict("not_evaluated", "no Write Request")
    else:
        found = []
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
                    found.append(("info", [run[0].frame.n],
                                  sig.of_local(c) if run[0].sent else actor("remote_client", platform)))
        out["att.acknowledged-bulk"] = judged(found, "acknowledged bulk", "fine")
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
        out["connection_attempts"].append({
            "request_frame": a.request.frame.n, "request_ms": ms(facts, a.request.frame.ts),
            "api": "extended" if a.request.opcode == 0x2043 else "legacy", "peer": a.peer,
            "filter_policy": a.filter_policy, "cancel_frame": a.cancel.frame.n if a.cancel else None,
            "complete_frame": a.complete.n if a.complete else None, "outcome": outcome(facts, a),
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
            "disconnect_initiator": initiator(c),
            "still_connected_at_end_of_capture": c.disconnect is None,
            "last_payload_frame": c.last_acl.n if c.last_acl else None,
            "mtu": c.mtu, "mtu_exchange_frames": [f.n for f in c.mtu_exchanges], "att_pdus": len(c.att),
            "encryption_changes": [{"frame": f.n, "status": f"0x{status:02x}", "enabled": enabled}
                                   for f, status, enabled in c.encryption],
        })
    pairings = sorted((p for c in facts.connections for p in pairings_of(c)), key=lambda p: p.request[0].n)
    for p in pairings:
        req, rsp, failed = p.request, p.response, p.failed
        pairing = {"handle": p.conn.handle, "request_frame": req[0].n,
                   "initiated_by": "local" if req[1] else "remote",
                   "response_frame": rsp[0].n if rsp else None,
                   "result": "success" if p.success else ("failed" if failed else "incomplete")}
        if rsp:
            pairing["secure_connections"] = bool(req[3][3] & 0x08 and rsp[3][3] & 0x08)
            pairing["bonding"] = p.bonding
        if failed:
            pairing["failed_frame"] = failed[0].n
            pairing["reason"] = f"0x{failed[3][1]:02x}"
        if p.success:
            pairing["encryption_frame"] = p.encryption.n
        out["pairings"].append(pairing)
    return out


def outcome(facts: Facts, a: Attempt) -> str:
    """What became of a connection request: connected, cancelled, failed, failed_to_establish,
    superseded or pending (still waiting at the last frame)."""
    conn = next((c for c in facts.connections if c.request is a), None)
    if a.complete is not None and a.status == 0:
        return "failed_to_establish" if conn and conn.reason == 0x3E else "connected"
    if a.complete is not None and a.status == 0x3E:
        return "failed_to_establish"
    if a.cancel is not None and a.cancel.status == 0:
        return "cancelled"               # LE Create Connection Cancel answered with success
    if a.complete is not None:
        return "failed"                  # refused (Command Status) or completed with an error
    if a.superseded is not None:
        return "superseded"
    return "pending"


def initiator(c: Connection):
    """Who ended the link: the local host (it sent HCI Disconnect), the link layer (0x08: the
    supervision timeout expired; nobody chose it), else the peer."""
    if c.disconnect is None:
        return None
    if c.disconnect_command is not None or c.reason == 0x16:
        return "local"
    if c.reason == 0x08:
        return "link layer (0x08 Connection Timeout)"
    return "remote"


# The platform each capture format names for certain (README "Which stack made the capture"):
# little-endian PacketLogger records are iOS / macOS; the other formats the scenarios are written
# in name none for certain (big-endian PacketLogger, a bare monitor capture: only likely).
FORMAT_PLATFORM = {"pklg-le": "ios"}


def truth(path: Path, designed: dict | None = None, platform: str | None = None) -> dict:
    """The truth file content for one capture (without the scenario's description). `platform`:
    the platform the capture's format names for certain, when it is re-encoded (else what the
    btsnoop's own frames show)."""
    frames = read_btsnoop(path)
    facts = Facts(frames)
    rules = judge(facts, platform=platform)
    result = {
        "capture": path.name,
        "capture_info": {"format": "btsnoop-1002", "packets": len(frames)},
        "expected_rules_config": {"profile": None, "thresholds": THRESHOLDS},
        "expected_rules": {r: rules[r] for r in RULE_IDS},
        "expected_metrics": metrics(facts),
    }
    if facts.adv_data:
        ios = judge(facts, profile="ios", platform=platform)
        result["expected_rules_by_profile"] = {"ios": {"adv.payload-budget": ios["adv.payload-budget"]}}
    if designed is not None:
        mismatches = {r: (designed[r], rules[r]["status"]) for r in designed
                      if designed[r] != rules[r]["status"] and designed[r] != rules[r].get("severity")}
        result["design_check"] = {"designed": designed, "mismatches": mismatches}
    return result


def shifted(value, by: int, key: str = ""):
    """A truth with every frame number moved by `by` (meta records placed first)."""
    if isinstance(value, dict):
        return {k: shifted(v, by, k) for k, v in value.items()}
    if isinstance(value, list):
        return [shifted(v, by, key) for v in value]
    frame_key = key.endswith("frame") or key.endswith("frames") or key in ("frame", "frames")
    if frame_key and isinstance(value, int) and not isinstance(value, bool):
        return value + by
    return value


def variant_truth(source: Path, fmt: str, meta: int) -> dict:
    """The truth of `source` re-encoded in format `fmt` with `meta` records placed first."""
    return shifted(truth(source, platform=FORMAT_PLATFORM.get(fmt)), meta)


def main(argv):
    if argv[:1] == ["--check"]:
        folder = Path(argv[1] if len(argv) > 1 else "captures/scenarios")
        bad = checked = 0
        for t in sorted(folder.glob("*.truth.json")):
            stored = json.loads(t.read_text())
            info = stored.get("capture_info", {})
            if info.get("format") == "btsnoop-1002":
                fresh = truth(folder / stored["capture"])
            elif info.get("source"):
                # A re-encoded variant: its btsnoop source, frames moved by the meta records.
                source = folder / info["source"].split(" ", 1)[0]
                fresh = variant_truth(source, info["format"], info["packets"] - len(read_btsnoop(source)))
            else:
                continue
            checked += 1
            for key in ("expected_rules", "expected_metrics"):
                if stored.get(key) != fresh[key]:
                    print(f"{t.name}: {key} differs from a fresh derivation")
                    bad += 1
        print(f"scenario_truth: {'all ' + str(checked) + ' truth files agree' if not bad else f'{bad} differences'}")
        return 1 if bad else 0
    for p in argv:
        print(json.dumps(truth(Path(p)), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
