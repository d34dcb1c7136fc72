"""Games between GTP engines, refereed by the rules core: GNU Go's self-play data and matches against peers.

``engine match "engine gtp --visits 800" "gnugo --mode gtp --level 10 --chinese-rules" --games 40 --size 9``
(:func:`play_gtp_match`) plays engine A against engine B with colours
alternating (A is black in even games) and reports A's results with a 95%
interval and the Elo difference, as ``engine evaluate`` does for model files.
Every move either engine generates is checked through
:class:`~engine.core.game.Game` (an illegal move ends the run with an error
naming the engine); a game ends after two passes, a resignation or the rules'
move cap. Finished-by-passing games are scored by the scorer engine's
``final_score`` (B by default: GNU Go's dead-stone judgement is the usual
referee), which falls back to the board as it stands. Engines are spoken to
through :class:`~training.gtp_client.GTPClient`, so a hung engine ends the run
after its timeout instead of blocking it.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine import Color, EngineError, Game, Outcome, Rules, action_to_gtp, dump_sgf, gtp_to_action, write_text
from training.baselines import random_move
from training.gtp_client import DEFAULT_TIMEOUT, GTPClient, GTPEngineError
from training.match import MatchResult

__all__ = ["GtpMatchConfig", "play_game", "play_gtp_match"]


@dataclass(frozen=True)
class GtpMatchConfig:
    """A match between two GTP engines: games, rules, random opening moves (so that deterministic
    engines play different games), whose ``final_score`` scores a game that ends by passing ("a" or
    "b"), each engine's seconds per command, the seed of the random moves."""

    games: int = 20
    rules: Rules = field(default_factory=lambda: Rules.go(9, "chinese", komi=7.0))
    random_moves: int = 0
    scorer: str = "b"
    timeout: float = DEFAULT_TIMEOUT
    seed: int = 0


def play_game(black: GTPClient, white: GTPClient, rules: Rules, random_moves: int, rng: np.random.Generator,
              scorer: GTPClient | None = None) -> tuple[Game, Outcome]:
    """One game (``black`` may be ``white``: self-play) after ``random_moves`` random opening moves.

    A scored game's result is the ``scorer``'s ``final_score`` (default: the
    white engine's), else the board as it stands under ``rules``.
    """
    players = {Color.BLACK: black, Color.WHITE: white}
    engines = list({id(engine): engine for engine in (black, white)}.values())
    for engine in engines:
        engine.send(f"boardsize {rules.size}")
        engine.send("clear_board")
        engine.send(f"komi {rules.komi:g}")
    game = Game(rules)

    def tell_others(mover: GTPClient | None, color: Color, vertex: str) -> None:
        """Every engine but the mover (all of them for a random move) learns of the move."""
        for engine in engines:
            if engine is not mover:
                engine.send(f"play {color.letter} {vertex}")

    for _ in range(random_moves):
        color, action = game.to_play, random_move(game, rng)
        game.play(action)
        tell_others(None, color, action_to_gtp(action, rules.size))
    while not game.is_over:
        color = game.to_play
        mover = players[color]
        vertex = mover.send(f"genmove {color.letter}").lower()
        if vertex == "resign":
            game.resign(color)
            break
        try:
            game.play(gtp_to_action(vertex, rules.size))
        except EngineError as error:
            raise GTPEngineError(f"{mover.name} played {vertex!r} as {color.letter}: {error}") from error
        tell_others(mover, color, vertex)
    outcome = game.outcome()
    if game.resigned is None:  # scored: the scorer's dead-stone judgement
        outcome = Outcome.from_sgf((scorer or white).send("final_score")) or outcome
    assert outcome is not None
    return game, outcome


def play_gtp_match(engine_a: str, engine_b: str, config: GtpMatchConfig, sgf_dir: str | Path | None = None,
                   on_game: Callable[[MatchResult], None] | None = None) -> MatchResult:
    """Play ``config.games`` games of engine A against engine B (GTP command lines), colours alternating.

    Returns A's results; ``on_game`` sees them after every game. GTPEngineError names an engine
    that failed (refused a command, hung, died, or played an illegal move).
    """
    result = MatchResult(engine_a, engine_b)
    with GTPClient(shlex.split(engine_a), config.timeout, "A") as a, \
            GTPClient(shlex.split(engine_b), config.timeout, "B") as b:
        for index in range(config.games):
            a_color = Color.BLACK if index % 2 == 0 else Color.WHITE
            black, white = (a, b) if a_color == Color.BLACK else (b, a)
            game, outcome = play_game(black, white, config.rules, config.random_moves,
                                      np.random.default_rng([config.seed, index]),
                                      scorer=a if config.scorer == "a" else b)
            result.add(outcome, a_color, len(game.moves))
            if sgf_dir is not None:
                write_text(Path(sgf_dir) / f"game-{index + 1:04d}.sgf",
                           dump_sgf(game, black_name=black.name, white_name=white.name, result=outcome))
            if on_game is not None:
                on_game(result)
    return result
