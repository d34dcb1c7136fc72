"""A search's root: what the game says of the searched position (``Root``, which tree reuse follows), and what
the search does to the root's children once they exist (``RootShaping``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine.core.dispatch import drop_own_eyes, pack_rules
from engine.core.game import Game
from engine.core.position import Position
from engine.search.tree import ACTION, PRIOR, Tree

__all__ = ["Root", "RootShaping"]


@dataclass(frozen=True, eq=False)  # arrays have no truth value: compare by identity
class Root:
    """The searched ``position``, the ``legal`` actions the search may take there (``bool[N*N+1]``: the game's,
    superko included, which the tree's simple ko does not see) and the number of the game's ``moves`` that led
    to it."""

    position: Position
    legal: np.ndarray
    moves: int

    @classmethod
    def of(cls, game: Game, keep_eyes: bool = False) -> Root:
        """``keep_eyes``: less the moves that fill the mover's own one-point eyes (Go; :func:`drop_own_eyes`)."""
        position, legal = game.position.copy(), game.legal_mask()
        if keep_eyes:
            geo = position.geo
            drop_own_eyes(position.cells, position.info, geo.width, geo.action_point, int(position.to_play),
                          pack_rules(position.rules), legal)
        return cls(position, legal, len(game.moves))

    def actions_to(self, game: Game) -> list[int] | None:
        """The actions of the game's moves since this root, when playing them here gives the game's position
        (a tree searched from here still serves); None when the game does not follow from this root."""
        newer = game.moves[self.moves:] if len(game.moves) >= self.moves else None
        if newer is None or game.rules != self.position.rules:
            return None
        position = self.position.copy()
        for move in newer:
            if int(move.color) != int(position.to_play) or not position.is_legal(move.action):
                return None
            position.play_unchecked(move.action)
        if position.key != game.position.key or not np.array_equal(position.cells, game.position.cells):
            return None
        return [move.action for move in newer]


@dataclass
class RootShaping:
    """What a search does to the root's priors and children once the root is expanded.

    Analysis (until the root moves): search only the ``allowed`` actions (``bool[N*N+1]``, None: all) and raise
    the priors to the power ``1 / temperature``; ``reshape`` while that is still to be done. Self-play, in a
    search begun with noise: mix Dirichlet ``noise`` into the priors once (True while still to be done), and run
    ``forced`` playouts (with the pruned policy target).
    """

    allowed: np.ndarray | None = None
    temperature: float = 1.0
    reshape: bool = False
    noise: bool = False
    forced: bool = False

    def for_analysis(self, allowed: np.ndarray | None, temperature: float, legal: np.ndarray) -> None:
        """Shape the root for analysis; an ``allowed`` that leaves none of the ``legal`` actions is ignored."""
        if temperature <= 0:
            raise ValueError(f"the root policy temperature must be positive, not {temperature}")
        self.allowed = None if allowed is None or not (allowed & legal).any() else allowed
        self.temperature = temperature
        self.reshape = True

    def forget_analysis(self) -> None:
        self.allowed, self.temperature, self.reshape = None, 1.0, False

    def mix_noise(self, tree: Tree, rng: np.random.Generator, epsilon: float,
                  alpha_for: Callable[[int], float]) -> None:
        """Mix Dirichlet noise of ``alpha_for(children)`` into the expanded root's priors, weighing it ``epsilon``."""
        self.noise = False
        children = tree.children()
        count = children.stop - children.start
        if count > 1:
            dirichlet = rng.dirichlet(np.full(count, alpha_for(count)))
            mixed = (1 - epsilon) * tree.floats[PRIOR, children] + epsilon * dirichlet
            tree.floats[PRIOR, children] = mixed.astype(np.float32)

    def apply(self, tree: Tree) -> bool:
        """Raise the expanded root's priors to ``1 / temperature``, renormalised; whether children outside
        ``allowed`` remain (the caller then re-roots the tree onto its root without them)."""
        self.reshape = False
        children = tree.children()
        if self.temperature != 1.0 and children.stop > children.start:
            weights = tree.floats[PRIOR, children].astype(np.float64) ** (1.0 / self.temperature)
            tree.floats[PRIOR, children] = (weights / max(weights.sum(), 1e-30)).astype(np.float32)
        return self.allowed is not None and not self.allowed[tree.ints[ACTION, children]].all()
