"""Gomoku threat search: victory by continuous fours (VCF).

A four is a move after which its side threatens to win at the next move at exactly one point (two
such points, or a four the opponent may not stop, win outright). The opponent must answer a four
there or lose, so a sequence of fours is a sequence of forced replies: the side to move has a VCF
when some chain of its fours, each answered at its one point, ends in a five. Classical Gomoku
programs read VCFs exhaustively because they decide games far beyond where a network's priors
look; a VCF found is a proof, so a search may take its value as exact.

The reading follows the rules core: a win is :func:`~engine.core.gomoku.is_winning_line` (exactly k
for standard and renju's black), renju's black never plays a forbidden point (so a four black may
not stop, or whose stopping point is forbidden to black, wins for white), and a reply that makes
the defender a four of its own ends the attacker's line unless the attacker wins at once.

Kernels read and change ``stones`` (the padded board of ``engine.core.board``) and restore it.
"""

from __future__ import annotations

import numpy as np

from engine.core.gomoku import may_play, wins_at
from engine.core.jit import njit
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["winning_points", "vcf", "vct", "read_vct"]


@njit(cache=True)
def winning_points(stones, W, action_point, color, k, variant, out):
    """The legal points where ``color`` wins at once, at most ``len(out)`` of them written to ``out``:
    their count (capped at ``len(out)``)."""
    found = 0
    for a in range(action_point.shape[0]):
        p = action_point[a]
        if stones[p] == EMPTY and wins_at(stones, p, W, color, k, variant) \
                and may_play(stones, W, p, color, k, variant):
            out[found] = p
            found += 1
            if found == out.shape[0]:
                break
    return found


@njit(cache=True, inline="always")
def _makes_four(stones, p, W, color, k, variant):
    """Whether a stone of ``color`` at the empty point ``p`` would leave an empty point on one of its
    lines where ``color`` then wins: along each line, the first empty point past ``color``'s stones on
    either side (gaps included: X X p _ X)."""
    stones[p] = color
    four = False
    for d in (1, W, W + 1, W - 1):
        for step in (d, -d):
            q = p + step
            for _ in range(k - 1):
                if stones[q] != color:
                    break
                q += step
            if stones[q] == EMPTY and wins_at(stones, q, W, color, k, variant):
                four = True
                break
        if four:
            break
    stones[p] = EMPTY
    return four


@njit(cache=True, inline="always")
def _line_support(stones, p, W, color, reach):
    """The most stones of ``color`` on one line through ``p`` within ``reach`` of it, each side read up to the
    first point that is neither empty nor ``color``'s: a cheap necessary test before an exact one. A four made
    at ``p`` needs ``k - 2`` of them within ``k - 1`` (its window of ``k`` points holds ``p``, the point that
    wins and ``color``'s stones alone); a three or four through ``p``, two within ``k - 2``."""
    best = 0
    for d in (1, W, W + 1, W - 1):
        count = 0
        for step in (d, -d):
            q = p
            for _ in range(reach):
                q += step
                c = stones[q]
                if c == color:
                    count += 1
                elif c != EMPTY:
                    break
        if count > best:
            best = count
    return best


@njit(cache=True, inline="always")
def _next_four(stones, W, action_point, start, attacker, k, variant):
    """The first action from ``start`` on whose point is a four ``attacker`` may play, else the number of actions."""
    for a in range(start, action_point.shape[0]):
        p = action_point[a]
        if stones[p] == EMPTY and _line_support(stones, p, W, attacker, k - 1) >= k - 2 \
                and _makes_four(stones, p, W, attacker, k, variant) and may_play(stones, W, p, attacker, k, variant):
            return a
    return action_point.shape[0]


