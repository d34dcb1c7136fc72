"""Time controls as the controller states them, turned into a thinking budget per move.

Five systems, as GTP's ``time_settings`` / ``time_left``, KGS's
``kgs-time_settings`` and KataGo's ``kata-time_settings`` describe them (all
times in seconds):

==============  ===============================================================
``none``        no limit: the engine's own visit or time limit applies
``absolute``    ``main`` seconds for the whole game
``byoyomi``     ``main``, then ``periods`` periods of ``period`` seconds; a move
                finished within a period keeps it, an overrun one loses it
``canadian``    ``main``, then blocks of ``period`` seconds for ``stones`` moves
``fischer``     ``main``, and ``increment`` seconds added after every move; with
                ``main_limit`` the clock never holds more, with ``move_limit``
                no move takes longer (KataGo's ``fischer-capped``)
==============  ===============================================================

GTP ``time_settings M B S`` is Canadian (``B > 0, S = 0`` means no limit,
``B = 0`` absolute). In ``time_left COLOR T S``, ``S = 0`` means ``T`` seconds
of main time are left; otherwise ``T`` seconds for ``S`` stones of the current
Canadian block, or, in Japanese byo-yomi, ``T`` seconds of the current period
with ``S`` periods left (KGS's convention).

The budget spreads the main time over the moves still expected
(:func:`expected_moves`) and keeps a lag buffer per move for what happens
outside the search (network round trips, GUI, Python overhead): a move given
``budget`` seconds is expected to cost at most ``budget + lag``. Overtime is
never spent past ``period - lag`` (byo-yomi) or the block's share per stone
(Canadian), so no period is lost and no block overrun; under Fischer a move
gets its share of the clock plus the increment, never more than the clock holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

__all__ = ["KINDS", "KATA_KINDS", "TimeSettings", "Clock", "TimeControl", "expected_moves", "DEFAULT_LAG"]

KINDS = ("none", "absolute", "byoyomi", "canadian", "fischer")
KATA_KINDS = ("none", "absolute", "byo-yomi", "canadian", "fischer", "fischer-capped")
"""The time systems ``kata-time_settings`` takes, in KataGo's words (``byoyomi`` is read too, as kgsGtp writes it)."""
DEFAULT_LAG = 0.5
"""Seconds per move kept back for everything outside the search."""

MIN_MOVES = 16
"""The budget never assumes fewer moves to come than this, so the clock decays geometrically."""


MOVES_PER_EMPTY_POINT = {"go": 0.4, "gomoku": 0.1}
"""The engine's moves still to come per empty point, by game (others as Go). A Go game fills most of the
board, half of it the engine's. A Gomoku game ends long before, so Go's share would leave a Gomoku engine a
fraction of the time it has (the game lengths: docs/benchmarks.md, *Clock*)."""


def expected_moves(empty_points: int, game: str = "go") -> int:
    """Moves the engine still expects to play in ``game``: its share of the empty points
    (:data:`MOVES_PER_EMPTY_POINT`), at least :data:`MIN_MOVES`."""
    share = MOVES_PER_EMPTY_POINT.get(game, MOVES_PER_EMPTY_POINT["go"])
    return max(MIN_MOVES, math.ceil(share * max(0, empty_points)))


def _seconds(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"not a time in seconds: {text!r}")
    return value


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise ValueError(f"not a count: {text!r}")
    return value


@dataclass(frozen=True)
class TimeSettings:
    """One time system (see the module docstring); ``period`` and ``stones`` / ``periods`` describe overtime."""

    kind: str = "none"
    main: float = 0.0
    period: float = 0.0
    stones: int = 0
    periods: int = 0
    increment: float = 0.0
    main_limit: float | None = None
    move_limit: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:   # the protocol layer imports no engine: its own check
            raise ValueError(f"unknown time system {self.kind!r}: expected one of {', '.join(KINDS)}")
        if self.kind == "canadian" and (self.period <= 0 or self.stones <= 0):
            raise ValueError("Canadian overtime needs a positive period and stone count")
        if self.kind == "byoyomi" and (self.period <= 0 or self.periods <= 0):
            raise ValueError("byo-yomi needs a positive period length and count")
        if self.main_limit is not None and self.main_limit < self.main:
            raise ValueError("a Fischer clock's limit cannot be below its main time")

    @classmethod
    def from_gtp(cls, main: str, byo_yomi: str, stones: str) -> "TimeSettings":
        """GTP ``time_settings main_time byo_yomi_time byo_yomi_stones`` (ValueError if malformed)."""
        main_s, period, count = _seconds(main), _seconds(byo_yomi), _count(stones)
        if period > 0 and count == 0:
            return cls("none")
        if period == 0:
            return cls("absolute", main_s)
        return cls("canadian", main_s, period, count)

    @classmethod
    def from_kgs(cls, words: tuple[str, ...]) -> "TimeSettings":
        """``kgs-time_settings none | absolute M | byoyomi M P N | canadian M P S`` (ValueError if malformed)."""
        if not words:
            raise ValueError("missing time system")
        kind, rest = words[0].lower(), words[1:]
        arity = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
        if kind not in arity or len(rest) != arity[kind]:
            raise ValueError(f"bad kgs-time_settings arguments: {' '.join(words)!r}")
        if kind == "none":
            return cls("none")
        if kind == "absolute":
            return cls("absolute", _seconds(rest[0]))
        main, period, count = _seconds(rest[0]), _seconds(rest[1]), _count(rest[2])
        if kind == "byoyomi":
            return cls("byoyomi", main, period, periods=count) if period > 0 and count > 0 else cls("absolute", main)
        return cls("canadian", main, period, count) if period > 0 and count > 0 else cls("absolute", main)

    @classmethod
    def from_kata(cls, words: tuple[str, ...]) -> "TimeSettings":
        """``kata-time_settings``: kgs-time_settings's systems (``byo-yomi`` or ``byoyomi``), ``fischer MAIN
        INCREMENT`` and ``fischer-capped MAIN INCREMENT MAIN_LIMIT MOVE_LIMIT`` (a negative limit: none); every
        time may have a fraction (ValueError if malformed)."""
        if not words:
            raise ValueError("missing time system")
        kind, rest = words[0].lower(), words[1:]
        if kind in ("byo-yomi", "byoyomi", "none", "absolute", "canadian"):
            return cls.from_kgs(("byoyomi" if kind == "byo-yomi" else kind, *rest))
        arity = {"fischer": 2, "fischer-capped": 4}
        if kind not in arity or len(rest) != arity[kind]:
            raise ValueError(f"bad kata-time_settings arguments: {' '.join(words)!r} (time systems: "
                             f"{', '.join(KATA_KINDS)})")
        main, increment = _seconds(rest[0]), _seconds(rest[1])
        if kind == "fischer":
            return cls("fischer", main, increment=increment)
        limits = [float(text) for text in rest[2:]]
        if not all(math.isfinite(limit) for limit in limits):
            raise ValueError(f"not a time in seconds: {' '.join(rest[2:])!r}")
        main_limit, move_limit = (None if limit < 0 else limit for limit in limits)
        return cls("fischer", main, increment=increment, main_limit=main_limit, move_limit=move_limit)


