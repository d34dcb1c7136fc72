"""The GTP client and the players over it: GNU Go self-play data, matches, and engines that misbehave or hang."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.core.rules import Rules
from engine.core.types import Outcome
from engine.formats.sgf import load_sgf
from training.chunks import load_samples
from training.errors import PlayerError
from training.gather import GatherConfig, GatherTarget, gather, list_inputs, sgf_final_board
from training.gtp_client import GTPClient, GTPEngineError, GTPError, gnugo_argv
from training.gtp_player import GtpPlayer
from training.players import play_through
from training.referee import referee_game


def _fake_engine(genmove: str) -> list[str]:
    """A GTP engine that answers ``=`` to everything and ``genmove`` with ``genmove`` (Python code run there)."""
    return [sys.executable, "-c", (
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    word = line.split()[0] if line.split() else ''\n"
        f"    answer = ({genmove}) if word == 'genmove' else '='\n"
        "    print(answer, end='\\n\\n', flush=True)\n"
        "    if word == 'quit': break\n")]


STUBBORN = _fake_engine("'= C3'")  # legal once, then occupied
HUNG = _fake_engine("time.sleep(60)")


@pytest.mark.gnugo
def test_gnugo_self_play_games_are_legal_scored_and_resumable(gnugo_path: str, tmp_path: Path) -> None:
    args = ["gnugo-games", str(tmp_path), "--games", "2", "--size", "5", "--level", "0", "--jobs", "1",
            "--gnugo", gnugo_path]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob("gnugo-0-*.sgf"))
    assert [path.name for path in files] == ["gnugo-0-000000.sgf", "gnugo-0-000001.sgf"]
    for path in files:
        record = load_sgf(path.read_text())
        assert len(record.moves) >= 4 and record.result is not None
        assert record.black_name == "GNU Go level 0"
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "0 games written" in again.output and "2 were there" in again.output


@pytest.mark.gnugo
def test_gnugo_games_carry_gnu_gos_verdict_for_the_ownership_and_score_targets(gnugo_path: str,
                                                                                  tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    args = ["gnugo-games", str(sgf), "--games", "4", "--size", "7", "--level", "0", "--jobs", "1",
            "--random-moves", "2", "--komi", "4.5", "--gnugo", gnugo_path]
    assert CliRunner().invoke(main, args).exit_code == 0
    passed = []
    for path in sorted(sgf.glob("*.sgf")):
        record = load_sgf(path.read_text())
        game = record.replay()
        territory = record.territory
        assert (territory is not None) == (game.position.passes >= 2 and record.result.reason == "score"), path.name
        if territory is not None:
            passed.append(path.name)
            final, disagrees = sgf_final_board(record)
            assert final is not None and not disagrees, path.name
            assert Outcome.from_lead(final.score) == record.result   # GNU Go's final_score, RE
    assert passed, "no game ended by passing"
    summary = gather(list_inputs(sgf, "sgf"), tmp_path / "chunks", GatherTarget("go", 7, "sevenplane"),
                     GatherConfig(kind="sgf", skip_moves=2))
    assert (summary.scored, summary.disagreements) == (len(passed), 0)
    samples = load_samples([tmp_path / "chunks"])
    assert samples.aux_mask.any() and int(samples.aux_mask.sum()) <= len(samples)
    ownership = samples.batch_at(np.flatnonzero(samples.aux_mask))[3]
    assert np.all(np.abs(ownership).sum(axis=1) > 0), "a scored board has owned points"


@pytest.mark.gnugo
def test_a_match_between_two_gtp_engines_counts_both_colours(gnugo_path: str, tmp_path: Path) -> None:
    engine_a = f"{gnugo_path} --mode gtp --level 0"
    engine_b = f"{sys.executable} -c 'from engine.cli import main; main()' gtp --model uniform --visits 4"
    result = CliRunner().invoke(main, ["match", engine_a, engine_b, "--games", "2", "--size", "5",
                                       "--sgf-dir", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["games"] == 2 and summary["a_black_games"] == 1 and summary["rules"].startswith("chinese")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["game-0001.sgf", "game-0002.sgf"]


PASSER = _fake_engine("'= pass'")
COUNTING_REFEREE = [sys.executable, "-c", (
    "import sys\n"
    "plays = 0\n"
    "for line in sys.stdin:\n"
    "    word = line.split()[0] if line.split() else ''\n"
    "    plays = 0 if word == 'clear_board' else plays + (word == 'play')\n"
    "    print(f'= W+{plays}' if word == 'final_score' else '=', end='\\n\\n', flush=True)\n"
    "    if word == 'quit': break\n")]


def test_a_referee_scores_the_games_it_is_shown_on_parallel_jobs(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["match", shlex.join(PASSER), shlex.join(PASSER), "--games", "4", "--size", "5",
                                       "--random-moves", "3", "--referee", shlex.join(COUNTING_REFEREE),
                                       "--jobs", "2", "--sgf-dir", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    # 3 random moves and two passes: the referee saw 5 moves and gave white the game by that count
    assert summary["games"] == 4 and summary["a_black_games"] == 2 and summary["wins"] == 2
    assert 0 < summary["a_move_seconds"] < 5 and 0 < summary["b_move_seconds"] < 5  # both engines' genmoves timed
    records = [load_sgf((tmp_path / f"game-{i:04d}.sgf").read_text()) for i in range(1, 5)]
    assert all(record.result == Outcome.from_sgf("W+5") for record in records)


def test_a_resumed_match_plays_only_the_games_it_lacks(tmp_path: Path) -> None:
    def match(games: int, *extra: str) -> dict[str, int]:
        result = CliRunner().invoke(main, ["match", shlex.join(PASSER), shlex.join(PASSER), "--games", str(games),
                                           "--size", "5", "--random-moves", "3", "--referee",
                                           shlex.join(COUNTING_REFEREE), "--sgf-dir", str(tmp_path), "--json", *extra])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    first = match(3)
    written = {path.name: path.stat().st_mtime_ns for path in tmp_path.glob("*.sgf")}
    (tmp_path / "game-0002.sgf").unlink()   # as if the match had stopped before its second game
    whole = match(5, "--resume")
    assert whole["games"] == 5 and whole["a_black_games"] == 3 and whole["wins"] == first["wins"] + 1
    assert first["resumed"] == 0 and whole["resumed"] == 2, "the kept games 1 and 3 are not timed again"
    assert {name: (tmp_path / name).stat().st_mtime_ns for name in ("game-0001.sgf", "game-0003.sgf")} == {
        name: written[name] for name in ("game-0001.sgf", "game-0003.sgf")}, "a kept game was played again"
    assert sorted(path.name for path in tmp_path.glob("*.sgf")) == [f"game-{i:04d}.sgf" for i in range(1, 6)]
    (tmp_path / "game-0004.sgf").write_text((tmp_path / "game-0003.sgf").read_text())   # A white in game 4, not black
    refused = CliRunner().invoke(main, ["match", shlex.join(PASSER), shlex.join(PASSER), "--games", "5", "--size",
                                        "5", "--sgf-dir", str(tmp_path), "--resume"])
    assert refused.exit_code != 0 and "game-0004.sgf is not a finished game of this match" in refused.output


def test_a_hung_engine_ends_the_match_at_its_timeout() -> None:
    result = CliRunner().invoke(main, ["match", shlex.join(HUNG), shlex.join(STUBBORN), "--games", "1", "--size", "5",
                                       "--timeout", "0.5"])
    assert result.exit_code == 1
    assert "A gave no answer to 'genmove B' within 0.5 s" in result.output


def test_an_illegal_move_from_an_engine_names_it() -> None:
    with GTPClient(STUBBORN, name="stubborn") as client:
        stubborn = GtpPlayer(client)
        with pytest.raises(PlayerError, match="stubborn played 'c3' as"):
            play_through(referee_game(stubborn, stubborn, Rules.go(5, "chinese"), 0, np.random.default_rng(0)))


def test_an_engine_that_cannot_start_is_a_clear_error() -> None:
    with pytest.raises(GTPEngineError, match="cannot start"):
        GTPClient(["/no/such/engine", "--mode", "gtp"])


@pytest.mark.gnugo
def test_gnugo_refusing_a_command_is_reported(gnugo_path: str) -> None:
    with GTPClient(gnugo_argv(gnugo_path, "--seed", "1")) as engine:
        with pytest.raises(GTPError, match="gnugo refused 'boardsize 99'"):
            engine.send("boardsize 99")
        assert engine.send("boardsize 5") == ""
