"""Games between Gomocup (Piskvork) brains under Gomocup's limits, refereed by the rules core: the match loop of
the Gomocup experiments (``gomocup-limits``, ``gomocup-rapfi-pilot``), beside them rather than in the product,
whose matches are :func:`training.match.play_match`'s.

The manager's side of the protocol that :mod:`gtp.gomocup` serves, as Gomocup runs a game: both brains
start afresh (``START``, then ``INFO timeout_turn``, ``timeout_match``, ``max_memory`` and ``rule``); the
random opening stones reach each brain with its first ``BOARD`` (the moves so far in the order played, its
own stones ``1``), and later moves with ``TURN``, each command preceded by ``INFO time_left``. A brain
loses the game on time when an answer takes longer than the turn limit or than its match time left
(measured here, from the command written to the answer read), and by forfeit when it answers anything but
a legal point (``ERROR``, a taken or forbidden point, renju's black included), exits, or says nothing
until the limit and a grace period have passed. Lines that start with ``MESSAGE``, ``DEBUG``, ``SUGGEST``
or ``UNKNOWN`` are a brain's diagnostics and skipped. A brain is a command line, run as given (``engine
gomocup``, ``/path/to/pbrain-rapfi``); its input stays open while it thinks, as brains that read commands
during a search (Rapfi) stop thinking when it closes.

``play_piskvork_match(a, b, config)`` plays brain A against brain B with colours alternating (A black in
even games) and reports A's results as ``engine match`` does, with every game's faults and the thinking
time of every move.
"""

from __future__ import annotations

import math
import queue
import shlex
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench.gtp_pipe import queued_lines, status_bytes, write_line
from engine import Color, EngineError, Game, Outcome, Rules, dump_sgf, opening_actions, write_text
from training.baselines import random_move
from training.match import MatchResult

__all__ = ["START_SECONDS", "Limits", "Brain", "BrainGame", "board_command", "PiskvorkConfig", "PiskvorkMatch",
           "play_piskvork_game", "play_piskvork_match", "gomocup_rule", "peak_memory"]

DIAGNOSTICS = ("MESSAGE", "DEBUG", "SUGGEST", "UNKNOWN")
"""First words of the lines a brain may write besides its answers."""
START_SECONDS = 60.0
"""Seconds a brain may take to answer ``START`` (loading its network, compiling its kernels)."""
UNLIMITED_MS = 2_147_483_647
"""``INFO time_left`` without a match limit, as Piskvork sends it."""


@dataclass(frozen=True)
class Limits:
    """Gomocup's limits (its fast games by default): seconds a move and a game (0: none), bytes of memory;
    ``grace``: seconds past a limit that the manager still waits for an answer before it calls the brain
    silent; ``late_loses``: whether a move past a limit loses (Gomocup's rule; games played as training data
    keep the move instead, as a loaded machine makes good brains late)."""

    turn: float = 5.0
    match: float = 120.0
    memory: int = 350 * 2 ** 20
    grace: float = 10.0
    late_loses: bool = True


def gomocup_rule(rules: Rules) -> int:
    """Gomocup's ``INFO rule`` for Gomoku ``rules``: 0 freestyle, 1 exactly five, 4 renju."""
    if rules.game != "gomoku" or rules.win_length != 5:
        raise ValueError(f"Gomocup plays five in a row, not {rules}")
    return {"freestyle": 0, "standard": 1, "renju": 4}[rules.variant]


def peak_memory(pid: int) -> int | None:
    """The peak resident memory of process ``pid`` in bytes (``VmHWM``, Linux), None where it cannot be read."""
    try:
        return status_bytes(pid, "VmHWM")
    except OSError:
        return None


def _answer_line(line: str) -> str | None:
    """``line`` stripped, or None for a diagnostic line (or a blank one), which is not an answer."""
    words = line.split(None, 1)
    return line.strip() if words and words[0].upper() not in DIAGNOSTICS else None


