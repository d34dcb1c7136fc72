#!/usr/bin/env bash
# Gomoku learnt from a strong alpha-beta brain: Rapfi's classical evaluator plays itself (random two-stone
# openings), the bundled network is trained further on its moves and results, and the result plays Rapfi
# through the Piskvork protocol under Gomocup's fast-game limits.
#
#   RAPFI=path/to/pbrain-rapfi experiments/gomoku-rapfi/run.sh [WORK] games   # play (or go on playing) the games
#   experiments/gomoku-rapfi/run.sh [WORK] train                             # gather, train, validate
#   RAPFI=... experiments/gomoku-rapfi/run.sh [WORK] match                   # the trained network against Rapfi
#   experiments/gomoku-rapfi/run.sh [WORK] save                              # keep games, reports, matches
#   experiments/gomoku-rapfi/run.sh [WORK] restore                           # put the kept games back (a new machine)
#
# Rapfi is built by hand from github.com/dhbloo/rapfi (experiments/gomocup-rapfi-pilot/README.md says how it
# was built for this project); nothing of it is in this repository. Everything resumes: a batch of games,
# the gathered chunks, the training checkpoint and a match's finished games are kept.
# Settings from the environment (a smoke run: BATCHES=1 BATCH_GAMES=2 STEPS=5 MATCH_GAMES=2):
#   RULES          freestyle or renju (default freestyle; 15x15)
#   BATCHES        batches of games to train on (default 40), BATCH_GAMES games each (default 50), plus one
#                  held-out batch (its own seeds)
#   TURN, MATCH_S  Rapfi's limits in its own games (default 2 s a move, 15 s a game; a late move is played)
#   START          the network trained further (default: the bundled one for RULES)
#   STEPS, LR      training steps of 256 and the peak rate (default 2000, 0.005, cosine, 100 warm-up steps)
#   MATCH_GAMES    games of the match (default 100), at Gomocup's fast-game limits (5 s, 120 s, 350 MB)
set -euo pipefail

WORK=${1:-runs/gomoku-rapfi}
ACTION=${2:-games}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
RULES=${RULES:-freestyle}
BATCHES=${BATCHES:-40}
BATCH_GAMES=${BATCH_GAMES:-50}
TURN=${TURN:-2}
MATCH_S=${MATCH_S:-15}
STEPS=${STEPS:-2000}
LR=${LR:-0.005}
MATCH_GAMES=${MATCH_GAMES:-100}
NICE=${NICE:-10}
RESULTS=${RESULTS:-$HERE/experiments/gomoku-rapfi/results-$RULES}
START=${START:-$(python -c "import sys; from engine.nn.networks import bundled_model; print(bundled_model(sys.argv[1]))" "$RULES")}
PISKVORK="python $HERE/experiments/gomocup-rapfi-pilot/match.py"
# shellcheck source=experiments/keep.sh
. "$HERE/experiments/keep.sh"
DIR="$WORK/$RULES"
mkdir -p "$DIR"

play_batch() {  # $1: folder, $2: seed
    [ -f "$1.json" ] && return 0
    rm -rf "$1"
    mkdir -p "$(dirname "$1")"
    nice -n "$NICE" $PISKVORK "${RAPFI:?set RAPFI to the path of pbrain-rapfi}" "$RAPFI" --games "$BATCH_GAMES" \
        --rules "$RULES" --turn "$TURN" --match "$MATCH_S" --memory-mb 64 --seed "$2" --sgf-dir "$1" \
        --late-moves-play --json > "$1.json.part"
    mv "$1.json.part" "$1.json"
}

case "$ACTION" in
    games)
        play_batch "$DIR/holdout/batch-0000" 900
        for batch in $(seq 0 $((BATCHES - 1))); do
            play_batch "$DIR/train/batch-$(printf %04d "$batch")" $((1000 + batch))
        done
        ;;
    train)
        model="$DIR/model.safetensors"
        for part in train holdout; do
            nice -n "$NICE" engine gather --sgf "$DIR/$part" --output-directory "$DIR/chunks/$part" --model "$START" --size 15 \
                --skip-moves 2 --json > "$DIR/gather-$part.json"
        done
        [ -f "$model" ] || nice -n "$NICE" engine train "$DIR/chunks/train" "$model" --load-file "$START" \
            --steps "$STEPS" --lr "$LR" --warmup-steps 100 --schedule cosine --threads 1 --logdir "$DIR/tensorboard" \
            --json > "$DIR/train.json"
        for name in start model; do
            file=$START; [ "$name" = model ] && file=$model
            nice -n "$NICE" engine validate "$DIR/chunks/holdout" --load-file "$file" --json > "$DIR/validate-$name.json"
        done
        for name in start model; do echo "$name: $(cat "$DIR/validate-$name.json")"; done
        ;;
    match)
        folder="$DIR/match-rapfi"
        nice -n "$NICE" $PISKVORK "python -c 'from engine.cli import main; main()' gomocup --model $DIR/model.safetensors" \
            "${RAPFI:?set RAPFI to the path of pbrain-rapfi}" --games "$MATCH_GAMES" --rules "$RULES" --turn 5 --match 120 \
            --seed 37 --sgf-dir "$folder" --json > "$folder.json"
        cat "$folder.json"
        ;;
    save)
        mkdir -p "$RESULTS"
        for name in gather-train gather-holdout train validate-start validate-model match-rapfi; do
            if [ -f "$DIR/$name.json" ]; then cp "$DIR/$name.json" "$RESULTS/"; fi
        done
        if [ -f "$DIR/model.safetensors" ]; then cp "$DIR/model.safetensors" "$RESULTS/"; fi
        for part in train holdout match-rapfi; do keep_folder "$DIR/$part" "$RESULTS/$part"; done
        for archive in "$RESULTS"/{train,holdout}/batch-*-sgf.tar.xz; do   # a batch still playing is played again
            [ ! -f "$archive" ] || [ -f "${archive%-sgf.tar.xz}.json" ] || rm "$archive"
        done
        ;;
    restore)
        for part in train holdout; do restore_folder "$RESULTS/$part" "$DIR/$part"; done
        ;;
    *)
        echo "usage: $0 [WORK] games|train|match|save|restore" >&2
        exit 2
        ;;
esac
