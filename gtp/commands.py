"""The GTP 2 commands, KGS's extensions, and the registry that names every command.

Each handler takes the :class:`~gtp.state.EngineState` and the request and
returns the response text. Moves and genmove honour the colour given (moves
out of turn are fine); vertices are written in upper case, ``pass`` and
``resign`` in lower case, as GNU Go, Leela Zero and KataGo write them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace
from typing import BinaryIO

import numpy as np

from engine import (
    BLACK,
    WHITE,
    EngineError,
    Game,
    HandicapError,
    RulesError,
    dump_sgf,
    fixed_handicap,
    free_handicap,
    judged_outcome,
    load_sgf_file,
    to_diagram,
)
from gtp import analysis, gogui, kata, rawnn
from gtp.errors import describe_error
from gtp.protocol import (
    BAD_VERTEX_LIST,
    BOARD_NOT_EMPTY,
    CANNOT_LOAD,
    CANNOT_SCORE,
    CANNOT_UNDO,
    INVALID_STONES,
    SYNTAX_ERROR,
    UNACCEPTABLE_SIZE,
    GtpError,
    package_version,
)
from gtp.registry import Registry, Request
from gtp.session import Session
from gtp.state import EngineState, FrontEndConfig, parse_color, parse_float, parse_int, parse_vertex
from gtp.timecontrol import TimeSettings

__all__ = ["build_registry", "serve", "version_text"]

LIZZIE_MINIMUM_MINOR = 15
"""Lizzie reads the second number of ``version`` and warns below 15 (Leela Zero 0.15 added lz-analyze)."""


def version_text() -> str:
    """The package version, or, where Lizzie would reject it, the Leela Zero analysis level it speaks first.

    Lizzie splits the answer on spaces and dots and wants the second number to
    be at least 15, so ``0.1.0`` becomes ``0.17 (Leela Zero 0.17 analysis; engine 0.1.0)``.
    """
    version = package_version()
    parts = version.split(".")
    if len(parts) >= 2 and parts[1].isdigit() and int(parts[1]) >= LIZZIE_MINIMUM_MINOR:
        return version
    return f"0.17 (Leela Zero 0.17 analysis; engine {version})"


def _want(request: Request, low: int, high: int | None = None) -> tuple[str, ...]:
    """The arguments, if there are ``low`` to ``high`` (default exactly ``low``) of them."""
    count = len(request.args)
    if count < low or count > (low if high is None else high):
        raise GtpError(SYNTAX_ERROR)
    return request.args


# ------------------------------------------------------------------ setup
def boardsize(state: EngineState, request: Request) -> str:
    """``boardsize N`` (``boardsize N N`` as Lizzie writes it): a new, empty board."""
    args = _want(request, 1, 2)
    size = parse_int(args[0])
    if len(args) == 2 and parse_int(args[1]) != size:
        raise GtpError(UNACCEPTABLE_SIZE)
    try:
        rules = state.rules.resized(size)
        state.new_game(rules)
    except EngineError as exc:  # RulesError, or a model made for another size (ModelFormatError)
        raise GtpError(UNACCEPTABLE_SIZE) from exc
    return ""


def rectangular_boardsize(state: EngineState, request: Request) -> str:
    """KataGo's ``rectangular_boardsize X Y``: boards here are square, so ``unacceptable size`` unless X = Y."""
    _want(request, 2)
    return boardsize(state, request)


def clear_board(state: EngineState, request: Request) -> str:
    _want(request, 0)
    state.new_game()
    return ""


def komi(state: EngineState, request: Request) -> str:
    """``komi K``; the game so far is kept. Gomoku has no komi and ignores it."""
    value = parse_float(_want(request, 1)[0])
    if state.rules.game == "go":
        try:
            rules = replace(state.rules, komi=value)
        except RulesError as exc:
            raise GtpError(str(exc)) from exc
        state.with_rules(rules)
    return ""


def _board_is_empty(state: EngineState) -> bool:
    return not state.game.moves and not state.game.position.board().any()


def _place_handicap(state: EngineState, actions: list[int]) -> None:
    if state.rules.game != "go":
        raise GtpError("handicap stones are for go")
    if not _board_is_empty(state):
        raise GtpError(BOARD_NOT_EMPTY)
    game = Game(state.rules)
    game.place_handicap(actions)
    state.new_game(game=game)


def _stone_count(request: Request) -> int:
    return parse_int(_want(request, 1)[0])


def _engine_handicap(state: EngineState, request: Request, placement: Callable[[int, int], list[int]]) -> str:
    """Place the stones ``placement(count, size)`` chooses and name them."""
    try:
        actions = placement(_stone_count(request), state.rules.size)
    except HandicapError as exc:
        raise GtpError(INVALID_STONES) from exc
    _place_handicap(state, actions)
    return " ".join(state.vertex(a) for a in actions)


