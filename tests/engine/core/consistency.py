"""An independent consistency checker for positions of the rules core.

Written from the definitions in ``engine.core.board`` (padded layout, chain lists,
Zobrist keys, history ring, Chain Reaction's orbs) in plain Python: it never calls the engine's
kernels, so a bug in a kernel cannot hide itself here. Every check raises
``AssertionError`` naming the point (as padded index and row/column, row 0 at
the top) and the values that disagree.
"""

from __future__ import annotations

import numpy as np

from engine.core import board as layout
from engine.core.position import Position
from engine.core.types import BLACK, EMPTY, WALL, WHITE

__all__ = ["chain_at", "check_consistency", "expected_go_verdict", "interior_points", "orb_key", "winning_colors"]


def interior_points(size: int) -> list[int]:
    """Padded indices of the N*N board points, row-major from the top (the layout's definition)."""
    width = size + 2
    return [(row + 1) * width + col + 1 for row in range(size) for col in range(size)]


def _where(point: int, size: int) -> str:
    row, col = divmod(point, size + 2)
    return f"point {point} (row {row - 1}, col {col - 1})"


def check_consistency(position: Position, *, after_move: bool = True) -> None:
    """Assert that every derived field of ``position`` agrees with its stones.

    ``after_move`` says the position came from legal moves (not bare setup
    stones), which adds the invariants only play guarantees: no chain without
    liberties, a ko point only right after a single-stone capture, (Gomoku)
    a winner exactly when a winning line is on the board, and (Chain Reaction) a
    winner exactly when the loser has no orbs left.
    """
    size = position.rules.size
    stones = position.cells[layout.STONES].tolist()
    _check_walls(stones, size)
    _check_board_view(position, stones)
    _check_info(position)
    _check_ring(position)
    if position.rules.game == "chain-reaction":
        _check_orbs(position, stones, after_move)
        return
    _check_hash(position, stones)
    if position.rules.game == "go":
        _check_chains(position, stones, after_move)
        if after_move:
            _check_ko(position, stones)
    elif after_move:
        _check_winner(position)


def _check_walls(stones: list[int], size: int) -> None:
    width = size + 2
    assert len(stones) == width * width, f"stones row has {len(stones)} cells, expected {width * width}"
    inside = set(interior_points(size))
    for point, value in enumerate(stones):
        if point in inside:
            assert value in (EMPTY, BLACK, WHITE), f"{_where(point, size)} holds {value}, expected a stone or empty"
        else:
            assert value == WALL, f"wall cell {point} holds {value}, expected WALL ({WALL})"


def _check_board_view(position: Position, stones: list[int]) -> None:
    size = position.rules.size
    expected = np.array([stones[p] for p in interior_points(size)]).reshape(size, size)
    board = position.board()
    assert board.shape == (size, size), f"board() has shape {board.shape}, expected {(size, size)}"
    assert np.array_equal(board, expected), f"board() disagrees with the stones row:\n{board}\nvs\n{expected}"


def _check_hash(position: Position, stones: list[int]) -> None:
    zobrist = layout.geometry(position.rules.size).zobrist
    key = 0
    for point in interior_points(position.rules.size):
        if stones[point] != EMPTY:
            key ^= int(zobrist[stones[point], point])
    found = int(position.info[layout.HASH])
    assert found == key, f"hash {found} != XOR of stone keys {key}"


def orb_key(zobrist: np.ndarray, owner: int, orbs: int, point: int) -> int:
    """Chain Reaction's key of ``orbs`` >= 1 orbs of ``owner`` at ``point``, as ``engine.core.board`` defines it."""
    if orbs == 1:
        return int(zobrist[owner, point])
    return int(zobrist[layout.ORB_KEYS + 3 * (owner - 1) + min(orbs, 4) - 2, point])


