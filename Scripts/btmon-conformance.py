#!/usr/bin/env python3
"""Compare `hciscope show --json` with BlueZ 5.87's `btmon -r` on the same captures, frame by frame.

btmon is BlueZ's own decoder (monitor/packet.c); Debian 12 packages 5.66, which crashes on most
real captures, so Scripts/build-btmon.sh builds 5.87 from source. btmon reads btsnoop and
PacketLogger files, not pcap/pcapng. Fields compared (btmon text ↔ hciscope JSON key), on every
frame btmon numbers (`#N`, the same 1-based record numbers hciscope uses):

  direction        '<' sent / '>' received              ↔ dir            (HCI packets)
  packet type      "HCI Command" / "HCI Event" / "ACL Data" / "SCO Data" / "ISO Data"  ↔ kind
  command opcode   "HCI Command: … (0xOG|0xOCF)"         ↔ opcode
  event code       "HCI Event: … (0xEE)"                 ↔ event
  LE subevent      first line under an LE Meta Event     ↔ subevent
  answered opcode  first line under Command Complete/Status ↔ opcode
  ACL handle       "ACL Data TX/RX: Handle N"            ↔ handle
  ATT opcode       "ATT: … (0xOP)"                       ↔ att.opcode
  SMP code         "SMP: … (0xCC)"                       ↔ smp.code
  advertisers      "Address: …" in advertising reports   ↔ reports[].address

Disagreement classes explained in docs/CONFORMANCE.md are counted; anything else is printed with
its frames and makes the exit status 1.

btmon numbers frames per controller in monitor (datalink 2001) files and skips PacketLogger's
non-HCI records, so the HCI packets of both tools are paired in file order (sent and received
commands, events, ACL, SCO, ISO data); index events and notes are not compared. Examples name
hciscope's frame numbers.

usage: Scripts/btmon-conformance.py --btmon BIN [--hciscope BIN] [--verbose] [FILE ...]
       (default: every btsnoop/PacketLogger capture of the project and of $HCISCOPE_CORPUS (real/, scenarios/))
"""
import argparse
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conformance import corpus_files, hciscope_frames, print_totals, read_as_btsnooz_records  # noqa: E402

# A record's first line: direction mark, then the text (frame number, index and time at the end;
# btmon leaves the number out on some records of monitor files).
HEADER = re.compile(r"^([<>@=*]) (.*)$")
# btmon 5.87 labels data packets by the connection's type when it knows the connection
# (packet.c, conn_type_str), "ACL"/"SCO"/"ISO" otherwise, and "Malformed … packet" ('*' lines).
LABELS = {"HCI Command": "command", "HCI Event": "event", "ACL": "acl", "BR-ACL": "acl", "LE-ACL": "acl",
          "SCO": "sco", "BR-SCO": "sco", "BR-ESCO": "sco", "ISO": "iso", "LE-CIS": "iso", "LE-BIS": "iso"}
MALFORMED = {"Malformed HCI Command": "command", "Malformed HCI Event": "event", "Malformed ACL Data": "acl",
             "Malformed SCO Data": "sco", "Malformed ISO Data": "iso"}
KINDS = set(LABELS.values())


def kind_of(text):
    label = text.split(":", 1)[0]
    if label in LABELS and ":" in text:
        return LABELS[label]
    return next((k for prefix, k in MALFORMED.items() if text.startswith(prefix)), None)
OPCODE = re.compile(r"\(0x([0-9a-f]{2})\|0x([0-9a-f]{4})\)")
CODE = re.compile(r"\(0x([0-9a-f]{2})\)")
ADV_SUBEVENTS = {0x02, 0x0B, 0x0D}
KNOWN = {
    "vendor-debug-0x0edc": "btmon decodes controller debug traffic on ACL handle 0x0EDC as L2CAP (and reports "
                           "'invalid size'); it is vendor trace data, not L2CAP (as with tshark)",
    "btmon-refuses-long-event": "an event with more parameter bytes than its definition: btmon prints 'invalid "
                                "packet size' and decodes nothing; hciscope decodes it and reports the trailing bytes",
    "btmon-cannot-read": "btmon prints no packet of the file (an on-device btsnooz dump: a btsnoop header followed by "
                         "btsnooz v2 records); hciscope reads it",
}


def btmon_packets(btmon, path):
    """The HCI packets btmon printed, in file order (header and the lines under each)."""
    res = subprocess.run([btmon, "-r", path], capture_output=True, text=True, errors="replace", timeout=600)
    packets, current = [], None
    for line in res.stdout.splitlines():
        m = HEADER.match(line)
        if m and kind_of(m.group(2)):
            current = {"dir": m.group(1), "text": m.group(2), "body": []}
            packets.append(current)
        elif line[:1] in "<>@=*" and line[1:2] == " ":
            current = None  # notes, index events, management: not compared
        elif current is not None:
            current["body"].append(line)
    return res.returncode, packets


