"""Match statistics: a win rate's Wilson score interval and the Elo difference it implies.

A game scores 1 for a win, 1/2 for a draw, 0 for a loss. Over n games with
score s the Wilson interval at z standard errors (1.96: 95%) is::

    (p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n),   p = s / n

The logistic Elo difference of a score rate p is ``-400 log10(1/p - 1)``.
It is infinite at p = 0 or 1, so rates are clipped to [1/2n, 1 - 1/2n]
(half a game from a clean sweep) before converting.
"""

from __future__ import annotations

import math

__all__ = ["wilson_interval", "elo_difference", "elo_interval", "signed", "Z_95"]

Z_95 = 1.959963984540054


def wilson_interval(score: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of the rate ``score / games`` (draws counted as half a win)."""
    if games <= 0:
        return (0.0, 1.0)
    if not 0 <= score <= games:
        raise ValueError(f"a score of {score} is impossible in {games} games")
    p = score / games
    denominator = 1 + z * z / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (max(0.0, (centre - spread) / denominator), min(1.0, (centre + spread) / denominator))


def elo_difference(rate: float, games: int) -> float:
    """Elo difference implied by a score rate, the rate clipped to [1/2n, 1 - 1/2n]."""
    floor = 0.5 / max(games, 1)
    p = min(max(rate, floor), 1 - floor)
    return -400.0 * math.log10(1.0 / p - 1.0)


def elo_interval(score: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson interval's bounds as Elo differences."""
    low, high = wilson_interval(score, games, z)
    return (elo_difference(low, games), elo_difference(high, games))


def signed(elo: float) -> str:
    """An Elo difference as ``+191`` / ``-40`` / ``+0`` (never ``-0``)."""
    return f"{round(elo) + 0:+d}"
