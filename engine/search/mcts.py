"""``Search``: PUCT Monte-Carlo tree search over a batched evaluator.

The tree and its kernels are in :mod:`engine.search.tree`; this module owns
one tree, turns leaf batches into evaluator calls, adds root noise, reuses
the tree between moves and reports what it found. Deciding what to play
(temperature, resignation, passing, time) is :class:`engine.search.player.Player`'s.

When the evaluator has the network's auxiliary heads the search also averages
them over the tree: the score in the tree's own rows (see :mod:`engine.search.tree`),
the ownership in a pool beside it that holds every evaluated node's ownership
row once, from black's view in float16 (``2*N*N`` bytes a row: 722 bytes on 19x19, where
a tree row per node would cost 362 times more, once per child). A subtree's
ownership is the mean of the rows of the nodes evaluated in it, each counted once.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from engine.core.board import INFO_LEN, ROWS, TO_PLAY, geometry
from engine.core.dispatch import pack_rules, terminal_value
from engine.core.game import Game
from engine.core.position import PositionBatch
from engine.core.types import BLACK
from engine.search.evaluator import Evaluation, Evaluator
from engine.search.gumbel import GumbelRoot
from engine.search.targets import prune_policy_target
from engine.search.tree import (
    ACTION,
    FIRST_CHILD,
    FLOAT_ROWS,
    INT_ROWS,
    NET_VALUE,
    NUM_CHILDREN,
    PRIOR,
    SCORE_SQUARES,
    SCORE_SUM,
    VALUE_SUM,
    VIRTUAL,
    VISITS,
    compact_subtree,
    expand_and_backup,
    principal_variation,
    reset_tree,
    root_children_of,
    select_leaves,
)

__all__ = ["SearchConfig", "SearchResult", "Search", "NODE_BYTES", "nodes_within"]


NODE_BYTES = 4 * (INT_ROWS + FLOAT_ROWS)
"""Bytes a node takes in the tree's arrays."""


def nodes_within(max_bytes: int) -> int:
    """The largest ``SearchConfig.capacity`` whose tree stays within ``max_bytes`` at its peak, when moving the
    root to a child holds the old arrays, the new ones and an index (8 bytes a node) at once."""
    return max(0, max_bytes) // (2 * NODE_BYTES + 8)


ROLLOUT_C_PUCT = 5.0
"""Exploration of pure MCTS: with uniform priors over ~N*N moves the network's c_puct (1.25) would keep
revisiting the first child that looks no worse than its parent."""


