"""What the experiments' tables share: a match as a table cell, and an ``engine loop`` run's compute and data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from training.stats import signed

__all__ = ["cell", "run_summary"]


def cell(match: dict[str, Any] | None) -> str:
    """A match's win rate and Elo with their 95% intervals, as a table cell."""
    if match is None:
        return "not rated"
    low, high = match["win_rate_interval"]
    elo_low, elo_high = match["elo_interval"]
    return (f"{100 * match['win_rate']:.0f}% [{100 * low:.0f}-{100 * high:.0f}] of {match['games']}, "
            f"Elo {signed(match['elo'])} [{signed(elo_low)}, {signed(elo_high)}]")


def run_summary(run: Path) -> dict[str, Any]:
    """Generations, CPU hours, self-play games and policy targets of the ``engine loop`` run in ``run``."""
    state = json.loads((run / "state.json").read_text())
    history = state["history"][1:]
    return {"generations": len(history), "cpu_hours": sum(row.get("cpu_seconds", 0.0) for row in history) / 3600,
            "games": sum(row.get("selfplay", {}).get("games", 0) for row in history),
            "targets": sum(row.get("selfplay", {}).get("targets", 0) for row in history)}
