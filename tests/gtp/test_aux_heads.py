"""GTP with a network that has the ownership and score heads (a fake): KataGo's score fields and the
tree's ownership in the analysis lines, dead stones and the score from the network's ownership, and
GoGui's score lead and ownership. Without the heads the output is today's (test_streaming, the goldens)."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

import gtp.state
from engine import Evaluation, PositionBatch
from engine.core.board import TO_PLAY
from engine.core.types import WHITE
from engine.search.evaluator import UniformEvaluator
from tests.gtp.helpers import answers, run_session

KATA_SCORED = re.compile(r"^move (\S+) visits (\d+) utility (-?[\d.]+) winrate ([\d.]+) scoreMean (-?[\d.]+) "
                         r"scoreStdev ([\d.]+) scoreLead (-?[\d.]+) prior ([\d.]+) lcb ([\d.]+) order (\d+) "
                         r"pv((?: \S+)+)$")


class WhiteOwnsAll:
    """Uniform priors and value 0; the heads say white owns every point and leads by 4.5 (stdev 3).

    Each call takes ``delay`` seconds, so that analysis lines come while a search runs: a search writes at most
    one line a tenth of a second, and one that ends sooner writes none before its move.
    """

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def evaluate(self, positions: PositionBatch, legal: np.ndarray | None = None) -> Evaluation:
        time.sleep(self.delay)
        batch = PositionBatch.stack(positions)
        white = np.where(batch.info[:, TO_PLAY] == WHITE, 1.0, -1.0).astype(np.float32)  # the side to move's view
        return UniformEvaluator().evaluate(batch, legal)._replace(
            ownership=np.repeat(white[:, None], batch.rules.num_points, axis=1), score_mean=4.5 * white,
            score_stdev=np.full(len(batch), 3.0, np.float32))


@pytest.fixture(autouse=True)
def heads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gtp.state, "load_evaluator", lambda rules, model, options: WhiteOwnsAll(0.02))


def test_kata_analysis_lines_carry_the_scores_and_the_tree_ownership() -> None:
    output = run_session("play b E5\n7 kata-genmove_analyze w 1 ownership true\n", size=9, visits=150)
    lines = output.split("\n\n")[1].split("\n")
    assert lines[0] == "=7" and lines[-1].startswith("play ") and len(lines) > 2
    for line in lines[1:-1]:
        moves, ownership = line.split(" ownership ")
        for part in moves.split("info ")[1:]:
            match = KATA_SCORED.match(part.strip())
            assert match, part
            move, mean, stdev, lead = match.group(1), *map(float, match.group(5, 6, 7))
            if move != "pass":  # two passes end the game: that line is scored exactly
                assert mean == lead == 4.5 and stdev == pytest.approx(3.0)  # white's view, as asked
        assert [float(x) for x in ownership.split()] == [1.0] * 81  # the network's, not the playouts'


def test_dead_stones_and_the_score_come_from_the_networks_ownership() -> None:
    """The playout estimate would call the lone A9 dead; the network gives white the board, E5 included."""
    out = answers("play b E5\nplay w A9\nfinal_status_list dead\nfinal_status_list alive\nfinal_status_list seki\n"
                  "final_score\n", size=9)
    assert out[2:] == ["E5", "A9", "", "W+88.5"]


def test_gogui_shows_the_score_lead_and_the_tree_ownership() -> None:
    out = answers("play b E5\ngogui-value\ngogui-ownership\n", size=9, visits=32)
    assert re.match(r"^white wins 50\.0%, lead W\+4\.5 \(\d+ visits\)$", out[1]), out[1]
    assert out[2].split("\n") == [" ".join(["-1.00"] * 9)] * 9  # black's view


def test_a_model_without_the_heads_is_told_once(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
                                                ) -> None:
    monkeypatch.setattr(gtp.state, "load_evaluator", lambda rules, model, options: UniformEvaluator())
    with caplog.at_level("WARNING"):
        run_session("boardsize 9\nboardsize 13\nname\n", size=9, model="no-heads.safetensors")
    assert caplog.text.count("no ownership and score heads") == 1
