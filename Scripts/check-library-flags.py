#!/usr/bin/env python3
"""Fails if a target that a library product builds from uses unsafe flags.

A package that depends on hciscope's library products (ScopeDecode, ScopeCapture) by version
cannot build when any target those products are made of has `unsafeFlags` ("the target … in
product … contains unsafe build flags"). Package.swift gives one such flag to the targets outside
them (docs/PERFORMANCE.md: metadata accessors); this check keeps it there.

    python3 Scripts/check-library-flags.py     # reads `swift package dump-package`
"""
import json
import subprocess
import sys


def main() -> int:
    dump = subprocess.run(
        ["swift", "package", "dump-package"], check=True, capture_output=True, text=True
    ).stdout
    package = json.loads(dump)
    targets = {t["name"]: t for t in package["targets"]}

    def local_dependencies(target):
        for dep in target.get("dependencies", []):
            for kind in ("byName", "target"):
                if kind in dep and dep[kind][0] in targets:
                    yield dep[kind][0]

    failures = []
    for product in package["products"]:
        if "library" not in product["type"]:
            continue
        seen, stack = set(), list(product["targets"])
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            for setting in targets[name].get("settings", []):
                if "unsafeFlags" in setting["kind"]:
                    flags = setting["kind"]["unsafeFlags"]["_0"]
                    failures.append(f"library product {product['name']}: target {name} has unsafe flags {flags}")
            stack.extend(local_dependencies(targets[name]))
        print(f"check-library-flags: {product['name']}: {len(seen)} targets ({', '.join(sorted(seen))})")
    for f in failures:
        print(f"check-library-flags: {f}", file=sys.stderr)
    if not failures:
        print("check-library-flags: no unsafe flags in any library product")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
