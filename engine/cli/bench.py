"""``engine bench ...``: the speed of the engine's parts, each a median of several timed runs.

Each command calls one measuring function of :mod:`bench` and prints its
figures: a line of text, or one JSON object with ``--json``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from engine.cli.options import (
    GAMES,
    evaluator_options,
    json_option,
    network_options,
    ray_layout,
    ray_options,
    report,
    runtime_options,
    seed_option,
    stack,
    threads_option,
)
from engine.cli.process import set_blas_threads_first, set_torch_threads
from engine.cli.settings import (
    PLAYER_VISITS,
    SELFPLAY_BATCH,
    SELFPLAY_FULL_SEARCH_PCT,
    SELFPLAY_PARALLEL_GAMES,
    SELFPLAY_VISITS,
)

__all__ = ["rules_command", "encode_command", "net_command", "search_command", "genmove_command", "startup_command",
           "threats_command", "selfplay_command", "train_command", "fuzz_command", "threads_command",
           "ponder_command", "analysis_command", "soak_group", "gpu_command"]


def _timed(seconds: float) -> Any:
    """``--seconds`` (each run's length) and ``--runs`` (the median of how many is reported)."""
    return stack(
        click.option("--seconds", type=click.FloatRange(0.01), default=seconds, show_default=True,
                     help="Length of each run."),
        click.option("--runs", type=click.IntRange(1), default=5, show_default=True,
                     help="Runs; the median is reported."))


def _measured(measure: Any, *args: Any) -> dict[str, Any]:
    """``measure(*args)``, its library errors as the command's: a bad combination of options, a peer that fails."""
    from bench.timing import BenchError

    try:
        return measure(*args)
    except ValueError as error:
        raise click.UsageError(str(error)) from error
    except BenchError as error:
        raise click.ClickException(str(error)) from error


def _peer(result: dict[str, Any], describe: Callable[[dict[str, Any]], str]) -> str:
    """The line of the peer a benchmark also measured (``result["peer"]``), with our ratio to it; else nothing."""
    theirs = result.get("peer")
    return "" if theirs is None else f"\n{describe(theirs)}; ratio {theirs['ratio']:.2f}x"


@click.command("rules")
@click.option("--game", type=GAMES, default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=None,
              help="Board size [default: 9 Go, 15 Gomoku, 5 Chain Reaction].")
@click.option("--rules", "preset", default=None,
              help="Rules preset [default: japanese for Go (simple ko, no suicide: what OpenSpiel plays), "
                   "freestyle for Gomoku].")
@click.option("--api", type=click.Choice(["compiled", "game"]), default="compiled", show_default=True,
              help="Compiled playouts, or checked Game.play calls from Python.")
@_timed(1.0)
@click.option("--peer", type=click.Choice(["none", "openspiel"]), default="none", show_default=True,
              help="Also measure a peer implementation in this run (Go only).")
@seed_option()
@json_option
def rules_command(game: str, size: int | None, preset: str | None, api: str, seconds: float, runs: int,
                  peer: str, seed: int, as_json: bool) -> None:
    """Random playouts: moves/s and playouts/s (median of several runs)."""
    from bench.rules import measure_rules

    result = _measured(measure_rules, game, size, preset, api, seconds, runs, peer, seed)
    size = result["size"]
    text = (f"{game} {size}x{size} ({result['rules']}) {api}: {result['moves_per_s'] / 1e6:.3f}M moves/s, "
            f"{result['playouts_per_s']:,.0f} playouts/s ({result['moves_per_playout']:.1f} moves per playout; "
            f"median of {runs} runs of {seconds:g} s; import + JIT warm-up {result['startup_s']:.2f} s)")
    report(result, as_json, text + _peer(result, lambda theirs: (
        f"OpenSpiel C++ rollouts: {theirs['moves_per_s'] / 1e6:.3f}M moves/s ({theirs['moves_per_playout']:.1f} "
        "moves per playout)")))


@click.command("encode")
@click.option("--encoder", "name", required=True, help="Encoder to time (oneplane, sevenplane, zero17, ...).")
@click.option("--size", type=click.IntRange(5, 25), default=19, show_default=True, help="Board size.")
@click.option("--batch", type=click.IntRange(1), default=64, show_default=True, help="Positions per call.")
@_timed(1.0)
@seed_option()
@json_option
def encode_command(name: str, size: int, batch: int, seconds: float, runs: int, seed: int, as_json: bool) -> None:
    """Batch feature encoding: positions/s (median of several runs)."""
    from bench.encode import measure_encode

    result = _measured(measure_encode, name, size, batch, seconds, runs, seed)
    report(result, as_json,
           f"{name} ({result['planes']} planes, {result['game']} {size}x{size}, batches of {batch}): "
           f"{result['positions_per_s']:,.0f} positions/s (median of {runs} runs of {seconds:g} s; "
           f"first call {result['warm_up_s']:.2f} s)")


@click.command("net")
@click.option("--blocks", type=click.IntRange(0), default=6, show_default=True, help="Residual blocks.")
@click.option("--filters", type=click.IntRange(1), default=64, show_default=True, help="Filters per convolution.")
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True, help="Board size.")
@click.option("--batch", type=click.IntRange(1), default=16, show_default=True, help="Positions per forward pass.")
@click.option("--heads", type=click.Choice(["fc", "pooled"]), default="fc", show_default=True,
              help="AlphaGo Zero heads, or size-independent pooled heads.")
