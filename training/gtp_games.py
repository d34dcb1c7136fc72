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
referee), or by a third engine, the ``referee`` (GNU Go, when neither player is),
which is shown the whole game; without an answer the board as it stands counts.
``jobs`` pairs of engines play games at once. Engines are spoken to
through :class:`~training.gtp_client.GTPClient`, so a hung engine ends the run
after its timeout instead of blocking it. Gomoku games (``engine match --rules
renju``) end with a five or a full board, and the rules core's verdict is the
result. An engine given as a baseline's name (``random``, ``mcts-rollouts:N``,
``gomokubench:LEVEL``) or as a model file plays in this process
(:class:`~training.local_engine.LocalEngine`; a model as ``local`` says), or,
when several games run at once, in a child process for each job
(:class:`~training.local_engine.LocalEngineProcess`), so that the jobs do not
share one core.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from engine import (
    Color,
    EngineError,
    Game,
    GameRecord,
    Outcome,
    Rules,
    action_to_gtp,
    dump_sgf,
    gtp_to_action,
    load_sgf_file,
    write_text,
)
from training.baselines import random_move
from training.gtp_client import DEFAULT_TIMEOUT, GTPClient, GTPEngineError
from training.gtp_jobs import run_jobs
from training.local_engine import LocalEngine, LocalEngineProcess
from training.match import MatchConfig, MatchResult, is_local

__all__ = ["GtpMatchConfig", "MatchEngine", "play_game", "referee_outcome", "play_gtp_match"]

MatchEngine = GTPClient | LocalEngine | LocalEngineProcess
"""What plays a match's games: anything with a GTP ``send``, ``name`` and genmove timing."""


@dataclass(frozen=True)
class GtpMatchConfig:
    """A match between two GTP engines: games, rules, random opening moves (so that deterministic
    engines play different games), whose ``final_score`` scores a game that ends by passing ("a",
    "b", or the ``referee``, a third engine's command line, when given), each engine's seconds per
    command, the seed of the random moves, the games played at once (each by its own engines); how a
    player given as a model file plays (``local``: visits and search) and runs its network
    (``local_options``: EvaluatorOptions)."""

    games: int = 20
    rules: Rules = field(default_factory=lambda: Rules.go(9, "chinese", komi=7.0))
    random_moves: int = 0
    scorer: str = "b"
    timeout: float = DEFAULT_TIMEOUT
    seed: int = 0
    referee: str | None = None
    jobs: int = 1
    local: MatchConfig = field(default_factory=MatchConfig)
    local_options: Any = None

    def __post_init__(self) -> None:
        if self.scorer not in ("a", "b") or self.jobs < 1:
            raise ValueError(f"scorer must be 'a' or 'b' and jobs at least 1, not {self.scorer!r} and {self.jobs}")


def play_game(black: MatchEngine, white: MatchEngine, rules: Rules, random_moves: int,
              rng: np.random.Generator, scorer: MatchEngine | None = None,
              referee: GTPClient | None = None) -> tuple[Game, Outcome]:
    """One game (``black`` may be ``white``: self-play) after ``random_moves`` random opening moves.

    A scored game's result is the ``referee``'s verdict (:func:`referee_outcome`) when there is
    one, else the ``scorer``'s ``final_score`` (default: the white engine's), else the board as
    it stands under ``rules``.
    """
    players = {Color.BLACK: black, Color.WHITE: white}
    engines = list({id(engine): engine for engine in (black, white)}.values())
    for engine in engines:
        engine.send(f"boardsize {rules.size}")
        engine.send("clear_board")
        if rules.game == "go":
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
    if game.resigned is not None or rules.game != "go":  # a resignation, a Gomoku line or full board
        pass
    elif referee is not None:
        outcome = referee_outcome(referee, game) or outcome
    else:  # scored: the scorer's dead-stone judgement
        outcome = Outcome.from_sgf((scorer or white).send("final_score")) or outcome
    assert outcome is not None
    return game, outcome


def referee_outcome(referee: GTPClient, game: Game) -> Outcome | None:
    """The ``referee``'s ``final_score`` of ``game``, which it is shown from the empty board."""
    rules = game.rules
    commands = [f"boardsize {rules.size}", "clear_board", f"komi {rules.komi:g}"]
    commands += [f"play {move.color.letter} {action_to_gtp(move.action, rules.size)}" for move in game.moves]
    referee.send_many(commands)
    return Outcome.from_sgf(referee.send("final_score"))


class _Engines(NamedTuple):
    a: MatchEngine
    b: MatchEngine
    referee: GTPClient | None