class Brain:
    """One brain process: lines written to its stdin, its answer lines read from a thread (so that a silent
    brain cannot block the manager); its stderr is discarded."""

    def __init__(self, argv: Sequence[str], name: str) -> None:
        self.name = name
        try:
            self.process = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as error:
            raise EngineError(f"{name}: cannot start {shlex.join(argv)}: {error}") from error
        assert self.process.stdout is not None
        self._lines = queued_lines(self.process.stdout, _answer_line, f"{name}-reader")   # then None: it exited

    def send(self, line: str) -> None:
        write_line(self.process.stdin, line)   # False: it exited, and the next answer says so

    def ask(self, lines: str, timeout: float) -> tuple[str | None, float]:
        """Send ``lines`` (one command: ``BOARD`` takes several); the answer (None: none within ``timeout``
        seconds, or the brain exited) and the seconds from the last line written to the answer read."""
        *before, last = lines.split("\n")
        for line in before:
            self.send(line)
        started = time.monotonic()
        self.send(last)
        try:
            answer = self._lines.get(timeout=timeout)
        except queue.Empty:
            answer = None
        return answer, time.monotonic() - started

    def close(self) -> None:
        self.send("END")
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@dataclass
class BrainGame:
    """One finished game: the record, its outcome, what (if anything) the loser did wrong (``fault``: ``time``
    or ``forfeit`` with what happened), every move's thinking seconds and each brain's peak memory, by colour."""

    game: Game
    outcome: Outcome
    fault: str | None = None
    seconds: dict[Color, list[float]] = field(default_factory=lambda: {Color.BLACK: [], Color.WHITE: []})
    peak_memory: dict[Color, int | None] = field(default_factory=dict)


def _point(text: str, size: int) -> int | None:
    """The action of an ``x,y`` answer on the board, None for anything else."""
    parts = text.split(",")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        return None
    x, y = (int(part) for part in parts)
    return y * size + x if 0 <= x < size and 0 <= y < size else None


def board_command(game: Game, color: Color) -> str:
    """``BOARD`` with the game's moves in the order played (``color``'s marked 1; brains such as Rapfi replay
    them as moves) and ``DONE``."""
    size = game.rules.size
    lines = [f"{move.action % size},{move.action // size},{1 if move.color == color else 2}" for move in game.moves]
    return "\n".join(["BOARD", *lines, "DONE"])


def play_piskvork_game(black: Sequence[str], white: Sequence[str], rules: Rules, opening: Sequence[int],
                       limits: Limits = Limits(), names: tuple[str, str] = ("black", "white")) -> BrainGame:
    """One game of the brain ``black`` (a command line as argv) against ``white`` after the ``opening`` moves
    (actions, black's first), each brain started for it and ended after it."""
    game = Game(rules)
    for action in opening:
        game.play(action)
    brains = {Color.BLACK: Brain(black, names[0]), Color.WHITE: Brain(white, names[1])}
    result = BrainGame(game, Outcome(None, reason="five"))
    try:
        for color, brain in brains.items():
            answer, _ = brain.ask(f"START {rules.size}", START_SECONDS)
            if answer != "OK":
                return _lost(result, color, f"forfeit: answered {answer!r} to START")
            for line in (f"INFO timeout_turn {round(limits.turn * 1000)}",
                         f"INFO timeout_match {round(limits.match * 1000)}", f"INFO max_memory {limits.memory}",
                         f"INFO rule {gomocup_rule(rules)}"):
                brain.send(line)
        match = limits.match if limits.match > 0 else float("inf")
        left = {Color.BLACK: match, Color.WHITE: match}
        told = {Color.BLACK: False, Color.WHITE: False}
        while not game.is_over:
            color = game.to_play
            brain = brains[color]
            left_ms = UNLIMITED_MS if math.isinf(left[color]) else max(0, round(left[color] * 1000))
            brain.send(f"INFO time_left {left_ms}")
            if told[color]:
                last = game.moves[-1].action
                command = f"TURN {last % rules.size},{last // rules.size}"
            else:
                command = board_command(game, color) if game.moves else "BEGIN"
                told[color] = True
            answer, seconds = brain.ask(command, min(limits.turn, max(left[color], 0.0)) + limits.grace)
            result.seconds[color].append(seconds)
            left[color] -= seconds
            if answer is None:
                return _lost(result, color, f"forfeit: {brain.name} said nothing for {seconds:.1f} s")
            action = _point(answer, rules.size)
            if action is None:
                return _lost(result, color, f"forfeit: {brain.name} answered {answer!r}")
            if limits.late_loses and (seconds > limits.turn or left[color] < 0):
                return _lost(result, color, f"time: {brain.name} took {seconds:.2f} s "
                                            f"({max(0.0, left[color] + seconds):.2f} s of its match time left)")
            try:
                game.play(action, color)
            except EngineError as error:
                return _lost(result, color, f"forfeit: {brain.name} played {answer}: {error}")
        outcome = game.outcome()
        assert outcome is not None
        result.outcome = outcome
        return result
    finally:
        for color, brain in brains.items():
            result.peak_memory[color] = peak_memory(brain.process.pid)
            brain.close()


def _lost(result: BrainGame, color: Color, fault: str) -> BrainGame:
    result.fault = fault
    result.outcome = Outcome(color.opponent, reason="time" if fault.startswith("time") else "forfeit")
    return result


