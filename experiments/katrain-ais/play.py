"""KaTrain's human, rank and pro AIs each play a full 19x19 game on ``engine analysis``, headless.

    python experiments/katrain-ais/play.py WORK [--modes ai:human ai:p:rank ai:pro] [--moves 500]

KaTrain 1.20's own engine class and game (:class:`bench.katrain_host.KaTrainHost`) with its default engine
settings (500 visits and 8 s for the analysis of every position, as a user's install has them) and its
human-like model path set, so that it starts the engine with ``-human-model``; the bundled 19x19 network;
each AI with KaTrain's default settings for it, playing both colours of one game at KaTrain's default rules
(Japanese, komi 6.5) until two passes end it or ``--moves`` moves have been played. Writes
``WORK/MODE.sgf`` (as KaTrain saves it) and ``WORK/games.json``: each game's moves, how it ended, the
seconds each AI move took (median, 99th percentile, largest) and every error KaTrain logged.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from tqdm import tqdm

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.katrain_host import KaTrainHost  # noqa: E402
from engine.core.rules import Rules  # noqa: E402
from engine.nn.networks import bundled_model  # noqa: E402

MODES = ("ai:human", "ai:p:rank", "ai:pro")


def play_game(work: Path, mode: str, moves: int) -> dict[str, object]:
    """One game of ``mode`` against itself; its record (see the module docstring)."""
    from katrain.core.ai import generate_ai_move

    model = bundled_model(Rules.go(19))
    folder = work / mode.replace(":", "-")
    folder.mkdir(parents=True, exist_ok=True)
    host = KaTrainHost(folder, model, humanlike_model=str(model))
    seconds: list[float] = []
    try:
        settings = host.katrain.config("ai")[mode]
        game = host.game({"SZ": 19, "KM": 6.5, "RU": "japanese"})
        with tqdm(total=moves, desc=mode, unit="move", file=sys.stderr) as bar:
            while game.end_result is None and len(seconds) < moves:
                host.wait([game.current_node], 600)
                started = time.monotonic()
                move, node = generate_ai_move(game, mode, settings)
                seconds.append(time.monotonic() - started)
                if node is None:
                    host.errors.append(f"move {len(seconds)}: {move} was not played")
                    break
                bar.update(1)
        host.wait([game.current_node], 600)
        game.write_sgf(str(work / f"{mode.replace(':', '-')}.sgf"))
        ordered = sorted(seconds)
        return {"mode": mode, "settings": settings, "moves": len(seconds),
                "ended_by_passes": game.end_result is not None,
                "move_seconds": {"median": statistics.median(ordered),
                                 "p99": ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))],
                                 "max": ordered[-1]},
                "errors": list(host.errors)}
    finally:
        host.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    parser.add_argument("--moves", type=int, default=500, help="the most moves a game may last")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    games = [play_game(args.work, mode, args.moves) for mode in args.modes]
    (args.work / "games.json.part").write_text(json.dumps(games, indent=1) + "\n")
    (args.work / "games.json.part").rename(args.work / "games.json")
    for game in games:
        print(f"{game['mode']}: {game['moves']} moves, {'two passes' if game['ended_by_passes'] else 'move cap'}, "
              f"{len(game['errors'])} errors, median {game['move_seconds']['median']:.2f} s a move")
    return 0 if all(not game["errors"] for game in games) else 1


if __name__ == "__main__":
    sys.exit(main())
