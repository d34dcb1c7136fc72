#!/usr/bin/env bash
# Supervised start for 15x15 Gomoku: games of gomokubench's alpha-beta player against itself
# (random 2-move openings, each side's level drawn game by game), gathered as SGF, and a size-independent
# network (pooled heads) trained on them; then its held-out accuracy and a short match against gomokubench.
#
#   RULES=freestyle experiments/gomoku15/supervised.sh [WORK]   # default WORK runs/gomoku/supervised-$RULES
#   RULES=renju     experiments/gomoku15/supervised.sh [WORK]   # renju games: black never plays a forbidden point
#
# Every step resumes after a kill: run the same command again (games already written, chunks already
# gathered, the training checkpoint and finished matches are kept). Settings from the environment; a smoke
# run is e.g. GAMES=8 HOLDOUT_GAMES=2 STEPS=20 EVAL_GAMES=2 EVAL_VISITS=16 EVAL_OPPONENTS=gomokubench:easy.
# Levels: `hard` (depth 3) takes 1-4 s a move here, ten times `standard`, so it is left out of the data by
# default (738 games/hour with easy,standard,standard against 63 with hard in the mix, one process).
# Everything runs under `nice -n $NICE` (default 19) on one thread, except the games: JOBS (default 1)
# worker processes play them (one a free core; the games are the same for any JOBS).
set -euo pipefail

RULES=${RULES:-freestyle}
WORK=${1:-runs/gomoku/supervised-$RULES}
GAMES=${GAMES:-3000}
HOLDOUT_GAMES=${HOLDOUT_GAMES:-150}
LEVELS=${LEVELS:-easy,standard,standard}
RANDOM_MOVES=${RANDOM_MOVES:-2}   # random opening moves a game: they vary the games but are not gomokubench's
STEPS=${STEPS:-8000}              # 8000 (about 15 passes over 3,000 games' 67k positions) beat 4000 on the holdout
WARMUP=${WARMUP:-200}             # without a warm-up, rate 0.02 saturated the value head's tanh at +1 in ten steps
BLOCKS=${BLOCKS:-4}
FILTERS=${FILTERS:-48}
BATCH=${BATCH:-128}
ENCODER=${ENCODER:-gomoku4}       # own stones, opponent's, last move, black to move (renju is not symmetric)
HEADS=${HEADS:-pooled}            # size-independent: one network for 15x15 and 19x19
EVAL_GAMES=${EVAL_GAMES:-40}
EVAL_VISITS=${EVAL_VISITS:-400}
EVAL_OPPONENTS=${EVAL_OPPONENTS:-"gomokubench:standard gomokubench:hard"}
JOBS=${JOBS:-1}
NICE=${NICE:-19}
run() { nice -n "$NICE" "$@"; }
mkdir -p "$WORK"

t0=$(date +%s)
run engine gomokubench-games "$WORK/sgf/train" --games "$GAMES" --rules "$RULES" --levels "$LEVELS" \
    --random-moves "$RANDOM_MOVES" --seed 1 --jobs "$JOBS"
run engine gomokubench-games "$WORK/sgf/holdout" --games "$HOLDOUT_GAMES" --rules "$RULES" --levels "$LEVELS" \
    --random-moves "$RANDOM_MOVES" --seed 2 --jobs "$JOBS"
t1=$(date +%s)

[ -f "$WORK/model0.safetensors" ] || run engine bootstrap "$WORK/model0.safetensors" --game gomoku --size 15 \
    --encoder "$ENCODER" --blocks "$BLOCKS" --filters "$FILTERS" --heads "$HEADS" --aux-heads none
for part in train holdout; do
    run engine gather --sgf "$WORK/sgf/$part" --output-directory "$WORK/chunks/$part" \
        --model "$WORK/model0.safetensors" --size 15 --skip-moves "$RANDOM_MOVES"
done
t2=$(date +%s)

[ -f "$WORK/model1.safetensors" ] || run engine train "$WORK/chunks/train" "$WORK/model1.safetensors" \
    --load-file "$WORK/model0.safetensors" --steps "$STEPS" --batch-size "$BATCH" --lr 0.02 --warmup-steps "$WARMUP" --schedule cosine \
    --threads 1 --logdir "$WORK/tensorboard"
t3=$(date +%s)

run engine validate "$WORK/chunks/holdout" --load-file "$WORK/model1.safetensors" --json \
    | tee "$WORK/validation.json"
for opponent in $EVAL_OPPONENTS; do
    name=${opponent//:/-}
    [ -f "$WORK/eval-$name.json" ] && continue
    run engine evaluate "$WORK/model1.safetensors" "$opponent" --rules "$RULES" --games "$EVAL_GAMES" \
        --visits "$EVAL_VISITS" --threads 1 --sgf-dir "$WORK/eval-$name" --json >"$WORK/eval-$name.json.part"
    [ "$RULES" != renju ] || run engine check-games "$WORK/eval-$name" --rules renju
    mv "$WORK/eval-$name.json.part" "$WORK/eval-$name.json"
    cat "$WORK/eval-$name.json"
done
t4=$(date +%s)
echo "games: $((t1 - t0)) s, gather: $((t2 - t1)) s, training: $((t3 - t2)) s, evaluation: $((t4 - t3)) s" >&2
