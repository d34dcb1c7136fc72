"""``engine bench soak``: hours of play without a restart, as a GUI session or a tournament gives them.

``games``: two ``engine gtp`` processes, one a side for the whole run, play one game after another through the
match system (every move refereed by the rules core, colours alternating, random opening moves so that the games
differ); ``analyze``: one ``engine gtp --ponder`` analyses with ``kata-analyze`` as Lizzie and Sabaki do, a move
played every period (the top move), pondering between, a new game every ``game_moves`` moves. Both report each
process's resident memory after the first game (analyze: once settled) and at the end, the speed at the start
and at the end (moves a second; visits a second), and every error: what grows over a long session shows here.
"""

from __future__ import annotations

import os
import re
import shlex
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.gtp_pipe import GtpPipe, resident_bytes
from bench.timing import BenchError, engine_process

__all__ = ["soak_games", "soak_analyze"]

_EDGE_GAMES = 10
"""Games (or periods) whose speed is the run's speed at its start (after the first) and at its end."""

_SETTLE_SECONDS = 60.0
"""analyze: memory is first read after the first period that ends this long into the session (the front end
moves from its start-up network to torch's within it), or at the last period of a shorter one."""


def _children() -> list[int]:
    """The pids of this process's children (the match's engines)."""
    me = str(os.getpid())
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            pids.append(int(stat.parent.name))
    return sorted(pids)


def _memory(pids: list[int]) -> list[int]:
    return [resident_bytes(pid) for pid in pids]


