#!/bin/sh
# The move by its value's lower confidence bound (A) against the most visited move (B), on the bundled 9x9 network.
#
#   experiments/lcb-move-choice/match.sh WORK SEED [VISITS] [GAMES] [A's OPTIONS...]
#
# Both are `engine gtp --size 9 --visits VISITS --temperature-moves 0 --threads 1`, A with A's options (default
# `--lcb-stdevs 5`); komi 7, Chinese rules, 2 random opening moves drawn from SEED, colours alternating, GNU Go 3.8
# scoring games that end by passing (GNUGO: its binary, default gnugo on the PATH). Resumes from WORK/games after
# a kill.
set -eu
WORK=${1:?give a work folder}
SEED=${2:?give a seed for the opening moves}
VISITS=${3:-200}
GAMES=${4:-60}
shift $(( $# < 4 ? $# : 4 ))
OURS=${*:---lcb-stdevs 5}
GTP="engine gtp --size 9 --visits $VISITS --temperature-moves 0 --threads 1"
mkdir -p "$WORK/games"
engine match --games "$GAMES" --size 9 --komi 7 --random-moves 2 --seed "$SEED" --jobs 1 \
  --referee "${GNUGO:-gnugo} --mode gtp --chinese-rules" --sgf-dir "$WORK/games" --resume \
  "$GTP $OURS" "$GTP" | tee "$WORK/result.txt"
