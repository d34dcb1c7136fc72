"""Matches: two contestants, colours alternating (or a handicap taker), every game refereed by the rules core, one
result table.

``engine evaluate`` and the loop's gating play models and baselines in this
process; ``engine match`` plays any two of GTP engines, model files and
baselines; both go through :func:`play_match`. A contestant is named by:

* a model file: a :class:`~engine.Player` searches its moves with the match's
  :class:`~engine.PlayerConfig` (:func:`make_agent`);
* a baseline: ``random`` (uniformly random legal moves), ``mcts-rollouts[:N]``
  (pure MCTS: N simulations per move, each leaf valued by one random playout,
  c_puct 5 and no first-play reduction; default N = 1000, the seeds' yardstick)
  or, in Gomoku, ``gomokubench[:LEVEL]`` (:mod:`training.gomokubench`; default
  its strongest level, ``hard``);
* any other text: a GTP engine's command line (:func:`contestant`).

The scheduler runs ``jobs`` threads, each with its own seats (GTP engines are
processes: a thread waits on its engine's pipe with the GIL free), and in each
up to ``parallel_games`` games in flight, whose in-process searches share one
network call per step (:func:`training.batching.play_in_flight`). Game i has A
as black when i is even (:func:`a_color` decides); with an opening list, games
2k and 2k + 1 start from opening k (cycling through the list), so that each
opening is played with both colours. A handicap match (``config.handicap``
stones) gives the taker black and the stones in every game
(:func:`handicap_stones`), then any random moves, White first. A game's random
moves come from ``(seed, i)`` and its
in-process players' seeds too, so a game is the same whichever job plays it and
a match resumed from its records (:func:`games_already_played`) goes on as it
would have.
"""

from __future__ import annotations

import os
import shlex
import threading
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np

from engine import (
    Color,
    Game,
    GameRecord,
    HandicapError,
    RolloutEvaluator,
    Rules,
    SearchJob,
    dump_sgf,
    fixed_handicap,
    load_sgf_file,
    opening_actions,
    write_text,
)
from training.batching import play_in_flight, run_in_threads
from training.gtp_client import GTPClient
from training.gtp_player import GtpPlayer
from training.match_config import MatchConfig
from training.player_process import PlayerProcess
from training.players import Agent, LocalPlayer, MatchPlayer
from training.referee import Refereed, referee_game
from training.stats import MatchResult

__all__ = ["Contestant", "make_agent", "contestant", "play_match",
           "games_already_played", "is_baseline", "is_local", "is_model_file", "match_rules", "DEFAULT_ROLLOUT_VISITS",
           "BASELINES"]

DEFAULT_ROLLOUT_VISITS = 1000
BASELINES = "random, mcts-rollouts[:N], gomokubench[:easy|standard|hard]"
"""The baseline players' names, as error messages list them."""
class Contestant(Protocol):
    """One side of a match: ``name`` is how the result table calls it, ``seat_name`` how game records and errors
    call its seats; ``seat(job)`` opens a new seat for a job (closed by the match)."""

    name: str
    seat_name: str

    def seat(self, job: int) -> MatchPlayer:
        ...


@dataclass(frozen=True)
class _Seats:
    """A contestant whose seats ``open(job)`` makes."""

    name: str
    seat_name: str
    open: Callable[[int], MatchPlayer]

    def seat(self, job: int) -> MatchPlayer:
        return self.open(job)


def is_baseline(spec: str) -> bool:
    """Whether ``spec`` names a baseline player rather than a model file."""
    word = spec.strip().lower().partition(":")[0]
    return word in ("random", "mcts-rollouts", "gomokubench")


def is_model_file(spec: str) -> bool:
    """Whether ``spec`` names a model file: an existing file that is not executable (``/usr/games/gnugo`` alone
    is a command)."""
    path = spec.strip()
    return bool(path) and not any(c.isspace() for c in path) and os.path.isfile(path) and not os.access(path, os.X_OK)


def is_local(spec: str) -> bool:
    """Whether ``spec`` names a player this process runs, a baseline or a model file, rather than a GTP
    engine's command line."""
    return is_baseline(spec) or is_model_file(spec)