@dataclass(frozen=True)
class SearchConfig:
    """Search constants. ``dirichlet_alpha=None`` scales alpha to the legal moves (10.83 / legal).
    ``fpu_value`` (None: off) is an unvisited child's value in selection, in place of its parent's
    evaluation less ``fpu_reduction * sqrt(visited prior)`` (see :meth:`for_rollouts`).

    The tree starts small and doubles when full, up to ``capacity`` nodes (44 bytes each; an
    expansion adds one node per legal move, so 8M nodes hold about 20k expansions on 19x19).
    ``score_utility`` (0: off) weighs KataGo's score utility in selection, for evaluators with a
    score head: ``score_utility * 2/pi * atan((score - center) / (score_utility_scale * N))``
    added to a visited child's Q, ``center`` the root's mean score (KataGo: 0.3 with scale 0.75).

    Self-play methods (both act only in a search begun with ``noise``, the full searches of self-play):
    ``forced_playouts_k`` > 0 turns on KataGo's forced playouts at the root (every visited child gets
    at least ``sqrt(k * P * sum N)`` visits) and the pruned policy target (``SearchResult.policy_target``,
    :mod:`engine.search.targets`); a Gumbel root ignores it. ``gumbel_considered`` > 0 replaces the
    root's PUCT by Gumbel search (:mod:`engine.search.gumbel`): that many actions sampled by
    Gumbel-top-m, sequential halving over the visit limit, the completed-Q policy as the target and the
    halving's winner as the move; a search without ``noise`` takes the prior's top m and no Gumbel noise.
    A Gumbel search starts from a fresh root (the schedule counts its own simulations), takes no
    Dirichlet noise and needs a visit limit.
    """

    c_puct: float = 1.25
    fpu_reduction: float = 0.25
    root_fpu_reduction: float = 0.0
    fpu_value: float | None = None
    batch_size: int = 16
    dirichlet_alpha: float | None = None
    dirichlet_epsilon: float = 0.25
    capacity: int = 8_000_000
    score_utility: float = 0.0
    score_utility_scale: float = 0.75
    forced_playouts_k: float = 0.0
    gumbel_considered: int = 0
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0

    def __post_init__(self) -> None:
        if self.forced_playouts_k < 0 or self.gumbel_considered < 0:
            raise ValueError("forced_playouts_k and gumbel_considered must not be negative")

    def for_rollouts(self, try_every_move: bool = True) -> "SearchConfig":
        """These settings as pure MCTS with the :class:`~engine.search.evaluator.RolloutEvaluator` runs:
        c_puct ``ROLLOUT_C_PUCT``, no first-play reduction, one leaf per step (exact MCTS).

        ``try_every_move``: an unvisited move counts as a win (``fpu_value`` 1), so every move is tried
        once before any is tried twice, as UCT does. Otherwise an unvisited move takes its parent's
        evaluation, one random playout: when that playout was lost, the first move tried that did not
        look lost takes every later visit (the ``mcts-rollouts`` yardstick plays so, and ratings against
        it stay comparable only if it keeps playing so)."""
        return replace(self, c_puct=ROLLOUT_C_PUCT, fpu_reduction=0.0, batch_size=1,
                       fpu_value=1.0 if try_every_move else None)

    def alpha_for(self, legal_moves: int) -> float:
        if self.dirichlet_alpha is not None:
            return self.dirichlet_alpha
        return 10.83 / max(legal_moves, 1)


@dataclass(frozen=True)
class SearchResult:
    """What a search found at the root, from the side to move's point of view.

    ``visits``, ``q`` and ``priors`` are per action (``float32[N*N+1]``; q is
    the mean value of the subtree, 0 where unvisited); ``value`` is the root's
    mean value; ``pv`` the most-visited line.

    With an evaluator that has a score head: ``score_mean`` and ``score_stdev``,
    the tree's mean final score difference and its spread, in points (komi
    included), and per action ``move_scores`` / ``move_score_stdevs``
    (``float32[N*N+1]``, the child subtrees', 0 where unvisited). With an
    ownership head: ``ownership`` (``float32[N*N]`` in [-1, 1], +1 where the side
    to move will own the point), the mean over the tree's evaluated nodes. None otherwise.

    ``policy_target`` (``float32[N*N+1]``, sums to 1) is what self-play should learn when it is not the
    visit distribution: the pruned visits of a search with forced playouts, or a Gumbel search's
    completed-Q policy. ``gumbel_action`` is a Gumbel search's move (the halving's winner), which
    :attr:`best_action` then returns; a Gumbel search's ``value`` is that of its improved policy
    (:meth:`engine.search.gumbel.GumbelRoot.value`).
    """

    visits: np.ndarray
    q: np.ndarray
    priors: np.ndarray
    value: float
    simulations: int
    seconds: float
    pv: list[int]
    score_mean: float | None = None
    score_stdev: float | None = None
    move_scores: np.ndarray | None = None
    move_score_stdevs: np.ndarray | None = None
    ownership: np.ndarray | None = None
    policy_target: np.ndarray | None = None
    gumbel_action: int | None = None

    @property
    def best_action(self) -> int:
        """The search's move: a Gumbel search's choice, else the most visited action."""
        return self.gumbel_action if self.gumbel_action is not None else int(np.argmax(self.visits))

    def policy(self, temperature: float = 1.0) -> np.ndarray:
        """Visit distribution sharpened by ``1 / temperature`` (0 picks the most visited)."""
        if temperature <= 1e-3:
            policy = np.zeros_like(self.visits)
            policy[self.best_action] = 1.0
            return policy
        weights = self.visits.astype(np.float64) ** (1.0 / temperature)
        return (weights / weights.sum()).astype(np.float32)


