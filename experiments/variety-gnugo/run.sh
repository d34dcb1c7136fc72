#!/usr/bin/env bash
# The engine's default play (its first 13 moves on 9x9 drawn among the near-best) against deterministic play
# (--temperature-moves 0), each in 100 games against GNU Go level 10: does variety cost strength?
#
#   experiments/variety-gnugo/run.sh ARM [WORK]      ARM: drawn | deterministic     (resumes from WORK/ARM)
#   experiments/variety-gnugo/run.sh save [WORK]     the two matches' JSON and games into results/
#
# 9x9, komi 7, 800 visits a move (no time cap, so a busy machine changes nothing but the wall time), 2 uniformly
# random opening moves, colours alternating, GNU Go with Chinese rules as the referee. GNU Go from apt
# (/usr/games/gnugo).
set -euo pipefail
ARM=${1:?drawn, deterministic or save}
WORK=${2:-runs/variety}
HERE=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/games:$PATH
if [ "$ARM" = save ]; then
    mkdir -p "$HERE/results"
    for arm in drawn deterministic; do
        cp "$WORK/$arm.json" "$HERE/results/$arm.json"
        tar -cJf "$HERE/results/$arm-sgf.tar.xz" -C "$WORK" "$arm"
    done
    exit 0
fi
extra=""
[ "$ARM" = deterministic ] && extra=" --temperature-moves 0"
mkdir -p "$WORK"
engine match "engine gtp --visits 800$extra" "gnugo --mode gtp --level 10" --size 9 --komi 7 --games 100 \
    --random-moves 2 --referee "gnugo --mode gtp --chinese-rules" --sgf-dir "$WORK/$ARM" --resume --seed 38 \
    --json > "$WORK/$ARM.json"