def _check_orbs(position: Position, stones: list[int], after_move: bool) -> None:
    """Orbs on exactly the owned cells, each player's total, the hash over owners and counts, and the winner."""
    size = position.rules.size
    orbs = position.cells[layout.ORBS].tolist()
    zobrist = layout.geometry(size).zobrist
    key, totals = 0, {BLACK: 0, WHITE: 0}
    for point in interior_points(size):
        owner, count = stones[point], orbs[point]
        assert (owner == EMPTY) == (count == 0) and count >= 0, f"{_where(point, size)}: {count} orbs of {owner}"
        if count:
            key ^= orb_key(zobrist, owner, count, point)
            totals[owner] += count
    info = position.info
    found = {color: int(info[layout.ORBS_BLACK + color - 1]) for color in (BLACK, WHITE)}
    assert found == totals, f"orb totals {found}, counted {totals}"
    assert int(info[layout.HASH]) == key, f"hash {int(info[layout.HASH])} != XOR of orb keys {key}"
    winner, loser = int(info[layout.WINNER]), int(info[layout.TO_PLAY])
    if winner:
        assert winner == 3 - loser and totals[loser] == 0 < totals[winner], f"winner {winner} with totals {totals}"
    elif after_move and int(info[layout.MOVES]) >= 2:
        assert totals[BLACK] > 0 and totals[WHITE] > 0, f"no winner recorded but the orb totals are {totals}"


def _check_info(position: Position) -> None:
    info = position.info
    to_play, ring = int(info[layout.TO_PLAY]), int(info[layout.RING])
    passes, moves = int(info[layout.PASSES]), int(info[layout.MOVES])
    assert to_play in (BLACK, WHITE), f"to-play is {to_play}"
    assert 0 <= ring < layout.HISTORY_LEN, f"ring slot {ring} outside 0..{layout.HISTORY_LEN - 1}"
    assert 0 <= passes <= moves, f"{passes} passes in {moves} moves"


def _check_ring(position: Position) -> None:
    """The ring slot named by RING holds the current stones (what history()[0] shows)."""
    slot = int(position.info[layout.RING])
    current = position.cells[layout.HISTORY + slot]
    if not np.array_equal(current, position.cells[layout.STONES]):
        diff = np.flatnonzero(current != position.cells[layout.STONES]).tolist()
        raise AssertionError(f"history ring slot {slot} differs from the stones at points {diff}")


def _flood(stones: list[int], width: int, start: int) -> set[int]:
    color = stones[start]
    chain = {start}
    todo = [start]
    while todo:
        point = todo.pop()
        for q in (point + 1, point - 1, point + width, point - width):
            if stones[q] == color and q not in chain:
                chain.add(q)
                todo.append(q)
    return chain


def _check_chains(position: Position, stones: list[int], after_move: bool) -> None:
    size = position.rules.size
    width = size + 2
    cells = position.cells
    head, nxt, libs, sizes = (cells[row].tolist() for row in (layout.HEAD, layout.NEXT, layout.LIBS, layout.SIZE))
    done: set[int] = set()
    owners: dict[int, int] = {}
    for start in interior_points(size):
        if stones[start] == EMPTY or start in done:
            continue
        chain = _flood(stones, width, start)
        done |= chain
        where = _where(start, size)
        h = head[start]
        assert h in chain, f"chain through {where} has head {h}, which is not one of its stones {sorted(chain)}"
        assert h not in owners, f"head {h} is shared by the chains through {_where(owners[h], size)} and {where}"
        owners[h] = start
        wrong = sorted(q for q in chain if head[q] != h)
        assert not wrong, f"chain through {where} (head {h}): stones {wrong} have heads {[head[q] for q in wrong]}"
        _check_cycle(nxt, h, chain, where)
        assert sizes[h] == len(chain), f"chain through {where}: size {sizes[h]} at head {h}, counted {len(chain)}"
        liberties = {q for p in chain for q in (p + 1, p - 1, p + width, p - width) if stones[q] == EMPTY}
        assert libs[h] == len(liberties), (f"chain through {where}: {libs[h]} liberties at head {h}, "
                                           f"counted {len(liberties)} {sorted(liberties)}")
        assert not after_move or liberties, f"chain through {where} has no liberties after a move"


def _check_cycle(nxt: list[int], h: int, chain: set[int], where: str) -> None:
    visited = []
    point = h
    for _ in range(len(chain)):
        visited.append(point)
        point = nxt[point]
    assert point == h, f"chain through {where}: next-list from head {h} does not close after {len(chain)} steps"
    assert set(visited) == chain and len(visited) == len(chain), (
        f"chain through {where}: next-list visits {visited}, chain is {sorted(chain)}")