def _edges(count: int) -> tuple[int, int]:
    """Where the start's window of :data:`_EDGE_GAMES` games (periods) begins among ``count`` (after the first,
    which warms up, where there are enough), and the windows' length."""
    edge = min(_EDGE_GAMES, max(1, (count - 1) // 2))
    return (1 if count > edge else 0), edge


def _growth(first: list[int], last: list[int]) -> float:
    """The largest relative growth of one process's resident memory."""
    return max(after / before - 1 for before, after in zip(first, last, strict=True))


def soak_games(games: int, size: int, visits: int, random_moves: int, gtp_args: list[str],
               progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """``games`` consecutive games between two ``engine gtp --visits VISITS GTP_ARGS`` processes on a
    ``size`` board: memory after the first game and at the end, moves a second over the first and the last
    games, errors (a match stops at its first: an illegal move, a refused command, a hang or a death).
    Memory is read after every game: its growth over the run's second half, once the evaluation caches (bounded,
    filled over the first games) are full, is what a longer session would keep adding."""
    from engine import EngineError, Rules
    from training.match import contestant, play_match
    from training.match_config import MatchConfig

    command, _ = engine_process("gtp", "--size", str(size), "--visits", str(visits), *gtp_args)
    spec = shlex.join(command)
    rules = replace(Rules.parse("chinese", size=size), komi=7.0)
    config = MatchConfig(games=games, random_moves=random_moves, scorer="board")
    marks: list[tuple[float, int]] = [(time.perf_counter(), 0)]
    memory: dict[str, Any] = {}

    def on_game(result: Any) -> None:
        marks.append((time.perf_counter(), result.moves))
        if result.games == 1:
            memory["pids"] = _children()
        memory.setdefault("by_game", []).append(_memory(memory["pids"]))
        if progress is not None:
            progress(result.games)

    errors: list[str] = []
    try:
        play_match(contestant(spec, "A", rules, config), contestant(spec, "B", rules, config), rules, config,
                   on_game=on_game)
    except (EngineError, ValueError) as error:
        errors.append(str(error))
    if len(marks) < 2:
        raise BenchError(f"no game finished: {errors[0] if errors else 'no error'}")

    def rate(first: int, last: int) -> float:
        (start, moves_before), (end, moves_after) = marks[first], marks[last]
        return (moves_after - moves_before) / (end - start)

    played = len(marks) - 1
    start_from, edge = _edges(played)
    by_game = memory["by_game"]
    return {"games": played, "moves": marks[-1][1], "seconds": marks[-1][0] - marks[0][0],
            "rss_first_mb": [b / 2**20 for b in by_game[0]], "rss_last_mb": [b / 2**20 for b in by_game[-1]],
            "rss_growth": _growth(by_game[0], by_game[-1]),
            "rss_growth_second_half": _growth(by_game[len(by_game) // 2], by_game[-1]),
            "rss_mb_by_game": [[round(b / 2**20, 1) for b in row] for row in by_game],
            "moves_per_s_start": rate(start_from, start_from + edge), "moves_per_s_end": rate(played - edge, played),
            "errors": errors}


_ROOT_VISITS = re.compile(r"rootInfo visits (\d+)")
_ROOT_VALUES = re.compile(r"rootInfo .*winrate (\S+) .*scoreLead (\S+)")
_FIRST_MOVE = re.compile(r"^info move (\S+)")
_SILENCE_SECONDS = 3.0
"""analyze: seconds without an analysis line (lines come every 0.2 s) after which a period's search has stopped."""


def _analyse(engine: GtpPipe, color: str, seconds: float, then: str) -> tuple[str, float, list[str], bool, str]:
    """``kata-analyze`` for ``seconds``, stopped by the command ``then`` (which is answered): the top move, the
    root's visits a second, the lines that were neither analysis nor answers (errors), whether the search
    stopped before the period ended (its tree full: the analysis then writes nothing more), and the root's
    win rate and score lead as the last line gave them ("" without one)."""
    engine.send(f"kata-analyze {color} 20 rootInfo true")
    header = engine.line()
    if header != "=":
        return "", 0.0, [f"kata-analyze answered {header!r}"], False
    started = time.perf_counter()
    samples: list[tuple[float, int]] = []
    top, odd, stopped, values = "", [], False, ""
    while (left := seconds - (time.perf_counter() - started)) > 0:
        line = engine.line() if not samples else engine.line_within(left)
        if line is None:   # the period is over; silent since its last line: the search has stopped (a full tree)
            stopped = time.perf_counter() - samples[-1][0] > _SILENCE_SECONDS
            break
        visits, move = _ROOT_VISITS.search(line), _FIRST_MOVE.match(line)
        if visits is None or move is None:
            odd.append(line)
            continue
        samples.append((time.perf_counter(), int(visits.group(1))))
        top = move.group(1)
        if (root := _ROOT_VALUES.search(line)) is not None:
            values = " ".join(root.groups())
    then = then.format(top=top) if top else "clear_board"
    engine.send(then)
    while (line := engine.line()) != "":   # the analysis' last lines, then the blank line that ends it
        if not _FIRST_MOVE.match(line):
            odd.append(line)
    engine.answer(then)
    if len(samples) < 2:
        errors = odd if stopped else [*odd, f"kata-analyze gave {len(samples)} lines in {seconds:g} s"]
        return top, 0.0, errors, stopped, values
    (t0, v0), (t1, v1) = samples[0], samples[-1]
    return top, (v1 - v0) / (t1 - t0) if t1 > t0 else 0.0, odd, stopped, values


def soak_analyze(seconds: float, period: float, size: int, game_moves: int, gtp_args: list[str],
                 progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """``seconds`` of ``kata-analyze`` on one ``engine gtp --ponder GTP_ARGS`` process: each ``period`` seconds of
    analysis the top move is played and the other side analysed; after ``game_moves`` moves a new game begins.
    Memory once settled (:data:`_SETTLE_SECONDS`), after every period and at the end; the root's visits a second
    in every period, over the first periods once settled (torch's network, not the start-up one) and over the
    last; the periods whose search stopped early (a full tree); errors; what each period played and the root's
    win rate and score lead at its end (``played_by_period``: "play b D4 | 0.52 1.3"), so a game can be
    replayed to the period where something changed. The tree
    fills to its bound and is pruned, and a new game empties it, so memory swings from period to period: its
    growth over the session is the median of the second half's periods against the first half's."""
    engine = GtpPipe(["--size", str(size), "--ponder", *gtp_args])
    try:
        engine.ask(f"boardsize {size}")
        colors, moves, rates, errors, memory, stalled, periods = ("b", "w"), 0, [], [], [], 0, []
        first_memory: int | None = None
        settled_at = 0   # the first period after start-up: where the speed at the start is read
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            color = colors[moves % 2]
            # The top move is played (stopping the analysis) unless it is a pass or the game is long enough.
            then = "play " + color + " {top}" if moves + 1 < game_moves else "clear_board"
            top, rate, odd, stopped, values = _analyse(engine, color, period, then)
            played = then.format(top=top) if top and then != "clear_board" else "clear_board"
            periods.append(f"{played} | {values}")
            rates.append(rate)
            stalled += stopped
            errors.extend(odd)
            memory.append(resident_bytes(engine.pid))
            if first_memory is None and time.perf_counter() - started >= min(_SETTLE_SECONDS, seconds - period):
                first_memory, settled_at = memory[-1], len(rates)
            moves = moves + 1 if then != "clear_board" and top and top.lower() != "pass" else 0
            if top.lower() == "pass":
                engine.ask("clear_board")
            if progress is not None:
                progress(time.perf_counter() - started)
        last_memory = resident_bytes(engine.pid)
    finally:
        engine.close()
    first_memory = first_memory or last_memory
    start_from, edge = _edges(len(rates))
    start_from = min(max(start_from, settled_at), max(len(rates) - edge, 0))
    return {"seconds": time.perf_counter() - started, "periods": len(rates),
            "rss_first_mb": first_memory / 2**20, "rss_last_mb": last_memory / 2**20,
            "rss_growth": last_memory / first_memory - 1, "rss_mb_by_period": [b / 2**20 for b in memory],
            "visits_per_s_start": statistics.median(rates[start_from:start_from + edge]),
            "visits_per_s_end": statistics.median(rates[-edge:]), "visits_per_s_by_period": rates,
            "speed_start_period": start_from,
            "stalled_periods": stalled, "errors": errors, "played_by_period": periods,
            "rss_growth_second_half": statistics.median(memory[len(memory) // 2:])
            / statistics.median(memory[:max(len(memory) // 2, 1)]) - 1}
