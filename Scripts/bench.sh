#!/usr/bin/env bash
# Side-by-side benchmark: hciscope (release build) against tshark and btmon on the same large
# captures of real LE traffic, in one run. Prints wall time, frames per second, peak RSS and the
# ratios the README quotes. Not a test: nothing here fails on a slow machine.
#
#   bash Scripts/bench.sh                    # 1 M and 10 M frames (anchors on 1 M only)
#   FRAMES="1000000" bash Scripts/bench.sh   # sizes to run
#   ANCHORS_MAX=10000000 bash Scripts/bench.sh  # also run tshark/btmon on 10 M (slow, GBs of RAM)
#   FILES_JOBS=8 bash Scripts/bench.sh       # also time `analyze` on 8 copies at once (all cores)
#   BTMON587=/path/to/btmon bash Scripts/bench.sh  # BlueZ 5.87's btmon (default: built by
#                                            # Scripts/build-btmon.sh; NO_BTMON587=1 skips it)
#
# Per capture (no content favoured): every btsnoop 1002 capture of the corpus replayed ON ITS OWN
# to N frames, one table row each (CPU = user+sys of all threads, minimum of REPEAT interleaved
# runs; peak RSS = highest of the hciscope runs). Rows below the issue's targets are flagged; the
# script never fails on them.
#
#   bash Scripts/bench.sh --per-capture      # or PER_CAPTURE=1; N = PER_CAPTURE_FRAMES (300000)
#   PER_CAPTURE_FRAMES=100000 REPEAT=3 ANCHOR_REPEAT=1 bash Scripts/bench.sh --per-capture
#   NO_TSHARK=1 / NO_BTMON587=1              # leave an anchor out
#   BASE_BIN=/path/to/older/hciscope bash Scripts/bench.sh --per-capture
#                                            # also an older build, interleaved in the same runs:
#                                            # its text M/CPU-s and this build's speed-up over it
#                                            # (the machine's own speed cancels out of that ratio)
#
# Instructions per frame (deterministic, so a shared machine's speed cancels out): every replay
# of --per-capture at INSTR_FRAMES (30,000) and at 1,000 frames, `analyze` (text and JSON) run under
# valgrind's callgrind, which counts the instructions executed; per frame past start-up = the
# difference over 29,000 frames. With BASE_BIN, the older build beside this one, and the ratio.
#
#   BASE_BIN=/path/to/older/hciscope bash Scripts/bench.sh --instructions
#
# Per advertiser address: one scan from 200 advertisers whose private addresses rotate
# (Scripts/make-address-capture.py, a report every 10 ms), naming 20,000 to 1,000,000 distinct
# addresses: peak RSS of `analyze` for each. Devices after the first 1,000 leave once quiet for
# 15 minutes, so memory follows the addresses heard within 15 minutes, not the capture's total
# (a scan left running among many phones for a day).
#
#   bash Scripts/bench.sh --addresses
#
# A fleet: FLEET_FILES (1,000) Android snoop logs and bug report zips of 20 k to 400 k frames
# (Scripts/make-fleet.py: corpus captures replayed by make-large-capture.py) through the Spark job
# (integrations/spark/hciscope_fleet.py, local[2]) against `analyze DIR --format jsonl` on the
# same two cores, and `analyze DIR` on one core against two: wall time, files and frames per
# second, the Spark path's overhead. Needs Java and PySpark (Scripts/setup.sh --test).
#
#   bash Scripts/bench.sh --fleet            # or FLEET=1; FLEET_FILES, FLEET_SIZES, FLEET_REPEAT (1)
#
# The captures are generated once into /tmp by Scripts/make-large-capture.py (deterministic).
set -euo pipefail
cd "$(dirname "$0")/.."

PER_CAPTURE=${PER_CAPTURE:-0}
ADDRESSES=${ADDRESSES:-0}
FLEET=${FLEET:-0}
INSTRUCTIONS=${INSTRUCTIONS:-0}
for arg in "$@"; do
    case $arg in
        --per-capture) PER_CAPTURE=1 ;;
        --addresses) ADDRESSES=1 ;;
        --fleet) FLEET=1 ;;
        --instructions) INSTRUCTIONS=1 ;;
        *) echo "bench: unknown argument $arg" >&2; exit 2 ;;
    esac