@njit(cache=True)
def vcf(stones, W, action_point, attacker, k, variant, depth, budget):
    """The first move of a victory by continuous fours for ``attacker``, who is to move, of at most
    ``depth`` fours (a five at once counts), reading at most ``budget`` fours in all; -1 when none is
    found within those bounds (which proves nothing) or when the defender can win at once.

    A depth-first search over an explicit stack (numba caches no recursive kernel whose types it must
    infer): ``played[i]``, ``replies[i]`` are the four and its forced answer at level ``i``, ``next_action[i]``
    where that level's scan of candidate fours goes on."""
    defender = WHITE if attacker == BLACK else BLACK
    points = np.empty(2, np.int64)
    if winning_points(stones, W, action_point, attacker, k, variant, points[:1]) > 0:
        return points[0]
    if depth <= 0 or winning_points(stones, W, action_point, defender, k, variant, points[:1]) > 0:
        return -1
    n = action_point.shape[0]
    next_action = np.zeros(depth, np.int64)
    played = np.empty(depth, np.int64)
    replies = np.empty(depth, np.int64)
    level = 0
    found = -1
    while level >= 0 and found < 0:
        a = _next_four(stones, W, action_point, next_action[level], attacker, k, variant)
        next_action[level] = a + 1
        if a == n or budget <= 0:   # this level is exhausted: take back the four that led to it
            level -= 1
            if level >= 0:
                stones[replies[level]] = EMPTY
                stones[played[level]] = EMPTY
            continue
        budget -= 1
        p = action_point[a]
        stones[p] = attacker
        threats = winning_points(stones, W, action_point, attacker, k, variant, points)
        if threats >= 2 or (threats == 1 and not may_play(stones, W, points[0], defender, k, variant)):
            found = played[0] if level > 0 else p   # two threats, or one renju's black may not stop
            stones[p] = EMPTY
            break
        if threats == 0:   # its only winning point is forbidden to black: no four after all
            stones[p] = EMPTY
            continue
        reply = points[0]
        stones[reply] = defender
        if level + 1 == depth or winning_points(stones, W, action_point, defender, k, variant, points[:1]) > 0:
            stones[reply] = EMPTY   # too deep, or the answer makes the defender a four: try the next four
            stones[p] = EMPTY
            continue
        played[level] = p
        replies[level] = reply
        level += 1
        next_action[level] = 0
    for i in range(level):   # a proof found: take back the line that led to it
        stones[replies[i]] = EMPTY
        stones[played[i]] = EMPTY
    return found


NONE, THREE, FOUR, WIN = 0, 1, 2, 3
"""What an attacker's move threatens (:func:`_threat`): nothing, an open four next (a three), a five next
(a four), or a win the defender cannot stop."""
MAX_REPLIES = 64
"""Defences a three may have in :func:`vct`; a three with more is not read (the reading stays a proof)."""


@njit(cache=True, inline="always")
def _add(out, count, p):
    """Append ``p`` to ``out[:count]`` unless it is there or ``out`` is full; the new count (-1: full)."""
    for i in range(count):
        if out[i] == p:
            return count
    if count == out.shape[0]:
        return -1
    out[count] = p
    return count + 1


@njit(cache=True, inline="always")
def _empty_near(stones, p, W, color, k):
    """The empty points on the lines through ``p`` within ``k - 1`` of it. A line is read up to the first point
    that is neither empty nor ``color``'s (a stone of the other side, or the wall): no line of ``color``'s
    reaches past it."""
    out = np.empty(8 * (k - 1), np.int64)
    count = 0
    for d in (1, W, W + 1, W - 1):
        for step in (d, -d):
            q = p
            for _ in range(k - 1):
                q += step
                c = stones[q]
                if c == EMPTY:
                    out[count] = q
                    count += 1
                elif c != color:
                    break
    return out[:count]


@njit(cache=True)
def _fives_near(stones, p, W, color, k, variant, out, count):
    """Append to ``out[:count]`` the points of :func:`_empty_near` where ``color`` would win at once: the
    new count (-1: ``out`` full)."""
    for q in _empty_near(stones, p, W, color, k):
        if wins_at(stones, q, W, color, k, variant):
            count = _add(out, count, q)
            if count < 0:
                return -1
    return count


