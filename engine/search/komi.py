"""The value of a position at the game's komi, from a network that learnt another komi.

A network without a komi input learns the win rate at the komi of its training games. Its score head says more:
the final score difference ``mu`` from the side to move and its spread ``sigma`` (points, at the model's komi).
Taking the final score as normal around ``mu`` with spread ``sigma``, the side to move wins with probability
``Phi(mu / sigma)`` at the model's komi and ``Phi((mu + delta) / sigma)`` where the game gives it ``delta`` more
points; the value (``2 P - 1``) moves by twice that difference, and the score lead by ``delta``.

``delta`` counts the whole of White's compensation: the komi and, in a handicap game, White's handicap bonus
under the rules in force (:func:`engine.core.scoring.with_handicap_bonus` puts both in the rules' komi). Area and
territory scoring differ here only by the komi they are played at: what else they change (the dame, seki's eyes,
stones played inside one's own territory) is not modelled.

An evaluator states the komi its values are at as an optional ``komi`` attribute (points; None or absent:
unknown, and nothing is corrected): the model file's ``komi`` field for a network.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.core.types import WHITE

__all__ = ["MIN_SPREAD", "evaluator_komi", "komi_shift", "at_komi"]

MIN_SPREAD = 0.5
"""The least score spread (points) the correction assumes: a network sure to the half point of a result still
gives a komi change of less than its spread a smooth effect, and no spread divides by zero."""

_SQRT2 = math.sqrt(2.0)
_erf = np.frompyfunc(math.erf, 1, 1)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + _erf(x / _SQRT2).astype(np.float64))


def evaluator_komi(evaluator: Any) -> float | None:
    """The komi (points) an evaluator's values and scores are at: its ``komi`` attribute, None where unknown."""
    komi = getattr(evaluator, "komi", None)
    return None if komi is None else float(komi)


def komi_shift(difference: float, to_play: np.ndarray) -> np.ndarray:
    """``float64[B]``: the points the game gives each position's side to move (``to_play``, ``int[B]`` of
    colours) beyond what the model's komi gives it, the game's komi being ``difference`` points above the
    model's: ``difference`` for White, ``-difference`` for Black."""
    return np.where(np.asarray(to_play) == WHITE, float(difference), -float(difference))


def at_komi(values: np.ndarray, score_mean: np.ndarray, score_stdev: np.ndarray,
            delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The values and score leads (``float32[B]`` each, side to move) of positions whose side to move is given
    ``delta`` more points (``float[B]``) than the network's ``values``, ``score_mean`` and ``score_stdev`` were at.

    The value moves by ``2 * (Phi((mu + delta) / sigma) - Phi(mu / sigma))`` (``sigma`` at least
    :data:`MIN_SPREAD`), clipped to [-1, 1]; the score by ``delta``. ``delta`` 0 changes nothing.
    """
    mu = np.asarray(score_mean, dtype=np.float64)
    sigma = np.maximum(np.asarray(score_stdev, dtype=np.float64), MIN_SPREAD)
    delta = np.asarray(delta, dtype=np.float64)
    shift = 2.0 * (_normal_cdf((mu + delta) / sigma) - _normal_cdf(mu / sigma))
    corrected = np.clip(np.asarray(values, dtype=np.float64) + shift, -1.0, 1.0)
    return corrected.astype(np.float32), (mu + delta).astype(np.float32)
