"""Self-play: K games at once in one process, their searches sharing network calls.

Each game's moves are searched and decided by an :class:`~engine.search.player.Player` through its
one seam (:meth:`~engine.search.player.Player.begin`, then the decision: tree reuse, temperature in
the opening, resignation and passing rules); the :mod:`training.batching` scheduler evaluates the
leaves of all K games' move searches in one network call per step.

Playout Cap Randomization (KataGo): each move gets the full search
(the player's ``visits``, Dirichlet noise at the root) with probability
``full_search_share`` and becomes a policy target; the other moves get a cheap
search (``cheap_readouts``, no noise) that only moves the game along.
Resignation follows the player's rule (:class:`~engine.search.resign.ResignationWatch`),
except in a ``resign_disabled_share`` of the games, whose player never resigns but says when the
rule would have (:attr:`~engine.search.player.Decision.would_resign`), to tell whether a
resignation would have been wrong (the false-resign rate).

Every finished game is written at once (atomically) as a record, and as an
SGF file with the searches' comments, so a kill loses only the games in flight.
A Go game that two passes end is scored on the board as it stands (no dead
stones removed, as the player judges its passes); its record keeps that
board's ownership map and score (:func:`~training.territory.final_board`)
as the targets of the network's auxiliary heads.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from engine import (
    Color,
    Evaluator,
    Game,
    MoveSearch,
    Player,
    Rules,
    SearchJob,
    SearchResult,
    action_to_gtp,
    dump_sgf,
    overlaps,
    write_text,
)
from training.baselines import random_move
from training.batching import OVERLAP_LANES, play_in_flight
from training.records import RECORD_SUFFIX, SelfPlayRecord, new_game_id, record_name, write_record
from training.selfplay_config import SelfPlayConfig
from training.territory import final_board

__all__ = ["SelfPlayOutput", "GameSink", "FinishedGame", "GameSummary",
           "SelfPlaySummary", "play_games", "timed_selfplay", "run_selfplay", "share_config", "search_comment",
           "HOLDOUT_DIR"]

HOLDOUT_DIR = "holdout"


@dataclass(frozen=True)
class GameSummary:
    """One finished game, as the summary counts it. ``winner``: "B", "W" or None (draw)."""

    moves: int
    targets: int
    winner: str | None
    reason: str
    resign_disabled: bool
    would_resign: bool
    false_resign: bool
    holdout: bool


@dataclass(frozen=True)
class FinishedGame:
    """A game as it ended: its id (which names its files: a game saved twice is kept once), its record,
    its SGF text (None unless the sink asked for it) and its summary (``summary.holdout``: held out)."""

    game_id: str
    record: SelfPlayRecord
    sgf: str | None
    summary: GameSummary


class GameSink(Protocol):
    """Where finished games go: files (:class:`SelfPlayOutput`), or a cluster's driver, which writes them."""

    @property
    def wants_sgf(self) -> bool:
        """Whether :meth:`save` wants the game's SGF text."""

    def save(self, finished: FinishedGame) -> None:
        """Keep ``finished`` (atomically: a kill loses at most the game being saved)."""


@dataclass(frozen=True)
class SelfPlayOutput:
    """Where games go: records in ``directory`` (held-out ones in its ``holdout/``), SGF in ``sgf_directory``."""

    directory: Path
    sgf_directory: Path | None = None

    @property
    def wants_sgf(self) -> bool:
        return self.sgf_directory is not None

    def paths(self, finished: FinishedGame) -> list[Path]:
        """The files :meth:`save` writes for ``finished``: its record, and its SGF file when there is one."""
        directory = self.directory / HOLDOUT_DIR if finished.summary.holdout else self.directory
        name = record_name(finished.record.model, finished.game_id)
        sgf = [] if self.sgf_directory is None or finished.sgf is None else [
            self.sgf_directory / (name[:-len(RECORD_SUFFIX)] + ".sgf")]
        return [directory / name, *sgf]

    def save(self, finished: FinishedGame) -> None:
        """Write the record, and the SGF file beside its name, each atomically."""
        record, *sgf = self.paths(finished)
        write_record(record.parent, finished.record, finished.game_id)
        for path in sgf:
            assert finished.sgf is not None
            write_text(path, finished.sgf)


