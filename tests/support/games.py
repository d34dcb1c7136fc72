"""Games for tests: stones laid out move by move, and random games for many varied, legal positions."""

from __future__ import annotations

import numpy as np

from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.rules import Rules

__all__ = ["play_stones", "play_randomly", "random_positions"]


def play_stones(rules: Rules, black: list[str], white: list[str]) -> Game:
    """A game of ``black``'s and ``white``'s stones (GTP vertices) played alternately from black, who has
    as many stones as white or one more."""
    if not len(white) <= len(black) <= len(white) + 1:
        raise ValueError(f"black plays first and alternately: {len(black)} black and {len(white)} white stones")
    game = Game(rules)
    for index, vertex in enumerate(black):
        game.play(gtp_to_action(vertex, rules.size))
        if index < len(white):
            game.play(gtp_to_action(white[index], rules.size))
    return game


def play_randomly(game: Game, rng: np.random.Generator, moves: int, pass_rate: float = 0.05) -> None:
    """Play up to ``moves`` random legal moves (superko included), passing now and then in Go."""
    for _ in range(moves):
        if game.is_over:
            return
        mask = game.legal_mask()
        points = np.flatnonzero(mask[:-1])
        if mask[-1] and (points.size == 0 or rng.random() < pass_rate):
            game.play(game.rules.pass_action)
        elif points.size:
            game.play(int(rng.choice(points)))
        else:
            return


def random_positions(rules: Rules, count: int, seed: int, moves: tuple[int, int] = (8, 40)) -> list[Game]:
    """``count`` games of a random number of random legal moves (within ``moves``), kept where the game
    is not over."""
    rng = np.random.default_rng(seed)
    games: list[Game] = []
    while len(games) < count:
        game = Game(rules)
        play_randomly(game, rng, int(rng.integers(*moves)), pass_rate=0.0)
        if not game.is_over:
            games.append(game)
    return games
