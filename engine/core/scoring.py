"""Go scoring: area (Tromp-Taylor, Chinese) and territory (Japanese), with komi.

Scores are ``black - white - komi`` in points: positive means black leads.
Dead stones, when given, are taken off the board before counting: under area
scoring their points go to whoever then surrounds them; under territory
scoring they also count as prisoners. A region that touches both colours
(dame, shared liberties of a seki) belongs to nobody under either scoring.
Under territory scoring the eyes of chains in seki (:mod:`engine.core.seki`)
count for nobody either (the Japanese rule); area scoring counts them. The
compiled :func:`lead_of`, which the search and the playouts score finished
games with, counts the board as it stands and leaves seki to :func:`score`.

After a handicap, area counting gives White a point for each stone Black was
given beyond what it played (KataGo's ``whiteHandicapBonus``: ``N`` under
Chinese counting, ``N-1`` under AGA's, ``0`` under Japanese territory scoring
and the others). The bonus is part of the komi a handicap game is played and
scored at (:func:`with_handicap_bonus`), so the search's terminal values and
the final score both count it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import numpy as np

from engine.core.board import CAPTURED_BLACK, CAPTURED_WHITE, STONES, geometry
from engine.core.jit import njit
from engine.core.rules import Rules
from engine.core.seki import seki_stones
from engine.core.types import BLACK, EMPTY, WHITE

__all__ = ["ownership", "score", "region_owners", "lead_of", "seki_eye_points", "HANDICAP_BONUS_RULES",
           "handicap_bonus_rule", "white_handicap_bonus", "with_handicap_bonus"]

HANDICAP_BONUS_RULES = ("0", "N", "N-1")
"""White's compensation for ``N`` handicap stones, as KataGo's ``whiteHandicapBonus`` names it."""


@njit(cache=True)
def _label_regions(stones, W, action_point, region, owner_of_region):
    """Number the empty regions: ``region[p]`` for each empty padded point (-1 elsewhere) and
    ``owner_of_region[r]``, the only colour bordering region r (0 when both or none do)."""
    P = stones.shape[0]
    stack = np.empty(P, dtype=np.int64)
    nregions = 0
    for a in range(action_point.shape[0]):
        p = action_point[a]
        if stones[p] != EMPTY or region[p] >= 0:
            continue
        touches = 0
        stack[0] = p
        top = 1
        region[p] = nregions
        while top > 0:
            top -= 1
            s = stack[top]
            for d in (1, -1, W, -W):
                q = s + d
                cq = stones[q]
                if cq == EMPTY:
                    if region[q] < 0:
                        region[q] = nregions
                        stack[top] = q
                        top += 1
                elif cq == BLACK or cq == WHITE:
                    touches |= cq
        owner_of_region[nregions] = touches if touches == BLACK or touches == WHITE else 0
        nregions += 1


@njit(cache=True)
def region_owners(stones, W, action_point):
    """Owner of every board point under area counting (``int8[N*N]``: 0, BLACK or WHITE).

    A stone owns its point; an empty region belongs to a colour when only that
    colour's stones border it (Tromp-Taylor reachability), else to nobody.
    """
    n = action_point.shape[0]
    region = np.full(stones.shape[0], -1, dtype=np.int64)
    owner_of_region = np.zeros(n + 1, dtype=np.int8)
    _label_regions(stones, W, action_point, region, owner_of_region)
    owners = np.zeros(n, dtype=np.int8)
    for a in range(n):
        p = action_point[a]
        c = stones[p]
        owners[a] = c if c == BLACK or c == WHITE else owner_of_region[region[p]]
    return owners


@njit(cache=True)
def seki_eye_points(stones, W, action_point):
    """``(black, white)``: empty points of one colour's regions that border a chain in seki on padded
    ``stones`` (dead stones removed) -- the eyes territory scoring does not count."""
    n = action_point.shape[0]
    seki = seki_stones(stones, W, action_point)
    region = np.full(stones.shape[0], -1, dtype=np.int64)
    owner_of_region = np.zeros(n + 1, dtype=np.int8)
    _label_regions(stones, W, action_point, region, owner_of_region)
    in_seki = np.zeros(n + 1, dtype=np.bool_)
    for a in range(n):
        if not seki[a]:
            continue
        p = action_point[a]
        for d in (1, -1, W, -W):
            if region[p + d] >= 0:
                in_seki[region[p + d]] = True
    black = 0
    white = 0
    for a in range(n):
        r = region[action_point[a]]
        if r >= 0 and in_seki[r]:
            if owner_of_region[r] == BLACK:
                black += 1
            elif owner_of_region[r] == WHITE:
                white += 1
    return black, white


def _stones_without(cells: np.ndarray, size: int, dead: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
    """Padded stones with the dead actions emptied, and the colours removed (per action)."""
    geo = geometry(size)
    stones = cells[STONES].copy()
    dead_actions = np.fromiter(dead, dtype=np.int64)
    removed = stones[geo.action_point[dead_actions]].copy() if dead_actions.size else np.zeros(0, np.int16)
    if dead_actions.size:
        stones[geo.action_point[dead_actions]] = EMPTY
    return stones, removed


def ownership(cells: np.ndarray, size: int, dead: Iterable[int] = ()) -> np.ndarray:
    """``int8[N*N]`` owner of each point (0, BLACK, WHITE) under area counting."""
    geo = geometry(size)
    stones, _ = _stones_without(cells, size, dead)
    return region_owners(stones, geo.width, geo.action_point)


@njit(cache=True)
def lead_of(stones, info, W, action_point, komi, territory, dead_black, dead_white):
    """Black's lead on padded ``stones`` (dead stones already removed), komi included.

    ``territory`` selects territory scoring: owned empty points plus prisoners
    (captures in ``info`` and the ``dead_black`` / ``dead_white`` counts).
    """
    owners = region_owners(stones, W, action_point)
    lead = 0.0
    for a in range(action_point.shape[0]):
        owner = owners[a]
        if owner == 0 or (territory and stones[action_point[a]] != EMPTY):
            continue
        lead += 1.0 if owner == BLACK else -1.0
    if territory:
        lead += (info[CAPTURED_WHITE] + dead_white) - (info[CAPTURED_BLACK] + dead_black)
    return lead - komi


def score(cells: np.ndarray, info: np.ndarray, size: int, komi: float, scoring: str,
          dead: Iterable[int] = ()) -> float:
    """Black's lead in points under ``scoring`` ("area" or "territory"; the latter without seki eyes)."""
    geo = geometry(size)
    stones, removed = _stones_without(cells, size, dead)
    territory = scoring == "territory"
    lead = lead_of(stones, info, geo.width, geo.action_point, float(komi), territory,
                   int(np.count_nonzero(removed == BLACK)), int(np.count_nonzero(removed == WHITE)))
    if territory:
        black, white = seki_eye_points(stones, geo.width, geo.action_point)
        lead -= black - white
    return float(lead)


