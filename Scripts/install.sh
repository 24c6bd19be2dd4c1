#!/usr/bin/env bash
# Installs hciscope like any command-line tool: the release binary, man pages generated from the
# command tree (swift-argument-parser's generate-manual) and bash/zsh/fish completions.
#
#   bash Scripts/install.sh                 # into /usr/local (sudo when not writable)
#   bash Scripts/install.sh ~/.local        # into a prefix of your own
#   DESTDIR=/tmp/pkg bash Scripts/install.sh /usr   # staged, for packaging
#   bash Scripts/install.sh --uninstall [PREFIX]    # removes what an install put there
#
# Installed:
#   PREFIX/bin/hciscope
#   PREFIX/share/man/man1/hciscope.1, hciscope.<subcommand>.1
#   PREFIX/share/bash-completion/completions/hciscope
#   PREFIX/share/zsh/site-functions/_hciscope
#   PREFIX/share/fish/vendor_completions.d/hciscope.fish
#
# HCISCOPE_BIN=PATH installs that binary instead of building one (the binary must be hciscope's;
# the tests use it to install what they already built). On Linux the binary is linked with the
# Swift runtime inside (--static-swift-stdlib), so it runs where Swift is not installed.
set -euo pipefail
cd "$(dirname "$0")/.."

uninstall=0
if [ "${1:-}" = "--uninstall" ]; then uninstall=1; shift; fi
prefix=${1:-/usr/local}
case $prefix in /*) ;; *) prefix=$(cd "$prefix" 2>/dev/null && pwd || { mkdir -p "$prefix" && cd "$prefix" && pwd; }) ;; esac
root=${DESTDIR:-}$prefix
bindir=$root/bin
mandir=$root/share/man/man1
bashdir=$root/share/bash-completion/completions
zshdir=$root/share/zsh/site-functions
fishdir=$root/share/fish/vendor_completions.d

# Where we may not write (e.g. /usr/local as a user), use sudo for the copies.
sudo=""
probe=$root
while [ ! -e "$probe" ]; do probe=$(dirname "$probe"); done
if [ ! -w "$probe" ] && [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "install: $root is not writable and sudo is missing; choose a PREFIX of your own" >&2; exit 2; }
    sudo=sudo
fi

if [ $uninstall = 1 ]; then
    $sudo rm -f "$bindir/hciscope" "$mandir"/hciscope.1 "$mandir"/hciscope.*.1 \
        "$bashdir/hciscope" "$zshdir/_hciscope" "$fishdir/hciscope.fish"
    echo "install: removed hciscope from $root"
    exit 0
fi

if [ -n "${HCISCOPE_BIN:-}" ]; then
    bin=$HCISCOPE_BIN
    [ -x "$bin" ] || { echo "install: HCISCOPE_BIN=$bin is not an executable" >&2; exit 2; }
else
    static=()
    [ "$(uname -s)" = Linux ] && static=(--static-swift-stdlib)
    echo "install: building the release binary" >&2
    swift build -c release "${static[@]}" --product hciscope >&2
    bin=.build/release/hciscope
fi
version=$("$bin" --version)
case $version in 0.*|[1-9]*) ;; *) echo "install: $bin --version said '$version': not hciscope?" >&2; exit 2 ;; esac

# The man pages: swift-argument-parser's generate-manual reads the command tree from the binary.
# Dated by the commit the binary was built from, so a rebuild gives the same pages.
manual=${HCISCOPE_GENERATE_MANUAL:-}
if [ -z "$manual" ]; then
    echo "install: building generate-manual (swift-argument-parser)" >&2
    swift build -c release --product generate-manual >&2
    manual=.build/release/generate-manual
fi
date=$(git log -1 --format=%cs 2>/dev/null || date +%Y-%m-%d)
pages=$(mktemp -d "${TMPDIR:-/tmp}/hciscope-man.XXXXXX")
trap 'rm -rf "$pages"' EXIT
"$manual" "$bin" --multi-page --date "$date" --section 1 --output-directory "$pages" >&2
ls "$pages"/hciscope.1 >/dev/null

$sudo install -d "$bindir" "$mandir" "$bashdir" "$zshdir" "$fishdir"
$sudo install -m 0755 "$bin" "$bindir/hciscope"
for page in "$pages"/*.1; do $sudo install -m 0644 "$page" "$mandir/"; done
completion() { "$bin" --generate-completion-script "$1" | $sudo tee "$2" >/dev/null; $sudo chmod 0644 "$2"; }
completion bash "$bashdir/hciscope"
completion zsh "$zshdir/_hciscope"
completion fish "$fishdir/hciscope.fish"

echo "install: hciscope $version"
echo "  $bindir/hciscope"
echo "  $mandir/hciscope.1 and $(($(ls "$pages" | wc -l) - 1)) subcommand pages (man hciscope, man hciscope.analyze)"
echo "  completions: $bashdir/hciscope, $zshdir/_hciscope, $fishdir/hciscope.fish"
case ":$PATH:" in *":$prefix/bin:"*) ;; *) echo "  note: $prefix/bin is not on your PATH" ;; esac
