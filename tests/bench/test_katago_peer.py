"""``engine bench genmove --peer katago``: KataGo's config, its log read back, finding the binary, a stand-in
KataGo that speaks GTP, and the real KataGo when ``$KATAGO`` names it."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from bench.genmove import measure_genmove
from bench.katago_peer import config_text, find_katago, katago_settings, measure_katago, parse_genmove_log
from bench.timing import BenchError
from engine.core.rules import Rules
from tests.support.katago_models import write_katago_model

# A stand-in for ``katago gtp -config C -model M``: answers every command, and logs each genmove as KataGo
# does (its seconds, the root's visits and the new playouts: 10, 20, 30, ... in 0.5 s each) in the config's
# log file; it refuses the commands named in $REFUSE.
FAKE_KATAGO = '''
import os, sys
config = dict(line.split(" = ", 1) for line in open(sys.argv[sys.argv.index("-config") + 1]).read().splitlines())
log = open(config["logFile"].strip(), "w")
print("KataGo v9.9.9", file=sys.stderr)
searches = 0
for line in sys.stdin:
    command = line.split()[0]
    if command in os.environ.get("REFUSE", "").split():
        print("? unknown command\\n", flush=True)
        continue
    if command == "genmove":
        searches += 1
        log.write(f"MoveNum: {searches}\\nTime taken: 0.5\\nRoot visits: {config['maxVisits']}\\n"
                  f"New playouts: {10 * searches}\\nNN rows: 3\\n")
    print("= D4\\n" if command == "genmove" else "= \\n", flush=True)
    if command == "quit":
        break
'''


def _executable(path: Path, text: str) -> Path:
    path.write_text(f"#!{sys.executable}\n{text}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _settings(rules: Rules, **changes: object) -> dict[str, str]:
    arguments: dict = dict(visits=200, threads=3, cache_size=1 << 15, random_symmetry=False, seed=7,
                           log_file=Path("/tmp/k.log"))
    return katago_settings(rules, **{**arguments, **changes})


def test_settings_match_our_search_visits_threads_cache_and_symmetry() -> None:
    settings = _settings(Rules.go(9, "chinese"))
    assert settings["maxVisits"] == "200" and settings["ponderingEnabled"] == "false"
    assert settings["numSearchThreads"] == "1" and settings["numEigenThreadsPerModel"] == "3"
    assert settings["nnCacheSizePowerOfTwo"] == "15" and settings["nnRandomize"] == "false"
    assert settings["rootSymmetryPruning"] == "false" and settings["allowResignation"] == "false"
    assert settings["logSearchInfo"] == "true" and settings["logFile"] == "/tmp/k.log"
    assert settings["searchRandSeed"] == "7"
    assert _settings(Rules.go(9), random_symmetry=True, cache_size=1 << 10, threads=1)["nnRandomize"] == "true"
    assert _settings(Rules.go(9), cache_size=1 << 10)["nnCacheSizePowerOfTwo"] == "10"


@pytest.mark.parametrize("preset,ko,scoring,suicide", [("chinese", "POSITIONAL", "AREA", "false"),
                                                       ("tromp-taylor", "POSITIONAL", "AREA", "true"),
                                                       ("japanese", "SIMPLE", "TERRITORY", "false")])
def test_settings_carry_the_rules(preset: str, ko: str, scoring: str, suicide: str) -> None:
    settings = _settings(Rules.go(19, preset))
    assert (settings["koRule"], settings["scoringRule"], settings["multiStoneSuicideLegal"]) == (ko, scoring, suicide)
    assert "rules" not in settings   # KataGo refuses a preset beside the separate rules


def test_settings_refuse_what_katago_cannot_match() -> None:
    with pytest.raises(ValueError, match="power of two"):
        _settings(Rules.go(9), cache_size=3000)
    with pytest.raises(ValueError, match="Go, not gomoku"):
        _settings(Rules.gomoku(15))


def test_config_text_is_one_key_and_value_a_line() -> None:
    settings = _settings(Rules.go(9))
    lines = config_text(settings).splitlines()
    assert dict(line.split(" = ") for line in lines) == settings and len(lines) == len(settings)


def test_genmove_log_gives_each_searchs_playouts_and_seconds_in_order() -> None:
    entry = ("2026-01-01 00:00:00+0000: MoveNum: {n} HASH: 0\n   A B C\n 3 . . .\nkoSIMPLEscoreAREA\n"
             "Time taken: {seconds}\nRoot visits: 200\nNew playouts: {playouts}\nNN rows: 190\nPV: C3\n")
    text = ("GTP ready\n" + entry.format(n=0, seconds="0.25", playouts=200) + "other lines\n"
            + entry.format(n=1, seconds="1.5e-01", playouts=37))
    assert parse_genmove_log(text) == [(200, 0.25), (37, 0.15)]
    assert parse_genmove_log("GTP ready\nTime taken: 1\n") == []


def test_katago_is_found_by_option_then_environment_then_path(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    given, named, on_path = (_executable(tmp_path / name, "") for name in ("given", "named", "katago"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("KATAGO", str(named))
    assert find_katago(str(given)) == str(given)
    assert find_katago() == str(named)
    monkeypatch.delenv("KATAGO")
    assert find_katago() == str(on_path)
    on_path.unlink()
    with pytest.raises(BenchError, match="no katago on the PATH.*--peer-binary"):
        find_katago()
    plain = tmp_path / "plain"
    plain.write_text("")
    with pytest.raises(BenchError, match="plain is not an executable"):
        find_katago(str(plain))


def test_rates_are_the_timed_genmoves_after_the_warm_up(tmp_path: Path) -> None:
    fake = _executable(tmp_path / "katago", FAKE_KATAGO)
    figures = measure_katago(str(fake), "net.bin.gz", Rules.go(9), 50, 3, 2, 1 << 15, False, 0, tmp_path)
    assert figures["visits_per_s_runs"] == [40.0, 60.0, 80.0]   # 20, 30, 40 playouts in 0.5 s; 10 was the warm-up
    assert figures["visits_per_s"] == 60.0 and figures["version"] == "9.9.9" and figures["threads"] == 2
    assert figures["config"]["maxVisits"] == "50" and "logFile" not in figures["config"]


def test_a_refused_command_is_a_bench_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _executable(tmp_path / "katago", FAKE_KATAGO)
    monkeypatch.setenv("REFUSE", "clear_cache")
    with pytest.raises(BenchError, match="unknown command"):
        measure_katago(str(fake), "net.bin.gz", Rules.go(9), 50, 2, 1, 1 << 15, False, 0, tmp_path)


def _genmove(model: Path, peer: str = "none", peer_binary: str | None = None) -> dict:
    """Two moves on the eager network: a fresh random model file would be compiled anew by every test."""
    return measure_genmove(str(model), 0, 0, "zero17", 5, 8, 4, 2, "cpu", "auto", "eager", peer, 1, 0, False,
                           peer_binary)


def test_genmove_plays_a_katago_model_file(tmp_path: Path) -> None:
    model = tmp_path / "net.bin.gz"
    write_katago_model(model, version=8, blocks=("ordinary", "gpool"))
    figures = _genmove(model)
    assert figures["net"] == "random-v8" and figures["dtype"] == "fp32" and figures["moves"] == 2
    assert figures["visits_per_s"] > 0 and "peer" not in figures


def test_peer_katago_needs_a_katago_model_and_a_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="KataGo model file"):
        measure_genmove(None, 1, 8, "zero17", 5, 8, 4, 2, "cpu", "auto", "auto", "katago", 1, 0, False)
    model = tmp_path / "net.bin.gz"
    write_katago_model(model, version=8, blocks=("ordinary",))
    monkeypatch.delenv("KATAGO", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BenchError, match="needs KataGo"):
        _genmove(model, "katago")


@pytest.mark.skipif("KATAGO" not in os.environ, reason="runs KataGo itself: set KATAGO to its binary")
def test_katago_plays_the_same_model_file(tmp_path: Path) -> None:
    model = tmp_path / "net.bin.gz"
    write_katago_model(model, version=8, blocks=("ordinary", "gpool"))
    figures = _genmove(model, "katago")
    theirs = figures["peer"]
    assert theirs["name"] == "katago" and theirs["search_threads"] == 1 and len(theirs["visits_per_s_runs"]) == 2
    assert theirs["visits_per_s"] > 0
    assert theirs["ratio"] == pytest.approx(figures["visits_per_s"] / theirs["visits_per_s"])