@click.option("--in-planes", type=click.IntRange(1), default=17, show_default=True, help="Input planes.")
@runtime_options(numpy=True)
@_timed(2.0)
@json_option
def net_command(blocks: int, filters: int, size: int, batch: int, heads: str, in_planes: int, device: str | None,
                dtype: str, runtime: str, threads: int | None, seconds: float, runs: int, as_json: bool) -> None:
    """Network forward passes: positions/s (median of several runs; compiling counts in setup_s, not the rate)."""
    set_blas_threads_first(runtime, threads)   # before numpy loads (torch imports it)
    if runtime != "numpy":
        set_torch_threads(threads)
    from bench.net import measure_net

    result = _measured(measure_net, blocks, filters, size, batch, heads, in_planes, device, dtype, runtime, threads,
                       seconds, runs)
    share = ""
    if "peak_share" in result:
        share = (f", {100 * result['peak_share']:.1f}% of the {result['gpu']}'s {result['peak_bf16_tflops']:g} "
                 "dense bf16 TFLOPS")
    report(result, as_json,
           f"{result['net']} {size}x{size} batch {batch} on {result['device']} ({result['dtype']}, "
           f"{result['runtime']}, {result['threads']} threads): {result['positions_per_s']:,.0f} positions/s "
           f"(median of {runs} runs of {seconds:g} s; setup {result['setup_s']:.2f} s); {result['tflops']:,.3f} "
           f"TFLOPS at {result['gflops_per_position']:.3f} GFLOPs a position{share}")


@click.command("search")
@click.option("--game", type=GAMES, default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True)
@click.option("--visits", type=click.IntRange(2), default=PLAYER_VISITS.default, show_default=True,
              help="Visits per search.")
@click.option("--batch", type=click.IntRange(1), default=16, show_default=True, help="Leaves per evaluator call.")
@click.option("--moves", type=click.IntRange(0), default=0, show_default=True,
              help="Random opening moves played before the searched position.")
@_timed(1.0)
@seed_option()
@json_option
def search_command(game: str, size: int, visits: int, batch: int, moves: int, seconds: float, runs: int,
                   seed: int, as_json: bool) -> None:
    """Simulations/s of the tree search with a uniform evaluator."""
    from bench.search import measure_search

    result = measure_search(game, size, visits, batch, moves, seconds, runs, seed)
    report(result, as_json, f"{game} {size}x{size}, {visits} visits, batches of {batch}: "
                            f"{result['sims_per_s']:,.0f} simulations/s (median of {runs} runs of {seconds:g} s)")