def fixed_handicap_(state: EngineState, request: Request) -> str:
    return _engine_handicap(state, request, fixed_handicap)


def place_free_handicap(state: EngineState, request: Request) -> str:
    return _engine_handicap(state, request, free_handicap)


def set_free_handicap(state: EngineState, request: Request) -> str:
    """The controller's handicap stones (Sabaki also sends setup stones this way)."""
    if not 2 <= len(request.args) < state.rules.num_points:
        raise GtpError(INVALID_STONES)
    try:
        actions = [parse_vertex(word, state.rules.size) for word in request.args]
    except GtpError as exc:
        raise GtpError(BAD_VERTEX_LIST) from exc
    if len(set(actions)) != len(actions) or state.rules.pass_action in actions:
        raise GtpError(BAD_VERTEX_LIST)
    _place_handicap(state, actions)
    return ""


def set_position(state: EngineState, request: Request) -> str:
    """KataGo's ``set_position COLOR VERTEX COLOR VERTEX ...``: a new game from those stones, with no move history
    (so no ko yet), black to play; none at all is ``clear_board``."""
    args = request.args
    if len(args) % 2:
        raise GtpError(f"{SYNTAX_ERROR}: set_position wants COLOR VERTEX pairs")
    stones: dict[int, list[int]] = {BLACK: [], WHITE: []}
    for color_text, vertex in zip(args[::2], args[1::2]):
        action = state.action(vertex)
        if action == state.rules.pass_action:
            raise GtpError(f"set_position: {vertex} is not a point")
        if any(action in chosen for chosen in stones.values()):
            raise GtpError(f"set_position: {vertex} is given twice")
        stones[parse_color(color_text)].append(action)
    game = Game(state.rules)
    game.setup(black=stones[BLACK], white=stones[WHITE])
    position = game.position
    if state.rules.game == "go" and ((position.board() != 0) & (position.liberties() == 0)).any():
        raise GtpError("set_position: a chain would have no liberties")
    state.new_game(game=game)
    return ""


def get_komi(state: EngineState, request: Request) -> str:
    """KataGo's ``get_komi``."""
    _want(request, 0)
    return f"{state.rules.komi:g}"


# ------------------------------------------------------------------ moves
def play(state: EngineState, request: Request) -> str:
    color_text, vertex = _want(request, 2)
    color = parse_color(color_text)
    state.play(state.action(vertex), color)
    return ""


def genmove(state: EngineState, request: Request) -> str:
    color = parse_color(_want(request, 1)[0])
    return state.move_text(state.generate(color, stop=request.interrupted))


def reg_genmove(state: EngineState, request: Request) -> str:
    color = parse_color(_want(request, 1)[0])
    return state.move_text(state.generate(color, stop=request.interrupted, play=False))


def genmove_cleanup(state: EngineState, request: Request) -> str:
    color = parse_color(_want(request, 1)[0])
    return state.move_text(state.generate(color, stop=request.interrupted, cleanup=True))


def undo(state: EngineState, request: Request) -> str:
    _want(request, 0)
    try:
        state.game.undo()
    except EngineError as exc:
        raise GtpError(CANNOT_UNDO) from exc
    return ""


# --------------------------------------------------------------- results
def showboard(state: EngineState, request: Request) -> str:
    _want(request, 0)
    game = state.game
    position = game.position
    lines = [to_diagram(position), f"{position.to_play.name.lower()} to play, {len(game.moves)} moves played"]
    if state.rules.game == "go":
        bonus = game.rules.komi - state.rules.komi
        lines.append(f"captured: {position.captures(BLACK)} black, {position.captures(WHITE)} white; "
                     f"komi {state.rules.komi:g}" + (f" (+{bonus:g} for white's handicap)" if bonus else ""))
    return "\n" + "\n".join(lines)


def final_score(state: EngineState, request: Request) -> str:
    """The result with the stones the ownership estimate calls dead removed (``B+3.5``, ``W+R``, ``0``)."""
    _want(request, 0)
    game = state.game
    if game.rules.game == "go":
        return judged_outcome(game, state.ownership()).to_sgf()
    outcome = game.outcome()
    if outcome is None:
        raise GtpError(CANNOT_SCORE)
    return outcome.to_sgf()


def final_status_list(state: EngineState, request: Request) -> str:
    """``alive``, ``dead`` or ``seki``: one chain per line (Gomoku: every stone alive)."""
    status = _want(request, 1)[0].lower()
    if status not in ("alive", "dead", "seki"):
        raise GtpError(SYNTAX_ERROR)
    if state.rules.game == "go":
        chains = getattr(state.stone_status(), status)
    else:
        stones = state.game.position.board().reshape(-1)
        chains = [[int(a)] for a in np.flatnonzero(stones)] if status == "alive" else []
    return "\n".join(" ".join(state.vertex(a) for a in chain) for chain in chains)


