"""How well a network's value and score lead fit held-out counted games, at their komi and at a shifted komi.

    python experiments/komi-value/heldout.py [--month 2010-04] [--games 500] [--every 25] [--shift 5] [--json OUT]

Counted Tygem games (``B+X.5`` / ``W+X.5`` at komi 6.5) of a month the bundled 19x19 network never trained on
(2010-04 is held out by experiments/go19-supervised) give each position a true final margin, so its result is
known at any komi: at komi ``6.5 + s`` Black's margin is ``m - s``. Every ``--every``-th position of each game
(from that move on) is valued once by the network (no search), and each komi's figures are reported as the
network says them (``raw``, the values at the komi it learnt) and corrected to the game's komi from its score
head (``corrected``, :func:`engine.search.komi.at_komi`, what the search does): the value's mean squared error
against the result at that komi (+1 won, -1 lost, side to move), the share of positions whose winner the value
calls right, and the score lead's mean absolute error in points.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run as a script from anywhere

from engine import Color, Rules  # noqa: E402
from engine.formats.collections import read_collection, read_index  # noqa: E402
from engine.nn.loading import EvaluatorOptions, load_evaluator  # noqa: E402
from engine.nn.networks import bundled_model  # noqa: E402
from engine.search.komi import at_komi, komi_shift  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "tygem"
BATCH = 64
RULES = Rules.go(19, "chinese", komi=6.5)
"""The counted games' rules, the komi the bundled 19x19 network learnt."""


def counted_positions(month: str, games: int, every: int) -> tuple[list, np.ndarray]:
    """Positions of the first ``games`` counted games of ``month`` (every ``every``-th move from move
    ``every`` on) and Black's final margin at komi 6.5 for each."""
    year = month.split("-")[0]
    index = read_index([DATA / "index" / f"Kifu{year}.zip"])
    positions, margins = [], []
    used = 0
    for collected in read_collection(DATA / "kifu" / f"{month}.zip", index):
        record = collected.record
        if record is None or record.result is None or record.result.reason != "score":
            continue
        margin = record.result.margin if record.result.winner == Color.BLACK else -record.result.margin
        game = record.replay(0)
        for number, move in enumerate(record.moves, 1):
            game.play(move.action, move.color)
            if number % every == 0 and number < len(record.moves):
                positions.append(game.position.copy())
                margins.append(margin)
        used += 1
        if used == games:
            break
    return positions, np.asarray(margins, np.float64)


def evaluate(positions: list) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The bundled 19x19 network's value, score mean and spread (side to move) and the side to move."""
    evaluator = load_evaluator(RULES, bundled_model(RULES), EvaluatorOptions(runtime="eager", cache_size=0))
    values, means, spreads = [], [], []
    for start in range(0, len(positions), BATCH):
        evaluation = evaluator.evaluate(positions[start:start + BATCH])
        values.append(evaluation.values)
        means.append(evaluation.score_mean)
        spreads.append(evaluation.score_stdev)
    to_play = np.asarray([int(position.to_play) for position in positions])
    return np.concatenate(values), np.concatenate(means), np.concatenate(spreads), to_play


def figures(values: np.ndarray, leads: np.ndarray, margins: np.ndarray) -> dict[str, float]:
    """Value error, winners called and lead error against ``margins`` (side to move's, at the komi asked)."""
    results = np.sign(margins)
    return {"value_mse": round(float(np.mean((values - results) ** 2)), 4),
            "winner_called": round(float(np.mean(np.sign(values) == results)), 4),
            "lead_mae": round(float(np.mean(np.abs(leads - margins))), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--month", default="2010-04")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--shift", type=float, default=5.0, help="Points the komi is moved each way.")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    positions, black_margins = counted_positions(args.month, args.games, args.every)
    values, means, spreads, to_play = evaluate(positions)
    sign = np.where(to_play == int(Color.BLACK), 1.0, -1.0)
    report = {"month": args.month, "games": args.games, "positions": len(positions), "every": args.every,
              "model": bundled_model(RULES).name, "komis": {}}
    for shift in (-args.shift, 0.0, args.shift):
        komi = RULES.komi + shift
        margins = sign * (black_margins - shift)   # the side to move's final margin at this komi
        corrected_values, corrected_leads = at_komi(values, means, spreads, komi_shift(shift, to_play))
        report["komis"][f"{komi:g}"] = {"raw": figures(values, means, margins),
                                       "corrected": figures(corrected_values, corrected_leads, margins)}
    text = json.dumps(report, indent=1, sort_keys=True)
    if args.json:
        Path(args.json).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
