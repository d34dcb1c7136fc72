"""How often the lower confidence bound's move differs from the most visited one, on positions of a match's games.

    python experiments/lcb-move-choice/positions.py GAMES_DIR [--games 10] [--visits 200]

A fresh search with the bundled 9x9 network (the search's defaults, lower confidence bound off) at every second
position of the first ``--games`` games (SGF files, sorted by name); for each setting of ``lcb_stdevs`` and
``lcb_min_visit_share`` below, the share of positions at which that setting would play another move.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine import (  # noqa: E402
    EvaluatorOptions,
    Game,
    Rules,
    Search,
    SearchConfig,
    bundled_model,
    load_evaluator,
    load_sgf_file,
)
from engine.search.lcb import lcb_action  # noqa: E402

SETTINGS = [(stdevs, share) for stdevs in (1.0, 2.0, 3.0, 5.0) for share in (0.1, 0.15)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games_dir", type=Path)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--visits", type=int, default=200)
    args = parser.parse_args()
    rules = Rules.go(9, "chinese")
    evaluator = load_evaluator(rules, bundled_model(rules), EvaluatorOptions(runtime="eager", device="cpu"))
    differ = dict.fromkeys(SETTINGS, 0)
    positions = 0
    for path in sorted(args.games_dir.glob("*.sgf"))[:args.games]:
        record = load_sgf_file(path)
        game = Game(record.rules)
        for turn, move in enumerate(record.moves):
            if turn % 2 == 0 and not game.is_over:
                search = Search(game, evaluator, SearchConfig(), seed=turn)
                result = search.run(args.visits)
                stdevs = search.tree.root_value_stdevs(rules.num_actions)
                most_visited = int(np.argmax(result.visits))
                positions += 1
                for setting in SETTINGS:
                    differ[setting] += lcb_action(result.visits, result.q, stdevs, *setting) != most_visited
            game.play(move.action, move.color)
    print(f"{positions} positions")
    for (stdevs, share), count in differ.items():
        print(f"lcb_stdevs {stdevs:g}, lcb_min_visit_share {share:g}: another move at {count} "
              f"({100 * count / positions:.1f}%)")


if __name__ == "__main__":
    main()