@click.command("genmove")
@network_options
@click.option("--encoder", default="zero17", show_default=True, help="Encoder of the random network.")
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True)
@click.option("--visits", type=click.IntRange(2), default=PLAYER_VISITS.default, show_default=True)
@click.option("--batch", type=click.IntRange(1), default=16, show_default=True, help="Leaves per network call.")
@click.option("--moves", type=click.IntRange(1), default=6, show_default=True, help="Genmoves timed.")
@runtime_options()
@click.option("--peer", type=click.Choice(["none", "leela-zero", "katago"]), default="none", show_default=True,
              help="Also time Leela Zero (apt leela-zero) on the same network (random: the same size), or KataGo "
                   "on the KataGo model file given as --model (one search thread, our network's threads).")
@click.option("--peer-threads", type=click.IntRange(1), default=2, show_default=True, help="Leela Zero's threads.")
@click.option("--peer-binary", type=click.Path(dir_okay=False), default=None,
              help="KataGo's binary [default: $KATAGO, else katago on the PATH].")
@seed_option()
@click.option("--contend", is_flag=True, help="Hold one core with a busy process while the genmoves are timed.")
@json_option
def genmove_command(model_path: str | None, blocks: int, filters: int, encoder: str, size: int, visits: int,
                    batch: int, moves: int, device: str | None, dtype: str, runtime: str, threads: int | None,
                    peer: str, peer_threads: int, peer_binary: str | None, seed: int, contend: bool,
                    as_json: bool) -> None:
    """Genmove visits/s with a network, and the share of time outside it."""
    set_torch_threads(threads)
    from bench.genmove import measure_genmove

    result = _measured(measure_genmove, model_path, blocks, filters, encoder, size, visits, batch, moves, device,
                       dtype, runtime, peer, peer_threads, seed, contend, peer_binary)
    text = (f"{result['net']} {size}x{size}, {visits} visits, batches of {batch} ({result['device']}, "
            f"{result['dtype']}, {result['runtime']}, {result['threads']} threads): "
            f"{result['visits_per_s']:,.0f} visits/s (median of {result['moves']} genmoves), "
            f"{100 * result['overhead_share']:.1f}% of the time outside the network"
            + (", one core held by a busy process" if contend else ""))
    report(result, as_json, text + _peer(result, _genmove_peer))


def _genmove_peer(theirs: dict[str, Any]) -> str:
    """The peer's line of ``engine bench genmove``."""
    rate = f"{theirs['visits_per_s']:,.0f} visits/s (median of {len(theirs['visits_per_s_runs'])} genmoves)"
    if theirs["name"] == "katago":
        return (f"KataGo {theirs['version']} (1 search thread, {theirs['threads']} threads, the same model file): "
                f"{rate}")
    return f"Leela Zero 0.17 ({theirs['threads']} threads, {theirs['weights']}): {rate}"


@click.command("train")
@click.option("--blocks", type=click.IntRange(0), default=6, show_default=True, help="Residual blocks.")
@click.option("--filters", type=click.IntRange(1), default=64, show_default=True, help="Filters per convolution.")
@click.option("--encoder", default="fifteenplane", show_default=True, help="Encoder of the samples.")
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True, help="Board size.")
@click.option("--batch-size", type=click.IntRange(1), default=256, show_default=True)
@click.option("--channels-last/--no-channels-last", default=True, show_default=True, help="NHWC memory layout.")
@click.option("--dtype", type=click.Choice(["auto", "fp32", "bf16"]), default="auto", show_default=True,
              help="Arithmetic of the passes; bf16 is mixed precision. auto: bf16 where the hardware has it "
                   "natively, else fp32.")
