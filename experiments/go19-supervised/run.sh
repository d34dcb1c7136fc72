#!/usr/bin/env bash
# One stage of the supervised 19x19 network: gather the stage's months of 9-dan games, then train the previous
# stage's network on them. Every step resumes after a kill (gather from its chunks, train from its checkpoint).
#
#   experiments/go19-supervised/run.sh STAGE [WORK] [STEPS]
#   START=engine/nn/networks/go-selfplay9-b6c64-pooled.safetensors ENCODER=elevenplane run.sh 4 WORK 1000
#       (stage 4 teaches the 9x9 self-play network the 19x19 moves; later stages of that line keep ENCODER)
#   NET=b10c64 run.sh 18 WORK 4000
#       (a bigger network: the previous stage's, grown with engine grow where it is smaller; later stages keep NET)
#
# DATA: the TYGEM folder of github.com/yenw/computer-go-dataset (kifu/YYYY-MM.zip and index/KifuYYYY.zip).
set -euo pipefail
STAGE=${1:?stage number, from 1}
WORK=${2:-runs/go19}
STEPS=${3:-700}
LR=${LR:-0.02}                  # stage 1 ran at 0.05 with 50 warm-up steps, and its value head died (README)
WARMUP=${WARMUP:-200}
FRESH_VALUE_HEAD=${FRESH_VALUE_HEAD:-0}   # 1: start the previous stage's value layers afresh (stage 2 did: stage 1's died)
GATHER=${GATHER:-1}                       # 0: train on the stage's chunks gathered so far (a later run completes them)
TRAIN=${TRAIN:-1}                         # 0: gather the stage's chunks and stop (soup.sh trains on them)
START=${START:-}                          # a model file to start from instead of the previous stage's network
ENCODER=${ENCODER:-fifteenplane}          # the input planes: the starting network's (elevenplane for the 9x9 one)
NET=${NET:-b6c64}                         # blocks x filters
DATA=${DATA:-../shared/data/tygem}
HERE=$(cd "$(dirname "$0")" && pwd)
HOLDOUT=2010-04                                   # a whole month never trained on
# The months each stage learns from, newest first; the held-out month is in none. Stages 12-17 take the
# fifteenplane line (stages 1-3, 10, 11) through the months the elevenplane line (stages 4-9) learnt from.
MONTHS=(2011-11 "2011-10 2011-09" "2011-06 2011-05" "2011-04 2011-03" "2011-02 2011-01" "2010-12 2010-11"
        "2010-10 2010-09" "2010-07 2010-06" "2010-05 2010-03" "2010-02 2010-01" 2011-12
        "2011-04 2011-03" "2011-02 2011-01" "2010-12 2010-11" "2010-10 2010-09" "2010-07 2010-06" "2010-05 2010-03"
        "2011-12 2011-11" "2011-10 2011-09" "2011-06 2011-05" "2010-02 2010-01" "2011-04 2011-03" "2011-02 2011-01")
# Stages 18-23 go over months again: each stage trains on about a quarter of the positions it gathers.
month_list=${MONTHS[$((STAGE - 1))]:?no months for stage $STAGE}
planes=""; [ "$ENCODER" != fifteenplane ] && planes="-$ENCODER"   # chunks of each input apart
chunks="$WORK/chunks-$(printf %02d "$STAGE")$planes"
holdout="$WORK/holdout$planes"
collections=()
for month in $month_list; do collections+=(--collection "$DATA/kifu/$month.zip"); done

[ "$GATHER" = 1 ] && engine gather "${collections[@]}" --index "$DATA/index" --holdout-months $HOLDOUT --encoder "$ENCODER" \
    --output-directory "$chunks" --seed "$STAGE"
[ "$TRAIN" = 1 ] || exit 0
if [ ! -d "$holdout" ]; then       # the held-out month's first 237 games (50,448 positions) measure every stage
    engine gather --collection "$DATA/kifu/$HOLDOUT.zip" --index "$DATA/index" --holdout-months $HOLDOUT \
        --encoder "$ENCODER" --output-directory "$holdout-all" --seed 0
    held=("$holdout-all/holdout/"*.npz)   # sorted; not ls | head, whose broken pipe fails under pipefail
    mkdir -p "$holdout" && cp "${held[@]:0:6}" "$holdout/"
fi

blocks=${NET#b}; blocks=${blocks%c*}; filters=${NET#*c}
model="$WORK/models/$(printf %06d "$STAGE")-$NET-pooled.safetensors"
previous="$WORK/models/$(printf %06d $((STAGE - 1)))-$NET-pooled.safetensors"
[ "$STAGE" -gt 1 ] && [ ! -f "$previous" ] && [ -f "$HERE/$(basename "$previous")" ] && previous="$HERE/$(basename "$previous")"
if [ "$STAGE" -gt 1 ] && [ ! -f "$previous" ]; then   # a bigger network begins: the previous stage's, grown
    stem=$(printf %06d $((STAGE - 1)))
    for smaller in "$WORK/models/$stem"-b*-pooled.safetensors "$HERE/$stem"-b*-pooled.safetensors; do
        [ -f "$smaller" ] && break
    done
    engine grow "$smaller" "$previous" --blocks "$blocks" --filters "$filters" --seed "$STAGE"
fi
start=(--blocks "$blocks" --filters "$filters" --heads pooled)
[ "$STAGE" -gt 1 ] && start=(--load-file "$previous")
[ -n "$START" ] && start=(--load-file "$START") && echo "$START" > "$WORK/start-$STAGE.txt"   # curve.py: a new line
[ "$FRESH_VALUE_HEAD" = 1 ] && start+=(--fresh-value-head)
# One thread: on two cores shared with other work, torch's two OpenMP threads wait on each other at every
# barrier and train several times slower than one.
engine train "$chunks" "$model" "${start[@]}" --steps "$STEPS" --batch-size 256 --lr "$LR" --warmup-steps "$WARMUP" \
    --schedule cosine --checkpoint-every 50 --threads 1 --seed "$STAGE" --logdir "$WORK/logs/$STAGE" --json \
    > "$WORK/train-$STAGE.json"
engine validate "$holdout" --load-file "$model" --batch-size 256 --json > "$WORK/validate-$STAGE.json"
python "$HERE/curve.py" "$WORK" "$HERE"
cp "$model" "$HERE/"
