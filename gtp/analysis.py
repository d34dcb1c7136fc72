"""Live analysis for GUIs: ``lz-analyze``, ``kata-analyze``, ``analyze`` and their genmove variants.

Arguments, as KataGo reads them (its docs/GTP_Extensions.md)::

    lz-analyze [COLOR] [INTERVAL] KEY VALUE ...      (Leela Zero's format; Lizzie)
    analyze [COLOR] [INTERVAL] KEY VALUE ...         (Sabaki; the lz-analyze format)
    kata-analyze [COLOR] [INTERVAL] KEY VALUE ...    (KataGo's format)
    lz-genmove_analyze / genmove_analyze / kata-genmove_analyze [COLOR] [INTERVAL] KEY VALUE ...

Keys of every command: ``interval CS``, ``minmoves N``, ``maxmoves N``, and
(analysis only) ``avoid COLOR V1,V2,... DEPTH`` (any number) or ``allow COLOR
V1,V2,... DEPTH`` (one per colour, not with ``avoid``). Keys of the ``kata-``
commands, each ``true`` or ``false``: ``ownership``, ``ownershipStdev``,
``movesOwnership``, ``movesOwnershipStdev``, ``pvVisits``, ``pvEdgeVisits``,
``rootInfo``. Anything else is a syntax error, as in KataGo.

``INTERVAL`` is in centiseconds; without one no line is written until the
search ends by itself. The colour defaults to the side to move. Every update
is one line holding every candidate, most visited first::

    info move D4 visits 120 winrate 5312 scoreMean 2.4 scoreStdev 11.3 scoreLead 2.4 prior 1805 lcb 5100 order 0
    pv D4 Q16 info move Q16 ...

``lz-analyze`` and ``analyze`` write winrate, prior and lcb as integers times
10000; ``kata-analyze`` writes ``utility`` (the mean value in [-1, 1]),
``winrate``, ``prior`` and ``lcb`` as floats. With a network that has a score
head every format carries ``scoreMean``, ``scoreStdev`` and ``scoreLead`` after
``winrate`` (the move's subtree's mean score and spread, in points; KataGo's
order), which Sabaki's score graph reads from ``analyze``. After ``pv`` a
kata line has ``pvVisits`` (the visits of the node each move of the line
reaches), ``pvEdgeVisits`` (the same numbers: the tree is a tree, so each node
has one edge into it), ``movesOwnership`` and ``movesOwnershipStdev`` (the
move's subtree's mean ownership and its spread). After the candidates come
``rootInfo`` (the root's visits, utility, winrate and scores), ``ownership``
(every point, A19 first, row by row: the tree-averaged network ownership, or
the Monte-Carlo estimate for a network without that head) and
``ownershipStdev``. Values are from the analysed player's point of view.
``lcb`` is the lower confidence bound that chooses the move (KataGo's: the
value less ``--lcb-stdevs`` spreads of its backed-up values over the square root
of its visits, as a winrate in [0, 1]), so that order 0 has the highest bound of
the moves it was chosen among; with the bound off, the winrate less 1.96
binomial standard errors. The analysis stops when the next line arrives; the genmove variants
end with ``play VERTEX`` once the move is chosen (and played).

``avoid`` keeps its moves of its colour out of the search for the first
``DEPTH`` plies from the root (1: the root's moves alone, when that colour is
to move there); ``allow`` keeps every other move out. The search then grows a
tree of its own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from engine import Color, Player, Search, SearchResult, action_to_gtp, is_number
from gtp.protocol import SYNTAX_ERROR, GtpError
from gtp.registry import Registry, Request, Stream
from gtp.state import OPEN_ENDED_VISITS, EngineState, parse_color, parse_vertex

__all__ = ["AnalyzeRequest", "MoveStats", "parse_analyze", "candidates", "move_stats", "format_info", "register",
           "ANALYSIS_VISITS", "KATA_FLAGS"]

ANALYSIS_VISITS = OPEN_ENDED_VISITS
"""Visit limit of an open-ended analysis: it runs until stopped or the tree is full."""

_COLORS = ("b", "w", "black", "white")
MAX_INTERVAL_CS = 1e9
"""Longest interval between lines, in centiseconds (KataGo's bound on a time a user gives)."""
MAX_MOVES = 10 ** 9

KATA_FLAGS = {"ownership": "ownership", "ownershipStdev": "ownership_stdev", "movesOwnership": "moves_ownership",
              "movesOwnershipStdev": "moves_ownership_stdev", "pvVisits": "pv_visits",
              "pvEdgeVisits": "pv_edge_visits", "rootInfo": "root_info"}
"""The ``true``/``false`` keys of the kata commands and the :class:`AnalyzeRequest` field each sets."""


@dataclass(frozen=True)
class AnalyzeRequest:
    """Parsed analysis arguments: colour, seconds between lines (0: none), move counts (``maxmoves`` None: all),
    what the kata format reports (see :data:`KATA_FLAGS`), and the moves ``avoid`` / ``allow`` keep out of the
    search (``kept_out``: see :meth:`engine.Search.shape_root`; None: none)."""

    color: Color
    interval: float = 0.0
    minmoves: int = 0
    maxmoves: int | None = None
    ownership: bool = False
    ownership_stdev: bool = False
    moves_ownership: bool = False
    moves_ownership_stdev: bool = False
    pv_visits: bool = False
    pv_edge_visits: bool = False
    root_info: bool = False
    kept_out: np.ndarray | None = None


def _fail(detail: str) -> GtpError:
    return GtpError(f"{SYNTAX_ERROR}: {detail}")


def _count(key: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _fail(f"{key} wants a whole number, not {text!r}") from None
    if not 0 <= value < MAX_MOVES:
        raise _fail(f"{key} wants a whole number from 0, not {text!r}")
    return value


def _interval(text: str) -> float | None:
    """Seconds for an interval of ``text`` centiseconds, None if it is not one."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value / 100 if math.isfinite(value) and 0 <= value < MAX_INTERVAL_CS else None


class _Restrictions:
    """``avoid`` and ``allow`` as KataGo reads them: any number of ``avoid`` per colour, or one ``allow``; ``until``
    (``int64[3, N*N+1]``, rows by colour) is the plies from the root within which each move is kept out."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.until = np.zeros((3, size * size + 1), dtype=np.int64)
        self.kinds: dict[Color, str] = {}

    def add(self, key: str, color_text: str, moves_text: str, depth_text: str) -> None:
        try:
            color = Color.parse(color_text)
            depth = int(depth_text)
        except ValueError:
            raise _fail(f"{key} wants COLOR VERTEX,VERTEX,... DEPTH") from None
        if not 1 <= depth < MAX_MOVES:
            raise _fail(f"{key} wants a depth from 1, not {depth_text!r}")
        try:
            actions = [parse_vertex(word.strip(), self.size) for word in moves_text.split(",") if word.strip()]
        except GtpError:
            raise _fail(f"{key}: bad vertex in {moves_text!r}") from None
        if key == "allow" and color in self.kinds or key == "avoid" and self.kinds.get(color) == "allow":
            raise _fail(f"one allow per colour, and never with avoid ({color.name.lower()})")
        row = self.until[int(color)]
        if key == "allow":
            row[:] = depth
            row[actions] = 0
        else:
            row[actions] = depth
        self.kinds[color] = key


def parse_analyze(args: tuple[str, ...], to_play: Color, kata: bool, size: int) -> AnalyzeRequest:
    """The analysis arguments on a ``size`` x ``size`` board (``syntax error: ...`` for anything else)."""
    words = list(args)
    color = to_play
    if words and words[0].lower() in _COLORS:
        color = parse_color(words.pop(0))
    interval = 0.0
    if words and (seconds := _interval(words[0])) is not None:
        interval = seconds
        words.pop(0)
    options: dict[str, object] = {}
    restrictions = _Restrictions(size)
    while words:
        key = words.pop(0)
        if _interval(key) is None and is_number(key):
            raise _fail(f"an interval is centiseconds from 0, not {key!r}")
        if not words:
            raise _fail(f"{key} wants a value")
        value = words.pop(0)
        if key == "interval":
            seconds = _interval(value)
            if seconds is None:
                raise _fail(f"interval wants centiseconds, not {value!r}")
            interval = seconds
        elif key in ("minmoves", "maxmoves"):
            options[key] = _count(key, value)
        elif key in ("avoid", "allow"):
            if len(words) < 2:
                raise _fail(f"{key} wants COLOR VERTEX,VERTEX,... DEPTH")
            restrictions.add(key, value, words.pop(0), words.pop(0))
        elif key in KATA_FLAGS and kata:
            if value.lower() not in ("true", "false"):
                raise _fail(f"{key} wants true or false, not {value!r}")
            options[KATA_FLAGS[key]] = value.lower() == "true"
        elif key in KATA_FLAGS:
            raise _fail(f"{key} is a key of kata-analyze")
        else:
            raise _fail(f"unknown key {key!r}")
    kept_out = restrictions.until if restrictions.kinds else None
    return AnalyzeRequest(color, interval, kept_out=kept_out, **options)  # type: ignore[arg-type]


def candidates(result: SearchResult, minmoves: int = 0, maxmoves: int | None = None) -> list[int]:
    """The move the search would play first (:attr:`SearchResult.best_action`: the solver's, the lower
    confidence bound's or the most visited, as KataGo's order 0 is its move), then the other visited moves by
    visits (ties by prior), then unvisited ones by prior until ``minmoves``; the first ``maxmoves`` of them
    (None: all)."""
    visited = np.flatnonzero(result.visits > 0)
    best = result.best_action
    order = sorted(visited.tolist(), key=lambda a: (a != best, -result.visits[a], -result.priors[a], a))
    if len(order) < minmoves:
        rest = np.flatnonzero((result.visits <= 0) & (result.priors > 0))
        order += sorted(rest.tolist(), key=lambda a: (-result.priors[a], a))[:minmoves - len(order)]
    return order if maxmoves is None else order[:maxmoves]


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
    if result.move_lcbs is not None and visited:
        lcb = min(1.0, max(0.0, (float(result.move_lcbs[action]) + 1) / 2))
    else:
        lcb = _lcb(winrate, visits)
    return MoveStats(int(visits), q, winrate, float(result.priors[action]), lcb, mean, stdev)


def _scores(mean: float | None, stdev: float | None) -> str:
    """``scoreMean M scoreStdev S scoreLead M `` (KataGo's lead is the mean score here), or nothing without a
    score head."""
    if mean is None or stdev is None:
        return ""
    return f"scoreMean {mean:.6f} scoreStdev {stdev:.6f} scoreLead {mean:.6f} "


def _points(name: str, values: np.ndarray | None) -> str:
    """`` NAME v1 v2 ...`` for a value per point, or nothing for None."""
    return "" if values is None else f" {name} " + " ".join(f"{x:.4f}" for x in values)


def format_info(result: SearchResult, search: Search, request: AnalyzeRequest, kata: bool,
                ownership: np.ndarray | None = None) -> str:
    """One update line: ``info move ... pv ...`` for every candidate, then what ``request`` asks for
    (see the module docstring), from ``search``'s tree; ``ownership`` replaces the tree's where given (the
    Monte-Carlo estimate for a network without that head). Empty when there is no candidate."""
    size = search.rules.size
    parts = []
    for order, action in enumerate(candidates(result, request.minmoves, request.maxmoves)):
        stats = move_stats(result, action)
        line = search.child_pv(action)
        pv = " ".join(action_to_gtp(a, size) for a in line)
        move = action_to_gtp(action, size)
        scores = _scores(stats.score_mean, stats.score_stdev)
        if not kata:
            parts.append(f"info move {move} visits {stats.visits} winrate {round(stats.winrate * 10000)} {scores}"
                         f"prior {round(stats.prior * 10000)} lcb {round(stats.lcb * 10000)} order {order} pv {pv}")
            continue
        text = (f"info move {move} visits {stats.visits} utility {stats.utility:.6f} winrate {stats.winrate:.6f} "
                f"{scores}prior {stats.prior:.6f} lcb {stats.lcb:.6f} order {order} pv {pv}")
        visits = " ".join(str(v) for v in search.line_visits(line))
        text += f" pvVisits {visits}" if request.pv_visits else ""
        text += f" pvEdgeVisits {visits}" if request.pv_edge_visits else ""
        if request.moves_ownership:
            text += _points("movesOwnership", search.ownership(action))
        if request.moves_ownership_stdev:
            text += _points("movesOwnershipStdev", search.ownership_stdev(action))
        parts.append(text)
    if not parts:
        return ""
    if request.root_info:
        winrate = min(1.0, max(0.0, (result.value + 1) / 2))
        parts.append(f"rootInfo visits {search.root_visits} utility {result.value:.6f} winrate {winrate:.6f} "
                     + _scores(result.score_mean, result.score_stdev).rstrip())
    text = " ".join(part.rstrip() for part in parts)
    if request.ownership:
        text += _points("ownership", ownership if ownership is not None else result.ownership)
    if request.ownership_stdev:
        text += _points("ownershipStdev", search.ownership_stdev())
    return text


class _Reporter:
    """Writes an info line at most every ``interval`` seconds from the search's progress callback."""

    def __init__(self, state: EngineState, request: AnalyzeRequest, kata: bool,
                 emit: Callable[[str], None]) -> None:
        self.request, self.kata, self.emit = request, kata, emit
        self.estimate = None  # the Monte-Carlo ownership, from the analysed player's view, for a network without
        if request.ownership and state.rules.game == "go" and not state.network_ownership:
            sign = 1.0 if request.color == Color.BLACK else -1.0
            self.estimate = sign * state.ownership()
        self.last = time.monotonic()

    def progress(self, search: Search) -> None:
        now = time.monotonic()
        if self.request.interval > 0 and now - self.last >= self.request.interval:
            self.last = now
            self.write(search.result(), search)

    def write(self, result: SearchResult, search: Search) -> None:
        line = format_info(result, search, self.request, self.kata, self.estimate)
        if line:
            self.emit(line)


def _analyze(kata: bool) -> Callable[[EngineState, Request], Stream]:
    def handler(state: EngineState, request: Request) -> Stream:
        spec = parse_analyze(request.args, state.game.to_play, kata, state.rules.size)

        def run(stop: Callable[[], bool], emit: Callable[[str], None]) -> None:
            reporter = _Reporter(state, spec, kata, emit)
            result, search = state.analysis(spec.color, visits=ANALYSIS_VISITS, stop=stop,
                                            progress=reporter.progress, kept_out=spec.kept_out)
            if spec.interval > 0 and not stop():
                reporter.write(result, search)  # the tree is full or the game over: the last word
            return None

        return Stream(run, until_next_line=True)

    return handler


def _genmove_analyze(kata: bool) -> Callable[[EngineState, Request], Stream]:
    def handler(state: EngineState, request: Request) -> Stream:
        spec = parse_analyze(request.args, state.game.to_play, kata, state.rules.size)
        if spec.kept_out is not None:
            raise GtpError("avoid and allow restrict analysis, not the move a genmove plays")
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
