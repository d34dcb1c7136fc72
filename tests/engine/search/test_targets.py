"""Forced playouts and policy target pruning: hand cases and the pruning rules as properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.search.targets import forced_visits, prune_policy_target, pruned_visits


def test_forced_visits_hand_case() -> None:
    # sqrt(2 * 0.5 * 100) = 10, sqrt(2 * 0.02 * 100) = 2, and nothing for a zero prior.
    np.testing.assert_allclose(forced_visits(np.array([0.5, 0.02, 0.0]), 100), [10.0, 2.0, 0.0])
    np.testing.assert_allclose(forced_visits(np.array([0.5]), 100, k=8.0), [20.0])


# A root after 99 simulations (root visits 100, c_puct 1: explore = 10). Action 6 is illegal.
#              best  forced  earned part  cap   unvisited illegal
VISITS = np.array([60, 4, 20, 5, 10, 0, 0], dtype=np.float32)
PRIORS = np.array([0.4, 0.08, 0.3, 0.12, 0.02, 0.08, 0.0], dtype=np.float32)
Q = np.array([0.3, -0.5, 0.25, 0.066, -0.2, 0.0, 0.0], dtype=np.float32)


def test_pruning_hand_case() -> None:
    # PUCT(best) = 0.3 + 10 * 0.4 / 61 = 0.36557.
    # 1: 4 visits, all forced (floor sqrt(2 * 0.08 * 99) = 3); PUCT wanted none: 4 - 3 = 1 left, pruned.
    # 2: Q 0.25 needs 25 visits to fall to PUCT(best): keeps its 20.
    # 3: PUCT(4 visits) = 0.066 + 1.2 / 5 = 0.306 <= 0.36557 < PUCT(3 visits) = 0.066 + 1.2 / 4 = 0.366:
    #    keeps the 4 it earned, although its forced visits (floor sqrt(2 * 0.12 * 99) = 4) would allow 1.
    # 4: PUCT wanted none, but only floor(sqrt(2 * 0.02 * 99)) = 1 visit was forced: keeps 9.
    kept = pruned_visits(VISITS, PRIORS, Q, parent_visits=100, c_puct=1.0)
    np.testing.assert_array_equal(kept, [60, 0, 20, 4, 9, 0, 0])
    target = prune_policy_target(VISITS, PRIORS, Q, parent_visits=100, c_puct=1.0)
    np.testing.assert_allclose(target, np.array([60, 0, 20, 4, 9, 0, 0]) / 93, rtol=1e-6)
    assert target.dtype == np.float32


def test_a_single_visit_is_pruned_but_the_best_child_is_not() -> None:
    kept = pruned_visits(np.array([10, 1, 0]), np.array([0.2, 0.7, 0.1]), np.array([0.0, 0.9, 0.0]),
                         parent_visits=12, c_puct=1.25)
    np.testing.assert_array_equal(kept, [10, 0, 0])
    only = pruned_visits(np.array([1, 0]), np.array([0.5, 0.5]), np.zeros(2), parent_visits=2, c_puct=1.25)
    np.testing.assert_array_equal(only, [1, 0])


def test_no_visits_is_an_error() -> None:
    with pytest.raises(ValueError, match="no visits"):
        prune_policy_target(np.zeros(3), np.full(3, 1 / 3), np.zeros(3), parent_visits=1, c_puct=1.25)


def _puct(q: float, prior: float, n: float, explore: float) -> float:
    return q + explore * prior / (1 + n)


@st.composite
def roots(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    size = draw(st.integers(2, 8))
    visits = np.array(draw(st.lists(st.integers(0, 60), min_size=size, max_size=size)), dtype=np.float64)
    if visits.sum() == 0:
        visits[0] = 1
    weights = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=size, max_size=size))) + 1e-3
    q = np.array(draw(st.lists(st.floats(-1.0, 1.0), min_size=size, max_size=size)))
    return visits, weights / weights.sum(), q, draw(st.floats(0.5, 3.0))


@given(roots())
def test_pruning_removes_only_unearned_forced_visits(root: tuple[np.ndarray, np.ndarray, np.ndarray, float]) -> None:
    visits, priors, q, c_puct = root
    parent = visits.sum() + 1
    kept = pruned_visits(visits, priors, q, parent_visits=parent, c_puct=c_puct)
    best = int(np.argmax(visits))
    assert kept[best] == visits[best]
    assert np.all((kept >= 0) & (kept <= visits))
    explore = c_puct * math.sqrt(parent)
    best_puct = _puct(q[best], priors[best], visits[best], explore)
    forced = np.floor(np.sqrt(2.0 * priors * visits.sum()))
    for c in range(len(visits)):
        if c == best or visits[c] == 0:
            continue
        if kept[c] == 0:  # reduced to one visit or none, then pruned
            assert visits[c] - forced[c] <= 1
            assert visits[c] <= 1 or _puct(q[c], priors[c], 1, explore) <= best_puct + 1e-6
            continue
        assert kept[c] >= 2 and kept[c] >= visits[c] - forced[c]  # never more than the forced visits go
        if kept[c] < visits[c]:  # what it gave back, PUCT would not have spent
            assert _puct(q[c], priors[c], kept[c], explore) <= best_puct + 1e-6
        if kept[c] > visits[c] - forced[c]:  # it could give back more: the visit it keeps last was earned
            assert _puct(q[c], priors[c], kept[c] - 1, explore) > best_puct - 1e-6
    target = prune_policy_target(visits, priors, q, parent_visits=parent, c_puct=c_puct)
    assert target.sum() == pytest.approx(1.0, abs=1e-6)
    assert np.all(target[visits == 0] == 0)


def _bandit(priors: np.ndarray, q: np.ndarray, simulations: int, forced_k: float) -> np.ndarray:
    """tree.py's root selection on fixed-value arms, with the forced-playout floor when ``forced_k > 0``."""
    visits = np.zeros(len(priors))
    for _ in range(simulations):
        floor = forced_visits(priors, visits.sum(), forced_k) if forced_k > 0 else np.zeros(len(priors))
        short = np.flatnonzero((visits > 0) & (visits < floor))
        if short.size:
            arm = int(short[0])
        else:
            explore = math.sqrt(max(visits.sum() + 1, 1))
            values = np.where(visits > 0, q, 0.0) + explore * priors / (1 + visits)
            arm = int(np.argmax(values))
        visits[arm] += 1
    return visits


def test_pruning_undoes_what_forcing_did() -> None:
    """With the floor the poor arms collect more visits; pruning gives them back plain PUCT's visits."""
    priors = np.array([0.35, 0.15, 0.4, 0.1])
    q = np.array([0.4, -0.6, -0.5, 0.1])
    plain = _bandit(priors, q, 400, 0.0)
    forced = _bandit(priors, q, 400, 2.0)
    assert np.abs(forced - plain)[1:].min() >= 3  # forcing moved visits to every poor arm...
    kept = pruned_visits(forced, priors, q, parent_visits=forced.sum() + 1, c_puct=1.0)
    np.testing.assert_array_equal(kept[1:], plain[1:])  # ...and pruning takes exactly those back
    target = prune_policy_target(forced, priors, q, parent_visits=forced.sum() + 1, c_puct=1.0)
    np.testing.assert_allclose(target, plain / plain.sum(), atol=0.005)