@click.option("--steps", type=click.IntRange(1), default=4, show_default=True, help="Steps a run.")
@click.option("--runs", type=click.IntRange(1), default=3, show_default=True, help="Runs; the median is reported.")
@threads_option()
@json_option
def train_command(blocks: int, filters: int, encoder: str, size: int, batch_size: int, channels_last: bool,
                  dtype: str, steps: int, runs: int, threads: int | None, as_json: bool) -> None:
    """Training steps on random samples: samples/s (median of several runs) and the minibatch's share."""
    thread_count = set_torch_threads(threads)
    from bench.train import measure_training

    result = {**measure_training(blocks, filters, encoder, size, batch_size, channels_last, steps, runs, dtype),
              "threads": thread_count}
    report(result, as_json, f"train {result['network']} {encoder} {size}x{size}, batch {batch_size}"
           f"{', channels-last' if channels_last else ''}, {result['device']} {result['dtype']}, "
           f"{thread_count} threads: "
           f"{result['samples_per_s']:.1f} samples/s (median of {runs}: {result['runs_samples_per_s']}); "
           f"drawing the minibatch {100 * result['data_share']:.1f}% of a step")


@click.command("fuzz")
@click.option("--front-end", "front_ends", type=click.Choice(["analysis", "gtp", "gomocup"]), multiple=True,
              default=("analysis", "gtp", "gomocup"), show_default=True, help="Front ends to fuzz (repeat the option).")
@click.option("--lines", type=click.IntRange(1), default=100_000, show_default=True,
              help="Fuzzed lines per front end (each followed by a probe).")
@click.option("--visits", type=click.IntRange(1), default=8, show_default=True, help="Visits per search.")
@click.option("--stall", type=click.FloatRange(min=1), default=120.0, show_default=True,
              help="Seconds without output after which a process counts as hung and is killed.")
@seed_option()
@json_option
def fuzz_command(front_ends: tuple[str, ...], lines: int, visits: int, stall: float, seed: int,
                 as_json: bool) -> None:
    """Deaths, hangs and unanswered commands of each front end's process under fuzzed input."""
    from bench.fuzz.measure import measure_fuzz

    results, text = measure_fuzz(front_ends, lines, visits, stall, seed, lambda line: click.echo(line, err=True))
    report({"lines": lines, "visits": visits, "seed": seed, "results": results}, as_json, text)


@click.command("startup")
@click.option("--size", "sizes", type=click.IntRange(2, 25), multiple=True, default=(9, 19), show_default=True,
              help="Board sizes (repeat the option).")
@click.option("--mode", "modes", type=click.Choice(["cold", "warm"]), multiple=True, default=("cold", "warm"),
              show_default=True,
              help="cold: empty kernel and compile caches; warm: caches filled by a first start and its compile.")
@click.option("--runs", type=click.IntRange(1), default=3, show_default=True, help="Starts per size and mode.")
@click.option("--gtp-args", default="", help="Options for engine gtp, e.g. '--threads 1 --visits 400'.")
@click.option("--timeout", type=click.FloatRange(min=1), default=600, show_default=True,
              help="Seconds allowed for one start.")
@json_option
def startup_command(sizes: tuple[int, ...], modes: tuple[str, ...], runs: int, gtp_args: str, timeout: float,
                    as_json: bool) -> None:
    """Seconds from starting engine gtp to its first answers and first genmove, and the next two genmoves,
    cold and warm (medians)."""
    from bench.startup import measure_startup

    options = gtp_args.split()
    rows = _measured(measure_startup, sizes, modes, runs, options, timeout)
    lines = [f"{row['mode']} {row['size']}x{row['size']}: first answer {row['protocol_s']:.1f} s, ready "
             f"{row['ready_s']:.1f} s, first genmove {row['first_genmove_s']:.1f} s after the start, the next two "
             f"{row['second_genmove_s']:.1f} s and {row['third_genmove_s']:.1f} s (medians of {runs})"
             for row in rows]
    report({"gtp_args": options, "runs": runs, "results": rows}, as_json, "\n".join(lines))