@njit(cache=True)
def _open_four_defences(stones, p, W, attacker, defender, k, variant, out, count):
    """Append to ``out[:count]`` every point where ``attacker`` would make an open four (two points to win
    at, or one the defender may not take) on the lines through ``p``, with those winning points: the
    defender must take one of them or lose to the open four. The new count (-1: ``out`` full)."""
    fives = np.empty(8 * (k - 1), np.int64)
    for q in _empty_near(stones, p, W, attacker, k):
        if _line_support(stones, q, W, attacker, k - 1) < k - 2 or not may_play(stones, W, q, attacker, k, variant):
            continue
        stones[q] = attacker
        m = _fives_near(stones, q, W, attacker, k, variant, fives, 0)
        stones[q] = EMPTY
        if m >= 2 or (m == 1 and not may_play(stones, W, fives[0], defender, k, variant)):
            count = _add(out, count, q)
            for j in range(m):
                if count >= 0:
                    count = _add(out, count, fives[j])
            if count < 0:
                return -1
    return count


@njit(cache=True)
def _threat(stones, p, pending, W, action_point, attacker, k, variant, replies):
    """What ``attacker``'s stone just played at ``p`` threatens, with ``pending`` (-1: none) a stone of an
    earlier three still standing, and the defender's replies worth reading written to ``replies``:
    ``(kind, count)``.

    A four's one reply is its winning point. A three's replies are every point where the attacker would
    then make an open four and that open four's winning points (a defence elsewhere loses to it), and
    every four of the defender's (which the attacker must answer); a three with more than ``replies``
    holds is read as no threat."""
    defender = WHITE if attacker == BLACK else BLACK
    fives = np.empty(2 * 4 * 2 * (k - 1), np.int64)
    m = _fives_near(stones, p, W, attacker, k, variant, fives, 0)
    if pending >= 0 and m >= 0:
        m = _fives_near(stones, pending, W, attacker, k, variant, fives, m)
    if m >= 2 or (m == 1 and not may_play(stones, W, fives[0], defender, k, variant)):
        return WIN, 0
    if m == 1:
        replies[0] = fives[0]
        return FOUR, 1
    count = _open_four_defences(stones, p, W, attacker, defender, k, variant, replies, 0)
    if pending >= 0 and count >= 0:
        count = _open_four_defences(stones, pending, W, attacker, defender, k, variant, replies, count)
    if count <= 0:
        return NONE, 0
    a = _next_four(stones, W, action_point, 0, defender, k, variant)
    while a < action_point.shape[0]:
        count = _add(replies, count, action_point[a])
        if count < 0:
            return NONE, 0
        a = _next_four(stones, W, action_point, a + 1, defender, k, variant)
    return THREE, count


