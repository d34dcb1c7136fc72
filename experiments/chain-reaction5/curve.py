"""The run's curve: each rated generation's win rate against the random player and against pure MCTS.

    python experiments/chain-reaction5/curve.py RUN OUT [--games 20] [--visits 100]

The loop rates its networks against pure MCTS (``RUN/state.json``); this plays each rated generation whose
network is still in ``RUN/models`` against the random player as well, keeps every result in
``OUT/random/NNNNNN.json`` (so a generation is played once, and the results outlive the run directory, which
keeps only its best network when it moves to another machine), and draws both curves with their 95%
intervals in ``OUT/curve.png``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engine import EvaluatorOptions, atomic_path, write_text
from training.loop import load_config
from training.match import make_agent, play_match
from training.match_config import MatchConfig
from training.settings import replace_paths
from training.stats import wilson_interval


def rated_generations(run: Path) -> list[dict[str, Any]]:
    """The rows of ``RUN/state.json``'s history that the loop rated."""
    return [row for row in json.loads((run / "state.json").read_text())["history"] if row.get("rating")]


def rate_against_random(run: Path, rated: list[dict[str, Any]], out: Path, games: int,
                        visits: int) -> dict[int, dict[str, float]]:
    """Each rated generation's score against the random player: played where not yet kept in ``out``."""
    rules = load_config(run).game_rules()
    results = {}
    for row in rated:
        generation = row["generation"]
        kept = out / "random" / f"{generation:06d}.json"
        model = run / "models" / row["model"]
        if not kept.exists() and model.exists():
            match = replace_paths(MatchConfig(games=games, seed=generation), {"player.visits": visits})
            network = EvaluatorOptions(runtime="numpy", random_symmetry=True, seed=generation)   # one thread
            result = play_match(make_agent(str(model), rules, match, network), make_agent("random", rules, match),
                                rules, match)
            kept.parent.mkdir(parents=True, exist_ok=True)
            write_text(kept, json.dumps({"generation": generation, "games": result.games, "score": result.rate,
                                         "visits": visits}))
        if kept.exists():
            results[generation] = json.loads(kept.read_text())
    return results


def draw(history: list[dict[str, Any]], random_results: dict[int, dict[str, float]], path: Path) -> None:
    """Both win rates per generation, with Wilson intervals."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    figure = Figure(figsize=(8, 4.5))
    axes = figure.subplots()
    series = [(f"against {history[0]['rating']['opponent']} (network at the loop's match visits)" if history else "",
               [(row["generation"], row["rating"]["win_rate"], row["rating"]["games"]) for row in history]),
              ("against the random player (network at "
               f"{next(iter(random_results.values()))['visits'] if random_results else '?'} visits)",
               [(g, r["score"], r["games"]) for g, r in sorted(random_results.items())])]
    for label, points in series:
        if not points:
            continue
        x = [g for g, _, _ in points]
        y = [100 * s for _, s, _ in points]
        bounds = [wilson_interval(s * n, n) for _, s, n in points]
        errors = [[max(v - 100 * low, 0.0) for v, (low, _) in zip(y, bounds)],   # 0, not -1e-14, at 100%
                  [max(100 * high - v, 0.0) for v, (_, high) in zip(y, bounds)]]
        axes.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=label)
    axes.set_xlabel("generation")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylabel("win rate, % (95% interval)")
    axes.set_ylim(0, 100)
    axes.set_title("Chain Reaction 5x5 from zero")
    axes.legend(loc="lower right", fontsize="small")
    figure.tight_layout()
    with atomic_path(path) as temp:
        figure.savefig(temp, format="png", dpi=80)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--visits", type=int, default=100)
    args = parser.parse_args()
    rated = rated_generations(args.run)
    results = rate_against_random(args.run, rated, args.out, args.games, args.visits)
    draw(rated, results, args.out / "curve.png")
    print(f"{args.out / 'curve.png'}: {len(results)} generations against the random player")


if __name__ == "__main__":
    main()