@click.command("selfplay")
@network_options
@click.option("--encoder", default=None, help="Encoder of the random network [default: the game's].")
@click.option("--game", type=GAMES, default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=9, show_default=True)
@click.option("--rules", "rules_text", default=None,
              help="Rules string [default: chinese / freestyle k=5 / chain-reaction].")
@click.option("--visits", "--readouts", "readouts", type=click.IntRange(2), default=SELFPLAY_VISITS.default,
              show_default=True, help="Visits of a full search; --readouts is the same setting.")
@click.option("--full-search-pct", type=click.FloatRange(0, 100), default=SELFPLAY_FULL_SEARCH_PCT,
              show_default=True)
@click.option("--parallel-games", type=click.IntRange(1), default=SELFPLAY_PARALLEL_GAMES.default, show_default=True)
@click.option("--batch-size", type=click.IntRange(1), default=SELFPLAY_BATCH.default, show_default=True,
              help="Leaves per game and step.")
@click.option("--seconds", type=click.FloatRange(1), default=60.0, show_default=True, help="Timed window.")
@runtime_options()
@ray_options
@seed_option()
@json_option
def selfplay_command(model_path: str | None, blocks: int, filters: int, encoder: str | None, game: str,
                     size: int, rules_text: str | None, readouts: int, full_search_pct: float,
                     parallel_games: int, batch_size: int, seconds: float, device: str | None, dtype: str,
                     runtime: str, threads: int | None, ray_target: str | None, ray_actors: int | None,
                     ray_inference: str, seed: int, as_json: bool) -> None:
    """Self-play positions/s and games/hour with a network.

    With --ray the same self-play runs in Ray actors (--parallel-games each), all timed at once, each with its
    own network or sending its leaves to an inference actor (--inference); positions/s is their sum.
    """
    from bench.selfplay import measure_selfplay

    options = evaluator_options(device, dtype, runtime, threads, seed)
    layout = None if ray_target is None else ray_layout(ray_actors, ray_inference, threads)
    result = measure_selfplay(model_path, blocks, filters, encoder, game, size, rules_text, readouts,
                              full_search_pct / 100, parallel_games, batch_size, seconds, options, seed, ray_target,
                              layout)
    text = (f"{result['net']} {result['game']} {result['size']}x{result['size']}, {readouts} readouts "
            f"({result['cheap_readouts']} cheap, {full_search_pct:g}% full), {parallel_games} games x {batch_size} "
            f"leaves ({result['device']}, {result['dtype']}, {result['runtime']}{_on_ray(result)}): "
            f"{result['positions_per_s']:,.2f} positions/s, {result['simulations_per_s']:,.0f} simulations/s, "
            f"{result['games_per_hour']:,.1f} games/hour "
            f"(games of {result['mean_game_length']:.0f} moves or more: an upper bound)")
    report(result, as_json, text)


def _on_ray(ran: dict[str, Any]) -> str:
    """``, Ray local: 2 actors, 1 server 64% busy, 62 positions a call`` (or ``, Ray local: 2 actors, each with
    its own network``) for a run on Ray, else nothing."""
    if "ray" not in ran:
        return ""
    actors = f", Ray {ran['ray']}: {ran['actors']} actors"
    if not ran["servers"]:
        return f"{actors}, each with its own network"
    return (f"{actors}, {ran['servers']} server {100 * ran['inference_busy_share']:.0f}% busy, "
            f"{ran['server_batch_mean']:.0f} positions a call")


