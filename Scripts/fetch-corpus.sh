#!/usr/bin/env bash
# Fetches the third-party real captures pinned in captures/corpus.tsv (public GitHub repository,
# path, commit, sha256) and verifies each one. The tests find them through HCISCOPE_CORPUS.
#
#   bash Scripts/fetch-corpus.sh                 # into $HCISCOPE_CORPUS_DIR, default ~/.cache/hciscope/corpus
#   bash Scripts/fetch-corpus.sh --print-dir     # print the folder (for HCISCOPE_CORPUS=...) and exit
#   bash Scripts/fetch-corpus.sh --have DIR      # copy the captures DIR/real already holds (right sha256)
#                                                # and DIR/scenarios, fetch only the others
#   bash Scripts/fetch-corpus.sh --have DIR --no-download   # link only
#   HCISCOPE_CORPUS="$(bash Scripts/fetch-corpus.sh --print-dir)" swift test
#
# Layout: DIR/real/<file> for every row of captures/corpus.tsv. Files already present with the
# right sha256 are kept. A file whose download fails or whose sha256 differs is reported and not
# kept; the script then exits 1 (the others stay). Exit 0: every pinned capture is present.
#
# Source: each file is read from `<mirror>/<owner>/<repo>/<commit>/<path>`, the layout of GitHub's
# raw file host, which is the default mirror. HCISCOPE_CORPUS_MIRROR names another one: an
# http(s) URL or a local folder with the same layout (e.g. an internal cache).
set -uo pipefail
cd "$(dirname "$0")/.."
dir=${HCISCOPE_CORPUS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hciscope/corpus}
have_dir=""; download=1
while [ $# -gt 0 ]; do
    case $1 in
        --print-dir) echo "$dir"; exit 0 ;;
        --have) have_dir=$(cd "${2:?--have needs a folder}" 2>/dev/null && pwd) || { echo "fetch-corpus: --have: no folder $2" >&2; exit 2; }; shift 2 ;;
        --no-download) download=0; shift ;;
        *) echo "fetch-corpus: unknown argument $1" >&2; exit 2 ;;
    esac
done
mirror=${HCISCOPE_CORPUS_MIRROR:-https://raw.githubusercontent.com}
case $mirror in
    http://*|https://*|file://*) ;;
    *) mirror="file://$(cd "$mirror" 2>/dev/null && pwd)" || { echo "fetch-corpus: mirror folder not found: $HCISCOPE_CORPUS_MIRROR" >&2; exit 2; } ;;
esac
command -v curl >/dev/null || { echo "fetch-corpus: curl is required (apt-get install curl)" >&2; exit 2; }
mkdir -p "$dir/real"
if [ -n "$have_dir" ] && [ -d "$have_dir/scenarios" ] && [ ! -e "$dir/scenarios" ]; then ln -s "$have_dir/scenarios" "$dir/scenarios"; fi

# Percent-encodes a path for a URL, keeping '/'.
urlpath() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1" 2>/dev/null || printf '%s' "$1"; }

have=0; fetched=0; failed=0
while IFS=$'\t' read -r file repo path commit sha256 _; do
    case $file in ''|'#'*|file) continue ;; esac
    target=$dir/real/$file
    if [ -f "$target" ] && echo "$sha256  $target" | sha256sum -c --quiet - >/dev/null 2>&1; then
        have=$((have + 1)); continue
    fi
    # A copy the folder given with --have already holds (e.g. a CI machine's shared corpus): copied, not linked (tests read file sizes).
    if [ -n "$have_dir" ] && [ -f "$have_dir/real/$file" ] && echo "$sha256  $have_dir/real/$file" | sha256sum -c --quiet - >/dev/null 2>&1; then
        rm -f "$target"; cp "$have_dir/real/$file" "$target"; chmod a-w "$target"
        have=$((have + 1)); continue
    fi
    if [ $download = 0 ]; then failed=$((failed + 1)); continue; fi
    url="$mirror/$repo/$commit/$(urlpath "$path")"
    if ! curl -fsSL --connect-timeout 15 --max-time 300 --retry 2 -o "$target.part" "$url" 2>"$dir/.curl-error"; then
        echo "fetch-corpus: $file: download failed from $url: $(tail -n 1 "$dir/.curl-error")" >&2
        rm -f "$target.part"; failed=$((failed + 1))
        # The first failures of the default host usually mean no network: stop early, say so once.
        if [ $fetched = 0 ] && [ -z "${HCISCOPE_CORPUS_MIRROR:-}" ] && [ $failed -ge 2 ]; then
            echo "fetch-corpus: the mirror $mirror is not reachable; set HCISCOPE_CORPUS_MIRROR to another copy (the other rows are not tried)" >&2
            download=0
        fi
        continue
    fi
    if ! echo "$sha256  $target.part" | sha256sum -c --quiet - >/dev/null 2>&1; then
        echo "fetch-corpus: $file: sha256 differs from captures/corpus.tsv ($(sha256sum "$target.part" | cut -c1-16)…, pinned ${sha256:0:16}…): not kept" >&2
        rm -f "$target.part"; failed=$((failed + 1)); continue
    fi
    mv "$target.part" "$target"; chmod a-w "$target"
    fetched=$((fetched + 1))
done < captures/corpus.tsv
rm -f "$dir/.curl-error"
total=$(grep -vc '^#' captures/corpus.tsv); total=$((total - 1))
echo "fetch-corpus: $((have + fetched)) of $total pinned captures in $dir/real ($fetched fetched now, $failed failed)" >&2
[ $failed = 0 ] && [ $((have + fetched)) = "$total" ]
