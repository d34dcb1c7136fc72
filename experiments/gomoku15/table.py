"""The 15x15 Gomoku runs as a table and a curve: ``experiments/gomoku15/run.sh WORK table``.

    python experiments/gomoku15/table.py runs/gomoku [--png gomoku.png]

For each rules set: the supervised start (held-out top-1 accuracy of ``WORK/supervised-RULES``), the
self-play loop's compute (``WORK/loop-RULES/state.json``), its last rating against the loop's fixed
opponent, and the shipping matches (``WORK/matches/RULES-OPPONENT-SIZE.json``: win rate, Elo, wins as
black). ``--png`` draws the Elo against the fixed opponent per generation, one line per rules set,
with 95% intervals: the curve of the experiment's README.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # experiments/: what the tables share
from tables import cell, run_summary  # noqa: E402

RULESETS = ("freestyle", "renju")


def _json(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text()) if path.exists() else None


def _ratings(work: Path, rules: str) -> list[dict[str, Any]]:
    state = _json(work / f"loop-{rules}" / "state.json")
    return [] if state is None else [row for row in state["history"] if row.get("rating")]


def table(work: Path) -> str:
    lines = ["| rules | supervised top-1 | generations | CPU hours | self-play games | last rating | match | "
             "result | wins as black |", "|---|---:|---:|---:|---:|---|---|---|---:|"]
    for rules in RULESETS:
        validation = _json(work / f"supervised-{rules}" / "validation.json")
        top1 = f"{100 * validation['top1']:.1f}%" if validation else "-"
        loop = work / f"loop-{rules}"
        run = run_summary(loop) if (loop / "state.json").exists() else {"generations": 0, "cpu_hours": 0.0,
                                                                         "games": 0}
        rated = _ratings(work, rules)
        last = "-"
        if rated:
            rating = rated[-1]["rating"]
            last = (f"gen {rated[-1]['generation']}: {100 * rating['win_rate']:.0f}% of {rating['games']} vs "
                    f"{rating['opponent']}")
        matches = sorted((work / "matches").glob(f"{rules}-*.json"))
        for index, path in enumerate(matches or [None]):
            match = None if path is None else _json(path)
            name = "-" if path is None else path.stem[len(rules) + 1:]
            black = "-" if match is None else f"{match['a_black_wins']}/{match['a_black_games']}"
            head = (f"| {rules} | {top1} | {run['generations']} | {run['cpu_hours']:.2f} | {run['games']:,} | {last}"
                    if index == 0 else "| | | | | | ")
            lines.append(f"{head} | {name} | {cell(match) if match else '-'} | {black} |")
    return "\n".join(lines) + "\n"


def plot(work: Path, path: Path) -> bool:
    """The Elo per generation against each loop's fixed opponent; False when nothing is rated yet."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4))
    axes = figure.subplots()
    drawn = False
    for rules in RULESETS:
        rated = _ratings(work, rules)
        if not rated:
            continue
        x = [row["generation"] for row in rated]
        y = [row["rating"]["elo"] for row in rated]
        errors = [[v - row["rating"]["elo_low"] for v, row in zip(y, rated)],
                  [row["rating"]["elo_high"] - v for v, row in zip(y, rated)]]
        axes.errorbar(x, y, yerr=errors, marker="o", capsize=3, label=f"{rules} vs {rated[0]['rating']['opponent']}")
        drawn = True
    if not drawn:
        return False
    axes.set_xlabel("generation")
    axes.set_ylabel("Elo vs the fixed opponent (95% CI)")
    axes.axhline(0, color="grey", linewidth=0.5)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--png", type=Path, default=None)
    args = parser.parse_args()
    print(table(args.work))
    if args.png is not None and plot(args.work, args.png):
        print(f"curve: {args.png}")


if __name__ == "__main__":
    main()
