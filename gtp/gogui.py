"""GoGui's extensions: analyze commands for its board display, interrupts, and the ruler commands.

``gogui-analyze_commands`` lists ``type/label/command`` lines that GoGui puts
in its analyze menu:

==========================  ======  ===============================================
command                     type    shows
==========================  ======  ===============================================
gogui-policy_heatmap        gfx     the prior of every move (shade) and the best in %
gogui-visit_heatmap         gfx     a search's visits per move (shade and count)
gogui-principal_variation   var     the search's best line
gogui-value                 string  the side to move's win rate (and score lead) after a search
gogui-ownership             dboard  ownership, black positive (Go): a search's tree-averaged network
                                    ownership, or the Monte-Carlo estimate without that head
final_status_list dead      plist   the stones the ownership calls dead (Go)
==========================  ======  ===============================================

``gogui-interrupt`` tells GoGui that a running command stops when it writes
``# interrupt`` (the session handles that line). The ``gogui-rules_*``
commands let GoGui host a game it does not know, such as Gomoku: game name,
board size, legal moves of the side to move (empty once the game is over),
side to move, result (``black``, ``white``, ``draw`` or ``unknown``) and the
board as rows of ``X`` / ``O`` / ``.`` from the top.

They are registered for Gomoku only. GoGui (``GoGui.java``: ``isGtpRuler``,
``isGtpCompatibleWithGame``, ``attachNewProgram``) decides by the commands a
program lists: one that lists ``gogui-rules_board_size`` is asked for it right
after ``list_commands`` and GoGui sets up a new board of that size, before it
has sent its own ``boardsize``, so a Go engine that answered 19 turned the
user's 9x9 game into a 19x19 one and took the computer off the side to move.
GoGui referees Go itself; a Go engine lists none of them, as GNU Go does.
"""

from __future__ import annotations

import numpy as np

from engine import BLACK, WHITE, Color, SearchResult, action_to_gtp, black_view
from gtp.protocol import SYNTAX_ERROR, GtpError
from gtp.registry import Registry, Request
from gtp.state import EngineState

__all__ = ["register", "analyze_commands"]

_SYMBOLS = {0: ".", BLACK: "X", WHITE: "O"}


def _no_args(request: Request) -> None:
    if request.args:
        raise GtpError(SYNTAX_ERROR)


def analyze_commands(state: EngineState, request: Request) -> str:
    _no_args(request)
    lines = ["gfx/Policy heatmap/gogui-policy_heatmap", "gfx/Visit heatmap/gogui-visit_heatmap",
             "var/Principal variation/gogui-principal_variation", "string/Value/gogui-value"]
    if state.rules.game == "go":
        lines += ["dboard/Ownership/gogui-ownership", "plist/Dead stones/final_status_list dead"]
    return "\n".join(lines)


def _heatmap(values: np.ndarray, labels: dict[int, str], size: int, text: str) -> str:
    """gfx lines: INFLUENCE shading scaled to the largest value, LABEL texts, a TEXT summary."""
    points = np.flatnonzero(values[:-1] > 0)
    top = float(values[:-1].max()) if points.size else 0.0
    lines = []
    if points.size:
        lines.append("INFLUENCE " + " ".join(f"{action_to_gtp(int(a), size)} {values[a] / top:.3f}" for a in points))
    if labels:
        lines.append("LABEL " + " ".join(f"{action_to_gtp(a, size)} {label}" for a, label in labels.items()
                                         if a < size * size))
    lines.append(f"TEXT {text}")
    return "\n".join(lines)


def _search(state: EngineState, request: Request, visits: int | None = None) -> SearchResult:
    return state.analyse(state.game.to_play, visits=visits, stop=request.interrupted)


def policy_heatmap(state: EngineState, request: Request) -> str:
    _no_args(request)
    priors = _search(state, request, visits=1).priors
    best = [int(a) for a in np.argsort(-priors, kind="stable")[:10] if priors[a] > 0]
    labels = {a: f"{round(100 * float(priors[a]))}" for a in best}
    text = f"policy: best {action_to_gtp(best[0], state.rules.size)} {100 * priors[best[0]]:.1f}%" if best else "-"
    return _heatmap(priors, labels, state.rules.size, text)


