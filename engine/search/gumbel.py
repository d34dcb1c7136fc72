"""Gumbel root search: Gumbel top-m sampling, sequential halving and the completed-Q policy target.

After Danihelka et al., "Policy improvement by planning with Gumbel" (ICLR 2022), as DeepMind's
mctx implements it in ``gumbel_muzero_policy``. The root spends a small simulation budget ``n`` on
``m`` actions sampled without replacement by Gumbel-top-m, halving the candidates in phases;
it then plays the surviving action with the best ``g + logits + sigma(q_hat)`` and trains the
policy towards ``softmax(logits + sigma(completed q_hat))``, which improves on the prior even
when ``n`` is as small as 2-16, where visit counts say little.

Conventions (those of :class:`engine.search.mcts.SearchResult`):

- Every per-action array has shape ``[A]``, ``A = N*N + 1``: points, then pass.
- ``logits`` are log prior probabilities up to an additive constant (every function here is
  invariant to that constant), ``-inf`` on illegal actions: :func:`prior_logits` makes them from
  the evaluator's priors and the root's legal mask. Illegal actions are exactly the non-finite logits.
- ``q[a]`` is the mean value of the subtree under action ``a`` and ``raw_value`` the network's value
  of the root, both from the side to move at the root, in ``[-1, 1]``; ``q`` of unvisited actions
  is ignored. ``visits[a]`` counts this search's simulations through ``a`` (in flight included when
  a batch of simulations is being selected); a Gumbel search starts from a fresh root.
- ``sigma`` is in logit units: ``(c_visit + max visits) * c_scale * q_hat`` with ``q_hat`` the
  completed Q rescaled to ``[0, 1]`` by its minimum and maximum over the legal actions (mctx's
  ``qtransform_completed_by_mix_value``); the paper's Go settings are c_visit 50, c_scale 1.0.

A search uses them in this order: ``root = GumbelRoot.start(priors, legal, m, n, rng)`` after the
root's evaluation (no Dirichlet noise: the Gumbel noise is the exploration); for each simulation
``root.next_action(visits, q, raw_value)`` picks the root child to descend (PUCT below the root);
after ``n`` simulations ``root.final_action(...)`` is the move and ``root.policy_target(...)`` the
recorded policy. :class:`GumbelSearch` is that sequence as a search holds it, planned when the search
begins and started once its root is evaluated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["prior_logits", "gumbel_top_m", "halving_schedule", "sigma", "mixed_value", "completed_q",
           "transformed_q", "next_root_action", "final_action", "improved_policy", "GumbelRoot", "GumbelSearch"]

_TINY = float(np.finfo(np.float32).tiny)  # priors are float32: the smallest positive one
_EPSILON = 1e-8  # smallest denominator when rescaling Q (mctx's)


def prior_logits(priors: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """``log(priors)`` on legal actions (floored at float32's tiny, so a zero prior stays legal), ``-inf`` elsewhere."""
    logits = np.log(np.maximum(np.asarray(priors, dtype=np.float64), _TINY))
    return np.where(legal, logits, -np.inf)


def gumbel_top_m(logits: np.ndarray, legal: np.ndarray, m: int, rng: np.random.Generator,
                 scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Sample ``min(m, legal count)`` distinct legal actions without replacement (Gumbel-top-k trick).

    Returns ``(considered, gumbel)``: ``considered`` (``int64[m']``) sorted by ``gumbel + logits``,
    best first, and the noise ``gumbel`` (``float64[A]``, 0 on illegal actions) that the later
    choices must reuse. ``scale=0`` takes the top-m of the prior (deterministic play in matches).
    """
    if m < 1:
        raise ValueError(f"m must be at least 1, not {m}")
    actions = np.flatnonzero(legal)
    if actions.size == 0:
        raise ValueError("no legal action to sample")
    gumbel = np.zeros(len(logits), dtype=np.float64)
    gumbel[actions] = scale * rng.gumbel(size=actions.size)
    order = np.argsort(-(gumbel[actions] + logits[actions]), kind="stable")
    return actions[order[:min(m, actions.size)]], gumbel


def halving_schedule(num_simulations: int, num_considered: int) -> np.ndarray:
    """Sequential halving as a visit schedule (mctx's ``get_sequence_of_considered_visits``).

    Entry ``i`` (``int64[num_simulations]``) is the visit count that the action chosen by simulation
    ``i`` has before it: the candidates are the considered actions with exactly that many visits.
    Phase ``k`` keeps ``max(2, m // 2**k)`` candidates (all of them while ``m <= 2``) and gives each
    ``max(1, n // (ceil(log2 m) * candidates))`` visits, so every phase spends about
    ``n / ceil(log2 m)`` simulations; the last phase is cut short where the budget ends. One
    candidate takes every simulation; with ``n < m`` only the first ``n`` candidates are visited.
    """
    if num_considered <= 1:
        return np.arange(num_simulations, dtype=np.int64)
    phases = math.ceil(math.log2(num_considered))
    schedule: list[int] = []
    candidates = num_considered
    visited = 0  # visits every remaining candidate has at the start of a round
    while len(schedule) < num_simulations:
        rounds = max(1, num_simulations // (phases * candidates))
        for _ in range(rounds):
            schedule += [visited] * candidates
            visited += 1
        candidates = max(2, candidates // 2)
    return np.array(schedule[:num_simulations], dtype=np.int64)


def sigma(q_hat: np.ndarray, max_visits: float, c_visit: float = 50.0, c_scale: float = 1.0) -> np.ndarray:
    """The monotone transform of rescaled Q (``q_hat`` in [0, 1]) into logit units; it grows with the
    visits, so the search trusts its values more as they firm up."""
    return (c_visit + max_visits) * c_scale * np.asarray(q_hat, dtype=np.float64)


def _softmax(logits: np.ndarray) -> np.ndarray:
    """Softmax of logits that are finite on legal actions and ``-inf`` elsewhere (0 there)."""
    legal = np.isfinite(logits)
    weights = np.zeros(len(logits), dtype=np.float64)
    weights[legal] = np.exp(logits[legal] - logits[legal].max())
    return weights / weights.sum()


def mixed_value(raw_value: float, q: np.ndarray, visits: np.ndarray, logits: np.ndarray) -> float:
    """The value given to unvisited actions: the network's value mixed with the prior-weighted Q of
    the visited actions, weighted by the visits (Appendix D; mctx's ``_compute_mixed_value``):

    ``v_mix = (raw_value + sum N * sum_{N>0} p q / sum_{N>0} p) / (sum N + 1)``, ``p = softmax(logits)``.
    """
    visits = np.asarray(visits, dtype=np.float64)
    total = visits.sum()
    visited = visits > 0
    if total == 0:
        return float(raw_value)
    probs = np.maximum(_softmax(logits), np.finfo(np.float64).tiny)[visited]
    weighted_q = float(np.dot(probs, np.asarray(q, dtype=np.float64)[visited]) / probs.sum())
    return (raw_value + total * weighted_q) / (total + 1)


def completed_q(q: np.ndarray, visits: np.ndarray, logits: np.ndarray, raw_value: float) -> np.ndarray:
    """Q of visited actions, :func:`mixed_value` for the others (``float64[A]``)."""
    v_mix = mixed_value(raw_value, q, visits, logits)
    return np.where(np.asarray(visits) > 0, np.asarray(q, dtype=np.float64), v_mix)


def transformed_q(q: np.ndarray, visits: np.ndarray, logits: np.ndarray, raw_value: float,
                  c_visit: float = 50.0, c_scale: float = 1.0) -> np.ndarray:
    """``sigma(q_hat)``: completed Q, rescaled to [0, 1] over the legal actions, in logit units (``float64[A]``).

    Min-max rescaling (rather than the value's fixed [-1, 1] range) makes the first few simulations
    count even when their values differ by little.
    """
    completed = completed_q(q, visits, logits, raw_value)
    legal = np.isfinite(logits)
    low, high = completed[legal].min(), completed[legal].max()
    q_hat = (completed - low) / max(high - low, _EPSILON)
    return sigma(q_hat, float(np.max(visits)), c_visit, c_scale)


def _best_among(candidates: np.ndarray, gumbel: np.ndarray, logits: np.ndarray, sigma_q: np.ndarray) -> int:
    scores = gumbel[candidates] + logits[candidates] + sigma_q[candidates]
    return int(candidates[np.argmax(scores)])


def next_root_action(schedule: np.ndarray, considered: np.ndarray, gumbel: np.ndarray, logits: np.ndarray,
                     sigma_q: np.ndarray, visits: np.ndarray) -> int:
    """The root action for the next simulation, whose index is ``sum(visits)``: among the considered
    actions that have exactly ``schedule[index]`` visits (those still in the halving that this round
    has not visited yet), the one maximising ``gumbel + logits + sigma_q``.

    Raises ``ValueError`` when the budget is spent or ``visits`` did not come from this schedule.
    """
    index = int(np.sum(visits))
    if index >= len(schedule):
        raise ValueError(f"the schedule's {len(schedule)} simulations are spent")
    counts = np.asarray(visits)[considered]
    candidates = considered[counts == schedule[index]]
    if candidates.size == 0:
        raise ValueError(f"no considered action has {schedule[index]} visits: the visits did not follow "
                         "the schedule (a reused tree, or a simulation that was not counted)")
    return _best_among(candidates, gumbel, logits, sigma_q)


def final_action(considered: np.ndarray, gumbel: np.ndarray, logits: np.ndarray, sigma_q: np.ndarray,
                 visits: np.ndarray) -> int:
    """The move to play: among the most-visited considered actions (the halving's survivors), the one
    maximising ``gumbel + logits + sigma_q``."""
    counts = np.asarray(visits)[considered]
    return _best_among(considered[counts == counts.max()], gumbel, logits, sigma_q)


def improved_policy(logits: np.ndarray, sigma_q: np.ndarray) -> np.ndarray:
    """The policy target ``softmax(logits + sigma_q)`` over the legal actions (``float32[A]``, 0 on illegal)."""
    return _softmax(np.asarray(logits, dtype=np.float64) + sigma_q).astype(np.float32)


@dataclass(frozen=True, eq=False)  # arrays have no truth value: compare by identity
class GumbelRoot:
    """One root's Gumbel search state: what the per-simulation choice, the move and the target share."""

    logits: np.ndarray  # float64[A], -inf on illegal actions
    gumbel: np.ndarray  # float64[A]
    considered: np.ndarray  # int64[m'], best first
    schedule: np.ndarray  # int64[n]
    c_visit: float = 50.0
    c_scale: float = 1.0

    @classmethod
    def start(cls, priors: np.ndarray, legal: np.ndarray, m: int, num_simulations: int, rng: np.random.Generator,
              *, gumbel_scale: float = 1.0, c_visit: float = 50.0, c_scale: float = 1.0) -> GumbelRoot:
        """Sample the considered actions for a search of ``num_simulations`` from the root's ``priors``."""
        logits = prior_logits(priors, legal)
        considered, gumbel = gumbel_top_m(logits, legal, m, rng, gumbel_scale)
        return cls(logits, gumbel, considered, halving_schedule(num_simulations, len(considered)), c_visit, c_scale)

    def _sigma_q(self, visits: np.ndarray, q: np.ndarray, raw_value: float) -> np.ndarray:
        return transformed_q(q, visits, self.logits, raw_value, self.c_visit, self.c_scale)

    def next_action(self, visits: np.ndarray, q: np.ndarray, raw_value: float,
                    pending: np.ndarray | None = None) -> int:
        """See :func:`next_root_action`. ``pending``: simulations per action still in flight (a batch being
        selected): the schedule counts them, the completed Q cannot yet."""
        counts = visits if pending is None else np.asarray(visits) + pending
        return next_root_action(self.schedule, self.considered, self.gumbel, self.logits,
                                self._sigma_q(visits, q, raw_value), counts)

    def next_actions(self, budget: int, visits: np.ndarray, q: np.ndarray, raw_value: float,
                     pending: np.ndarray) -> list[int]:
        """The root actions of the next ``budget`` simulations (fewer where the schedule ends), chosen one by one
        as :meth:`next_action` would, each counted in flight for the next; ``pending`` is updated so."""
        actions: list[int] = []
        for _ in range(min(budget, len(self.schedule) - int((visits + pending).sum()))):
            action = self.next_action(visits, q, raw_value, pending)
            pending[action] += 1
            actions.append(action)
        return actions

    def final_action(self, visits: np.ndarray, q: np.ndarray, raw_value: float) -> int:
        """See :func:`final_action`."""
        return final_action(self.considered, self.gumbel, self.logits, self._sigma_q(visits, q, raw_value), visits)

    def policy_target(self, visits: np.ndarray, q: np.ndarray, raw_value: float) -> np.ndarray:
        """See :func:`improved_policy`."""
        return improved_policy(self.logits, self._sigma_q(visits, q, raw_value))

    def value(self, visits: np.ndarray, q: np.ndarray, raw_value: float) -> float:
        """The root's value under the improved policy: its completed Q weighted by :meth:`policy_target`.

        The visits' mean would average in the moves that sequential halving visits only to rule
        them out; a resignation rule reading it resigned won games.
        """
        policy = self.policy_target(visits, q, raw_value)
        return float(np.dot(policy, completed_q(q, visits, self.logits, raw_value)))


@dataclass
class GumbelSearch:
    """One search's Gumbel root: planned when the search begins (``considered`` actions, ``simulations`` after
    the root's own evaluation, Gumbel noise of ``scale``: 0 takes the prior's top m), sampled by :meth:`start`
    once the root's priors are known; ``root`` is None until then."""

    considered: int
    simulations: int
    scale: float = 1.0
    c_visit: float = 50.0
    c_scale: float = 1.0
    root: GumbelRoot | None = None

    def start(self, priors: np.ndarray, legal: np.ndarray, rng: np.random.Generator) -> GumbelRoot:
        self.root = GumbelRoot.start(priors, legal, self.considered, self.simulations, rng, gumbel_scale=self.scale,
                                     c_visit=self.c_visit, c_scale=self.c_scale)
        return self.root
