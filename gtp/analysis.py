"""Live analysis for GUIs: ``lz-analyze``, ``kata-analyze``, ``analyze`` and their genmove variants.

Arguments, as Leela Zero, KataGo, Lizzie and Sabaki write them::

    lz-analyze [COLOR] [INTERVAL] [interval CS] [minmoves N] [maxmoves N]
    kata-analyze [COLOR] [INTERVAL] [... as above] [ownership true|false]
    analyze COLOR INTERVAL                      (Sabaki; the lz-analyze format)
    lz-genmove_analyze / kata-genmove_analyze / genmove_analyze [COLOR] [INTERVAL] [...]

``INTERVAL`` is in centiseconds; without one no line is written until the
search ends by itself. The colour defaults to the side to move. Every update
is one line holding every candidate, most visited first::

    info move D4 visits 120 winrate 5312 prior 1805 lcb 5100 order 0 pv D4 Q16 info move ...

``lz-analyze`` and ``analyze`` write winrate, prior and lcb as integers times
10000; ``kata-analyze`` writes ``utility`` (the mean value in [-1, 1]),
``winrate``, ``prior`` and ``lcb`` as floats, with a network that has a score
head ``scoreMean``, ``scoreStdev`` and ``scoreLead`` after ``winrate`` (the
move's subtree's mean score and spread, in points; KataGo's order), and after
``ownership true`` the ownership of every point (A19 first, row by row): the
tree-averaged network ownership, or the Monte-Carlo estimate for a network
without that head. Values are from the analysed player's point of view.
``lcb`` is the winrate minus 1.96 binomial standard errors over the move's
visits. The analysis stops when the next line arrives; the genmove variants
end with ``play VERTEX`` once the move is chosen (and played).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine import Color, Player, Search, SearchResult, action_to_gtp
from gtp.protocol import SYNTAX_ERROR, GtpError
from gtp.registry import Registry, Request, Stream
from gtp.state import OPEN_ENDED_VISITS, EngineState, parse_color, parse_int

__all__ = ["AnalyzeRequest", "MoveStats", "parse_analyze", "candidates", "move_stats", "format_info", "register",
           "ANALYSIS_VISITS"]

ANALYSIS_VISITS = OPEN_ENDED_VISITS
"""Visit limit of an open-ended analysis: it runs until stopped or the tree is full."""

_COLORS = ("b", "w", "black", "white")


@dataclass(frozen=True)
class AnalyzeRequest:
    """Parsed analysis arguments: colour, seconds between lines (0: none), move counts, ownership."""

    color: Color
    interval: float = 0.0
    minmoves: int = 0
    maxmoves: int = 0
    ownership: bool = False


def parse_analyze(args: tuple[str, ...], to_play: Color, kata: bool) -> AnalyzeRequest:
    """The analysis arguments (``syntax error`` for anything else; ``avoid`` / ``allow`` are refused)."""
    words = list(args)
    color = to_play
    if words and words[0].lower() in _COLORS:
        color = parse_color(words.pop(0))
    interval = 0.0
    if words and words[0].isascii() and words[0].isdigit():
        interval = parse_int(words.pop(0)) / 100
    options: dict[str, object] = {}
    while words:
        key = words.pop(0)
        if not words:
            raise GtpError(SYNTAX_ERROR)
        value = words.pop(0)
        if key == "interval":
            interval = parse_int(value, 0) / 100
        elif key in ("minmoves", "maxmoves"):
            options[key] = parse_int(value, 0)
        elif key == "ownership" and kata and value.lower() in ("true", "false"):
            options["ownership"] = value.lower() == "true"
        elif key in ("avoid", "allow"):
            raise GtpError(f"{key} is not supported")
        else:
            raise GtpError(SYNTAX_ERROR)
    return AnalyzeRequest(color, interval, **options)  # type: ignore[arg-type]


def candidates(result: SearchResult, minmoves: int = 0, maxmoves: int = 0) -> list[int]:
    """Visited moves by visits (ties by prior), then unvisited ones by prior until ``minmoves``."""
    visited = np.flatnonzero(result.visits > 0)
    order = sorted(visited.tolist(), key=lambda a: (-result.visits[a], -result.priors[a], a))
    if len(order) < minmoves:
        rest = np.flatnonzero((result.visits <= 0) & (result.priors > 0))
        order += sorted(rest.tolist(), key=lambda a: (-result.priors[a], a))[:minmoves - len(order)]
    return order[:maxmoves] if maxmoves > 0 else order


def _lcb(winrate: float, visits: float) -> float:
    if visits <= 0:
        return 0.0
    return max(0.0, winrate - 1.96 * math.sqrt(max(winrate * (1 - winrate), 1e-4) / visits))


@dataclass(frozen=True)
class MoveStats:
    """A candidate's numbers as the analysis formats report them, from the side to move: ``utility`` (the
    mean value in [-1, 1]), ``winrate`` and its ``lcb`` in [0, 1], the ``prior``, and with a score head
    the mean score and its spread in points (None without one). An unvisited move gets the root's value
    and scores."""

    visits: int
    utility: float
    winrate: float
    prior: float
    lcb: float
    score_mean: float | None
    score_stdev: float | None


def move_stats(result: SearchResult, action: int) -> MoveStats:
    """The numbers of one root action of ``result`` (see :class:`MoveStats`)."""
    visits = float(result.visits[action])
    visited = visits > 0
    q = float(result.q[action]) if visited else float(result.value)
    winrate = min(1.0, max(0.0, (q + 1) / 2))
    mean = stdev = None
    if result.move_scores is not None and result.move_score_stdevs is not None:
        mean = float(result.move_scores[action]) if visited else result.score_mean
        stdev = float(result.move_score_stdevs[action]) if visited else result.score_stdev
    return MoveStats(int(visits), q, winrate, float(result.priors[action]), _lcb(winrate, visits), mean, stdev)


def _scores(stats: MoveStats) -> str:
    """``scoreMean M scoreStdev S scoreLead M `` for a move, or nothing without a score head."""
    if stats.score_mean is None:
        return ""
    return f"scoreMean {stats.score_mean:.6f} scoreStdev {stats.score_stdev:.6f} scoreLead {stats.score_mean:.6f} "


def format_info(result: SearchResult, size: int, request: AnalyzeRequest, kata: bool,
                pv_of: Callable[[int], list[int]] | None = None, ownership: np.ndarray | None = None) -> str:
    """One update line: ``info move ... pv ...`` for every candidate (and ``ownership ...`` if given).

    ``pv_of(action)`` gives the line after a candidate (default: the
    result's principal variation for the best move, the move alone otherwise).
    ``kata`` lines carry the scores when the result has them (an unvisited move gets the root's).
    """
    parts = []
    for order, action in enumerate(candidates(result, request.minmoves, request.maxmoves)):
        stats = move_stats(result, action)
        if pv_of is not None:
            line = pv_of(action)
        else:
            line = result.pv if result.pv and result.pv[0] == action else [action]
        pv = " ".join(action_to_gtp(a, size) for a in line)
        move = action_to_gtp(action, size)
        if kata:
            parts.append(f"info move {move} visits {stats.visits} utility {stats.utility:.6f} "
                         f"winrate {stats.winrate:.6f} {_scores(stats)}prior {stats.prior:.6f} lcb {stats.lcb:.6f} "
                         f"order {order} pv {pv}")
        else:
            parts.append(f"info move {move} visits {stats.visits} winrate {round(stats.winrate * 10000)} "
                         f"prior {round(stats.prior * 10000)} lcb {round(stats.lcb * 10000)} order {order} pv {pv}")
    if ownership is not None and parts:
        parts.append("ownership " + " ".join(f"{x:.4f}" for x in ownership))
    return " ".join(parts)


class _Reporter:
    """Writes an info line at most every ``interval`` seconds from the search's progress callback."""

    def __init__(self, state: EngineState, request: AnalyzeRequest, kata: bool,
                 emit: Callable[[str], None]) -> None:
        self.state, self.request, self.kata, self.emit = state, request, kata, emit
        self.estimate = None  # the Monte-Carlo ownership, from the analysed player's view, for a network without
        if request.ownership and state.rules.game == "go" and not state.network_ownership:
            sign = 1.0 if request.color == Color.BLACK else -1.0
            self.estimate = sign * state.ownership()
        self.last = time.monotonic()
        self.search: Search | None = None

    def progress(self, search: Search) -> None:
        self.search = search
        now = time.monotonic()
        if self.request.interval > 0 and now - self.last >= self.request.interval:
            self.last = now
            self.write(search.result())

    def write(self, result: SearchResult) -> None:
        pv_of = self.search.child_pv if self.search is not None else None
        ownership = self.estimate
        if ownership is None and self.request.ownership:
            ownership = result.ownership  # tree-averaged (None in Gomoku)
        line = format_info(result, self.state.rules.size, self.request, self.kata, pv_of, ownership)
        if line:
            self.emit(line)


def _analyze(kata: bool) -> Callable[[EngineState, Request], Stream]:
    def handler(state: EngineState, request: Request) -> Stream:
        spec = parse_analyze(request.args, state.game.to_play, kata)

        def run(stop: Callable[[], bool], emit: Callable[[str], None]) -> None:
            reporter = _Reporter(state, spec, kata, emit)
            result = state.analyse(spec.color, visits=ANALYSIS_VISITS, stop=stop, progress=reporter.progress)
            if spec.interval > 0 and not stop():
                reporter.write(result)  # the tree is full or the game over: the last word
            return None

        return Stream(run, until_next_line=True)

    return handler


def _genmove_analyze(kata: bool) -> Callable[[EngineState, Request], Stream]:
    def handler(state: EngineState, request: Request) -> Stream:
        spec = parse_analyze(request.args, state.game.to_play, kata)
        Player.concedes(state.game, spec.color)  # fails now, before the stream starts, if there is no move to make

        def run(stop: Callable[[], bool], emit: Callable[[str], None]) -> str:
            reporter = _Reporter(state, spec, kata, emit)
            return "play " + state.move_text(state.generate(spec.color, stop=stop, progress=reporter.progress))

        return Stream(run, until_next_line=False)

    return handler


def register(registry: Registry) -> None:
    """Add the analysis commands."""
    registry.add("lz-analyze", _analyze(kata=False))
    registry.add("kata-analyze", _analyze(kata=True))
    registry.add("analyze", _analyze(kata=False))
    registry.add("lz-genmove_analyze", _genmove_analyze(kata=False))
    registry.add("kata-genmove_analyze", _genmove_analyze(kata=True))
    registry.add("genmove_analyze", _genmove_analyze(kata=False))
