#!/usr/bin/env python3
"""Regenerates the assigned-number tables of ScopeDecode.

Reads the JSON tables of NordicSemiconductor/bluetooth-numbers-database (company_ids.json,
service_uuids.json, characteristic_uuids.json, descriptor_uuids.json, gap_appearance.json) and
writes, under Sources/ScopeDecode/AssignedNumbers/:

  CompanyID+Generated.swift   company identifiers (Assigned Numbers §7)
  GATTUUID+Generated.swift    16-bit and 128-bit UUID names with their kind
  Appearance+Generated.swift  appearance values and categories (Assigned Numbers §2.6)

The database has no GATT declarations, no SDP service classes and no 16-bit member UUIDs, and it
misspells one descriptor; those come from the SUPPLEMENT tables below, copied by hand from the
Bluetooth Assigned Numbers document (version 2026-06-23). A supplement entry never silently
replaces a database entry: it fills a gap, or it is an explicit, commented CORRECTION.

Tables are emitted as sorted, explicitly typed parallel arrays (`[UInt16]`, `[UInt64]`,
`[UUIDKind]`) plus names packed into one UTF-8 string literal with an offsets array
(`PackedStrings`); lookups are binary searches. Measured on Swift 6.3 (CPU seconds for the
3,918-entry company table): `[String]` literal ~0.5 s debug / ~10 s -O; packed literal ~0.5 s /
~1 s; a `switch` over the ids ~100 s. Output is deterministic: running the script twice gives
byte-identical files.

Usage:
  Scripts/gen-assigned-numbers.py [DATA_DIR] [--out DIR] [--check]

  DATA_DIR  folder with the JSON files (default: data/bluetooth-numbers of this repository, a copy
            of the BSD-3-Clause database with its LICENSE and SOURCE.md)
  --out     where to write the Swift files (default: Sources/ScopeDecode/AssignedNumbers)
  --check   write nothing; exit 1 if the files in --out differ from what would be generated

Python 3 standard library only.
"""

import argparse
import json
import os
import re
import sys
import textwrap

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA = os.path.join(REPO_ROOT, "data", "bluetooth-numbers")
DEFAULT_OUT = os.path.join(REPO_ROOT, "Sources", "ScopeDecode", "AssignedNumbers")

# Kind codes, in the order used to sort entries that share a UUID (Swift enum UUIDKind).
KINDS = ["service", "characteristic", "descriptor", "declaration", "serviceClass", "memberService"]

# ---------------------------------------------------------------------------------------------
# SUPPLEMENT — hand-copied from Bluetooth Assigned Numbers (2026-06-23). Each list names its
# section. Used only for ids the database does not have.
# ---------------------------------------------------------------------------------------------

# §3.6 Declarations (Core v5.4, Vol 3, Part G, §3.1–3.3).
DECLARATIONS = [
    (0x2800, "Primary Service"),
    (0x2801, "Secondary Service"),
    (0x2802, "Include"),
    (0x2803, "Characteristic"),
]

# §3.7 Descriptors missing from the database.
DESCRIPTORS = [
    (0x2912, "Measurement Description"),
    (0x2913, "Manufacturer Limits"),
    (0x2914, "Process Tolerances"),
    (0x2915, "IMD Trigger Setting"),
    (0x2916, "Cooking Sensor Info"),
    (0x2917, "Cooking Trigger Setting"),
]

# Explicit corrections of database names: (kind, uuid) -> (database name, corrected name).
# The generator fails if the database name changes, so a fixed upstream is noticed.
CORRECTIONS = {
    # Assigned Numbers §3.7 and Core v5.4 Vol 3 Part G §3.3.3.2 spell it "Description".
    ("descriptor", "2901"): ("Characteristic User Descriptor", "Characteristic User Description"),
}

