#!/usr/bin/env bash
# The self-play methods experiment: five arms of `engine loop` from the bundled 9x9 network, each
# with the same CPU budget, then every arm's last network rated in the same matches.
#
#   experiments/strength/run.sh [WORK]          # run (or resume) every arm, two at a time
#   experiments/strength/run.sh [WORK] rate     # rate every arm's last network (and the start)
#   experiments/strength/run.sh [WORK] save     # keep what is finished in experiments/strength/results
#   experiments/strength/run.sh [WORK] restore  # put it back into WORK (on a new machine)
#
# Arms (9x9, komi 7, Chinese rules; the loop's defaults otherwise: 16 games in flight, resignation
# at -0.9 with 10% of games playing on, SGD 0.02 cosine, a window of 4 generations):
#   puct      the plain pipeline: PUCT 400 visits, Playout Cap Randomization (25% full searches,
#             readouts/6 otherwise), policy and value losses only
#   aux       + the ownership and score losses (KataGo's auxiliary targets)
#   forced    + forced playouts (k=2) and policy target pruning
#   gumbel16  Gumbel root search, 16 considered moves, 16 simulations a move, every move a target
#   gumbel32  the same with 32 simulations
# Every arm trains 150 steps of 256 samples a generation (about 3.5 CPU-minutes: 1.4 s a step on
# one thread) after about 6 CPU-minutes of self-play, measured with `engine selfplay --threads 1` on
# this 2-core machine: PUCT ~1,800 games/CPU-hour (13.7 targets a game), Gumbel 16 ~8,000 (49),
# Gumbel 32 ~4,400 (43). So the methods differ in how many targets a CPU-hour buys, and each
# PUCT sample is drawn about 14 times over its four generations in the window, a Gumbel 16 one
# about 1.2 times.
#
# Budget: CPU_HOURS (default 2) of CPU time per arm, counted by the loop (self-play, gather,
# training), so arms that share the machine get equal compute; each arm runs on one thread.
# Everything resumes: run the same command again after any stop. Needs ~1 GB per arm.
#
# Rating (`rate`): each arm's last network, and the start network, at 400 visits against GNU Go 3.8
# level 10 (with --positional-superko, as our Chinese rules: by default GNU Go forbids simple ko only,
# and the match stops at the first illegal move; it did once, in game 39 of gumbel16's match, after the
# start's and puct's 200 games had met no superko and were played without the option) and against the
# start network, GAMES (default 100) games each, colours alternating,
# 2 random opening moves, RATE_JOBS (default 2) games at a time, GNU Go scoring (`engine match --referee`);
# results in WORK/ratings/*.json (a match cut short goes on from the games in its SGF folder).
#
# Across machines: a run may stop on one machine and go on on a fresh one without WORK. `save` copies what must last into the repository (RESULTS, default
# experiments/strength/results): each arm's run.json, state.json and best network (~1 MB), and for an arm
# still short of its budget the chunks of its training window (the generation in progress is dropped,
# with its CPU time: it is played again), and every rating match (its JSON, or its SGF so far).
# `restore` copies them back, so `run` resumes each arm at its next generation and `rate` plays only the
# games still missing. The arms' code is frozen: `run` notes the commit of the code it imports in
# WORK/code.txt and refuses to go on with another one; import the arms' code from a worktree of that
# commit: `git worktree add --detach ../arms-code $(cat experiments/strength/results/code.txt)`, then
# `PYTHONPATH=../arms-code experiments/strength/run.sh WORK run` (and `... rate`: the ratings too are
# played by that code, so that matches played at different times compare).
set -euo pipefail

WORK=${1:-runs/strength}
ACTION=${2:-run}
CPU_HOURS=${CPU_HOURS:-2}
GAMES=${GAMES:-100}
VISITS=${VISITS:-400}
RATE_JOBS=${RATE_JOBS:-2}   # games at a time in each rating match (1 while arms still train beside it)
ARMS=${ARMS:-"puct gumbel16 aux forced gumbel32"}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
RESULTS=${RESULTS:-$HERE/experiments/strength/results}
# shellcheck source=experiments/keep.sh
. "$HERE/experiments/keep.sh"
START=${START:-$HERE/engine/nn/networks/go-gnugo9-b4c48-pooled.safetensors}
RULES="chinese size=9 komi=7"
export PATH="$PATH:/usr/games"
mkdir -p "$WORK"

