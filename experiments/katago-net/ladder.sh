#!/bin/sh
# The engine at its defaults (its bundled network for the board) against KataGo on one of its networks at a few
# visits a move: where on the visit ladder the engine scores 50%.
#
#   KATAGO=path/to/katago MODEL=path/to/net.bin.gz experiments/katago-net/ladder.sh WORK SIZE GAMES VISITS...
#
# For each VISITS, GAMES games in WORK/v$VISITS: `engine gtp --threads 1` against KataGo from katago-match.cfg
# with maxVisits=VISITS (the result in WORK/v$VISITS/result.json). Komi 7.5 (7 on 9x9), Chinese rules, 2 random
# opening moves, colours alternating, GNU Go 3.8 scoring games that end by passing. Rerun the same command to resume after a kill.
set -eu
WORK=${1:?give a work folder}
SIZE=${2:?give a board size}
GAMES=${3:?give a number of games}
shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
KOMI=7.5
[ "$SIZE" = 9 ] && KOMI=7
for VISITS in "$@"; do
  mkdir -p "$WORK/v$VISITS/games"
  (cd "$WORK/v$VISITS" && engine match --games "$GAMES" --size "$SIZE" --komi "$KOMI" --random-moves 2 \
    --referee "${GNUGO:-gnugo} --mode gtp --chinese-rules" --timeout 600 --sgf-dir games --resume \
    --json "engine gtp --threads 1" \
    "${KATAGO:?set KATAGO} gtp -model ${MODEL:?set MODEL} -config $HERE/katago-match.cfg -override-config maxVisits=$VISITS" \
    > result.json)
done
