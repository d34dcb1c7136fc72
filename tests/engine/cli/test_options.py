"""Each option's default is its config class's: read from there, and printed by --help as the config holds it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import click
import pytest
from click.testing import CliRunner

from engine.cli import main
from engine.cli.options import Setting
from engine.cli.settings import GTP_MOVE_SECONDS, GTP_VISITS
from engine.search.config import PlayerConfig
from gtp.config import GtpConfig
from training.match_config import MatchConfig
from training.selfplay_config import SelfPlayConfig


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


def _option(words: tuple[str, ...], name: str) -> click.Option:
    command = main
    for word in words:
        command = command.get_command(click.Context(command), word)
    return next(param for param in command.params if isinstance(param, click.Option) and name in param.opts)


@pytest.mark.parametrize("words,name,default", [
    (("match",), "--visits", MatchConfig().player.visits),
    (("evaluate",), "--visits", MatchConfig().player.visits),
    (("evaluate",), "--temperature-moves", MatchConfig().player.temperature_moves),
    (("evaluate",), "--resign-threshold", MatchConfig().player.resign_threshold),
    (("loop",), "--match-visits", MatchConfig().player.visits),
    (("selfplay",), "--visits", SelfPlayConfig().player.visits),
    (("selfplay",), "--batch-size", SelfPlayConfig().player.search.batch_size),
    (("selfplay",), "--forced-playouts", SelfPlayConfig().player.search.forced_playouts_k),
    (("loop",), "--visits", SelfPlayConfig().player.visits),
    (("loop",), "--resign-threshold", SelfPlayConfig().player.resign_threshold),
    (("bench", "selfplay"), "--visits", SelfPlayConfig().player.visits),
    (("bench", "genmove"), "--visits", PlayerConfig().visits),
    (("search-picture",), "--visits", PlayerConfig().visits),
    (("selfplay",), "--full-search-pct", 100 * SelfPlayConfig().full_search_share),
    (("selfplay",), "--holdout-pct", 100 * SelfPlayConfig().holdout_share),
    (("selfplay",), "--resign-disabled-pct", 100 * SelfPlayConfig().resign_disabled_share),
    (("loop",), "--full-search-pct", 100 * SelfPlayConfig().full_search_share),
    (("loop",), "--holdout-pct", 100 * SelfPlayConfig().holdout_share),
    (("bench", "selfplay"), "--full-search-pct", 100 * SelfPlayConfig().full_search_share),
])
def test_an_options_default_is_its_configs(words: tuple[str, ...], name: str, default: object) -> None:
    """Each command's option holds the default of the config field it sets, so that the command and the library
    play alike when the option is left out."""
    assert _option(words, name).default == default
