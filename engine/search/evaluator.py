"""The evaluator protocol: a batch of positions in, move priors and values (and the network's
auxiliary outputs, where it has them) out.

``Evaluator.evaluate(positions, legal=None) -> Evaluation(priors, values, ownership, score_mean, score_stdev,
proven)``:

* ``positions`` is a sequence of Positions or a :class:`~engine.core.position.PositionBatch`
  (the search's leaf batch: stacked arrays, encoded without copying).
* ``legal`` (``bool[B, N*N + 1]``), when the caller already knows the legal
  actions (the search does), saves recomputing them.
* ``priors[b]`` is a probability distribution over actions (pass last) that is
  exactly 0 on every action ``legal[b]`` (default: ``positions[b].legal_mask()``) forbids and sums to
  1. A position with no legal action (a finished game) gets all its mass on
  pass, so every row sums to 1; the search never expands such a node.
* ``values[b]`` is in [-1, 1], from the point of view of the side to move in
  ``positions[b]`` (+1: it wins).
* ``ownership[b]`` (``float32[B, N*N]``, row 0 at the top as actions count) is in
  [-1, 1], +1 where the side to move will own the point at the end; ``score_mean[b]``
  and ``score_stdev[b]`` (``float32[B]``) are the final score difference from the side
  to move and its standard deviation, in points, komi included. They are None when
  the evaluator has no such head (every evaluator here).
* ``proven[b]`` (``bool[B]``), where the evaluator proves some positions (Gomoku's decisive moves):
  ``values[b]`` is exact, +1 or -1, a proof the search's solver carries up its tree. None: nothing proven.

All positions in one batch have the same board size. The network-free
evaluators live here: :class:`UniformEvaluator` (uniform priors, value 0) for
tests and search benchmarks, and :class:`RolloutEvaluator` (uniform priors,
value from random playouts: with it the search is pure Monte-Carlo tree
search, the yardstick of ``engine evaluate``'s ``mcts-rollouts``). The
network's evaluator is :class:`engine.nn.evaluator.NetEvaluator`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from engine.core.board import STONES, TO_PLAY, Geometry, geometry
from engine.core.dispatch import pack_rules, terminal_value, vcf_point, winning_point
from engine.core.playout import random_playout
from engine.core.position import Position, PositionBatch
from engine.core.rng import new_rng
from engine.core.types import opponent

__all__ = ["Evaluation", "Evaluator", "Positions", "UniformEvaluator", "RolloutEvaluator", "legal_masks",
           "masked_softmax", "apply_decisive_moves", "decisive_priors"]

Positions = Sequence[Position] | PositionBatch


class Evaluation(NamedTuple):
    """One batch's evaluation, every field from each position's side to move (see the module docstring)."""

    priors: np.ndarray
    values: np.ndarray
    ownership: np.ndarray | None = None
    score_mean: np.ndarray | None = None
    score_stdev: np.ndarray | None = None
    proven: np.ndarray | None = None

    def rows(self, start: int, stop: int) -> "Evaluation":
        """The evaluation of positions ``start:stop`` of the batch (one caller's share of a joint call)."""
        return Evaluation(*(None if field is None else field[start:stop] for field in self))


@runtime_checkable
class Evaluator(Protocol):
    """Anything the search can ask for priors and values (see the module docstring)."""

    def evaluate(self, positions: Positions, legal: np.ndarray | None = None) -> Evaluation:
        ...


def legal_masks(positions: Positions) -> np.ndarray:
    """``bool[B, N*N + 1]``: each position's legal actions (simple ko; pass last)."""
    if isinstance(positions, PositionBatch):
        return positions.legal_masks()
    return np.stack([position.legal_mask() for position in positions])


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``float32[B, A]``: softmax of ``logits`` over the actions ``masks`` allows, exactly 0 elsewhere.

    A row with no allowed action puts all its mass on the last action (pass).
    """
    masked = np.where(masks, logits, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    empty = ~masks.any(axis=1)
    top[empty] = 0.0
    weights = np.exp(masked - top)
    weights[empty, -1] = 1.0
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


NEAR = 2
"""``RolloutEvaluator(near=True)`` keeps the points within this many lines (rows, columns, diagonals) of a stone."""


def _keep_near_stones(priors: np.ndarray, stones: np.ndarray, geo: Geometry) -> None:
    """Zero the priors (``float32[B, N*N + 1]``, changed in place) of points farther than ``NEAR`` from every
    stone of ``stones`` (``int16[B, (N+2)^2]``, padded), and renormalise; a row with no stone keeps its priors."""
    size = geo.size
    occupied = stones[:, geo.action_point].reshape(-1, size, size) != 0
    padded = np.pad(occupied, ((0, 0), (NEAR, NEAR), (NEAR, NEAR)))
    near = np.zeros_like(occupied)
    for dy in range(2 * NEAR + 1):
        for dx in range(2 * NEAR + 1):
            near |= padded[:, dy:dy + size, dx:dx + size]
    keep = near.reshape(len(priors), -1) | ~occupied.reshape(len(priors), -1).any(axis=1, keepdims=True)
    kept = priors[:, :-1] * keep
    total = kept.sum(axis=1, keepdims=True)
    rows = total[:, 0] > 0
    priors[rows, :-1] = kept[rows] / total[rows]


VCF_DEPTH = 12
"""Fours in a row that :func:`decisive_priors` reads for a victory by continuous fours."""
VCF_BUDGET = 200
"""Fours in all that :func:`decisive_priors` reads at one position (about 0.1 ms on 15x15)."""


def decisive_priors(cells: np.ndarray, info: np.ndarray, geo: Geometry, spec: np.ndarray, priors: np.ndarray) -> bool:
    """Whether the side to move wins by force: at once, or by continuous fours (then ``priors`` go all
    to the winning move); where only the opponent could win at once, ``priors`` go all to the point
    that stops it. ``priors`` is changed in place."""
    mover = int(info[TO_PLAY])
    for color, wins in ((mover, True), (opponent(mover), False)):
        point = winning_point(cells, info, geo.width, geo.action_point, spec, color)
        if _only_move(point, geo, priors):
            return wins
    return _only_move(vcf_point(cells, info, geo.width, geo.action_point, spec, mover, VCF_DEPTH, VCF_BUDGET),
                      geo, priors)


def _only_move(point: int, geo: Geometry, priors: np.ndarray) -> bool:
    """Put all of ``priors`` on ``point`` (-1: none) if the evaluator allows it there (a point renju
    forbids black gets no hint); whether it did."""
    action = geo.point_action[point] if point >= 0 else -1
    if action < 0 or priors[action] <= 0:
        return False
    priors[:] = 0.0
    priors[action] = 1.0
    return True


def apply_decisive_moves(batch: PositionBatch, priors: np.ndarray, values: np.ndarray) -> np.ndarray | None:
    """Teytaud and Teytaud's decisive and anti-decisive moves (2010) on a Gomoku batch, in place, with
    a victory by continuous fours counted as decisive.

    Where the side to move can complete a line at once, or win by a sequence of fours
    (:func:`engine.core.threats.vcf`), its prior goes all to the winning move and its value is exactly
    +1; where only the opponent could complete a line at once, the prior goes all to the point that
    stops it (the value is the evaluator's). Any other move there loses at once, which a search on a
    network's priors sees only after visiting it, and a network that misreads one four in a hundred
    positions would otherwise lose the game on it; a VCF is a proof the search would need many visits
    down one narrow line to find. Returns which positions are so proven won (``bool[B]``, the
    :class:`Evaluation`'s ``proven``); a no-op returning None in Go, where no single move wins.
    """
    rules = batch.rules
    if rules.game != "gomoku":
        return None
    geo, spec = geometry(rules.size), pack_rules(rules)
    proven = np.zeros(len(batch), dtype=np.bool_)
    for i in range(len(batch)):
        proven[i] = decisive_priors(batch.cells[i], batch.info[i], geo, spec, priors[i])
    values[proven] = 1.0
    return proven


class UniformEvaluator:
    """Uniform priors over the legal actions and value 0: a network-free stand-in."""

    def evaluate(self, positions: Positions, legal: np.ndarray | None = None) -> Evaluation:
        masks = legal_masks(positions) if legal is None else legal
        counts = masks.sum(axis=1, keepdims=True)
        priors = np.where(counts > 0, masks / np.maximum(counts, 1), 0.0).astype(np.float32)
        priors[counts[:, 0] == 0, -1] = 1.0  # a finished game: all mass on pass, as masked_softmax does
        return Evaluation(priors, np.zeros(len(masks), np.float32))


class RolloutEvaluator:
    """Uniform priors; value = mean result of ``rollouts`` random playouts from the leaf, for its side to move.

    The playouts (:func:`engine.core.playout.random_playout`) keep one-point
    eyes in Go, as Monte-Carlo Go programs play them, so that living groups
    live and the final score means something. They draw from this
    evaluator's own generator, seeded with ``seed`` (same seed and the same
    calls, same values; None: a fresh one).

    ``decisive``: :func:`apply_decisive_moves` at every leaf (the playout is as usual where it does not
    decide). Random playouts find such a move only by chance and the tree averages, so without
    this the search needs about N*N visits under every move that leaves a four open to see that it
    loses, and as many to take a five; with it the first visit does. ``near`` (Gomoku): priors only on
    the points within two lines of a stone (the whole board while it is empty), the candidates Gomoku
    Monte-Carlo programs consider, so that the search spends its visits where the game is. Both are off
    for the ``mcts-rollouts`` yardstick, so that ratings against it stay comparable.
    """

    def __init__(self, rollouts: int = 1, seed: int | None = None, decisive: bool = False, near: bool = False) -> None:
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, not {rollouts}")
        self.rollouts = rollouts
        self.decisive = decisive
        self.near = near
        self._rng = new_rng(seed)

    def evaluate(self, positions: Positions, legal: np.ndarray | None = None) -> Evaluation:
        batch = PositionBatch.stack(positions)
        priors = UniformEvaluator().evaluate(batch, legal).priors
        rules = batch.rules
        if self.near and rules.game == "gomoku":
            _keep_near_stones(priors, batch.cells[:, STONES], geometry(rules.size))
        geo = geometry(rules.size)
        spec = pack_rules(rules)
        komi = float(rules.komi)
        empties = np.empty(rules.num_points, dtype=np.int64)
        record = np.empty(0, dtype=np.int64)
        values = np.zeros(len(batch), dtype=np.float32)
        proven = np.zeros(len(batch), dtype=np.bool_)
        for i in range(len(batch)):
            mover = batch.info[i, TO_PLAY]
            if self.decisive and decisive_priors(batch.cells[i], batch.info[i], geo, spec, priors[i]):
                values[i], proven[i] = 1.0, True
                continue
            total = 0.0
            for _ in range(self.rollouts):
                cells, info = batch.cells[i].copy(), batch.info[i].copy()
                random_playout(cells, info, geo.zobrist, geo.width, geo.action_point, spec, True, self._rng,
                               empties, record)
                value = terminal_value(cells, info, geo.width, geo.action_point, spec, komi)
                total += value if info[TO_PLAY] == mover else -value
            values[i] = total / self.rollouts
        return Evaluation(priors, values, proven=proven if self.decisive else None)
