#!/usr/bin/env bash
# 15x15 Gomoku networks for freestyle and renju. The supervised start from gomokubench's games
# (supervised.sh), then `engine loop` self-play from it for each rules set, every generation rated
# against a fixed opponent (the curve), then the shipping matches and the table.
#
#   experiments/gomoku15/run.sh [WORK] run      # supervised start + self-play loop for each rules set
#   experiments/gomoku15/run.sh [WORK] rate     # the shipping matches of each rules set's network
#   experiments/gomoku15/run.sh [WORK] table    # Markdown table + WORK/gomoku.png (experiments/gomoku15/table.py)
#   experiments/gomoku15/run.sh [WORK] save     # keep what must last, resumable, in RESULTS
#   experiments/gomoku15/run.sh [WORK] restore  # put it back into WORK (on a new machine)
#
# Default WORK runs/gomoku. Everything resumes after any stop: run the same command again (the supervised
# steps keep what they wrote, the loop is resumable, a finished match's JSON is kept, one cut short goes
# on from its SGF folder). Runs on a GPU when torch sees one (the loop's --device default); on this shared CPU
# everything is niced (NICE, default 19) and one thing runs at a time.
#
# Settings from the environment:
#   RULESETS       rules sets, in order (default "freestyle renju")
#   RENJU_START    where renju's loop starts: "freestyle" (default), the freestyle loop's best network,
#                  which already plays five in a row (renju only forbids black some points: the loop
#                  teaches the rest, and no renju data need be made), or "supervised", a supervised start
#                  from gomokubench's renju games like freestyle's
#   METHOD_FLAGS   the self-play method (default: none, the loop's default, which is the strength
#                  experiment's choice: forced playouts and policy target pruning), e.g.
#                  "--gumbel 16 --visits 17 --full-search-pct 100" or "--forced-playouts 0" (plain PUCT)
#   LOOP_FLAGS     any other `engine loop` options, passed through (e.g. "--lr 0.01")
#   CPU_HOURS      loop budget per rules set (default 8), GENERATIONS (default 1000: the budget decides)
#   WORKERS        self-play processes (default 2: one a core on this machine)
#   SELFPLAY_GAMES self-play games a generation (default 400: 15x15 games are short, 25-30 moves, and
#                  self-play is the cheap part; 400 give about 2,700 policy targets)
#   STEPS          training steps of 256 a generation (default 150, as the 9x9 runs; the loop's own
#                  default, 1000, is for bigger generations)
#   RATING_OPPONENT, RATING_GAMES, RATING_EVERY   the curve's fixed opponent, games a rated generation
#                  and which are rated (default gomokubench:standard, 40, every 3rd: a rating costs about
#                  as much as a generation's self-play)
#   GAMES, VISITS, RANDOM_MOVES, SIZES   the shipping matches: 200 games, 800 visits, colours alternating,
#                  2 random opening moves, on 15x15 (SIZES="15 19" adds 19x19)
#   JOBS           match games played at once (default 1; 2 on this 2-core machine when nothing else runs)
#   OPPONENTS_freestyle, OPPONENTS_renju  the matches' opponents (defaults below)
#   MODEL_freestyle, MODEL_renju  the networks the matches rate (default: the bundled ones, the networks
#                  chosen from the loops; e.g. MODEL_freestyle=WORK/loop-freestyle/models/000012-...)
#   RESULTS        where `save` keeps things (default experiments/gomoku15/results): each supervised start's
#                  games (one .tar.xz), and its network and reports once trained; each loop as
#                  experiments/loop_run.py keeps it; the matches
# Supervised-start settings (GAMES_SUPERVISED, STEPS_SUPERVISED, BLOCKS, FILTERS, ...) go to
# supervised.sh through the environment (it reads GAMES, STEPS, ...: see there).
set -euo pipefail

WORK=${1:-runs/gomoku}
ACTION=${2:-run}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
RULESETS=${RULESETS:-"freestyle renju"}
RENJU_START=${RENJU_START:-freestyle}
METHOD_FLAGS=${METHOD_FLAGS:-}
LOOP_FLAGS=${LOOP_FLAGS:-}
CPU_HOURS=${CPU_HOURS:-8}
WORKERS=${WORKERS:-2}
SELFPLAY_GAMES=${SELFPLAY_GAMES:-400}
STEPS=${STEPS:-150}
GENERATIONS=${GENERATIONS:-1000}
RATING_OPPONENT=${RATING_OPPONENT:-gomokubench:standard}
RATING_GAMES=${RATING_GAMES:-40}
RATING_EVERY=${RATING_EVERY:-3}
GAMES=${GAMES:-200}
VISITS=${VISITS:-800}
RANDOM_MOVES=${RANDOM_MOVES:-2}
SIZES=${SIZES:-15}
JOBS=${JOBS:-1}
OPPONENTS_freestyle=${OPPONENTS_freestyle:-"gomokubench:hard mcts-rollouts:10000"}
OPPONENTS_renju=${OPPONENTS_renju:-"gomokubench:hard"}
RESULTS=${RESULTS:-$HERE/experiments/gomoku15/results}
NICE=${NICE:-19}
export NICE
run() { nice -n "$NICE" "$@"; }
# shellcheck source=experiments/keep.sh
. "$HERE/experiments/keep.sh"
mkdir -p "$WORK"