def _check_ko(position: Position, stones: list[int]) -> None:
    """A ko point is the empty point of a one-stone capture by a one-stone, one-liberty chain."""
    size = position.rules.size
    width = size + 2
    ko = int(position.info[layout.KO])
    if ko == 0:
        return
    last = int(position.info[layout.LAST])
    where = _where(ko, size)
    assert ko in set(interior_points(size)) and stones[ko] == EMPTY, f"ko at {where}, which is not an empty point"
    assert last not in (layout.PASS_POINT, -1), f"ko at {where} but the last move was a pass or none"
    assert ko in (last + 1, last - 1, last + width, last - width), f"ko at {where} is not next to the last move"
    assert stones[last] == 3 - int(position.info[layout.TO_PLAY]), f"ko at {where}: last move's stone is gone"
    chain = _flood(stones, width, last)
    liberties = {q for p in chain for q in (p + 1, p - 1, p + width, p - width) if stones[q] == EMPTY}
    assert len(chain) == 1 and liberties == {ko}, (
        f"ko at {where}, but the capturing chain has {len(chain)} stones and liberties {sorted(liberties)}")


def _runs(board: np.ndarray) -> list[tuple[int, int]]:
    """(colour, length) of every maximal run of stones along rows, columns and both diagonals."""
    size = board.shape[0]
    runs = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(size):
            for c in range(size):
                color = int(board[r, c])
                pr, pc = r - dr, c - dc
                if color == EMPTY or (0 <= pr < size and 0 <= pc < size and board[pr, pc] == color):
                    continue  # not the start of a run
                n = 0
                while 0 <= r + n * dr < size and 0 <= c + n * dc < size and board[r + n * dr, c + n * dc] == color:
                    n += 1
                runs.append((color, n))
    return runs


def winning_colors(board: np.ndarray, win_length: int, variant: str) -> set[int]:
    """Colours with a line that wins under the Gomoku variant."""
    found = set()
    for color, n in _runs(board):
        exact = variant == "standard" or (variant == "renju" and color == BLACK)
        if n == win_length or (n > win_length and not exact):
            found.add(color)
    return found


def _check_winner(position: Position) -> None:
    rules = position.rules
    board = position.board()
    winners = winning_colors(board, rules.win_length, rules.variant)
    winner = int(position.info[layout.WINNER])
    if winner:
        assert winners == {winner}, f"winner is {winner} but winning lines belong to {sorted(winners)}"
    else:
        assert not winners, f"no winner recorded but {sorted(winners)} has a winning line"
    if rules.variant == "renju" and winner != BLACK:  # a move that makes five may also make an overline
        longest = max((n for color, n in _runs(board) if color == BLACK), default=0)
        assert longest <= rules.win_length, f"black has an overline of {longest} under renju"


def chain_at(board: np.ndarray, row: int, col: int) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """The stones (row, col) of the chain through a stone of ``board[N, N]``, and its liberties."""
    size = board.shape[0]
    color = board[row, col]
    chain, liberties, todo = {(row, col)}, set(), [(row, col)]
    while todo:
        r, c = todo.pop()
        for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if not (0 <= q[0] < size and 0 <= q[1] < size):
                continue
            if board[q] == EMPTY:
                liberties.add(q)
            elif board[q] == color and q not in chain:
                chain.add(q)
                todo.append(q)
    return chain, liberties


def expected_go_verdict(position: Position, action: int, color: int) -> int:
    """LEGAL, OCCUPIED, KO_RECAPTURE or SUICIDE for a Go point move, from the rules' definitions.

    Simple ko is the only history the verdict needs; it is read from
    ``position.ko_action`` (the playout tests check that field against the
    captures they watch). Superko is the Game's and is not judged here.
    """
    size = position.rules.size
    board = position.board().copy()
    row, col = divmod(action, size)
    if board[row, col] != EMPTY:
        return layout.OCCUPIED
    if action == position.ko_action and color == int(position.to_play):
        return layout.KO_RECAPTURE
    board[row, col] = color
    for q in ((row + 1, col), (row - 1, col), (row, col + 1), (row, col - 1)):
        if 0 <= q[0] < size and 0 <= q[1] < size and board[q] == 3 - color and not chain_at(board, *q)[1]:
            return layout.LEGAL  # captures, so the new chain gains a liberty
    if chain_at(board, row, col)[1] or position.rules.suicide:
        return layout.LEGAL
    return layout.SUICIDE
