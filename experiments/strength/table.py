"""The self-play methods experiment as a table: each arm's compute, data and ratings.

    python experiments/strength/table.py runs/strength [--png experiment.png]

Reads every arm's ``state.json`` (generations, CPU hours, games, policy targets) and the match
results that ``experiments/strength/run.sh WORK rate`` wrote to ``WORK/ratings/`` and prints a
Markdown table: win rate and Elo (95% intervals) against GNU Go level 10 and against the start
network. ``--png`` also draws the Elo against GNU Go per arm with its interval.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # experiments/: what the tables share
from tables import cell, run_summary  # noqa: E402

ARMS = ("puct", "aux", "forced", "gumbel16", "gumbel32")
LABELS = {"start": "start network (supervised)", "puct": "PUCT (plain pipeline)", "aux": "+ auxiliary targets",
          "forced": "+ forced playouts and pruning", "gumbel16": "Gumbel, 16 simulations",
          "gumbel32": "Gumbel, 32 simulations"}


def _match(work: Path, name: str, opponent: str) -> dict[str, Any] | None:
    path = work / "ratings" / f"{name}-{opponent}.json"
    return json.loads(path.read_text()) if path.exists() else None


def table(work: Path) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    lines = ["| arm | generations | CPU hours | games | policy targets | vs GNU Go level 10 | vs start network |",
             "|---|---:|---:|---:|---:|---|---|"]
    rated = []
    for name in ("start", *ARMS):
        if name != "start" and not (work / name / "state.json").exists():
            continue
        run = run_summary(work / name) if name != "start" else {"generations": 0, "cpu_hours": 0, "games": 0,
                                                                 "targets": 0}
        gnugo = _match(work, name, "gnugo10")
        start = "-" if name == "start" else cell(_match(work, name, "start"))
        lines.append(f"| {LABELS[name]} | {run['generations']} | {run['cpu_hours']:.2f} | {run['games']:,} | "
                     f"{run['targets']:,} | {cell(gnugo)} | {start} |")
        if gnugo is not None:
            rated.append((name, gnugo))
    return "\n".join(lines) + "\n", rated


def plot(rated: list[tuple[str, dict[str, Any]]], path: Path) -> None:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8, 4))
    axes = figure.subplots()
    for x, (name, match) in enumerate(rated):
        low, high = match["elo_interval"]
        axes.errorbar([x], [match["elo"]], yerr=[[match["elo"] - low], [high - match["elo"]]], marker="o", capsize=4)
    axes.set_xticks(range(len(rated)), [LABELS[name] for name, _ in rated], rotation=20, ha="right")
    axes.set_ylabel("Elo vs GNU Go level 10 (95% CI)")
    axes.axhline(0, color="grey", linewidth=0.5)
    figure.tight_layout()
    figure.savefig(path, dpi=80)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--png", type=Path, default=None)
    args = parser.parse_args()
    text, rated = table(args.work)
    print(text)
    if args.png is not None and rated:
        plot(rated, args.png)


if __name__ == "__main__":
    main()
