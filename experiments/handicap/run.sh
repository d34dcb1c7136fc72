#!/usr/bin/env bash
# Our engine as White giving GNU Go level 10 a handicap: how many stones can it give, and how often does White
# resign a game it could still have won?
#
#   experiments/handicap/run.sh WORK STONES GAMES [OUR OPTIONS...]     (resumes from WORK/games)
#
# `engine gtp --threads 1` (the bundled network for the board, its defaults, plus OUR OPTIONS, e.g. --visits 800)
# plays White, engine A; GNU Go 3.8 (`gnugo --mode gtp --level 10 --chinese-rules --positional-superko`, apt:
# /usr/games/gnugo) takes Black and STONES fixed handicap stones in every game, engine B. Chinese rules, komi 0.5
# (plus White's handicap bonus of STONES points, as both engines count it), GNU Go with Chinese rules scoring
# the games that end on the board. SIZE (default 19) sets the board; NICE (default 5) the priority.
# Writes WORK/games/game-NNNN.sgf and WORK/match.json (the result table, with every resignation).
set -euo pipefail
WORK=${1:?WORK STONES GAMES [our options]}
STONES=${2:?WORK STONES GAMES [our options]}
GAMES=${3:?WORK STONES GAMES [our options]}
shift 3
SIZE=${SIZE:-19}
NICE=${NICE:-5}
export PATH=/usr/games:$PATH
ours="engine gtp --threads 1"
for option in "$@"; do
    ours+=" $(printf %q "$option")"
done
mkdir -p "$WORK/games"
nice -n "$NICE" engine match "$ours" "gnugo --mode gtp --level 10 --chinese-rules --positional-superko" \
    --size "$SIZE" --komi 0.5 --handicap "$STONES" --handicap-taker b --games "$GAMES" \
    --referee "gnugo --mode gtp --chinese-rules" --sgf-dir "$WORK/games" --resume --json > "$WORK/match.json.part"
mv "$WORK/match.json.part" "$WORK/match.json"
cat "$WORK/match.json"
