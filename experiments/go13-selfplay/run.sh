#!/usr/bin/env bash
# Self-play on 13x13 from stage 9 of the 19x19 network learnt from 9-dan games (experiments/go19-supervised):
# does self-play still pay after them?
# The 9x9 run's pipeline (experiments/go9-selfplay/run.sh: forced playouts with policy target pruning, the
# ownership and score targets, PUCT 400 visits with playout cap randomisation), komi 7.5, a smaller learning
# rate (0.005: the start is a trained network, not a random one), no growth; every RATING_EVERY-th generation
# rated against GNU Go 3.8 level 10 at RATING_VISITS visits a move (default 100: at 800 the start already wins
# 90% on 13x13, which leaves a curve no room to rise).
#
#   experiments/go13-selfplay/run.sh [WORK] run|save|restore     (default WORK runs/go13)
#
# The settings of experiments/go9-selfplay/run.sh apply (CPU_HOURS, WORKERS, RATING_GAMES, ...); results are
# kept in experiments/go13-selfplay/results. experiments/go19-selfplay/run.sh runs 19x19 through here (SIZE=19).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/../.." && pwd)
[ "${2:-run}" = matches ] && { echo "matches: 9x9 only (ship_matches.sh); rate with go19-supervised/against-gnugo.sh" >&2; exit 2; }
export SIZE=${SIZE:-13} KOMI=7.5
if [ -z "${START:-}" ]; then   # stage 9 left the tree: git history keeps it, and the run reads it from there
    START="${1:-runs/go13}/000009-b6c64-pooled.safetensors"
    [ -f "$START" ] || { mkdir -p "$(dirname "$START")"
        git -C "$HERE" show 116b9d6:experiments/go19-supervised/000009-b6c64-pooled.safetensors > "$START.part"
        mv "$START.part" "$START"; }
fi
export START
export METHOD_FLAGS=${METHOD_FLAGS:-"--games 100 --forced-playouts 2"}
export LOOP_FLAGS=${LOOP_FLAGS:-"--lr 0.005"}
export LR_DROPS=${LR_DROPS-} GROW=${GROW-}
export RATING_VISITS=${RATING_VISITS:-100}
export CPU_HOURS=${CPU_HOURS:-12}
export RESULTS=${RESULTS:-$HERE/experiments/go13-selfplay/results}
exec "$HERE/experiments/go9-selfplay/run.sh" "${1:-runs/go13}" "${2:-run}"
