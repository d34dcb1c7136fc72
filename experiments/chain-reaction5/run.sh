#!/usr/bin/env bash
# Chain Reaction trained from zero on 5x5 with `engine loop`, then measured on 5x5 and, with the same
# size-independent network, on 6x6 and 7x7 (boards it never saw) against a random player and pure MCTS.
#
#   experiments/chain-reaction5/run.sh [WORK] run       # run (or resume) the loop in WORK/loop
#   experiments/chain-reaction5/run.sh [WORK] curve     # each rated generation against random too: RESULTS/curve.png
#   experiments/chain-reaction5/run.sh [WORK] measure   # the best network's matches, in WORK/matches/MODEL
#   experiments/chain-reaction5/run.sh [WORK] save      # keep the run (resumable), its curve and matches in RESULTS
#   experiments/chain-reaction5/run.sh [WORK] restore   # put a saved run back into WORK (on a new machine)
#
# Default WORK runs/chain-reaction5. Everything resumes after any stop: run the same command again (the loop
# goes on from its last finished phase, a match from the games already in its folder).
#
# Settings from the environment (the defaults are the full run; a smoke run is e.g. CPU_HOURS=0.02 GAMES=8
# READOUTS=32 STEPS=10 RATING_GAMES=2 WORKERS=1 for run, FINAL_GAMES=2 FINAL_ROLLOUTS=50 SIZES="5 7" VISITS=32
# for measure):
#   CPU_HOURS     the loop's budget, counted over self-play, gathering and training (default 4)
#   GAMES         self-play games a generation (default 200)
#   READOUTS      visits of a full search; a quarter of the moves get one, the rest a cheap search
#                 (Playout Cap Randomization; default 200)
#   STEPS         training steps a generation, batches of 256 (default 200)
#   BLOCKS, FILTERS   the network (default 4 blocks of 48 filters, pooled heads: any board size)
#   WORKERS       self-play processes (default 2: one a core on a 2-core machine)
#   RATING_GAMES, RATING_EVERY   the curve: games of every N-th generation against pure MCTS with 1,000
#                 rollouts a move (default 20, 2); ratings do not count against CPU_HOURS
#   FINAL_GAMES   games of each measuring match (default 200)
#   FINAL_ROLLOUTS   the pure-MCTS opponent's rollouts a move (default 1000)
#   SIZES         the boards of the measuring matches (default "5 6 7")
#   CURVE_GAMES, CURVE_VISITS   the curve's games against the random player a generation, and the network's
#                 visits in them (default 20, 100)
#   VISITS        the network's visits a move in every match (default 400)
#   LOOP_FLAGS    any other `engine loop` options, passed through
#   RESULTS       where `save` keeps things (default experiments/chain-reaction5/results)
set -euo pipefail

WORK=${1:-runs/chain-reaction5}
ACTION=${2:-run}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
CPU_HOURS=${CPU_HOURS:-4}
GAMES=${GAMES:-200}
READOUTS=${READOUTS:-200}
STEPS=${STEPS:-200}
BLOCKS=${BLOCKS:-4}
FILTERS=${FILTERS:-48}
WORKERS=${WORKERS:-2}
RATING_GAMES=${RATING_GAMES:-20}
RATING_EVERY=${RATING_EVERY:-2}
FINAL_GAMES=${FINAL_GAMES:-200}
FINAL_ROLLOUTS=${FINAL_ROLLOUTS:-1000}
SIZES=${SIZES:-"5 6 7"}
VISITS=${VISITS:-400}
CURVE_GAMES=${CURVE_GAMES:-20}
CURVE_VISITS=${CURVE_VISITS:-100}
LOOP_FLAGS=${LOOP_FLAGS:-}
RESULTS=${RESULTS:-$HERE/experiments/chain-reaction5/results}
# shellcheck source=experiments/keep.sh
. "$HERE/experiments/keep.sh"
mkdir -p "$WORK"

case "$ACTION" in
    run)
        # shellcheck disable=SC2086  # the flags are words
        nice -n 10 engine loop "$WORK/loop" --game chain-reaction --size 5 --heads pooled \
            --blocks "$BLOCKS" --filters "$FILTERS" --generations 100000 --cpu-hours "$CPU_HOURS" \
            --games "$GAMES" --visits "$READOUTS" --parallel-games 16 --workers "$WORKERS" --threads 1 \
            --steps "$STEPS" --batch-size 256 --window 4 --seed 5 \
            --rating-opponent "mcts-rollouts:1000" --rating-games "$RATING_GAMES" --rating-every "$RATING_EVERY" \
            --match-visits "$VISITS" $LOOP_FLAGS
        ;;
    curve)
        nice -n 10 python "$HERE/experiments/chain-reaction5/curve.py" "$WORK/loop" "$RESULTS" \
            --games "$CURVE_GAMES" --visits "$CURVE_VISITS"
        ;;
    measure)
        best=$(python "$HERE/experiments/loop_run.py" best "$WORK/loop")
        out="$WORK/matches/$(basename "$best" .safetensors)"
        for size in $SIZES; do
            for opponent in random "mcts-rollouts:$FINAL_ROLLOUTS"; do
                folder="$out/${size}x${size}-${opponent%%:*}"
                mkdir -p "$folder"
                nice -n 10 engine match "$best" "$opponent" --rules "chain-reaction size=$size" \
                    --games "$FINAL_GAMES" --visits "$VISITS" --threads 1 --sgf-dir "$folder" --resume --json \
                    > "$folder.json.part"
                mv "$folder.json.part" "$folder.json"
                python -c "import json, sys; r = json.load(open(sys.argv[1])); low, high = r['win_rate_interval']; \
print(f\"{sys.argv[2]}: {r['wins']}-{r['losses']}-{r['draws']}, {100 * r['win_rate']:.1f}% \
[{100 * low:.1f}-{100 * high:.1f}]\")" "$folder.json" "${size}x${size} against $opponent"
            done
        done
        ;;
    save)
        keep_loop "$WORK/loop" "$RESULTS"
        keep_folder "$WORK/matches" "$RESULTS/matches"
        ;;
    restore)
        python "$HERE/experiments/loop_run.py" restore "$RESULTS/loop" "$WORK/loop"
        restore_folder "$RESULTS/matches" "$WORK/matches"
        ;;
    *)
        echo "usage: $0 [WORK] run|curve|measure|save|restore" >&2
        exit 2
        ;;
esac
