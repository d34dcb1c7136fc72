"""Dead stones at the end of 9x9 GNU Go games: our ``final_status_list dead`` against GNU Go's.

    python experiments/dead-stones/run.py [--positions 60] [--model PATH|bundled] [--games-dir DIR] [--json]

Plays GNU Go games to the end with ``engine gnugo-games`` (into a temporary folder unless
``--games-dir`` is given; seed 3, so none is a game the bundled network learnt from or was
validated on), takes the final boards of the first ``--positions`` games that two passes
ended, and reads GNU Go's dead stones from the territory markers the generator writes
(``TB``/``TW``, from GNU Go's own ``final_status_list``). Ours come from the same functions as
GTP ``final_status_list dead``: :func:`engine.core.ownership.stone_status` over the Monte-Carlo
estimate (``--playouts`` random playouts, seed 0) and, with ``--model``, over the network's
ownership of the position (one evaluation). Agreement is reported per stone (our verdict, dead
or not, equals GNU Go's) and per position (the same set of dead stones).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine import (
    EvaluatorOptions,
    Game,
    bundled_model,
    estimate_ownership,
    load_evaluator,
    load_sgf_file,
    playout_ownership,
    stone_status,
)
from training.territory import dead_from_territory, ended_on_board

SIZE = 9


@dataclass(frozen=True)
class Agreement:
    """How one judge's dead stones compare with GNU Go's over the positions."""

    judge: str
    positions: int
    stones: int
    gnugo_dead: int
    judge_dead: int
    stone_agreement: float      # share of stones with the same verdict
    position_agreement: float   # share of positions with exactly the same dead stones

    def describe(self) -> str:
        return (f"{self.judge:>13}: {100 * self.stone_agreement:5.1f}% of {self.stones} stones, "
                f"{100 * self.position_agreement:5.1f}% of {self.positions} positions "
                f"(dead: GNU Go {self.gnugo_dead}, ours {self.judge_dead})")


def finished_games(games_dir: Path, positions: int, level: int, seed: int) -> list[tuple[Game, set[int]]]:
    """The first ``positions`` GNU Go games in ``games_dir`` that two passes ended, with GNU Go's dead stones;
    ``engine gnugo-games`` plays more until there are enough."""
    games = positions
    while True:
        subprocess.run([sys.executable, "-c", "from engine.cli import main; main()", "gnugo-games", str(games_dir),
                        "--games", str(games), "--size", str(SIZE), "--level", str(level), "--seed", str(seed)],
                       check=True)
        found = []
        for path in sorted(games_dir.glob(f"gnugo-{seed}-*.sgf"))[:games]:
            record = load_sgf_file(path)
            game, markers = record.replay(), record.territory
            if ended_on_board(game) and markers is not None:
                found.append((game, set(dead_from_territory(game, *markers))))
        if len(found) >= positions:
            return found[:positions]
        games += positions - len(found) + 5


def agreement(judge: str, games: list[tuple[Game, set[int]]], ownership: Callable[[Game], np.ndarray]) -> Agreement:
    """Compare the dead stones ``stone_status`` names from ``ownership(game)`` (black's view) with GNU Go's."""
    stones = same_stones = same_positions = gnugo_dead = judge_dead = 0
    for game, theirs in games:
        ours = {a for chain in stone_status(game, ownership(game)).dead for a in chain}
        board = np.flatnonzero(game.position.board().reshape(-1))
        stones += board.size
        same_stones += sum((a in ours) == (a in theirs) for a in board)
        same_positions += ours == theirs
        gnugo_dead += len(theirs)
        judge_dead += len(ours)
    return Agreement(judge, len(games), stones, gnugo_dead, judge_dead, same_stones / max(stones, 1),
                     same_positions / max(len(games), 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--model", default=None, help="a model file with an ownership head, or 'bundled'")
    parser.add_argument("--games-dir", type=Path, default=None, help="keep the GNU Go games here (resumable)")
    parser.add_argument("--level", type=int, default=1, help="GNU Go's level for the games")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--playouts", type=int, default=400, help="random playouts of the Monte-Carlo estimate")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        games = finished_games(args.games_dir or Path(scratch), args.positions, args.level, args.seed)
    results = [agreement("Monte-Carlo", games, lambda game: playout_ownership(game, args.playouts, seed=0))]
    if args.model is not None:
        rules = games[0][0].rules
        path = bundled_model(rules) if args.model == "bundled" else args.model
        evaluator = load_evaluator(rules, path, EvaluatorOptions(runtime="eager"))
        probe = evaluator.evaluate([games[0][0].position])
        if probe.ownership is None:
            raise SystemExit(f"{path} has no ownership head")
        results.append(agreement("network", games, lambda game: estimate_ownership(evaluator, game)))
    if args.json:
        print(json.dumps([asdict(result) for result in results]))
    else:
        print("\n".join(result.describe() for result in results))


if __name__ == "__main__":
    main()