arm_options() {
    local no_aux="--ownership-weight 0 --score-mean-weight 0 --score-stdev-weight 0"
    case "$1" in
        puct)     echo "--games 200 $no_aux" ;;
        aux)      echo "--games 200" ;;
        forced)   echo "--games 200 --forced-playouts 2" ;;
        gumbel16) echo "--games 800 --gumbel 16 --visits 17 --full-search-pct 100" ;;
        gumbel32) echo "--games 500 --gumbel 16 --visits 33 --full-search-pct 100" ;;
        *) echo "unknown arm $1" >&2; return 1 ;;
    esac
}

run_arm() {
    local arm=$1
    # shellcheck disable=SC2046  # the options are words
    nice -n 10 engine loop "$WORK/$arm" --game go --size 9 --rules "$RULES" --start-model "$START" \
        --generations 1000 --cpu-hours "$CPU_HOURS" --threads 1 --seed 13 --steps 150 $(arm_options "$arm") \
        >>"$WORK/$arm.log" 2>&1
    echo "$arm: done ($(tail -n 1 "$WORK/$arm.log"))"
}

rate() {
    local name=$1 model=$2
    mkdir -p "$WORK/ratings"
    local gtp="engine gtp --model $model --visits $VISITS --threads 1"
    match_once "$name-gnugo10" 1 "$gtp" "gnugo --mode gtp --level 10 --chinese-rules --positional-superko"
    [ "$model" = "$START" ] || match_once "$name-start" 2 "$gtp" "engine gtp --model $START --visits $VISITS --threads 1"
}

match_once() {  # $1: the match's name in WORK/ratings, $2: its seed, $3 and $4: the engines; kept once finished
    local out="$WORK/ratings/$1"
    [ -f "$out.json" ] && return 0
    nice -n 5 engine match "$3" "$4" --games "$GAMES" --size 9 --komi 7 --random-moves 2 --jobs "$RATE_JOBS" \
        --referee "gnugo --mode gtp --chinese-rules" --seed "$2" --sgf-dir "$out" --resume --json >"$out.json.part"
    mv "$out.json.part" "$out.json"
}

save() {
    mkdir -p "$RESULTS"
    [ -f "$WORK/code.txt" ] && cp "$WORK/code.txt" "$RESULTS/code.txt"
    for arm in $ARMS; do
        [ -f "$WORK/$arm/state.json" ] && python "$HERE/experiments/loop_run.py" save "$WORK/$arm" "$RESULTS/$arm"
    done
    if [ -d "$WORK/ratings" ]; then
        keep_folder "$WORK/ratings" "$RESULTS/ratings"
        echo "saved ratings"
    fi
}

restore() {
    [ -d "$RESULTS" ] || { echo "nothing saved in $RESULTS"; return 0; }
    [ -f "$RESULTS/code.txt" ] && [ ! -f "$WORK/code.txt" ] && cp "$RESULTS/code.txt" "$WORK/code.txt"
    for saved in "$RESULTS"/*/; do
        name=$(basename "$saved")
        if [ "$name" = ratings ]; then
            restore_folder "$saved" "$WORK/ratings"
            echo "restored ratings"
        else
            python "$HERE/experiments/loop_run.py" restore "$saved" "$WORK/$name"
        fi
    done
}

check_code() {  # the arms train and are rated by one frozen commit's code
    local code
    code=$(cd / && git -C "$(python -c 'import pathlib, training; print(pathlib.Path(training.__file__).parents[1])')" \
        rev-parse HEAD)
    if [ -f "$WORK/code.txt" ] && [ "$(cat "$WORK/code.txt")" != "$code" ]; then
        echo "the arms ran from commit $(cat "$WORK/code.txt"), this is $code: $ACTION them from that commit" >&2
        exit 2
    fi
    echo "$code" >"$WORK/code.txt"
}

case "$ACTION" in
    run)
        check_code
        export -f run_arm arm_options
        export WORK CPU_HOURS START RULES
        # shellcheck disable=SC2086
        printf '%s\n' $ARMS | xargs -P 2 -I{} bash -c 'run_arm {}'
        ;;
    rate)
        check_code
        rate start "$START"
        for arm in $ARMS; do rate "$arm" "$(python "$HERE/experiments/loop_run.py" best "$WORK/$arm")"; done
        ;;
    save) save ;;
    restore) restore ;;
    *) echo "usage: $0 [WORK] [run|rate|save|restore]" >&2; exit 2 ;;
esac
