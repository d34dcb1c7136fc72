#!/usr/bin/env bash
# A 9x9 network's shipping matches: 800 visits, komi 7, Chinese rules, colours alternating,
# 2 random opening moves, GNU Go 3.8 scoring, two games at a time, one thread per engine.
#
#   experiments/go9-selfplay/ship_matches.sh [MODEL] [WORK]     # default: the bundled network, runs/ship-matches
#
#   1. against GNU Go 3.8 level 10 (apt gnugo);
#   2. against Pachi 11.99 (built by experiments/go9-selfplay/build_pachi.sh) at equal time per move: Pachi plays the
#      playouts a move (`-t =N`) that take it our mean genmove time of match 1, timed on match 1's
#      positions (experiments/go9-selfplay/pachi_playouts.py; Pachi's `-t SECONDS` reserves 2 s of network lag and so
#      thinks only 0.1 s a move when given less), without pondering (Pachi's default: it would think on our
#      time and take the core our engine needs). Both mean times a move are reported.
# Run it with nothing else on the machine: the calibration and the matches must see the same cores.
# GAMES (default 200) games each; results in WORK/*.json (a match cut short goes on from its SGF folder).
set -euo pipefail

HERE=$(cd "$(dirname "$0")/../.." && pwd)
MODEL=${1:-$(python3 -c "from engine.nn.networks import bundled_model; print(bundled_model('go'))")}
WORK=${2:-runs/ship-matches}
GAMES=${GAMES:-200}
VISITS=${VISITS:-800}
export PATH="$PATH:/usr/games"
mkdir -p "$WORK"

ENGINE="engine gtp --model $MODEL --visits $VISITS --threads 1"
REFEREE="gnugo --mode gtp --chinese-rules"

match() {  # $1: name, $2: opponent command line, $3: seed
    [ -f "$WORK/$1.json" ] && return 0
    engine match "$ENGINE" "$2" --games "$GAMES" --size 9 --komi 7 --random-moves 2 --jobs 2 \
        --referee "$REFEREE" --seed "$3" --sgf-dir "$WORK/$1" --resume --json >"$WORK/$1.json.part"
    mv "$WORK/$1.json.part" "$WORK/$1.json"
}

match gnugo10 "gnugo --mode gtp --level 10 --chinese-rules --positional-superko" 1   # superko, as our rules
SECONDS_A_MOVE=$(python3 -c "import json, sys; print(f\"{json.load(open(sys.argv[1]))['a_move_seconds']:.3f}\")" \
    "$WORK/gnugo10.json")
PACHI=$("$HERE/experiments/go9-selfplay/build_pachi.sh")
# One thread, and no pondering: Pachi 11.99 ponders by default, on the core our engine needs while it thinks
PACHI_ARGS="threads=1,pondering=0"
if [ ! -f "$WORK/pachi-playouts" ]; then
    python3 "$HERE/experiments/go9-selfplay/pachi_playouts.py" "$PACHI -r chinese $PACHI_ARGS" "$SECONDS_A_MOVE" "$WORK/gnugo10" \
        >"$WORK/pachi-playouts.part"
    mv "$WORK/pachi-playouts.part" "$WORK/pachi-playouts"
fi
PLAYOUTS=$(cat "$WORK/pachi-playouts")
echo "Pachi gets $PLAYOUTS playouts a move: $SECONDS_A_MOVE s, our mean genmove time against GNU Go" >&2
match pachi "$PACHI -r chinese -t =$PLAYOUTS $PACHI_ARGS" 2
for name in gnugo10 pachi; do
    python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))
low, high = m['win_rate_interval']
print(f\"{sys.argv[2]}: {m['wins']}-{m['losses']}-{m['draws']} of {m['games']}, {100 * m['win_rate']:.1f}% \"
      f\"[{100 * low:.1f}-{100 * high:.1f}], {m['a_move_seconds']:.3f} s vs {m['b_move_seconds']:.3f} s a move\")
" "$WORK/$name.json" "$name"
done
