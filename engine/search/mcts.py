"""``Search``: PUCT Monte-Carlo tree search over a batched evaluator, and ``SearchJob``, the one driver of a search.

A search is stepwise: :meth:`Search.gather` selects a batch of leaves, the caller evaluates them, and
:meth:`Search.complete` expands them and backs their values up. A :class:`SearchJob` drives those steps to
a search's limits (visits, playouts, time, a stop); :meth:`Search.run` runs one job with the search's own
evaluator, and :func:`engine.search.batching.step` steps many jobs with one evaluator call per step.

The search is made of named parts: the node arrays and their growth (:class:`~engine.search.tree.Tree`),
the root and the tree's reuse from move to move (:class:`~engine.search.root.Root`), what it does to the
root's children (:class:`~engine.search.root.RootShaping`: analysis's allowed moves and policy temperature,
self-play's noise and forced playouts), the Gumbel root (:class:`~engine.search.gumbel.GumbelSearch`) and,
when the evaluator has the network's auxiliary heads, their means over the tree: the score in the tree's own
rows, the ownership in an :class:`~engine.search.ownership.pool.OwnershipPool` beside it. Deciding what to
play (temperature, resignation, passing, time) is :class:`engine.search.player.Player`'s.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from engine.core.board import INFO_LEN, ROWS, TO_PLAY, Geometry, geometry
from engine.core.dispatch import pack_rules
from engine.core.game import Game
from engine.core.position import PositionBatch
from engine.core.rules import Rules
from engine.core.types import BLACK
from engine.search.config import SearchConfig
from engine.search.evaluator import Evaluation, Evaluator
from engine.search.gumbel import GumbelSearch
from engine.search.komi import at_komi, evaluator_komi, komi_shift
from engine.search.lcb import lcb_action, lower_bounds
from engine.search.ownership.pool import OwnershipPool
from engine.search.root import Root, RootShaping
from engine.search.targets import prune_policy_target
from engine.search.tree import (
    ACTION,
    FLOAT_ROWS,
    INT_ROWS,
    NET_VALUE,
    PARENT,
    PROVEN,
    PROVEN_LOSS,
    PROVEN_WIN,
    SCORE_SQUARES,
    SCORE_SUM,
    VALUE_SUM,
    VISITS,
    Tree,
    expand_and_backup,
    principal_variation,
    select_leaves,
    terminal_outcome,
)

__all__ = ["SearchResult", "Search", "SearchJob", "NODE_BYTES", "nodes_within"]


NODE_BYTES = 4 * (INT_ROWS + FLOAT_ROWS)
"""Bytes a node takes in the tree's arrays."""


