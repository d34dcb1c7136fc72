"""The front ends' games differ without ``--seed`` and repeat with it: the player draws the opening's moves among
the near-best (``FrontEndConfig``'s default player, which ``engine gtp`` and ``engine gomocup`` start from)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
import torch

from engine import (
    Evaluator,
    EvaluatorOptions,
    Game,
    Player,
    Rules,
    SearchConfig,
    bundled_model,
    load_evaluator,
)
from engine.search.player import PLAY_OPENING
from gtp.state import FrontEndConfig

RULES = Rules.go(9)


@pytest.fixture(scope="module")
def evaluator() -> Iterator[Evaluator]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)   # as the front ends run it: two threads crawl on a busy machine
    try:
        yield load_evaluator(RULES, bundled_model(RULES), EvaluatorOptions(runtime="eager", dtype="fp32"))
    finally:
        torch.set_num_threads(threads)


def _game(evaluator: Evaluator, seed: int | None) -> tuple[int, ...]:
    """The opening of a game the front ends' default player plays against itself, and one move after it."""
    config = replace(FrontEndConfig().player, visits=32, search=SearchConfig(batch_size=8))
    player, game = Player(evaluator, config, seed=seed), Game(RULES)
    for _ in range(int(PLAY_OPENING * RULES.num_points) + 1):
        decision = player.choose(game)
        assert decision.action is not None
        game.play(decision.action)
    return tuple(game.moves)


def test_games_without_a_seed_differ(evaluator: Evaluator) -> None:
    games = {_game(evaluator, None) for _ in range(8)}
    assert len(games) > 1


def test_a_seed_repeats_a_game_and_another_seed_plays_another(evaluator: Evaluator) -> None:
    first = _game(evaluator, 5)
    assert _game(evaluator, 5) == first
    assert any(_game(evaluator, seed) != first for seed in (6, 7, 8))


def test_the_command_lines_defaults_are_the_front_ends() -> None:
    from engine.cli.play import gomocup_command, gtp_command, play_command

    player = FrontEndConfig().player
    for command in (gtp_command, gomocup_command, play_command):
        defaults = {parameter.name: parameter.default for parameter in command.params}
        assert (defaults["temperature_moves"], defaults["near_best"]) == (player.temperature_moves, player.near_best)
