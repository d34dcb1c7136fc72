#!/usr/bin/env bash
# The bundled Go network's run: the self-play pipeline the strength experiment chose, on 9x9 (komi 7,
# Chinese rules), every RATING_EVERY-th generation rated against GNU Go 3.8 level 10 (the curve), then the
# shipping matches for the best network (ship_matches.sh: 800 visits, 200 games against GNU Go level 10
# and against Pachi at equal time a move).
#
#   experiments/go9-selfplay/run.sh [WORK] run       # run (or resume) the loop in WORK/loop
#   experiments/go9-selfplay/run.sh [WORK] matches   # the shipping matches of the best network, in WORK/matches/MODEL
#   experiments/go9-selfplay/run.sh [WORK] save      # keep the run (resumable), its curve and matches in RESULTS
#   experiments/go9-selfplay/run.sh [WORK] restore   # put a saved run back into WORK (on a new machine)
#
# Default WORK runs/go9. Everything resumes after any stop: run the same command again. On a GPU when
# torch sees one (the loop's --device default).
#
# Settings from the environment:
#   SIZE, KOMI    the board and its komi (default 9 and 7; experiments/go13-selfplay runs 13x13 through here)
#   START         the network generation 0 copies (default the supervised 9x9 b4c48 network)
#   FROM          an experiment arm's run directory to go on from (e.g. runs/strength/aux), copied into
#                 WORK/loop when that has no run yet: the arm is this pipeline's first CPU_HOURS of the
#                 strength experiment, with the same settings and seed (default: none, start afresh)
#   METHOD_FLAGS  the self-play method (default: the experiment's choice, forced playouts and policy target
#                 pruning with the ownership and score targets, 200 games of PUCT 400 visits a generation)
#   LR_DROPS      the learning rate's step schedule, GENERATION:LR words (default "34:0.005": from 0.02 to
#                 0.005 once the curve had been flat for ten generations, 21-30, at 72-86% of 40 games)
#   GROW          the network's growth, GENERATION:BLOCKSxFILTERS words (default "58:6x64": the b4c48 network
#                 was flat from generation 24 to 57, at 83-88% against GNU Go level 10 over 200 games at 800
#                 visits, with a policy loss that no longer fell; `engine grow` keeps what it learnt)
#   LOOP_FLAGS    any other `engine loop` options, passed through
#   CPU_HOURS     the loop's budget in CPU hours, counted over the whole run (default 24)
#   WORKERS       self-play processes (default 2: one a core on this machine)
#   RATING_GAMES, RATING_EVERY, RATING_VISITS   the curve: games against GNU Go level 10, every N-th
#                 generation, visits a move (default 40, 3, 400)
#   RESULTS       where `save` keeps things (default experiments/go9-selfplay/results)
set -euo pipefail

WORK=${1:-runs/go9}
ACTION=${2:-run}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
SIZE=${SIZE:-9}
KOMI=${KOMI:-7}
START=${START:-$HERE/engine/nn/networks/go-gnugo9-b4c48-pooled.safetensors}
FROM=${FROM:-}
METHOD_FLAGS=${METHOD_FLAGS:-"--games 200 --forced-playouts 2"}
LR_DROPS=${LR_DROPS-"34:0.005"}    # set and empty: no drop
GROW=${GROW-"58:6x64"}            # set and empty: no growth
LOOP_FLAGS=${LOOP_FLAGS:-}
CPU_HOURS=${CPU_HOURS:-24}
WORKERS=${WORKERS:-2}
RATING_GAMES=${RATING_GAMES:-40}
RATING_EVERY=${RATING_EVERY:-3}
RATING_VISITS=${RATING_VISITS:-400}
RESULTS=${RESULTS:-$HERE/experiments/go9-selfplay/results}
# shellcheck source=experiments/keep.sh
. "$HERE/experiments/keep.sh"
GNUGO="gnugo --mode gtp --level 10 --chinese-rules --positional-superko"   # superko, as our rules
export PATH="$PATH:/usr/games"
mkdir -p "$WORK"

case "$ACTION" in
    run)
        if [ -n "$FROM" ] && [ ! -f "$WORK/loop/state.json" ]; then
            mkdir -p "$WORK/loop"
            cp -r "$FROM/." "$WORK/loop/"
            rm -f "$WORK/loop/.lock"
        fi
        schedule=()
        for drop in $LR_DROPS; do schedule+=(--lr-drop "$drop"); done
        for step in $GROW; do schedule+=(--grow "$step"); done
        # shellcheck disable=SC2086  # the flags are words
        nice -n 10 engine loop "$WORK/loop" --game go --size "$SIZE" --rules "chinese size=$SIZE komi=$KOMI" --start-model "$START" \
            --generations 100000 --cpu-hours "$CPU_HOURS" --threads 1 --workers "$WORKERS" --seed 13 --steps 150 \
            --rating-opponent "$GNUGO" --rating-games "$RATING_GAMES" --rating-every "$RATING_EVERY" \
            --match-visits "$RATING_VISITS" "${schedule[@]}" $METHOD_FLAGS $LOOP_FLAGS
        ;;
    matches)
        best=$(python "$HERE/experiments/loop_run.py" best "$WORK/loop")
        "$HERE/experiments/go9-selfplay/ship_matches.sh" "$best" "$WORK/matches/$(basename "$best" .safetensors)"
        ;;
    save)
        keep_loop "$WORK/loop" "$RESULTS"
        keep_folder "$WORK/matches" "$RESULTS/matches"
        keep_folder "$WORK/loop/matches" "$RESULTS/ratings-matches"   # the curve's games
        echo "saved in $RESULTS"
        ;;
    restore)
        [ -d "$RESULTS/loop" ] || { echo "nothing saved in $RESULTS"; exit 0; }
        python "$HERE/experiments/loop_run.py" restore "$RESULTS/loop" "$WORK/loop"
        restore_folder "$RESULTS/matches" "$WORK/matches"
        ;;
    *) echo "usage: $0 [WORK] [run|matches|save|restore]" >&2; exit 2 ;;
esac
