"""The search's and the player's settings: plain frozen dataclasses with no engine import.

They live apart from the search and the player (which load numba) so that a command's ``--help`` reads their
defaults from here (:class:`engine.cli.options.Setting`): each setting has one default, the field's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

__all__ = ["SearchConfig", "PlayerConfig", "ROLLOUT_C_PUCT"]


ROLLOUT_C_PUCT = 5.0
"""Exploration of pure MCTS: with uniform priors over ~N*N moves the network's c_puct (1.25) would keep
revisiting the first child that looks no worse than its parent."""


@dataclass(frozen=True)
class SearchConfig:
    """Search constants. ``dirichlet_alpha=None`` scales alpha to the legal moves (10.83 / legal).
    ``fpu_value`` (None: off) is an unvisited child's value in selection, in place of its parent's
    evaluation less ``fpu_reduction * sqrt(visited prior)`` (see :meth:`for_rollouts`); with ``fpu_from_mean``
    that evaluation is blended with the parent's mean backed-up value, weighing ``visited prior ** 2`` (KataGo's
    default, :func:`engine.search.tree._best_child`).

    The tree starts small and doubles when full, up to ``capacity`` nodes (52 bytes each; an
    expansion adds one node per legal move, so 8M nodes hold about 20k expansions on 19x19); a tree full at
    ``capacity`` is pruned (:meth:`engine.search.tree.Tree.prune`) and the search goes on. A search without a time
    limit whose visit budget could fill the tree (analysis, pondering) takes the whole capacity at its start
    (:meth:`engine.search.tree.Tree.reserve`), so that a long session's memory is fixed from its first minute.
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

    ``c_puct_stdev_scale`` (0: off; 0.85 as KataGo's) scales ``c_puct`` at each node by the spread of the values
    backed up through it (KataGo's utility-stdev-scaled exploration, :func:`engine.search.tree.exploration_factor`):
    the search widens where the values disagree and reads deeper where they agree.

    ``lcb_stdevs`` (0: off; 5 as KataGo's) plays, in place of the most visited move, the move whose value has the
    highest lower confidence bound, ``q`` less that many standard errors, among the moves with at least
    ``lcb_min_visit_share`` of the most visited move's visits (:mod:`engine.search.lcb`; KataGo 0.15, Leela
    Zero 0.1); a Gumbel search's choice and the solver's proofs come first.

    ``komi_correction`` (Go): where the evaluator states the komi its values were learnt at and has a score head,
    each leaf is valued at the game's komi (White's handicap bonus included) from its predicted score and spread
    (:mod:`engine.search.komi`); off, the network's values are taken as they are.

    ``keep_own_eyes`` (Go): the search never considers filling the mover's own one-point eyes, as nearly every
    Go program's search and playouts do: a network taught by games that end before the board is played out
    has no sound policy there, and filling the eyes of a living group loses it.
    """

    c_puct: float = 1.25
    c_puct_stdev_scale: float = 0.85
    fpu_reduction: float = 0.25
    root_fpu_reduction: float = 0.0
    """``fpu_reduction`` at the root, where it is usually 0 (KataGo's), so that the root's untried moves keep
    their parent's value and get tried."""
    fpu_value: float | None = None
    fpu_from_mean: bool = True
    batch_size: int = 16
    """Leaves a search selects per step (virtual loss keeps them apart), evaluated in one network call."""
    dirichlet_alpha: float | None = None
    dirichlet_epsilon: float = 0.25
    """The weight of the Dirichlet noise in a noised root's priors: ``(1 - epsilon) * P + epsilon * noise``."""
    capacity: int = 8_000_000
    score_utility: float = 0.0
    score_utility_scale: float = 0.75
    forced_playouts_k: float = 0.0
    gumbel_considered: int = 0
    gumbel_c_visit: float = 50.0
    gumbel_c_scale: float = 1.0
    """With ``gumbel_c_visit``, how far a Gumbel search trusts the values over the prior: the completed Q
    values count ``(gumbel_c_visit + max visits) * gumbel_c_scale`` logits (:func:`engine.search.gumbel.sigma`;
    the paper's Go settings, 50 and 1)."""
    lcb_stdevs: float = 5.0
    lcb_min_visit_share: float = 0.15
    keep_own_eyes: bool = True
    komi_correction: bool = True

    def __post_init__(self) -> None:
        if self.forced_playouts_k < 0 or self.gumbel_considered < 0:
            raise ValueError("forced_playouts_k and gumbel_considered must not be negative")
        if not 0.0 <= self.c_puct_stdev_scale <= 1.0:
            raise ValueError(f"c_puct_stdev_scale must lie in [0, 1], not {self.c_puct_stdev_scale}")
        if self.lcb_stdevs < 0:
            raise ValueError(f"lcb_stdevs must not be negative, not {self.lcb_stdevs}")
        if not 0.0 < self.lcb_min_visit_share <= 1.0:
            raise ValueError(f"lcb_min_visit_share must lie in (0, 1], not {self.lcb_min_visit_share}")

    def for_rollouts(self, try_every_move: bool = True) -> "SearchConfig":
        """These settings as pure MCTS with the :class:`~engine.search.evaluator.RolloutEvaluator` runs:
        c_puct ``ROLLOUT_C_PUCT``, no first-play reduction, one leaf per step (exact MCTS), plain UCT exploration
        (no spread scaling, no first-play value from the mean).

        ``try_every_move``: an unvisited move counts as a win (``fpu_value`` 1), so every move is tried
        once before any is tried twice, as UCT does. Otherwise an unvisited move takes its parent's
        evaluation, one random playout: when that playout was lost, the first move tried that did not
        look lost takes every later visit (the ``mcts-rollouts`` yardstick plays so, and ratings against
        it stay comparable only if it keeps playing so)."""
        return replace(self, c_puct=ROLLOUT_C_PUCT, fpu_reduction=0.0, batch_size=1, c_puct_stdev_scale=0.0,
                       fpu_from_mean=False, fpu_value=1.0 if try_every_move else None)

    def alpha_for(self, legal_moves: int) -> float:
        if self.dirichlet_alpha is not None:
            return self.dirichlet_alpha
        return 10.83 / max(legal_moves, 1)



@dataclass(frozen=True)
class PlayerConfig:
    """How long to think and how to choose.

    Limits: ``visits`` (root visits, reused ones included), ``playouts`` (new
    simulations) and ``seconds``; the first one reached stops the search.
    The first ``temperature_moves`` moves of a game (None: :data:`~engine.search.player.PLAY_OPENING` of the
    board's points) are drawn from the visits sharpened by ``1 / temperature``, among the moves with at least
    ``near_best`` times the most visited move's visits (0: every move, as self-play explores; the
    front ends draw among the near-best, so that games differ without a move the search thought
    clearly worse); afterwards the most visited move is played. ``remove_dead_stones``: judge a pass
    that ends the game with estimated dead stones removed (GTP play, where the controller scores
    that way); off for strict rules that score the board as it stands (Tromp-Taylor self-play).
    ``threat_guard`` (Gomoku): read victories by continuous threats before each move and search only
    the moves they allow (:func:`engine.search.guard.guarded_moves`); the players of GTP, Gomocup and
    matches turn it on, self-play leaves it off (a method stored with a run keeps its cost).
    Levels (:mod:`engine.search.levels`): a played move's search sees the root's priors widened by
    ``root_temperature`` (1: as learnt) and, with ``blind_spots`` above 0, not the moves in that share
    of the board, hidden in blocks afresh at each move, nor, with ``overlooked_ataris`` above 0, the last
    liberty of each chain in atari with that probability; with ``draw_by_reading`` the drawn move weighs what the
    search read of it (:meth:`~engine.search.mcts.SearchResult.policy`'s ``reading``), not its raw visits.
    In a handicap game the search also weighs the score lead by ``handicap_score_utility`` (KataGo's
    dynamic score utility factor, :attr:`SearchConfig.score_utility`, unless ``search`` sets one): where the win
    rate reads lost (White giving stones) or won at every move, the points still tell the moves apart. Every
    player has it, the front ends' and the matches' alike; only a game with handicap stones reads it.
    Resignation (:class:`~engine.search.resign.ResignationWatch`): after ``resign_consecutive`` of the
    player's moves valued below ``resign_threshold`` (None: never) and, where the search has a score,
    more than ``resign_min_score`` points behind.
    """

    visits: int | None = 800
    playouts: int | None = None
    seconds: float | None = None
    noise: bool = False
    temperature: float = 1.0
    temperature_moves: int | None = 0
    near_best: float = 0.0
    root_temperature: float = 1.0
    blind_spots: float = 0.0
    overlooked_ataris: float = 0.0
    draw_by_reading: bool = False
    handicap_score_utility: float = 0.3
    resign_threshold: float | None = -0.9
    resign_consecutive: int = 3
    resign_min_score: float = 0.0
    reuse_tree: bool = True
    remove_dead_stones: bool = True
    threat_guard: bool = False
    search: SearchConfig = field(default_factory=SearchConfig)
