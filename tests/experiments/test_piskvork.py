"""Games between Gomocup brains (``experiments/piskvork.py``, beside the recipes that use it): the rules core
referees, late answers lose on time, anything but a legal point loses by forfeit, and ``engine gomocup`` plays
through the manager without fault."""

from __future__ import annotations

import os
import resource
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import Color, Rules, load_sgf_file
from experiments.piskvork import (
    Limits,
    PiskvorkConfig,
    gomocup_rule,
    peak_memory,
    play_piskvork_game,
    play_piskvork_match,
)

FAKE = [sys.executable, str(Path(__file__).parents[1] / "support" / "fake_brain.py")]
SMALL = Rules.gomoku(7, 5, "freestyle")
QUICK = Limits(turn=1.0, match=30.0, grace=2.0)


def test_brains_that_play_well_finish_the_game_the_rules_core_judges() -> None:
    played = play_piskvork_game(FAKE, FAKE, SMALL, [24, 0], QUICK)
    assert played.fault is None and played.game.is_over
    assert played.outcome == played.game.outcome()
    moves = len(played.game.moves) - 2
    assert len(played.seconds[Color.BLACK]) + len(played.seconds[Color.WHITE]) == moves
    assert played.game.moves[2].action == 1   # black's first move: the first empty point after 0,0


@pytest.mark.parametrize("fault, reason, says", [
    ("sleep:2:1.3", "time", "took 1."),
    ("error:1", "forfeit", "ERROR"),
    ("taken:2", "forfeit", "occupied"),
    ("exit:1", "forfeit", "said nothing"),
])
def test_a_brain_that_answers_late_or_wrongly_loses(fault: str, reason: str, says: str) -> None:
    played = play_piskvork_game(FAKE, FAKE + [fault], SMALL, [24], QUICK)
    assert played.outcome.winner == Color.BLACK and played.outcome.reason == reason
    assert played.fault is not None and says in played.fault and "white" in played.fault


def test_without_a_match_limit_only_the_turn_limit_counts() -> None:
    played = play_piskvork_game(FAKE, FAKE + ["sleep:1:0.5", "sleep:2:0.5"], SMALL, [24],
                                Limits(turn=1.0, match=0.0, grace=2.0))
    assert played.fault is None and played.game.is_over


def test_games_played_as_data_keep_a_late_move() -> None:
    late = FAKE + ["sleep:2:1.3"]
    played = play_piskvork_game(FAKE, late, SMALL, [24], Limits(turn=1.0, match=30.0, grace=2.0, late_loses=False))
    assert played.fault is None and played.game.is_over and played.outcome.reason != "time"
    assert max(played.seconds[Color.WHITE]) > 1.0


def test_peak_memory_is_the_peak_the_kernel_reports_in_bytes_and_none_for_a_gone_process() -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024   # Linux: KiB
    peak = peak_memory(os.getpid())
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert peak is not None and before // 2 <= peak <= 2 * after
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert peak_memory(gone.pid) is None


def test_gomocup_rules() -> None:
    assert [gomocup_rule(Rules.gomoku(15, 5, v)) for v in ("freestyle", "standard", "renju")] == [0, 1, 4]
    with pytest.raises(ValueError, match="five in a row"):
        gomocup_rule(Rules.gomoku(9, 4))


def test_engine_gomocup_plays_a_match_through_the_manager(tmp_path: Path) -> None:
    """Our brain (uniform priors, so quick) against the fake one on 9x9, colours alternating: no fault, every
    game on record, the thinking times and peak memory reported."""
    brain = shlex.join([sys.executable, "-c", "from engine.cli import main; main()", "gomocup", "--model",
                        "uniform", "--visits", "64"])
    config = PiskvorkConfig(games=2, rules=Rules.gomoku(9, 5, "freestyle"), limits=Limits(turn=2.0, match=60.0))
    match = play_piskvork_match(brain, shlex.join(FAKE), config, tmp_path)
    assert match.result.games == 2 and not match.faults
    assert match.result.a_black_games == 1
    records = [load_sgf_file(tmp_path / f"game-{i:04d}.sgf") for i in (1, 2)]
    assert [r.black_name for r in records] == ["A", "B"] and all(r.result is not None for r in records)
    assert max(match.a_seconds) < 2.0 and np.isfinite(match.to_dict()["a_time"]["p99_s"])
    summary = match.to_dict()
    assert summary["games"] == 2 and summary["faults"] == {}


def test_paired_openings_give_each_opening_to_both_colours() -> None:
    paired = PiskvorkConfig(games=4, seed=3, paired=True)
    single = PiskvorkConfig(games=4, seed=3)
    openings = [paired.opening(i) for i in range(4)]
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[0] != openings[2]
    assert all(len(opening) == 2 for opening in openings)
    assert single.opening(0) == openings[0] and single.opening(1) != single.opening(0)
    assert single.opening(2) == paired.opening(4)


def test_an_opening_list_opens_each_pair_of_games_with_its_next_line() -> None:
    config = PiskvorkConfig(games=6, paired=True, openings=("0,0, 1,0, 0,1", "-2,-2, 2,2, 3,3"))
    centre = 7 * 15 + 7
    assert config.opening(0) == config.opening(1) == [centre, centre + 1, centre + 15]
    assert config.opening(2) == config.opening(3) == [centre - 32, centre + 32, centre + 48]
    assert config.opening(4) == config.opening(0)   # the list starts again