@dataclass
class SelfPlaySummary:
    """Totals over the games of a run; ``seconds`` is wall time.

    ``moves_played`` and ``simulations`` count every move and search, also those of games a
    ``stop`` left unfinished (``in_flight_games`` with ``in_flight_moves`` moves so far).
    """

    games: int = 0
    moves: int = 0
    targets: int = 0
    black_wins: int = 0
    white_wins: int = 0
    draws: int = 0
    resigned: int = 0
    resign_disabled: int = 0
    would_resign: int = 0
    false_resigns: int = 0
    holdout: int = 0
    evaluator_calls: int = 0
    simulations: int = 0
    moves_played: int = 0
    in_flight_games: int = 0
    in_flight_moves: int = 0
    seconds: float = 0.0

    def add(self, game: GameSummary) -> None:
        self.games += 1
        self.moves += game.moves
        self.targets += game.targets
        self.black_wins += game.winner == "B"
        self.white_wins += game.winner == "W"
        self.draws += game.winner is None
        self.resigned += game.reason == "resign"
        self.resign_disabled += game.resign_disabled
        self.would_resign += game.would_resign
        self.false_resigns += game.false_resign
        self.holdout += game.holdout

    def merge(self, other: "SelfPlaySummary") -> None:
        """Add another run's totals (wall time is the caller's to set)."""
        for item in fields(self):
            if item.name != "seconds":
                setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))

    @property
    def games_per_hour(self) -> float:
        return 3600.0 * self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def false_resign_rate(self) -> float | None:
        """Share of the resign-disabled games in which a resignation would have been wrong (None: no data)."""
        return self.false_resigns / self.would_resign if self.would_resign else None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "games_per_hour": self.games_per_hour, "false_resign_rate": self.false_resign_rate}

    def describe(self) -> str:
        rate = "n/a" if self.false_resign_rate is None else f"{100 * self.false_resign_rate:.1f}%"
        return (f"{self.games} games, {self.moves} moves ({self.targets} policy targets), "
                f"{self.games_per_hour:,.1f} games/hour; black {self.black_wins}, white {self.white_wins}, "
                f"draws {self.draws}; {self.resigned} resigned; false resigns {self.false_resigns}/"
                f"{self.would_resign} of {self.resign_disabled} resign-disabled games ({rate})")


def search_comment(result: SearchResult, full: bool, size: int) -> str:
    """An SGF comment for a move: search kind, visits, root value, the three most visited moves."""
    total = int(result.visits.sum())
    top = np.argsort(-result.visits, kind="stable")[:3]
    best = ", ".join(f"{action_to_gtp(int(a), size)} {result.visits[a] / max(total, 1):.0%}"
                     for a in top if result.visits[a] > 0)
    return f"{'full' if full else 'fast'} search: {total} visits, value {result.value:+.2f}; {best}"


def policy_pairs(result: SearchResult) -> tuple[tuple[int, float], ...]:
    """A search's policy target as ``(action, weight)`` pairs: its own target (pruned visits, Gumbel's
    completed-Q policy) where it has one, else the visit counts."""
    weights = result.visits if result.policy_target is None else result.policy_target
    return tuple((int(a), float(weights[a])) for a in np.flatnonzero(weights))


