"""Board state layout and the kernels every game shares.

A position is two fixed-dtype arrays, so that it copies in two ``memcpy`` s and
every kernel is an ``@njit(cache=True)`` function over plain arrays:

``cells: int16[ROWS, P]`` with ``P = (N + 2) ** 2`` (a padded board, one-cell wall)
    ``cells[STONES]``  EMPTY / BLACK / WHITE, WALL on the border
    ``cells[HEAD]``    Go: the chain a stone belongs to (its head point)
    ``cells[NEXT]``    Go: next stone of the chain (a circular list)
    ``cells[LIBS]``    Go: exact liberty count, valid at a chain's head
    ``cells[SIZE]``    Go: stone count, valid at a chain's head
    ``cells[ORBS]``    Chain Reaction: the orbs on each cell (the row Go's HEAD uses;
                       ``cells[STONES]`` holds their owner)
    ``cells[HISTORY + i]`` ring of the last ``HISTORY_LEN`` boards (stones only)
``info: int64[INFO_LEN]`` scalars, indexed by the constants below.

Point 0 (a wall corner) doubles as "pass" in kernel calls. Zobrist keys are
int64 (XOR is the same in any integer width); ``zobrist[c, p]`` keys a stone of
colour ``c`` at ``p``; ``zobrist[0, 0]`` keys "white to move" and
``zobrist[3, p]`` keys a ko point ``p``. Chain Reaction keys ``k`` orbs of colour
``c`` at ``p`` with the stone's key for one orb and ``zobrist[ORB_KEYS + 3*(c-1) + k-2, p]``
for two to four (more count as four: see ``engine.core.chain_reaction``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WALL

__all__ = ["Geometry", "geometry", "STONES", "HEAD", "NEXT", "LIBS", "SIZE", "HISTORY", "HISTORY_LEN",
           "ROWS", "ORBS", "ORB_KEYS", "INFO_LEN", "ORBS_BLACK", "ORBS_WHITE", "TO_PLAY", "KO", "PASSES", "MOVES",
           "CAPTURED_BLACK", "CAPTURED_WHITE",
           "LAST", "HASH", "RING", "WINNER", "PASS_POINT", "LEGAL", "OCCUPIED", "SUICIDE",
           "KO_RECAPTURE", "FORBIDDEN", "NO_PASS", "GAME_OVER", "new_info", "record_move", "copy_array", "put_stone",
           "line_length"]

STONES, HEAD, NEXT, LIBS, SIZE, HISTORY = 0, 1, 2, 3, 4, 5
ORBS = HEAD
HISTORY_LEN = 8
ROWS = HISTORY + HISTORY_LEN

# info[] fields
TO_PLAY = 0          # BLACK or WHITE
KO = 1               # point the side to move may not take back (simple ko), 0 for none
PASSES = 2           # consecutive passes so far
MOVES = 3            # moves played (passes included), setup stones excluded
CAPTURED_BLACK = 4   # black stones captured so far (white's prisoners)
CAPTURED_WHITE = 5   # white stones captured so far (black's prisoners)
LAST = 6             # point of the last move, PASS_POINT for a pass, -1 before the first
HASH = 7             # Zobrist hash of the stones alone
RING = 8             # ring slot that holds the current board
WINNER = 9           # Gomoku: colour that made k in a row; Chain Reaction: that took the last enemy orb; 0 while none
ORBS_BLACK = 10      # Chain Reaction: black's orbs on the board
ORBS_WHITE = 11      # Chain Reaction: white's orbs on the board
INFO_LEN = 12

PASS_POINT = 0
ORB_KEYS = 4         # first zobrist row of Chain Reaction's orb counts (two to four orbs of each colour)


@dataclass(frozen=True, eq=False)
class Geometry:
    """Everything that depends only on the board size; one shared instance per size.

    ``action_point[a]`` is the padded point of action ``a < N*N``;
    ``point_action[p]`` the action of a point, -1 on the wall.
    """

    size: int
    width: int                 # N + 2
    num_points: int            # (N + 2) ** 2
    action_point: np.ndarray   # int64[N*N]
    point_action: np.ndarray   # int64[P]
    zobrist: np.ndarray        # int64[ORB_KEYS + 6, P]
    empty_cells: np.ndarray    # int16[ROWS, P]: the empty board


@functools.lru_cache(maxsize=None)
def geometry(size: int) -> Geometry:
    """The geometry of an N x N board (cached; keys are the same in every process)."""
    width = size + 2
    num_points = width * width
    rows, cols = np.divmod(np.arange(size * size), size)
    action_point = (rows + 1) * width + cols + 1
    point_action = np.full(num_points, -1, dtype=np.int64)
    point_action[action_point] = np.arange(size * size)
    rng = np.random.default_rng(0x5EED0000 + size)
    zobrist = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=(ORB_KEYS + 6, num_points),
                           dtype=np.int64)
    cells = np.zeros((ROWS, num_points), dtype=np.int16)
    cells[STONES] = WALL
    cells[STONES, action_point] = EMPTY
    cells[HISTORY:] = cells[STONES]
    for array in (action_point, point_action, zobrist, cells):
        array.setflags(write=False)
    return Geometry(size, width, num_points, action_point.astype(np.int64), point_action, zobrist, cells)


def new_info() -> np.ndarray:
    info = np.zeros(INFO_LEN, dtype=np.int64)
    info[TO_PLAY] = BLACK
    info[LAST] = -1
    return info


@njit(cache=True)
def record_move(cells, info, point, color):
    """Bookkeeping after any move: side to move, counters, last move, history ring."""
    info[TO_PLAY] = 3 - color
    info[MOVES] += 1
    info[PASSES] = info[PASSES] + 1 if point == PASS_POINT else 0
    info[LAST] = point
    slot = (info[RING] + 1) % (cells.shape[0] - HISTORY)
    info[RING] = slot
    copy_array(cells[STONES], cells[HISTORY + slot])


@njit(cache=True, inline="always")
def copy_array(source, target):
    """``target[:] = source`` for 1-D arrays of one length, as a loop: numba's array assignment compiles its
    shape-mismatch message (seconds of compiling, once a process) into the first kernel that uses it."""
    for i in range(target.shape[0]):
        target[i] = source[i]


@njit(cache=True)
def put_stone(cells, info, zobrist, point, color):
    """Set one stone (no chain bookkeeping) and update the hash."""
    cells[STONES, point] = color
    info[HASH] ^= zobrist[color, point]


@njit(cache=True)
def line_length(stones, point, step, color):
    """Length of the run of ``color`` through ``point`` along ``+-step`` (point counted)."""
    n = 1
    q = point + step
    while stones[q] == color:
        n += 1
        q += step
    q = point - step
    while stones[q] == color:
        n += 1
        q -= step
    return n


# Legality verdicts of the kernels; the Python layers add the ones they check.
LEGAL = 0
OCCUPIED = 1
SUICIDE = 2
KO_RECAPTURE = 3
FORBIDDEN = 4
NO_PASS = 5  # Gomoku has no pass
GAME_OVER = 6
