#!/usr/bin/env python3
"""Compare `hciscope show --json` with tshark's decoding of the same capture, frame by frame.

Fields compared (tshark field ↔ hciscope JSON key):
  packet type      hci_h4.type / hci_mon.opcode   ↔ kind (+ dir for monitor files)
  command opcode   bthci_cmd.opcode               ↔ opcode            (commands)
  event code       bthci_evt.code                 ↔ event
  LE subevent      bthci_evt.le_meta_subevent     ↔ subevent
  answered opcode  bthci_evt.opcode               ↔ opcode            (Command Complete/Status)
  ACL handle       bthci_acl.chandle              ↔ handle            (ACL)
  ATT opcode       btatt.opcode                   ↔ att.opcode
  ATT handle       btatt.handle                   ↔ att.handle
  SMP code         btsmp.opcode                   ↔ smp.code
  advertisers      bthci_evt.bd_addr              ↔ reports[].address (advertising report events)
  each report      bthci_evt.le_advts_event_type /
                   bthci_evt.le_ext_advts_event_type, bthci_evt.le_peer_address_type,
                   bthci_evt.rssi                 ↔ reports[].event_type, address_type, rssi, in order

Every disagreement is classified. Known, explained classes (see docs/CONFORMANCE.md) are counted;
anything else is printed with its frames and makes the exit status 1.

usage: Scripts/conformance.py [--hciscope BIN] [--verbose] [FILE ...]
       (default: every HCI capture of the project (captures/, captures/scenarios/) and of the corpus
       named by HCISCOPE_CORPUS (its real/ and scenarios/))
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict

FIELDS = [
    "frame.number", "hci_h4.type", "hci_mon.opcode", "bthci_cmd.opcode", "bthci_evt.code",
    "bthci_evt.le_meta_subevent", "bthci_evt.opcode", "bthci_acl.chandle", "btatt.opcode",
    "btatt.handle", "btsmp.opcode", "bthci_evt.bd_addr", "_ws.malformed", "btl2cap.cid",
    "bthci_evt.le_advts_event_type", "bthci_evt.le_ext_advts_event_type", "bthci_evt.le_peer_address_type",
    "bthci_evt.rssi",
]
H4 = {"command": 1, "acl": 2, "sco": 3, "event": 4, "iso": 5}
MONITOR = {("new_index", None): 0, ("del_index", None): 1, ("command", "sent"): 2, ("event", "received"): 3,
           ("acl", "sent"): 4, ("acl", "received"): 5, ("sco", "sent"): 6, ("sco", "received"): 7,
           ("open_index", None): 8, ("close_index", None): 9, ("index_info", None): 10,
           ("vendor_diag", None): 11, ("system_note", None): 12, ("user_logging", None): 13,
           ("ctrl_open", None): 14, ("ctrl_close", None): 15, ("ctrl_command", None): 16,
           ("ctrl_event", None): 17, ("iso", "sent"): 18, ("iso", "received"): 19,
           ("drv", "sent"): 20, ("drv", "received"): 21}
ADV_SUBEVENTS = {0x02, 0x0B, 0x0D}
NOT_HCI = ("link type 251", "link type 256", "link type 272", "link type 255", "not HCI", "sniffer")


def ints(text):
    out = []
    for part in text.split(","):
        part = part.strip()
        if part:
            out.append(int(part, 0))
    return out


def tshark_frames(path):
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"]
    for f in FIELDS:
        cmd += ["-e", f]
    res = subprocess.run(cmd, capture_output=True, text=True)
    frames = {}
    for line in res.stdout.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(FIELDS) - len(cols))
        row = dict(zip(FIELDS, cols))
        frames[int(row["frame.number"])] = row
    return frames


def hciscope_frames(binary, path):
    res = subprocess.run([binary, "show", "--json", path], capture_output=True, text=True)
    frames = {}
    for line in res.stdout.splitlines():
        obj = json.loads(line)
        frames[obj["frame"]] = obj
    return res.returncode, frames, res.stderr


def read_as_btsnooz_records(binary, path):
    """Whether hciscope read the file as an on-device btsnooz dump (a btsnoop header followed by
    btsnooz v2 records: `capture.source.layers` of its analysis), the one kind of file the
    reference decoders are known to read nothing of."""
    res = subprocess.run([binary, "analyze", "--format", "json", path], capture_output=True, text=True)
    try:
        source = json.loads(res.stdout)["capture"].get("source") or {}
    except (ValueError, KeyError):
        return False
    return "btsnooz v2 records" in source.get("layers", [])


class RequestLog:
    """The ATT requests (and indications) seen so far in one file, per (connection handle,
    direction): what a response's handle is checked against, since tshark matches ATT responses
    across connection handles and past requests it decoded as malformed."""

    def __init__(self):
        self.handle = {}  # (connection, direction) -> handle of the latest transaction opener there
        self.malformed = {}  # (connection, direction) -> whether tshark decoded that opener as malformed
        self.good = {}  # (connection, direction) -> handle of the latest opener tshark decoded well
        self.latest = (None, None)  # ((connection, direction), handle or None) of the latest request anywhere

    def note(self, ours, t):
        """Frame `ours` (hciscope's) / `t` (tshark's), when it carries an ATT request."""
        att = ours.get("att")
        if not att:
            return
        key = (ours.get("handle"), ours.get("dir"))
        if att["opcode"] in TRANSACTION_OPENERS and att.get("handle") is not None:
            self.handle[key] = att["handle"]
            self.malformed[key] = bool(t["_ws.malformed"])
            if not t["_ws.malformed"]:
                self.good[key] = att["handle"]
        if att["opcode"] in REQUESTS:
            self.latest = (key, att.get("handle") if att["opcode"] in TRANSACTION_OPENERS else None)


def classify(key, ours, theirs, t, requests):
    """Name the kind of a disagreement; names in KNOWN are explained in docs/CONFORMANCE.md.

    `requests` (a RequestLog) holds the latest ATT request or indication seen on each connection
    and direction, so a response whose tshark handle belongs to a request on *another* connection
    can be recognised (tshark matches ATT responses across connection handles).
    """
    att = ours.get("att") or {}
    if key == "att_handle" and att.get("handle_inferred"):
        # The request a response answers travelled on the same connection the other way.
        own = (ours.get("handle"), "sent" if ours.get("dir") == "received" else "received")
        other = [h for k, h in requests.handle.items() if k != own]
        latest_key, latest_handle = requests.latest
        if (theirs and theirs[0] in other) or (not theirs and latest_key != own and latest_handle is None):
            return "att-response-matched-to-another-request"
        # The request it answers was malformed in tshark's decode (tshark names handles by one
        # GATT database per adapter, so a request to the peer's server can read as malformed
        # when the peer is a GATT server and client too): tshark pairs the response with the
        # latest request tshark read well on the connection, or with none.
        if requests.malformed.get(own) and (not theirs or requests.good.get(own) == theirs[0]):
            return "att-response-matched-past-a-malformed-request"
    if ours.get("vendor_debug") and key in ("att_opcode", "att_handle", "smp_code"):
        return "vendor-debug-0x0edc"
    if key == "smp_code" and ours.get("l2cap_cid") == 0x0007:
        return "bredr-smp-cid-0x0007"
    return key


KNOWN = {
    "vendor-debug-0x0edc": "tshark decodes controller debug traffic on ACL handle 0x0EDC as L2CAP/ATT/SMP",
    "bredr-smp-cid-0x0007": "tshark 4.0 does not decode the BR/EDR Security Manager channel (CID 0x0007) as SMP",
    "att-response-matched-to-another-request":
        "tshark pairs an ATT response with the latest request on any connection handle, in either direction",
    "att-response-matched-past-a-malformed-request":
        "tshark decoded the request against the other GATT server's handles as malformed and pairs its response with the last request it read well, or with none",
    "tshark-cannot-read":
        "tshark cannot open the file (an on-device btsnooz dump: a btsnoop header followed by btsnooz v2 records); hciscope reads it",
}
# ATT opcodes that open a transaction whose answer names no handle of its own.
TRANSACTION_OPENERS = {0x0A, 0x0C, 0x12, 0x16, 0x1D}
# Every ATT request opcode (and indication), for "the latest request" tshark pairs with.
REQUESTS = {0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x1D, 0x20}


def compare(ours, t):
    """Yield (key, ours_value, tshark_value) for every field that differs on one frame."""
    kind = ours.get("kind")
    if t["hci_h4.type"]:
        theirs = ints(t["hci_h4.type"])[0]
        if H4.get(kind) != theirs:
            yield "packet_type", kind, theirs
    elif t["hci_mon.opcode"]:
        theirs = ints(t["hci_mon.opcode"])[0]
        mine = MONITOR.get((kind, ours.get("dir"))) if (kind, ours.get("dir")) in MONITOR else MONITOR.get((kind, None))
        if mine != theirs:
            yield "packet_type", f"{kind}/{ours.get('dir')}", theirs
    if kind == "command":
        theirs = ints(t["bthci_cmd.opcode"])
        if [ours.get("opcode")] != theirs[:1]:
            yield "command_opcode", ours.get("opcode"), theirs
    if kind == "event":
        theirs = ints(t["bthci_evt.code"])
        if [ours.get("event")] != theirs[:1]:
            yield "event_code", ours.get("event"), theirs
        sub = ints(t["bthci_evt.le_meta_subevent"])
        if (ours.get("subevent") is not None or sub) and [ours.get("subevent")] != sub[:1]:
            yield "le_subevent", ours.get("subevent"), sub
        op = ints(t["bthci_evt.opcode"])
        if (ours.get("opcode") is not None or op) and [ours.get("opcode")] != op[:1]:
            yield "answered_opcode", ours.get("opcode"), op
        if ours.get("subevent") in ADV_SUBEVENTS:
            mine = sorted({r["address"] for r in ours.get("reports", [])})
            theirs = sorted({a for a in t["bthci_evt.bd_addr"].split(",") if a})
            if mine != theirs:
                yield "advertiser_address", mine, theirs
            # Field for field, report by report (directed reports: tshark names the Direct Address
            # type too, so only the legacy and extended subevents are compared this way).
            if ours.get("subevent") in (0x02, 0x0D) and not t["_ws.malformed"]:
                reports = ours.get("reports", [])
                kind = "bthci_evt.le_advts_event_type" if ours.get("subevent") == 0x02 else "bthci_evt.le_ext_advts_event_type"
                for field, key, theirs in (("report_event_type", "event_type", ints(t[kind])),
                                           ("report_address_type", "address_type", ints(t["bthci_evt.le_peer_address_type"])),
                                           ("report_rssi", "rssi", ints(t["bthci_evt.rssi"]))):
                    mine = [r.get(key) for r in reports]
                    if mine != theirs:
                        yield field, mine, theirs
    if kind == "acl":
        theirs = ints(t["bthci_acl.chandle"])
        if (ours.get("handle") is not None or theirs) and [ours.get("handle")] != theirs[:1]:
            yield "acl_handle", ours.get("handle"), theirs
    att = ours.get("att")
    theirs = ints(t["btatt.opcode"])
    if (att is not None or theirs) and ([att["opcode"]] if att else []) != theirs[:1]:
        yield "att_opcode", att and att["opcode"], theirs
    th = ints(t["btatt.handle"])
    mh = att.get("handle") if att else None
    if (mh is not None or th) and not (mh is not None and th and mh == th[0]):
        yield "att_handle", mh, th
    smp = ours.get("smp")
    theirs = ints(t["btsmp.opcode"])
    if (smp is not None or theirs) and ([smp["code"]] if smp else []) != theirs[:1]:
        yield "smp_code", smp and smp["code"], theirs


def corpus_files(root):
    """The project's own captures, then those of the corpus at `root` (real/, scenarios/) if any."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = [os.path.join(repo, "captures"), os.path.join(repo, "captures", "scenarios")]
    if root:
        dirs += [os.path.join(root, "real"), os.path.join(root, "scenarios")]
    out = []
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            path = os.path.join(d, name)
            if name.endswith((".json", ".tsv", ".md")) or name.startswith(".") or not os.path.isfile(path):
                continue
            out.append(path)
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hciscope", default=os.path.join(repo, ".build", "release", "hciscope"))
    ap.add_argument("--corpus", default=os.environ.get("HCISCOPE_CORPUS"), help="corpus folder (default: $HCISCOPE_CORPUS)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--examples", type=int, default=3, help="example frames printed per disagreement class")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if not shutil.which("tshark"):
        print("conformance: tshark not installed; SKIPPED", file=sys.stderr)
        return 0
    if not os.path.exists(args.hciscope):
        print(f"conformance: {args.hciscope} not found (build it first: swift build -c release --static-swift-stdlib)", file=sys.stderr)
        return 2
    files = args.files or corpus_files(args.corpus)
    if not files:
        print("conformance: no captures found; SKIPPED", file=sys.stderr)
        return 0
    totals = defaultdict(int)
    examples = defaultdict(list)
    compared_frames = 0
    unexplained = 0
    for path in files:
        status, ours, err = hciscope_frames(args.hciscope, path)
        name = os.path.basename(path)
        if status == 2:
            if any(s in err for s in NOT_HCI):
                print(f"{name}: refused as not HCI (expected)")
                continue
            print(f"{name}: hciscope could not read it: {err.strip()}")
            unexplained += 1
            continue
        theirs = tshark_frames(path)
        file_diffs = defaultdict(int)
        if not theirs and ours and read_as_btsnooz_records(args.hciscope, path):
            # tshark read no frame of a file hciscope reads as an on-device btsnooz dump.
            totals["tshark-cannot-read"] += 1
            examples["tshark-cannot-read"].append((name, 0, len(ours), 0))
            print(f"{name}: tshark reads no frame, hciscope {len(ours)}: not compared")
            continue
        requests = RequestLog()
        for n, t in sorted(theirs.items()):
            o = ours.get(n)
            if o is None:
                file_diffs["missing_frame"] += 1
                examples["missing_frame"].append((name, n, None, None))
                continue
            compared_frames += 1
            for key, mine, th in compare(o, t):
                cls = classify(key, o, th, t, requests)
                file_diffs[cls] += 1
                if len(examples[cls]) < 200:
                    examples[cls].append((name, n, mine, th))
            requests.note(o, t)
        extra = set(ours) - set(theirs)
        if extra:
            file_diffs["extra_frame"] += len(extra)
        summary = ", ".join(f"{k} {v}" for k, v in sorted(file_diffs.items())) or "agree on every frame"
        print(f"{name}: {len(theirs)} frames; {summary}")
        for k, v in file_diffs.items():
            totals[k] += v
    print(f"\n{compared_frames} frames compared")
    unexplained += print_totals(totals, examples, KNOWN, "tshark", None if args.verbose else args.examples)
    return 1 if unexplained else 0


def print_totals(totals, examples, known, tool, shown):
    """Prints each disagreement class with its examples (`shown` of them, None: all); returns how
    many disagreements are of no known class."""
    unexplained = 0
    for cls, count in sorted(totals.items()):
        tag = "explained" if cls in known else "UNEXPLAINED"
        print(f"  {cls}: {count} ({tag}{': ' + known[cls] if cls in known else ''})")
        for name, n, mine, th in examples[cls][:shown]:
            print(f"      {name} frame {n}: hciscope={mine} {tool}={th}")
        if cls not in known:
            unexplained += count
    return unexplained


if __name__ == "__main__":
    sys.exit(main())
