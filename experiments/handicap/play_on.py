"""Was a resignation sound? Play the resigned position on to the end and count it.

    python experiments/handicap/play_on.py GAME.sgf [--sgf OUT.sgf] [--json OUT.json]
        [--engine "engine gtp --threads 1 --no-resign"] [--engine-colour w]
        [--gnugo "gnugo --mode gtp --level 10 --chinese-rules --positional-superko"]

Both engines ``loadsgf`` the game (every move of it: the position where the engine resigned), then play on,
the engine (which may not resign) as ``--engine-colour`` against GNU Go, until two passes in a row, GNU Go's
resignation or 800 moves. GNU Go's ``final_score`` counts the end, under the rules its command line gives
(Chinese by default, with White's handicap bonus as the match counted it). Prints the result (``W+6.5``,
``B+R``, ...) and writes the game played on (the engine's ``printsgf``) and a JSON record where asked.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from training.gtp_client import GTPClient  # noqa: E402

MOVE_CAP = 800
ENGINE = "engine gtp --threads 1 --no-resign"
GNUGO = "/usr/games/gnugo --mode gtp --level 10 --chinese-rules --positional-superko"


def play_on(sgf: Path, engine_command: str, gnugo_command: str, engine_colour: str) -> dict[str, object]:
    """The record of ``sgf``'s final position played on (see the module docstring)."""
    with GTPClient(shlex.split(engine_command), 600, "engine") as engine, \
            GTPClient(shlex.split(gnugo_command), 600, "gnugo") as gnugo:
        engine.send(f"loadsgf {sgf}")
        to_move = gnugo.send(f"loadsgf {sgf}").strip().lower()[:1]   # GNU Go answers the colour to move
        players = {engine_colour: engine, "bw".replace(engine_colour, ""): gnugo}
        moves, passes, result = 0, 0, None
        while result is None and moves < MOVE_CAP:
            vertex = players[to_move].send(f"genmove {to_move}").strip().lower()
            if vertex == "resign":
                result = f"{'W' if to_move == 'b' else 'B'}+R"
                break
            other = "w" if to_move == "b" else "b"
            players[other].send(f"play {to_move} {vertex}")
            moves += 1
            passes = passes + 1 if vertex == "pass" else 0
            if passes == 2:
                result = gnugo.send("final_score").strip()
            to_move = other
        return {"sgf": str(sgf), "engine": engine_command, "gnugo": gnugo_command, "engine_colour": engine_colour,
                "moves_played_on": moves, "result": result or "unfinished", "record": engine.send("printsgf")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sgf", type=Path)
    parser.add_argument("--engine", default=ENGINE)
    parser.add_argument("--gnugo", default=GNUGO)
    parser.add_argument("--engine-colour", choices=["b", "w"], default="w")
    parser.add_argument("--sgf", dest="out_sgf", type=Path, help="write the game played on here")
    parser.add_argument("--json", type=Path, help="write the record here")
    args = parser.parse_args()
    record = play_on(args.sgf.resolve(), args.engine, args.gnugo, args.engine_colour)
    if args.out_sgf:
        args.out_sgf.write_text(str(record["record"]))
    if args.json:
        args.json.write_text(json.dumps({k: v for k, v in record.items() if k != "record"}, indent=1) + "\n")
    print(f"{args.sgf.name}: {record['result']} after {record['moves_played_on']} more moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