def visit_heatmap(state: EngineState, request: Request) -> str:
    _no_args(request)
    result = _search(state, request)
    visits = result.visits
    labels = {int(a): str(int(visits[a])) for a in np.flatnonzero(visits > 0)}
    text = f"{int(visits.sum())} visits, win rate {50 * (result.value + 1):.1f}% for {state.game.to_play.name.lower()}"
    return _heatmap(visits, labels, state.rules.size, text)


def principal_variation(state: EngineState, request: Request) -> str:
    _no_args(request)
    return " ".join(action_to_gtp(a, state.rules.size) for a in _search(state, request).pv)


def value(state: EngineState, request: Request) -> str:
    """The side to move's win rate, and with a score head the lead (the tree's mean score) as ``B+3.5``."""
    _no_args(request)
    result = _search(state, request)
    lead = ""
    if result.score_mean is not None:
        black = result.score_mean if state.game.to_play == BLACK else -result.score_mean
        lead = f", lead {'B' if black >= 0 else 'W'}+{abs(black):.1f}"
    return (f"{state.game.to_play.name.lower()} wins {50 * (result.value + 1):.1f}%{lead} "
            f"({int(result.visits.sum())} visits)")


def ownership(state: EngineState, request: Request) -> str:
    _no_args(request)
    if state.rules.game != "go":
        raise GtpError("ownership is for go")
    size = state.rules.size
    tree = _search(state, request).ownership if state.network_ownership else None
    grid = state.ownership() if tree is None else black_view(tree, state.game.to_play)
    return "\n".join(" ".join(f"{x:.2f}" for x in row) for row in grid.reshape(size, size))


# ----------------------------------------------------------------- ruler
def rules_game_id(state: EngineState, request: Request) -> str:
    _no_args(request)
    return state.rules.game.capitalize()


def rules_board_size(state: EngineState, request: Request) -> str:
    _no_args(request)
    return str(state.rules.size)


def rules_legal_moves(state: EngineState, request: Request) -> str:
    _no_args(request)
    legal = state.game.legal_mask()
    return " ".join(action_to_gtp(int(a), state.rules.size) for a in np.flatnonzero(legal))


def rules_side_to_move(state: EngineState, request: Request) -> str:
    _no_args(request)
    return state.game.to_play.name.lower()


def rules_final_result(state: EngineState, request: Request) -> str:
    """``black``, ``white`` or ``draw`` once the game is over, else ``unknown``."""
    _no_args(request)
    outcome = state.game.outcome() if state.game.is_over else None
    if outcome is None:
        return "unknown"
    return "draw" if outcome.winner is None else Color(outcome.winner).name.lower()


def rules_board(state: EngineState, request: Request) -> str:
    _no_args(request)
    board = state.game.position.board()
    return "\n".join(" ".join(_SYMBOLS[int(c)] for c in row) for row in board)


def register(registry: Registry, game: str) -> None:
    """Add GoGui's commands: the ruler commands only where GoGui does not know the ``game`` (not Go)."""
    registry.add("gogui-analyze_commands", analyze_commands, needs_engine=False)
    registry.add("gogui-interrupt", lambda state, request: "", needs_engine=False)
    for name, handler in (("gogui-policy_heatmap", policy_heatmap), ("gogui-visit_heatmap", visit_heatmap),
                          ("gogui-principal_variation", principal_variation), ("gogui-value", value),
                          ("gogui-ownership", ownership)):
        registry.add(name, handler)
    if game == "go":
        return
    for name, handler in (("gogui-rules_game_id", rules_game_id), ("gogui-rules_board_size", rules_board_size),
                          ("gogui-rules_legal_moves", rules_legal_moves),
                          ("gogui-rules_side_to_move", rules_side_to_move),
                          ("gogui-rules_final_result", rules_final_result), ("gogui-rules_board", rules_board)):
        registry.add(name, handler)
