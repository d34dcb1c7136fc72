"""The network's raw output, as Leela Zero and KataGo show theirs: ``heatmap`` and ``kata-raw-nn``.

Both evaluate the current position once, without search or cache, so that a
network's output can be checked against its home engine::

    heatmap [SYMMETRY|average|all]    (Leela Zero; default symmetry 0)
    kata-raw-nn SYMMETRY|all          (KataGo)

``heatmap`` writes to stderr, as Leela Zero does, and answers an empty
response: 19 rows (for N x N, N rows from the top) of the policy times 1000
truncated to an integer, each ``%3d `` and 0 on stones; then ``pass: P`` and
``winrate: W`` (the side to move's, ``%f``). The policy is the softmax over
every action, legal or not, as Leela Zero's. ``average`` averages the policy
and the winrate over the 8 symmetries; ``all`` writes each symmetry's.

``kata-raw-nn`` answers ``symmetry S``, ``whiteWin``, ``whiteLoss``,
``noResult`` (0), with a score head ``whiteLead``, ``whiteScoreSelfplay``
and ``whiteScoreSelfplaySq``, then ``policy`` (N rows from the top, the
softmax over the legal moves, ``NAN`` on illegal points), ``policyPass`` and,
with an ownership head, ``whiteOwnership`` (N rows, -1 to 1). All are from
white's view, as KataGo's.

Symmetries are numbered as each engine numbers them (bit 4 transposes, 2
mirrors the columns, 1 the rows, Leela Zero counting rows from the bottom and
KataGo from the top); the tables below name the same transforms in
``encoders.symmetry``'s numbering, which the evaluator takes.
"""

from __future__ import annotations

import logging

import numpy as np

from engine import WHITE, CachedNetEvaluator, masked_softmax
from gtp.protocol import SYNTAX_ERROR, GtpError
from gtp.registry import Registry, Request
from gtp.state import EngineState, parse_int

__all__ = ["LEELA_SYMMETRIES", "KATAGO_SYMMETRIES", "RAW_LOG", "heatmap_text", "register"]

LEELA_SYMMETRIES = (0, 6, 4, 2, 7, 1, 3, 5)
"""Leela Zero's symmetry s is ``encoders.symmetry``'s ``LEELA_SYMMETRIES[s]``."""
KATAGO_SYMMETRIES = (0, 6, 4, 2, 5, 1, 3, 7)
"""KataGo's symmetry s is ``encoders.symmetry``'s ``KATAGO_SYMMETRIES[s]``."""
RAW_LOG = logging.getLogger("gtp.raw")
"""Where ``heatmap`` writes; ``engine gtp`` sends it to stderr as bare lines, as Leela Zero prints them."""


def _evaluator(state: EngineState) -> CachedNetEvaluator:
    """The network the player searches with, however it runs (torch, numpy, or numpy until torch is ready)."""
    evaluator = state.player.evaluator
    if not isinstance(evaluator, CachedNetEvaluator):
        raise GtpError("no network to show: start the engine with --model PATH")
    return evaluator


def _numbers(word: str) -> list[int]:
    """The symmetries ``all`` or one number 0..7 asks for."""
    return list(range(8)) if word == "all" else [parse_int(word, 0, 7)]


def heatmap_text(policy: np.ndarray, winrate: float, stones: np.ndarray) -> str:
    """Leela Zero's heatmap: ``policy float[N*N + 1]`` (probabilities), rows from the top, 0 on ``stones``."""
    size = int(round(np.sqrt(policy.size - 1)))
    permille = np.where(stones.reshape(-1), 0, (policy[:-1] * 1000).astype(np.int64)).reshape(size, size)
    rows = ["".join(f"{value:3d} " for value in row) for row in permille]
    return "\n".join(rows + [f"pass: {int(policy[-1] * 1000)}", f"winrate: {winrate:f}"])


def heatmap(state: EngineState, request: Request) -> str:
    """``heatmap [SYMMETRY|average|all]``: the raw policy and winrate on stderr (see the module docstring)."""
    if len(request.args) > 1:
        raise GtpError(SYNTAX_ERROR)
    word = request.args[0] if request.args else "0"
    evaluator, position = _evaluator(state), state.game.position
    average = word in ("average", "avg")
    outputs = [evaluator.raw([position], LEELA_SYMMETRIES[s]) for s in (range(8) if average else _numbers(word))]
    policies = [masked_softmax(out.policy, np.ones_like(out.policy, dtype=bool))[0] for out in outputs]
    winrates = [(1 + float(out.value[0])) / 2 for out in outputs]
    if average:
        policies, winrates = [np.mean(policies, axis=0)], [float(np.mean(winrates))]
    stones = position.board() != 0
    for policy, winrate in zip(policies, winrates):
        RAW_LOG.info("%s", heatmap_text(policy, winrate, stones))
    return ""


def _rows(values: np.ndarray, size: int) -> list[str]:
    return [" ".join("NAN" if np.isnan(x) else f"{x:.6f}" for x in row) for row in values.reshape(size, size)]


def kata_raw_nn(state: EngineState, request: Request) -> str:
    """``kata-raw-nn SYMMETRY|all``: the raw output as KataGo gives it (see the module docstring)."""
    if len(request.args) != 1:
        raise GtpError(SYNTAX_ERROR)
    evaluator, game = _evaluator(state), state.game
    size, legal = game.rules.size, game.legal_mask()
    white = 1.0 if game.position.to_play == WHITE else -1.0   # the side to move's view -> white's
    blocks = []
    for number in _numbers(request.args[0]):
        out = evaluator.raw([game.position], KATAGO_SYMMETRIES[number])
        win = (1 + white * float(out.value[0])) / 2
        lines = [f"symmetry {number}", f"whiteWin {win:.6f}", f"whiteLoss {1 - win:.6f}", "noResult 0.000000"]
        if out.score_mean is not None and out.score_stdev is not None:
            mean, stdev = white * float(out.score_mean[0]), float(out.score_stdev[0])
            lines += [f"whiteLead {mean:.6f}", f"whiteScoreSelfplay {mean:.6f}",
                      f"whiteScoreSelfplaySq {stdev * stdev + mean * mean:.6f}"]
        policy = np.where(legal, masked_softmax(out.policy, legal[None])[0], np.nan)
        lines += ["policy", *_rows(policy[:-1], size), f"policyPass {policy[-1]:.6f}"]
        if out.ownership is not None:
            lines += ["whiteOwnership", *_rows(white * out.ownership[0], size)]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def register(registry: Registry) -> None:
    registry.add("heatmap", heatmap)
    registry.add("kata-raw-nn", kata_raw_nn)