def handicap_bonus_rule(rules: Rules) -> str:
    """The handicap bonus of the rules' family: ``N`` for Chinese (area scoring, no suicide, any ko rule but
    situational superko), ``N-1`` for AGA (area scoring, situational superko, no suicide), ``0`` for every
    other (territory scoring, and the rules that allow suicide: Tromp-Taylor, New Zealand)."""
    if rules.game != "go" or rules.scoring != "area" or rules.suicide:
        return "0"
    return "N-1" if rules.ko == "situational" else "N"


def white_handicap_bonus(handicap: int, rule: str) -> int:
    """White's points for ``handicap`` stones (0 in an even game) under a bonus ``rule`` of
    :data:`HANDICAP_BONUS_RULES`; ValueError for another rule or a negative count."""
    if rule not in HANDICAP_BONUS_RULES:
        raise ValueError(f"a handicap bonus is one of {', '.join(HANDICAP_BONUS_RULES)}, not {rule!r}")
    if handicap < 0:
        raise ValueError(f"a handicap is a number of stones, not {handicap}")
    return {"0": 0, "N": handicap, "N-1": max(handicap - 1, 0)}[rule]


def with_handicap_bonus(rules: Rules, handicap: int, rule: str | None = None) -> Rules:
    """``rules`` at the komi a game with ``handicap`` black stones is scored at: White's bonus under ``rule``
    (None: :func:`handicap_bonus_rule` of the rules) added to the komi."""
    bonus = white_handicap_bonus(handicap, handicap_bonus_rule(rules) if rule is None else rule)
    return replace(rules, komi=rules.komi + bonus) if bonus else rules
