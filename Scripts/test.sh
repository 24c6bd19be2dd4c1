#!/usr/bin/env bash
# The whole test suite: unit and corpus tests, then the tshark conformance check.
# Corpus tests read ../shared/captures beside the checkout and skip loudly when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product hciscope
swift test
if command -v tshark >/dev/null && command -v python3 >/dev/null; then
    python3 Scripts/conformance.py --hciscope .build/release/hciscope
else
    echo "test.sh: tshark or python3 missing: conformance check SKIPPED" >&2
fi