def nodes_within(max_bytes: int) -> int:
    """The largest ``SearchConfig.capacity`` whose tree stays within ``max_bytes`` at its peak, when moving the
    root to a child holds the old arrays, the new ones and an index (8 bytes a node) at once."""
    return max(0, max_bytes) // (2 * NODE_BYTES + 8)


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
    :attr:`searched_action` then returns; a Gumbel search's ``value`` is that of its improved policy
    (:meth:`engine.search.gumbel.GumbelRoot.value`). Otherwise ``lcb_action`` is the move of the best lower
    confidence bound on its value (:attr:`SearchConfig.lcb_stdevs`; None where that is off), which
    :attr:`searched_action` returns in place of the most visited, and ``move_lcbs`` (``float32[N*N+1]``) every
    visited move's bound, in the values' units (:func:`engine.search.lcb.lower_bounds`).

    The solver's proofs (:mod:`engine.search.tree`): ``proven`` (``int8[N*N+1]``) is +1 where the move is
    proven to win for the side to move, -1 where proven to lose, 0 elsewhere; ``value`` is exactly +1 / -1
    where the root is proven. ``solved_action`` is the move the proofs impose, whatever the visits: a
    proven win, or, where the search's own choice is proven lost, the most visited (then likeliest) move not
    proven lost that the search or the evaluator considered, else the most visited (then likeliest) loss; None
    where they leave the choice to the search.
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
    lcb_action: int | None = None
    move_lcbs: np.ndarray | None = None
    proven: np.ndarray | None = None
    solved_action: int | None = None

    @property
    def searched_action(self) -> int:
        """The search's own move: a Gumbel search's choice, else the lower confidence bound's, else the most
        visited action."""
        if self.gumbel_action is not None:
            return self.gumbel_action
        return self.lcb_action if self.lcb_action is not None else int(np.argmax(self.visits))

    @property
    def best_action(self) -> int:
        """The move to play: the solver's where the proofs impose one, else :attr:`searched_action`."""
        return self.solved_action if self.solved_action is not None else self.searched_action

    def policy(self, temperature: float = 1.0, reading: bool = False) -> np.ndarray:
        """Visit distribution sharpened by ``1 / temperature`` (0 picks :attr:`best_action`), without the moves
        proven lost while another has visits; all on a proven win.

        ``reading`` (the levels' draw): a move the search looked at weighs its visits beyond the first plus its
        prior. A single visit is a glance, not a reading: a search of a few visits gives most moves it looks at
        one each, so drawing from raw visits would draw nearly uniformly among them, and a level that reads
        more would play worse. So a short search's draw follows the (shaped) priors of the moves it looked at,
        and the search takes over as it reads deeper."""
        won = self.proven is not None and self.proven[self.best_action] == PROVEN_WIN
        counts = self.visits.astype(np.float64)
        if reading:
            counts = np.where(counts > 0, counts - 1.0 + self.priors.astype(np.float64), 0.0)
        most = float(counts.max())
        if temperature <= 1e-3 or won or most <= 0:
            policy = np.zeros_like(self.visits)
            policy[self.best_action] = 1.0
            return policy
        weights = (counts / most) ** (1.0 / temperature)  # at most 1: no overflow
        if self.proven is not None and weights[self.proven != PROVEN_LOSS].sum() > 0:
            weights[self.proven == PROVEN_LOSS] = 0.0
        return (weights / weights.sum()).astype(np.float32)