done
FRAMES=${FRAMES:-"1000000 10000000"}
ANCHORS_MAX=${ANCHORS_MAX:-1000000}
FILES_JOBS=${FILES_JOBS:-0}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "bench: /usr/bin/time is missing (apt install time)" >&2; exit 2; }

# The binary as shipped: the Swift runtime and Foundation linked in (smaller resident set, no
# /opt/swift libraries needed at run time). Planned again (see Scripts/test.sh), so the commit the
# bench prints is the one measured.
touch Package.swift
swift build -c release --static-swift-stdlib --product hciscope --manifest-cache none >&2
BIN=$(swift build -c release --static-swift-stdlib --show-bin-path)/hciscope

# measure LABEL FRAMES CMD... : runs CMD (stdout to /dev/null), prints one row, remembers the time.
declare -A WALL RSS USER
measure() {
    local label=$1 frames=$2; shift 2
    local log; log=$(mktemp)
    local status=0
    "$TIME" -v "$@" >/dev/null 2>"$log" || status=$?
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log")
    local user
    user=$(awk -F': ' '/User time \(seconds\)/ { print $2 }' "$log")
    local note=""
    if grep -q "Command terminated by signal" "$log"; then note="CRASHED ($(grep -o 'signal [0-9]*' "$log"))"
    elif [ "$status" -gt 1 ]; then note="exit $status"; fi
    WALL[$label]=$wall
    USER[$label]=$user
    RSS[$label]=$rss
    awk -v l="$label" -v w="$wall" -v u="$user" -v r="$rss" -v f="$frames" -v n="$note" 'BEGIN {
        fps = (w > 0) ? f / w : 0
        printf "  %-28s %9.2f s %8.2f s user %12.0f frames/s %8.1f MB  %s\n", l, w, u, fps, r / 1024, n }'
    rm -f "$log"
}

ratio() { # ratio LABEL_SLOW LABEL_FAST
    local a=${WALL[$1]:-} b=${WALL[$2]:-}
    [ -n "$a" ] && [ -n "$b" ] || return 0
    awk -v a="$a" -v b="$b" -v s="$1" -v f="$2" 'BEGIN { if (b > 0) printf "  %-28s %6.1fx faster than %s\n", f, a / b, s }'
}

# BlueZ 5.87's btmon, the anchor the issue names (Debian packages 5.66): built from source once.
BTMON587=${BTMON587:-}
if [ -z "$BTMON587" ] && [ -z "${NO_BTMON587:-}" ]; then
    BTMON587=$(bash Scripts/build-btmon.sh) || { echo "bench: could not build btmon 5.87; its rows are skipped" >&2; BTMON587=; }
fi
# btmon --analyze pipes plot data to `gnuplot` for every connection and dies of SIGPIPE (exit by
# signal 13, after the first connection) where gnuplot is not installed: a stand-in that reads and
# discards the plot data lets it finish. Its work is the same; the plots are not drawn (which only
# flatters btmon).
SHIM=$(mktemp -d)
printf '#!/bin/sh\nexec cat >/dev/null\n' > "$SHIM/gnuplot"
chmod +x "$SHIM/gnuplot"
trap 'rm -rf "$SHIM"' EXIT

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"
echo "tools:   hciscope $("$BIN" --version 2>/dev/null), $(tshark --version 2>/dev/null | head -1), btmon $(btmon --version 2>/dev/null || echo absent), btmon $([ -n "$BTMON587" ] && "$BTMON587" --version || echo "5.87 absent")"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg)"

# cpu_run CMD... : runs CMD (stdout and stderr to /dev/null); prints "CPU_SECONDS PEAK_RSS_KB NOTE":
# user+sys of CMD and its threads from wait4(2) in microseconds (/usr/bin/time rounds to 10 ms,
# a third of hciscope's time on 100 k frames). CPU_LIMIT=S stops CMD after S CPU-seconds
# (RLIMIT_CPU; NOTE "cpu_limit").
cpu_run() {
    python3 -c '
import os, subprocess, sys
import resource, signal
limit = int(os.environ.get("CPU_LIMIT") or 0)
def cap():
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 5))
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=cap)
_, status, ru = os.wait4(p.pid, 0)
code = os.waitstatus_to_exitcode(status)
if code in (-signal.SIGXCPU, -signal.SIGKILL) and limit > 0:
    note = "cpu_limit"
