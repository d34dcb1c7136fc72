"""``engine analysis``'s configuration and rules: KataGo's config format, overrides, the rules names and
objects it maps onto the engine's presets, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine import Rules, RulesError
from engine.cli import main
from gtp.kata_config import AnalysisConfig, ConfigError, apply_settings, parse_overrides, read_config
from gtp.kata_json import parse_request, parse_rules

ENGINE = [sys.executable, "-c", "from engine.cli import main; main()"]


def test_config_files_are_key_value_lines_with_comments(tmp_path: Path) -> None:
    path = tmp_path / "a.cfg"
    path.write_text("# KataGo\nmaxVisits = 500  # per position\n\nnumSearchThreads=8\nlogDir = gtp_logs\n"
                    "maxVisits = 40\n")
    assert read_config(path) == {"maxVisits": "40", "numSearchThreads": "8", "logDir": "gtp_logs"}
    for bad, words in (("just words\n", "expected 'key = value'"), ("@include other.cfg\n", "@include")):
        path.write_text(bad)
        with pytest.raises(ConfigError, match=words):
            read_config(path)
    with pytest.raises(ConfigError, match="cannot read"):
        read_config(tmp_path / "missing.cfg")


def test_settings_map_onto_the_engines_and_the_rest_are_named() -> None:
    config, unknown = apply_settings(AnalysisConfig(), {
        "maxVisits": "40", "maxTime": "2.5", "numSearchThreads": "8", "numAnalysisThreads": "12",
        "nnMaxBatchSize": "32", "reportAnalysisWinratesAs": "white", "wideRootNoise": "0.25",
        "rootPolicyTemperature": "2", "cpuctExploration": "1.5", "nnCacheSizePowerOfTwo": "20", "nnRandomize": "true",
        "rules": "japanese", "homeDataDir": "/tmp", "logToStderr": "false"})
    assert unknown == ["homeDataDir", "logToStderr"]
    assert (config.visits, config.seconds, config.search.batch_size, config.analysis_threads) == (40, 2.5, 8, 12)
    assert config.concurrent == 4  # 32 positions a call / 8 leaves a search
    assert config.perspective == "WHITE" and config.root_policy_temperature == pytest.approx(4.0)
    assert config.search.c_puct == 1.5 and config.evaluator.cache_size == 1 << 16 and config.evaluator.random_symmetry
    assert config.rules == "japanese"
    for key, value in (("maxVisits", "0"), ("maxTime", "-1"), ("reportAnalysisWinratesAs", "GREEN"),
                       ("nnRandomize", "maybe"), ("numSearchThreads", "x")):
        with pytest.raises(ConfigError, match=key):
            apply_settings(AnalysisConfig(), {key: value})


def test_override_config_is_comma_separated() -> None:
    assert parse_overrides("maxVisits=10, homeDataDir=/home/me/.katrain") == {"maxVisits": "10",
                                                                              "homeDataDir": "/home/me/.katrain"}
    assert parse_overrides("") == {}
    with pytest.raises(ConfigError, match="key=value"):
        parse_overrides("maxVisits")


@pytest.mark.parametrize("name,preset,ko,bonus", [
    ("tromp-taylor", "tromp-taylor", "positional", "0"), ("Tromp Taylor", "tromp-taylor", "positional", "0"),
    ("chinese", "", "simple", "N"), ("chinese-ogs", "chinese", "positional", "N"),
    ("japanese", "japanese", "simple", "0"), ("korean", "japanese", "simple", "0"),
    ("aga", "aga", "situational", "N-1"), ("new zealand", "new-zealand", "situational", "0"),
    ("NZ", "new-zealand", "situational", "0")])
def test_katago_rules_names_map_onto_the_presets(name: str, preset: str, ko: str, bonus: str) -> None:
    rules, got_bonus = parse_rules(name, 9)
    assert (rules.preset, rules.ko, rules.size, got_bonus) == (preset, ko, 9, bonus)


def test_rules_objects_map_onto_the_rules_and_what_cannot_be_played_is_refused() -> None:
    rules, bonus = parse_rules({"ko": "SITUATIONAL", "scoring": "AREA", "tax": "NONE", "suicide": True,
                                "hasButton": False, "whiteHandicapBonus": "N", "friendlyPassOk": True, "komi": 6}, 13)
    assert rules == Rules.go(13, "new-zealand", komi=6.0) and bonus == "N"
    assert parse_rules({"ko": "SIMPLE", "scoring": "TERRITORY", "tax": "SEKI"}, 9)[0] == Rules.go(9, "japanese")
    for bad, words in (({"ko": "SPIGHT"}, "ko"), ({"scoring": "AREA", "tax": "ALL"}, "tax"),
                       ({"hasButton": True}, "hasButton"), ({"colour": "blue"}, "colour"), (7, "Must specify"),
                       ("stone_scoring", "stone scoring"), ("goe", "Spight"), ("checkers", "checkers")):
        with pytest.raises(RulesError, match=words):
            parse_rules(bad, 9)


def test_the_white_handicap_bonus_adds_to_the_komi() -> None:
    def komi(rules: object, black: int) -> float:
        stones = [["B", vertex] for vertex in ("C3", "G7", "C7", "G3")[:black]]
        line = json.dumps({"id": "h", "moves": [], "initialStones": stones, "rules": rules, "komi": 0.5,
                           "boardXSize": 9, "boardYSize": 9})
        query = parse_request(line, AnalysisConfig())
        return query.turns[0].game.rules.komi  # type: ignore[union-attr]

    assert [komi("chinese", n) for n in (1, 2, 4)] == [0.5, 2.5, 4.5]
    assert [komi("aga", n) for n in (1, 2, 4)] == [0.5, 1.5, 3.5]
    assert komi("japanese", 4) == 0.5


def test_help_names_katagos_options() -> None:
    result = CliRunner().invoke(main, ["analysis", "--help"])
    assert result.exit_code == 0
    for option in ("-model", "-config", "-override-config", "-analysis-threads", "-quit-without-waiting"):
        assert option in result.output


@pytest.mark.parametrize("args,message", [(["-model", "no/such.safetensors"], "not a model file"),
                                          (["-config", "no/such.cfg"], "does not exist"),
                                          (["-override-config", "maxVisits=none"], "maxVisits")])
def test_bad_command_lines_are_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["analysis", *args], input="")
    assert result.exit_code == 2 and message in result.output


def test_int8_analyses_on_the_cpu_and_says_so() -> None:
    query = {"id": "q", "moves": [["B", "E5"]], "rules": "chinese", "komi": 7, "boardXSize": 9, "boardYSize": 9,
             "maxVisits": 8}
    result = subprocess.run([*ENGINE, "analysis", "--dtype", "int8", "--device", "cpu"],
                            input=(json.dumps(query) + "\n").encode(), capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    reply = json.loads(result.stdout.decode().splitlines()[-1])
    assert reply["id"] == "q" and reply["rootInfo"]["visits"] >= 8 and reply["moveInfos"]
    assert "dtype=int8, runtime=eager" in result.stderr.decode()


def test_the_command_line_as_katrain_writes_it(tmp_path: Path) -> None:
    """KataGo's single-dash options, a config file, overrides; responses on stdout, one warning on stderr."""
    config = tmp_path / "analysis.cfg"
    config.write_text("maxVisits = 6\nnumSearchThreads = 2\nnnCacheSizePowerOfTwo = 10\nlogAllRequests = true\n")
    queries = [{"id": "a", "moves": [["B", "C3"]], "rules": "tromp-taylor", "komi": 7.5, "boardXSize": 5,
                "boardYSize": 5, "analyzeTurns": [0, 1]}, {"id": "v", "action": "query_version"}]
    result = subprocess.run([*ENGINE, "analysis", "-model", "uniform", "-config", str(config), "-override-config",
                             "homeDataDir=/nowhere,maxVisits=4", "-analysis-threads", "1"],
                            input="".join(json.dumps(q) + "\n" for q in queries).encode(), capture_output=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    replies = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert replies[0]["id"] == "v"
    assert [(r["id"], r["turnNumber"], r["rootInfo"]["visits"]) for r in replies[1:]] == [("a", 0, 4), ("a", 1, 4)]
    stderr = result.stderr.decode()
    assert stderr.count("config keys with no meaning here, ignored: logAllRequests, homeDataDir") == 1
    assert stderr.count("no score and ownership heads") == 1
