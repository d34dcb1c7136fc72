"""KataGo's GTP extensions beyond analysis, in transcripts: rules, runtime parameters, time systems, the cache,
``stop`` and ``rectangular_boardsize``, with the replies KataGo's docs give (docs/GTP_Extensions.md) where they
give them."""

from __future__ import annotations

import json
import re

import pytest

import gtp.state
from engine.search.evaluator import UniformEvaluator
from gtp.commands import build_registry
from gtp.registry import Request
from gtp.state import EngineState
from tests.gtp.helpers import answers, front_end_config

TROMP_TAYLOR = {"friendlyPassOk": True, "hasButton": False, "ko": "POSITIONAL", "scoring": "AREA", "suicide": True,
                "tax": "NONE", "whiteHandicapBonus": "0"}


def _rules(text: str) -> dict[str, object]:
    return json.loads(text)


def test_kata_get_rules_answers_katago_s_json_form_with_sorted_keys() -> None:
    out = answers("kata-get-rules\n", size=9, rules="tromp-taylor")
    assert out == [json.dumps(TROMP_TAYLOR, separators=(",", ":"), sort_keys=True)]


@pytest.mark.parametrize("name, ko, scoring, suicide, tax, bonus", [
    ("chinese", "SIMPLE", "AREA", False, "NONE", "N"), ("chinese-ogs", "POSITIONAL", "AREA", False, "NONE", "N"),
    ("japanese", "SIMPLE", "TERRITORY", False, "SEKI", "0"), ("korean", "SIMPLE", "TERRITORY", False, "SEKI", "0"),
    ("tromp-taylor", "POSITIONAL", "AREA", True, "NONE", "0"), ("aga", "SITUATIONAL", "AREA", False, "NONE", "N-1"),
    ("new-zealand", "SITUATIONAL", "AREA", True, "NONE", "0")])
def test_kata_set_rules_takes_katago_s_shorthands(name: str, ko: str, scoring: str, suicide: bool, tax: str,
                                                  bonus: str) -> None:
    """The equivalents KataGo's docs list for each name, white's handicap bonus included."""
    out = answers(f"komi 6\nkata-set-rules {name}\nkata-get-rules\nshowboard\n", size=9)
    assert out[1] == ""
    assert _rules(out[2]) == {**TROMP_TAYLOR, "ko": ko, "scoring": scoring, "suicide": suicide, "tax": tax,
                              "whiteHandicapBonus": bonus}
    assert out[3].endswith("komi 6")   # the komi stays


def test_kata_set_rules_takes_the_json_form_and_keeps_the_game() -> None:
    form = json.dumps({**TROMP_TAYLOR, "ko": "SIMPLE", "suicide": False, "whiteHandicapBonus": "N"})
    out = answers(f"play b E5\nplay w C3\nkata-set-rules {form}\nkata-get-rules\nshowboard\n", size=9)
    assert out[2] == "" and _rules(out[3]) == {**TROMP_TAYLOR, "ko": "SIMPLE", "suicide": False,
                                               "whiteHandicapBonus": "N"}
    assert "2 moves played" in out[4]


def test_kata_set_rule_changes_one_field() -> None:
    out = answers("kata-set-rules japanese\nkata-set-rule ko POSITIONAL\nkata-get-rules\nkata-set-rule suicide true\n"
                  "kata-get-rules\n", size=9)
    assert _rules(out[2])["ko"] == "POSITIONAL" and _rules(out[2])["scoring"] == "TERRITORY"
    assert _rules(out[4])["suicide"] is True and _rules(out[4])["ko"] == "POSITIONAL"


@pytest.mark.parametrize("name, expected", [("chinese", "chinese-ogs"), ("japanese", "japanese"),
                                            ("aga", "aga"), ("new_zealand", "new-zealand")])
def test_kgs_rules_takes_kgsgtp_s_names(name: str, expected: str) -> None:
    """kgsGtp's chinese is KataGo's chinese-kgs (positional superko), the same form as chinese-ogs."""
    out = answers(f"kgs-rules {name}\nkata-get-rules\nkata-set-rules {expected}\nkata-get-rules\n", size=9)
    assert out[0] == "" and out[1] == out[3]


