"""``engine gtp`` from the command line: options, a fresh-install start, and nothing but GTP on stdout."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.cli.settings import GTP_MOVE_SECONDS, GTP_VISITS
from engine.core.rules import Rules
from engine.nn.networks import bundled_model
from tests.gtp.helpers import responses, served_config

ENGINE = [sys.executable, "-c", "from engine.cli import main; main()"]


def test_help_is_light() -> None:
    """``engine gtp --help`` imports neither numba nor torch nor the rules core."""
    code = ("import sys; from click.testing import CliRunner; from engine.cli import main; "
            "r = CliRunner().invoke(main, ['gtp', '--help']); assert r.exit_code == 0, r.output; "
            "r = CliRunner().invoke(main, ['gomocup', '--help']); assert r.exit_code == 0, r.output; "
            "print(','.join(m for m in ('numba', 'torch', 'engine.core.board', 'gtp.state') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_help_names_the_options() -> None:
    result = CliRunner().invoke(main, ["gtp", "--help"])
    for option in ("--model", "--game", "--size", "--rules", "--komi", "--visits", "--time", "--batch", "--device",
                   "--dtype", "--threads", "--runtime", "--seed"):
        assert option in result.output


@pytest.mark.parametrize("args,message", [(["--visits", "10", "--time", "1"], "not both"),
                                          (["--game", "gomoku", "--rules", "japanese"], "are for go"),
                                          (["--rules", "chinese komi=0.3"], "komi"),
                                          (["--size", "30"], "30"),
                                          (["--model", "no/such/file.safetensors"], "not a model file")])
def test_bad_options_are_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["gtp", *args], input="")
    assert result.exit_code == 2
    assert message in result.output


def _play_a_few_commands(*options: str) -> str:
    """Run a short GTP script; check every answer is on stdout and nothing else is there; return stderr."""
    script = b"1 protocol_version\n2 boardsize 9\n3 play b E5\n4 genmove w\n5 final_score\n6 quit\n"
    result = subprocess.run([*ENGINE, "gtp", "--visits", "16", "--seed", "1", *options], input=script,
                            capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode()
    found = responses(result.stdout.decode())
    assert [(status, ident) for status, ident, _ in found] == [("=", str(i)) for i in range(1, 7)]
    assert found[0][2] == "2"
    stderr = result.stderr.decode()
    for line in stderr.splitlines():  # Lizzie reads stderr mixed with stdout: no line may look like GTP output
        assert not line.startswith(("=", "?", "info", "play")) and " -> " not in line
    return stderr


def test_a_fresh_install_plays_go_on_the_bundled_network() -> None:
    bundled = bundled_model("go")
    assert bundled is not None, "the bundled Go network is missing from engine/networks"
    stderr = _play_a_few_commands()
    assert f"network: {bundled}" in stderr
    assert "uniform priors" not in stderr


def test_int8_plays_on_the_cpu_and_says_so() -> None:
    stderr = _play_a_few_commands("--dtype", "int8", "--device", "cpu")
    assert "dtype=int8, runtime=eager" in stderr


def test_uniform_plays_without_a_network_and_says_so() -> None:
    stderr = _play_a_few_commands("--model", "uniform")
    assert "no network" in stderr and "uniform priors" in stderr


def test_gomoku_from_the_command_line() -> None:
    script = b"gogui-rules_game_id\ngogui-rules_board_size\nquit\n"
    result = subprocess.run([*ENGINE, "gtp", "--game", "gomoku", "--size", "9"], input=script, capture_output=True,
                            timeout=120)
    assert [text for _status, _id, text in responses(result.stdout.decode())] == ["Gomoku", "9", ""]
    assert f"network: {bundled_model('gomoku')}" in result.stderr.decode()   # the freestyle network ships
    renju = subprocess.run([*ENGINE, "gtp", "--game", "gomoku", "--rules", "renju"], input=b"quit\n",
                           capture_output=True, timeout=120)
    assert renju.returncode == 0, renju.stderr.decode()
    assert f"network: {bundled_model(Rules.gomoku(15, 5, 'renju'))}" in renju.stderr.decode()  # renju's own


@pytest.mark.parametrize("args,keeps", [([], True), (["--fill-own-eyes"], False)])
def test_the_search_keeps_its_own_eyes_unless_told(monkeypatch: pytest.MonkeyPatch, args: list[str],
                                                   keeps: bool) -> None:
    config = served_config(monkeypatch, *args)
    assert config.player.search.keep_own_eyes == keeps


@pytest.mark.parametrize("args,settings", [([], (0.85, True)), (["--c-puct-stdev-scale", "0"], (0.0, True)),
                                           (["--no-fpu-from-mean"], (0.85, False)),
                                           (["--c-puct-stdev-scale", "0.5", "--no-fpu-from-mean"], (0.5, False))])
def test_the_exploration_follows_the_values_unless_told_not_to(monkeypatch: pytest.MonkeyPatch, args: list[str],
                                                               settings: tuple[float, bool]) -> None:
    search = served_config(monkeypatch, *args).player.search
    assert (search.c_puct_stdev_scale, search.fpu_from_mean) == settings


@pytest.mark.parametrize("args,settings", [([], (5.0, 0.15)), (["--lcb-stdevs", "0"], (0.0, 0.15)),
                                           (["--lcb-stdevs", "3", "--lcb-min-visit-share", "0.1"], (3.0, 0.1))])
def test_the_move_follows_the_lower_confidence_bound_unless_told_not_to(monkeypatch: pytest.MonkeyPatch,
                                                                        args: list[str],
                                                                        settings: tuple[float, float]) -> None:
    search = served_config(monkeypatch, *args).player.search
    assert (search.lcb_stdevs, search.lcb_min_visit_share) == settings


@pytest.mark.parametrize("args", [["--lcb-stdevs", "-1"], ["--lcb-min-visit-share", "0"]])
def test_a_bad_lower_confidence_bound_setting_is_refused(args: list[str]) -> None:
    result = CliRunner().invoke(main, ["gtp", "--model", "uniform", *args], input="")
    assert result.exit_code == 2 and "lcb" in result.output


@pytest.mark.parametrize("args,drawn", [([], False), (["--random-symmetry"], True)])
def test_a_random_symmetry_is_drawn_only_when_told(monkeypatch: pytest.MonkeyPatch, args: list[str],
                                                    drawn: bool) -> None:
    assert served_config(monkeypatch, *args).evaluator.random_symmetry == drawn


@pytest.mark.parametrize("args,limits", [([], (GTP_VISITS.default, None, GTP_MOVE_SECONDS.default)),
                                         (["--visits", "200"], (200, None, None)),
                                         (["--time", "2"], (None, 2.0, None))])
def test_gtp_plays_its_default_visits_within_its_default_time_unless_given_a_limit(
        monkeypatch: pytest.MonkeyPatch, args: list[str], limits: tuple[object, ...]) -> None:
    config = served_config(monkeypatch, *args)
    assert (config.player.visits, config.player.seconds, config.move_seconds) == limits


@pytest.mark.parametrize("args,answers", [([], ("engine", None)),
                                          (["--name", "KataGo", "--override-version", "1.15.3"], ("KataGo", "1.15.3"))])
def test_gtp_answers_name_and_version_as_told(monkeypatch: pytest.MonkeyPatch, args: list[str],
                                              answers: tuple[str, str | None]) -> None:
    config = served_config(monkeypatch, *args)
    assert (config.name, config.version) == answers
