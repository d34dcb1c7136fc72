"""GNU Go self-play games as SGF files: the data of the supervised start (``experiments/go9-supervised``).

::

    engine gnugo-games OUT_DIR --games 3000 --size 9 --level 1 --jobs 2

Each job keeps one ``gnugo --mode gtp`` process (Chinese rules) and plays
games against itself: ``random_moves`` uniformly random legal opening moves
(so that games differ; GNU Go is nearly deterministic), then ``genmove`` for
each side until two passes, a resignation or the move cap; the result is GNU
Go's ``final_score``. A game that two passes end also carries GNU Go's verdict
on its final board as territory markers on the last node (``TB``: black
territory and dead white stones; ``TW``: white territory and dead black stones,
from ``final_status_list``), from which ``gather`` takes the dead stones for its
ownership and score targets (:mod:`training.territory`). Every game is checked
move by move through :class:`~engine.core.game.Game` and written atomically as
``gnugo-SEED-NNNNNN.sgf``; a re-run skips the games already written, so a
killed run resumes.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine import BLACK, WHITE, Game, Rules, dump_sgf, gtp_to_action, write_text
from training.batching import run_in_threads
from training.game_files import GamesSummary, game_path, missing_numbers
from training.gtp_client import DEFAULT_TIMEOUT, GTPClient, gnugo_argv
from training.gtp_player import GtpPlayer
from training.players import play_through
from training.referee import referee_game
from training.territory import ended_on_board

__all__ = ["GnuGoGamesConfig", "gnugo_territory", "missing_games", "write_gnugo_games"]


@dataclass(frozen=True)
class GnuGoGamesConfig:
    """Games to have in the folder, their rules, GNU Go's level (0-10), random opening moves, GNU Go
    processes, the seed (of the games' names, their openings and GNU Go's own choices), seconds per command."""

    games: int = 100
    rules: Rules = field(default_factory=lambda: Rules.go(9, "chinese", komi=7.0))
    level: int = 1
    random_moves: int = 4
    jobs: int = 2
    seed: int = 0
    timeout: float = DEFAULT_TIMEOUT



def gnugo_territory(engine: GTPClient, game: Game) -> tuple[list[int], list[int]]:
    """GNU Go's verdict on the final board of ``game`` (which ``engine`` holds) as territory markers:
    (black's territory and the dead white stones, white's territory and the dead black stones)."""
    size = game.rules.size
    dead, black, white = ([gtp_to_action(v, size) for v in engine.send(f"final_status_list {kind}").split()]
                          for kind in ("dead", "black_territory", "white_territory"))
    board = game.position.board().reshape(-1)
    return black + [a for a in dead if board[a] == WHITE], white + [a for a in dead if board[a] == BLACK]


def missing_games(out_dir: str | os.PathLike[str], config: GnuGoGamesConfig) -> list[int]:
    """The numbers of the games of ``config`` that ``out_dir`` does not have yet."""
    return missing_numbers(out_dir, "gnugo", config.seed, config.games)


def write_gnugo_games(out_dir: str | os.PathLike[str], binary: str, config: GnuGoGamesConfig,
                      on_game: Callable[[], None] | None = None) -> GamesSummary:
    """Write the games of ``config`` that ``out_dir`` lacks, played by ``config.jobs`` GNU Go processes.

    ``on_game()`` is called after each game is written (from a job's thread, one call at a time). The
    first error of a job (GTPEngineError for a GNU Go that failed) stops the others and is raised.
    """
    todo = missing_games(out_dir, config)
    already = config.games - len(todo)
    started, written = time.perf_counter(), [0]
    name = f"GNU Go level {config.level}"
    lock = threading.Lock()

    def play(engine: GtpPlayer, index: int) -> None:
        refereed = play_through(referee_game(engine, engine, config.rules, config.random_moves,
                                             np.random.default_rng([config.seed, index]), scorer=engine))
        game, outcome = refereed.game, refereed.outcome
        territory = gnugo_territory(engine.client, game) if ended_on_board(game) else None
        text = dump_sgf(game, black_name=name, white_name=name, result=outcome, territory=territory)
        write_text(game_path(out_dir, "gnugo", config.seed, index), text)

    def work(job: int, stopped: Callable[[], bool]) -> None:
        argv = gnugo_argv(binary, "--seed", str(config.seed * 1000 + job), level=config.level)
        with GTPClient(argv, config.timeout, f"gnugo job {job}") as client:
            engine = GtpPlayer(client)
            while not stopped():
                with lock:
                    if not todo:
                        return
                    index = todo.pop(0)
                play(engine, index)
                with lock:
                    written[0] += 1
                    if on_game is not None:
                        on_game()

    run_in_threads(max(1, min(config.jobs, len(todo))), work)
    return GamesSummary(written[0], already, time.perf_counter() - started)
