#!/usr/bin/env bash
# The bundled 9x9 network valuing its leaves at the game's komi (--komi-correction, the default) against itself
# taking its values as learnt at komi 7 (--no-komi-correction), at a komi it did not learn.
#
#   experiments/komi-value/run.sh KOMI [GAMES] [WORK]   a match at komi KOMI (0.5 or 13.5), resuming from WORK/komi-KOMI
#   experiments/komi-value/run.sh save [WORK]           each match's JSON and its games (one archive) into results/
#
# 9x9, Chinese rules, 100 visits a move (the numpy network, one thread), two games at a time, 2 uniformly random
# opening moves, colours alternating, GNU Go with Chinese rules as the referee (/usr/games/gnugo from apt).
# ENGINE is how the engine is started [default: engine].
set -euo pipefail
KOMI=${1:?a komi, or save}
HERE=$(cd "$(dirname "$0")" && pwd)
ENGINE=${ENGINE:-engine}
export PATH=/usr/games:$PATH
if [ "$KOMI" = save ]; then
    WORK=${2:-runs/komi-value}
    mkdir -p "$HERE/results"
    for dir in "$WORK"/komi-*/; do
        name=$(basename "$dir")
        cp "$WORK/$name.json" "$HERE/results/$name.json"
        tar -cJf "$HERE/results/$name-sgf.tar.xz" -C "$WORK" "$name"
    done
    exit 0
fi
GAMES=${2:-500}
WORK=${3:-runs/komi-value}
player="$ENGINE gtp --visits 100 --threads 1 --runtime numpy"
mkdir -p "$WORK"
$ENGINE match "$player --komi-correction" "$player --no-komi-correction" --size 9 --komi "$KOMI" --games "$GAMES" \
    --random-moves 2 --jobs 2 --referee "gnugo --mode gtp --chinese-rules" --sgf-dir "$WORK/komi-$KOMI" --resume \
    --seed 63 --json > "$WORK/komi-$KOMI.json"