def match_rules(a: str, b: str, rules_text: str | None = None, game: str | None = None, size: int | None = None,
                win_length: int | None = None) -> Rules:
    """The rules of a match between players ``a`` and ``b``: a model's (:func:`~training.models.model_rules`),
    or with two baselines ``rules_text``, else ``game``'s defaults on ``size``. ValueError when a player is
    neither a model file nor a baseline, or two baselines leave the game or board open."""
    from engine import read_info
    from training.models import default_rules, model_rules

    models = [spec for spec in (a, b) if not is_baseline(spec)]
    for spec in models:
        if not Path(spec).is_file():
            raise ValueError(f"{spec} is neither a model file nor a baseline ({BASELINES})")
    if models:
        return model_rules(read_info(models[0]), rules_text, size, win_length)
    if rules_text:
        return Rules.parse(rules_text, size=size)
    if game is None or size is None:
        raise ValueError("two baselines: give the rules, or the game and the board size")
    return default_rules(game, size, win_length)


def make_agent(spec: str, rules: Rules, config: MatchConfig, options: Any = None) -> Agent:
    """The player ``spec`` names: ``random``, ``mcts-rollouts[:N]``, ``gomokubench[:LEVEL]`` or a model path
    (loaded for ``rules``, its network run with ``options``: EvaluatorOptions)."""
    word = spec.strip().lower()
    if word == "random":
        return Agent("random")
    if word == "gomokubench" or word.startswith("gomokubench:"):
        from training.gomokubench import STRONGEST, GomokubenchPlayer

        mover = GomokubenchPlayer(word.partition(":")[2] or STRONGEST)
        mover.check_rules(Game(rules))
        return Agent(f"gomokubench:{mover.level}", mover=mover)
    if word == "mcts-rollouts" or word.startswith("mcts-rollouts:"):
        _, _, count = word.partition(":")
        try:
            visits = int(count) if count else DEFAULT_ROLLOUT_VISITS
        except ValueError:
            raise ValueError(f"bad baseline {spec!r}: expected mcts-rollouts:N with a whole number N") from None
        if visits < 2:
            raise ValueError(f"mcts-rollouts needs at least 2 simulations per move, not {visits}")
        search = config.player.search.for_rollouts(try_every_move=False)
        return Agent(f"mcts-rollouts:{visits}", RolloutEvaluator(1, config.seed),
                     replace(config.player, visits=visits, search=search, threat_guard=False))
    from engine import EvaluatorOptions, load_evaluator, read_info

    options = options or EvaluatorOptions(random_symmetry=True)
    evaluator = load_evaluator(rules, spec, options)
    return Agent(read_info(spec).name, evaluator, config.player)


