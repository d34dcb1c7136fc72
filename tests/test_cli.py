"""Every command answers ``--help``; the benchmark commands print what they promise."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from engine.cli import main


def _all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    ctx = click.Context(group)
    found = [prefix]
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, f"{' '.join(prefix + (name,))} does not load"
        if isinstance(command, click.Group):
            found += _all_commands(command, prefix + (name,))
        else:
            found.append(prefix + (name,))
    return found


@pytest.mark.parametrize("words", _all_commands(main), ids=lambda w: " ".join(w) or "engine")
def test_every_command_has_help(words: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*words, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


@pytest.mark.parametrize("args", [["--game", "go", "--size", "5"], ["--game", "go", "--size", "5", "--api", "game"],
                                  ["--game", "gomoku", "--size", "7"], ["--game", "chain-reaction", "--size", "5"]])
def test_bench_rules_json(args: list[str]) -> None:
    result = CliRunner().invoke(main, ["bench", "rules", *args, "--seconds", "0.02", "--runs", "2", "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["moves_per_s"] > 0 and figures["playouts_per_s"] > 0
    assert len(figures["moves_per_s_runs"]) == 2
    assert figures["moves_per_playout"] >= 1


def test_bench_rules_plays_renju() -> None:
    args = ["bench", "rules", "--game", "gomoku", "--size", "9", "--rules", "renju", "--seconds", "0.02", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rules"].startswith("renju")


def test_bench_threats_reads_every_position_of_its_games_for_both_sides() -> None:
    from bench.threats import GAMES

    args = ["bench", "threats", "--depth", "2", "--budget", "20", "--seconds", "0.01", "--runs", "2", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert figures["positions"] == sum(len(game.split()) - 1 for game in GAMES)
    assert figures["reads"] == 2 * figures["positions"] and len(figures["threats_per_s_runs"]) == 2
    # before each game's last move its winner can make five: every game holds a victory found
    assert figures["victories_found"] >= len(GAMES) and figures["threats_per_s"] > 0


@pytest.mark.parametrize("words", [["bench", "genmove", "--size", "5", "--visits", "8", "--batch", "4", "--moves", "2"],
                                   ["bench", "selfplay", "--size", "5", "--readouts", "8", "--parallel-games", "2",
                                    "--batch-size", "2", "--seconds", "1"]])
def test_network_benchmarks_run_a_small_network_on_the_threads_asked(words: list[str]) -> None:
    import torch

    before = torch.get_num_threads()
    args = [*words, "--blocks", "1", "--filters", "8", "--device", "cpu", "--dtype", "fp32", "--runtime", "eager",
            "--threads", "1", "--json"]
    try:
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, (result.output, result.exception)
        figures = json.loads(result.output)
    finally:
        torch.set_num_threads(before)
    assert figures["threads"] == 1 and figures["net"] == "b1c8" and figures["size"] == 5
    if words[1] == "genmove":   # the network's share is timed: neither all of a move nor none of it
        assert 0 < figures["overhead_share"] < 1


def test_bench_net_reports_the_arithmetic_and_no_peak_share_without_a_known_gpu() -> None:
    import torch

    from bench.peak import dense_bf16_peak

    before = torch.get_num_threads()
    try:
        result = CliRunner().invoke(main, ["bench", "net", "--blocks", "1", "--filters", "8", "--size", "5",
                                           "--batch", "4", "--seconds", "0.05", "--runs", "1", "--device", "cpu",
                                           "--runtime", "eager", "--threads", "1", "--json"])
    finally:
        torch.set_num_threads(before)
    assert result.exit_code == 0, (result.output, result.exception)
    figures = json.loads(result.output)
    tower = 2 * 9 * 25 * (17 * 8 + 2 * 8 * 8)  # the 3x3 convolutions: input, then one block's two
    assert tower < figures["gflops_per_position"] * 1e9 < 2 * tower and figures["tflops"] > 0
    assert "peak_share" not in figures and dense_bf16_peak(torch.device("cpu")) is None


def test_games_between_gtp_engines_are_engine_commands() -> None:
    listing = CliRunner().invoke(main, ["--help"]).output
    assert "match" in listing and "gnugo-games" in listing
    for words, promise in ((["match"], "ENGINE_A ENGINE_B"), (["gnugo-games"], "OUT_DIR")):
        result = CliRunner().invoke(main, [*words, "--help"])
        assert result.exit_code == 0 and promise in result.output and "--timeout" in result.output


def test_bench_analysis_batches_the_positions_it_searches_together() -> None:
    import torch

    before = torch.get_num_threads()
    try:
        result = CliRunner().invoke(main, ["bench", "analysis", "--positions", "4", "--visits", "8", "--runs", "1",
                                           "--threads-list", "1,4", "--json"])
    finally:
        torch.set_num_threads(before)
    assert result.exit_code == 0, (result.output, result.exception)
    settings = json.loads(result.output)["settings"]
    assert settings["1"]["positions_per_s"] > 0 and settings["4"]["positions_per_s"] > 0
    assert settings["4"]["network_calls"] < settings["1"]["network_calls"]
    assert settings["4"]["mean_batch"] > settings["1"]["mean_batch"]


def test_bench_ponder_grows_the_next_moves_tree_while_the_opponent_thinks() -> None:
    result = CliRunner().invoke(main, ["bench", "ponder", "--seconds", "0.5", "--commands", "2", "--json", "--",
                                       "--model", "uniform", "--visits", "16"])
    assert result.exit_code == 0, (result.output, result.exception)
    off, on = json.loads(result.output)["results"]
    assert not off["ponder"] and on["ponder"] and on["tree_visits"] > off["tree_visits"]
    assert 0 < on["latency_median_s"] <= on["latency_max_s"]
