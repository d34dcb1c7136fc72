#!/bin/sh
# The search's defaults against the same search without the spread-scaled exploration and the first-play value
# from the mean, on the bundled network, at equal visits (batch 16, one thread each), colours alternating.
#
#   experiments/search-settings/run.sh WORK go9|go19|gomoku15 [GAMES]     (resumes from WORK/games)
#
# go9: 9x9, komi 7, 400 visits, 2 random opening moves; go19: 19x19, komi 7.5, 100 visits, 2 random moves;
# both scored by GNU Go 3.8 (`gnugo`, apt: /usr/games) where a game ends by passing. gomoku15: freestyle 15x15,
# 400 visits, from the Piskvork openings within 5 points of the centre (OPENINGS: the openings.txt of
# ../shared/data/gomoku/piskvork-2017-freestyle20.zip), each opening twice with colours swapped.
set -eu
WORK=${1:?give a work folder}
SETUP=${2:?go9, go19 or gomoku15}
OFF="--c-puct-stdev-scale 0 --no-fpu-from-mean"
mkdir -p "$WORK/games"
cd "$WORK"
case "$SETUP" in
  go9) VISITS=400; set -- --size 9 --komi 7 --random-moves 2 --games "${3:-60}" \
         --referee "${GNUGO:-gnugo} --mode gtp --chinese-rules"; GAME="" ;;
  go19) VISITS=100; set -- --size 19 --komi 7.5 --random-moves 2 --games "${3:-24}" \
         --referee "${GNUGO:-gnugo} --mode gtp --chinese-rules"; GAME="" ;;
  gomoku15) VISITS=400; set -- --rules freestyle --size 15 --games "${3:-40}" \
         --openings "${OPENINGS:?set OPENINGS}" --openings-within 5; GAME="--game gomoku --size 15" ;;
  *) echo "unknown setup $SETUP" >&2; exit 2 ;;
esac
engine match "$@" --sgf-dir "$WORK/games" --resume --json \
  "engine gtp $GAME --visits $VISITS --threads 1" "engine gtp $GAME --visits $VISITS --threads 1 $OFF" \
  | tee "$WORK/result.json"
