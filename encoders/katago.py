"""KataGo's input features (its version 7, read by every KataGo network of model version 8 and later).

``katago-v7`` writes 41 ``float32`` planes: KataGo's 22 spatial features,
then its 19 global features, each as a constant plane (so that symmetries,
caching and batching treat them like any other plane; the evaluator reads
them back at the first point). All are
from the side to move ("own" is the player about to move).

Spatial features
    0: on the board (all ones); 1, 2: own, opponent stones; 3, 4, 5: stones
    whose chain has 1, 2, 3 liberties; 6: ko (the simple-ko point and the points
    superko forbids); 7, 8: encore features (0: the engine's games have no
    encore); 9-13: where each of the last five moves was played (the last move
    first; the opponent's, then own, alternately); 14-17: KataGo's ladder
    features (laddered stones now, one and two moves ago, and the moves that
    ladder an opponent's chain of two liberties: :mod:`engine.core.ladders`);
    18, 19: own, opponent area under area scoring
    (pass-alive chains and territory, stones, and empty regions walled in by
    one colour: :mod:`engine.core.pass_alive`); 20, 21: encore stones (0).
Global features
    0-4: each of the last five moves was a pass; 5: komi from the side to move's
    view / 20 (clipped to the board's area + 20); 6, 7: ko rule (simple 0, 0;
    positional 1, 0.5; situational 1, -0.5); 8: suicide allowed; 9: territory
    scoring; 10, 11: seki and group tax (territory scoring: seki tax, as
    KataGo's Japanese rules); 12, 13: encore phase (0); 14: a pass would end
    the game (the last move was a pass); 15, 16: playout doubling advantage
    (0); 17: button Go (0); 18: the komi's parity wave under area scoring
    (KataGo's triangle wave of the komi's distance above the nearest komi
    that allows a draw).

The history features need the moves: a Position knows its last moves from its
ring of recent boards, up to the moves it has played since its setup.

Under area scoring where a pass does not concede the dead stones on the board
(KataGo's ``friendlyPassOk``: the player removes them when it scores, as the
front ends do), a position whose last move was a pass shows no history at all:
no last moves, no passes, no "a pass would end the game", and the ladder planes
of the board now in place of the earlier boards'. KataGo hides it so, so that
the network does not read a pass back as the end of a game that its rules play on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from encoders.base import Encoder, State
from encoders.liberties import mark_ko, signed_liberties
from engine.core.board import (
    HISTORY,
    HISTORY_LEN,
    LAST,
    MOVES,
    PASS_POINT,
    PASSES,
    RING,
    ROWS,
    STONES,
    TO_PLAY,
)
from engine.core.jit import njit
from engine.core.ladders import ladder_features
from engine.core.pass_alive import area_kernel
from engine.core.position import PositionBatch
from engine.core.rules import Rules
from engine.core.types import EMPTY, WHITE

__all__ = ["KataGoEncoder", "SPATIAL_FEATURES", "GLOBAL_FEATURES", "komi_wave"]

SPATIAL_FEATURES = 22
GLOBAL_FEATURES = 19
HISTORY_MOVES = 5
KOMI_CLIP = 20.0


def komi_wave(self_komi: float, area: int) -> float:
    """KataGo's parity feature: a triangle wave of the komi's distance above the nearest komi that allows a
    draw (even komis on a board of even area, odd ones on an odd area)."""
    if area % 2 == 0:
        floor = np.floor(self_komi / 2.0) * 2.0
    else:
        floor = np.floor((self_komi - 1.0) / 2.0) * 2.0 + 1.0
    delta = min(max(self_komi - floor, 0.0), 2.0)
    return delta if delta < 0.5 else 1.0 - delta if delta < 1.5 else delta - 2.0


def rule_features(rules: Rules) -> np.ndarray:
    """``float32[2, 19]``: the global features the rules alone give, for black to move (row 0) and white."""
    features = np.zeros((2, GLOBAL_FEATURES), np.float32)
    area = rules.size * rules.size
    for row, sign in ((0, -1.0), (1, 1.0)):
        komi = float(np.clip(sign * rules.komi, -area - KOMI_CLIP, area + KOMI_CLIP))
        features[row, 5] = komi / 20.0
        if rules.ko in ("positional", "situational"):
            features[row, 6] = 1.0
            features[row, 7] = 0.5 if rules.ko == "positional" else -0.5
        features[row, 8] = float(rules.suicide)
        if rules.scoring == "territory":
            features[row, 9] = 1.0
            features[row, 10] = 1.0
        else:
            features[row, 18] = komi_wave(komi, area)
    return features


@njit(cache=True)
def katago_kernel(
    cells, info, action_point, point_action, width, zobrist, empty_cells, banned, area_features, suicide, rule_rows,
    hide_after_pass, out,
):
    """Fill ``out[B, 41, N*N]`` (zeroed) with the features of the module docstring. ``rule_rows[2, 19]``:
    the rules' global features for black and white to move; ``zobrist``, ``empty_cells``: the geometry's;
    ``hide_after_pass``: a position whose last move was a pass shows no history (see the module docstring)."""
    points = action_point.shape[0]
    area = np.zeros(cells.shape[2], np.int16)
    code = np.empty(points, np.int16)
    for b in range(cells.shape[0]):
        me = info[b, TO_PLAY]
        opp = 3 - me
        stones = cells[b, STONES]
        signed_liberties(cells[b], me, action_point, 4, code)
        for a in range(points):
            out[b, 0, a] = 1.0
            s = stones[action_point[a]]
            if s == me:
                out[b, 1, a] = 1.0
            elif s == opp:
                out[b, 2, a] = 1.0
            n = abs(code[a])
            if 1 <= n <= 3:
                out[b, 2 + n, a] = 1.0
        mark_ko(info[b], point_action, banned, b, out[b, 6])

        ring = info[b, RING]
        hidden = hide_after_pass and info[b, PASSES] >= 1
        known = 0 if hidden else min(info[b, MOVES], HISTORY_MOVES)
        for t in range(1, known + 1):
            newer = STONES if t == 1 else HISTORY + (ring - t + 1 + HISTORY_LEN) % HISTORY_LEN
            older = HISTORY + (ring - t + HISTORY_LEN) % HISTORY_LEN
            found = -1
            for a in range(points):
                p = action_point[a]
                if cells[b, newer, p] != EMPTY and cells[b, older, p] == EMPTY:
                    found = a
            passed = info[b, LAST] == PASS_POINT if t == 1 else found < 0
            if passed:
                out[b, SPATIAL_FEATURES + t - 1, :] = 1.0
            elif found >= 0:
                out[b, 8 + t, found] = 1.0

        ladder_features(cells[b], info[b], zobrist, empty_cells, width, action_point, known, out[b, 14:18])

        row = 1 if me == WHITE else 0
        for g in range(5, GLOBAL_FEATURES):
            if rule_rows[row, g] != 0.0:
                out[b, SPATIAL_FEATURES + g, :] = rule_rows[row, g]
        if info[b, PASSES] >= 1 and not hidden:
            out[b, SPATIAL_FEATURES + 14, :] = 1.0

        if area_features:
            area[:] = 0
            area_kernel(cells[b], width, suicide, area)
            for a in range(points):
                owner = area[action_point[a]]
                if owner == me:
                    out[b, 18, a] = 1.0
                elif owner == opp:
                    out[b, 19, a] = 1.0


class KataGoEncoder(Encoder):
    """KataGo's version 7 input features (see the module docstring). ``pass_alive_suicide``: compute the
    pass-alive area as if suicide were legal (what a network's file may ask for); ``friendly_pass``: KataGo's
    ``friendlyPassOk`` (off: a pass after a pass ends the game on the board as it stands, as Tromp-Taylor).

    The komi and the rules are inputs: positions are encoded under their own rules (a game whose komi
    changed after the encoder was made reads its new komi), arrays without rules under the encoder's.
    """

    name = "katago-v7"
    num_planes = SPATIAL_FEATURES + GLOBAL_FEATURES
    dtype = np.dtype(np.float32)
    games = ("go",)
    uses_ko = True
    rows = ROWS

    def __init__(self, rules: Rules, pass_alive_suicide: bool = False, friendly_pass: bool = True) -> None:
        super().__init__(rules)
        self.pass_alive_suicide = pass_alive_suicide
        self.friendly_pass = friendly_pass
        self.suicide = bool(rules.suicide or pass_alive_suicide)
        self._rule_rows = rule_features(rules)
        self._by_rules: dict[Rules, KataGoEncoder] = {rules: self}

    def encode(self, state: State, banned: np.ndarray | None = None) -> np.ndarray:
        return Encoder.encode(self._under(state.rules), state, banned)

    def encode_batch(self, states: Sequence[State], banned: np.ndarray | None = None) -> np.ndarray:
        rules = states.rules if isinstance(states, PositionBatch) else states[0].rules if len(states) else None
        return Encoder.encode_batch(self if rules is None else self._under(rules), states, banned)

    def _under(self, rules: Rules) -> "KataGoEncoder":
        """This encoder for ``rules`` (another komi or ko rule; the game and size are checked when encoding)."""
        if rules not in self._by_rules:
            self._by_rules[rules] = KataGoEncoder(rules, self.pass_alive_suicide, self.friendly_pass)
        return self._by_rules[rules]

    def _fill(self, cells: np.ndarray, info: np.ndarray, banned: np.ndarray, out: np.ndarray) -> None:
        geo = self.geo
        katago_kernel(
            cells,
            info,
            geo.action_point,
            geo.point_action,
            geo.width,
            geo.zobrist,
            geo.empty_cells,
            banned,
            self.rules.scoring == "area",
            self.suicide,
            self._rule_rows,
            self.friendly_pass and self.rules.scoring == "area",
            out,
        )
