"""Ladder reading as KataGo's input features define it: which chains a ladder captures, and where.

A chain in atari is *ladder captured* when its owner, moving first, cannot
escape a chase in which the attacker only ever plays on the chain's
liberties: the defender may extend on its last liberty or capture an
attacker chain in atari next to it, and wins as soon as the chain has two
liberties; the attacker wins when the chain is down to one liberty on the
attacker's turn and loses at three. A chain with two liberties is laddered
when an attacker's move on one of them leaves a ladder-captured chain; those
moves are its *working moves*.

KataGo's reading has shortcuts that shape its answers, and these kernels keep
them: the defender is assumed to win every ko (the ko at the start is
ignored; a ko left by the attacker ends the chase as an escape), a stone the
defender could place with provably three liberties (or at most one, with no
other choice) decides at once, a double ko whose two mouths are the chain's
liberties counts as captured, the chase is cut off as captured past one and a
half times the board's area in depth and as escaped past 25,000 moves in all.
Suicide is never a ladder move.

:func:`ladder_features` gives KataGo's four ladder planes of a position: the
laddered stones now, one and two moves ago, and the working moves against the
opponent's two-liberty chains (the opponent of the side to move). Kernels work
on the padded boards of :mod:`engine.core.board` and restore what they touch.
"""

from __future__ import annotations

import numpy as np

from engine.core.board import (
    HEAD,
    HISTORY,
    HISTORY_LEN,
    INFO_LEN,
    KO,
    LEGAL,
    LIBS,
    NEXT,
    RING,
    SIZE,
    STONES,
    TO_PLAY,
)
from engine.core.go import empty_neighbours, go_check, go_place_setup, go_play
from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WALL, WHITE

__all__ = ["ladder_captured", "ladder_working_moves", "ladder_features", "LADDER_NODE_BUDGET"]

LADDER_NODE_BUDGET = 25000
"""Moves a chase may play in all before it counts as an escape."""
_CHAIN_ROWS = SIZE + 1  # STONES, HEAD, NEXT, LIBS, SIZE: what a move changes and an undo restores


@njit(cache=True)
def _add_liberties(cells, W, p, buf, start, n):
    """Append to ``buf[start + n:]`` the liberties of the chain at ``p`` not already in ``buf[start:start + n]``;
    return the new length ``n``."""
    stones = cells[STONES]
    nxt = cells[NEXT]
    s = p
    while True:
        for d in (-W, -1, 1, W):
            q = s + d
            if stones[q] == EMPTY and q not in buf[start:start + n]:
                buf[start + n] = q
                n += 1
        s = nxt[s]
        if s == p:
            break
    return n


@njit(cache=True)
def _add_capturing_moves(cells, W, p, buf, start, n):
    """Append the moves that capture an opponent chain in atari next to the chain at ``p`` (their lone
    liberties, once each); return the new length."""
    stones = cells[STONES]
    head = cells[HEAD]
    libs = cells[LIBS]
    nxt = cells[NEXT]
    opp = 3 - stones[p]
    checked = np.empty(4 * cells[SIZE, head[p]], np.int64)
    n_checked = 0
    s = p
    while True:
        for d in (-W, -1, 1, W):
            q = s + d
            if stones[q] == opp and libs[head[q]] == 1:
                h = head[q]
                if h not in checked[:n_checked]:
                    checked[n_checked] = h
                    n_checked += 1
                    n = _add_liberties(cells, W, q, buf, start, n)
        s = nxt[s]
        if s == p:
            break
    return n


@njit(cache=True)
def _has_capturing_move(cells, W, p):
    """Whether an opponent chain next to the chain at ``p`` is in atari."""
    stones = cells[STONES]
    head = cells[HEAD]
    opp = 3 - stones[p]
    s = p
    while True:
        for d in (-W, -1, 1, W):
            q = s + d
            if stones[q] == opp and cells[LIBS, head[q]] == 1:
                return True
        s = cells[NEXT, s]
        if s == p:
            return False


@njit(cache=True)
def _liberty_bounds(cells, W, p, color):
    """Cheap lower and upper bounds of the liberties a stone of ``color`` placed on ``p`` would have."""
    stones = cells[STONES]
    head = cells[HEAD]
    libs = cells[LIBS]
    immediate = captures = captured_stones = connection = best_connection = 0
    for d in (-W, -1, 1, W):
        q = p + d
        c = stones[q]
        if c == EMPTY:
            immediate += 1
        elif c == 3 - color:
            if libs[head[q]] == 1:
                captures += 1
                captured_stones += cells[SIZE, head[q]]
        elif c == color:
            extra = libs[head[q]] - 1
            connection += extra
            best_connection = max(best_connection, extra)
    return captures + max(best_connection, immediate), immediate + captured_stones + connection