@njit(cache=True)
def _vct_search(stones, W, action_point, attacker, k, variant, depth, budget):
    """:func:`vct` to exactly ``depth`` threats: ``(first move or -1, budget left)``.

    An AND/OR search over an explicit stack. At level ``i`` the attacker plays ``played[i]`` and every
    reply in ``replies[i, :counts[i]]`` must lose, tried one after another (``reply_at[i]``); the
    attacker's threats at a level are read fours first, then threes (``next_threat[i]`` runs over both
    scans). Where the defender's reply made a four, the attacker's one move is to stop it
    (``forced[i]``), and that stop must threaten again, the three still standing (``anchor[i]``, the
    stone that made it) counting."""
    defender = WHITE if attacker == BLACK else BLACK
    points = np.empty(2, np.int64)
    n = action_point.shape[0]
    next_threat = np.zeros(depth + 1, np.int64)
    forced = np.full(depth + 1, -1, np.int64)
    played = np.empty(depth + 1, np.int64)
    anchor = np.empty(depth + 1, np.int64)
    replies = np.empty((depth + 1, MAX_REPLIES), np.int64)
    counts = np.zeros(depth + 1, np.int64)
    reply_at = np.zeros(depth + 1, np.int64)
    level = 0
    entering = True
    won = False   # the attacker's last move at ``level`` (or the level itself) won
    while True:
        if won:   # every reply to played[level - 1] so far lost: the next one, or that threat wins
            won = False
            if level == 0:
                return played[0], budget
            level -= 1
            stones[replies[level, reply_at[level]]] = EMPTY
            reply_at[level] += 1
            if reply_at[level] == counts[level]:
                stones[played[level]] = EMPTY
                won = True
                continue
            stones[replies[level, reply_at[level]]] = defender
            level += 1
            entering = True
            continue
        if entering:   # a new attacker node: a five at once wins, the defender's four must be stopped
            entering = False
            next_threat[level] = 0
            forced[level] = -1
            if level > 0 and winning_points(stones, W, action_point, attacker, k, variant, points[:1]) > 0:
                won = True
                continue
            threats = winning_points(stones, W, action_point, defender, k, variant, points)
            if threats >= 2 or (threats == 1 and not may_play(stones, W, points[0], attacker, k, variant)):
                next_threat[level] = 2 * n   # the defender wins: no threat of the attacker's counts
            elif threats == 1:
                forced[level] = points[0]
        p = -1
        kind = NONE
        last = level == depth - 1   # only a win outright can still succeed here: no three is read
        while p < 0 and next_threat[level] < (n if last else 2 * n) and budget > 0 and level < depth:
            a = next_threat[level]
            next_threat[level] = a + 1
            if forced[level] >= 0:
                q = forced[level]
                next_threat[level] = 2 * n
            else:
                q = action_point[a % n]
                if stones[q] != EMPTY or _line_support(stones, q, W, attacker, k - 2) < 2:
                    continue
                if a < n and not _makes_four(stones, q, W, attacker, k, variant):
                    continue
                if not may_play(stones, W, q, attacker, k, variant):
                    continue
            stones[q] = attacker
            pending = anchor[level - 1] if forced[level] >= 0 and level > 0 else -1
            kind, counts[level] = _threat(stones, q, pending, W, action_point, attacker, k, variant,
                                          replies[level])
            if kind == NONE and forced[level] >= 0 and level == 0:
                # a stop at the root: a three already on the board may still stand (its stone is unknown)
                for b in range(n):
                    pending = action_point[b]
                    if stones[pending] == attacker and pending != q:
                        kind, counts[level] = _threat(stones, q, pending, W, action_point, attacker, k,
                                                      variant, replies[level])
                        if kind != NONE:
                            break
            anchor[level] = pending if pending >= 0 and kind != NONE else q
            if kind == NONE or (a >= n and kind != THREE and forced[level] < 0) or (last and kind != WIN):
                stones[q] = EMPTY   # no threat, a four the first scan read already, or too deep
                continue
            budget -= 1
            p = q
        if p < 0:   # no threat here wins: the defender's last reply holds, try the attacker's next threat
            if level == 0:
                return -1, budget
            level -= 1
            stones[replies[level, reply_at[level]]] = EMPTY
            stones[played[level]] = EMPTY
            continue
        played[level] = p
        if kind == WIN:
            stones[p] = EMPTY
            won = True
            continue
        reply_at[level] = 0
        # a reply the defender may not play (renju) is no reply: drop those
        kept = 0
        for i in range(counts[level]):
            r = replies[level, i]
            if may_play(stones, W, r, defender, k, variant):
                replies[level, kept] = r
                kept += 1
        counts[level] = kept
        if kept == 0:
            stones[p] = EMPTY
            won = True
            continue
        stones[replies[level, 0]] = defender
        level += 1
        entering = True


@njit(cache=True)
def read_vct(stones, W, action_point, attacker, k, variant, depth, budget):
    """:func:`vct`, with the threats it read: ``(first move or -1, threats read)``."""
    points = np.empty(1, np.int64)
    if winning_points(stones, W, action_point, attacker, k, variant, points) > 0:
        return points[0], 0
    left = budget
    for limit in range(1, depth + 1):
        move, left = _vct_search(stones, W, action_point, attacker, k, variant, limit, left)
        if move >= 0 or left <= 0:
            return move, budget - left
    return -1, budget - left


@njit(cache=True)
def vct(stones, W, action_point, attacker, k, variant, depth, budget):
    """The first move of a victory by continuous threats for ``attacker``, who is to move: fours and
    threes (a three threatens an open four) that win whatever the defender replies, of at most ``depth``
    threats, reading at most ``budget`` threats in all; -1 when none is found within those bounds (which
    proves nothing). Iterative deepening finds the shortest such victory first and keeps one deep line
    from spending the whole budget."""
    return read_vct(stones, W, action_point, attacker, k, variant, depth, budget)[0]
