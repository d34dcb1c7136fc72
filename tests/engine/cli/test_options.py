"""Each option's default is its config class's: read from there, and printed by --help as the config holds it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.cli.options import Setting
from engine.cli.play import GTP_MOVE_SECONDS, GTP_VISITS, PLAYER_VISITS
from gtp.config import GtpConfig


@dataclass(frozen=True)
class _Inner:
    visits: int = 7


@dataclass(frozen=True)
class _Outer:
    inner: _Inner = field(default_factory=_Inner)
    seconds: float = 2.5


def test_a_setting_reads_its_default_through_nested_configs() -> None:
    assert Setting(_Outer, "inner.visits").default == 7
    assert Setting(_Outer, "seconds").default == 2.5
    with pytest.raises(AttributeError):
        _ = Setting(_Outer, "inner.playouts").default


def test_engine_gtps_budget_is_its_configs() -> None:
    assert (GTP_VISITS.default, GTP_MOVE_SECONDS.default) == (GtpConfig().visits, GtpConfig().move_seconds)


def _help(*words: str) -> str:
    result = CliRunner().invoke(main, [*words, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_engine_gtp_help_prints_its_configs_budget_and_nothing_of_other_commands() -> None:
    text = _help("gtp")
    assert f"[default: {GtpConfig().visits}, stopping at {GtpConfig().move_seconds:g} s" in text
    assert "engine gtp" not in text.split("--visits", 1)[1].split("--time", 1)[0]


@pytest.mark.parametrize("command", ["gomocup", "play"])
def test_the_other_front_ends_print_the_players_default_visits(command: str) -> None:
    from engine.search.player import PlayerConfig

    assert PLAYER_VISITS == PlayerConfig().visits, "the front ends' help holds the player's default"
    assert f"Search visits per move [default: {PlayerConfig().visits}]" in _help(command)


@pytest.mark.parametrize("words,defaults", [(("selfplay",), ("--visits", "--cheap-visits")),
                                            (("loop",), ("--visits", "--cheap-visits", "--match-visits"))])
def test_training_commands_call_visits_visits(words: tuple[str, ...], defaults: tuple[str, ...]) -> None:
    text = _help(*words)
    for name in defaults:
        assert re.search(rf"{name}\b", text), name
    assert re.search(r"--readouts\b", text), "--readouts stays, as the same setting"


def test_readouts_is_the_same_setting_as_visits(monkeypatch: pytest.MonkeyPatch) -> None:
    """``engine selfplay --readouts N`` and ``--visits N`` reach the same field."""
    import engine.cli.train as train

    seen = []
    command = train.selfplay_command
    monkeypatch.setattr(command, "callback", lambda **options: seen.append(options["visits"]))
    for option in ("--visits", "--readouts"):
        result = CliRunner().invoke(command, ["README.md", option, "30"])
        assert result.exit_code == 0, result.output
    assert seen == [30, 30]


@pytest.mark.parametrize("words", [("selfplay",), ("train",), ("loop",)])
def test_threads_help_speaks_only_of_the_commands_own_runtimes(words: tuple[str, ...]) -> None:
    assert "--runtime numpy" not in _help(*words)


def test_a_front_end_with_the_numpy_runtime_says_what_threads_do_there() -> None:
    assert "numpy's BLAS under --runtime numpy" in _help("gomocup")