@njit(cache=True)
def _liberties_after_play(cells, W, p, color, cap):
    """The liberties (``cap`` at most) a stone of ``color`` on ``p`` would have, counting as liberties the
    neighbouring stones it would capture (and, along the chains it joins, every stone of a captured chain)."""
    stones = cells[STONES]
    head = cells[HEAD]
    opp = 3 - color
    found = np.empty(4 + 4 * stones.shape[0], np.int64)
    n = 0
    captured = np.full(4, -1, np.int64)
    n_captured = 0
    for d in (-W, -1, 1, W):
        q = p + d
        if stones[q] == EMPTY or (stones[q] == opp and cells[LIBS, head[q]] == 1):
            found[n] = q
            n += 1
            if n >= cap:
                return cap
            if stones[q] == opp:
                h = head[q]
                if h != captured[0] and h != captured[1] and h != captured[2]:
                    captured[n_captured] = h
                    n_captured += 1
    joined = np.full(4, -1, np.int64)
    n_joined = 0
    for d in (-W, -1, 1, W):
        q = p + d
        if stones[q] != color:
            continue
        h = head[q]
        if h == joined[0] or h == joined[1] or h == joined[2]:
            continue
        joined[n_joined] = h
        n_joined += 1
        s = q
        while True:
            for e in (-W, -1, 1, W):
                r = s + e
                if r == p:
                    continue
                frees = stones[r] == EMPTY
                if stones[r] == opp:
                    hr = head[r]
                    frees = hr == captured[0] or hr == captured[1] or hr == captured[2] or hr == captured[3]
                if frees and r not in found[:n]:
                    found[n] = r
                    n += 1
                    if n >= cap:
                        return cap
            s = cells[NEXT, s]
            if s == q:
                break
    return n


@njit(cache=True)
def _would_take_ko(cells, W, p, color):
    """Whether ``color`` playing on the empty ``p`` would capture one lone stone with every neighbour of ``p``
    the opponent's or the edge."""
    stones = cells[STONES]
    head = cells[HEAD]
    opp = 3 - color
    target = -1
    for d in (-W, -1, 1, W):
        q = p + d
        if stones[q] != WALL and stones[q] != opp:
            return False
        if stones[q] == opp and cells[LIBS, head[q]] == 1:
            if target >= 0:
                return False
            target = q
    return target >= 0 and cells[SIZE, head[target]] == 1


@njit(cache=True)
def _connection_score(cells, W, p, color):
    """Twice the liberties, less 1.5 each, of the chains of ``color`` next to ``p`` that have more than one."""
    stones = cells[STONES]
    score = 0
    for d in (-W, -1, 1, W):
        q = p + d
        if stones[q] == color:
            n = cells[LIBS, cells[HEAD, q]]
            if n > 1:
                score += 2 * n - 3
    return score


@njit(cache=True)
def _legal(cells, info, W, p, color):
    """Whether ``color`` may play ``p`` in a chase: empty, not the ko point, not suicide."""
    info[TO_PLAY] = color  # the ko point binds whoever moves
    return go_check(cells, info, W, p, color, False) == LEGAL


