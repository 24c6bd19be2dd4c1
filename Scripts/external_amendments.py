#!/usr/bin/env python3
"""Amend the shared scenario truths for the rules that changed on purpose (issue 28).

The scenario truths the CI machine holds beside the checkout (../shared/captures/scenarios) were
written for 17 rules, before attribution and the link-loss split. For the rules added since
(scan.restart-throttled, conn.left-open, conn.link-lost, security.repeated-pairing) and the two
whose scope changed (conn.idle-before-disconnect judges only chosen disconnects;
conn.subscriptions-left-on only bonded links), this script derives the expected status with
Scripts/scenario_truth.py — the project's own decoder and rules, written again in Python, never
hciscope's output — and writes what differs from the shared truth to
captures/external-scenario-amendments.json, with the actors of every violation (which the shared
truths predate). Tests/ScopeRulesTests/TruthTests.swift applies it.

    python3 Scripts/external_amendments.py [SHARED_SCENARIOS]   # default ../shared/captures/scenarios
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scenario_truth as st  # noqa: E402

RULES = ["scan.restart-throttled", "conn.left-open", "conn.link-lost", "security.repeated-pairing",
         "conn.idle-before-disconnect", "conn.subscriptions-left-on"]


def main(argv):
    root = Path(__file__).resolve().parent.parent
    folder = Path(argv[0]) if argv else root.parent / "shared" / "captures" / "scenarios"
    out = {}
    for t in sorted(folder.glob("*.truth.json")):
        stored = json.loads(t.read_text())
        capture = folder / stored["capture"]
        try:
            fresh = st.truth(capture)
        except ValueError:
            # A pcap copy of a btsnoop scenario: the same traffic, judged from its btsnoop.
            twin = folder / (stored["capture"].rsplit(".", 1)[0] + ".btsnoop")
            if not twin.exists():
                continue
            fresh = st.truth(twin)
        amended = {}
        for rule, mine in fresh["expected_rules"].items():
            theirs = stored.get("expected_rules", {}).get(rule)
            if theirs is not None and theirs.get("status") == mine["status"]:
                # The verdict stands; a violation gains its actors (CI formats show only the
                # app's and unknown actors' findings).
                if mine["status"] == "violated" and mine.get("actors") and theirs.get("actors") != mine["actors"]:
                    amended[rule] = {"actors": mine["actors"]}
                continue
            if rule not in RULES:
                # A rule not meant to change, which this script does not write again in full
                # (adv.without-need's LE Read Supported States, for one): the shared verdict stands.
                continue
            entry = {"status": mine["status"], "why": mine["why"], "was": theirs.get("status") if theirs else None}
            if mine.get("severity"):
                entry["severity"] = mine["severity"]
            if mine.get("evidence_frames"):
                entry["evidence_frames"] = mine["evidence_frames"]
            if mine.get("actors"):
                entry["actors"] = mine["actors"]
            amended[rule] = entry
        if amended:
            out[t.name] = amended
    target = root / "captures" / "external-scenario-amendments.json"
    target.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"external_amendments: {sum(len(v) for v in out.values())} amended verdicts over {len(out)} truth files -> {target}")


if __name__ == "__main__":
    main(sys.argv[1:])
