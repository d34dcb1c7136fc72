#!/usr/bin/env bash
# Calibrate `engine gtp --level`: each level against the one below it, and against GNU Go 3.8 as anchors.
#
#   experiments/levels/run.sh [WORK] [GAMES] [MATCH...]   every pair below (or only the MATCHes named, e.g.
#                                                          15k-vs-20k), in order; each match resumes from WORK/PAIR
#   SIZE=19 experiments/levels/run.sh WORK                the same on 19x19 (the bundled 19x19 network, komi 7.5)
#   python experiments/levels/table.py WORK               the ratings table (maximum-likelihood Elo, GNU Go level 1 at 0)
#
# 9x9 at komi 7 (or SIZE=19 at komi 7.5), Chinese rules, 2 uniformly random opening moves, colours alternating,
# GNU Go with Chinese rules as the referee; the bundled network of the board; GAMES (default 40) a pair. GNU Go
# from apt (/usr/games/gnugo). The anchors are GNU Go at levels 0, 1 and 10, each tied to the next by a match.
set -euo pipefail
WORK=${1:-runs/levels}
GAMES=${2:-40}
ONLY=" ${*:3} "
SIZE=${SIZE:-9}
KOMI=$([ "$SIZE" = 9 ] && echo 7 || echo 7.5)
NICE=${NICE:-10}
export PATH=/usr/games:$PATH
mkdir -p "$WORK"

level() { echo "engine gtp --size $SIZE --threads 1 --level $1"; }
gnugo() { echo "gnugo --mode gtp --level $1"; }

play() {   # NAME ENGINE_A ENGINE_B
    [[ "$ONLY" == "  " || "$ONLY" == *" $1 "* ]] || return 0
    nice -n "$NICE" engine match "$2" "$3" --size "$SIZE" --komi "$KOMI" --games "$GAMES" --random-moves 2 \
        --referee "gnugo --mode gtp --chinese-rules" --sgf-dir "$WORK/$1" --resume --seed 61 --json \
        > "$WORK/$1.json.part"
    mv "$WORK/$1.json.part" "$WORK/$1.json"
    echo "$1: $(python -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["wins"], r["losses"], r["draws"])' "$WORK/$1.json")"
}

# Each level against the one below it: is every step a step up?
play 15k-vs-20k "$(level 15k)" "$(level 20k)"
play 10k-vs-15k "$(level 10k)" "$(level 15k)"
play 6k-vs-10k "$(level 6k)" "$(level 10k)"
play 3k-vs-6k "$(level 3k)" "$(level 6k)"
play 1d-vs-3k "$(level 1d)" "$(level 3k)"
# Anchors: GNU Go at level 1 for every level, at level 0 up to 10k, and at level 10 from 10k up (the slowest last).
for l in 20k 15k 10k 6k 3k 1d; do play "$l-vs-gnugo1" "$(level "$l")" "$(gnugo 1)"; done
for l in 20k 15k 10k; do play "$l-vs-gnugo0" "$(level "$l")" "$(gnugo 0)"; done
play gnugo1-vs-gnugo0 "$(gnugo 1)" "$(gnugo 0)"
for l in 10k 6k 3k 1d; do play "$l-vs-gnugo10" "$(level "$l")" "$(gnugo 10)"; done
play gnugo10-vs-gnugo1 "$(gnugo 10)" "$(gnugo 1)"