@pytest.mark.parametrize("command, message", [
    ("kata-set-rules stone-scoring", "Unknown rules 'stone-scoring', Could not parse rules: stone-scoring (rules "
                                     "with stone scoring are not supported)"),
    ("kata-set-rules aga-button", "Unknown rules 'aga-button', Could not parse rules: aga-button (rules with a button "
                                  "are not supported)"),
    ("kata-set-rules nonsense", "Unknown rules 'nonsense', Could not parse rules: nonsense"),
    ("kata-set-rules {\"ko\": ", "Unknown rules '{\"ko\":', not JSON"),
    ("kata-set-rules {\"whiteHandicapBonus\":\"N-1\"}", "Unknown rules '{\"whiteHandicapBonus\":\"N-1\"}', "
                                                        "whiteHandicapBonus N-1 is not supported with these rules: "
                                                        "they give N"),
    ("kata-set-rules {\"friendlyPassOk\":false}", "Unknown rules '{\"friendlyPassOk\":false}', friendlyPassOk false is "
                                                  "not supported: the player removes dead stones when it scores"),
    ("kata-set-rule tax ALL", "Unknown rules 'tax ALL', Could not parse rules: scoring TERRITORY with tax ALL is not "
                              "supported (AREA with tax NONE, TERRITORY with tax SEKI)"),
    ("kata-set-rule color red", "Unknown rules field: color"),
    ("kata-set-rule suicide maybe", "Could not parse suicide value: maybe (true or false)"),
    ("kata-set-rule ko", "Expected two arguments for kata-set-rule but got 'ko'"),
    ("kgs-rules ing", "Unknown rules 'ing'"),
    ("kgs-rules", "Expected one argument kgs-rules"),
    ("kata-get-rules now", "Expected no arguments for kata-get-rules but got 'now'"),
])
def test_rules_the_engine_cannot_play_are_refused_and_change_nothing(command: str, message: str) -> None:
    out = answers(f"kata-set-rules japanese\n{command}\nkata-get-rules\n", size=9)
    assert out[1] == f"? {message}" and _rules(out[2])["scoring"] == "TERRITORY"


def test_rules_that_make_the_game_illegal_are_refused() -> None:
    """A suicide played under Tromp-Taylor is illegal under Japanese rules: the game stays as it was."""
    moves = "play w B1\nplay w B2\nplay w A3\nplay b A2\nplay w E5\nplay b A1\n"
    out = answers(f"kata-set-rules tromp-taylor\n{moves}kata-set-rules japanese\nkata-get-rules\nshowboard\n", size=9)
    assert out[6] == "" and out[7] == ("? the game so far is not legal under japanese: move 6 (B A1) is illegal: "
                                       "suicide")
    assert _rules(out[8])["suicide"] is True and "6 moves played" in out[9]


def test_rules_commands_are_for_go() -> None:
    assert answers("kata-get-rules\nkgs-rules chinese\n", game="gomoku", size=9) == [
        "? rules commands are for go, not gomoku"] * 2


def test_kata_params_list_read_and_set() -> None:
    out = answers("kata-list-params\nkata-get-param maxVisits\nkata-set-param maxVisits 20\nkata-get-param maxVisits\n"
                  "kata-set-param maxTime 2.5\nkata-get-param maxTime\nkata-set-param ponderingEnabled true\n"
                  "kata-get-param ponderingEnabled\nkata-set-param resignThreshold -0.5\n"
                  "kata-get-param komiCorrection\nkata-set-param komiCorrection false\nkata-get-params\n", size=9)
    assert out[0].split() == ["maxVisits", "maxPlayouts", "maxTime", "numSearchThreads", "ponderingEnabled",
                              "resignThreshold", "resignConsecTurns", "komiCorrection"]
    assert out[1:9] == ["32", "", "20", "", "2.5", "", "true", ""]
    assert out[9:11] == ["true", ""]
    assert json.loads(out[11]) == {"maxVisits": 20, "maxPlayouts": None, "maxTime": 2.5, "numSearchThreads": 8,
                                   "ponderingEnabled": True, "resignThreshold": -0.5, "resignConsecTurns": 3,
                                   "komiCorrection": False}


def _visits(value: str) -> int:
    match = re.search(r"\((\d+) visits\)", value)
    assert match, value
    return int(match.group(1))