@dataclass(frozen=True)
class PiskvorkConfig:
    """A match between two brains: games, rules, random opening stones (so that the brains play different
    games), the limits, and the seed of the openings (game ``i``'s opening comes from ``(seed, i)``). ``paired``:
    games ``2k`` and ``2k + 1`` open alike (from ``(seed, k)``), A black in one and white in the other, as
    Gomocup plays each opening of its book with both colours, so that the openings' luck cancels out; so do
    ``openings``, the lines of an opening list (:mod:`engine.formats.openings`) played in order."""

    games: int = 10
    rules: Rules = field(default_factory=lambda: Rules.gomoku(15, 5, "freestyle"))
    opening_stones: int = 2
    limits: Limits = field(default_factory=Limits)
    seed: int = 0
    paired: bool = False
    openings: tuple[str, ...] = ()

    def opening(self, index: int) -> list[int]:
        """The actions that open game ``index`` (from 0): with ``openings`` (an opening list's lines, which
        pair the games) the list's ``index // 2``-th, else random stones."""
        if self.openings:
            return list(opening_actions(self.openings[index // 2 % len(self.openings)], self.rules.size))
        rng = np.random.default_rng([self.seed, index // 2 if self.paired else index])
        game = Game(self.rules)
        for _ in range(self.opening_stones):
            game.play(random_move(game, rng))
        return [move.action for move in game.moves]


@dataclass
class PiskvorkMatch:
    """A's results against B (``result``), the faults by game, and each brain's thinking seconds a move and
    peak memory in bytes over all games."""

    result: MatchResult
    faults: dict[int, str] = field(default_factory=dict)
    a_seconds: list[float] = field(default_factory=list)
    b_seconds: list[float] = field(default_factory=list)
    a_peak_memory: int = 0
    b_peak_memory: int = 0

    def to_dict(self) -> dict[str, object]:
        def profile(seconds: list[float]) -> dict[str, float]:
            values = np.asarray(seconds or [0.0])
            return {"moves": len(seconds), "median_s": round(float(np.median(values)), 3),
                    "p99_s": round(float(np.percentile(values, 99)), 3), "max_s": round(float(values.max()), 3)}

        return {**self.result.to_dict(), "faults": {str(game + 1): fault for game, fault in self.faults.items()},
                "a_time": profile(self.a_seconds), "b_time": profile(self.b_seconds),
                "a_peak_memory_mb": round(self.a_peak_memory / 2 ** 20, 1),
                "b_peak_memory_mb": round(self.b_peak_memory / 2 ** 20, 1)}


def play_piskvork_match(brain_a: str, brain_b: str, config: PiskvorkConfig, sgf_dir: str | Path | None = None,
                        on_game: Callable[[PiskvorkMatch], None] | None = None) -> PiskvorkMatch:
    """Play ``config.games`` games of brain A against brain B (command lines), colours alternating, one after
    another; each game is written to ``sgf_dir`` (``game-0001.sgf`` ...) when given, and ``on_game`` sees the
    match after every game."""
    match = PiskvorkMatch(MatchResult(brain_a, brain_b))
    started = time.monotonic()
    for index in range(config.games):
        a_color = Color.BLACK if index % 2 == 0 else Color.WHITE
        argv = {a_color: shlex.split(brain_a), a_color.opponent: shlex.split(brain_b)}
        names = {a_color: "A", a_color.opponent: "B"}
        played = play_piskvork_game(argv[Color.BLACK], argv[Color.WHITE], config.rules,
                                    config.opening(index), config.limits,
                                    (names[Color.BLACK], names[Color.WHITE]))
        match.result.add(played.outcome, a_color, len(played.game.moves))
        if played.fault is not None:
            match.faults[index] = played.fault
        match.a_seconds += played.seconds[a_color]
        match.b_seconds += played.seconds[a_color.opponent]
        match.result.a_move_seconds = float(np.mean(match.a_seconds or [0.0]))
        match.result.b_move_seconds = float(np.mean(match.b_seconds or [0.0]))
        match.a_peak_memory = max(match.a_peak_memory, played.peak_memory.get(a_color) or 0)
        match.b_peak_memory = max(match.b_peak_memory, played.peak_memory.get(a_color.opponent) or 0)
        match.result.seconds = time.monotonic() - started
        if sgf_dir is not None:
            write_text(Path(sgf_dir) / f"game-{index + 1:04d}.sgf",
                       dump_sgf(played.game, black_name=names[Color.BLACK], white_name=names[Color.WHITE],
                                result=played.outcome))
        if on_game is not None:
            on_game(match)
    return match