@njit(cache=True)
def ladder_captured(cells, info, zobrist, W, p, defender_first):
    """Whether the chain at ``p`` is ladder captured (see the module docstring). ``defender_first``: the
    chain's owner moves first (the chain must be in atari); else the attacker does (two liberties). The
    ko point in ``info`` binds the first move unless the defender moves first. ``cells`` and ``info`` (a
    Position's, or a scratch copy) are played on and restored."""
    stones = cells[STONES]
    pla = stones[p]
    if pla != BLACK and pla != WHITE:
        return False
    start_libs = cells[LIBS, cells[HEAD, p]]
    if start_libs > 2 or (defender_first and start_libs > 1):
        return False
    opp = 3 - pla
    points = stones.shape[0]
    area = (W - 2) * (W - 2)
    depth = area * 3 // 2 + 1
    saved_info = info.copy()
    saved_ring = cells[HISTORY:].copy()  # go_play records each move in the ring of recent boards
    if defender_first:
        info[KO] = 0
    saved = np.empty((depth, _CHAIN_ROWS, points), np.int16)
    saved_ko = np.empty(depth, np.int64)
    starts = np.zeros(depth + 1, np.int64)
    lengths = np.zeros(depth + 1, np.int64)
    current = np.full(depth + 1, -1, np.int64)
    buf = np.empty(4 * depth + 2 * points, np.int64)
    level = 0
    nodes = 0
    answer = False
    from_deeper = False
    while True:
        if level < 0:
            info[:] = saved_info
            cells[HISTORY:] = saved_ring
            return answer
        if level >= depth - 1:
            answer = True
            from_deeper = True
            level -= 1
            continue
        if nodes >= LADDER_NODE_BUDGET:
            level -= 1
            while level >= 0:
                cells[:_CHAIN_ROWS] = saved[level]
                level -= 1
            info[:] = saved_info
            cells[HISTORY:] = saved_ring
            return False
        defending = (level % 2 == 0) == defender_first
        if current[level] == -1:
            libs = cells[LIBS, cells[HEAD, p]]
            if not defending and (libs <= 1 or libs >= 3):
                answer = libs <= 1
                from_deeper = True
                level -= 1
                continue
            if defending and (libs >= 2 or info[KO] != 0):
                answer = False
                from_deeper = True
                level -= 1
                continue
            start = starts[level]
            if start + points > buf.shape[0]:
                grown = np.empty(2 * buf.shape[0] + points, np.int64)
                grown[: buf.shape[0]] = buf
                buf = grown
            if defending:
                n = _add_capturing_moves(cells, W, p, buf, start, 0)
                n = _add_liberties(cells, W, p, buf, start, n)
                low, high = _liberty_bounds(cells, W, buf[start + n - 1], pla)
                if low >= 3 or (n == 1 and high <= 1):
                    answer = low < 3
                    from_deeper = True
                    level -= 1
                    continue
            else:
                n = _add_liberties(cells, W, p, buf, start, 0)
                a, b = buf[start], buf[start + 1]
                libs_a = empty_neighbours(stones, W, a)
                libs_b = empty_neighbours(stones, W, b)
                if (
                    libs_a == 0
                    and libs_b == 0
                    and _would_take_ko(cells, W, a, opp)
                    and _would_take_ko(cells, W, b, opp)
                    and _liberties_after_play(cells, W, a, pla, 3) <= 2
                    and _liberties_after_play(cells, W, b, pla, 3) <= 2
                    and not _has_capturing_move(cells, W, p)
                ):
                    answer = True
                    from_deeper = True
                    level -= 1
                    continue
                if abs(a - b) != 1 and abs(a - b) != W:
                    if libs_a >= 3 and libs_b >= 3:
                        answer = False
                        from_deeper = True
                        level -= 1
                        continue
                    if libs_a >= 3:
                        n = 1
                    elif libs_b >= 3:
                        buf[start] = b
                        n = 1
                if n > 1 and 2 * libs_b + _connection_score(cells, W, b, pla) > 2 * libs_a + _connection_score(
                    cells, W, a, pla
                ):
                    buf[start] = b
                    buf[start + 1] = a
            lengths[level] = n
            current[level] = 0
        else:
            if from_deeper:
                cells[:_CHAIN_ROWS] = saved[level]
                info[KO] = saved_ko[level]
            if defending != answer:  # the defender escaped, or the attacker captured: this level is decided
                from_deeper = True
                level -= 1
                continue
            current[level] += 1
        if current[level] >= lengths[level]:
            answer = defending
            from_deeper = True
            level -= 1
            continue
        move = buf[starts[level] + current[level]]
        mover = pla if defending else opp
        if not _legal(cells, info, W, move, mover):
            answer = defending
            from_deeper = False
            continue
        saved[level] = cells[:_CHAIN_ROWS]
        saved_ko[level] = info[KO]
        go_play(cells, info, zobrist, W, move, mover)
        nodes += 1
        level += 1
        current[level] = -1
        starts[level] = starts[level - 1] + lengths[level - 1]
        lengths[level] = 0


@njit(cache=True)
def ladder_working_moves(cells, info, zobrist, W, p, working):
    """How many of the two liberties of the chain at ``p`` ladder-capture it when the attacker plays there
    first (0 when the chain has not exactly two liberties), written to ``working[:2]`` (padded points).
    The ko point in ``info`` binds the attacker's first move."""
    stones = cells[STONES]
    pla = stones[p]
    if (pla != BLACK and pla != WHITE) or cells[LIBS, cells[HEAD, p]] != 2:
        return 0
    liberties = np.empty(2 + 4 * cells[SIZE, cells[HEAD, p]], np.int64)
    _add_liberties(cells, W, p, liberties, 0, 0)
    saved = cells.copy()
    saved_info = info.copy()
    found = 0
    for i in range(2):
        move = liberties[i]
        if _legal(cells, info, W, move, 3 - pla):
            go_play(cells, info, zobrist, W, move, 3 - pla)
            works = ladder_captured(cells, info, zobrist, W, p, True)
            cells[:] = saved
            info[:] = saved_info
            if works:
                working[found] = move
                found += 1
        info[:] = saved_info
    return found