def test_the_next_search_uses_a_new_visit_limit() -> None:
    out = answers("gogui-value\nkata-set-param maxVisits 5\ngogui-value\nkata-set-params {\"maxVisits\": 12}\n"
                  "gogui-value\n", size=9)
    assert _visits(out[0]) > 12 and _visits(out[2]) <= 5 and 5 < _visits(out[4]) <= 12


@pytest.mark.parametrize("command, message", [
    ("kata-set-param maxVisits lots", "Could not set params: maxVisits must be a whole number from 1 to "
                                      "1125899906842624, not 'lots'"),
    ("kata-set-param maxVisits 0", "Could not set params: maxVisits must be a whole number from 1 to "
                                   "1125899906842624, not '0'"),
    ("kata-set-param maxVisits 1125899906842625", "Could not set params: maxVisits must be a whole number from 1 to "
                                                  "1125899906842624, not '1125899906842625'"),
    ("kata-set-param numSearchThreads 100000", "Could not set params: numSearchThreads must be a whole number from 1 "
                                               "to 4096, not '100000'"),
    ("kata-set-param resignConsecTurns 101", "Could not set params: resignConsecTurns must be a whole number from 1 "
                                             "to 100, not '101'"),
    ("kata-set-param maxTime -1", "Could not set params: maxTime must be a number above 0 to 2147483647, not '-1'"),
    ("kata-set-param maxTime inf", "Could not set params: maxTime must be a number above 0 to 2147483647, not 'inf'"),
    ("kata-set-param ponderingEnabled yes", "Could not set params: ponderingEnabled must be true or false, not 'yes'"),
    ("kata-set-param komiCorrection 1", "Could not set params: komiCorrection must be true or false, not '1'"),
    ("kata-set-param resignThreshold 0.5", "Could not set params: resignThreshold must be a number from -1 to 0, not "
                                           "'0.5'"),
    ("kata-set-param playoutDoublingAdvantage 1", "Could not set params: Unrecognized or non-overridable parameter in "
                                                  "kata-set-params: playoutDoublingAdvantage"),
    ("kata-set-param maxVisits", "Expected two arguments for kata-set-param but got 'maxVisits'"),
    ("kata-set-params {\"maxVisits\": 5, \"maxTime\": \"soon\"}", "Could not set params: maxTime must be a number "
                                                                  "above 0 to 2147483647, not 'soon'"),
    ("kata-set-params [1]", "Could not set params: Argument to kata-set-params must be a json object"),
    ("kata-get-param playoutDoublingAdvantage", "Invalid parameter: playoutDoublingAdvantage"),
    ("kata-get-param", "Expected one arguments for kata-get-param but got ''"),
])
def test_bad_parameters_are_refused_and_change_nothing(command: str, message: str) -> None:
    """``kata-set-params`` with one bad value sets none of them."""
    out = answers(f"{command}\nkata-get-params\n", size=9)
    assert out[0] == f"? {message}"
    assert json.loads(out[1])["maxVisits"] == 32 and json.loads(out[1])["maxTime"] is None


def _run(state: EngineState, line: str) -> str:
    name, *args = line.split()
    spec = build_registry().get(name)
    assert spec is not None
    return str(spec.handler(state, Request(tuple(args))))


def test_pondering_follows_ponderingenabled_and_stop() -> None:
    state = EngineState(front_end_config(size=9, visits=8, batch=8, seed=1))
    state.start(background=False)
    _run(state, "genmove b")
    assert state.enabled_ponder_job() is None                      # off by default
    _run(state, "kata-set-param ponderingEnabled true")
    _run(state, "genmove w")
    assert state.enabled_ponder_job() is not None                  # on: after the engine's move
    _run(state, "stop")
    assert state.enabled_ponder_job() is None                      # stopped until the next move
    _run(state, "genmove b")
    assert state.enabled_ponder_job() is not None


class _Cached(UniformEvaluator):
    """Uniform priors with a cache to clear (a network evaluator's)."""

    cleared = 0

    def clear_cache(self) -> None:
        self.cleared += 1


def test_clear_cache_forgets_the_tree_and_the_evaluations(monkeypatch: pytest.MonkeyPatch) -> None:
    evaluator = _Cached()
    monkeypatch.setattr(gtp.state, "load_evaluator", lambda rules, model, options: evaluator)
    state = EngineState(front_end_config(size=9, visits=8, batch=8, seed=1))
    state.start(background=False)
    _run(state, "genmove b")
    assert state.player.search_for(state.game).root_visits > 0 and evaluator.cleared == 0
    assert _run(state, "clear_cache") == ""
    assert state.player.search_for(state.game).root_visits == 0 and evaluator.cleared == 1