def _score_statistics(floats: np.ndarray, visits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean score and standard deviation (points) of nodes from their score rows (``floats[:, k]``) and
    visits, from the view of the player who moved into each (0 where unvisited)."""
    n = np.maximum(visits, 1)
    mean = np.where(visits > 0, floats[SCORE_SUM] / n, 0.0)
    variance = np.where(visits > 0, floats[SCORE_SQUARES] / n - np.square(mean), 0.0)
    return mean.astype(np.float32), np.sqrt(np.maximum(variance, 0.0)).astype(np.float32)


class Search:
    """One search tree over a game, reusable from move to move."""

    def __init__(self, game: Game, evaluator: Evaluator, config: SearchConfig = SearchConfig(),
                 seed: int | None = None) -> None:
        self.config = config
        self.evaluator = evaluator
        self.rng = np.random.default_rng(seed)
        self.rules = game.rules
        self.geo = geometry(self.rules.size)
        self.spec = pack_rules(self.rules)
        actions = self.rules.num_actions
        capacity = min(config.capacity, 256 * actions)
        self._ints = np.zeros((INT_ROWS, capacity), dtype=np.int32)
        self._floats = np.zeros((FLOAT_ROWS, capacity), dtype=np.float32)
        self._count = np.zeros(1, dtype=np.int64)
        batch = config.batch_size
        self._leaf_nodes = np.zeros(batch, dtype=np.int64)
        self._leaf_cells = np.zeros((batch, ROWS, self.geo.num_points), dtype=np.int16)
        self._leaf_info = np.zeros((batch, INFO_LEN), dtype=np.int64)
        self._leaf_legal = np.zeros((batch, actions), dtype=np.bool_)
        self._leaves = PositionBatch(self.rules, self._leaf_cells, self._leaf_info)
        self._no_scores = np.zeros((0, 2), dtype=np.float32)
        self._no_path = np.zeros(0, dtype=np.int64)
        self._pending = 0
        self._full = False
        self._growth_seconds = 0.0   # all growths of the tree so far
        self._last_growth = 0.0      # the latest one
        self._noise_pending = False
        self._forced = False  # this search runs forced playouts (and prunes its target)
        self._gumbel: GumbelRoot | None = None
        self._gumbel_pending = False  # a Gumbel search whose root is not yet evaluated
        self._gumbel_simulations = 0
        self._gumbel_noise = 1.0
        self._has_score = False
        # the ownership pool (allocated at the first evaluation with ownership): row k is node
        # _owned_nodes[k]'s evaluated ownership, black's view; _owned rows are in use
        self._ownership_rows: np.ndarray | None = None    # float16[R, N*N]
        self._owned_nodes = np.zeros(0, dtype=np.int64)    # int64[R]
        self._owned = 0
        self.root = game.position.copy()
        self._root_legal = game.legal_mask()
        self._root_moves = len(game.moves)
        self._root_allowed: np.ndarray | None = None
        self._root_temperature = 1.0
        self._root_shaped = True
        self.reset()

    # ----------------------------------------------------------------- tree
    @property
    def nodes(self) -> int:
        return int(self._count[0])

    @property
    def root_visits(self) -> int:
        return int(self._ints[VISITS, 0])

    def _children(self) -> slice:
        first = int(self._ints[FIRST_CHILD, 0])
        return slice(first, first + int(self._ints[NUM_CHILDREN, 0])) if first >= 0 else slice(0, 0)

    def reset(self) -> None:
        """Forget the tree (the root position stays)."""
        reset_tree(self._ints, self._floats, self._count)
        self._owned = 0

    def set_game(self, game: Game) -> None:
        """Search ``game``'s current position, keeping the subtree if it follows from the last root."""
        moves = game.moves
        self._root_allowed, self._root_temperature, self._root_shaped = None, 1.0, True
        reusable = (game.rules == self.rules and len(moves) >= self._root_moves
                    and self._replays_to(game))
        if not reusable:
            self.root = game.position.copy()
            self._root_legal = game.legal_mask()
            self._root_moves = len(moves)
            self.reset()
            return
        for move in moves[self._root_moves:]:
            self._descend(move.action, game)
        self.root = game.position.copy()
        self._root_legal = game.legal_mask()
        self._root_moves = len(moves)
        self._restrict_root()

    def _replays_to(self, game: Game) -> bool:
        """Whether playing the game's newer moves on our root gives the game's position."""
        position = self.root.copy()
        for move in game.moves[self._root_moves:]:
            if int(move.color) != int(position.to_play) or not position.is_legal(move.action):
                return False
            position.play_unchecked(move.action)
        return position.key == game.position.key and np.array_equal(position.cells, game.position.cells)

    def _descend(self, action: int, game: Game) -> None:
        child = self._child_for(action)
        if child < 0:
            self.reset()
            return
        everything = np.ones(self.rules.num_actions, dtype=np.bool_)
        self._move_root(child, everything)

    def _child_for(self, action: int) -> int:
        return self._child_of(0, action)

    def _child_of(self, node: int, action: int) -> int:
        """The child of ``node`` reached by ``action``, or -1 if the tree has none."""
        first, count = int(self._ints[FIRST_CHILD, node]), int(self._ints[NUM_CHILDREN, node])
        if first < 0 or count == 0:
            return -1
        hits = np.flatnonzero(self._ints[ACTION, first:first + count] == action)
        return first + int(hits[0]) if hits.size else -1

    def _move_root(self, child: int, root_legal: np.ndarray) -> None:
        ints, floats = np.zeros_like(self._ints), np.zeros_like(self._floats)
        old_of_new = np.empty(ints.shape[1], dtype=np.int64)
        compact_subtree(self._ints, self._floats, child, root_legal, ints, floats, self._count, old_of_new)
        self._ints, self._floats = ints, floats
        if self._owned:  # keep the ownership rows of the nodes that stay, renumbered
            new_of_old = np.full(old_of_new.shape[0], -1, dtype=np.int64)
            new_of_old[old_of_new[:self.nodes]] = np.arange(self.nodes)
            assert self._ownership_rows is not None
            nodes = new_of_old[self._owned_nodes[:self._owned]]
            kept = nodes >= 0
            self._owned = int(kept.sum())
            self._ownership_rows[:self._owned] = self._ownership_rows[:kept.size][kept]
            self._owned_nodes[:self._owned] = nodes[kept]

    def _grow(self) -> bool:
        """Double the tree's room (up to ``capacity``); False when it may not grow."""
        capacity = self._ints.shape[1]
        larger = min(2 * capacity, self.config.capacity)
        if larger <= capacity:
            return False
        started = time.perf_counter()
        used = self.nodes
        ints = np.zeros((INT_ROWS, larger), dtype=np.int32)
        floats = np.zeros((FLOAT_ROWS, larger), dtype=np.float32)
        ints[:, :used] = self._ints[:, :used]
        floats[:, :used] = self._floats[:, :used]
        self._ints, self._floats = ints, floats
        self._last_growth = time.perf_counter() - started
        self._growth_seconds += self._last_growth
        return True

    def _next_step_seconds(self, last_step: float, last_growth: float) -> float:
        """What the next step of :meth:`run` may take: the last one's time less the tree's growth in it, and
        twice the latest growth again where its expansions may not fit the tree (each copies twice as much)."""
        allocated = self._ints.shape[1]
        may_grow = allocated < self.config.capacity and \
            allocated - self.nodes < self.config.batch_size * self.rules.num_actions
        return last_step - last_growth + (2 * self._last_growth if may_grow else 0.0)

    def shape_root(self, *, allowed: np.ndarray | None = None, temperature: float = 1.0) -> None:
        """Analysis settings for the current root (until the root changes): search only the ``allowed``
        root actions (``bool[N*N+1]``; ignored when it leaves no legal move), and widen (``temperature``
        > 1) or sharpen the root's priors to ``prior ** (1 / temperature)``, renormalised.

        They apply once the root is expanded: the evaluator still sees the root with all its
        legal moves, so the network's policy of the root stays what it is.
        """
        if temperature <= 0:
            raise ValueError(f"the root policy temperature must be positive, not {temperature}")
        self._root_allowed = None if allowed is None or not (allowed & self._root_legal).any() else allowed
        self._root_temperature = temperature
        self._root_shaped = False
        if self._ints[FIRST_CHILD, 0] >= 0:
            self._shape_expanded_root()

    def _shape_expanded_root(self) -> None:
        self._root_shaped = True
        children = self._children()
        if self._root_temperature != 1.0 and children.stop > children.start:
            weights = self._floats[PRIOR, children].astype(np.float64) ** (1.0 / self._root_temperature)
            self._floats[PRIOR, children] = (weights / max(weights.sum(), 1e-30)).astype(np.float32)
        if self._root_allowed is not None and not self._root_allowed[self._ints[ACTION, children]].all():
            self._move_root(0, self._root_legal & self._root_allowed)

    def _restrict_root(self) -> None:
        """Drop root children the game forbids (superko) by re-rooting the root onto itself."""
        children = self._children()
        if children.stop > children.start and not self._root_legal[self._ints[ACTION, children]].all():
            self._move_root(0, self._root_legal)

    # --------------------------------------------------------------- search
    # ------------------------------------------------------ stepwise search
    # ``run`` below drives these steps with this search's own evaluator; a
    # caller running many searches at once (self-play) drives them itself and
    # evaluates the leaves of all of them in one network call.
    def begin(self, noise: bool = False, visits: int | None = None) -> bool:
        """Start a search that the caller will stop at ``visits`` root visits (a Gumbel search plans its
        halving for them and needs them); False when there is nothing to search (the game is over)."""
        self._full = False
        cfg = self.config
        self._gumbel = None
        self._gumbel_pending = cfg.gumbel_considered > 0
        self._forced = noise and cfg.forced_playouts_k > 0 and not self._gumbel_pending  # a PUCT root's
        if self._gumbel_pending:
            if visits is None:
                raise ValueError("a Gumbel search needs a visit limit: its sequential halving is planned for it")
            self.reset()
            self._gumbel_simulations = max(visits - 1, 1)  # the root's own evaluation is the first visit
            self._gumbel_noise = 1.0 if noise else 0.0
            noise = False
        self._noise_pending = noise
        return not self.root.is_over and bool(self._root_legal.any())

    def gather(self, budget: int) -> tuple[PositionBatch, np.ndarray, int]:
        """Select leaves for up to ``budget`` simulations.

        Returns the leaf positions, their legal actions (``bool[L, A]``) and the
        number of simulations this step completed by itself (finished games).
        Pass the leaves' priors and values to :meth:`complete` before the next step.
        """
        if self._ints[FIRST_CHILD, 0] < 0:  # the root first, with the game's legal moves (superko)
            leaves, finished = self._select(1)
            self._leaf_legal[0] = self._root_legal
        elif self._gumbel is not None:
            leaves, finished = self._select(budget, self._gumbel_path(budget))
        else:
            leaves, finished = self._select(budget)
        self._pending = leaves
        return self._leaves[:leaves], self._leaf_legal[:leaves], finished

    def complete(self, evaluation: Evaluation) -> None:
        """Expand the gathered leaves with the evaluation's priors and back their values (and scores) up;
        keep their ownership, if given."""
        leaves = self._pending
        self._pending = 0
        if leaves == 0:
            return
        scores = self._no_scores
        if evaluation.score_mean is not None and evaluation.score_stdev is not None:
            self._has_score = True
            mean = np.asarray(evaluation.score_mean, dtype=np.float32)
            scores = np.stack([mean, np.square(evaluation.score_stdev) + np.square(mean)], axis=1).astype(np.float32)
        if evaluation.ownership is not None:
            self._keep_ownership(evaluation.ownership, leaves)
        room = expand_and_backup(self._ints, self._floats, self._count, self._leaf_nodes, leaves,
                                 self._leaf_legal, np.ascontiguousarray(evaluation.priors, dtype=np.float32),
                                 np.ascontiguousarray(evaluation.values, dtype=np.float32), scores)
        if not room and not self._grow():
            self._full = True  # the leaf that found no room stays unexpanded; its value was backed up
        if self._noise_pending and self._ints[FIRST_CHILD, 0] >= 0:
            self._add_noise()
            self._noise_pending = False
        if not self._root_shaped and self._ints[FIRST_CHILD, 0] >= 0:
            self._shape_expanded_root()
        if self._gumbel_pending and self._ints[FIRST_CHILD, 0] >= 0:
            self._start_gumbel()

    def _root_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per action (``float32[N*N+1]``): completed visits, visits in flight, mean value (the root's side
        to move, 0 where unvisited), prior."""
        actions = self.rules.num_actions
        visits, pending = np.zeros(actions, np.float32), np.zeros(actions, np.float32)
        q, priors = np.zeros(actions, np.float32), np.zeros(actions, np.float32)
        children = self._children()
        acts = self._ints[ACTION, children]
        n = self._ints[VISITS, children].astype(np.float32)
        visits[acts] = n
        pending[acts] = self._ints[VIRTUAL, children]
        q[acts] = np.where(n > 0, self._floats[VALUE_SUM, children] / np.maximum(n, 1), 0.0)
        priors[acts] = self._floats[PRIOR, children]
        return visits, pending, q, priors

    def _start_gumbel(self) -> None:
        cfg = self.config
        _, _, _, priors = self._root_arrays()
        legal = np.zeros(self.rules.num_actions, dtype=np.bool_)
        legal[self._ints[ACTION, self._children()]] = True
        self._gumbel = GumbelRoot.start(priors, legal, cfg.gumbel_considered, self._gumbel_simulations, self.rng,
                                        gumbel_scale=self._gumbel_noise, c_visit=cfg.gumbel_c_visit,
                                        c_scale=cfg.gumbel_c_scale)
        self._gumbel_pending = False

    def _gumbel_path(self, budget: int) -> np.ndarray:
        """The root children (node indices) that the next ``budget`` simulations descend into, by the
        sequential halving; shorter where the schedule ends."""
        assert self._gumbel is not None
        visits, pending, q, _ = self._root_arrays()
        raw_value = float(self._floats[NET_VALUE, 0])
        first = int(self._ints[FIRST_CHILD, 0])
        node_of = np.full(self.rules.num_actions, -1, dtype=np.int64)
        node_of[self._ints[ACTION, self._children()]] = np.arange(first, first + int(self._ints[NUM_CHILDREN, 0]))
        path = []
        for _ in range(min(budget, len(self._gumbel.schedule) - int((visits + pending).sum()))):
            action = self._gumbel.next_action(visits, q, raw_value, pending)
            pending[action] += 1
            path.append(node_of[action])
        return np.array(path, dtype=np.int64)

    def _keep_ownership(self, ownership: np.ndarray, leaves: int) -> None:
        """Add the leaves' ownership (``[L, N*N]``, each leaf's side to move) to the pool, from black's view."""
        if self._ownership_rows is None or self._owned + leaves > len(self._ownership_rows):
            rows = max(2 * self._owned + leaves, 64)
            grown = np.zeros((rows, self.rules.num_points), dtype=np.float16)
            nodes = np.zeros(rows, dtype=np.int64)
            if self._ownership_rows is not None:
                grown[:self._owned] = self._ownership_rows[:self._owned]
                nodes[:self._owned] = self._owned_nodes[:self._owned]
            self._ownership_rows, self._owned_nodes = grown, nodes
        black = np.where(self._leaf_info[:leaves, TO_PLAY] == BLACK, 1.0, -1.0)[:, None]
        self._ownership_rows[self._owned:self._owned + leaves] = black * ownership
        self._owned_nodes[self._owned:self._owned + leaves] = self._leaf_nodes[:leaves]
        self._owned += leaves

    def ownership(self, action: int | None = None) -> np.ndarray | None:
        """Tree-averaged ownership (``float32[N*N]``, the root's side to move: +1 its point) of the
        whole tree, or of the subtree after the root's ``action``; None without an ownership head
        or when that subtree holds no evaluated node."""
        if not self._owned:
            return None
        assert self._ownership_rows is not None
        rows = self._ownership_rows[:self._owned]
        if action is not None:
            child = self._child_for(action)
            if child < 0:
                return None
            owners = np.empty(self._owned, dtype=np.int64)
            root_children_of(self._ints, self._owned_nodes[:self._owned], owners)
            rows = rows[owners == child]
            if not len(rows):
                return None
        mean = rows.mean(axis=0, dtype=np.float64).astype(np.float32)  # float32 sums drift over 1e5 rows
        return mean if self.root.to_play == BLACK else -mean

    @property
    def is_full(self) -> bool:
        """The tree reached ``SearchConfig.capacity``: stop searching."""
        return self._full

    def budget(self, visits: int | None, playouts: int | None, done: int) -> int:
        """Simulations the next step may run under a visit and a playout limit."""
        budget = self.config.batch_size
        if visits is not None:
            budget = min(budget, visits - self.root_visits)
        if playouts is not None:
            budget = min(budget, playouts - done)
        return budget

    def _add_noise(self) -> None:
        """Mix Dirichlet noise into the root's priors (self-play exploration)."""
        children = self._children()
        count = children.stop - children.start
        if count > 1:
            eps = self.config.dirichlet_epsilon
            dirichlet = self.rng.dirichlet(np.full(count, self.config.alpha_for(count)))
            mixed = (1 - eps) * self._floats[PRIOR, children] + eps * dirichlet
            self._floats[PRIOR, children] = mixed.astype(np.float32)

    def _select(self, budget: int, root_path: np.ndarray | None = None) -> tuple[int, int]:
        """Run :func:`select_leaves`; ``root_path``: the root children the simulations take (Gumbel)."""
        cfg = self.config
        if root_path is None:
            root_path = self._no_path
        elif not len(root_path):
            return 0, 0
        utility = cfg.score_utility if self._has_score else 0.0
        center = -float(self._floats[SCORE_SUM, 0]) / self.root_visits if utility and self.root_visits else 0.0
        return select_leaves(self._ints, self._floats, self.root.cells, self.root.info, self.geo.zobrist,
                             self.geo.width, self.geo.action_point, self.spec, float(self.rules.komi),
                             cfg.c_puct, cfg.fpu_reduction, cfg.root_fpu_reduction,
                             math.nan if cfg.fpu_value is None else cfg.fpu_value, self._has_score, utility, center,
                             cfg.score_utility_scale * self.rules.size,
                             cfg.forced_playouts_k if self._forced else 0.0, root_path, budget, self._leaf_nodes,
                             self._leaf_cells, self._leaf_info, self._leaf_legal)

    def run(self, visits: int | None = None, *, playouts: int | None = None, seconds: float | None = None,
            noise: bool = False, stop: Callable[[], bool] | None = None,
            progress: Callable[["Search"], None] | None = None, progress_every: float = 0.1) -> SearchResult:
        """Search until the root has ``visits`` visits, ``playouts`` new simulations ran, time ran out,
        or ``stop()`` says so. ``progress(search)`` is called every ``progress_every`` seconds.

        ``seconds`` is a hard limit but for the first step (one evaluator call): no step begins that would
        end past it, were it to take as long as the last (and the tree's next growth, when it may grow)."""
        if visits is None and playouts is None and seconds is None:
            raise ValueError("give a visit, playout or time limit")
        started = last_report = now = time.perf_counter()
        done = 0
        if not self.begin(noise, visits):
            return self.result(0.0, 0)
        while not self._full:
            budget = self.budget(visits, playouts, done)
            if budget <= 0:
                break
            step_started, growth = now, self._growth_seconds
            leaves, legal, finished = self.gather(budget)
            if len(leaves):
                self.complete(self.evaluator.evaluate(leaves, legal))
            done += len(leaves) + finished
            now = time.perf_counter()
            if seconds is not None and now - started + self._next_step_seconds(
                    now - step_started, self._growth_seconds - growth) >= seconds:
                break
            if stop is not None and stop():
                break
            if progress is not None and now - last_report >= progress_every:
                progress(self)
                last_report = now
        return self.result(time.perf_counter() - started, done)

    def result(self, seconds: float = 0.0, simulations: int = 0) -> SearchResult:
        actions = self.rules.num_actions
        visits, _, q, priors = self._root_arrays()
        children = self._children()
        root_n = max(self.root_visits, 1)
        value = -float(self._floats[VALUE_SUM, 0]) / root_n if self.root_visits else float(
            self._floats[NET_VALUE, 0])
        if self.root.is_over:
            value = float(terminal_value(self.root.cells, self.root.info, self.geo.width, self.geo.action_point,
                                         self.spec, float(self.rules.komi)))
        line = np.zeros(64, dtype=np.int64)
        length = principal_variation(self._ints, 0, line)
        targets = {"value": value, **self._targets(visits, q, priors)}  # a Gumbel search has its own value
        result = SearchResult(visits, q, priors, simulations=simulations, seconds=seconds,
                              pv=[int(a) for a in line[:length]], ownership=self.ownership(), **targets)
        if not self._has_score or not self.root_visits:
            return result
        moves, stdevs = np.zeros(actions, dtype=np.float32), np.zeros(actions, dtype=np.float32)
        if children.stop > children.start:
            acts = self._ints[ACTION, children]
            moves[acts], stdevs[acts] = _score_statistics(self._floats[:, children], visits[acts])
        mean, stdev = _score_statistics(self._floats[:, :1], np.float32([self.root_visits]))
        return replace(result, score_mean=-float(mean[0]), score_stdev=float(stdev[0]), move_scores=moves,
                       move_score_stdevs=stdevs)

    def _targets(self, visits: np.ndarray, q: np.ndarray, priors: np.ndarray) -> dict[str, object]:
        """The policy target (and move) of a Gumbel or forced-playout search, for :class:`SearchResult`."""
        if not visits.sum():
            return {}
        if self._gumbel is not None:
            raw_value = float(self._floats[NET_VALUE, 0])
            return {"policy_target": self._gumbel.policy_target(visits, q, raw_value),
                    "gumbel_action": self._gumbel.final_action(visits, q, raw_value),
                    "value": self._gumbel.value(visits, q, raw_value)}
        if self._forced:
            cfg = self.config
            return {"policy_target": prune_policy_target(visits, priors, q, parent_visits=self.root_visits,
                                                         c_puct=cfg.c_puct, k=cfg.forced_playouts_k)}
        return {}

    def line_visits(self, line: list[int]) -> list[int]:
        """Visits of the nodes that the actions of ``line``, played from the root, reach (while the tree has them)."""
        node, visits = 0, []
        for action in line:
            node = self._child_of(node, action)
            if node < 0:
                break
            visits.append(int(self._ints[VISITS, node]))
        return visits

    def child_pv(self, action: int, limit: int = 32) -> list[int]:
        """The most-visited line starting with ``action`` (for analysis output)."""
        child = self._child_for(action)
        if child < 0:
            return [action]
        line = np.zeros(limit, dtype=np.int64)
        length = principal_variation(self._ints, child, line)
        return [action] + [int(a) for a in line[:length]]