def contestant(spec: str, side: str, rules: Rules, config: MatchConfig, options: Any = None) -> Contestant:
    """The contestant ``spec`` names, its seats called ``side`` (``"A"``, ``"B"``; with several jobs ``"A 2"``
    for the second job's): a GTP engine's process for a command line; a model or baseline in this process, or in a
    child process a seat when jobs play side by side, so that they do not share one core."""
    def seat_name(job: int) -> str:
        return f"{side} {job + 1}" if config.jobs > 1 else side

    if not is_local(spec):
        return _Seats(spec, side, lambda job: GtpPlayer.start(spec, config.timeout, seat_name(job)))
    if config.jobs == 1:
        agent = replace(make_agent(spec, rules, config, options), name=side)
        return _Seats(spec, side, agent.seat)
    threads = None if is_baseline(spec) else max(1, len(os.sched_getaffinity(0)) // config.jobs)
    build = partial(make_agent, spec, rules, config, options)
    return _Seats(spec, side, lambda job: PlayerProcess(build, seat_name(job), threads))


def a_color(index: int, config: MatchConfig) -> Color:
    """A's colour in game ``index`` (from 0): in a handicap match black in every game if A takes the handicap,
    else white in every game; otherwise black in even games."""
    if config.handicap:
        return Color.BLACK if config.handicap_taker == "a" else Color.WHITE
    return Color.BLACK if index % 2 == 0 else Color.WHITE


def handicap_stones(rules: Rules, config: MatchConfig) -> list[int]:
    """Black's stones in every game of the match: GTP's fixed placement of ``config.handicap`` stones (none without
    a handicap). HandicapError for a game that is not Go or a board with no such placement."""
    if not config.handicap:
        return []
    if rules.game != "go":
        raise HandicapError(f"a handicap is for Go, not {rules.game}")
    return fixed_handicap(config.handicap, rules.size)


def opening_pair(index: int, config: MatchConfig) -> int | None:
    """The opening game ``index`` starts from (an index into ``config.openings``; None without a list)."""
    return (index // 2) % len(config.openings) if config.openings else None


def _pair_number(index: int, config: MatchConfig) -> int | None:
    """The opening pair game ``index`` belongs to, as the result table counts pairs (None without a list)."""
    return index // 2 if config.openings else None


def game_file(index: int) -> str:
    return f"game-{index + 1:04d}.sgf"


class _Pair(NamedTuple):
    """The two seats of a slot, A's and B's, and its referee engine (if any), opened for one job."""

    a: MatchPlayer
    b: MatchPlayer
    referee: GTPClient | None


class _GameInFlight:
    """A game being refereed: its search to step (``job``), or its end (``refereed``)."""

    def __init__(self, index: int, pair: _Pair, moves: Generator[SearchJob, None, Refereed]) -> None:
        self.index = index
        self.pair = pair
        self.job: SearchJob | None = None
        self.refereed: Refereed | None = None
        self._moves = moves
        self._advance()

    def _advance(self) -> None:
        try:
            self.job = self._moves.send(None)
        except StopIteration as stop:
            self.job, self.refereed = None, stop.value

    def play_searched(self) -> None:
        self._advance()


def play_match(a: Contestant, b: Contestant, rules: Rules, config: MatchConfig, sgf_dir: str | Path | None = None,
               on_game: Callable[[MatchResult], None] | None = None, resume: bool = False) -> MatchResult:
    """Play ``config.games`` games of A against B, colours alternating (a handicap match: the taker black in every
    game), and return A's results.

    ``on_game`` sees them after every game. Every game goes to ``sgf_dir`` when given; with ``resume`` the games
    already there count as played (:func:`games_already_played`). A :class:`~training.errors.PlayerError` names a
    player that failed (could not start, refused a move, hung, died, or played an illegal move); the first error
    of any job stops the others after their games in flight and is raised here.
    """
    result = MatchResult(a.name, b.name)
    handicap = handicap_stones(rules, config)
    todo = list(range(config.games))
    if resume:
        if sgf_dir is None:
            raise ValueError("resuming a match needs the folder of its games (--sgf-dir)")
        for index, record in games_already_played(Path(sgf_dir), rules, config, a.seat_name).items():
            assert record.result is not None
            result.add(record.result, a_color(index, config), len(record.moves), _pair_number(index, config), index + 1)
            result.resumed += 1
            todo.remove(index)
    lock = threading.Lock()
    opened: list[_Pair] = []

    def finish(game: _GameInFlight) -> None:
        refereed = game.refereed
        assert refereed is not None
        colour = a_color(game.index, config)
        result.add(refereed.outcome, colour, len(refereed.game.moves), _pair_number(game.index, config), game.index + 1)
        result.a_move_seconds = _mean_move_seconds([pair.a for pair in opened])
        result.b_move_seconds = _mean_move_seconds([pair.b for pair in opened])
        if sgf_dir is not None:
            black, white = (game.pair.a, game.pair.b) if colour == Color.BLACK else (game.pair.b, game.pair.a)
            write_text(Path(sgf_dir) / game_file(game.index),
                       dump_sgf(refereed.game, black_name=black.name, white_name=white.name, result=refereed.outcome,
                                comments=refereed.comments,
                                properties={"GN": f"{a.name} vs {b.name}, game {game.index + 1}"}))
        if on_game is not None:
            on_game(result)

    def work(job: int, stopped: Callable[[], bool]) -> None:
        with _seat_pairs(a, b, config, job) as pairs:
            with lock:
                opened.extend(pairs)
            free = list(pairs)

            def start(_begun: int) -> _GameInFlight | None:
                with lock:
                    if not todo or stopped():
                        return None
                    index = todo.pop(0)
                pair = free.pop()
                return _GameInFlight(index, pair, _referee(pair, index, rules, config, handicap))

            def over(game: _GameInFlight) -> None:
                free.append(game.pair)
                with lock:
                    finish(game)

            play_in_flight(start, config.games, len(pairs), over)

    started = time.perf_counter()
    if todo:
        run_in_threads(min(config.jobs, len(todo)), work)
    result.seconds = time.perf_counter() - started
    return result


@contextmanager
def _seat_pairs(a: Contestant, b: Contestant, config: MatchConfig, job: int) -> Iterator[list[_Pair]]:
    """``config.parallel_games`` pairs of seats for ``job`` (one for GTP engines: they play one game at a time),
    with the referee engine, closed when the job ends."""
    with ExitStack() as stack:
        pairs = []
        for _ in range(config.parallel_games):
            seat_a = a.seat(job)
            stack.callback(seat_a.close)
            seat_b = b.seat(job)
            stack.callback(seat_b.close)
            referee = None
            if config.referee:
                name = "referee" + (f" {job + 1}" if config.jobs > 1 else "")
                referee = stack.enter_context(GTPClient(shlex.split(config.referee), config.timeout, name))
            pairs.append(_Pair(seat_a, seat_b, referee))
            if not (isinstance(seat_a, LocalPlayer) and isinstance(seat_b, LocalPlayer)):
                break   # a seat in another process plays one game at a time
        yield pairs


def _referee(pair: _Pair, index: int, rules: Rules, config: MatchConfig, handicap: list[int]
             ) -> Generator[SearchJob, None, Refereed]:
    """Game ``index``'s refereeing: A's colour from :func:`a_color`, the ``handicap`` stones, its opening from the
    list, its random moves and its players' seeds from ``(seed, index)``."""
    black, white = (pair.a, pair.b) if a_color(index, config) == Color.BLACK else (pair.b, pair.a)
    black_seed, white_seed = np.random.default_rng([config.seed, index, 1]).integers(2 ** 62, size=2)
    scorer = {"board": None, "a": pair.a, "b": pair.b}[config.scorer]
    opening = opening_pair(index, config)
    return referee_game(black, white, rules, config.random_moves, np.random.default_rng([config.seed, index]),
                        (int(black_seed), int(white_seed)), scorer, pair.referee,
                        opening_actions(config.openings[opening], rules.size) if opening is not None else (), handicap)


def _mean_move_seconds(seats: list[MatchPlayer]) -> float:
    return sum(seat.genmove_seconds for seat in seats) / max(sum(seat.genmoves for seat in seats), 1)


def games_already_played(sgf_dir: Path, rules: Rules, config: MatchConfig, a_name: str) -> dict[int, GameRecord]:
    """The finished games of a match in ``sgf_dir`` (``game-0001.sgf`` ... up to ``config.games``), by index.

    Each must be this match's: its rules and handicap, and A (whose seats are called ``a_name``) of the colour
    :func:`a_color` gives. A file that is not, or has no result, raises ``ValueError`` naming it, rather than be
    counted or silently replayed over.
    """
    found: dict[int, GameRecord] = {}
    for index in range(config.games):
        path = sgf_dir / game_file(index)
        if not path.exists():
            continue
        record = load_sgf_file(path)
        black = record.black_name or ""
        a_black = black == a_name or black.startswith(a_name + " ")
        if record.result is None or record.rules != rules or record.handicap != config.handicap or \
                a_black != (a_color(index, config) == Color.BLACK):
            raise ValueError(f"{path} is not a finished game of this match (rules {record.rules}, handicap "
                             f"{record.handicap}, black {record.black_name!r}, result {record.result}): move it away "
                             "or choose another --sgf-dir")
        found[index] = record
    return found
