#!/usr/bin/env bash
# Supervised learning from GNU Go: 9x9 games of GNU Go against itself, gathered as SGF, and a network
# trained on them whose top-1 accuracy on held-out GNU Go games is the result (target: >= 40%).
# Games that end by passing carry GNU Go's dead stones (TB/TW), so the network's ownership and score heads
# learn from them too; validation then reports the score error and ownership accuracy.
#
#   experiments/go9-supervised/run.sh [WORK_DIR]     # default runs/gnugo9; every step resumes after a kill
#
# Needs gnugo (apt-get install gnugo). Settings from the environment; a smoke run is e.g.
# GAMES=40 HOLDOUT_GAMES=8 STEPS=50. Held-out games use another seed, so their random openings differ.
set -euo pipefail

WORK=${1:-runs/gnugo9}
GAMES=${GAMES:-2000}
HOLDOUT_GAMES=${HOLDOUT_GAMES:-150}
LEVEL=${LEVEL:-1}
RANDOM_MOVES=${RANDOM_MOVES:-4}   # random opening moves a game: they vary the games but are not GNU Go's moves
STEPS=${STEPS:-4000}
BLOCKS=${BLOCKS:-4}
FILTERS=${FILTERS:-48}
BATCH=${BATCH:-128}
ENCODER=${ENCODER:-elevenplane}
HEADS=${HEADS:-pooled}        # size-independent heads: the result is the bundled network for every board size
AUX_HEADS=${AUX_HEADS:-ownership,score}
mkdir -p "$WORK"

t0=$(date +%s)
engine gnugo-games "$WORK/sgf/train" --games "$GAMES" --size 9 --level "$LEVEL" --jobs 2 --seed 1 \
    --random-moves "$RANDOM_MOVES"
engine gnugo-games "$WORK/sgf/holdout" --games "$HOLDOUT_GAMES" --size 9 --level "$LEVEL" --jobs 2 \
    --seed 2 --random-moves "$RANDOM_MOVES"
t1=$(date +%s)

[ -f "$WORK/model0.safetensors" ] || engine bootstrap "$WORK/model0.safetensors" --game go --size 9 \
    --encoder "$ENCODER" --blocks "$BLOCKS" --filters "$FILTERS" --heads "$HEADS" --aux-heads "$AUX_HEADS"
engine gather --sgf "$WORK/sgf/train" --output-directory "$WORK/chunks/train" --model "$WORK/model0.safetensors" \
    --size 9 --skip-moves "$RANDOM_MOVES"
engine gather --sgf "$WORK/sgf/holdout" --output-directory "$WORK/chunks/holdout" \
    --model "$WORK/model0.safetensors" --size 9 --skip-moves "$RANDOM_MOVES"
t2=$(date +%s)

[ -f "$WORK/model1.safetensors" ] || engine train "$WORK/chunks/train" "$WORK/model1.safetensors" \
    --load-file "$WORK/model0.safetensors" --steps "$STEPS" --batch-size "$BATCH" --lr 0.02 --schedule cosine \
    --logdir "$WORK/tensorboard"
t3=$(date +%s)

engine validate "$WORK/chunks/holdout" --load-file "$WORK/model1.safetensors" --json \
    | tee "$WORK/validation.json"
echo "games: $((t1 - t0)) s, gather: $((t2 - t1)) s, training: $((t3 - t2)) s" >&2