@click.command("threads")
@click.option("--model", "model_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A model file [default: the bundled Go network].")
@click.option("--size", type=click.IntRange(2, 25), default=9, show_default=True)
@click.option("--visits", type=click.IntRange(2), default=PLAYER_VISITS.default, show_default=True)
@click.option("--moves", type=click.IntRange(1), default=8, show_default=True, help="Genmoves a run.")
@click.option("--rounds", type=click.IntRange(1), default=3, show_default=True,
              help="Interleaved rounds of every setting, alone and contended.")
@json_option
def threads_command(model_path: str | None, size: int, visits: int, moves: int, rounds: int, as_json: bool) -> None:
    """Genmove visits/s for each torch thread setting, alone and with one core held by a busy process."""
    from bench.threads import measure_threads
    from engine import bundled_model

    model = model_path or str(bundled_model("go"))
    result = _measured(measure_threads, model, size, visits, moves, rounds,
                       lambda key, median: click.echo(f"{key}: {median:,.0f} visits/s so far", err=True))
    single = result["medians"]["threads 1, alone"]
    report(result, as_json, "\n".join(f"{key:32s} {value:8,.0f} visits/s  {100 * value / single:5.0f}% of threads 1 "
                                      "alone" for key, value in result["medians"].items()))


@click.command("threats")
@click.option("--rules", "variant", type=click.Choice(["freestyle", "standard", "renju"]), default="freestyle",
              show_default=True, help="Gomoku rules the threats are read under.")
@click.option("--depth", type=click.IntRange(1), default=None, help="Threats in a row [default: the guard's, 8].")
@click.option("--budget", type=click.IntRange(1), default=None,
              help="Threats read at most by one read [default: the guard's, 1000].")
@_timed(1.0)
@json_option
def threats_command(variant: str, depth: int | None, budget: int | None, seconds: float, runs: int,
                    as_json: bool) -> None:
    """Gomoku's threat reading on positions of real games: threats read/s (median of several runs)."""
    from bench.threats import measure_threats
    from engine.search.guard import VCT_BUDGET, VCT_DEPTH

    result = _measured(measure_threats, variant, depth or VCT_DEPTH, budget or VCT_BUDGET, seconds, runs)
    report(result, as_json,
           f"{result['rules']}: {result['threats_per_s']:,.0f} threats read/s, {result['reads_per_s']:,.0f} reads/s "
           f"({result['reads']} reads of {result['positions']} positions, depth {result['depth']}, budget "
           f"{result['budget']}: {result['threats_per_pass']:,} threats, {result['victories_found']} victories "
           f"found; median of {runs} runs of {seconds:g} s; first pass {result['warm_up_s']:.2f} s)")


@click.command("ponder", context_settings={"ignore_unknown_options": True})
@click.option("--seconds", type=click.FloatRange(0), default=5.0, show_default=True,
              help="The opponent's thinking time after the engine's move.")
@click.option("--commands", type=click.IntRange(1), default=20, show_default=True,
              help="Commands timed while the engine ponders.")
@click.option("--size", type=click.IntRange(2, 25), default=9, show_default=True)
@json_option
@click.argument("gtp_args", nargs=-1, type=click.UNPROCESSED)
def ponder_command(seconds: float, commands: int, size: int, as_json: bool, gtp_args: tuple[str, ...]) -> None:
    """What engine gtp --ponder adds to the next move's tree, and how fast it answers meanwhile (GTP_ARGS: more
    engine gtp options, after --)."""
    from bench.ponder import measure_ponder

    rows = _measured(measure_ponder, list(gtp_args), seconds, commands, size)
    lines = []
    for row in rows:
        text = (f"ponder {'on ' if row['ponder'] else 'off'}: genmove after {seconds:g} s: "
                f"{row['tree_visits']:,} visits in its tree")
        if row["ponder"]:
            text += (f"; answers while pondering: median {1000 * row['latency_median_s']:.0f} ms, largest "
                     f"{1000 * row['latency_max_s']:.0f} ms over {commands} commands")
        lines.append(text)
    report({"gtp_args": list(gtp_args), "seconds": seconds, "results": rows}, as_json, "\n".join(lines))


