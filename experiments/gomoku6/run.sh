#!/usr/bin/env bash
# 6x6 four-in-a-row Gomoku from scratch with `engine loop`, then the seeds' yardstick: the best network
# at 400 visits against pure MCTS with 1,000 random rollouts per move, 100 games (target: >= 90% wins).
#
#   experiments/gomoku6/run.sh [RUN_DIR]          # default runs/gomoku6; run it again to resume after a kill
#
# Every setting can be overridden from the environment (the defaults are the full run; a smoke run is e.g.
# GENERATIONS=1 GAMES=16 STEPS=20 RATING_GAMES=2 FINAL_GAMES=2 READOUTS=64). Each generation is rated
# against the same opponent, so RUN_DIR/ratings.md and RUN_DIR/progress.png show the curve.
set -euo pipefail

RUN_DIR=${1:-runs/gomoku6}
GENERATIONS=${GENERATIONS:-10}
GAMES=${GAMES:-400}            # self-play games a generation
READOUTS=${READOUTS:-400}      # visits of a full search (25% of the moves; the rest get a sixth)
STEPS=${STEPS:-1000}           # training steps a generation, batches of 256
RATING_GAMES=${RATING_GAMES:-20}
FINAL_GAMES=${FINAL_GAMES:-100}
OPPONENT=${OPPONENT:-mcts-rollouts:1000}
RULES="freestyle size=6 k=4"

started=$(date +%s)
engine loop "$RUN_DIR" --game gomoku --size 6 --win-length 4 --blocks 2 --filters 32 \
    --generations "$GENERATIONS" --games "$GAMES" --visits "$READOUTS" --parallel-games 16 \
    --steps "$STEPS" --batch-size 256 --optimizer adam --lr 0.002 --kl-target 0.02 --window 4 \
    --rating-games "$RATING_GAMES" --rating-opponent "$OPPONENT" --match-visits 400 --seed 0
trained=$(date +%s)

best=$(python -c "import json, sys; print(json.load(open(sys.argv[1]))['best'])" "$RUN_DIR/state.json")
engine evaluate "$RUN_DIR/$best" "$OPPONENT" --rules "$RULES" --games "$FINAL_GAMES" --visits 400 \
    --sgf-dir "$RUN_DIR/final-match" --json | tee "$RUN_DIR/final-match.json"
finished=$(date +%s)
echo "training loop: $((trained - started)) s; final match: $((finished - trained)) s" >&2
cat "$RUN_DIR/ratings.md" >&2