# §3.3 SDP Service Class and Profile Identifiers (Core v5.4, Vol 3, Part B, §5.1.2), the SIG's
# own spelling. They appear in EIR/AD 16-bit UUID lists of BR/EDR devices.
SERVICE_CLASSES = [
    (0x1000, "ServiceDiscoveryServerServiceClassID"),
    (0x1001, "BrowseGroupDescriptorServiceClassID"),
    (0x1002, "PublicBrowseRoot"),  # §3.2 Browse Group Identifiers
    (0x1101, "SerialPort"),
    (0x1102, "LANAccessUsingPPP"),
    (0x1103, "Dial-Up Networking"),
    (0x1104, "IrMCSync"),
    (0x1105, "OBEXObjectPush"),
    (0x1106, "OBEX File Transfer"),
    (0x1107, "IrMCSyncCommand"),
    (0x1108, "Headset"),
    (0x1109, "CordlessTelephony"),
    (0x110A, "Audio Source"),
    (0x110B, "Audio Sink"),
    (0x110C, "A/V Remote Control Target"),
    (0x110D, "Advanced Audio Distribution"),
    (0x110E, "A/V Remote Control"),
    (0x110F, "A/V Remote Control Controller"),
    (0x1110, "Intercom"),
    (0x1111, "Fax"),
    (0x1112, "Headset Audio Gateway"),
    (0x1113, "WAP"),
    (0x1114, "WAP_CLIENT"),
    (0x1115, "PANU"),
    (0x1116, "NAP"),
    (0x1117, "GN"),
    (0x1118, "DirectPrinting"),
    (0x1119, "ReferencePrinting"),
    (0x111A, "Imaging"),
    (0x111B, "Imaging Responder"),
    (0x111C, "Imaging Automatic Archive"),
    (0x111D, "Imaging Referenced Objects"),
    (0x111E, "Hands-Free"),
    (0x111F, "AG Hands-Free"),
    (0x1120, "DirectPrintingReferencedObjectsService"),
    (0x1121, "ReflectedUI"),
    (0x1122, "BasicPrinting"),
    (0x1123, "PrintingStatus"),
    (0x1124, "HID"),
    (0x1125, "HardcopyCableReplacement"),
    (0x1126, "HCR_Print"),
    (0x1127, "HCR_Scan"),
    (0x1128, "Common_ISDN_Access"),
    (0x112D, "SIM Access"),
    (0x112E, "Phonebook Access Client"),
    (0x112F, "Phonebook Access Server"),
    (0x1130, "Phonebook Access Profile"),
    (0x1131, "Headset - HS"),
    (0x1132, "Message Access Server"),
    (0x1133, "Message Notification Server"),
    (0x1134, "Message Access Profile"),
    (0x1135, "GNSS"),
    (0x1136, "GNSS_Server"),
    (0x1137, "3D Display"),
    (0x1138, "3D Glasses"),
    (0x1139, "3D Synch Profile"),
    (0x113A, "Multi Profile Specification"),
    (0x113B, "MPS"),
    (0x113C, "CTN Access Service"),
    (0x113D, "CTN Notification Service"),
    (0x113E, "Calendar Tasks and Notes Profile"),
    (0x1200, "PnPInformation"),
    (0x1201, "Generic Networking"),
    (0x1202, "GenericFileTransfer"),
    (0x1203, "Generic Audio"),
    (0x1204, "GenericTelephony"),
    (0x1205, "UPNP_Service"),
    (0x1206, "UPNP_IP_Service"),
    (0x1300, "ESDP_UPNP_IP_PAN"),
    (0x1301, "ESDP_UPNP_IP_LAP"),
    (0x1302, "ESDP_UPNP_L2CAP"),
    (0x1303, "Video Source"),
    (0x1304, "Video Sink"),
    (0x1305, "Video Distribution"),
    (0x1400, "HDP"),
    (0x1401, "HDP Source"),
    (0x1402, "HDP Sink"),
]