@dataclass
class Clock:
    """One player's time: main time left, then the current period or block and what remains of overtime."""

    main: float
    period: float
    stones: int
    periods: int

    @classmethod
    def fresh(cls, settings: TimeSettings) -> "Clock":
        return cls(settings.main, settings.period, settings.stones, settings.periods)


class TimeControl:
    """Both players' clocks under one :class:`TimeSettings`, and the engine's budget per move."""

    def __init__(self, settings: TimeSettings = TimeSettings(), lag: float = DEFAULT_LAG) -> None:
        if lag < 0:
            raise ValueError("the lag buffer cannot be negative")
        self.lag = lag
        self.settings = settings
        self.clocks = {1: Clock.fresh(settings), 2: Clock.fresh(settings)}

    def copy(self) -> "TimeControl":
        other = TimeControl(self.settings, self.lag)
        other.clocks = {color: replace(clock) for color, clock in self.clocks.items()}
        return other

    def set(self, settings: TimeSettings) -> None:
        """New settings; both clocks start full."""
        self.settings = settings
        self.clocks = {1: Clock.fresh(settings), 2: Clock.fresh(settings)}

    def time_left(self, color: int, seconds: float, stones: int) -> None:
        """The controller's word on ``color``'s clock (GTP ``time_left``)."""
        if not math.isfinite(seconds) or seconds < 0 or stones < 0:
            raise ValueError("time left must be finite and not negative")
        settings = self.settings
        clock = Clock.fresh(settings)
        if stones == 0 or settings.kind in ("none", "absolute", "fischer"):
            clock.main = seconds
        elif settings.kind == "canadian":
            clock.main, clock.period, clock.stones = 0.0, seconds, stones
        else:
            clock.main, clock.period, clock.periods = 0.0, seconds, stones
        self.clocks[color] = clock

    def spent(self, color: int, seconds: float) -> None:
        """Charge a move that took ``seconds`` to ``color``'s clock (until the controller corrects it)."""
        settings, clock = self.settings, self.clocks[color]
        over = max(0.0, seconds - clock.main)
        clock.main = max(0.0, clock.main - seconds)
        if settings.kind == "fischer":
            clock.main += settings.increment
            if settings.main_limit is not None:
                clock.main = min(clock.main, settings.main_limit)
            return
        if over <= 0 or settings.kind in ("none", "absolute"):
            return
        if settings.kind == "canadian":
            clock.period -= over
            clock.stones -= 1
            if clock.stones <= 0 or clock.period <= 0:
                clock.period, clock.stones = settings.period, settings.stones
        else:
            lost = int(over // settings.period)
            clock.periods = max(0, clock.periods - lost)
            clock.period = settings.period

    def budget(self, color: int, moves_to_come: int, per_move_cap: float | None = None) -> float | None:
        """Seconds to think on ``color``'s next move (None: no limit), given the moves still expected."""
        settings, clock = self.settings, self.clocks[color]
        moves = max(1, moves_to_come)
        if settings.kind == "none":
            budget = None
        else:
            budget = clock.main / moves - self.lag
            if settings.kind == "byoyomi" and clock.periods > 0:
                period = clock.period if clock.main <= 0 else settings.period
                budget = max(budget, period - self.lag)
            elif settings.kind == "fischer":
                budget = min(budget + settings.increment, clock.main - self.lag)
                if settings.move_limit is not None:
                    budget = min(budget, settings.move_limit - self.lag)
            elif settings.kind == "canadian":
                if clock.main <= 0:
                    budget = clock.period / max(1, clock.stones) - self.lag
                else:
                    budget = max(budget, settings.period / settings.stones - self.lag)
            budget = max(0.0, budget)
        if per_move_cap is not None:
            capped = max(0.0, per_move_cap - self.lag)
            budget = capped if budget is None else min(budget, capped)
        return budget
