#!/usr/bin/env bash
# A stage's soup: the stage's network (run.sh STAGE) and two siblings trained from the same parent (stage
# STAGE-1) at the same rate, one on each half of the next stage's months, averaged with engine average.
# Networks trained on from one parent stay in one basin of the loss, and their mean lies nearer its floor.
# Every step resumes after a kill.
#
#   LR=0.005 experiments/go19-supervised/soup.sh STAGE [WORK] [STEPS]
#       (after run.sh STAGE; writes WORK/models/00000N-b6c64-pooled-soup.safetensors and validate-N-soup.json)
set -euo pipefail
STAGE=${1:?stage number}
WORK=${2:-runs/go19}
STEPS=${3:-4000}
LR=${LR:-0.005}
WARMUP=${WARMUP:-200}
NET=${NET:-b6c64}
HERE=$(cd "$(dirname "$0")" && pwd)
stem() { printf %06d "$1"; }
next=$((STAGE + 1))
GATHER=1 TRAIN=0 "$HERE/run.sh" "$next" "$WORK"      # the next stage's months, as run.sh NEXT gathers them
parent="$WORK/models/$(stem $((STAGE - 1)))-$NET-pooled.safetensors"
[ -f "$parent" ] || parent="$HERE/$(basename "$parent")"
members=("$WORK/models/$(stem "$STAGE")-$NET-pooled.safetensors")
letters=(b c)
for half in 0 1; do
    sibling="$STAGE${letters[$half]}"   # 20b, 20c
    chunks="$WORK/chunks-$sibling-half"
    mkdir -p "$chunks"
    i=0
    for file in "$WORK/chunks-$(printf %02d "$next")"/*.npz; do
        [ $((i % 2)) = "$half" ] && ln -sf "$file" "$chunks/"
        i=$((i + 1))
    done
    model="$WORK/models/$(stem "$STAGE")${letters[$half]}-$NET-pooled.safetensors"
    if [ ! -f "$model" ]; then
        engine train "$chunks" "$model" --load-file "$parent" --steps "$STEPS" --batch-size 256 --lr "$LR" \
            --warmup-steps "$WARMUP" --schedule cosine --checkpoint-every 50 --threads 1 \
            --seed $((100 * (half + 1) + STAGE)) --json > "$WORK/sibling-train-$sibling.json"
    fi
    [ -s "$WORK/validate-$sibling.json" ] || engine validate "$WORK/holdout" --load-file "$model" --batch-size 256 \
        --json > "$WORK/validate-$sibling.json"
    members+=("$model")
done
soup="$WORK/models/$(stem "$STAGE")-$NET-pooled-soup.safetensors"
engine average "${members[@]}" -o "$soup"
engine validate "$WORK/holdout" --load-file "$soup" --batch-size 256 --json > "$WORK/validate-$STAGE-soup.json"
cp "$soup" "$HERE/"