def parse(frame):
    """The compared fields of one btmon frame."""
    text, body = frame["text"], frame["body"]
    out = {"dir": {"<": "sent", ">": "received"}.get(frame["dir"])}
    kind = kind_of(text)
    out["kind"] = kind
    out["malformed"] = text.startswith("Malformed")
    if kind == "command":
        m = OPCODE.search(text)
        out["opcode"] = int(m.group(1), 16) << 10 | int(m.group(2), 16) if m else None
    elif kind == "event":
        m = CODE.search(text)
        out["event"] = int(m.group(1), 16) if m else None
        first = body[0] if body else ""
        out["invalid_size"] = "invalid packet size" in first
        if out["event"] == 0x3E:
            m = CODE.search(first)
            out["subevent"] = int(m.group(1), 16) if m else None
        if out["event"] in (0x0E, 0x0F):
            m = OPCODE.search(first)
            out["answered"] = int(m.group(1), 16) << 10 | int(m.group(2), 16) if m else None
        out["addresses"] = sorted({l.split("Address: ")[1].split()[0].lower() for l in body if "  Address: " in l})
    elif kind == "acl":
        m = re.search(r"Handle (\d+)", text)
        out["handle"] = int(m.group(1)) if m else None
        for l in body:
            s = l.strip()
            # "BR/EDR SMP:" is SMP on the BR/EDR Security Manager channel (CID 0x0007).
            for proto, prefixes in (("att", ("ATT: ",)), ("smp", ("SMP: ", "BR/EDR SMP: "))):
                if s.startswith(prefixes):
                    m = CODE.search(s)
                    if m and proto not in out:
                        out[proto] = int(m.group(1), 16)
    return out


def compare(ours, theirs):
    """Yield (key, ours, btmon) for every compared field that differs on one frame."""
    kind = ours.get("kind")
    if theirs["kind"] is None:
        return
    if kind != theirs["kind"]:
        yield "packet_type", kind, theirs["kind"]
        return
    if theirs["dir"] and ours.get("dir") != theirs["dir"]:
        yield "direction", ours.get("dir"), theirs["dir"]
    if kind == "command" and ours.get("opcode") != theirs["opcode"]:
        yield "command_opcode", ours.get("opcode"), theirs["opcode"]
    if kind == "event":
        if ours.get("event") != theirs["event"]:
            yield "event_code", ours.get("event"), theirs["event"]
        if "subevent" in theirs and ours.get("subevent") != theirs["subevent"]:
            yield "le_subevent", ours.get("subevent"), theirs["subevent"]
        if "answered" in theirs and ours.get("opcode") != theirs["answered"]:
            yield "answered_opcode", ours.get("opcode"), theirs["answered"]
        if ours.get("subevent") in ADV_SUBEVENTS:
            mine = sorted({r["address"] for r in ours.get("reports", [])})
            if mine != theirs["addresses"]:
                yield "advertiser_address", mine, theirs["addresses"]
    if kind == "acl":
        if ours.get("handle") != theirs["handle"]:
            yield "acl_handle", ours.get("handle"), theirs["handle"]
        att = (ours.get("att") or {}).get("opcode")
        if att != theirs.get("att"):
            yield "att_opcode", att, theirs.get("att")
        smp = (ours.get("smp") or {}).get("code")
        if smp != theirs.get("smp"):
            yield "smp_code", smp, theirs.get("smp")


def classify(key, ours, theirs):
    if ours.get("vendor_debug") and key in ("att_opcode", "smp_code"):
        return "vendor-debug-0x0edc"
    if theirs.get("invalid_size") and key == "answered_opcode":
        return "btmon-refuses-long-event"
    return key


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--btmon", required=True)
    ap.add_argument("--hciscope", default=os.path.join(repo, ".build", "release", "hciscope"))
    ap.add_argument("--corpus", default=os.environ.get("HCISCOPE_CORPUS"), help="corpus folder (default: $HCISCOPE_CORPUS)")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or corpus_files(args.corpus)
    totals, examples = defaultdict(int), defaultdict(list)
    compared, unexplained = 0, 0
    for path in files:
        name = os.path.basename(path)
        with open(path, "rb") as f:
            magic = f.read(8)
        if not (magic.startswith(b"btsnoop") or path.endswith(".pklg")):
            continue  # btmon reads btsnoop and PacketLogger only
        status, ours, err = hciscope_frames(args.hciscope, path)
        if status == 2:
            print(f"{name}: hciscope could not read it: {err.strip()}")
            unexplained += 1
            continue
        rc, theirs = btmon_packets(args.btmon, path)
        mine = [o for _, o in sorted(ours.items()) if o.get("kind") in KINDS]
        if rc == 0 and not theirs and mine and read_as_btsnooz_records(args.hciscope, path):
            # btmon printed no packet of a file hciscope reads as an on-device btsnooz dump.
            totals["btmon-cannot-read"] += 1
            examples["btmon-cannot-read"].append((name, None, len(mine), 0))
            print(f"{name}: btmon prints no packet, hciscope {len(mine)}: not compared")
            continue
        diffs = defaultdict(int)
        if rc != 0:
            diffs[f"btmon-exit-{rc}"] += 1
        if len(mine) != len(theirs):
            diffs["packet_count"] += 1
            examples["packet_count"].append((name, None, len(mine), len(theirs)))
        for o, raw in zip(mine, theirs):
            n = o["frame"]
            compared += 1
            t = parse(raw)
            for key, mine, th in compare(o, t):
                cls = classify(key, o, t)
                diffs[cls] += 1
                if len(examples[cls]) < 200:
                    examples[cls].append((name, n, mine, th))
        summary = ", ".join(f"{k} {v}" for k, v in sorted(diffs.items())) or "agree on every frame"
        print(f"{name}: {len(theirs)} HCI packets; {summary}")
        for k, v in diffs.items():
            totals[k] += v
    print(f"\n{compared} HCI packets compared")
    unexplained += print_totals(totals, examples, KNOWN, "btmon", None if args.verbose else args.examples)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
