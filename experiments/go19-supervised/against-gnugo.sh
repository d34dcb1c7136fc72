#!/usr/bin/env bash
# The bundled 19x19 network (`engine gtp --visits 800`, or VISITS=N) against GNU Go level 10 on 19x19 (or SIZE=13): komi 7.5
# (or KOMI=K), Chinese rules (or RULES=japanese: territory scoring, both engines and the referee told so), 2 random
# opening moves, colours alternating, GNU Go scoring.
#
#   experiments/go19-supervised/against-gnugo.sh [WORK] [GAMES]     (default runs/go19, 50 games)
#   MODEL=experiments/go19-supervised/000009-b6c64-pooled.safetensors NAME=stage9 against-gnugo.sh WORK
#       (a candidate network instead of the bundled one; its games go to WORK/matches/NAME-vs-gnugo10-19x19/)
#   SIZE=13 against-gnugo.sh WORK      (13x13: the bundled network for 13x13 and up is the 19x19 one)
#   SEED=1 NAME=tygem-1 against-gnugo.sh WORK 25    (another half of a match, to play two at a time: the seed
#       draws the random opening moves, so the halves' games differ)
#   VISITS=1600 KOMI=0.5 NAME=komi0.5 against-gnugo.sh WORK     (the engine's defaults at a komi the network never saw)
#   VISITS=1600 KOMI=6.5 RULES=japanese NAME=japanese against-gnugo.sh WORK
#
# GNU Go 3.8 sometimes dies (SIGSEGV) in a 19x19 game. The game it died in is not written, and the match, run
# again with --resume, plays it again from its start: up to 30 times. Each death is noted in
# WORK/matches/NAME-vs-gnugo10-SIZExSIZE-deaths.log; the games are in WORK/matches/NAME-vs-gnugo10-SIZExSIZE/.
set -uo pipefail
WORK=${1:-runs/go19}
GAMES=${2:-50}
MODEL=${MODEL:-}                  # empty: the network engine gtp picks for 19x19
NAME=${NAME:-tygem}
SIZE=${SIZE:-19}
SEED=${SEED:-0}
VISITS=${VISITS:-800}
KOMI=${KOMI:-7.5}
RULES=${RULES:-chinese}
case "$RULES" in
    chinese) gnugo_rules="--chinese-rules --positional-superko" ;;   # our Chinese rules forbid positional superko
    japanese) gnugo_rules="--japanese-rules" ;;
    *) echo "RULES is chinese or japanese" >&2; exit 2 ;;
esac
export PATH=/usr/games:$PATH
out="$WORK/matches/$NAME-vs-gnugo10-${SIZE}x$SIZE"
player="engine gtp --visits $VISITS --rules $RULES${MODEL:+ --model $MODEL}"
mkdir -p "$out"
for try in $(seq 1 30); do
    if nice -n 5 engine match "$player" "gnugo --mode gtp --level 10 $gnugo_rules" \
            --games "$GAMES" --size "$SIZE" --komi "$KOMI" --rules "$RULES" --random-moves 2 --seed "$SEED" \
            --referee "gnugo --mode gtp ${gnugo_rules% --positional-superko}" --sgf-dir "$out" --resume --json \
            > "$out.json.part" 2>> "$out.log"; then
        mv "$out.json.part" "$out.json"
        exit 0
    fi
    echo "run $try: $(tr '\r' '\n' < "$out.log" | tail -1)" >> "$out-deaths.log"
done
exit 1