# ------------------------------------------------------------------ time
def time_settings(state: EngineState, request: Request) -> str:
    try:
        state.time.set(TimeSettings.from_gtp(*_want(request, 3)))
    except ValueError as exc:
        raise GtpError(SYNTAX_ERROR) from exc
    return ""


def kgs_time_settings(state: EngineState, request: Request) -> str:
    try:
        state.time.set(TimeSettings.from_kgs(request.args))
    except ValueError as exc:
        raise GtpError(SYNTAX_ERROR) from exc
    return ""


def time_left(state: EngineState, request: Request) -> str:
    color_text, seconds, stones = _want(request, 3)
    state.time.time_left(int(parse_color(color_text)), max(0.0, parse_float(seconds)), parse_int(stones, 0))
    return ""


def cputime(state: EngineState, request: Request) -> str:
    _want(request, 0)
    return f"{time.process_time():.3f}"


# ------------------------------------------------------------------ files
def loadsgf(state: EngineState, request: Request) -> str:
    """``loadsgf FILE [N]``: the position before move N (all moves without N); rules and komi from the file."""
    args = _want(request, 1, 1 << 16)
    number = None
    if len(args) >= 2 and args[-1].isascii() and args[-1].isdigit():
        number, args = parse_int(args[-1]), args[:-1]
    path = " ".join(args)
    try:
        game = load_sgf_file(path).replay(None if number is None else max(0, number - 1), play_on=True)
        state.new_game(game=game)
    except EngineError as exc:  # SGFError, or a model that does not fit the record (ModelFormatError)
        raise GtpError(CANNOT_LOAD) from exc
    return ""


def printsgf(state: EngineState, request: Request) -> str:
    """``printsgf``: the game as SGF; ``printsgf FILE`` writes it there instead."""
    args = _want(request, 0, 1 << 16)
    game = state.game   # its result counts White's handicap bonus; the file states the komi as given
    text = dump_sgf(state.stated_game(), result=game.outcome() if game.is_over else None)
    if not args:
        return text
    path = " ".join(args)
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text + ("" if text.endswith("\n") else "\n"))
    except OSError as exc:
        raise GtpError(f"cannot write {os.fspath(path)!r}: {exc.strerror or exc}") from exc
    return ""


# --------------------------------------------------------------- registry
def build_registry(game: str = "go") -> Registry:
    """Every command of the front end for ``game``, in the order ``list_commands`` gives them.

    The game is the session's for its whole life (``boardsize`` changes the size only), and
    what a program lists tells GoGui whether it plays Go or rules another game (see :mod:`gtp.gogui`).
    """
    registry = Registry()

    def known_command(state: EngineState, request: Request) -> str:
        return "true" if _want(request, 1)[0] in registry else "false"

    def list_commands(state: EngineState, request: Request) -> str:
        return "\n".join(registry.names())

    for name, handler in (("protocol_version", lambda state, request: "2"),
                          ("name", lambda state, request: state.config.name),
                          ("version", lambda state, request: state.config.version or version_text()),
                          ("known_command", known_command),
                          ("list_commands", list_commands),
                          ("quit", lambda state, request: ""),
                          ("time_settings", time_settings),
                          ("kgs-time_settings", kgs_time_settings),
                          ("time_left", time_left),
                          ("cputime", cputime),
                          ("gomill-cpu_time", cputime)):
        registry.add(name, handler, needs_engine=False)
    for name, handler in (("boardsize", boardsize), ("rectangular_boardsize", rectangular_boardsize),
                          ("clear_board", clear_board), ("komi", komi), ("get_komi", get_komi),
                          ("play", play), ("genmove", genmove), ("reg_genmove", reg_genmove),
                          ("kgs-genmove_cleanup", genmove_cleanup), ("undo", undo), ("showboard", showboard),
                          ("final_score", final_score), ("final_status_list", final_status_list),
                          ("fixed_handicap", fixed_handicap_), ("place_free_handicap", place_free_handicap),
                          ("set_free_handicap", set_free_handicap), ("set_position", set_position),
                          ("loadsgf", loadsgf), ("printsgf", printsgf)):
        registry.add(name, handler)
    analysis.register(registry)
    kata.register(registry)
    rawnn.register(registry)
    gogui.register(registry, game)
    return registry


def serve(config: FrontEndConfig, stdin: BinaryIO, stdout: BinaryIO, background: bool = True) -> None:
    """Run a GTP session over binary streams until ``quit`` or the end of the input.

    The engine warms up in the background (``background``) while the session
    already answers the protocol commands.
    """
    state = EngineState(config)
    state.start(background)
    Session(build_registry(config.game), state, stdin, stdout, describe_error, ponder=state.enabled_ponder_job).run()