train_rules() {
    local rules=$1 start
    if [ "$rules" = renju ] && [ "$RENJU_START" = freestyle ]; then
        start=$(python "$HERE/experiments/loop_run.py" best "$WORK/loop-freestyle")
    else
        start="$WORK/supervised-$rules/model1.safetensors"
        [ -f "$start" ] || GAMES=${GAMES_SUPERVISED:-3000} STEPS=${STEPS_SUPERVISED:-8000} RULES=$rules \
            "$HERE/experiments/gomoku15/supervised.sh" "$WORK/supervised-$rules"
    fi
    # shellcheck disable=SC2086  # the flags are words
    run engine loop "$WORK/loop-$rules" --game gomoku --size 15 --rules "$rules" --start-model "$start" \
        --generations "$GENERATIONS" --cpu-hours "$CPU_HOURS" --threads 1 --workers "$WORKERS" --seed 17 \
        --games "$SELFPLAY_GAMES" --steps "$STEPS" --rating-games "$RATING_GAMES" \
        --rating-every "$RATING_EVERY" --rating-opponent "$RATING_OPPONENT" $METHOD_FLAGS $LOOP_FLAGS
}

copy_trained() {  # $1 -> $2: a supervised start's network and reports ($3: cp's flags, e.g. -n)
    mkdir -p "$2"
    for file in "$1"/model1.safetensors "$1"/*.json; do
        if [ -f "$file" ]; then cp ${3:-} "$file" "$2/"; fi
    done
}

match() {  # $1: rules, $2: model, $3: opponent, $4: board size, $5: seed
    local name="$1-${3//:/-}-$4" dir="$WORK/matches"
    mkdir -p "$dir"
    [ -f "$dir/$name.json" ] && return 0
    run engine match "engine gtp --game gomoku --rules $1 --size $4 --model $2 --visits $VISITS --threads 1" "$3" \
        --rules "$1" --size "$4" --games "$GAMES" --random-moves "$RANDOM_MOVES" --seed "$5" \
        --jobs "$JOBS" --sgf-dir "$dir/$name" --resume --json >"$dir/$name.json.part"
    [ "$1" != renju ] || run engine check-games "$dir/$name" --rules renju   # our black: no forbidden point
    mv "$dir/$name.json.part" "$dir/$name.json"
    cat "$dir/$name.json"
}

case "$ACTION" in
    run)
        for rules in $RULESETS; do train_rules "$rules"; done
        ;;
    rate)
        seed=1
        for rules in $RULESETS; do
            model_var="MODEL_$rules"
            model=${!model_var:-$(python -c "from engine.core.rules import Rules
from engine.nn.networks import bundled_model; print(bundled_model(Rules.gomoku(15, 5, '$rules')))")}
            opponents_var="OPPONENTS_$rules"
            for size in $SIZES; do
                for opponent in ${!opponents_var}; do
                    match "$rules" "$model" "$opponent" "$size" "$seed"
                    seed=$((seed + 1))
                done
            done
        done
        ;;
    table)
        python "$HERE/experiments/gomoku15/table.py" "$WORK" --png "$WORK/gomoku.png"
        ;;
    save)
        for rules in $RULESETS; do
            supervised="$WORK/supervised-$rules" kept="$RESULTS/supervised-$rules"
            if [ -d "$supervised/sgf" ]; then   # the games too: a few hundred kB that say what it learnt from
                mkdir -p "$kept"
                tar cJf "$kept/sgf.tar.xz.part" -C "$supervised" sgf
                mv "$kept/sgf.tar.xz.part" "$kept/sgf.tar.xz"
            fi
            [ -f "$supervised/model1.safetensors" ] && copy_trained "$supervised" "$kept"
            [ -f "$WORK/loop-$rules/state.json" ] && \
                python "$HERE/experiments/loop_run.py" save "$WORK/loop-$rules" "$RESULTS/loop-$rules"
        done
        keep_folder "$WORK/matches" "$RESULTS/matches"
        echo "saved in $RESULTS"
        ;;
    restore)
        for rules in $RULESETS; do
            kept="$RESULTS/supervised-$rules" supervised="$WORK/supervised-$rules"
            if [ -d "$kept" ]; then
                mkdir -p "$supervised"
                [ -f "$kept/sgf.tar.xz" ] && tar xf "$kept/sgf.tar.xz" -C "$supervised" --skip-old-files
                copy_trained "$kept" "$supervised" -n
            fi
            [ -d "$RESULTS/loop-$rules" ] && \
                python "$HERE/experiments/loop_run.py" restore "$RESULTS/loop-$rules" "$WORK/loop-$rules"
        done
        restore_folder "$RESULTS/matches" "$WORK/matches"
        ;;
    *) echo "usage: $0 [WORK] [run|rate|table|save|restore]" >&2; exit 2 ;;
esac
