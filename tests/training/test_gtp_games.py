"""Games between GTP engines: GNU Go self-play data, matches, and engines that misbehave."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine.core.rules import Rules
from engine.formats.sgf import load_sgf
from training.gnugo_games import gnugo
from training.gnugo_games import main as gnugo_games_main
from training.gtp_games import GtpEngine, GtpEngineError, play_game
from training.gtp_games import main as gtp_match_main

# A GTP engine that answers every genmove with C3, legal once and then occupied.
STUBBORN = [sys.executable, "-c", (
    "import sys\n"
    "for line in sys.stdin:\n"
    "    word = line.split()[0] if line.split() else ''\n"
    "    print('= C3' if word == 'genmove' else '=', end='\\n\\n', flush=True)\n"
    "    if word == 'quit': break\n")]


@pytest.mark.gnugo
def test_gnugo_self_play_games_are_legal_scored_and_resumable(gnugo_path: str, tmp_path: Path) -> None:
    args = [str(tmp_path), "--games", "2", "--size", "5", "--level", "0", "--jobs", "1", "--gnugo", gnugo_path]
    result = CliRunner().invoke(gnugo_games_main, args)
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("gnugo-0-*.sgf"))
    assert [path.name for path in files] == ["gnugo-0-000000.sgf", "gnugo-0-000001.sgf"]
    for path in files:
        record = load_sgf(path.read_text())
        assert len(record.moves) >= 4 and record.result is not None
    again = CliRunner().invoke(gnugo_games_main, args)
    assert again.exit_code == 0 and "0 games written" in again.output and "2 were there" in again.output


@pytest.mark.gnugo
def test_a_match_between_two_gtp_engines_counts_both_colours(gnugo_path: str, tmp_path: Path) -> None:
    engine_a = f"{gnugo_path} --mode gtp --level 0"
    engine_b = f"{sys.executable} -c 'from engine.cli import main; main()' gtp --model uniform --visits 4"
    result = CliRunner().invoke(gtp_match_main, [engine_a, engine_b, "--games", "2", "--size", "5",
                                                 "--sgf-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "in 2 games" in result.output and "/1 wins as black" in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["game-0001.sgf", "game-0002.sgf"]


def test_an_illegal_move_from_an_engine_names_it() -> None:
    stubborn = GtpEngine(STUBBORN, "stubborn")
    try:
        with pytest.raises(GtpEngineError, match="stubborn played 'c3' as"):
            play_game(stubborn, stubborn, Rules.go(5, "chinese"), 0, np.random.default_rng(0))
    finally:
        stubborn.close()


def test_an_engine_that_cannot_start_is_a_clear_error() -> None:
    with pytest.raises(GtpEngineError, match="cannot start"):
        GtpEngine(["/no/such/engine", "--mode", "gtp"])


@pytest.mark.gnugo
def test_gnugo_refusing_a_command_is_reported(gnugo_path: str) -> None:
    engine = gnugo(gnugo_path, 0, 1)
    try:
        with pytest.raises(GtpEngineError, match="refused 'boardsize 99'"):
            engine.send("boardsize 99")
        assert engine.send("boardsize 5") == ""
    finally:
        engine.close()
