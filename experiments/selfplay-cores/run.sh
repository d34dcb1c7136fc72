#!/usr/bin/env bash
# Self-play throughput by process/thread layout on this machine: one process with torch on every
# core, one process per core with one torch thread each, one process on one thread; alone and with
# one core taken by a busy process (as when anything else runs). Medians of ROUNDS runs.
#
#   experiments/selfplay-cores/run.sh [MODEL]      # default: the supervised 9x9 network (the README's figures)
#
# Each run plays GAMES (default 32) games of 9x9 at 400 readouts with Playout Cap Randomization,
# 16 games in flight per process, and reports `engine selfplay --json`'s games/hour. Run it on a
# quiet machine: pause anything else (kill -STOP) meanwhile.
set -euo pipefail

HERE=$(cd "$(dirname "$0")/../.." && pwd)
MODEL=${1:-$HERE/engine/nn/networks/go-gnugo9-b4c48-pooled.safetensors}
GAMES=${GAMES:-32}
ROUNDS=${ROUNDS:-3}
CORES=$(nproc)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"; [ -z "${BUSY:-}" ] || kill "$BUSY" 2>/dev/null || true' EXIT

games_per_hour() {  # $1: workers, $2: threads per process
    engine selfplay "$MODEL" --size 9 --games "$GAMES" --visits 400 --workers "$1" --threads "$2" \
        --seed "$RANDOM" --output-dir "$SCRATCH/games-$RANDOM" --json 2>/dev/null \
        | python3 -c "import json, sys; print(round(json.load(sys.stdin)['games_per_hour']))"
}

median() { python3 -c "import statistics, sys; print(round(statistics.median(map(float, sys.argv[1:]))))" "$@"; }

measure() {  # $1: label
    for layout in "1 $CORES" "$CORES 1" "1 1"; do
        # shellcheck disable=SC2086  # the layout is two words
        runs=$(for _ in $(seq "$ROUNDS"); do games_per_hour $layout; done | tr '\n' ' ')
        read -r workers threads <<<"$layout"
        # shellcheck disable=SC2086
        echo "$1: $workers process(es) x $threads thread(s): median $(median $runs) games/hour (runs: $runs)"
    done
}

measure "alone"
python3 -c "while True: pass" &
BUSY=$!
measure "one core busy"
