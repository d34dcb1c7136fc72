"""Gumbel root search: sampling, the sequential-halving schedule, the choices and the completed-Q target."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.search.gumbel import (
    GumbelRoot,
    completed_q,
    final_action,
    gumbel_top_m,
    halving_schedule,
    improved_policy,
    mixed_value,
    next_root_action,
    prior_logits,
    sigma,
    transformed_q,
)

# ------------------------------------------------------------------ sampling


def test_prior_logits_mark_illegal_actions_and_keep_zero_priors_legal() -> None:
    logits = prior_logits(np.array([0.5, 0.0, 0.5, 0.2], dtype=np.float32), np.array([True, True, True, False]))
    assert logits[0] == pytest.approx(math.log(0.5))
    assert np.isfinite(logits[1]) and logits[1] < -80
    assert logits[3] == -np.inf


@st.composite
def masks(draw: st.DrawFn) -> np.ndarray:
    legal = np.array(draw(st.lists(st.booleans(), min_size=1, max_size=30)))
    if not legal.any():
        legal[draw(st.integers(0, len(legal) - 1))] = True
    return legal


@given(masks(), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_gumbel_top_m_samples_distinct_legal_actions_reproducibly(legal: np.ndarray, m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    logits = prior_logits(rng.dirichlet(np.ones(len(legal))), legal)
    considered, gumbel = gumbel_top_m(logits, legal, m, np.random.default_rng(seed))
    assert len(considered) == min(m, legal.sum())
    assert len(set(considered.tolist())) == len(considered)
    assert legal[considered].all()
    assert np.all(gumbel[~legal] == 0)
    scores = gumbel[considered] + logits[considered]
    assert np.all(np.diff(scores) <= 0)  # best first...
    others = np.setdiff1d(np.flatnonzero(legal), considered)
    assert others.size == 0 or (gumbel[others] + logits[others]).max() <= scores.min()  # ...and the top m
    again, noise = gumbel_top_m(logits, legal, m, np.random.default_rng(seed))
    np.testing.assert_array_equal(again, considered)
    np.testing.assert_array_equal(noise, gumbel)


def test_gumbel_top_1_samples_the_prior() -> None:
    """Gumbel-max: argmax(g + logits) is distributed as softmax(logits)."""
    priors = np.array([0.6, 0.0, 0.3, 0.1])
    legal = np.array([True, False, True, True])
    logits = prior_logits(priors, legal)
    rng = np.random.default_rng(7)
    draws = [int(gumbel_top_m(logits, legal, 1, rng)[0][0]) for _ in range(4000)]
    frequency = np.bincount(draws, minlength=4) / len(draws)
    np.testing.assert_allclose(frequency, priors, atol=0.03)


def test_gumbel_top_m_without_noise_takes_the_prior_top_m() -> None:
    logits = prior_logits(np.array([0.1, 0.4, 0.2, 0.3]), np.ones(4, dtype=bool))
    considered, gumbel = gumbel_top_m(logits, np.ones(4, dtype=bool), 3, np.random.default_rng(0), scale=0.0)
    np.testing.assert_array_equal(considered, [1, 3, 2])
    assert not gumbel.any()


def test_gumbel_top_m_rejects_nonsense() -> None:
    legal = np.array([True, False])
    with pytest.raises(ValueError, match="at least 1"):
        gumbel_top_m(np.zeros(2), legal, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="no legal action"):
        gumbel_top_m(np.zeros(2), np.zeros(2, dtype=bool), 4, np.random.default_rng(0))


# ------------------------------------------------------------------ schedule


@pytest.mark.parametrize("n,m,expected", [
    (10, 4, [0, 0, 0, 0, 1, 1, 2, 2, 3, 3]),  # phase 1: 4 x 1 visit; phase 2: 2 x 2, 2 x 1 cut short by the budget
    (16, 4, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]),  # 8 simulations per phase
    (4, 3, [0, 0, 0, 1]),
    (3, 8, [0, 0, 0]),  # fewer simulations than actions: the first three each get one
    (5, 1, [0, 1, 2, 3, 4]),  # one action takes everything
    (0, 4, []),
])
def test_halving_schedule_hand_cases(n: int, m: int, expected: list[int]) -> None:
    np.testing.assert_array_equal(halving_schedule(n, m), expected)


def _follow(schedule: np.ndarray, m: int) -> tuple[np.ndarray, list[int]]:
    """Run the schedule with fixed preferences (lower rank wins): final visits, and each simulation's rank."""
    visits = np.zeros(m, dtype=np.int64)
    chosen = []
    for wanted in schedule:
        candidates = np.flatnonzero(visits == wanted)
        assert candidates.size, "the schedule asks for a visit count no action has"
        visits[candidates[0]] += 1
        chosen.append(int(candidates[0]))
    return visits, chosen


