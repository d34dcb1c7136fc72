"""``Search``: PUCT Monte-Carlo tree search over a batched evaluator.

The tree and its kernels are in :mod:`engine.search.tree`; this module owns
one tree, turns leaf batches into evaluator calls, adds root noise, reuses
the tree between moves and reports what it found. Deciding what to play
(temperature, resignation, passing, time) is :class:`engine.search.player.Player`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.core.board import INFO_LEN, ROWS, geometry
from engine.core.dispatch import pack_rules, terminal_value
from engine.core.game import Game
from engine.core.position import PositionBatch
from engine.search.evaluator import Evaluator
from engine.search.tree import (
    ACTION,
    FIRST_CHILD,
    FLOAT_ROWS,
    INT_ROWS,
    NET_VALUE,
    NUM_CHILDREN,
    PRIOR,
    VALUE_SUM,
    VISITS,
    compact_subtree,
    expand_and_backup,
    principal_variation,
    reset_tree,
    select_leaves,
)

__all__ = ["SearchConfig", "SearchResult", "Search"]


@dataclass(frozen=True)
class SearchConfig:
    """Search constants. ``dirichlet_alpha=None`` scales alpha to the legal moves (10.83 / legal).

    The tree starts small and doubles when full, up to ``capacity`` nodes (36 bytes each; an
    expansion adds one node per legal move, so 8M nodes hold about 20k expansions on 19x19).
    """

    c_puct: float = 1.25
    fpu_reduction: float = 0.25
    root_fpu_reduction: float = 0.0
    batch_size: int = 16
    dirichlet_alpha: float | None = None
    dirichlet_epsilon: float = 0.25
    capacity: int = 8_000_000

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
    """

    visits: np.ndarray
    q: np.ndarray
    priors: np.ndarray
    value: float
    simulations: int
    seconds: float
    pv: list[int]

    @property
    def best_action(self) -> int:
        return int(np.argmax(self.visits))

    def policy(self, temperature: float = 1.0) -> np.ndarray:
        """Visit distribution sharpened by ``1 / temperature`` (0 picks the most visited)."""
        if temperature <= 1e-3:
            policy = np.zeros_like(self.visits)
            policy[self.best_action] = 1.0
            return policy
        weights = self.visits.astype(np.float64) ** (1.0 / temperature)
        return (weights / weights.sum()).astype(np.float32)


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
        self._pending = 0
        self._full = False
        self._noise_pending = False
        self.root = game.position.copy()
        self._root_legal = game.legal_mask()
        self._root_moves = len(game.moves)
        reset_tree(self._ints, self._floats, self._count)

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

    def set_game(self, game: Game) -> None:
        """Search ``game``'s current position, keeping the subtree if it follows from the last root."""
        moves = game.moves
        reusable = (game.rules == self.rules and len(moves) >= self._root_moves
                    and self._replays_to(game))
        if not reusable:
            self.root = game.position.copy()
            self._root_legal = game.legal_mask()
            self._root_moves = len(moves)
            reset_tree(self._ints, self._floats, self._count)
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
            reset_tree(self._ints, self._floats, self._count)
            return
        everything = np.ones(self.rules.num_actions, dtype=np.bool_)
        self._move_root(child, everything)

    def _child_for(self, action: int) -> int:
        children = self._children()
        if children.stop == children.start:
            return -1
        hits = np.flatnonzero(self._ints[ACTION, children] == action)
        return children.start + int(hits[0]) if hits.size else -1

    def _move_root(self, child: int, root_legal: np.ndarray) -> None:
        ints, floats = np.zeros_like(self._ints), np.zeros_like(self._floats)
        compact_subtree(self._ints, self._floats, child, root_legal, ints, floats, self._count)
        self._ints, self._floats = ints, floats

    def _grow(self) -> bool:
        """Double the tree's room (up to ``capacity``); False when it may not grow."""
        capacity = self._ints.shape[1]
        larger = min(2 * capacity, self.config.capacity)
        if larger <= capacity:
            return False
        used = self.nodes
        ints = np.zeros((INT_ROWS, larger), dtype=np.int32)
        floats = np.zeros((FLOAT_ROWS, larger), dtype=np.float32)
        ints[:, :used] = self._ints[:, :used]
        floats[:, :used] = self._floats[:, :used]
        self._ints, self._floats = ints, floats
        return True

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
    def begin(self, noise: bool = False) -> bool:
        """Start a search; False when there is nothing to search (the game is over)."""
        self._full = False
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
        else:
            leaves, finished = self._select(budget)
        self._pending = leaves
        return self._leaves[:leaves], self._leaf_legal[:leaves], finished

    def complete(self, priors: np.ndarray, values: np.ndarray) -> None:
        """Expand the gathered leaves with their ``priors`` and back their ``values`` up."""
        leaves = self._pending
        self._pending = 0
        if leaves == 0:
            return
        room = expand_and_backup(self._ints, self._floats, self._count, self._leaf_nodes, leaves,
                                 self._leaf_legal, np.ascontiguousarray(priors, dtype=np.float32),
                                 np.ascontiguousarray(values, dtype=np.float32))
        if not room and not self._grow():
            self._full = True  # the leaf that found no room stays unexpanded; its value was backed up
        if self._noise_pending and self._ints[FIRST_CHILD, 0] >= 0:
            self._add_noise()
            self._noise_pending = False

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

    def _select(self, budget: int) -> tuple[int, int]:
        cfg = self.config
        return select_leaves(self._ints, self._floats, self.root.cells, self.root.info, self.geo.zobrist,
                             self.geo.width, self.geo.action_point, self.spec, float(self.rules.komi),
                             cfg.c_puct, cfg.fpu_reduction, cfg.root_fpu_reduction, budget, self._leaf_nodes,
                             self._leaf_cells, self._leaf_info, self._leaf_legal)

    def run(self, visits: int | None = None, *, playouts: int | None = None, seconds: float | None = None,
            noise: bool = False, stop: Callable[[], bool] | None = None,
            progress: Callable[["Search"], None] | None = None, progress_every: float = 0.1) -> SearchResult:
        """Search until the root has ``visits`` visits, ``playouts`` new simulations ran, time ran out,
        or ``stop()`` says so. ``progress(search)`` is called every ``progress_every`` seconds."""
        if visits is None and playouts is None and seconds is None:
            raise ValueError("give a visit, playout or time limit")
        started = last_report = time.perf_counter()
        done = 0
        if not self.begin(noise):
            return self.result(0.0, 0)
        while not self._full:
            budget = self.budget(visits, playouts, done)
            if budget <= 0:
                break
            leaves, legal, finished = self.gather(budget)
            if len(leaves):
                self.complete(*self.evaluator.evaluate(leaves, legal))
            done += len(leaves) + finished
            now = time.perf_counter()
            if seconds is not None and now - started >= seconds:
                break
            if stop is not None and stop():
                break
            if progress is not None and now - last_report >= progress_every:
                progress(self)
                last_report = now
        return self.result(time.perf_counter() - started, done)

    def result(self, seconds: float = 0.0, simulations: int = 0) -> SearchResult:
        actions = self.rules.num_actions
        visits = np.zeros(actions, dtype=np.float32)
        q = np.zeros(actions, dtype=np.float32)
        priors = np.zeros(actions, dtype=np.float32)
        children = self._children()
        if children.stop > children.start:
            acts = self._ints[ACTION, children]
            n = self._ints[VISITS, children].astype(np.float32)
            visits[acts] = n
            q[acts] = np.where(n > 0, self._floats[VALUE_SUM, children] / np.maximum(n, 1), 0.0)
            priors[acts] = self._floats[PRIOR, children]
        root_n = max(self.root_visits, 1)
        value = -float(self._floats[VALUE_SUM, 0]) / root_n if self.root_visits else float(
            self._floats[NET_VALUE, 0])
        if self.root.is_over:
            value = float(terminal_value(self.root.cells, self.root.info, self.geo.width, self.geo.action_point,
                                         self.spec, float(self.rules.komi)))
        line = np.zeros(64, dtype=np.int64)
        length = principal_variation(self._ints, 0, line)
        return SearchResult(visits, q, priors, value, simulations, seconds, [int(a) for a in line[:length]])

    def child_pv(self, action: int, limit: int = 32) -> list[int]:
        """The most-visited line starting with ``action`` (for analysis output)."""
        child = self._child_for(action)
        if child < 0:
            return [action]
        line = np.zeros(limit, dtype=np.int64)
        length = principal_variation(self._ints, child, line)
        return [action] + [int(a) for a in line[:length]]