class _SelfPlayGame:
    """One game in flight: its player, its current move's search and what the record keeps."""

    def __init__(self, rules: Rules, evaluator: Evaluator, config: SelfPlayConfig, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.config = config
        self.evaluator = evaluator
        self.game = Game(rules)
        rule = config.player
        self.resign_disabled = rule.resign_threshold is not None and self.rng.random() < config.resign_disabled_share
        # a game that may not resign notes who the rule would have resigned first
        self.player = Player(evaluator, rule, seed=seed, resigns=not self.resign_disabled)
        self.would_resign: Color | None = None
        self.targets: list[bool] = []
        self.policy: list[tuple[tuple[int, float], ...] | None] = []
        self.values: list[float] = []
        self.comments: list[str] = []
        self.full = False
        self.simulations = 0  # of every search so far
        self.moves_played = 0  # moves decided by a search, a resignation included
        self.move: MoveSearch | None = None
        for _ in range(config.random_moves):
            self._play(random_move(self.game, self.rng), target=None, value=0.0, comment="random opening move")
        if not self.game.is_over:
            self.start_move()

    @property
    def job(self) -> SearchJob | None:
        """The current move's search for the scheduler to step (None once the game is over)."""
        return None if self.move is None else self.move.job

    def start_move(self) -> None:
        self.full = self.rng.random() < self.config.full_search_share
        visits = self.config.readouts if self.full else self.config.cheap
        self.move = self.player.begin(self.game, visits=visits, noise=self.full and self.config.player.noise)

    def play_searched(self) -> None:
        """Decide and play (or resign) after the search; start the next one unless the game is over."""
        assert self.move is not None and self.move.job is not None
        self.simulations += self.move.job.simulations
        self.moves_played += 1
        decision, self.move = self.move.finish(), None
        result = decision.search
        assert result is not None
        mover = self.game.to_play
        if decision.would_resign and not decision.resign and self.would_resign is None:
            self.would_resign = mover  # a game that plays on notes who would have resigned first
        if decision.resign:
            self.game.resign(mover)
            return
        assert decision.action is not None
        target = policy_pairs(result) if self.full and result.visits.sum() > 0 else None
        self._play(decision.action, target, float(result.value), search_comment(result, self.full,
                                                                                 self.game.rules.size))
        if not self.game.is_over:
            self.start_move()

    def _play(self, action: int, target: tuple[tuple[int, float], ...] | None, value: float, comment: str) -> None:
        """Play a move and keep what the record says of it: its policy target (None: no sample), the
        search's value and the SGF comment."""
        self.targets.append(target is not None)
        self.policy.append(target)
        self.values.append(value)
        self.comments.append(comment)
        self.game.play(action)

    def record(self, model: str) -> SelfPlayRecord:
        would = None if self.would_resign is None else self.would_resign.letter
        return SelfPlayRecord(rules=self.game.rules, model=model, actions=tuple(m.action for m in self.game.moves),
                              targets=tuple(self.targets), policy=tuple(self.policy), values=tuple(self.values),
                              result=self.game.outcome(), final=final_board(self.game),
                              resign_disabled=self.resign_disabled, would_resign=would,
                              readouts=self.config.readouts, cheap_readouts=self.config.cheap)


def _finish(game: _SelfPlayGame, model: str, holdout: bool, with_sgf: bool) -> FinishedGame:
    record = game.record(model)
    sgf = None
    if with_sgf:
        comment = f"self-play by {model}" + (" (resignation disabled)" if record.resign_disabled else "")
        sgf = dump_sgf(game.game, black_name=model, white_name=model, comments=game.comments,
                       properties={"C": comment})
    outcome = record.result
    assert outcome is not None
    winner = None if outcome.winner is None else outcome.winner.letter
    false_resign = record.would_resign is not None and outcome.value_for(Color.parse(record.would_resign)) >= 0
    summary = GameSummary(len(record.actions), sum(record.targets), winner, outcome.reason, record.resign_disabled,
                          record.would_resign is not None, false_resign, holdout)
    return FinishedGame(new_game_id(), record, sgf, summary)


def play_games(evaluator: Evaluator, rules: Rules, model: str, config: SelfPlayConfig, games: int,
               output: GameSink, on_game: Callable[[GameSummary], None] | None = None,
               stop: Callable[[], bool] | None = None, more: Callable[[], bool] | None = None) -> SelfPlaySummary:
    """Play ``games`` self-play games, ``config.parallel_games`` at a time, and save each one as it ends.

    ``stop()``, checked every step, ends the run early, abandoning the games in flight (benchmarks).
    ``more()``, asked before each game starts, may end the run sooner: False starts no more games and plays
    those in flight to the end (a budget that several processes share).
    """
    rng = np.random.default_rng(config.seed)
    summary = SelfPlaySummary()
    started = time.perf_counter()

    def start(_index: int) -> _SelfPlayGame | None:
        if more is not None and not more():
            return None
        return _SelfPlayGame(rules, evaluator, config, int(rng.integers(2 ** 63)))

    def over(game: _SelfPlayGame) -> None:
        summary.simulations += game.simulations
        summary.moves_played += game.moves_played
        finished = _finish(game, model, bool(rng.random() < config.holdout_share), output.wants_sgf)
        output.save(finished)
        summary.add(finished.summary)
        if on_game is not None:
            on_game(finished.summary)

    lanes = OVERLAP_LANES if overlaps(evaluator) else 1
    summary.evaluator_calls, unfinished = play_in_flight(start, games, config.parallel_games, over, stop, lanes)
    summary.in_flight_games = len(unfinished)
    summary.in_flight_moves = sum(len(game.game.moves) for game in unfinished)
    summary.simulations += sum(game.simulations for game in unfinished)
    summary.moves_played += sum(game.moves_played for game in unfinished)
    summary.seconds = time.perf_counter() - started
    return summary


def timed_selfplay(evaluator: Evaluator, rules: Rules, model: str, config: SelfPlayConfig, warm_up: float,
                   seconds: float, clear_cache: Callable[[], None]) -> SelfPlaySummary:
    """Self-play for ``warm_up`` seconds (kernels, compiling), ``clear_cache()``, then ``seconds`` timed: the
    timed window's totals (games in flight at its end abandoned; ``engine bench selfplay``). Games go to a scratch
    folder."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-games-") as scratch:
        output = SelfPlayOutput(Path(scratch))
        play_games(evaluator, rules, model, config, config.parallel_games, output, stop=_after(warm_up))
        clear_cache()
        return play_games(evaluator, rules, model, config, 1 << 30, output, stop=_after(seconds))


def _after(seconds: float) -> Callable[[], bool]:
    """A stop test that turns true ``seconds`` from now."""
    deadline = time.perf_counter() + seconds
    return lambda: time.perf_counter() >= deadline


# ------------------------------------------------------------------ workers
SHARE_SEED_STEP = 7919
"""The distance between the seeds of a run's shares (worker processes, cluster leases): a prime, so that no two
shares of nearby runs meet."""


def share_config(config: SelfPlayConfig, share: int) -> SelfPlayConfig:
    """The config that share ``share`` (from 0) of a run plays with: its own seed, so that no two shares play the
    same games."""
    return config if config.seed is None else replace(config, seed=config.seed + SHARE_SEED_STEP * (share + 1))


def _load(model_path: Path, rules: Rules, options: Any) -> tuple[Evaluator, str]:
    from engine import load_evaluator, read_info

    return load_evaluator(rules, model_path, options), read_info(model_path).name


def _worker(model_path: Path, rules_text: str, config: SelfPlayConfig, games: int, output: SelfPlayOutput,
            options: Any, threads: int, queue: Any) -> None:
    """A worker process: play its share of the games, report each one and its totals on ``queue``.

    The process's entry point, so it sizes its own torch thread pool.
    """
    import traceback

    from engine import set_cpu_threads

    try:
        set_cpu_threads(threads)
        rules = Rules.parse(rules_text)
        evaluator, name = _load(model_path, rules, options)
        summary = play_games(evaluator, rules, name, config, games, output, lambda game: queue.put(("game", game)))
        queue.put(("done", summary))
    except BaseException:  # noqa: BLE001 -- reported to the parent, which raises
        queue.put(("error", traceback.format_exc()))


def run_selfplay(model_path: str | os.PathLike[str], rules: Rules, config: SelfPlayConfig, games: int,
                 output: SelfPlayOutput, options: Any = None, workers: int = 1,
                 on_game: Callable[[GameSummary], None] | None = None,
                 worker_threads: int | None = None) -> SelfPlaySummary:
    """Self-play with the model at ``model_path``: in this process, or split over ``workers`` processes.

    ``options`` is an :class:`~engine.nn.loading.EvaluatorOptions` (random symmetry is usual). In this
    process torch runs on the threads its caller set; each worker process sets ``worker_threads``
    (None: ``cores / workers``).
    """
    from engine import EvaluatorOptions

    options = options or EvaluatorOptions(random_symmetry=True)
    model_path = Path(model_path)
    started = time.perf_counter()
    if workers <= 1 or games <= 1:
        evaluator, name = _load(model_path, rules, options)
        summary = play_games(evaluator, rules, name, config, games, output, on_game)
    else:
        threads = worker_threads or max(1, len(os.sched_getaffinity(0)) // min(workers, games))
        summary = _run_workers(model_path, rules, config, games, output, options, workers, threads, on_game)
    summary.seconds = time.perf_counter() - started
    return summary


def _run_workers(model_path: Path, rules: Rules, config: SelfPlayConfig, games: int, output: SelfPlayOutput,
                 options: Any, workers: int, threads: int,
                 on_game: Callable[[GameSummary], None] | None) -> SelfPlaySummary:
    import multiprocessing
    from queue import Empty

    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = min(workers, games)
    shares = [games // workers + (i < games % workers) for i in range(workers)]
    processes = []
    for i, share in enumerate(shares):
        worker_config = share_config(config, i)
        worker_options = replace(options, seed=None if options.seed is None else options.seed + i)
        process = context.Process(target=_worker, args=(model_path, str(rules), worker_config, share, output,
                                                        worker_options, threads, queue), daemon=True)
        process.start()
        processes.append(process)
    summary = SelfPlaySummary()
    running = len(processes)
    try:
        while running:
            try:
                kind, payload = queue.get(timeout=1.0)
            except Empty:
                dead = [p for p in processes if p.exitcode not in (None, 0)]
                if dead:
                    raise RuntimeError(f"a self-play worker died (exit code {dead[0].exitcode})") from None
                continue
            if kind == "game" and on_game is not None:
                on_game(payload)
            elif kind == "done":
                summary.merge(payload)
                running -= 1
            elif kind == "error":
                raise RuntimeError(f"a self-play worker failed:\n{payload}")
    finally:
        for process in processes:
            if process.is_alive() and running:
                process.terminate()
            process.join()
    return summary