@given(st.integers(0, 400), st.integers(1, 64))
def test_halving_schedule_spends_the_budget_and_halves_the_candidates(n: int, m: int) -> None:
    schedule = halving_schedule(n, m)
    assert len(schedule) == n
    visits, _ = _follow(schedule, m)
    assert visits.sum() == n
    assert np.all(np.diff(visits) <= 0)  # better ranked actions never get fewer visits
    # The number of actions given their (v+1)-th visit, round by round: m, then halved down to 2.
    per_round = np.bincount(schedule) if n else np.zeros(0, dtype=np.int64)
    full = per_round[:-1]  # the last round may be cut short by the budget
    if m == 1:
        assert np.all(per_round == 1)
        return
    expected = [min(m, n)]
    while len(expected) < len(full) + 1 or expected[-1] > 2:
        expected.append(max(2, expected[-1] // 2))
    phases = list(dict.fromkeys(full.tolist()))  # the distinct counts in order: one per phase
    assert phases == expected[:len(phases)]
    if len(per_round):
        assert per_round[-1] <= (full[-1] if len(full) else m)


# ------------------------------------------------------------------ values and target

LEGAL = np.array([True, True, True, False])
PRIORS = np.array([0.5, 0.3, 0.2, 0.0], dtype=np.float32)
VISITS = np.array([2, 1, 0, 0], dtype=np.float32)
Q = np.array([0.2, -0.4, 0.7, 0.0], dtype=np.float32)  # q of the unvisited action 2 must be ignored
RAW_VALUE = 0.1


def test_sigma() -> None:
    assert sigma(np.array(0.5), 10) == pytest.approx(30.0)
    assert sigma(np.array(1.0), 2, c_visit=50, c_scale=0.1) == pytest.approx(5.2)


def test_completed_q_policy_target_hand_case() -> None:
    logits = prior_logits(PRIORS, LEGAL)
    # visited prior 0.8; their weighted Q (0.5 * 0.2 + 0.3 * -0.4) / 0.8 = -0.025;
    # v_mix = (0.1 + 3 * -0.025) / (3 + 1) = 0.00625
    assert mixed_value(RAW_VALUE, Q, VISITS, logits) == pytest.approx(0.00625)
    np.testing.assert_allclose(completed_q(Q, VISITS, logits, RAW_VALUE)[:3], [0.2, -0.4, 0.00625], rtol=1e-6)
    # rescaled over [-0.4, 0.2]: q_hat = [1, 0, 0.40625 / 0.6]; sigma = (50 + 2) * 0.1 * q_hat
    sigma_q = transformed_q(Q, VISITS, logits, RAW_VALUE, c_visit=50, c_scale=0.1)
    np.testing.assert_allclose(sigma_q[:3], [5.2, 0.0, 5.2 * 0.40625 / 0.6], rtol=1e-6)
    weights = [0.5 * math.exp(5.2), 0.3, 0.2 * math.exp(5.2 * 0.40625 / 0.6)]
    expected = np.array(weights + [0.0]) / sum(weights)  # about [0.928, 0.003, 0.069, 0]
    target = improved_policy(logits, sigma_q)
    np.testing.assert_allclose(target, expected, rtol=1e-5)
    assert target.dtype == np.float32 and target[3] == 0


def test_without_visits_the_target_is_the_prior() -> None:
    logits = prior_logits(PRIORS, LEGAL)
    sigma_q = transformed_q(Q, np.zeros(4), logits, RAW_VALUE)
    np.testing.assert_allclose(improved_policy(logits, sigma_q), PRIORS, rtol=1e-5)


@given(masks(), st.integers(0, 2**32 - 1))
def test_the_target_sums_to_one_and_is_zero_on_illegal_actions(legal: np.ndarray, seed: int) -> None:
    rng = np.random.default_rng(seed)
    logits = prior_logits(rng.dirichlet(np.ones(len(legal))), legal)
    visits = np.where(legal & (rng.random(len(legal)) < 0.5), rng.integers(1, 40, len(legal)), 0)
    q = rng.uniform(-1, 1, len(legal))
    target = improved_policy(logits, transformed_q(q, visits, logits, rng.uniform(-1, 1)))
    assert target.sum() == pytest.approx(1.0, abs=1e-6)
    assert np.all(target[~legal] == 0) and np.all(target >= 0)


# ------------------------------------------------------------------ choices


def test_next_root_action_hand_case() -> None:
    logits = prior_logits(PRIORS, np.array([True, True, True, True]))
    considered = np.array([0, 1, 2])
    schedule = halving_schedule(4, 3)  # [0, 0, 0, 1]
    visits = np.array([1, 1, 1, 0])
    q = np.array([0.2, -0.4, 0.5, 0.0])
    # q_hat = [2/3, 0, 1] over the visited, unvisited 3 sits in between; sigma = 51 q_hat = [34, 0, 51]
    sigma_q = transformed_q(q, visits, logits, 0.0)
    np.testing.assert_allclose(sigma_q[:3], [34.0, 0.0, 51.0], rtol=1e-6)
    assert next_root_action(schedule, considered, np.zeros(4), logits, sigma_q, visits) == 2
    gumbel = np.array([20.0, 0.0, 0.0, 0.0])  # log 0.5 + 20 + 34 > log 0.2 + 51
    assert next_root_action(schedule, considered, gumbel, logits, sigma_q, visits) == 0
    # Action 3 is not considered: never chosen, whatever its score.
    assert next_root_action(schedule, considered, np.array([0, 0, 0, 99.0]), logits, sigma_q, visits) == 2
    with pytest.raises(ValueError, match="spent"):
        next_root_action(schedule, considered, gumbel, logits, sigma_q, np.array([2, 1, 1, 0]))
    with pytest.raises(ValueError, match="did not follow"):
        next_root_action(schedule, considered, gumbel, logits, sigma_q, np.array([3, 0, 0, 0]))


def test_final_action_takes_the_best_of_the_most_visited() -> None:
    logits = prior_logits(PRIORS, LEGAL)
    considered = np.array([0, 1, 2])
    sigma_q = np.array([0.0, 10.0, 50.0, 0.0])
    # 2 has the best score but only 1 visit; of 0 and 1 (2 visits each) 1 scores higher.
    assert final_action(considered, np.zeros(4), logits, sigma_q, np.array([2, 2, 1, 0])) == 1


@given(st.integers(1, 48), st.integers(1, 16), st.integers(2, 30), st.integers(0, 2**32 - 1))
def test_a_search_follows_the_schedule_and_plays_a_considered_action(n: int, m: int, size: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    legal = rng.random(size) < 0.7
    legal[rng.integers(size)] = True
    priors = np.where(legal, rng.dirichlet(np.ones(size)), 0.0)
    q = rng.uniform(-1, 1, size)  # each action's fixed value
    root = GumbelRoot.start(priors, legal, m, n, rng)
    visits = np.zeros(size)
    for _ in range(n):
        action = root.next_action(visits, q, 0.0)
        assert action in root.considered
        visits[action] += 1
    assert visits.sum() == n
    played = root.final_action(visits, q, 0.0)
    assert played in root.considered
    assert visits[played] == visits.max()
    target = root.policy_target(visits, q, 0.0)
    assert target.sum() == pytest.approx(1.0, abs=1e-6) and np.all(target[~legal] == 0)


def test_sequential_halving_finds_the_best_considered_action() -> None:
    """Equal priors, 16 of 40 actions considered, the one ranked last by the noise is much the best:
    64 simulations find it, and the target says so."""
    size = 40
    for seed in range(5):
        root = GumbelRoot.start(np.full(size, 1 / size), np.ones(size, dtype=bool), 16, 64,
                                np.random.default_rng(seed))
        best = int(root.considered[-1])
        q = np.full(size, -0.5)
        q[best] = 0.8
        visits = np.zeros(size)
        for _ in range(64):
            visits[root.next_action(visits, q, 0.0)] += 1
        assert root.final_action(visits, q, 0.0) == best
        assert np.argmax(root.policy_target(visits, q, 0.0)) == best