else:
    note = f"CRASHED(signal_{-code})" if code < 0 else (f"exit_{code}" if code > 1 else "-")
print(f"{ru.ru_utime + ru.ru_stime:.4f} {ru.ru_maxrss} {note}")
' "$@"
}

per_capture() {
    local n=${PER_CAPTURE_FRAMES:-300000} repeat=${REPEAT:-3} arepeat=${ANCHOR_REPEAT:-${REPEAT:-3}}
    local alimit=${ANCHOR_CPU_LIMIT:-60} small=${PER_CAPTURE_BASE_FRAMES:-1000}
    local corpus=${HCISCOPE_CORPUS:-$(bash Scripts/fetch-corpus.sh --print-dir)}/real
    [ -d "$corpus" ] || { echo "bench: no corpus at $corpus (set HCISCOPE_CORPUS)" >&2; exit 2; }
    local use_tshark=0 use_btmon=0
    [ -z "${NO_TSHARK:-}" ] && command -v tshark >/dev/null && use_tshark=1
    [ -n "$BTMON587" ] && use_btmon=1
    echo "per capture: each replayed alone to $n frames by Scripts/make-large-capture.py --capture;"
    echo "  CPU = user+sys (all threads), minimum of $repeat interleaved runs (anchors: $arepeat); M = million frames per CPU-second"
    echo "  anchors: tshark -r FILE -q -z io,phs$([ $use_tshark = 1 ] || echo ' (absent)'); btmon 5.87 --analyze$([ $use_btmon = 1 ] || echo ' (absent)');"
    echo "  each anchor run stopped after ANCHOR_CPU_LIMIT=$alimit CPU-s (then its rate is shown as <upper bound)"
    echo "  targets (issue 15, item 5): >=2 M every replay; >=4 M advertising-heavy (>=50% of records are LE advertising reports);"
    echo "  JSON CPU within 20% of text; peak RSS <= 50 MB. Flagged, never failed."
    echo "  text_M and json_M: the default, one thread; 2thr_M: text with --threads 2 (reading and decoding on a second thread)"
    echo "  text_dM and json_dM: the same per frame past start-up: (N - $small) frames / (CPU of N frames - CPU of a $small-frame"
    echo "  replay of the same capture), minimum CPU of each; the fixed cost of a run (start-up, about 6 ms) taken out"
    echo
    local base_bin=${BASE_BIN:-}
    [ -z "$base_bin" ] || echo "  base_M: text with BASE_BIN ($("$base_bin" --version 2>/dev/null)), interleaved; x_base: its CPU / this build's"
    printf '%-62s %7s %5s %7s %7s %7s %7s %6s %7s %7s %9s %7s %9s %7s %7s %6s  %s\n' capture frames adv% text_M json_M text_dM json_dM json/t 2thr_M RSS_MB tshark_k x_tshark btmon_k x_btmon base_M x_base flags
    local skipped=() f name check recs adv out
    for f in "$corpus"/*; do
        [ -f "$f" ] || continue
        name=$(basename "$f")
        case $name in *.tsv|*.md|*.txt|*.json) continue ;; esac
        check=$(python3 Scripts/make-large-capture.py --check "$f")
        if [ "${check%% *}" != ok ]; then skipped+=("$name: ${check#skip }"); continue; fi
        read -r _ recs adv <<<"$check"
        out=/tmp/hciscope-replay-$name-$n.btsnoop
        if [ ! -f "$out" ] || [ Scripts/make-large-capture.py -nt "$out" ] || [ "$f" -nt "$out" ]; then
            python3 Scripts/make-large-capture.py --capture "$f" --frames "$n" --out "$out" 2>/dev/null
        fi
        local base=/tmp/hciscope-replay-$name-$small.btsnoop
        if [ ! -f "$base" ] || [ Scripts/make-large-capture.py -nt "$base" ] || [ "$f" -nt "$base" ]; then
            python3 Scripts/make-large-capture.py --capture "$f" --frames "$small" --out "$base" 2>/dev/null
        fi
        local text=999999 json=999999 two=999999 rss=0 tsh=999999 btm=999999 notes="" r c k note
        local text0=999999 json0=999999 basec=999999
        for r in $(seq "$repeat"); do
            read -r c k note < <(cpu_run "$BIN" analyze --no-color --format text "$base")
            text0=$(awk -v a="$text0" -v b="$c" 'BEGIN { print (b < a) ? b : a }')
            read -r c k note < <(cpu_run "$BIN" analyze --format json "$base")
            json0=$(awk -v a="$json0" -v b="$c" 'BEGIN { print (b < a) ? b : a }')
            read -r c k note < <(cpu_run "$BIN" analyze --no-color --format text "$out")
            text=$(awk -v a="$text" -v b="$c" 'BEGIN { print (b < a) ? b : a }'); [ "$k" -gt "$rss" ] && rss=$k
            [ "$note" != - ] && notes+=" text:$note"
            read -r c k note < <(cpu_run "$BIN" analyze --format json "$out")
            json=$(awk -v a="$json" -v b="$c" 'BEGIN { print (b < a) ? b : a }'); [ "$k" -gt "$rss" ] && rss=$k
            [ "$note" != - ] && notes+=" json:$note"
            read -r c k note < <(cpu_run "$BIN" analyze --no-color --format text --threads 2 "$out")
            two=$(awk -v a="$two" -v b="$c" 'BEGIN { print (b < a) ? b : a }'); [ "$k" -gt "$rss" ] && rss=$k
            [ "$note" != - ] && notes+=" threads2:$note"
            if [ -n "$base_bin" ]; then
                read -r c k note < <(cpu_run "$base_bin" analyze --no-color --format text "$out")
                basec=$(awk -v a="$basec" -v b="$c" 'BEGIN { print (b < a) ? b : a }')
            fi
            [ "$r" -le "$arepeat" ] || continue
            if [ $use_tshark = 1 ]; then
                read -r c k note < <(CPU_LIMIT=$alimit cpu_run tshark -r "$out" -q -z io,phs)
                tsh=$(awk -v a="$tsh" -v b="$c" 'BEGIN { print (b < a) ? b : a }')
                [ "$note" != - ] && notes+=" tshark:$note"
            fi
            if [ $use_btmon = 1 ]; then
                read -r c k note < <(CPU_LIMIT=$alimit PATH="$SHIM:$PATH" cpu_run "$BTMON587" --analyze "$out")
                btm=$(awk -v a="$btm" -v b="$c" 'BEGIN { print (b < a) ? b : a }')
                [ "$note" != - ] && notes+=" btmon:$note"
            fi
        done
        awk -v name="$name" -v n="$n" -v recs="$recs" -v adv="$adv" -v t="$text" -v j="$json" -v two="$two" -v rss="$rss" \
            -v ts="$tsh" -v bt="$btm" -v uts=$use_tshark -v ubt=$use_btmon -v notes="$notes" \
            -v small="$small" -v t0="$text0" -v j0="$json0" -v bc="$basec" -v ubase="${base_bin:+1}" 'BEGIN {
            if (t <= 0) t = 1e-6; if (j <= 0) j = 1e-6; if (two <= 0) two = 1e-6
            tm = n / t / 1e6; jm = n / j / 1e6; m2 = n / two / 1e6; share = adv / recs; heavy = share >= 0.5
            td = (t > t0) ? (n - small) / (t - t0) / 1e6 : 0; jd = (j > j0) ? (n - small) / (j - j0) / 1e6 : 0
            flags = ""
            if (tm < 2 || jm < 2) flags = flags " <2M"
            if (heavy && (tm < 4 || jm < 4)) flags = flags " <4M(adv)"
            if (heavy && (td < 4 || jd < 4)) flags = flags " <4M(adv,dM)"
            if (j > t * 1.2) flags = flags sprintf(" json+%.0f%%", (j / t - 1) * 100)
            if (rss / 1024 > 50) flags = flags " RSS>50MB"
            flags = flags notes
            tk = "-"; tr = "-"; bk = "-"; br = "-"
            tl = index(notes, "tshark:cpu_limit") ? "<" : ""; bl = index(notes, "btmon:cpu_limit") ? "<" : ""
            if (uts) { tk = sprintf("%s%.1f", tl, n / ts / 1e3); tr = sprintf("%s%.0fx", tl ? ">" : "", ts / t) }
            if (ubt) { bk = sprintf("%s%.1f", bl, n / bt / 1e3); br = sprintf("%s%.0fx", bl ? ">" : "", bt / t) }
            bm = "-"; bx = "-"
            if (ubase) { bm = sprintf("%.2f", n / bc / 1e6); bx = sprintf("%.2f", bc / t) }
            printf "%-62s %7d %4.0f%% %7.2f %7.2f %7.2f %7.2f %6.2f %7.2f %7.1f %9s %7s %9s %7s %7s %6s  %s\n", name, n, share * 100, tm, jm, td, jd, j / t, m2, rss / 1024, tk, tr, bk, br, bm, bx, (flags == "" ? "ok" : substr(flags, 2))
        }'
    done
    echo
    echo "skipped (not replayable by Scripts/make-large-capture.py):"
    local s
    for s in "${skipped[@]}"; do echo "  $s"; done
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

addresses() {
    local advertisers=200 n rotate out
    echo "per advertiser address: one scan from $advertisers advertisers whose private addresses rotate,"
    echo "  a report every 10 ms (Scripts/make-address-capture.py); peak RSS of analyze"
    echo
    printf '%10s %8s %12s %16s %9s %8s\n' frames rotate addresses 'in 15 minutes' RSS_MB CPU_s
    # (frames, reports between address changes): the same rate of new addresses over 2 M and
    # 6 M frames, and a rate five times higher.
    for run in 2000000:20000 2000000:2000 6000000:2000 2000000:400; do
        n=${run%%:*} rotate=${run##*:}
        out=/tmp/hciscope-addresses-$n-$rotate.btsnoop
        [ -f "$out" ] || python3 Scripts/make-address-capture.py --frames "$n" --advertisers "$advertisers" --rotate "$rotate" --out "$out"
        local addresses=$(( advertisers * ((n - 4 + rotate - 1) / rotate) ))
        [ "$addresses" -gt $((n - 4)) ] && addresses=$((n - 4))
        # 15 minutes are 90,000 reports: the addresses of that many reports' epochs (and one more).
        local window=$(( advertisers * (90000 / rotate + 1) ))
        [ "$window" -gt "$addresses" ] && window=$addresses
        read -r c k _ < <(cpu_run "$BIN" analyze --no-color --format text "$out")
        printf '%10s %8s %12s %16s %9.1f %8s\n' "$n" "$rotate" "$addresses" "$window" "$(awk -v k="$k" 'BEGIN { print k / 1024 }')" "$c"
    done
}

fleet() {
    local files=${FLEET_FILES:-1000} sizes=${FLEET_SIZES:-20000,50000,100000,200000,400000} repeat=${FLEET_REPEAT:-1}
    local dir=/tmp/hciscope-fleet-$files-${sizes//,/-}
    local corpus=${HCISCOPE_CORPUS:-$(bash Scripts/fetch-corpus.sh --print-dir)}
    python3 -c 'import pyspark' 2>/dev/null && command -v java >/dev/null \
        || { echo "bench: --fleet needs Java and PySpark (bash Scripts/setup.sh --test)" >&2; exit 2; }
    local submit
    submit=$(command -v spark-submit || echo "$(python3 -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')/bin/spark-submit")
    HCISCOPE_CORPUS=$corpus python3 Scripts/make-fleet.py --files "$files" --sizes "$sizes" --out "$dir"
    local rows=/tmp/hciscope-fleet-rows.jsonl
    "$BIN" analyze "$dir" --format jsonl -o "$rows" 2>/dev/null || true
    local frames bytes
    frames=$(python3 -c 'import json, sys; print(sum(json.loads(l)["frames"] or 0 for l in open(sys.argv[1])))' "$rows")
    bytes=$(du -L -b -s "$dir.pool" | cut -f1)
    echo "fleet:   $files files ($(wc -l <"$rows") rows), $frames frames; sizes $sizes frames; half bug report zips"
    echo "spark:   $("$submit" --version 2>&1 | grep -m1 -o 'version [0-9.]*'), $(java -version 2>&1 | head -1), local[2]"
    echo "load:    $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    printf '%-44s %8s %8s %10s %12s %s\n' run wall_s cpu_s files/s frames/s note
    # run LABEL CMD...: wall and CPU (user+sys, children included) of CMD, best of $repeat.
    local best_wall best_cpu best_spark_cpu
    run() {
        local label=$1; shift
        best_wall=999999 best_cpu=0
        local r log wall cpu
        for r in $(seq "$repeat"); do
            log=$(mktemp)
            local status=0
            "$TIME" -v "$@" >"$log.out" 2>"$log" || status=$?
            grep -h "^hciscope_fleet: CPU seconds" "$log.out" "$log" > "$log.cpu" || true
            # analyze exits 1 when a capture has findings at --fail-on: not a failure here.
            [ "$status" -le 1 ] || { echo "bench: $label exited $status:"; grep -v '^\s' "$log" | tail -20; }
            wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
            cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$log")
            if awk -v a="$wall" -v b="$best_wall" 'BEGIN { exit !(a < b) }'; then
                best_wall=$wall best_cpu=$cpu
                # The Spark job's own account of its CPU time (hciscope, Python workers, JVM).
                best_spark_cpu=$(sed -e 's/.*CPU seconds: //' "$log.cpu")
            fi
            rm -f "$log" "$log.out" "$log.cpu"
        done
        awk -v l="$label" -v w="$best_wall" -v c="$best_cpu" -v f="$files" -v n="$frames" -v note="${NOTE:-}" \
            'BEGIN { printf "%-44s %8.2f %8.2f %10.1f %12.0f %s\n", l, w, c, f / w, n / w, note }'
        [ -z "$best_spark_cpu" ] || echo "    CPU seconds: $best_spark_cpu; load now $(cut -d' ' -f1 /proc/loadavg)"
    }
    local out=/tmp/hciscope-fleet-spark-out
    local spark=(env SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON=python3 "$submit" --master 'local[2]'
        --driver-java-options "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC" --conf spark.ui.enabled=false
        --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 --conf spark.log.level=WARN
        integrations/spark/hciscope_fleet.py --hciscope "$BIN" --output "$out" --overwrite "$dir")
    # The Spark path's fixed cost: the same job over one small file.
    local tiny=/tmp/hciscope-fleet-tiny
    rm -rf "$tiny"; mkdir -p "$tiny"; cp captures/btvirt-le-pairing.btsnoop "$tiny/"
    local tinyspark=("${spark[@]}")
    tinyspark[${#tinyspark[@]}-1]=$tiny
    # Spark and analyze DIR one after the other (the machine's load moves), best of $repeat each.
    local two=999999 sparkwall=999999 r
    for r in $(seq "$repeat"); do
        repeat=1 run "analyze DIR --format jsonl (2 cores)" "$BIN" analyze "$dir" --format jsonl -o /dev/null
        echo "    load now $(cut -d' ' -f1 /proc/loadavg)"
        two=$(awk -v a="$best_wall" -v b="$two" 'BEGIN { print (a < b) ? a : b }')
        NOTE="(cpu_s: the JVM and driver only)" repeat=1 run "spark-submit hciscope_fleet.py (local[2])" "${spark[@]}"
        sparkwall=$(awk -v a="$best_wall" -v b="$sparkwall" 'BEGIN { print (a < b) ? a : b }')
    done
    NOTE="(cpu_s: the JVM and driver only)" run "spark-submit hciscope_fleet.py, 1 file" "${tinyspark[@]}"
    local fixed=$best_wall
    run "analyze DIR --format jsonl (1 core)" taskset -c 0 "$BIN" analyze "$dir" --format jsonl --threads 1 -o /dev/null
    local one=$best_wall
    echo
    awk -v one="$one" -v two="$two" -v s="$sparkwall" -v fixed="$fixed" -v f="$files" 'BEGIN {
        printf "analyze DIR, two cores against one: %.2fx (target >= 1.8x)\n", one / two
        printf "Spark local[2] against analyze DIR on two cores: %.2fx the wall time (target <= 1.5x)\n", s / two
        printf "Spark overhead: %.1f s in all, of which %.1f s fixed (a one-file run: JVM, session, listing, writing) and %.1f s over %d files (%.1f ms a file)\n",
            s - two, fixed, s - two - fixed, f, (s - two - fixed) * 1000 / f
    }'
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# icount BIN FILE FORMAT: instructions `analyze` executes (callgrind; the binary is copied without
# its DWARF 5 debug sections, which valgrind 3.19 cannot read).
icount() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" analyze --no-color --format "$3" "$2" 2>&1 >/dev/null |
        awk '/Collected :/ { print $4 } /I +refs:/ { gsub(",", "", $4); print $4 }' | tail -1
}

instructions() {
    command -v valgrind >/dev/null || { echo "bench: --instructions needs valgrind (apt install valgrind)" >&2; exit 2; }
    local n=${INSTR_FRAMES:-30000} small=1000 tmp
    local corpus=${HCISCOPE_CORPUS:-$(bash Scripts/fetch-corpus.sh --print-dir)}/real
    tmp=$(mktemp -d)
    strip --strip-debug -o "$tmp/new" "$BIN"
    local base=""
    if [ -n "${BASE_BIN:-}" ]; then strip --strip-debug -o "$tmp/base" "$BASE_BIN"; base="$tmp/base"; fi
    echo "instructions per frame past start-up: (I(N) - I($small)) / (N - $small), N = $n, counted by valgrind callgrind"
    [ -z "$base" ] || echo "  base: $("$BASE_BIN" --version 2>/dev/null); x_base = base's instructions per frame / this build's (text)"
    printf '%-62s %5s %9s %9s %9s %9s %7s\n' capture adv% startup_M text_ipf json_ipf base_ipf x_base
    local f name check recs adv out one
    for f in "$corpus"/*; do
        [ -f "$f" ] || continue
        name=$(basename "$f")
        case $name in *.tsv|*.md|*.txt|*.json) continue ;; esac
        check=$(python3 Scripts/make-large-capture.py --check "$f")
        [ "${check%% *}" = ok ] || continue
        read -r _ recs adv <<<"$check"
        out=/tmp/hciscope-replay-$name-$n.btsnoop
        one=/tmp/hciscope-replay-$name-$small.btsnoop
        for x in "$n:$out" "$small:$one"; do
            if [ ! -f "${x#*:}" ] || [ Scripts/make-large-capture.py -nt "${x#*:}" ] || [ "$f" -nt "${x#*:}" ]; then
                python3 Scripts/make-large-capture.py --capture "$f" --frames "${x%%:*}" --out "${x#*:}" 2>/dev/null
            fi
        done
        local t1 t0 j1 j0 b1=0 b0=0
        t1=$(icount "$tmp/new" "$out" text); t0=$(icount "$tmp/new" "$one" text)
        j1=$(icount "$tmp/new" "$out" json); j0=$(icount "$tmp/new" "$one" json)
        if [ -n "$base" ]; then b1=$(icount "$base" "$out" text); b0=$(icount "$base" "$one" text); fi
        awk -v name="$name" -v n="$n" -v s="$small" -v recs="$recs" -v adv="$adv" -v t1="$t1" -v t0="$t0" -v j1="$j1" -v j0="$j0" \
            -v b1="$b1" -v b0="$b0" -v ub="${base:+1}" 'BEGIN {
            d = n - s; t = (t1 - t0) / d; j = (j1 - j0) / d
            bs = "-"; bx = "-"
            if (ub) { b = (b1 - b0) / d; bs = sprintf("%.0f", b); bx = sprintf("%.2f", b / t) }
            printf "%-62s %4.0f%% %9.1f %9.0f %9.0f %9s %7s\n", name, adv / recs * 100, t0 / 1e6, t, j, bs, bx }'
    done
    rm -rf "$tmp"
}

if [ "$INSTRUCTIONS" = 1 ]; then instructions; exit 0; fi
if [ "$FLEET" = 1 ]; then fleet; exit 0; fi
if [ "$PER_CAPTURE" = 1 ]; then per_capture; exit 0; fi
if [ "$ADDRESSES" = 1 ]; then addresses; exit 0; fi

for n in $FRAMES; do
    file=/tmp/hciscope-$((n / 1000000))m.btsnoop
    [ "$n" -lt 1000000 ] && file=/tmp/hciscope-${n}.btsnoop
    [ -f "$file" ] || python3 Scripts/make-large-capture.py --frames "$n" --out "$file"
    echo
    echo "== $n frames ($(du -m "$file" | cut -f1) MB): $file"
    WALL=(); RSS=(); USER=()
    measure "hciscope analyze" "$n" "$BIN" analyze --no-color "$file"
    measure "hciscope analyze --format json" "$n" "$BIN" analyze --format json "$file"
    measure "hciscope analyze --threads 2" "$n" "$BIN" analyze --no-color --threads 2 "$file"
    measure "hciscope show" "$n" "$BIN" show "$file"
    measure "hciscope show --json" "$n" "$BIN" show --json "$file"
    if [ "$n" -le "$ANCHORS_MAX" ]; then
        if command -v tshark >/dev/null; then
            measure "tshark -q -z io,phs" "$n" tshark -r "$file" -q -z io,phs
            measure "tshark -T ek" "$n" tshark -r "$file" -T ek
        fi
        if command -v btmon >/dev/null; then
            # Debian's btmon 5.66 stops part-way on these files (output cut mid-line, exit 0):
            # count the frames it really decoded and rate it on those.
            done_frames=$(btmon -r "$file" 2>/dev/null | grep -o '#[0-9]* ' | tail -1 | tr -dc '0-9' || true)
            done_frames=${done_frames:-0}
            measure "btmon -r" "${done_frames:-$n}" btmon -r "$file"
            if [ "$done_frames" -lt "$n" ]; then
                echo "  (btmon $(btmon --version 2>/dev/null) stopped after frame $done_frames of $n: its row rates only those;" \
                     "the ratio below compares per-frame speed)"
                BTMON_FPS=$(awk -v f="$done_frames" -v w="${WALL[btmon -r]}" 'BEGIN { if (w > 0) print f / w; else print 0 }')
                WALL[btmon -r]=$(awk -v n="$n" -v fps="$BTMON_FPS" 'BEGIN { if (fps > 0) print n / fps; else print 0 }')
            fi
        fi
        if [ -n "$BTMON587" ]; then
            measure "btmon 5.87 -r" "$n" "$BTMON587" -r "$file"
            PATH="$SHIM:$PATH" measure "btmon 5.87 --analyze" "$n" "$BTMON587" --analyze "$file"
        fi
        echo "  ratios:"
        ratio "tshark -q -z io,phs" "hciscope analyze"
        ratio "btmon 5.87 --analyze" "hciscope analyze"
        ratio "tshark -T ek" "hciscope show --json"
        ratio "btmon -r" "hciscope show"
        ratio "btmon 5.87 -r" "hciscope show"
    fi
    # Per core: frames per CPU-second (user time) of the analysis, against the 4 M the issue aims at.
    awk -v n="$n" -v u="${USER[hciscope analyze]}" 'BEGIN { if (u > 0) printf "  %-28s %12.0f frames per CPU-second (user time; aim 4,000,000)\n", "hciscope analyze", n / u }'
    if [ "$FILES_JOBS" -gt 0 ]; then
        copies=()
        for i in $(seq "$FILES_JOBS"); do copies+=("$file"); done
        measure "analyze x$FILES_JOBS files" $((n * FILES_JOBS)) "$BIN" analyze --no-color "${copies[@]}"
    fi
done
