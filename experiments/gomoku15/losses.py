"""Where a Gomoku player lost its match games, read from their SGF: which openings it loses, and from which
turn each lost game was lost to best play by threats.

    python experiments/gomoku15/losses.py MATCH_DIR/*.sgf [--player A] [--random-moves 2]

PLAYER is the name the SGF gives the player (``engine match`` names its first engine ``A``, or ``A 1``,
``A 2``... with ``--jobs``). The random opening's black stone decides much of a freestyle game: the
summary counts PLAYER's wins by colour and by that stone's ring (its distance from the nearest edge).
Then one line for each game PLAYER lost, its turns in order: ``.`` where the winner had no victory by
continuous threats (``engine.search.guard``'s reading), a digit where it had one and that many moves of
PLAYER's stopped it (``!`` after it where the move played was none of them), ``X`` where none did: the
game was lost from there to best play, and the turn before it is where to look.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from engine.core.types import BLACK, WHITE, opponent
from engine.formats.sgf import GameRecord, load_sgf_file
from engine.search.guard import defences, victory_point

RINGS = ((0, 1), (2, 3), (4, 99))
"""Distances of the opening's black stone from the nearest edge that the summary tells apart."""


def _player_color(record: GameRecord, player: str) -> int | None:
    """The colour whose name (``PB``/``PW``) is ``player``, alone or with a job number after it."""
    for name, color in ((record.black_name, BLACK), (record.white_name, WHITE)):
        if name and name.split()[:1] == [player]:
            return color
    return None


def _ring(record: GameRecord) -> str:
    size = record.rules.size
    row, col = divmod(record.moves[0].action, size)
    edge = min(row, col, size - 1 - row, size - 1 - col)
    low, high = next(ring for ring in RINGS if ring[0] <= edge <= ring[1])
    return f"{low}-{high}" if high < 99 else f"{low}+"


def timeline(record: GameRecord, loser: int, opening: int) -> str:
    """The loser's turns after the opening, as the module's docstring describes them."""
    game = record.replay(0)
    marks = []
    for index, move in enumerate(record.moves):
        if move.color == loser and index >= opening:
            threat = victory_point(game, opponent(loser))
            if threat < 0:
                marks.append(".")
            else:
                stops = defences(game)
                marks.append("X" if not stops else f"{min(len(stops), 9)}{'' if move.action in stops else '!'}")
        game.play(move.action)
        if game.is_over:
            break
    return " ".join(marks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sgf", nargs="+")
    parser.add_argument("--player", default="A")
    parser.add_argument("--random-moves", type=int, default=2)
    args = parser.parse_args()
    wins: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    losses = []
    for path in sorted(args.sgf):
        record = load_sgf_file(path)
        color = _player_color(record, args.player)
        if color is None or record.result is None or not record.moves:
            continue
        won = record.result.winner == color
        tally = wins[("black" if color == BLACK else "white", _ring(record))]
        tally[0] += won
        tally[1] += 1
        if not won:
            losses.append((path, color, record))
    summary = {f"{colour} ring {ring}": f"{won}/{games}" for (colour, ring), (won, games) in sorted(wins.items())}
    print(json.dumps({"player": args.player, "wins_by_colour_and_black_opening_ring": summary}), flush=True)
    for path, color, record in losses:
        print(f"{Path(path).name} ({'black' if color == BLACK else 'white'}, ring {_ring(record)}, "
              f"{len(record.moves)} moves): {timeline(record, color, args.random_moves)}", flush=True)


if __name__ == "__main__":
    main()
