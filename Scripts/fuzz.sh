#!/usr/bin/env bash
# libFuzzer + AddressSanitizer over hciscope's readers, containers and decoders.
#
#   Scripts/fuzz.sh TARGET SECONDS      build TARGET (or "all"), seed it, fuzz it for SECONDS each
#   Scripts/fuzz.sh --long [TARGET...]  the nightly pass: every target (or those named) until it has run
#                                       its budget of inputs (FUZZ_SMALL_RUNS, default 10^7, for the small
#                                       parsers; FUZZ_CONTAINER_RUNS, default 10^6, for readers, containers,
#                                       decompressors, the merge and whole streams), at most FUZZ_LONG_HOURS
#                                       (default 6) each, on a corpus kept in .build/fuzz/corpus/TARGET
#                                       (seeded, then minimised with -merge=1 after the run); one summary
#                                       row per target in .build/fuzz/long-summary.md
#   Scripts/fuzz.sh --list              the targets
#
# Modules are compiled straight with swiftc (-sanitize=fuzzer,address) into .build/fuzz; the
# target file in Fuzz/ exposes LLVMFuzzerTestOneInput and libFuzzer supplies main. The corpus is
# seeded from the real captures (Scripts/fuzz-seeds.py: the fixtures, captures/ and $HCISCOPE_CORPUS) in a
# temporary directory. A crash leaves its input in .build/fuzz/crashes/TARGET/ and exits non-zero:
# check it in under Sources/ScopeTestSupport/Fixtures/fuzz/ with a regression test and the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
# Small parsers (one PDU or one byte stream) and the targets that read whole files or streams of records.
SMALL="hci_command hci_event att smp ad reader_stream"
LARGE="reader_btsnoop reader_pcap reader_pklg l2cap dissector container_zip container_tar container_btsnooz
       decompress_gzip decompress_xz decompress_zstd decompress_bzip2 merge"
TARGETS=$(echo "$SMALL $LARGE" | tr -s ' \n' ' ')
if [ "${1:-}" = --list ]; then echo "$TARGETS"; exit 0; fi
long=0
if [ "${1:-}" = --long ]; then long=1; shift; fi
if [ $long = 0 ]; then
    target=${1:?usage: Scripts/fuzz.sh TARGET|all SECONDS | --long [TARGET...]}
    seconds=${2:-60}
fi
OUT=.build/fuzz
mkdir -p "$OUT"
# The container targets write their input and spool files for every run: in memory when possible.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
# The system-library modules ScopeCapture imports (their module maps name the libraries to link),
# and the C targets CStreams and CPcap: compiled here, each with a module map of its own in $OUT.
FLAGS=(-sanitize=fuzzer,address -O -g -swift-version 6 -package-name hciscope -parse-as-library -I "$OUT"
       -I Sources/CZlib -I Sources/CLzma -I Sources/CZstd -I Sources/CBzip2 -I "$OUT/CStreams" -I "$OUT/CPcap")

# A C target of the package (Sources/NAME/SOURCE.c, its header in include/) as an object file and a
# module map, for ScopeCapture: CStreams (Container/ByteInputs.swift), CPcap (PCAP/, which loads
# libpcap on first use, as in the package build).
c_target() {
    local name=$1 source=$2 header=$3 obj="$OUT/$1/$2.o"
    mkdir -p "$OUT/$name"
    if [ -f "$obj" ] && [ "$obj" -nt "Sources/$name/$source.c" ] && [ "$obj" -nt "Sources/$name/include/$header" ]; then return; fi
    printf 'module %s {\n    header "%s"\n    export *\n}\n' "$name" "$PWD/Sources/$name/include/$header" \
        > "$OUT/$name/module.modulemap"
    clang -c -O1 -g -fsanitize=address -I "Sources/$name/include" "Sources/$name/$source.c" -o "$obj"
}

# Builds one package module as a static library when one of its sources is newer than it.
module() {
    local name=$1 lib="$OUT/lib$1.a"
    if [ -f "$lib" ] && [ -z "$(find "Sources/$name" -name '*.swift' -newer "$lib" | head -1)" ]; then return; fi
    echo "fuzz.sh: compiling $name" >&2
    # shellcheck disable=SC2046
    swiftc "${FLAGS[@]}" -module-name "$name" -emit-module -emit-module-path "$OUT/$name.swiftmodule" \
        -emit-library -static -o "$lib" $(find "Sources/$name" -name '*.swift' | sort) || { rm -f "$lib"; return 1; }
}

build() {
    local t=$1 extra=() libs=(-lScopeDecode -lScopeCore)
    module ScopeCore || return 1
    module ScopeDecode || return 1
    case $t in
        reader_*|container_*|decompress_*|merge)
            c_target CStreams streams hciscope_streams.h || return 1
            c_target CPcap pcap hciscope_pcap.h || return 1
            module ScopeCapture || return 1
            extra=(Fuzz/FuzzCaptureSupport.swift Fuzz/FuzzContainerSupport.swift "$OUT/CStreams/streams.o" "$OUT/CPcap/pcap.o")
            libs=(-lScopeCapture "${libs[@]}" -lz -llzma -lzstd -lbz2) ;;
    esac
    if [ ! -x "$OUT/$t" ] || [ -n "$(find Fuzz "$OUT"/*.a -newer "$OUT/$t" | head -1)" ]; then
        echo "fuzz.sh: linking $t" >&2
        swiftc "${FLAGS[@]}" -module-name "fuzz_$t" Fuzz/FuzzSupport.swift "${extra[@]}" "Fuzz/$t.swift" \
            -L "$OUT" "${libs[@]}" -o "$OUT/$t" 2>"$OUT/$t.build.log" || { cat "$OUT/$t.build.log" >&2; return 1; }
    fi
}