# §3.11 Member Services: a SELECTION (the full list has ~1000 rows and is not in the database):
# the member UUIDs that occur in the project's capture corpus and that the database does not
# already name (it has e.g. 0xFEAA Eddystone, 0xFE2C Fast Pair Service, 0xFD6F Exposure
# Notification Service). The name is the member company, as the Assigned Numbers list it.
MEMBER_SERVICES = [
    (0xFCB2, "Apple Inc."),
    (0xFCC0, "Xiaomi Inc."),
    (0xFCF1, "Google LLC"),
    (0xFD2A, "Sony Corporation"),
    (0xFD5A, "Samsung Electronics Co., Ltd."),
    (0xFD62, "Google LLC"),
    (0xFD69, "Samsung Electronics Co., Ltd"),
    (0xFD7E, "Samsung Electronics Co., Ltd."),
    (0xFD82, "Sony Corporation"),
    (0xFDA5, "Neurostim OAB, Inc."),
    (0xFDAA, "Xiaomi Inc."),
    (0xFDAB, "Xiaomi Inc."),
    (0xFDE3, "Abbott Diabetes Care"),
    (0xFDF7, "HP Inc."),
    (0xFE03, "Amazon.com Services, Inc."),
    (0xFE07, "Sonos, Inc."),
    (0xFE2E, "ERi,Inc."),
    (0xFE3C, "alibaba"),
    (0xFE78, "Hewlett-Packard Company"),
    (0xFE8F, "CSR"),
    (0xFE95, "Xiaomi Inc."),
    (0xFE9E, "Renesas Design Netherlands B.V."),
    (0xFE9F, "Google LLC"),
    (0xFEA0, "Google LLC"),
    (0xFEAF, "Nest Labs Inc"),
    (0xFEB9, "LG Electronics"),
    (0xFEBE, "Bose Corporation"),
    (0xFED8, "Google LLC"),
    (0xFEE0, "Anhui Huami Information Technology Co., Ltd."),
    (0xFEE7, "Tencent Holdings Limited."),
    (0xFEEA, "Swirl Networks, Inc."),
    (0xFEED, "Tile, Inc."),
    (0xFEF3, "Google LLC"),
    (0xFEF5, "Dialog Semiconductor GmbH"),
    (0xFEFF, "GN Netcom"),
]


def fail(message):
    sys.stderr.write("gen-assigned-numbers: error: " + message + "\n")
    sys.exit(1)


def load(data_dir, name):
    path = os.path.join(data_dir, name)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    except ValueError as e:
        fail("%s is not valid JSON: %s" % (path, e))


def source_commit(data_dir):
    """The database commit named in SOURCE.md beside the JSON files."""
    try:
        with open(os.path.join(data_dir, "SOURCE.md"), encoding="utf-8") as f:
            m = re.search(r"commit ([0-9a-f]{40})", f.read())
            if m:
                return m.group(1)
    except OSError:
        pass
    return "unknown"