@click.command("analysis")
@click.option("--positions", type=click.IntRange(1), default=100, show_default=True)
@click.option("--visits", type=click.IntRange(2), default=100, show_default=True)
@click.option("--threads-list", default="1,16", show_default=True,
              help="numAnalysisThreads settings to compare (comma-separated).")
@click.option("--batch", type=click.IntRange(1), default=8, show_default=True,
              help="numSearchThreads: leaves a search gathers per step.")
@click.option("--runs", type=click.IntRange(1), default=3, show_default=True)
@click.option("--model", "model_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="A model file [default: the bundled Go network].")
@click.option("--runtime", type=click.Choice(["eager", "compile"]), default="eager", show_default=True)
@click.option("--threads", type=click.IntRange(1), default=1, show_default=True, help="Torch CPU threads.")
@json_option
def analysis_command(positions: int, visits: int, threads_list: str, batch: int, runs: int, model_path: str | None,
                     runtime: str, threads: int, as_json: bool) -> None:
    """Batch analysis positions/s of engine analysis: positions searched together against one at a time."""
    try:
        settings = [int(text) for text in threads_list.split(",")]
    except ValueError:
        raise click.BadParameter(f"{threads_list!r}: expected whole numbers separated by commas") from None
    set_torch_threads(threads)
    from bench.analysis import measure_analysis

    result = _measured(measure_analysis, positions, visits, settings, batch, runs, model_path, runtime)
    report(result, as_json, "\n".join(
        f"numAnalysisThreads {threads:>3}: {row['positions_per_s']:7.2f} positions/s (median of {runs}), "
        f"{row['network_calls']} network calls, mean batch {row['mean_batch']:.1f}"
        for threads, row in result["settings"].items()))


@click.group("soak")
def soak_group() -> None:
    """A long session on engine gtp processes (GTP_ARGS: more engine gtp options, after --): resident memory
    once settled and at the end, its growth over the second half, speed at the start and at the end, errors."""


_GTP_ARGS = click.argument("gtp_args", nargs=-1, type=click.UNPROCESSED)
_PASSES_ON = {"ignore_unknown_options": True}


@soak_group.command("games", context_settings=_PASSES_ON)
@click.option("--games", type=click.IntRange(2), default=300, show_default=True,
              help="Consecutive games between the two engine processes.")
@click.option("--visits", type=click.IntRange(1), default=16, show_default=True, help="Each engine's visits a move.")
@click.option("--random-moves", type=click.IntRange(0), default=4, show_default=True,
              help="Random opening moves, so that the games differ.")
@click.option("--size", type=click.IntRange(2, 25), default=9, show_default=True, help="Board size.")
@json_option
@_GTP_ARGS
def soak_games_command(games: int, visits: int, random_moves: int, size: int, as_json: bool,
                       gtp_args: tuple[str, ...]) -> None:
    """Two engine gtp processes play one game after another: memory after the first game and at the end."""
    from tqdm import tqdm

    from bench.soak import soak_games

    with tqdm(total=games, desc="soak", unit="game", file=sys.stderr) as bar:
        result = _measured(soak_games, games, size, visits, random_moves, list(gtp_args),
                           lambda done: bar.update(done - bar.n))
    _report_soak("games", result, gtp_args, as_json,
                 f"{result['games']} games, {result['moves']} moves in {result['seconds']:.0f} s",
                 f"{result['moves_per_s_start']:.2f} -> {result['moves_per_s_end']:.2f} moves/s")


@soak_group.command("analyze", context_settings=_PASSES_ON)
@click.option("--seconds", type=click.FloatRange(1), default=3600.0, show_default=True,
              help="How long the session lasts.")
@click.option("--period", type=click.FloatRange(0.5), default=10.0, show_default=True,
              help="Seconds of analysis before the top move is played.")
@click.option("--game-moves", type=click.IntRange(1), default=200, show_default=True,
              help="Moves after which a new game begins.")
@click.option("--size", type=click.IntRange(2, 25), default=19, show_default=True, help="Board size.")
@json_option
@_GTP_ARGS
def soak_analyze_command(seconds: float, period: float, game_moves: int, size: int, as_json: bool,
                         gtp_args: tuple[str, ...]) -> None:
    """One engine gtp process, pondering, analyses with kata-analyze and plays the top move every period:
    memory after the first minute and at the end, the second half's median against the first's."""
    from tqdm import tqdm

    from bench.soak import soak_analyze

    with tqdm(total=round(seconds), desc="soak", unit="s", file=sys.stderr) as bar:
        result = _measured(soak_analyze, seconds, period, size, game_moves, list(gtp_args),
                           lambda elapsed: bar.update(round(elapsed) - bar.n))
    _report_soak("analyze", result, gtp_args, as_json,
                 f"{result['periods']} periods of kata-analyze in {result['seconds']:.0f} s "
                 f"({result['stalled_periods']} stopped early with a full tree)",
                 f"{result['visits_per_s_start']:.0f} -> {result['visits_per_s_end']:.0f} visits/s")


def _report_soak(mode: str, result: dict[str, Any], gtp_args: tuple[str, ...], as_json: bool, done: str,
                 speed: str) -> None:
    memory = (f"{_megabytes(result['rss_first_mb'])} -> {_megabytes(result['rss_last_mb'])} MB resident "
              f"(largest growth {100 * result['rss_growth']:+.1f}%")
    if "rss_growth_second_half" in result:
        memory += f"; over the second half {100 * result['rss_growth_second_half']:+.1f}%"
    memory += ")"
    report({"mode": mode, "gtp_args": list(gtp_args), **result}, as_json,
           f"{done}: {memory}, {speed}, {len(result['errors'])} errors"
           + "".join(f"\n  {error}" for error in result["errors"][:10]))


def _megabytes(value: float | list[float]) -> str:
    return " + ".join(f"{mb:.0f}" for mb in value) if isinstance(value, list) else f"{value:.0f}"


@click.command("gpu")
@click.option("--seconds", type=click.FloatRange(1), default=60.0, show_default=True,
              help="Self-play's timed window in each process.")
@json_option
def gpu_command(seconds: float, as_json: bool) -> None:
    """A CUDA GPU's targets in one run: self-play laid out for this machine's cores and GPUs, a b20c256
    19x19 network's forward pass, training a b10c128 19x19 network; each with the GPU's busy share (nvidia-smi)."""
    from bench.gpu import measure_gpu

    result = _measured(measure_gpu, seconds)
    targets = result["targets"]

    def line(label: str, key: str, value: str) -> str:
        figure, target = result[key], targets[key]
        verdict = "unmeasured" if figure is None else "met" if figure >= target else "not met"
        return f"{label}: {value} (target {target:,g}: {verdict})"

    def percent(key: str) -> str:
        return "?" if result[key] is None else f"{100 * result[key]:.0f}%"

    report(result, as_json, "\n".join([
        f"{result['gpu']}: {result['workers']} self-play processes of {result['parallel_games']} games",
        line("self-play positions/s", "selfplay_positions_per_s", f"{result['selfplay_positions_per_s']:,.0f}"),
        line("self-play simulations/s a process", "selfplay_simulations_per_s_per_process",
             f"{result['selfplay_simulations_per_s_per_process']:,.0f}"),
        line("self-play GPU busy", "selfplay_busy_share", percent("selfplay_busy_share")),
        line("b20c256 batch 1024, share of dense bf16 peak", "net_peak_share", percent("net_peak_share")),
        line(f"training b10c128 ({result['train_samples_per_s']:,.0f} samples/s), GPU busy", "train_busy_share",
             percent("train_busy_share"))]))