@njit(cache=True)
def _ladder_plane(cells, info, zobrist, W, action_point, out, plane, working_plane):
    """Mark ``out[plane, a]`` on every stone of a laddered chain (in atari, or with two liberties and a
    working move) of the board ``cells``; with ``working_plane >= 0``, mark there the working moves against
    the two-liberty chains of the player not to move."""
    stones = cells[STONES]
    head = cells[HEAD]
    points = stones.shape[0]
    solved = np.zeros(points, np.int8)  # per chain head: 0 unread, 1 laddered, 2 not
    point_action = np.full(points, -1, np.int64)
    for a in range(action_point.shape[0]):
        point_action[action_point[a]] = a
    working = np.zeros(2, np.int64)
    to_move = info[TO_PLAY]
    for a in range(action_point.shape[0]):
        p = action_point[a]
        s = stones[p]
        if s != BLACK and s != WHITE:
            continue
        h = head[p]
        libs = cells[LIBS, h]
        if libs != 1 and libs != 2:
            continue
        if solved[h] == 0:
            if libs == 1:
                laddered = ladder_captured(cells, info, zobrist, W, p, True)
                found = 0
            else:
                found = ladder_working_moves(cells, info, zobrist, W, p, working)
                laddered = found > 0
            solved[h] = 1 if laddered else 2
            if laddered and working_plane >= 0 and s != to_move and libs == 2:
                for i in range(found):
                    out[working_plane, point_action[working[i]]] = 1.0
        if solved[h] == 1:
            out[plane, a] = 1.0


@njit(cache=True)
def _rebuilt(empty_cells, zobrist, W, stones):
    """A scratch board (chain rows and a one-board ring) with the stones ``stones[P]``, ko unset."""
    cells = empty_cells[: HISTORY + 1].copy()
    info = np.zeros(INFO_LEN, np.int64)
    info[TO_PLAY] = BLACK
    for p in range(stones.shape[0]):
        if stones[p] == BLACK or stones[p] == WHITE:
            go_place_setup(cells, info, zobrist, W, p, stones[p])
    return cells, info


@njit(cache=True)
def _ko_left(cells, older, newer):
    """The simple-ko point the move from board ``older`` to board ``newer`` left (``cells``: ``newer``
    rebuilt), 0 for none: one new stone, alone with one liberty, that captured one stone."""
    played = -1
    for p in range(newer.shape[0]):
        if (newer[p] == BLACK or newer[p] == WHITE) and older[p] == EMPTY:
            if played >= 0:
                return 0
            played = p
    if played < 0:
        return 0
    taken = -1
    for p in range(newer.shape[0]):
        if newer[p] == EMPTY and older[p] == 3 - newer[played]:
            if taken >= 0:
                return 0
            taken = p
    h = cells[HEAD, played]
    if taken < 0 or cells[SIZE, h] != 1 or cells[LIBS, h] != 1:
        return 0
    return taken


@njit(cache=True)
def ladder_features(cells, info, zobrist, empty_cells, W, action_point, moves, out):
    """Fill ``out[4, A]`` (float32, zeroed) with KataGo's ladder planes of the position ``cells``/``info``:
    0, 1, 2: the stones of laddered chains now, one move ago and two moves ago (the board now where the
    last ``moves`` moves do not reach back so far); 3: the working moves against the two-liberty chains of the
    player not to move. ``empty_cells``: the geometry's empty board."""
    scratch = cells[: HISTORY + 1].copy()
    scratch[HISTORY] = cells[STONES]
    scratch_info = info.copy()
    scratch_info[RING] = 0
    _ladder_plane(scratch, scratch_info, zobrist, W, action_point, out, 0, 3)
    ring = info[RING]
    for back in (1, 2):
        if moves < back:
            out[back] = out[back - 1]
            continue
        stones = cells[HISTORY + (ring - back + HISTORY_LEN) % HISTORY_LEN]
        board, board_info = _rebuilt(empty_cells, zobrist, W, stones)
        if moves >= back + 1:
            board_info[KO] = _ko_left(board, cells[HISTORY + (ring - back - 1 + HISTORY_LEN) % HISTORY_LEN], stones)
        _ladder_plane(board, board_info, zobrist, W, action_point, out, back, -1)
