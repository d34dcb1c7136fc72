"""Handicap games over GTP: the side giving stones plays on, and the resignation settings of ``engine gtp``."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

import gtp.state
from engine import Evaluation, EvaluatorOptions, Game, PositionBatch, Rules, fixed_handicap
from engine.cli import main
from engine.core.board import TO_PLAY
from engine.core.types import BLACK
from engine.search.evaluator import UniformEvaluator
from gtp.state import EngineState, FrontEndConfig
from tests.gtp.helpers import answers, front_end_config, served_config


class BlackFarAhead:
    """Uniform priors; black wins every position (value 0.99 to black) by 40 points (stdev 5)."""

    def evaluate(self, positions: PositionBatch, legal: np.ndarray | None = None) -> Evaluation:
        batch = PositionBatch.stack(positions)
        black = np.where(batch.info[:, TO_PLAY] == BLACK, 1.0, -1.0).astype(np.float32)  # the side to move's view
        return UniformEvaluator().evaluate(batch, legal)._replace(
            values=0.99 * black, score_mean=40.0 * black, score_stdev=np.full(len(batch), 5.0, np.float32))


@pytest.fixture
def black_far_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gtp.state, "load_evaluator", lambda rules, model, options: BlackFarAhead())


def test_white_giving_nine_stones_at_komi_half_plays_twenty_moves_without_resigning(black_far_ahead: None) -> None:
    """White's search calls every position lost by 40 points; the handicap still keeps it playing."""
    script = "boardsize 19\nkomi 0.5\nfixed_handicap 9\n" + "genmove w\ngenmove b\n" * 20
    out = answers(script, visits=8)
    white = out[3::2]
    assert len(white) == 20 and "resign" not in white and not any(text.startswith("?") for text in out)


def test_the_bundled_19x19_network_giving_nine_stones_plays_on() -> None:
    """The game as a person sets it up, on the network that reads it lost from the start (numpy, 16 visits)."""
    script = "boardsize 19\nkomi 0.5\nfixed_handicap 9\n" + "genmove w\ngenmove b\n" * 20
    out = answers(script, bundled=True, network_free="rollouts", visits=16,
                  evaluator=EvaluatorOptions(runtime="numpy", seed=1))
    white = out[3::2]
    assert len(white) == 20 and "resign" not in white and not any(text.startswith("?") for text in out)


def test_the_same_evaluation_resigns_an_even_game(black_far_ahead: None) -> None:
    out = answers("boardsize 19\nkomi 0.5\nplay b Q16\n" + "genmove w\nplay b pass\n" * 3, visits=8)
    assert out[3::2] == [out[3], out[5], "resign"] and out[3] != "resign"



@pytest.mark.parametrize("args,settings", [
    ([], (-0.9, 3, 10.0)),
    (["--resign-threshold", "-0.95", "--resign-consecutive", "5", "--resign-min-score", "20"], (-0.95, 5, 20.0)),
    (["--no-resign"], (None, 3, 10.0))])
def test_resignation_options_set_the_player(monkeypatch: pytest.MonkeyPatch, args: list[str],
                                            settings: tuple[object, ...]) -> None:
    player = served_config(monkeypatch, *args).player
    assert (player.resign_threshold, player.resign_consecutive, player.resign_min_score) == settings


def test_the_help_states_the_front_ends_resignation_defaults() -> None:
    player = FrontEndConfig().player
    text = " ".join(CliRunner().invoke(main, ["gtp", "--help"]).output.split())
    for option, default in (("--resign-threshold", player.resign_threshold),
                            ("--resign-consecutive", player.resign_consecutive),
                            ("--resign-min-score", player.resign_min_score)):
        assert option in text and f"[default: {default:g}]" in text


@pytest.mark.parametrize("args,message", [(["--no-resign", "--resign-threshold", "-0.5"], "not both"),
                                          (["--resign-threshold", "0.5"], "--resign-threshold"),
                                          (["--resign-consecutive", "0"], "--resign-consecutive"),
                                          (["--resign-min-score", "-1"], "--resign-min-score")])
def test_bad_resignation_options_are_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["gtp", *args], input="")
    assert result.exit_code == 2 and message in result.output


HANDICAP_GAME = "boardsize 9\nkomi 0.5\nfixed_handicap 4\nplay w E5\nplay b D5\nplay w pass\nplay b pass\n"


def _black_lead(result: str) -> float:
    return 0.0 if result == "0" else float(result[2:]) * (1 if result[0] == "B" else -1)


def test_final_score_gives_white_its_handicap_bonus_by_the_rules() -> None:
    """The same four-stone game and dead-stone estimate: Chinese counting gives White 4 points more than
    Tromp-Taylor's, AGA's 3."""
    leads = {rules: _black_lead(answers(HANDICAP_GAME + "final_score\n", rules=rules, visits=8)[-1])
             for rules in ("tromp-taylor", "chinese", "aga")}
    assert leads["tromp-taylor"] - leads["chinese"] == 4 and leads["tromp-taylor"] - leads["aga"] == 3


def test_the_bonus_stays_with_a_new_komi_and_the_file_keeps_the_komi_as_given() -> None:
    out = answers(HANDICAP_GAME + "final_score\nkomi 6.5\nfinal_score\nshowboard\nprintsgf\n", rules="chinese",
                  visits=8)
    first, second, board, sgf = out[-5], out[-3], out[-2], out[-1]
    assert _black_lead(first) - _black_lead(second) == 6
    assert board.endswith("komi 6.5 (+4 for white's handicap)")
    assert "HA[4]KM[6.5]" in sgf and f"RE[{second}]" in sgf


def test_the_search_plays_a_handicap_game_at_the_komi_with_the_bonus() -> None:
    state = EngineState(front_end_config(visits=8, rules="chinese komi=0.5", size=9))
    state.start(background=False)
    state.new_game(game=_handicap_game(state.rules))
    assert state.rules.komi == 0.5 and state.game.rules.komi == 4.5
    assert state.player.search_for(state.game).rules.komi == 4.5   # the komi of its terminal values


def _handicap_game(rules: Rules) -> Game:
    game = Game(rules)
    game.place_handicap(fixed_handicap(4, rules.size))
    return game
