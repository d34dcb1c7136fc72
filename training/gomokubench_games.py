"""gomokubench's alpha-beta player against itself as SGF files: the data of the supervised Gomoku start.

::

    engine gomokubench-games OUT_DIR --games 2000 --rules renju --levels easy,standard,standard,hard

Each game opens with ``random_moves`` uniformly random legal moves (so that
games differ; at ``standard`` and ``hard`` gomokubench is deterministic), then
each side plays gomokubench at a level drawn from ``levels`` for that game (a
level written twice is drawn twice as often), until a five or a full board.
Every move goes through :class:`~engine.core.game.Game` under the rules given,
so under renju black's forbidden points are never played
(:mod:`training.gomokubench`). Games are written atomically as
``gomokubench-SEED-NNNNNN.sgf`` with the levels as the players' names; a re-run
writes only the games still missing, so a killed run resumes. gomokubench is pure
Python, so ``jobs`` worker processes (one a free core) play games side by side;
a game depends only on the seed and its number, never on the job that played it.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

import numpy as np

from engine import Game, Rules, dump_sgf, write_text
from training.baselines import random_move
from training.game_files import GamesSummary, game_path, missing_numbers
from training.gomokubench import GomokubenchPlayer

__all__ = ["GomokubenchGamesConfig", "missing_games", "write_gomokubench_games"]

_PREFIX = "gomokubench"


@dataclass(frozen=True)
class GomokubenchGamesConfig:
    """Games the folder should hold, their rules, the levels each side's is drawn from, random opening
    moves, the seed (of the names, the openings, the levels and gomokubench's random choices) and the
    worker processes that play them."""

    games: int = 100
    rules: Rules = field(default_factory=lambda: Rules.gomoku(15))
    levels: tuple[str, ...] = ("easy", "standard", "standard", "hard")
    random_moves: int = 2
    seed: int = 0
    jobs: int = 1

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise ValueError(f"jobs must be at least 1, not {self.jobs}")


def missing_games(out_dir: str | os.PathLike[str], config: GomokubenchGamesConfig) -> list[int]:
    """The numbers of the games of ``config`` that ``out_dir`` does not have yet."""
    return missing_numbers(out_dir, _PREFIX, config.seed, config.games)


def play_game(players: dict[str, GomokubenchPlayer], config: GomokubenchGamesConfig,
              index: int) -> tuple[Game, list[str]]:
    """Game ``index``: its random opening, then gomokubench at the levels drawn for black and white
    (returned with the game)."""
    rng = np.random.default_rng([config.seed, index])
    levels = [config.levels[int(rng.integers(len(config.levels)))] for _ in range(2)]
    game = Game(config.rules)
    for _ in range(config.random_moves):
        if not game.is_over:
            game.play(random_move(game, rng))
    while not game.is_over:
        game.play(players[levels[int(game.to_play) - 1]](game, rng))
    return game, levels


def write_gomokubench_games(out_dir: str | os.PathLike[str], config: GomokubenchGamesConfig,
                            on_game: Callable[[], None] | None = None) -> GamesSummary:
    """Write the games of ``config`` that ``out_dir`` lacks, ``config.jobs`` at a time; ``on_game()`` after
    each one."""
    todo = missing_games(out_dir, config)
    started = time.perf_counter()
    for index, text in _played(config, todo):
        write_text(game_path(out_dir, _PREFIX, config.seed, index), text)
        if on_game is not None:
            on_game()
    return GamesSummary(len(todo), config.games - len(todo), time.perf_counter() - started)


def _played(config: GomokubenchGamesConfig, todo: list[int]) -> Iterator[tuple[int, str]]:
    """``(number, SGF)`` of each game in ``todo`` as it ends: here, or in ``config.jobs`` worker processes."""
    _start_worker(config)   # here too: a level or rules gomokubench cannot play fails before any job starts
    if config.jobs == 1 or len(todo) < 2:
        yield from ((index, _game_sgf(index)) for index in todo)
        return
    context = multiprocessing.get_context("spawn")   # no fork of a parent that may hold threads
    with ProcessPoolExecutor(min(config.jobs, len(todo)), mp_context=context, initializer=_start_worker,
                             initargs=(config,)) as pool:
        futures = {pool.submit(_game_sgf, index): index for index in todo}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        finally:
            pool.shutdown(cancel_futures=True)


_worker: tuple[GomokubenchGamesConfig, dict[str, GomokubenchPlayer]] | None = None
"""This process's config and players (one a level), made once by :func:`_start_worker`."""


def _start_worker(config: GomokubenchGamesConfig) -> None:
    global _worker
    players = {level: GomokubenchPlayer(level) for level in set(config.levels)}
    for player in players.values():
        player.check_rules(Game(config.rules))
    _worker = (config, players)


def _game_sgf(index: int) -> str:
    """Game ``index`` of this process's config, played and written as SGF."""
    assert _worker is not None, "_start_worker was not called"
    config, players = _worker
    game, (black, white) = play_game(players, config, index)
    return dump_sgf(game, black_name=f"gomokubench:{black}", white_name=f"gomokubench:{white}")
