"""The levels' ratings from every match in a run folder: a Bradley-Terry fit (Elo scale) by maximum likelihood,
GNU Go level 1 at 0, each rating with its 95% interval from the fit's Fisher information; then each pair's
score. Usage: python experiments/levels/table.py WORK"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np

ANCHOR = "gnugo1"
ELO = 400 / math.log(10)


def matches(work: Path) -> list[tuple[str, str, float, int]]:
    """(A, B, A's points with a draw as half, games) for every finished match ``A-vs-B.json``."""
    rows = []
    for path in sorted(work.glob("*-vs-*.json")):
        a, b = path.stem.split("-vs-")
        result = json.loads(path.read_text())
        rows.append((a, b, result["wins"] + 0.5 * result["draws"], result["games"]))
    return rows


def fit(rows: list[tuple[str, str, float, int]]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Names, ratings and their standard errors (Elo), the anchor fixed at 0."""
    names = sorted({n for a, b, _, _ in rows for n in (a, b)}, key=lambda n: (n != ANCHOR, n))
    index = {n: i for i, n in enumerate(names)}
    theta = np.zeros(len(names))
    prior = 1e-3   # a whisper of a prior keeps a player that won or lost every game finite
    for _ in range(200):   # Newton's method on the log-likelihood
        grad, hess = -prior * theta, -prior * np.eye(len(names))
        for a, b, points, games in rows:
            i, j = index[a], index[b]
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            g, h = points - games * p, games * p * (1 - p)
            grad[i] += g
            grad[j] -= g
            hess[[i, j], [i, j]] -= h
            hess[i, j] += h
            hess[j, i] += h
        free = np.arange(1, len(names))
        step = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        theta[free] -= step
        if np.abs(step).max() < 1e-9:
            break
    errors = np.zeros(len(names))
    errors[1:] = np.sqrt(np.diag(np.linalg.inv(-hess[np.ix_(free, free)])))
    return names, theta * ELO, errors * ELO


def main(work: Path) -> None:
    rows = matches(work)
    names, ratings, errors = fit(rows)
    print("| player | Elo (GNU Go level 1 = 0) | 95% interval |\n|---|---:|---|")
    for name, rating, error in sorted(zip(names, ratings, errors), key=lambda r: r[1]):
        print(f"| {name} | {rating:+.0f} | [{rating - 1.96 * error:+.0f}, {rating + 1.96 * error:+.0f}] |")
    print("\n| match | A's wins-losses-draws | A's score |\n|---|---|---:|")
    for path in sorted(work.glob("*-vs-*.json")):
        r = json.loads(path.read_text())
        print(f"| {path.stem} | {r['wins']}-{r['losses']}-{r['draws']} | {100 * r['win_rate']:.0f}% "
              f"[{100 * r['win_rate_interval'][0]:.0f}-{100 * r['win_rate_interval'][1]:.0f}] |")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
