"""Reference encoders and random positions for the encoder tests.

The reference planes are written from each encoding's definition (docs/networks.md, *Feature encoders*),
in plain numpy over the Position's public views (``board``, ``orbs``,
``liberties``, ``history``, ``ko_action``, ``last_action``, ``to_play``); they
never read the padded arrays the kernels read, so the two can disagree.
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import strategies as st

from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import GO_PRESETS, Rules
from engine.core.types import BLACK, WHITE
from engine.formats.diagram import parse_diagram
from tests.support.games import play_randomly

__all__ = ["NOJIT", "LIBERTY_DIAGRAM", "KO_DIAGRAM", "setup_diagram", "reference_planes", "random_game",
           "go_rules", "any_rules"]

NOJIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"
MOVE_BUDGET = 25 if NOJIT else 80

go_rules = st.builds(Rules.go, st.integers(5, 9), st.sampled_from(sorted(GO_PRESETS)))
gomoku_rules = st.builds(Rules.gomoku, st.integers(5, 9), st.integers(4, 5))
chain_reaction_rules = st.builds(Rules.chain_reaction, st.integers(2, 7))
any_rules = st.one_of(go_rules, gomoku_rules, chain_reaction_rules)


# Black to move: A7 and B1 have 2 liberties, D7 3, the D4-E4 chain 6; white A1 1, G1 2, B5 4.
LIBERTY_DIAGRAM = """
X . . X . . .
. . . . . . .
. O . . . . .
. . . X X . .
. . . . . . .
. . . . . . .
O X . . . . O
"""
# Black C4 takes B4 and leaves a ko: white may not retake at B4 at once.
KO_DIAGRAM = """
. X O . .
X O . O .
. X O . .
. . . . .
. . . . .
"""


def setup_diagram(game: Game, diagram: str, to_play: int = BLACK) -> None:
    """Set up the stones of an ASCII diagram (``engine.formats.diagram``) before the first move."""
    board = parse_diagram(diagram).reshape(-1)
    game.setup(black=np.flatnonzero(board == BLACK).tolist(), white=np.flatnonzero(board == WHITE).tolist(),
               to_play=to_play)


def _full(size: int, on: bool) -> np.ndarray:
    return np.full((size, size), on, dtype=np.int64)


def reference_planes(name: str, position: Position, banned: np.ndarray | None = None) -> np.ndarray:
    """The planes of encoder ``name`` for ``position`` as int64[C, N, N], from the definitions."""
    n = position.size
    me = int(position.to_play)
    opp = BLACK if me == WHITE else WHITE
    board = position.board()
    own, theirs = board == me, board == opp
    libs = position.liberties()
    ko = np.zeros(n * n, dtype=bool)
    if position.ko_action is not None:
        ko[position.ko_action] = True
    if banned is not None:
        ko |= banned
    ko = ko.reshape(n, n)
    black, white = _full(n, me == BLACK), _full(n, me == WHITE)
    if name == "oneplane":
        planes = [own.astype(int) - theirs.astype(int)]
    elif name == "sevenplane":
        buckets = [libs == 1, libs == 2, libs >= 3]
        planes = [own & b for b in buckets] + [theirs & b for b in buckets] + [ko]
    elif name == "elevenplane":
        buckets = [libs == 1, libs == 2, libs == 3, libs >= 4]
        planes = [own & b for b in buckets] + [theirs & b for b in buckets] + [black, white, ko]
    elif name == "fifteenplane":
        buckets = [libs == 1, libs == 2, libs == 3, libs >= 4]
        history = position.history()
        recent = []
        for t in range(1, 5):
            placed = (history[t - 1] != 0) & (history[t] == 0)
            recent.append(placed if placed.sum() == 1 else np.zeros_like(placed))
        planes = [own & b for b in buckets] + [theirs & b for b in buckets] + [black, white, ko] + recent
    elif name == "zero17":
        history = position.history()
        planes = [p for board_t in history for p in (board_t == me, board_t == opp)] + [black]
    elif name == "lz18":
        history = position.history()
        planes = [b == me for b in history] + [b == opp for b in history] + [black, white]
    elif name == "gomoku4":
        last = np.zeros(n * n, dtype=bool)
        if position.last_action is not None and position.last_action < n * n:
            last[position.last_action] = True
        planes = [own, theirs, last.reshape(n, n), black]
    elif name == "orbs8":
        counts = np.minimum(position.orbs(), 3)
        planes = [own & (counts == k) for k in (1, 2, 3)] + [theirs & (counts == k) for k in (1, 2, 3)] + [black, white]
    else:
        raise KeyError(name)
    return np.stack(planes).astype(np.int64)


def random_game(rules: Rules, seed: int, moves: int | None = None) -> Game:
    """A game of random length (up to the move budget), sometimes after a Go handicap."""
    rng = np.random.default_rng(seed)
    game = Game(rules)
    if rules.game == "go" and rng.random() < 0.2:
        game.place_handicap([int(a) for a in rng.choice(rules.num_points, size=2, replace=False)])
    play_randomly(game, rng, int(rng.integers(0, MOVE_BUDGET + 1)) if moves is None else moves)
    return game