def swift_multiline(text):
    """One line of a Swift multi-line string literal (escapes backslash, quotes and controls)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\u{%x}" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def clean_name(name, where):
    if not isinstance(name, str) or not name.strip():
        fail("empty name in %s" % where)
    # Collapse internal whitespace runs (the database has a few doubled spaces).
    return " ".join(name.split())


# ---------------------------------------------------------------------------------------------
# Companies
# ---------------------------------------------------------------------------------------------

def companies(data_dir):
    rows = load(data_dir, "company_ids.json")
    table = {}
    for row in rows:
        code = row.get("code")
        if not isinstance(code, int) or not 0 <= code <= 0xFFFF:
            fail("company_ids.json: bad code %r" % (code,))
        name = clean_name(row.get("name"), "company 0x%04X" % code)
        if code in table and table[code] != name:
            fail("company 0x%04X has two names: %r and %r" % (code, table[code], name))
        table[code] = name
    if not table:
        fail("company_ids.json is empty")
    return sorted(table.items())


# ---------------------------------------------------------------------------------------------
# UUIDs
# ---------------------------------------------------------------------------------------------

UUID128_RE = re.compile(r"^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$")
BASE_SUFFIX = "-0000-1000-8000-00805F9B34FB"


def parse_uuid(text, where):
    """(16-bit int, None) or (None, (high, low)) for a database UUID string."""
    u = text.strip().upper()
    if re.fullmatch(r"[0-9A-F]{4}", u):
        return int(u, 16), None
    if UUID128_RE.match(u):
        # A Base-UUID-derived 128-bit value is a 16/32-bit UUID written long.
        if u.endswith(BASE_SUFFIX) and u.startswith("0000"):
            return int(u[4:8], 16), None
        h = u.replace("-", "")
        return None, (int(h[:16], 16), int(h[16:], 16))
    fail("%s: unrecognised UUID %r" % (where, text))


def uuids(data_dir):
    """Returns (short, long): lists of (uuid, kind, name) sorted by (uuid, kind order)."""
    short = {}  # (uuid16, kind) -> name
    long = {}   # ((high, low), kind) -> name
    duplicates = 0
    used_corrections = set()
    for kind, fname in (("service", "service_uuids.json"),
                        ("characteristic", "characteristic_uuids.json"),
                        ("descriptor", "descriptor_uuids.json")):
        for row in load(data_dir, fname):
            raw = row.get("uuid", "")
            where = "%s %s" % (fname, raw)
            name = clean_name(row.get("name"), where)
            correction = CORRECTIONS.get((kind, raw.upper()))
            if correction:
                if correction[0] != name:
                    fail("%s: expected database name %r for the correction, found %r"
                         % (where, correction[0], name))
                name = correction[1]
                used_corrections.add((kind, raw.upper()))
            u16, u128 = parse_uuid(raw, where)
            key = (u16, kind) if u16 is not None else (u128, kind)
            table = short if u16 is not None else long
            if key in table:
                if table[key] != name:
                    fail("%s: two names for one UUID: %r and %r" % (where, table[key], name))
                duplicates += 1  # same UUID, same name, different identifier: keep one
                continue
            table[key] = name
    unused = set(CORRECTIONS) - used_corrections
    if unused:
        fail("corrections not applied (database changed?): %r" % sorted(unused))

    def supplement(entries, kind):
        for u, name in entries:
            if any(k[0] == u for k in short):
                existing = [(k[1], v) for k, v in short.items() if k[0] == u]
                # The database already knows this UUID: keep its entry, skip ours.
                sys.stderr.write("note: 0x%04X already in the database as %r; supplement skipped\n"
                                 % (u, existing))
                continue
            short[(u, kind)] = name

    supplement(DECLARATIONS, "declaration")
    supplement(DESCRIPTORS, "descriptor")
    supplement(SERVICE_CLASSES, "serviceClass")
    supplement(MEMBER_SERVICES, "memberService")

    # One 16-bit UUID has one meaning in the SIG's namespace; a clash across kinds is an error.
    seen = {}
    for (u, kind), name in short.items():
        if u in seen:
            fail("16-bit UUID 0x%04X appears as %s and %s" % (u, seen[u], kind))
        seen[u] = kind
    order = {k: i for i, k in enumerate(KINDS)}
    s = sorted(((u, k, n) for (u, k), n in short.items()), key=lambda e: (e[0], order[e[1]]))
    l = sorted(((u, k, n) for (u, k), n in long.items()), key=lambda e: (e[0], order[e[1]]))
    if duplicates:
        sys.stderr.write("note: %d duplicate database rows (same UUID and name) merged\n" % duplicates)
    return s, l


# ---------------------------------------------------------------------------------------------
# Appearance
# ---------------------------------------------------------------------------------------------

def appearances(data_dir):
    """Returns (categories, values): [(category, name)] and [(16-bit value, name)], sorted."""
    categories = {}
    values = {}
    for row in load(data_dir, "gap_appearance.json"):
        cat = row.get("category")
        if not isinstance(cat, int) or not 0 <= cat <= 0x3FF:
            fail("gap_appearance.json: bad category %r" % (cat,))
        cname = clean_name(row.get("name"), "appearance category %d" % cat)
        if cat in categories:
            fail("appearance category %d listed twice" % cat)
        categories[cat] = cname
        values[cat << 6] = cname  # sub-category 0: the generic value, named after the category
        for sub in row.get("subcategory", []) or []:
            v = sub.get("value")
            if not isinstance(v, int) or not 1 <= v <= 0x3F:
                fail("appearance category %d: bad sub-category %r" % (cat, v))
            key = cat << 6 | v
            if key in values:
                fail("appearance 0x%04X listed twice" % key)
            values[key] = clean_name(sub.get("name"), "appearance 0x%04X" % key)
    return sorted(categories.items()), sorted(values.items())


# ---------------------------------------------------------------------------------------------
# Swift emission
# ---------------------------------------------------------------------------------------------

def license_comment(data_dir):
    """The database's LICENSE as comment lines (BSD-3-Clause asks to keep the notice with the data)."""
    try:
        with open(os.path.join(data_dir, "LICENSE"), encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        fail("cannot read the database LICENSE: %s" % e)
    out = ["//", "// bluetooth-numbers-database licence:", "//"]
    for paragraph in text.strip().split("\n\n"):
        for line in paragraph.split("\n"):
            wrapped = textwrap.wrap(line.strip(), width=96) or [""]
            out += ["//   " + w for w in wrapped]
        out.append("//")
    return out


LICENSE_LINES = []


def header(commit, sources, extra=""):
    lines = [
        "// Generated by Scripts/gen-assigned-numbers.py from bluetooth-numbers-database "
        "(BSD-3-Clause, commit %s); do not edit." % commit,
        "// Source: NordicSemiconductor/bluetooth-numbers-database v1/%s." % ", ".join(sources),
    ]
    if extra:
        lines.append(extra)
    lines += LICENSE_LINES
    lines.append("// Sorted by value; look up with a binary search (see AssignedNumbers.swift).")
    lines.append("")
    return "\n".join(lines) + "\n"


def int_array(name, swift_type, values, digits, per_line=8, doc=None):
    out = []
    if doc:
        out.append("    /// " + doc)
    out.append("    static let %s: [%s] = [" % (name, swift_type))
    for i in range(0, len(values), per_line):
        chunk = values[i:i + per_line]
        if digits == 1:
            out.append("        " + ", ".join("%d" % v for v in chunk) + ",")
        else:
            out.append("        " + ", ".join("0x%0*X" % (digits, v) for v in chunk) + ",")
    out.append("    ]")
    return out


def packed_strings(name, values, doc=None):
    """A PackedStrings table: UTF-8 byte offsets plus one multi-line string literal.

    One literal instead of `[String]`: a 4000-element String array literal costs ~10 s of
    optimiser time in -O builds; one literal and an integer array cost well under a second.
    """
    singular = name[:-1] if name.endswith("s") else name
    offsets = [0]
    for v in values:
        offsets.append(offsets[-1] + len(v.encode("utf-8")))
    out = []
    if doc:
        out.append("    /// " + doc)
    out.append("    static let %s = PackedStrings(offsets: %sOffsets, data: %sData)" % (name, singular, singular))
    out += int_array(singular + "Offsets", "UInt32", offsets, 1, per_line=12,
                     doc="UTF-8 byte offsets into `%sData`: string i is `[offsets[i], offsets[i + 1])`." % singular)
    out.append("    /// The strings of `%s`, in table order, concatenated (one per source line)." % name)
    if not values:
        out.append('    static let %sData: StaticString = ""' % singular)
        return out
    out.append('    static let %sData: StaticString = """' % singular)
    for i, v in enumerate(values):
        out.append("        " + swift_multiline(v) + ("\\" if i + 1 < len(values) else ""))
    out.append('        """')
    return out


def kind_array(name, kinds, doc=None):
    out = []
    if doc:
        out.append("    /// " + doc)
    out.append("    static let %s: [UUIDKind] = [" % name)
    per_line = 6
    for i in range(0, len(kinds), per_line):
        out.append("        " + ", ".join("." + k for k in kinds[i:i + per_line]) + ",")
    out.append("    ]")
    return out


def render_companies(commit, rows):
    lines = [header(commit, ["company_ids.json"]).rstrip("\n"), "",
             "extension AssignedNumbers {"]
    lines += int_array("companyIDs", "UInt16", [r[0] for r in rows], 4,
                       doc="Company identifiers (Assigned Numbers §7.1), ascending. %d entries." % len(rows))
    lines.append("")
    lines += packed_strings("companyNames", [r[1] for r in rows],
                            doc="`companyNames[i]` names `companyIDs[i]`.")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_uuids(commit, short, long):
    extra = ("// Plus hand-copied rows from Bluetooth Assigned Numbers 2026-06-23 (declarations §3.6, "
             "descriptors §3.7, SDP service\n// classes §3.3, selected member services §3.11) "
             "listed in the script's SUPPLEMENT section.")
    lines = [header(commit, ["service_uuids.json", "characteristic_uuids.json",
                             "descriptor_uuids.json"], extra).rstrip("\n"), "",
             "extension AssignedNumbers {"]
    lines += int_array("uuid16Values", "UInt16", [e[0] for e in short], 4,
                       doc="16-bit UUIDs, ascending, unique. %d entries." % len(short))
    lines.append("")
    lines += packed_strings("uuid16Names", [e[2] for e in short],
                            doc="`uuid16Names[i]` names `uuid16Values[i]`.")
    lines.append("")
    lines += kind_array("uuid16Kinds", [e[1] for e in short],
                        doc="`uuid16Kinds[i]` classifies `uuid16Values[i]`.")
    lines.append("")
    lines += int_array("uuid128High", "UInt64", [e[0][0] for e in long], 16, per_line=3,
                       doc="Vendor 128-bit UUIDs, most significant 64 bits; sorted by "
                           "(high, low, kind). %d entries." % len(long))
    lines.append("")
    lines += int_array("uuid128Low", "UInt64", [e[0][1] for e in long], 16, per_line=3,
                       doc="Least significant 64 bits of `uuid128High[i]`'s UUID.")
    lines.append("")
    lines += packed_strings("uuid128Names", [e[2] for e in long],
                            doc="`uuid128Names[i]` names the UUID at index i.")
    lines.append("")
    lines += kind_array("uuid128Kinds", [e[1] for e in long],
                        doc="`uuid128Kinds[i]` classifies the UUID at index i.")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_appearance(commit, categories, values):
    lines = [header(commit, ["gap_appearance.json"]).rstrip("\n"), "",
             "extension AssignedNumbers {"]
    lines += int_array("appearanceCategories", "UInt16", [c[0] for c in categories], 3,
                       doc="Appearance categories (bits 15–6 of the value), ascending. "
                           "%d entries." % len(categories))
    lines.append("")
    lines += packed_strings("appearanceCategoryNames", [c[1] for c in categories],
                            doc="`appearanceCategoryNames[i]` names `appearanceCategories[i]`.")
    lines.append("")
    lines += int_array("appearanceValues", "UInt16", [v[0] for v in values], 4,
                       doc="Appearance values (category << 6 | sub-category), ascending. "
                           "%d entries." % len(values))
    lines.append("")
    lines += packed_strings("appearanceNames", [v[1] for v in values],
                            doc="`appearanceNames[i]` names `appearanceValues[i]` (sub-category 0 "
                                "carries the category name).")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", nargs="?", default=DEFAULT_DATA)
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()

    data_dir = os.path.normpath(args.data_dir)
    commit = source_commit(data_dir)
    LICENSE_LINES[:] = license_comment(data_dir)
    company_rows = companies(data_dir)
    short, long = uuids(data_dir)
    categories, values = appearances(data_dir)

    files = {
        "CompanyID+Generated.swift": render_companies(commit, company_rows),
        "GATTUUID+Generated.swift": render_uuids(commit, short, long),
        "Appearance+Generated.swift": render_appearance(commit, categories, values),
    }

    if args.check:
        stale = []
        for name, text in sorted(files.items()):
            path = os.path.join(args.out, name)
            try:
                with open(path, encoding="utf-8", newline="") as f:
                    if f.read() != text:
                        stale.append(name)
            except OSError:
                stale.append(name)
        if stale:
            sys.stderr.write("out of date: %s (run Scripts/gen-assigned-numbers.py)\n" % ", ".join(stale))
            sys.exit(1)
        return

    os.makedirs(args.out, exist_ok=True)
    for name, text in sorted(files.items()):
        with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    sys.stderr.write("wrote %d companies, %d 16-bit and %d 128-bit UUIDs, %d appearance values to %s\n"
                     % (len(company_rows), len(short), len(long), len(values), args.out))


if __name__ == "__main__":
    main()