def test_kata_time_settings_and_its_list() -> None:
    out = answers("kata-list_time_settings\nkata-time_settings fischer 60.5 5\nkata-time_settings fischer-capped 60 5 "
                  "120 -1\nkata-time_settings byo-yomi 30 10 3\nkata-time_settings byoyomi 30 10 3\n"
                  "kata-time_settings canadian 0 60 10\nkata-time_settings absolute 0.5\nkata-time_settings none\n"
                  "kata-time_settings fischer 60\nkata-time_settings fischer-capped 60 5 30 -1\n"
                  "kata-time_settings hourglass 60\n", size=9)
    assert out[0] == "none absolute byo-yomi canadian fischer fischer-capped"
    assert out[1:8] == [""] * 7
    assert out[8] == ("? syntax error: bad kata-time_settings arguments: 'fischer 60' (time systems: none, absolute, "
                      "byo-yomi, canadian, fischer, fischer-capped)")
    assert out[9] == "? syntax error: a Fischer clock's limit cannot be below its main time"
    assert out[10].startswith("? syntax error: bad kata-time_settings arguments: 'hourglass 60'")


def test_rectangular_boardsize_takes_squares_only() -> None:
    out = answers("rectangular_boardsize 13 13\nshowboard\nrectangular_boardsize 9 13\nshowboard\n"
                  "rectangular_boardsize 13\n", size=9)
    assert out[0] == "" and out[1].count("\n") > 13
    assert out[2] == "? unacceptable size" and out[3] == out[1]
    assert out[4] == "? syntax error"


def test_name_and_version_answer_what_the_user_sets() -> None:
    """For Lizzie, which asks a KataGo for kata-analyze: its name starts with KataGo, or the engine command holds
    override-version (KataGo's own option)."""
    assert answers("name\nversion\n", size=9)[0] == "engine"
    assert answers("name\nversion\n", size=9, name="KataGo (engine)", version="1.15.3") == ["KataGo (engine)",
                                                                                               "1.15.3"]


def test_set_position_sets_stones_without_history() -> None:
    out = answers("play b A9\nset_position b D4 w E5 b C3\nshowboard\nundo\nset_position\nshowboard\n", size=9)
    assert out[1] == "" and "black to play, 0 moves played" in out[2]
    rows = out[2].split("\n")
    assert rows[5].split()[1:10] == [".", ".", ".", ".", "O", ".", ".", ".", "."]   # row 5: E5 white
    assert rows[6].split()[4] == "X" and rows[7].split()[3] == "X" and "X" not in rows[1]   # D4, C3; A9 is gone
    assert out[3] == "? cannot undo" and out[4] == "" and "X" not in out[5] and "O" not in out[5]


@pytest.mark.parametrize("args, message", [
    ("b D4 w D4", "set_position: D4 is given twice"), ("b A1 w A2 w B1", "set_position: a chain would have no "
                                                                          "liberties"),
    ("b pass", "set_position: pass is not a point"), ("b", "syntax error: set_position wants COLOR VERTEX pairs"),
    ("x D4", "invalid color"), ("b Z9", "bad vertex")])
def test_set_position_refuses_what_cannot_be_and_changes_nothing(args: str, message: str) -> None:
    out = answers(f"play b A9\nset_position {args}\nshowboard\n", size=9)
    assert out[1] == f"? {message}" and "1 moves played" in out[2]


def test_get_komi_and_gomill_cpu_time() -> None:
    out = answers("get_komi\nkomi 6\nget_komi\nkomi -3.5\nget_komi\ngomill-cpu_time\nget_komi 1\n", size=9)
    assert out[:5] == ["7.5", "", "6", "", "-3.5"] and float(out[5]) > 0 and out[6] == "? syntax error"


def test_kata_get_models_names_the_network_playing() -> None:
    assert json.loads(answers("kata-get-models\n", size=9)[0]) == [
        {"name": "none", "internalName": "none", "maxBatchSize": 8, "usesHumanSLProfile": False, "version": 2,
         "usingFP16": "false"}]
