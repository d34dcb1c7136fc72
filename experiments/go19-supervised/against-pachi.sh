#!/usr/bin/env bash
# The bundled 19x19 network (`engine gtp --threads 1`, its default visits) against Pachi 11.99 at equal time a move
# on 19x19: komi 7.5, Chinese rules, 2 random opening moves, colours alternating, GNU Go scoring, two games at a time.
#
#   experiments/go19-supervised/against-pachi.sh [WORK] [GAMES]     (default runs/go19, 50 games)
#   MODEL=... NAME=stage12 against-pachi.sh WORK     (a candidate network instead of the bundled one)
#   VISITS=800 against-pachi.sh WORK                 (visits a move other than engine gtp's default)
#
# Equal time: Pachi plays a fixed number of playouts a move (`-t =N`; its `-t SECONDS` keeps 2 s back for network
# lag and thinks far less than it is given), the number that takes it SECONDS a move on the positions of our GNU Go
# games (experiments/go9-selfplay/pachi_playouts.py). SECONDS_A_MOVE defaults to our mean time a move in the
# last match against Pachi in WORK (REFERENCE, the same layout: one thread each, two games at once), else in the
# bundled network's match against GNU Go (default threads, two matches at once: a slower layout, so the first
# match gives Pachi more than our time, and says so). The match reports both engines' mean times, so the
# equality is checked, not assumed: run it again under another NAME to play at the time measured. Pachi runs one
# thread and does not ponder (its default would think on our time, on the core our engine needs). Calibrate with
# nothing else running. Games in WORK/matches/NAME-vs-pachi-19x19/, the result in
# WORK/matches/NAME-vs-pachi-19x19.json; a match cut short goes on from its SGF folder when run again.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${1:-runs/go19}
GAMES=${2:-50}
MODEL=${MODEL:-}
VISITS=${VISITS:-}                # empty: engine gtp's default
NAME=${NAME:-tygem}
export PATH=/usr/games:$PATH
GNUGO_MATCH="$HERE/experiments/go19-supervised/matches/stage9-vs-gnugo10-19x19"
REFERENCE=${REFERENCE:-$WORK/matches/tygem-vs-pachi-19x19.json}
[ -f "$REFERENCE" ] || REFERENCE="$GNUGO_MATCH.json"
if [ -n "${SECONDS_A_MOVE:-}" ]; then
    TIME_SOURCE="SECONDS_A_MOVE"
else
    SECONDS_A_MOVE=$(python3 -c "import json, sys; print(f\"{json.load(open(sys.argv[1]))['a_move_seconds']:.3f}\")" \
        "$REFERENCE")
    TIME_SOURCE="our mean genmove time in $REFERENCE"
fi
out="$WORK/matches/$NAME-vs-pachi-19x19"
mkdir -p "$WORK/matches"

PACHI=$("$HERE/experiments/go9-selfplay/build_pachi.sh")
PACHI_ARGS="threads=1,pondering=0"
playouts="$WORK/matches/pachi-playouts-19x19-${SECONDS_A_MOVE}s"
if [ ! -f "$playouts" ]; then
    positions=$(mktemp -d)
    tar -xf "$GNUGO_MATCH-sgf.tar.xz" -C "$positions"
    python3 "$HERE/experiments/go9-selfplay/pachi_playouts.py" "$PACHI -r chinese $PACHI_ARGS" "$SECONDS_A_MOVE" \
        "$positions/$(basename "$GNUGO_MATCH")" --komi 7.5 --games 3 --every 10 --probe 2000 \
        > "$playouts.part"
    mv "$playouts.part" "$playouts"
    rm -rf "$positions"
fi
PLAYOUTS=$(cat "$playouts")
echo "Pachi gets $PLAYOUTS playouts a move: $SECONDS_A_MOVE s, $TIME_SOURCE" >&2

player="engine gtp --threads 1${VISITS:+ --visits $VISITS}${MODEL:+ --model $MODEL}"
engine match "$player" "$PACHI -r chinese -t =$PLAYOUTS $PACHI_ARGS" \
    --games "$GAMES" --size 19 --komi 7.5 --random-moves 2 --jobs 2 --seed 3 \
    --referee "gnugo --mode gtp --chinese-rules" --sgf-dir "$out" --resume --json > "$out.json.part"
mv "$out.json.part" "$out.json"
