"""Levels at the front ends: ``engine gtp --level``, and KaTrain's ``-human-model`` and ``humanSLProfile`` on
``engine analysis``, which the nearest level answers."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from engine import LEVELS, gtp_to_action, level_named
from engine.cli import main
from gtp.kata_config import AnalysisConfig, ConfigError, apply_settings, profile_level
from tests.gtp.helpers import served_config
from tests.gtp.test_kata_analysis import CONFIG, query, results, serve


def test_gtp_level_plays_the_levels_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    player = served_config(monkeypatch, "--level", "10k", "--no-resign").player
    level = level_named("10k")
    assert (player.visits, player.temperature, player.root_temperature, player.blind_spots, player.near_best) == (
        level.visits, level.temperature, level.root_temperature, level.blind_spots, 0.0)
    assert player.temperature_moves is not None and player.temperature_moves > 10_000   # every move is drawn
    assert player.resign_threshold is None   # the other options still apply
    full = served_config(monkeypatch, "--level", "full").player
    assert full == served_config(monkeypatch).player


@pytest.mark.parametrize("args,message", [(["--level", "30k"], "--level"),
                                          (["--level", "10k", "--visits", "50"], "not both")])
def test_bad_levels_are_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["gtp", *args], input="")
    assert result.exit_code == 2 and message in result.output


@pytest.mark.parametrize("profile,level", [("rank_20k", "20k"), ("rank_5k", "6k"), ("preaz_3d", "full"),
                                           ("preaz_1d", "1d"), ("rank_9d", "full"), ("proyear_2020", "full")])
def test_human_profiles_map_onto_the_nearest_level(profile: str, level: str) -> None:
    assert profile_level(profile).name == level
    config, unknown = apply_settings(AnalysisConfig(), {"humanSLProfile": profile})
    assert config.human_level == level_named(level) and unknown == []


@pytest.mark.parametrize("profile", ["rank_5x", "amateur_5k", "proyear_old", ""])
def test_other_profiles_are_refused_by_name(profile: str) -> None:
    with pytest.raises(ConfigError, match="humanSLProfile"):
        profile_level(profile)


def test_a_profile_query_answers_the_levels_move_distribution_and_warns_once(
        caplog: pytest.LogCaptureFixture) -> None:
    """KaTrain's human AI: a humanSLProfile in overrideSettings; the response's humanPolicy is what the level
    would draw its move from (its few visits' moves only, summing to 1), and stderr says once which level plays."""
    settings = {"humanSLProfile": "rank_10k", "ignorePreRootHistory": False}
    with caplog.at_level(logging.WARNING, logger="gtp.kata_session"):
        replies = results(serve([query("h1", overrideSettings=settings, includePolicy=True),
                                 query("h2", overrideSettings=settings, includePolicy=True),
                                 query("plain", includePolicy=True)], config=replace(CONFIG, visits=200)))
    by_id = {reply["id"]: reply for reply in replies}
    policy = np.array(by_id["h1"]["humanPolicy"])
    assert policy.shape == (82,) and policy.sum() == pytest.approx(1.0, abs=1e-3)
    assert 1 <= np.count_nonzero(policy) < level_named("10k").visits    # drawn among the moves its search visited
    assert by_id["h1"]["rootInfo"]["visits"] <= level_named("10k").visits + 1 < by_id["plain"]["rootInfo"]["visits"]
    assert policy[[40, 20]].sum() == 0   # E5 and C3 are taken
    assert "humanPolicy" not in by_id["plain"]
    warnings = [record.getMessage() for record in caplog.records if "humanSLProfile" in record.getMessage()]
    assert len(warnings) == 1 and "rank_10k" in warnings[0] and "10k" in warnings[0]


@pytest.mark.parametrize("rules", ["chinese", "japanese"])
def test_a_level_passes_back_when_the_opponent_passed_in_a_game_it_has_won(rules: str) -> None:
    """Black's C3 owns the 5x5 board. After white's pass black, the level, ends the game with all its
    humanPolicy on pass (two KaTrain human AIs playing each other would otherwise play on for ever); white
    passed in a game it has lost on its own, black to move but behind after its own C3 were white's: no pass."""
    settings = {"humanSLProfile": "rank_10k"}
    won = query("won", moves=[["B", "C3"], ["W", "pass"]], boardXSize=5, boardYSize=5, komi=0.5, rules=rules,
                overrideSettings=settings)
    lost = query("lost", moves=[["W", "C3"], ["W", "pass"]], boardXSize=5, boardYSize=5, komi=0.5, rules=rules,
                 overrideSettings=settings)
    by_id = {reply["id"]: np.array(reply["humanPolicy"]) for reply in results(serve([won, lost]))}
    assert by_id["won"][-1] == 1.0 and by_id["won"][:-1].sum() == 0
    assert by_id["lost"][-1] < 1.0 and by_id["lost"].sum() == pytest.approx(1.0, abs=1e-3)


def test_a_bad_profile_in_a_query_is_refused_by_field() -> None:
    replies = serve([query("bad", overrideSettings={"humanSLProfile": "beginner"})])
    assert replies[0]["id"] == "bad" and "humanSLProfile" in replies[0]["error"]


def test_analysis_accepts_katrains_human_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    served = []
    monkeypatch.setattr("engine.cli.play._serve_analysis", lambda config, *rest: served.append(config))
    human = tmp_path / "b18c384nbt-humanv0.bin.gz"
    human.write_bytes(b"a KataGo network this engine does not read")
    result = CliRunner().invoke(main, ["analysis", "-model", "uniform", "-human-model", str(human),
                                       "-override-config", "humanSLProfile=rank_5k"], input="")
    assert result.exit_code == 0, result.output
    assert served[0].human_level == level_named("6k")
    missing = CliRunner().invoke(main, ["analysis", "-human-model", str(tmp_path / "none.bin.gz")], input="")
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_the_docs_table_is_the_levels_table() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "gtp.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[1].isdigit():
            rows[cells[0]] = (int(cells[1]), float(cells[2]), float(cells[3]), _share(cells[4]), _share(cells[5]))
    assert rows == {level.name: (level.visits, level.temperature, level.root_temperature, level.blind_spots,
                                 level.overlooked_ataris) for level in LEVELS if level.visits is not None}


def _share(cell: str) -> float:
    """A share of the docs table: ``40%``, or ``none`` for 0."""
    return 0.0 if cell == "none" else float(cell.rstrip("%")) / 100


def test_a_profile_query_overlooks_the_ataris_its_level_overlooks(monkeypatch: pytest.MonkeyPatch) -> None:
    """White D5 in atari on E5, the point the priors favour most: a 20k that sees the whole board draws the capture,
    one that overlooks every atari never does."""
    moves = [["B", "C5"], ["W", "D5"], ["B", "D6"], ["W", "J9"], ["B", "D4"], ["W", "J1"]]
    capture = gtp_to_action("E5", 9)

    def human_policy(share: float) -> np.ndarray:
        levels = tuple(replace(level, blind_spots=0.0, overlooked_ataris=share) if level.name == "20k" else level
                       for level in LEVELS)
        monkeypatch.setattr("engine.search.levels.LEVELS", levels)
        settings = {"humanSLProfile": "rank_20k"}
        replies = results(serve([query("h", moves=moves, overrideSettings=settings)]))
        return np.array(replies[0]["humanPolicy"])

    assert human_policy(0.0)[capture] > 0 and human_policy(1.0)[capture] == 0
