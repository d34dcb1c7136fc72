#!/bin/sh
# Our search against KataGo's on the same KataGo network, at equal visits.
#
#   KATAGO=path/to/katago MODEL=path/to/net.bin.gz experiments/katago-net/match.sh WORK [SIZE] [VISITS] [GAMES] [OURS...]
#
# KataGo plays from katago-match.cfg (one search thread, no reduced search when winning or after a pass, its own
# defaults otherwise); ours is `engine gtp --model MODEL --visits VISITS --threads 1 OURS...`. Komi 7.5 (7 on 9x9),
# Chinese rules, 2 random opening moves, colours alternating, GNU Go 3.8 scoring games that end by passing.
# Resumes from WORK/games after a kill.
set -eu
WORK=${1:?give a work folder}
SIZE=${2:-19}
VISITS=${3:-100}
GAMES=${4:-20}
shift $(( $# < 4 ? $# : 4 ))
HERE=$(cd "$(dirname "$0")" && pwd)
KOMI=7.5
[ "$SIZE" = 9 ] && KOMI=7
mkdir -p "$WORK/games"
cd "$WORK"
engine match --games "$GAMES" --size "$SIZE" --komi "$KOMI" --random-moves 2 \
  --referee "${GNUGO:-gnugo} --mode gtp --chinese-rules" --timeout 600 --sgf-dir "$WORK/games" --resume \
  "engine gtp --model ${MODEL:?set MODEL} --visits $VISITS --threads 1 $*" \
  "${KATAGO:?set KATAGO} gtp -model $MODEL -config $HERE/katago-match.cfg -override-config maxVisits=$VISITS" \
  | tee "$WORK/result.txt"
