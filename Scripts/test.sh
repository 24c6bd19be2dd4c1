#!/usr/bin/env bash
# The whole test suite: unit and corpus tests, the conformance checks against tshark and BlueZ
# 5.87's btmon (built from source by Scripts/build-btmon.sh; skipped loudly when it cannot be
# built), and (in CI, or with KERNEL_LAB=1) the live-capture proof on a real kernel under qemu.
#
# The corpus of third-party real captures (captures/corpus.tsv) is found through HCISCOPE_CORPUS:
# when it is not set, this script uses ../shared/captures beside the checkout if there is one, else
# the folder Scripts/fetch-corpus.sh fills (fetching what is missing; HCISCOPE_FETCH_CORPUS=0 skips
# the download). Without a corpus the suite still passes on the project's own captures and says
# once what it skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${HCISCOPE_CORPUS:-}" ]; then
    # The captures ../shared/captures already holds are linked, the other pinned ones fetched.
    fetched=$(bash Scripts/fetch-corpus.sh --print-dir)
    have=()
    [ -d ../shared/captures/real ] && have=(--have ../shared/captures)
    download=()
    [ "${HCISCOPE_FETCH_CORPUS:-1}" = 0 ] && download=(--no-download)
    if [ ${#have[@]} -gt 0 ] || [ ${#download[@]} -eq 0 ]; then
        bash Scripts/fetch-corpus.sh "${have[@]}" "${download[@]}" \
            || echo "test.sh: not every pinned capture could be fetched (see above); the tests use those present and name the others as skipped" >&2
    fi
    [ -n "$(ls -A "$fetched/real" 2>/dev/null)" ] && HCISCOPE_CORPUS=$fetched
fi
if [ -n "${HCISCOPE_CORPUS:-}" ]; then
    export HCISCOPE_CORPUS
    echo "test.sh: corpus: $HCISCOPE_CORPUS" >&2
else
    echo "test.sh: no corpus of real captures: tests run on the project's own captures only" >&2
fi
# The binary as shipped (Swift runtime and Foundation linked in statically), and
# swift-argument-parser's man page generator for the install test (InstallTests). SwiftPM keeps a
# build plan, with the commit `--version` names (Package.swift reads it from git), until
# Package.swift changes: planned again here, so the binary tested names the commit it is built from.
touch Package.swift
swift build -c release --static-swift-stdlib --product hciscope --manifest-cache none
swift build -c release --product generate-manual
swift test
# The library products build for a package that depends on them by version: none of their
# targets has unsafe flags (Package.swift gives one to the targets outside them).
if command -v python3 >/dev/null; then
    python3 Scripts/check-library-flags.py
fi
# The package as it builds on macOS: without the Linux-only live layer (Package.swift,
# HCISCOPE_PORTABLE). The offline commands must work there; capture must say it cannot record.
HCISCOPE_PORTABLE=1 swift build --scratch-path .build-portable --product hciscope
portable=.build-portable/debug/hciscope
"$portable" analyze captures/btvirt-le-pairing.btsnoop >/dev/null
"$portable" show --frames 1-20 captures/btvirt-le-pairing.btsnoop >/dev/null
if "$portable" capture -w /dev/null 2>.build-portable/capture.err || ! grep -q "recording needs Linux" .build-portable/capture.err; then
    echo "test.sh: the portable build's capture did not refuse clearly" >&2; exit 1
fi
if ldd "$portable" 2>/dev/null | grep -q libbluetooth; then
    echo "test.sh: the portable build links libbluetooth" >&2; exit 1
fi
echo "test.sh: portable build (no live layer, as on macOS): analyze and show work, capture refuses clearly" >&2
# The scenario truth files still say what an independent reading of their captures says.
if command -v python3 >/dev/null; then
    python3 Scripts/scenario_truth.py --check captures/scenarios
fi
if command -v tshark >/dev/null && command -v python3 >/dev/null; then
    python3 Scripts/conformance.py --hciscope .build/release/hciscope
else
    echo "test.sh: tshark or python3 missing: conformance check SKIPPED" >&2
fi
# The fleet table on Apache Spark (integrations/spark/hciscope_fleet.py) with a local Spark over
# the captures, containers, the corpus and broken files, against analyze DIR's rows and DuckDB's
# summary (skipped with a note without Java, PySpark or DuckDB).
if command -v python3 >/dev/null; then
    python3 Scripts/spark-fleet-test.py --hciscope .build/release/hciscope
else
    echo "test.sh: python3 missing: fleet on Spark test SKIPPED" >&2
fi
if command -v python3 >/dev/null && btmon=$(bash Scripts/build-btmon.sh); then
    python3 Scripts/btmon-conformance.py --btmon "$btmon" --hciscope .build/release/hciscope
    # capture --tty against btmon --tty on the same stream (two pseudo-terminals)
    python3 Scripts/btmon-tty-conformance.py --btmon "$btmon" --hciscope .build/release/hciscope
else
    echo "test.sh: BlueZ 5.87's btmon could not be built (see above): btmon conformance check SKIPPED" >&2
fi
# Short libFuzzer pass over every reader and decoder (FUZZ_SECONDS each, default 20; FUZZ=0 skips):
# a crash fails the run and leaves its input in .build/fuzz/crashes/.
if [ "${FUZZ:-1}" != 0 ] && command -v clang >/dev/null && command -v python3 >/dev/null; then
    bash Scripts/fuzz.sh all "${FUZZ_SECONDS:-20}"
else
    echo "test.sh: clang or python3 missing (or FUZZ=0): fuzz pass SKIPPED" >&2
fi
if [ "${CI:-}" = true ] || [ "${KERNEL_LAB:-0}" = 1 ]; then
    for source in socket pcap; do
        status=0
        SOURCE=$source bash Scripts/kernel-lab.sh .build/release/hciscope || status=$?
        case $status in
            0) ;;
            77) echo "test.sh: kernel lab could not run here: live capture proof SKIPPED" >&2; break ;;
            *) exit "$status" ;;
        esac
    done
fi
