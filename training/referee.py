"""The referee of every match: one game between two players, every move checked by the rules core.

:func:`referee_game` plays a game from the empty board, or from Black's
``handicap`` stones (every player is told them:
:meth:`~training.players.MatchPlayer.place_handicap`): the ``opening``'s stones
(the side to move first, colours alternating), then ``random_moves`` uniformly
random moves (so that deterministic players play different games), then each
player's ``genmove`` in turn, the other player told of it. An
illegal move ends the match with a :class:`~training.errors.PlayerError` naming
the player; the game ends after two passes, a resignation, the rules' move cap or
(Gomoku) a line or a full board.

A Go game that ends on the board is scored by the scorer player's
``final_score`` (its dead-stone judgement) when one is named, by a third engine
shown the whole game (the ``referee``: GNU Go, say) when there is one, else (and
when either gives no answer) by the rules core on the board as it stands. A
handicap game is scored at the komi plus White's handicap bonus
(:func:`~engine.with_handicap_bonus`), as ``engine gtp`` and GNU Go count it;
the game keeps the komi as given, which its record states.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass

import numpy as np

from engine import (
    Color,
    EngineError,
    Game,
    Outcome,
    Rules,
    SearchJob,
    action_to_gtp,
    handicap_bonus_rule,
    white_handicap_bonus,
)
from training.baselines import random_move
from training.errors import PlayerError
from training.gtp_client import GTPClient
from training.players import MatchPlayer

__all__ = ["Refereed", "referee_game", "referee_outcome"]


@dataclass(frozen=True)
class Refereed:
    """A finished game, its result, and what each move's search saw (None for a move that said nothing)."""

    game: Game
    outcome: Outcome
    comments: list[str | None]


def referee_game(black: MatchPlayer, white: MatchPlayer, rules: Rules, random_moves: int, rng: np.random.Generator,
                 seeds: tuple[int, int] = (0, 1), scorer: MatchPlayer | None = None,
                 referee: GTPClient | None = None, opening: Sequence[int] = (), handicap: Sequence[int] = ()
                 ) -> Generator[SearchJob, None, Refereed]:
    """One game (``black`` may be ``white``: a player against itself), yielding the searches of in-process
    players for a scheduler to step (:func:`training.players.play_through` plays one alone).

    ``seeds`` are the players' seeds for this game (black's, white's); ``rng`` draws the random opening.
    """
    players = {Color.BLACK: black, Color.WHITE: white}
    for player, seed in {id(black): (black, seeds[0]), id(white): (white, seeds[1])}.values():
        player.new_game(rules, seed)
    game = Game(rules)
    comments: list[str | None] = []
    if handicap:
        game.place_handicap(handicap)
        for player in {id(black): black, id(white): white}.values():
            player.place_handicap(handicap)

    def tell_others(mover: MatchPlayer | None, color: Color, action: int) -> None:
        """Every player but the mover (both of them for a random move) hears of the move."""
        for player in {id(black): black, id(white): white}.values():
            if player is not mover:
                player.play(color, action)

    for number in range(len(opening) + random_moves):
        color = game.to_play
        action = opening[number] if number < len(opening) else random_move(game, rng)
        try:
            game.play(action)
        except EngineError as error:
            raise ValueError(f"opening stone {number + 1} ({action_to_gtp(action, rules.size)}): {error}") from error
        comments.append(None)
        tell_others(None, color, action)
    while not game.is_over:
        color = game.to_play
        mover = players[color]
        action = yield from mover.genmove(color)
        if action is None:
            game.resign(color)
            break
        try:
            game.play(action, color)
        except EngineError as error:
            vertex = action_to_gtp(action, rules.size).lower()
            raise PlayerError(f"{mover.name} played {vertex!r} as {color.letter}: {error}") from error
        comments.append(mover.comment)
        tell_others(mover, color, action)
    return Refereed(game, _outcome(game, scorer, referee), comments)


def _outcome(game: Game, scorer: MatchPlayer | None, referee: GTPClient | None) -> Outcome:
    outcome = game.outcome()
    assert outcome is not None
    if game.resigned is not None or game.rules.game != "go":  # a resignation, a Gomoku line or full board
        return outcome
    if game.handicap:
        outcome = Outcome.from_lead(game.score() - white_handicap_bonus(game.handicap, handicap_bonus_rule(game.rules)))
    if referee is not None:
        return referee_outcome(referee, game) or outcome
    if scorer is not None:
        return scorer.final_score() or outcome
    return outcome


def referee_outcome(referee: GTPClient, game: Game) -> Outcome | None:
    """The ``referee``'s ``final_score`` of ``game``, which it is shown from the empty board (and its handicap
    stones)."""
    rules = game.rules
    commands = [f"boardsize {rules.size}", "clear_board", f"komi {rules.komi:g}"]
    if game.handicap:
        commands.append("set_free_handicap " + " ".join(action_to_gtp(move.action, rules.size)
                                                         for move in game.setup_stones))
    commands += [f"play {move.color.letter} {action_to_gtp(move.action, rules.size)}" for move in game.moves]
    referee.send_many(commands)
    return Outcome.from_sgf(referee.send("final_score"))
