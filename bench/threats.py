"""``engine bench threats``: Gomoku's threat reading, threats read per second.

The workload is the threat guard's reading (:mod:`engine.search.guard`): every position of seven games that
Rapfi's classical evaluator played against itself (15x15 freestyle, two random opening stones, 2 s a move),
read for a victory by continuous threats (:func:`engine.core.threats.read_vct`) of the side to move and of its
opponent. Real games, because threats are what such games are made of and random stones hold few. One core.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from bench.timing import measure_rate
from engine.core.board import STONES, TO_PLAY, geometry
from engine.core.coords import sgf_to_action
from engine.core.dispatch import VARIANT, WIN_LENGTH, pack_rules
from engine.core.game import Game
from engine.core.rules import Rules
from engine.core.threats import read_vct
from engine.core.types import opponent

__all__ = ["GAMES", "measure_threats"]

GAMES = (
    "hm hk hl gl gk im jm ij ji kj il jj hj in fm en fl fn el fi ej di dm gn hn dn dj dl cl em gm cm bm ek ei fj gi",
    "oe if le jg he id jc ib kc lc ke kf ic jf jd hd ie ig ld ge jb gg hh gf gd gc eg ff fg hg ef hi hj ih gj eh gi "
    "fh ik df",
    "om ki lj kh ji jg kg if li lh jj ih jh le hf lf ii nd me jk jl ij ie ig he hi gj hg hh gf jf fe ed ge je ee",
    "ao ke ig jd hf lf ic jh kg lh lg jg jf mh mg nh if li he gd je ie kd hg lc md hd gc id ih hh le kf ld nd lb",
    "jn jk jl il kj hk ik hj hl gj fi gm gk ij gn hm ek dj hn in dl cm hi gi fl el ih cl gl bl",
    "ac kh kj ij kl lk kk km lj nj jl mi il im hn hl gl jn hk ji gk jk fm en oi li jj jm jh",
    "ee ff gg df eg fg fd gf ef he eh fe ej ie hg ih hf hh hc hd id jc je fh gh if kd jf",
)
"""Rapfi 0.43 (classical) against itself, SGF points in the order played; the first two are the random stones."""


def _positions() -> list[tuple[np.ndarray, int]]:
    """The stones and the side to move after each move of :data:`GAMES` but the last (played as freestyle:
    renju reads them too, and the games hold points renju forbids black)."""
    rules = Rules.gomoku(15, 5, "freestyle")
    positions = []
    for moves in GAMES:
        game = Game(rules)
        for point in moves.split()[:-1]:
            game.play(sgf_to_action(point, rules.size))
            positions.append((game.position.cells[STONES].copy(), int(game.position.info[TO_PLAY])))
    return positions


def measure_threats(variant: str, depth: int, budget: int, seconds: float, runs: int) -> dict[str, Any]:
    """Threats read per second by :func:`~engine.core.threats.read_vct` over the positions of :data:`GAMES`
    under ``variant`` (freestyle, standard or renju), ``depth`` threats deep and ``budget`` threats a read
    (median of ``runs`` runs of at least ``seconds``, each whole passes over the positions)."""
    rules = Rules.gomoku(15, 5, variant)
    geo, spec = geometry(rules.size), pack_rules(rules)
    positions = _positions()
    found = 0

    def one_pass() -> float:
        nonlocal found
        read = found = 0
        for stones, mover in positions:
            for color in (mover, opponent(mover)):
                move, threats = read_vct(stones.copy(), geo.width, geo.action_point, color, spec[WIN_LENGTH],
                                         spec[VARIANT], depth, budget)
                read += threats
                found += move >= 0
        return float(read)

    started = time.perf_counter()
    threats_per_pass = one_pass()   # compile or load the kernels
    warm_up = time.perf_counter() - started
    rate = measure_rate(one_pass, seconds, runs)
    reads = 2 * len(positions)
    return {"rules": str(rules), "positions": len(positions), "reads": reads, "depth": depth, "budget": budget,
            "victories_found": found, "threats_per_pass": int(threats_per_pass), "runs": runs, "seconds": seconds,
            "threats_per_s": rate.median, "threats_per_s_runs": rate.runs,
            "reads_per_s": rate.median * reads / max(threats_per_pass, 1.0), "warm_up_s": warm_up}