def _score_statistics(floats: np.ndarray, visits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean score and standard deviation (points) of nodes from their score rows (``floats[:, k]``) and
    visits, from the view of the player who moved into each (0 where unvisited)."""
    n = np.maximum(visits, 1)
    mean = np.where(visits > 0, floats[SCORE_SUM] / n, 0.0)
    variance = np.where(visits > 0, floats[SCORE_SQUARES] / n - np.square(mean), 0.0)
    return mean.astype(np.float32), np.sqrt(np.maximum(variance, 0.0)).astype(np.float32)


_NO_SCORES = np.zeros((0, 2), dtype=np.float32)  # the score rows of an evaluation without a score head
_NO_PATH = np.zeros(0, dtype=np.int64)  # no root children chosen for the simulations: PUCT chooses
_NO_PROOFS = np.zeros(0, dtype=np.bool_)  # the proofs of an evaluation that proves nothing


def _solved_action(result: SearchResult, children: np.ndarray) -> int | None:
    """The move the root's proofs impose on ``result`` (see :class:`SearchResult`), the root's children being the
    actions ``children``."""
    proven = result.proven
    assert proven is not None
    wins = np.flatnonzero(proven == PROVEN_WIN)
    if wins.size:
        return int(wins[np.argmax(result.visits[wins])])
    if proven[result.searched_action] != PROVEN_LOSS:
        return None
    weight = result.visits[children] + result.priors[children]
    open_moves = (proven[children] != PROVEN_LOSS) & (weight > 0)
    if not open_moves.any():  # every move the search or the evaluator considered loses
        return int(children[np.argmax(weight)])
    return int(children[open_moves][np.argmax(weight[open_moves])])


class _Leaves:
    """One step's leaves, written by :func:`select_leaves` and read in place by the evaluator: their tree
    ``nodes`` (``int64[B]``), ``positions`` (a batch over ``cells`` and ``info``), ``legal`` actions
    (``bool[B, A]``), and how many of them await their evaluation (``pending``)."""

    def __init__(self, rules: Rules, geo: Geometry, batch: int) -> None:
        self.nodes = np.zeros(batch, dtype=np.int64)
        self.cells = np.zeros((batch, ROWS, geo.num_points), dtype=np.int16)
        self.info = np.zeros((batch, INFO_LEN), dtype=np.int64)
        self.legal = np.zeros((batch, rules.num_actions), dtype=np.bool_)
        self.positions = PositionBatch(rules, self.cells, self.info)
        self.pending = 0


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
        self.tree = Tree(min(config.capacity, 256 * self.rules.num_actions), config.capacity)
        self.root = Root.of(game, config.keep_own_eyes)
        self.shaping = RootShaping()
        self.gumbel: GumbelSearch | None = None
        self.ownership_pool = OwnershipPool(self.rules.num_points)
        self._leaves = _Leaves(self.rules, self.geo, config.batch_size)
        self._has_score = False  # the evaluator gave scores: the tree keeps them
        model_komi = evaluator_komi(evaluator) if config.komi_correction and self.rules.game == "go" else None
        self._komi_difference = None if model_komi is None else self.rules.komi - model_komi  # None: no correction
        self._kept_out: np.ndarray | None = None  # int64[3, A]: see shape_root

    # ----------------------------------------------------------------- tree
    @property
    def root_visits(self) -> int:
        return self.tree.root_visits

    def reset(self) -> None:
        """Forget the tree (the root position stays)."""
        self.tree.reset()
        self.ownership_pool.clear()

    def set_game(self, game: Game) -> None:
        """Search ``game``'s current position, keeping the subtree if it follows from the last root."""
        self.shaping.forget_analysis()
        if self._kept_out is not None:  # its nodes lack the moves kept out: no later search may reuse them
            self._kept_out = None
            self.reset()
        actions = self.root.actions_to(game)
        self.root = Root.of(game, self.config.keep_own_eyes)
        if actions is None:
            self.reset()
            return
        everything = np.ones(self.rules.num_actions, dtype=np.bool_)
        for action in actions:
            child = self.tree.child(0, action)
            if child < 0:
                self.reset()
            else:
                self._reroot(child, everything)
        children = self.tree.children()  # drop the root children the game forbids (superko)
        if children.stop > children.start and not self.root.legal[self.tree.ints[ACTION, children]].all():
            self._reroot(0, self.root.legal)

    def _reroot(self, child: int, root_legal: np.ndarray) -> None:
        """:meth:`Tree.reroot`, keeping the ownership of the nodes that stay."""
        self.ownership_pool.renumber(self.tree.reroot(child, root_legal), self.tree.nodes)

    def shape_root(self, *, allowed: np.ndarray | None = None, temperature: float = 1.0,
                   kept_out: np.ndarray | None = None) -> None:
        """Analysis settings for the current root (until the root changes): search only the ``allowed``
        root actions (``bool[N*N+1]``; ignored when it leaves no legal move), and widen (``temperature``
        > 1) or sharpen the root's priors to ``prior ** (1 / temperature)``, renormalised.

        They apply once the root is expanded: the evaluator still sees the root with all its
        legal moves, so the network's policy of the root stays what it is.

        ``kept_out`` (``int[3, A]``, rows by colour; KataGo's ``avoid`` / ``allow`` with their depth): the
        player of colour ``c`` does not play action ``a`` in the first ``kept_out[c, a]`` plies from the root:
        at the root as ``allowed`` does, below it by taking the moves off a position's legal actions when it
        is expanded (except where none would be left). The tree starts afresh, and again at the next
        :meth:`set_game`, since its nodes lack those moves.
        """
        if kept_out is not None:
            self.reset()
            self._kept_out = np.asarray(kept_out, dtype=np.int64)
            root = self._kept_out[self.root.position.to_play] == 0
            allowed = root if allowed is None else allowed & root
        self.shaping.for_analysis(allowed, temperature, self.root.legal)
        if self.tree.root_expanded:
            self._reshape_root()

    def _keep_out_of(self, count: int) -> None:
        """Take the kept-out actions off the legal masks of the first ``count`` leaves gathered (the root's are
        the shaping's)."""
        assert self._kept_out is not None
        leaves, parents = self._leaves, self.tree.ints[PARENT]
        depths = np.zeros(count, dtype=np.int64)
        for j, node in enumerate(leaves.nodes[:count]):
            while node > 0:
                node = parents[node]
                depths[j] += 1
        legal = leaves.legal[:count]
        blocked = (self._kept_out[leaves.info[:count, TO_PLAY]] > depths[:, None]) & (depths[:, None] > 0)
        kept = legal & ~blocked
        some = kept.any(axis=1)
        legal[some] = kept[some]

    def _reshape_root(self) -> None:
        if self.shaping.apply(self.tree):
            assert self.shaping.allowed is not None
            self._reroot(0, self.root.legal & self.shaping.allowed)

    # ------------------------------------------------------ stepwise search
    def begin(self, noise: bool = False, visits: int | None = None) -> bool:
        """Start a search that the caller will stop at ``visits`` root visits (a Gumbel search plans its
        halving for them and needs them); False when there is nothing to search (the game is over)."""
        cfg = self.config
        self.gumbel = None
        if cfg.gumbel_considered > 0:
            if visits is None:
                raise ValueError("a Gumbel search needs a visit limit: its sequential halving is planned for it")
            self.reset()  # the halving counts its own simulations
            self.gumbel = GumbelSearch(cfg.gumbel_considered, max(visits - 1, 1),  # the root's evaluation is a visit
                                       1.0 if noise else 0.0, cfg.gumbel_c_visit, cfg.gumbel_c_scale)
            noise = False  # the Gumbel noise is its exploration
        self.tree.full = False
        self.shaping.noise = noise
        self.shaping.forced = noise and cfg.forced_playouts_k > 0
        return not self.root.position.is_over and bool(self.root.legal.any())

    def gather(self, budget: int) -> tuple[PositionBatch, np.ndarray, int]:
        """Select leaves for up to ``budget`` simulations.

        Returns the leaf positions, their legal actions (``bool[L, A]``) and the
        number of simulations this step completed by itself (finished games).
        Pass the leaves' priors and values to :meth:`complete` before the next step.
        """
        leaves = self._leaves
        if not self.tree.root_expanded:  # the root first, with the game's legal moves (superko)
            count, finished = self._select(1)
            leaves.legal[0] = self.root.legal
        elif self.gumbel is not None:
            count, finished = self._select(budget, self._gumbel_path(budget))
        else:
            count, finished = self._select(budget)
        if self._kept_out is not None and count:
            self._keep_out_of(count)
        leaves.pending = count
        return leaves.positions[:count], leaves.legal[:count], finished

    def complete(self, evaluation: Evaluation) -> None:
        """Expand the gathered leaves with the evaluation's priors and back their values (and scores) up;
        keep their ownership, if given."""
        leaves, tree = self._leaves, self.tree
        count, leaves.pending = leaves.pending, 0
        if count == 0:
            return
        scores, values = _NO_SCORES, evaluation.values
        if evaluation.score_mean is not None and evaluation.score_stdev is not None:
            self._has_score = True
            values, mean = self._at_game_komi(evaluation, leaves.info[:count, TO_PLAY])
            scores = np.stack([mean, np.square(evaluation.score_stdev) + np.square(mean)], axis=1).astype(np.float32)
        if evaluation.ownership is not None:
            self.ownership_pool.add(evaluation.ownership, leaves.info[:count, TO_PLAY], leaves.nodes[:count])
        proofs = _NO_PROOFS if evaluation.proven is None else np.ascontiguousarray(evaluation.proven, dtype=np.bool_)
        if not expand_and_backup(tree.ints, tree.floats, tree.count, leaves.nodes, count, leaves.legal,
                                 np.ascontiguousarray(evaluation.priors, dtype=np.float32),
                                 np.ascontiguousarray(values, dtype=np.float32), scores, proofs):
            renumbered = tree.make_room()
            if renumbered is not None:
                self.ownership_pool.renumber(renumbered, tree.nodes)
        shaping, gumbel = self.shaping, self.gumbel
        if (shaping.noise or shaping.reshape or (gumbel is not None and gumbel.root is None)) and tree.root_expanded:
            self._on_root_expanded()

    def _at_game_komi(self, evaluation: Evaluation, to_play: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The values and score means (``float32[B]``) of an evaluation with a score head at the game's komi
        (:attr:`SearchConfig.komi_correction`); as the evaluator gave them where nothing is to be corrected."""
        values, mean = evaluation.values, np.asarray(evaluation.score_mean, dtype=np.float32)
        if not self._komi_difference:
            return values, mean
        assert evaluation.score_stdev is not None
        corrected, mean = at_komi(values, mean, evaluation.score_stdev,
                                  komi_shift(self._komi_difference, to_play))
        if evaluation.proven is not None:  # a proof's value is exact
            corrected = np.where(evaluation.proven, values, corrected)
        return corrected, mean

    def _on_root_expanded(self) -> None:
        """What waits for the root's children: self-play's noise, analysis's shaping, the Gumbel root's sampling."""
        cfg, shaping, gumbel, tree = self.config, self.shaping, self.gumbel, self.tree
        if shaping.noise:
            shaping.mix_noise(tree, self.rng, cfg.dirichlet_epsilon, cfg.alpha_for)
        if shaping.reshape:
            self._reshape_root()
        if gumbel is not None and gumbel.root is None:
            _, _, _, priors = tree.root_statistics(self.rules.num_actions)
            legal = np.zeros(self.rules.num_actions, dtype=np.bool_)
            legal[tree.ints[ACTION, tree.children()]] = True
            gumbel.start(priors, legal, self.rng)

    def _gumbel_path(self, budget: int) -> np.ndarray:
        """The root children (node indices) that the next ``budget`` simulations descend into, by the
        sequential halving; shorter where the schedule ends."""
        assert self.gumbel is not None and self.gumbel.root is not None
        tree = self.tree
        visits, pending, q, _ = tree.root_statistics(self.rules.num_actions)
        actions = self.gumbel.root.next_actions(budget, visits, q, float(tree.floats[NET_VALUE, 0]), pending)
        children = tree.children()
        node_of = np.full(self.rules.num_actions, -1, dtype=np.int64)
        node_of[tree.ints[ACTION, children]] = np.arange(children.start, children.stop)
        return node_of[np.array(actions, dtype=np.int64)]

    def _select(self, budget: int, root_path: np.ndarray = _NO_PATH) -> tuple[int, int]:
        """Run :func:`select_leaves`; ``root_path``: the root children the simulations take (Gumbel)."""
        if root_path is not _NO_PATH and not len(root_path):
            return 0, 0
        cfg, tree, leaves, root = self.config, self.tree, self._leaves, self.root.position
        utility = cfg.score_utility if self._has_score else 0.0
        center = -float(tree.floats[SCORE_SUM, 0]) / tree.root_visits if utility and tree.root_visits else 0.0
        return select_leaves(tree.ints, tree.floats, root.cells, root.info, self.geo.zobrist,
                             self.geo.width, self.geo.action_point, self.spec, float(self.rules.komi),
                             cfg.c_puct, cfg.fpu_reduction, cfg.root_fpu_reduction,
                             math.nan if cfg.fpu_value is None else cfg.fpu_value, self._has_score, utility, center,
                             cfg.score_utility_scale * self.rules.size,
                             cfg.forced_playouts_k if self.shaping.forced else 0.0, cfg.c_puct_stdev_scale,
                             cfg.fpu_from_mean, cfg.keep_own_eyes, root_path,
                             budget, leaves.nodes,
                             leaves.cells, leaves.info, leaves.legal)

    def run(self, visits: int | None = None, *, playouts: int | None = None, seconds: float | None = None,
            noise: bool = False, stop: Callable[[], bool] | None = None,
            progress: Callable[["Search"], None] | None = None, progress_every: float = 0.1) -> SearchResult:
        """Search with this search's evaluator to the limits of a :class:`SearchJob`, or until ``stop()`` says
        so. ``progress(search)`` is called every ``progress_every`` seconds."""
        job = SearchJob(self, self.evaluator, visits, noise, playouts=playouts, seconds=seconds)
        last_report = time.monotonic()
        finished = job.finished
        while not finished:
            job.step()
            finished = job.finished or (stop is not None and stop())
            if progress is not None and not finished and time.monotonic() - last_report >= progress_every:
                progress(self)
                last_report = time.monotonic()
        return job.result()

    # -------------------------------------------------------------- results
    def result(self, seconds: float = 0.0, simulations: int = 0) -> SearchResult:
        actions = self.rules.num_actions
        tree, root = self.tree, self.root.position
        visits, _, q, priors = tree.root_statistics(actions)
        children = tree.children()
        root_visits = tree.root_visits
        value = -float(tree.floats[VALUE_SUM, 0]) / root_visits if root_visits else float(tree.floats[NET_VALUE, 0])
        score = None   # a finished game's count, exactly
        if root.is_over:
            value, score = terminal_outcome(root.cells, root.info, self.geo.width, self.geo.action_point, self.spec,
                                            float(self.rules.komi))
        line = np.zeros(64, dtype=np.int64)
        length = principal_variation(tree.ints, 0, line)
        targets = {"value": value, **self._targets(visits, q, priors)}  # a Gumbel search has its own value
        cfg = self.config
        if cfg.lcb_stdevs > 0 and "gumbel_action" not in targets and visits.any():
            spread = tree.root_value_stdevs(actions)
            targets["lcb_action"] = lcb_action(visits, q, spread, cfg.lcb_stdevs, cfg.lcb_min_visit_share)
            targets["move_lcbs"] = lower_bounds(visits, q, spread, cfg.lcb_stdevs)
        proven = np.zeros(actions, dtype=np.int8)
        proven[tree.ints[ACTION, children]] = np.where(tree.ints[VISITS, children] > 0, tree.ints[PROVEN, children], 0)
        if root_visits and tree.ints[PROVEN, 0] != 0:
            targets["value"] = -float(tree.ints[PROVEN, 0])
        result = SearchResult(visits, q, priors, simulations=simulations, seconds=seconds,
                              pv=[int(a) for a in line[:length]], ownership=self.ownership(), proven=proven, **targets)
        result = replace(result, solved_action=_solved_action(result, tree.ints[ACTION, children]))
        if score is not None and self.rules.game == "go":
            return replace(result, score_mean=float(score), score_stdev=0.0)
        if not self._has_score or not root_visits:
            return result
        moves, stdevs = np.zeros(actions, dtype=np.float32), np.zeros(actions, dtype=np.float32)
        if children.stop > children.start:
            acts = tree.ints[ACTION, children]
            moves[acts], stdevs[acts] = _score_statistics(tree.floats[:, children], visits[acts])
        mean, stdev = _score_statistics(tree.floats[:, :1], np.float32([root_visits]))
        return replace(result, score_mean=-float(mean[0]), score_stdev=float(stdev[0]), move_scores=moves,
                       move_score_stdevs=stdevs)

    def _targets(self, visits: np.ndarray, q: np.ndarray, priors: np.ndarray) -> dict[str, object]:
        """The policy target (and move) of a Gumbel or forced-playout search, for :class:`SearchResult`."""
        if not visits.sum():
            return {}
        gumbel = self.gumbel.root if self.gumbel is not None else None
        if gumbel is not None:
            raw_value = float(self.tree.floats[NET_VALUE, 0])
            return {"policy_target": gumbel.policy_target(visits, q, raw_value),
                    "gumbel_action": gumbel.final_action(visits, q, raw_value),
                    "value": gumbel.value(visits, q, raw_value)}
        if self.shaping.forced:
            cfg = self.config
            return {"policy_target": prune_policy_target(visits, priors, q, parent_visits=self.tree.root_visits,
                                                         c_puct=cfg.c_puct, k=cfg.forced_playouts_k)}
        return {}

    def ownership(self, action: int | None = None) -> np.ndarray | None:
        """Tree-averaged ownership (``float32[N*N]``, the root's side to move: +1 its point) of the
        whole tree, or of the subtree after the root's ``action``; None without an ownership head
        or when that subtree holds no evaluated node."""
        pool = self.ownership_pool
        if not len(pool):
            return None
        if action is None:
            mean = pool.mean()
        else:
            child = self.tree.child(0, action)
            mean = pool.subtree_mean(self.tree.ints, child) if child >= 0 else None
        if mean is None:
            return None
        return mean if self.root.position.to_play == BLACK else -mean

    def ownership_stdev(self, action: int | None = None) -> np.ndarray | None:
        """The standard deviation, point by point, of the ownership that :meth:`ownership` averages over the same
        nodes (``float32[N*N]``, in [0, 1]); None where :meth:`ownership` is None."""
        pool = self.ownership_pool
        if not len(pool):
            return None
        if action is None:
            return pool.stdev()
        child = self.tree.child(0, action)
        return pool.subtree_stdev(self.tree.ints, child) if child >= 0 else None

    def line_visits(self, line: list[int]) -> list[int]:
        """Visits of the nodes that the actions of ``line``, played from the root, reach (while the tree has them)."""
        node, visits = 0, []
        for action in line:
            node = self.tree.child(node, action)
            if node < 0:
                break
            visits.append(int(self.tree.ints[VISITS, node]))
        return visits

    def child_pv(self, action: int, limit: int = 32) -> list[int]:
        """The most-visited line starting with ``action`` (for analysis output)."""
        child = self.tree.child(0, action)
        if child < 0:
            return [action]
        line = np.zeros(limit, dtype=np.int64)
        length = principal_variation(self.tree.ints, child, line)
        return [action] + [int(a) for a in line[:length]]


class SearchJob:
    """One search driven to its limits: ``search`` run until its root has ``visits`` visits (reused ones count),
    ``playouts`` new simulations ran, its time ran out, or :meth:`stop` was called; None: no such limit.

    ``seconds`` counts from the first step and is a hard limit but for that step: no step begins that would
    end past it, were it to take as long as the last (and the tree's next growth, when it may grow). The
    caller evaluates each :meth:`gather`'s leaves with ``evaluator`` and hands the evaluation to :meth:`complete`.
    """

    def __init__(self, search: Search, evaluator: Evaluator, visits: int | None, noise: bool = False, *,
                 playouts: int | None = None, seconds: float | None = None) -> None:
        if visits is None and playouts is None and seconds is None:
            raise ValueError("give a visit, playout or time limit")
        self.search = search
        self.evaluator = evaluator
        self.visits = visits
        self.playouts = playouts
        self.seconds = seconds
        self.simulations = 0
        self.started: float | None = None  # time.monotonic() of the first step
        self._step_started = 0.0  # of the latest step, and the tree's growth_seconds then
        self._growth_before_step = 0.0
        self._stalled = False
        self._stopped = False
        bounds = [bound for bound in (visits, playouts) if bound is not None]
        if seconds is None and bounds and min(bounds) * search.rules.num_actions >= search.tree.capacity:
            search.tree.reserve()   # analysis, pondering: the tree will fill, so its memory is taken at the start
        self._open = search.begin(noise, visits)

    @property
    def finished(self) -> bool:
        """Nothing left to do: a limit is reached, the job was stopped, the tree is full or the game is over."""
        if not self._open or self._stalled or self._stopped or self.search.tree.full:
            return True
        if self.seconds is not None and self.started is not None and self._out_of_time():
            return True
        return self._budget() <= 0

    def _out_of_time(self) -> bool:
        now = time.monotonic()
        search, tree = self.search, self.search.tree
        last_step = now - self._step_started - (tree.growth_seconds - self._growth_before_step)
        next_step = last_step + tree.next_growth_seconds(search.config.batch_size * search.rules.num_actions)
        return now - self.started + next_step >= self.seconds  # type: ignore[operator]

    def _budget(self) -> int:
        """Simulations the next step may run under the visit and playout limits."""
        budget = self.search.config.batch_size
        if self.visits is not None:
            budget = min(budget, self.visits - self.search.tree.root_visits)
        if self.playouts is not None:
            budget = min(budget, self.playouts - self.simulations)
        return budget

    @property
    def elapsed(self) -> float:
        """Seconds since the first step (0 before it)."""
        return 0.0 if self.started is None else time.monotonic() - self.started

    def stop(self) -> None:
        """Finish now: the result is what the search found so far."""
        self._stopped = True

    def gather(self) -> tuple[PositionBatch, np.ndarray]:
        """The next leaf batch (possibly empty) and its legal masks."""
        now = time.monotonic()
        if self.started is None:
            self.started = now
        self._step_started, self._growth_before_step = now, self.search.tree.growth_seconds
        leaves, legal, done = self.search.gather(self._budget())
        self.simulations += len(leaves) + done
        self._stalled = len(leaves) == 0 and done == 0
        return leaves, legal

    def complete(self, evaluation: Evaluation) -> None:
        self.search.complete(evaluation)

    def step(self) -> None:
        """One leaf batch gathered, evaluated by the job's own evaluator and completed: a search stepped alone."""
        leaves, legal = self.gather()
        if len(leaves):
            self.complete(self.evaluator.evaluate(leaves, legal))

    def result(self) -> SearchResult:
        return self.search.result(self.elapsed, self.simulations)
