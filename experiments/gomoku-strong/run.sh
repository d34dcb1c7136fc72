#!/usr/bin/env bash
# Freestyle Gomoku learnt from 21,927 games between strong engines (../shared/data/gomoku: Yixin17 against itself
# on 15x15, and a 2017 Piskvork tournament of YIXIN16, Yixin17 and four others on 20x20), then measured from
# fair openings (each Piskvork opening twice, colours swapped).
#
#   experiments/gomoku-strong/run.sh [WORK] gather     # the games into chunks, held-out games apart
#   experiments/gomoku-strong/run.sh [WORK] train      # the supervised network (resumes from its checkpoint)
#   experiments/gomoku-strong/run.sh [WORK] validate   # held-out top-1, policy loss and value error
#   experiments/gomoku-strong/run.sh [WORK] rate       # against the network it replaced, from the 15x15 openings
#   python experiments/gomoku-strong/curve.py WORK results/curve.png   # the training curve
#
# Every step resumes after a kill: run it again. Settings from the environment (a smoke run: STEPS=20
# RATE_GAMES=4 RATE_VISITS=16):
#   DATA         the data folder (default ../shared/data/gomoku beside the checkout)
#   BLOCKS, FILTERS, STEPS, BATCH, LR, WARMUP   the network and its schedule (default b6c64, 8000 steps of 256,
#                rate 0.02, cosine, 300 warm-up steps)
#   RATE_GAMES, RATE_VISITS, WITHIN   the rating match: games (default 300), visits a move (default 100), the
#                openings' largest offset from the centre (default 5: 635 openings on 15x15)
#   BASELINE     the network rated against (default: the self-play b4c48 that shipped before, from git history)
#   NICE         niceness of every step (default 10)
set -euo pipefail

WORK=${1:-runs/gomoku-strong}
ACTION=${2:-gather}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
DATA=${DATA:-$HERE/../shared/data/gomoku}
BLOCKS=${BLOCKS:-6}
FILTERS=${FILTERS:-64}
STEPS=${STEPS:-8000}
BATCH=${BATCH:-256}
LR=${LR:-0.02}
WARMUP=${WARMUP:-300}
RATE_GAMES=${RATE_GAMES:-300}
RATE_VISITS=${RATE_VISITS:-100}
WITHIN=${WITHIN:-5}
NICE=${NICE:-10}
YIXIN=$DATA/yixin17-selfplay-freestyle15.zip
PISKVORK=$DATA/piskvork-2017-freestyle20.zip
BASELINE=${BASELINE:-$WORK/selfplay15-b4c48.safetensors}
run() { nice -n "$NICE" "$@"; }
mkdir -p "$WORK"
if [ ! -f "$BASELINE" ]; then
    git -C "$HERE" show 7ed43a5:engine/nn/networks/gomoku-freestyle-selfplay15-b4c48-pooled.safetensors \
        > "$BASELINE.part"
    mv "$BASELINE.part" "$BASELINE"
fi

case "$ACTION" in
gather)
    [ -f "$WORK/model0.safetensors" ] || run engine bootstrap "$WORK/model0.safetensors" --game gomoku --size 15 \
        --encoder gomoku4 --blocks "$BLOCKS" --filters "$FILTERS" --heads pooled --aux-heads none
    # Held out: Yixin17's fifth folder (883 games on 15x15) and the tournament's games numbered (9) (630 on 20x20).
    # The opening's three stones give no samples; 20x20 games move onto 15x15 where every stone fits.
    run engine gather --collection "$YIXIN" --collection "$PISKVORK" --collection-rules freestyle --fit-board \
        --holdout-games "$(basename "$YIXIN")/5/*" --holdout-games "$(basename "$PISKVORK")/*(9).psq" \
        --model "$WORK/model0.safetensors" --size 15 --skip-moves 3 --workers 2 --output-directory "$WORK/chunks15" \
        --json | tee "$WORK/gather15.json"
    unzip -p "$PISKVORK" openings.txt > "$WORK/openings.txt"
    ;;
train)
    run engine train "$WORK/chunks15" "$WORK/model1.safetensors" --load-file "$WORK/model0.safetensors" \
        --steps "$STEPS" --batch-size "$BATCH" --lr "$LR" --warmup-steps "$WARMUP" --schedule cosine --threads 1 \
        --logdir "$WORK/tb" --json | tee "$WORK/train1.json"
    ;;
validate)
    for model in "$WORK/model1.safetensors" "$BASELINE"; do
        run engine validate "$WORK/chunks15/holdout" --load-file "$model" --json
    done | tee "$WORK/validate.jsonl"
    ;;
rate)
    run engine evaluate "$WORK/model1.safetensors" "$BASELINE" --size 15 --games "$RATE_GAMES" --visits "$RATE_VISITS" \
        --openings "$WORK/openings.txt" --openings-within "$WITHIN" --temperature-moves 0 --no-resign \
        --threads 1 --sgf-dir "$WORK/matches/vs-bundled" --json | tee "$WORK/vs-bundled.json"
    ;;
*)
    echo "unknown action $ACTION (gather, train, validate, rate)" >&2
    exit 2
    ;;
esac