run() {
    local t=$1 corpus
    build "$t" || { echo "fuzz.sh: $t does not build" >&2; return 1; }
    corpus=$(mktemp -d "${TMPDIR:-/tmp}/hciscope-fuzz-$t.XXXXXX")
    python3 Scripts/fuzz-seeds.py "$t" "$corpus" || { echo "fuzz.sh: seed extraction for $t failed" >&2; rm -rf "$corpus"; return 1; }
    mkdir -p "$OUT/crashes/$t"
    echo "fuzz.sh: $t for ${seconds}s, $(ls "$corpus" | wc -l) seeds" >&2
    local status=0
    ASAN_OPTIONS=detect_leaks=0 "$OUT/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$OUT/crashes/$t/" "$corpus" \
        >"$OUT/$t.log" 2>&1 || status=$?
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done)' "$OUT/$t.log" | tr '\n' ' ' >&2; echo >&2
    rm -rf "$corpus"
    if [ $status -ne 0 ]; then
        echo "fuzz.sh: $t FAILED (exit $status); input in $OUT/crashes/$t/, log $OUT/$t.log" >&2
        grep -A30 -m1 'ERROR\|Fatal error\|deadly signal' "$OUT/$t.log" >&2 || true
        return 1
    fi
}

# The nightly pass for one target: seeds merged into the kept corpus, fuzzing until the budget of
# inputs has run (or the time cap), the corpus minimised, one summary row.
long_run() {
    local t=$1 runs corpus seeds status=0 log="$OUT/$t.long.log"
    case " $SMALL " in *" $t "*) runs=${FUZZ_SMALL_RUNS:-10000000} ;; *) runs=${FUZZ_CONTAINER_RUNS:-1000000} ;; esac
    build "$t" || { echo "fuzz.sh: $t does not build" >&2; return 1; }
    corpus="$OUT/corpus/$t"
    seeds=$(mktemp -d "${TMPDIR:-/tmp}/hciscope-fuzz-seeds-$t.XXXXXX")
    mkdir -p "$corpus" "$OUT/crashes/$t"
    python3 Scripts/fuzz-seeds.py "$t" "$seeds" || { rm -rf "$seeds"; return 1; }
    # New seeds join the kept corpus (only those that add coverage).
    ASAN_OPTIONS=detect_leaks=0 "$OUT/$t" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 "$corpus" "$seeds" \
        >"$OUT/$t.seed-merge.log" 2>&1 || true
    rm -rf "$seeds"
    local started=$SECONDS
    echo "fuzz.sh: $t: $runs inputs at most, $(ls "$corpus" | wc -l) in the corpus" >&2
    # Inputs are kept short in the long pass (a PDU is at most a few hundred bytes; 4 KiB holds an
    # archive of a few members): more of them run per second.
    local maxlen
    case " $SMALL " in *" $t "*) maxlen=${FUZZ_MAX_LEN:-1024} ;; *) maxlen=${FUZZ_MAX_LEN:-4096} ;; esac
    ASAN_OPTIONS=detect_leaks=0 "$OUT/$t" -runs="$runs" -max_total_time=$(( ${FUZZ_LONG_HOURS:-6} * 3600 )) -timeout=10 \
        -rss_limit_mb=2048 -max_len="$maxlen" -print_final_stats=1 -artifact_prefix="$OUT/crashes/$t/" \
        "$corpus" >"$log" 2>&1 || status=$?
    local elapsed=$(( SECONDS - started ))
    # Minimise: the smallest set of inputs with the same coverage replaces the corpus.
    local min="$OUT/corpus/$t.min"
    rm -rf "$min"; mkdir -p "$min"
    ASAN_OPTIONS=detect_leaks=0 "$OUT/$t" -merge=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 "$min" "$corpus" \
        >"$OUT/$t.minimise.log" 2>&1 && { rm -rf "$corpus"; mv "$min" "$corpus"; }
    local execs cov ft rss crashes
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo ?)
    rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo ?)
    cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -o 'cov: [0-9]*' | grep -o '[0-9]*' || echo ?)
    ft=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -o 'ft: [0-9]*' | grep -o '[0-9]*' || echo ?)
    crashes=$(ls "$OUT/crashes/$t" | wc -l)
    printf '| %s | %s | %s | %s | %s | %s | %s s | %s MB | %s |\n' "$t" "$runs" "$execs" "$cov" "$ft" "$(ls "$corpus" | wc -l)" \
        "$elapsed" "$rss" "$crashes" | tee -a "$OUT/long-summary.md"
    if [ $status -ne 0 ]; then
        echo "fuzz.sh: $t FAILED (exit $status); input in $OUT/crashes/$t/, log $log" >&2
        grep -A30 -m1 'ERROR\|Fatal error\|deadly signal' "$log" >&2 || true
        return 1
    fi
}

if [ $long = 1 ]; then
    failed=0
    echo "| target | budget | inputs run | coverage (edges) | features | corpus | time | peak RSS | crashes |" >>"$OUT/long-summary.md"
    echo "|---|---|---|---|---|---|---|---|---|" >>"$OUT/long-summary.md"
    for t in ${*:-$TARGETS}; do long_run "$t" || failed=1; done
    exit $failed
fi
if [ "$target" = all ]; then
    failed=0
    for t in $TARGETS; do run "$t" || failed=1; done
    exit $failed
fi
run "$target"
