#!/usr/bin/env bash
# Runs `show` and `analyze` of a hciscope binary on every hostile input of Scripts/make-hostile.py
# (and the ones made at run time: `yes`, a FIFO, process substitution, `x x` outputs, a low open-files
# limit) and prints one Markdown row per run: exit status, wall time, peak RSS, and the first line the
# binary wrote on standard error. Each run is killed after LIMIT_S seconds (default 60).
#
#   Scripts/hostile.sh [BINARY] [DIR]     default .build/release/hciscope, $TMPDIR/hciscope-hostile
#   CASES="zip-10k notes-10m" Scripts/hostile.sh …   only those cases of make-hostile.py (EXTRA=0: without
#                                                     the run-time ones: yes, FIFO, x x, ulimit)
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:-.build/release/hciscope}")
dir=${2:-${TMPDIR:-/tmp}/hciscope-hostile}
limit=${LIMIT_S:-60}
python3 Scripts/make-hostile.py "$dir" || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/hciscope-hostile-run.XXXXXX")
trap 'rm -rf "$work"' EXIT

# row NAME COMMAND...: runs COMMAND (a shell line) under /usr/bin/time and the time limit.
row() {
    local name=$1; shift
    local cmd=$*
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" timeout -s KILL "$limit" bash -c "$cmd" >/dev/null 2>"$work/err"
    local status=$?
    read -r wall user sys rss < <(tail -1 "$work/time") 2>/dev/null || { wall=?; rss=0; }
    case $rss in ''|*[!0-9]*) wall=?; user=0; sys=0; rss=0 ;; esac
    [ "$status" = 137 ] && status="killed at ${limit} s"
    local said
    said=$(grep -v '^Command exited\|^Command terminated' "$work/err" | head -1 | cut -c1-150 | tr -d '\000-\011\013-\037' | sed 's/|/\\|/g')
    printf '| %s | %s | %s | %s | %.1f | %.1f | %s |\n' "$name" "${cmd//$dir\//}" "$status" "$wall" "$(echo "$user + $sys" | bc -l)" \
        "$(echo "$rss / 1024" | bc -l)" "$said"
}

echo "| case | command | exit | wall s | CPU s | peak MB | first line on standard error |"
echo "|---|---|---|---|---|---|---|"
python3 Scripts/make-hostile.py --list | while IFS=$'\t' read -r name file _; do
    case $name in
        large|header-only) continue ;;
    esac
    if [ -n "${CASES:-}" ] && [[ " $CASES " != *" $name "* ]]; then continue; fi
    row "$name" "$bin show $dir/$file"
    row "$name" "$bin analyze $dir/$file"
done
[ "${EXTRA:-1}" = 0 ] && exit 0
row "yes" "yes | $bin show -"
row "yes" "yes | $bin analyze -"
mkfifo "$work/fifo.zip"
row "fifo" "cat $dir/zip-crc.zip > $work/fifo.zip & $bin show $work/fifo.zip"
row "fifo" "cat $dir/zip-crc.zip > $work/fifo.zip & $bin analyze $work/fifo.zip"
row "process substitution" "$bin show <(cat $PWD/Sources/ScopeTestSupport/Fixtures/containers/bugreport-full.zip)"
row "process substitution" "$bin analyze <(cat $PWD/Sources/ScopeTestSupport/Fixtures/containers/bugreport-full.zip)"
row "process substitution (tar.gz)" "$bin show <(cat $PWD/Sources/ScopeTestSupport/Fixtures/containers/sysdiagnose.tar.gz)"
for c in redact convert; do
    cp "$dir/large.btsnoop" "$work/x.btsnoop"
    before=$(sha256sum <"$work/x.btsnoop")
    row "$c x x" "$bin $c $work/x.btsnoop $work/x.btsnoop"
    [ "$(sha256sum <"$work/x.btsnoop")" = "$before" ] && echo "|  | (x unchanged) | | | | | |" || echo "|  | (x CHANGED: $(stat -c %s "$work/x.btsnoop") bytes) | | | | | |"
    ln -f "$work/x.btsnoop" "$work/hard.btsnoop"
    row "$c x hardlink" "$bin $c $work/x.btsnoop $work/hard.btsnoop"
    ln -sf "$work/x.btsnoop" "$work/sym.btsnoop"
    row "$c x symlink" "$bin $c $work/x.btsnoop $work/sym.btsnoop"
    rm -f "$work/hard.btsnoop" "$work/sym.btsnoop"
done
row "convert fails" "$bin convert $dir/header-only.btsnoop $work/out.btsnoop"
[ -e "$work/out.btsnoop" ] && echo "|  | (output left: $(stat -c %s "$work/out.btsnoop") bytes) | | | | | |" || echo "|  | (no output left) | | | | | |"
row "ulimit -n 1024 folder" "ulimit -n 1024; $bin analyze $dir/sysdiagnose-2000"
row "ulimit -n 1024 tar" "ulimit -n 1024; $bin analyze $dir/sysdiagnose-2000.tar"