def _engine(spec: str, config: GtpMatchConfig, name: str, seed: int) -> MatchEngine:
    """A GTP engine process for a command line, or the player that a baseline's name (``gomokubench:hard``)
    or a model file gives: in this process, or in a child of its own when games run side by side."""
    if not is_local(spec):
        return GTPClient(shlex.split(spec), config.timeout, name)
    if config.jobs == 1:
        return LocalEngine(spec, config.rules, seed, name, config.local, config.local_options)
    threads = max(1, len(os.sched_getaffinity(0)) // config.jobs)
    return LocalEngineProcess(spec, config.rules, seed, name, config.local, config.local_options, threads)


@contextmanager
def _engines(engine_a: str, engine_b: str, config: GtpMatchConfig, job: int) -> Iterator[_Engines]:
    suffix = f" {job + 1}" if config.jobs > 1 else ""
    with ExitStack() as stack:
        a = stack.enter_context(_engine(engine_a, config, "A" + suffix, config.seed * 1000 + 2 * job))
        b = stack.enter_context(_engine(engine_b, config, "B" + suffix, config.seed * 1000 + 2 * job + 1))
        referee = None
        if config.referee:
            referee = stack.enter_context(GTPClient(shlex.split(config.referee), config.timeout, "referee" + suffix))
        yield _Engines(a, b, referee)


def play_gtp_match(engine_a: str, engine_b: str, config: GtpMatchConfig, sgf_dir: str | Path | None = None,
                   on_game: Callable[[MatchResult], None] | None = None, resume: bool = False) -> MatchResult:
    """Play ``config.games`` games of engine A against engine B (GTP command lines), colours alternating.

    Returns A's results; ``on_game`` sees them after every game. GTPEngineError names an engine
    that failed (refused a command, hung, died, or played an illegal move). With ``resume`` the
    games already in ``sgf_dir`` count as played (see :func:`games_already_played`), so a match
    stopped after hours goes on where it was; game ``i`` is the same game either way, since its
    opening moves come from ``(seed, i)``.
    """
    result = MatchResult(engine_a, engine_b)
    todo = list(range(config.games))
    if resume:
        if sgf_dir is None:
            raise ValueError("resuming a match needs the folder of its games (--sgf-dir)")
        for index, record in games_already_played(Path(sgf_dir), config).items():
            result.add(record.result, _a_color(index), len(record.moves))
            todo.remove(index)

    def play(engines: _Engines, index: int) -> tuple[Game, Outcome, Color, str, str]:
        a_color = _a_color(index)
        black, white = (engines.a, engines.b) if a_color == Color.BLACK else (engines.b, engines.a)
        game, outcome = play_game(black, white, config.rules, config.random_moves,
                                  np.random.default_rng([config.seed, index]),
                                  scorer=engines.a if config.scorer == "a" else engines.b, referee=engines.referee)
        return game, outcome, a_color, black.name, white.name

    def done(index: int, played: tuple[Game, Outcome, Color, str, str]) -> None:
        game, outcome, a_color, black, white = played
        result.add(outcome, a_color, len(game.moves))
        result.a_move_seconds = sum(engines.a.genmove_seconds for engines in opened) / max(
            sum(engines.a.genmoves for engines in opened), 1)
        result.b_move_seconds = sum(engines.b.genmove_seconds for engines in opened) / max(
            sum(engines.b.genmoves for engines in opened), 1)
        if sgf_dir is not None:
            write_text(Path(sgf_dir) / _game_file(index),
                       dump_sgf(game, black_name=black, white_name=white, result=outcome))
        if on_game is not None:
            on_game(result)

    opened: list[_Engines] = []

    @contextmanager
    def open_engines(job: int) -> Iterator[_Engines]:
        with _engines(engine_a, engine_b, config, job) as engines:
            opened.append(engines)
            yield engines

    started = time.perf_counter()
    run_jobs(todo, config.jobs, open_engines, play, done)
    result.seconds = time.perf_counter() - started
    return result


def _a_color(index: int) -> Color:
    """A's colour in game ``index`` (from 0): black in even games."""
    return Color.BLACK if index % 2 == 0 else Color.WHITE


def _game_file(index: int) -> str:
    return f"game-{index + 1:04d}.sgf"


def games_already_played(sgf_dir: Path, config: GtpMatchConfig) -> dict[int, GameRecord]:
    """The finished games of a match in ``sgf_dir`` (``game-0001.sgf`` ... up to ``config.games``), by index.

    Each must be this match's: its rules, and A's colour in its player names (``A`` is black in even games).
    A file that is not, or has no result, raises ``ValueError`` naming it, rather than be counted or
    silently replayed over.
    """
    found: dict[int, GameRecord] = {}
    for index in range(config.games):
        path = sgf_dir / _game_file(index)
        if not path.exists():
            continue
        record = load_sgf_file(path)
        a_black = (record.black_name or "").startswith("A")
        if record.result is None or record.rules != config.rules or a_black != (_a_color(index) == Color.BLACK):
            raise ValueError(f"{path} is not a finished game of this match (rules {record.rules}, black "
                             f"{record.black_name!r}, result {record.result}): move it away or choose another "
                             "--sgf-dir")
        found[index] = record
    return found
