"""What a GTP (or Gomocup) session works on: the configuration, the game, the player and the clocks.

:class:`EngineState` is built from a frozen :class:`FrontEndConfig` (the CLI
layer builds it) and warms up in a background thread: it loads the evaluator
(the network or, when there is none, pure MCTS with random playouts or the uniform stand-in), creates the
player and runs a tiny search so that the compiled kernels are ready. Only
then do commands that need the engine run (:meth:`wait_ready`); the protocol
commands answer at once. The network plays compiled where its package for the
board size is in the user's cache, else eagerly while a separate process at the
lowest priority compiles it (:mod:`engine.nn.precompiled`), so that no move waits
for a compiler or shares its cores with one.
A session snapshots the state before each command and restores it when the
command fails.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from engine import (
    DEFAULT_PLAYOUTS,
    LARGE_GO_BOARD,
    NETWORK_FREE,
    Color,
    EngineError,
    Evaluator,
    EvaluatorOptions,
    Game,
    GameRecord,
    InvalidVertexError,
    Player,
    PlayerConfig,
    RolloutEvaluator,
    Rules,
    RulesError,
    Search,
    SearchResult,
    StoneStatus,
    action_to_gtp,
    bundled_model,
    compile_ahead,
    estimate_ownership,
    gtp_to_action,
    load_evaluator,
    nodes_within,
    playout_ownership,
    start_kernel_compiler,
    stone_status,
    with_handicap_bonus,
)
from gtp.protocol import BAD_VERTEX, INVALID_COLOR, SYNTAX_ERROR, GtpError
from gtp.timecontrol import DEFAULT_LAG, TimeControl, expected_moves
from gtp.warmup import BackgroundWarmUp

__all__ = ["FrontEndConfig", "EngineState", "OPEN_ENDED_VISITS", "parse_color", "parse_vertex", "parse_int",
           "parse_float"]

log = logging.getLogger(__name__)


OPEN_ENDED_VISITS = 1 << 30
"""Visit limit of a search that runs until it is stopped or its tree is full (analysis, pondering)."""

MEMORY_RESERVE = 48 * 2 ** 20
"""Bytes of a memory limit (:meth:`EngineState.limit_memory`) kept for what the process allocates beside the
tree after the limit is set (another rules' network, the evaluator's batch buffers)."""
MIN_TREE_MOVES = 64
"""A memory limit leaves the tree room for at least this many expansions of the whole board."""

RESIGN_MIN_SCORE = 10.0
"""The front ends' player resigns only more than this many points behind (where the network has a score head):
a person across the board would rather lose by a few points than see the engine give up a game still close."""

WARM_UP_VISITS = 3
"""Visits of each search that warms the engine up: the fewest that run every kernel of a search (the root's
expansion, then a step that gathers leaves and backs them up), so that the network's work, on a board size the
session may never play, stays small."""


@dataclass(frozen=True)
class FrontEndConfig:
    """How the front ends run the engine: the model and rules they start with, the player and the network.

    ``model`` None with ``bundled`` plays on the network bundled for the rules in play
    (:func:`~engine.nn.networks.bundled_model`: Go, Gomoku freestyle and standard, renju), chosen
    again whenever the rules change. Where none ships, or ``bundled`` is False, it plays without a
    network: ``network_free`` ``"rollouts"`` is pure MCTS with random playouts (and decisive moves),
    ``"uniform"`` uniform priors and value 0 (every command works, the moves mean nothing).
    ``ponder``: after its own move the engine searches the position for the opponent until the next
    command arrives, and keeps the tree (see :meth:`EngineState.ponder_job`). ``move_seconds``: while
    the controller has set no time control, a move ends after this long at the latest (None: no limit
    but the player's).
    ``rules`` is a preset or rules string (``"japanese"``, ``"freestyle k=5"``);
    None means ``chinese`` for Go, ``freestyle`` for Gomoku, the game's own otherwise. ``size`` and
    ``komi`` override it. ``player`` holds the search limits (a time control
    from the controller lowers the time further), the search config and how
    the opening's moves are chosen (by default drawn among the near-best, so
    that games differ; ``seed`` makes them repeatable);
    ``evaluator`` says how the network runs (the CLI sizes torch's threads,
    which are the process's). ``seed`` makes the player's searches and the
    ownership estimates repeatable (the evaluator's is in ``evaluator``).
    ``name`` is what GTP's ``name`` answers; ``version``, where given, what ``version`` answers (KataGo's
    ``-override-version``), else the package's version as Lizzie accepts it.
    """

    model: str | None = None
    network_free: str = "rollouts"
    bundled: bool = False
    game: str = "go"
    size: int | None = None
    rules: str | None = None
    komi: float | None = None
    player: PlayerConfig = field(default_factory=lambda: PlayerConfig(threat_guard=True, temperature_moves=None,
                                                                      near_best=0.35,
                                                                      resign_min_score=RESIGN_MIN_SCORE))
    evaluator: EvaluatorOptions = field(default_factory=EvaluatorOptions)
    seed: int | None = None
    ownership_playouts: int = DEFAULT_PLAYOUTS
    lag: float = DEFAULT_LAG
    ponder: bool = False
    move_seconds: float | None = None
    name: str = "engine"
    version: str | None = None

    def __post_init__(self) -> None:
        if self.network_free not in NETWORK_FREE:
            raise ValueError(f"network_free is one of {', '.join(NETWORK_FREE)}, not {self.network_free!r}")

    def model_for(self, rules: Rules) -> str | None:
        """The model file that plays under ``rules``: the one given, else the bundled one (if any)."""
        if self.model is not None or not self.bundled:
            return self.model
        path = bundled_model(rules)
        return None if path is None else str(path)

    def initial_rules(self) -> Rules:
        """The rules the session starts with (RulesError if the options contradict each other)."""
        text = self.rules or {"go": "chinese", "gomoku": "freestyle"}.get(self.game, self.game)
        rules = Rules.parse(text, size=self.size)
        if rules.game != self.game:
            raise RulesError(f"rules {text!r} are for {rules.game}, not {self.game}")
        if self.size is not None and rules.size != self.size:
            rules = rules.resized(self.size)
        if self.komi is not None and rules.game == "go":
            rules = replace(rules, komi=float(self.komi))  # validated by Rules itself
        return rules


def parse_color(text: str) -> Color:
    try:
        return Color.parse(text)
    except ValueError:
        raise GtpError(INVALID_COLOR) from None


def parse_vertex(text: str, size: int) -> int:
    try:
        return gtp_to_action(text, size)
    except InvalidVertexError:
        raise GtpError(BAD_VERTEX) from None


def parse_int(text: str, low: int | None = None, high: int | None = None) -> int:
    """An integer argument within ``[low, high]``, else ``syntax error``."""
    try:
        value = int(text)
    except ValueError:
        raise GtpError(SYNTAX_ERROR) from None
    if (low is not None and value < low) or (high is not None and value > high):
        raise GtpError(SYNTAX_ERROR)
    return value


def parse_float(text: str) -> float:
    """A finite float argument, else ``syntax error``."""
    try:
        value = float(text)
    except ValueError:
        raise GtpError(SYNTAX_ERROR) from None
    if not np.isfinite(value):
        raise GtpError(SYNTAX_ERROR)
    return value


def _resident_bytes() -> int:
    """The process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024   # bytes on macOS, KiB elsewhere


@dataclass(frozen=True)
class _Snapshot:
    config: FrontEndConfig
    rules: Rules
    game: Game | None
    player: Player | None
    time: TimeControl


class EngineState:
    """The game, the player and the clocks of one session."""

    def __init__(self, config: FrontEndConfig) -> None:
        self.config = config
        self.rules = config.initial_rules()
        self.time = TimeControl(lag=config.lag)
        self._game: Game | None = None
        self._player: Player | None = None
        self._evaluators: dict[tuple[str, int], Evaluator] = {}
        self._ownership_cache: tuple[tuple[int, int, float], np.ndarray] | None = None
        self._ponder_from: tuple[int, int] | None = None  # (moves, position key) right after the engine's move
        self.last_search: SearchResult | None = None   # the search behind the last generated move
        self.network_ownership = False  # the network has an ownership head (Go; known once the engine is ready)
        self._ready = threading.Event()
        self._error: str | None = None
        self._background = BackgroundWarmUp()
        self._playouts_queued = False
        self._tree_capacity: int | None = None   # nodes, from a memory limit
        self._announced: set[str | None] = set()   # the model files the log has named

    # ---------------------------------------------------------------- warm-up
    def start(self, background: bool = True) -> None:
        """Say which network plays, then load the evaluator and compile the kernels, in a thread unless
        ``background`` is False. The choice is logged before the thread starts, so that a session that
        quits at once has still said it."""
        model = self.config.model_for(self.rules)
        if model is None and self.config.network_free == "rollouts":
            log.warning("no network (none given with --model PATH, none bundled for %s): playing pure "
                        "Monte-Carlo tree search with random playouts (weak)", self.rules.game)
        elif model is None:
            log.warning("no network (--model uniform): playing with uniform priors and no value network, "
                        "which is very weak")
        else:
            log.info("network: %s (loading)", model)
            self._announced.add(model)
        if self.config.model is None and self.config.bundled and self.rules.game == "go":
            log.info("bundled Go networks: %s below %dx%d, %s from there up (a boardsize command switches)",
                     bundled_model(Rules.go(LARGE_GO_BOARD - 1)), LARGE_GO_BOARD, LARGE_GO_BOARD,
                     bundled_model(Rules.go(LARGE_GO_BOARD)))
        compiler = start_kernel_compiler(self.rules, model)
        if background:
            threading.Thread(target=self._warm_up, args=(compiler,), name="engine-warm-up", daemon=True).start()
        else:
            self._warm_up(compiler)

    def _warm_up(self, kernel_compiler: subprocess.Popen[bytes] | None = None) -> None:
        """Load the evaluator and run a first search (compiling the kernels: :mod:`engine.nn.cold_start` has a
        second process compile some of them on a cold cache); then reap that process."""
        started = time.perf_counter()
        try:
            model = self.config.model_for(self.rules)
            self._player = self._player_for(self.rules)
            if model is not None:
                log.info("network: %r", self._player.evaluator)   # device, dtype, runtime
            log.info("preparing the search (a first run compiles its kernels once: up to a minute)")
            game = Game(self.rules)
            result = self._player.analyse(game, visits=WARM_UP_VISITS)
            self._player.rehearse(self.rules, WARM_UP_VISITS)   # no kernel compiles during a timed move
            if self.rules.game == "go":
                self.network_ownership = result.ownership is not None
                if model is not None and (result.ownership is None or result.score_mean is None):
                    log.warning("the network has no ownership and score heads: analysis reports no score, and "
                                "ownership and dead stones come from random playouts")
            self._player.new_game()
            self._game = game
            log.info("engine ready in %.1f s (%s)", time.perf_counter() - started, self.rules)
        except Exception as exc:  # noqa: BLE001 -- reported to every command that needs the engine
            self._error = f"engine failed to start: {exc}"
            log.error("%s", self._error, exc_info=not isinstance(exc, EngineError))
        finally:
            self._ready.set()
            if kernel_compiler is not None:
                try:
                    kernel_compiler.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    kernel_compiler.kill()
                    kernel_compiler.wait()

    def wait_ready(self) -> None:
        self._ready.wait()
        if self._error is not None:
            raise GtpError(self._error)

    def _evaluator_for(self, rules: Rules) -> Evaluator:
        model = self.config.model_for(rules)
        key = (rules.game, rules.size, model)
        if key not in self._evaluators:
            if self._rollouts(rules):
                self._evaluators[key] = RolloutEvaluator(seed=self.config.seed, decisive=True, near=True)
            else:
                options = replace(self.config.evaluator, ahead_of_time=True)   # see _after_search
                self._evaluators[key] = load_evaluator(rules, model, options)
                if model not in self._announced:
                    log.info("network: %s (for %dx%d)", model, rules.size, rules.size)
                    self._announced.add(model)
        return self._evaluators[key]

    def _rollouts(self, rules: Rules) -> bool:
        """Whether pure MCTS with random playouts plays under ``rules`` (no network for them)."""
        return self.config.model_for(rules) is None and self.config.network_free == "rollouts"

    def _after_search(self) -> None:
        """Start the work that makes later searches faster, once a search on the board size has answered.

        Not before: a GUI usually changes the board size before it asks for a move. The network's compile
        for the board size runs in a separate process; the random playouts' kernels (dead stones without
        an ownership head) compile in the background thread.
        """
        compile_ahead(self.player.evaluator, self.rules.size)
        if self.rules.game == "go" and not self._playouts_queued:   # dead stones without an ownership head
            self._playouts_queued = True
            self._background.run("compiling the random playouts' kernels",
                                 lambda: playout_ownership(Game(self.rules), playouts=1))

    def _player_for(self, rules: Rules) -> Player:
        evaluator = self._evaluator_for(rules)
        if self._player is not None and self._player.evaluator is evaluator:
            return self._player
        config = self.config.player
        if self._rollouts(rules):
            config = replace(config, search=config.search.for_rollouts())
        if self._tree_capacity is not None:
            config = replace(config, search=replace(config.search,
                                                    capacity=min(config.search.capacity, self._tree_capacity)))
        return Player(evaluator, config, seed=self.config.seed)

    def limit_memory(self, max_bytes: int | None) -> None:
        """Keep the process within ``max_bytes`` of memory (None: no limit) by capping the search tree at what
        the limit leaves beside the memory the process holds now (less :data:`MEMORY_RESERVE`); the tree
        starts afresh. A search that fills its tree prunes it (:meth:`engine.search.tree.Tree.prune`), whose peak
        is the same as re-rooting's."""
        self.wait_ready()
        if max_bytes is None:
            self._tree_capacity = None
        else:
            floor = MIN_TREE_MOVES * self.rules.num_actions
            nodes = nodes_within(max_bytes - _resident_bytes() - MEMORY_RESERVE)
            if nodes < floor:
                log.warning("a memory limit of %d MB leaves the search tree almost no room: it keeps %d nodes",
                            max_bytes >> 20, floor)
            self._tree_capacity = max(nodes, floor)
        self._player = None
        self._player = self._player_for(self.rules)
        self._player.new_game()

    # -------------------------------------------------------------- snapshot
    def snapshot(self) -> object:
        return _Snapshot(self.config, self.rules, self._game.copy() if self._game is not None else None,
                         self._player, self.time.copy())

    def restore(self, snapshot: object) -> None:
        assert isinstance(snapshot, _Snapshot)
        self.config, self.rules, self._game, self._player, self.time = (
            snapshot.config, snapshot.rules, snapshot.game, snapshot.player, snapshot.time)

    # --------------------------------------------------------------- settings
    def reconfigure(self, config: FrontEndConfig) -> None:
        """Play on under ``config`` (the runtime settings: limits, resignation, pondering; not the model, the
        game or the evaluator): the next search uses it, with a new player (a fresh tree) on the same network."""
        self.wait_ready()
        self.config = config
        self._player = None
        self._player = self._player_for(self.rules)

    def clear_cache(self) -> None:
        """Forget the search tree (and the resignation count), the networks' evaluation caches and the ownership
        estimate, so the next search starts afresh; memory they held is free again."""
        self.player.new_game()
        for evaluator in self._evaluators.values():
            clear = getattr(evaluator, "clear_cache", None)   # the network evaluators'; the others keep nothing
            if clear is not None:
                clear()
        self._ownership_cache = None

    def stop_pondering(self) -> None:
        """Ponder no more until the engine's next move."""
        self._ponder_from = None

    # ------------------------------------------------------------------ game
    @property
    def game(self) -> Game:
        assert self._game is not None, "the engine is not ready"
        return self._game

    @property
    def player(self) -> Player:
        assert self._player is not None, "the engine is not ready"
        return self._player

    def new_game(self, rules: Rules | None = None, game: Game | None = None) -> None:
        """Start over under ``rules`` (default: the current ones), or from a ready-made ``game`` (a handicap, a
        file), played under its rules and their handicap bonus (:meth:`with_rules`)."""
        rules = game.rules if game is not None else (rules or self.rules)
        player = self._player_for(rules)
        self.rules = rules
        self._player = player
        self._game = Game(rules) if game is None else self._played_under(game, rules)
        player.new_game()

    def with_rules(self, rules: Rules) -> None:
        """Change the rules and keep the game: it is replayed under them (EngineError, and nothing changed, if a
        move of it is illegal under them).

        ``rules`` are the rules as the controller states them (``komi``, ``showboard``, ``printsgf``); a
        handicap game is played and scored at their komi plus White's handicap bonus
        (:func:`~engine.core.scoring.with_handicap_bonus`: ``final_score`` and the search both count it)."""
        self._game = self._played_under(self.game, rules)
        self.rules = rules

    @staticmethod
    def _played_under(game: Game, rules: Rules) -> Game:
        """``game`` replayed at the rules it is played under (``rules`` with its handicap bonus)."""
        played = with_handicap_bonus(rules, game.handicap)
        if played == game.rules:
            return game
        return replace(GameRecord.from_game(game), rules=played).replay(play_on=True)

    def stated_game(self) -> Game:
        """The game under the rules as stated, without the handicap bonus in its komi (what an SGF records)."""
        if self.game.rules == self.rules:
            return self.game
        return replace(GameRecord.from_game(self.game), rules=self.rules).replay(play_on=True)

    def play(self, action: int, color: Color) -> None:
        """Play ``color``'s move; a Go game that two passes ended goes on (GTP knows no end of game)."""
        self.game.play_on()
        self.game.play(action, color)

    def vertex(self, action: int) -> str:
        return action_to_gtp(action, self.rules.size)

    def move_text(self, action: int | None) -> str:
        """A generated move as GTP answers it: a vertex, ``pass``, or ``resign`` for None."""
        return "resign" if action is None else self.vertex(action)

    def action(self, text: str) -> int:
        return parse_vertex(text, self.rules.size)

    # ------------------------------------------------------------ decisions
    def budget(self, color: Color, time_cap: float | None = None) -> float | None:
        """Seconds for ``color``'s next move from the time control, at most ``time_cap`` (None: no limit); with
        no time control, at most the config's ``move_seconds``."""
        if self.time.settings.kind == "none" and self.config.move_seconds is not None:
            time_cap = self.config.move_seconds if time_cap is None else min(time_cap, self.config.move_seconds)
        empty = int(np.count_nonzero(self.game.position.board() == 0))
        return self.time.budget(int(color), expected_moves(empty, self.rules.game), per_move_cap=time_cap)

    def generate(self, color: Color, *, stop: Callable[[], bool] | None = None,
                 progress: Callable[[Search], None] | None = None, play: bool = True, cleanup: bool = False,
                 time_cap: float | None = None) -> int | None:
        """``genmove``: the player's action for ``color`` (None: it resigns), played unless ``play`` is False.

        The search's time is charged to ``color``'s clock; ``time_cap`` limits it further (seconds). With
        ``cleanup`` (``kgs-genmove_cleanup``) the player is told the stones the ownership estimate calls dead,
        and does not pass while any of the opponent's remain.
        """
        dead = self.dead_stones() if cleanup and self.rules.game == "go" else []
        started = time.monotonic()
        decision = self.player.choose(self.game, color, seconds=self.budget(color, time_cap), stop=stop,
                                      progress=progress, dead=dead)
        self.last_search = decision.search
        if decision.search is None:   # resigned a game that is over
            return None
        self.time.spent(int(color), time.monotonic() - started)
        self._after_search()
        if decision.action is None:
            return None
        if play:
            self.play(decision.action, color)
            self._ponder_from = (len(self.game.moves), self.game.position.key)
        return decision.action

    def enabled_ponder_job(self) -> Callable[[Callable[[], bool]], None] | None:
        """:meth:`ponder_job` while the config asks for pondering (``--ponder``, or KataGo's ``ponderingEnabled``
        set at run time), else None."""
        return self.ponder_job() if self.config.ponder else None

    def ponder_job(self) -> Callable[[Callable[[], bool]], None] | None:
        """A search of the position for the opponent, to run until ``stop()`` while the controller is
        silent, if the engine has just moved and nothing changed since (None otherwise).

        It grows the player's tree, which the next ``genmove`` reuses when the opponent's reply is in
        it (its visit limit counts those visits, as Leela Zero's does). The session runs the job
        between commands and joins it before the next one, so nothing else touches the game meanwhile.
        The search waits for the background thread's jobs to finish first: beside a compile in this
        process, a command waited 2 s for the ponder search to stop.
        """
        if not self._ready.is_set() or self._game is None or self._player is None:
            return None
        game, player = self._game, self._player
        if self._ponder_from != (len(game.moves), game.position.key) or game.is_over:
            return None

        def job(stop: Callable[[], bool]) -> None:
            while self._background.busy and not stop():
                time.sleep(0.01)
            if stop():
                return
            result = player.analyse(game, visits=OPEN_ENDED_VISITS, stop=stop)
            log.debug("pondered %d visits in %.1f s", result.simulations, result.seconds)

        return job

    def analyse(self, color: Color, *, visits: int | None = None, seconds: float | None = None,
                stop: Callable[[], bool] | None = None,
                progress: Callable[[Search], None] | None = None) -> SearchResult:
        """A search of the current position with ``color`` to move (analysis commands)."""
        return self.analysis(color, visits=visits, seconds=seconds, stop=stop, progress=progress)[0]

    def analysis(self, color: Color, *, visits: int | None = None, seconds: float | None = None,
                 stop: Callable[[], bool] | None = None, progress: Callable[[Search], None] | None = None,
                 kept_out: np.ndarray | None = None) -> tuple[SearchResult, Search]:
        """:meth:`analyse`, with the search it ran (its tree answers per-move questions: lines, ownership).

        ``kept_out`` (``int[3, N*N+1]``, see :meth:`engine.Search.shape_root`) keeps moves out of the search;
        such a search grows a tree of its own, so that the player's tree, which the next ``genmove`` reuses,
        keeps every move.
        """
        game = Player.for_color(self.game, color)
        if visits is None and seconds is None:
            visits, seconds = self.config.player.visits, self.config.player.seconds
        if kept_out is None:
            search = self.player.search_for(game)
        else:
            search = Search(game, self.player.evaluator, self.player.config.search, seed=self.config.seed)
            search.shape_root(kept_out=kept_out)
        result = search.run(visits, seconds=seconds, stop=stop, progress=progress)
        self._after_search()
        return result, search

    # -------------------------------------------------------------- ownership
    def ownership(self) -> np.ndarray:
        """Ownership of the current position from black's view, cached per position: the network's (one
        evaluation) where it has an ownership head, a Monte-Carlo estimate otherwise."""
        game = self.game
        key = (game.position.key, len(game.moves), game.rules.komi)
        if self._ownership_cache is None or self._ownership_cache[0] != key:
            estimate = estimate_ownership(self.player.evaluator, game, self.config.ownership_playouts,
                                          seed=self.config.seed)
            self._ownership_cache = (key, estimate)
        return self._ownership_cache[1]

    def stone_status(self) -> StoneStatus:
        """Alive, dead and seki chains of the current position, from :meth:`ownership`."""
        return stone_status(self.game, self.ownership())

    def dead_stones(self) -> list[int]:
        """The stones of the chains :meth:`stone_status` calls dead, as actions."""
        return [action for chain in self.stone_status().dead for action in chain]

