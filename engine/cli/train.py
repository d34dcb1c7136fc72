"""The training commands: ``engine bootstrap | selfplay | gather | train | validate | loop | grow | average``.

Each command builds the frozen configs of the library it calls, calls one
function, and reports: progress bars (tqdm) and notes on stderr, the result
on stdout (one JSON object with ``--json``). Heavy imports (torch, numba)
happen inside the commands, so ``engine --help`` stays fast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from engine.cli.options import (
    GAMES,
    device_option,
    evaluator_options,
    fail,
    json_option,
    note,
    ray_layout,
    ray_options,
    report,
    runtime_option,
    runtime_options,
    seed_option,
    threads_option,
)
from engine.cli.process import set_torch_threads
from engine.cli.settings import (
    MATCH_VISITS,
    SELFPLAY_BATCH,
    SELFPLAY_FORCED_PLAYOUTS,
    SELFPLAY_FULL_SEARCH_PCT,
    SELFPLAY_GUMBEL,
    SELFPLAY_HOLDOUT_PCT,
    SELFPLAY_PARALLEL_GAMES,
    SELFPLAY_RESIGN_DISABLED_PCT,
    SELFPLAY_RESIGN_THRESHOLD,
    SELFPLAY_VISITS,
)

__all__ = ["average_command", "bootstrap_command", "grow_command", "selfplay_command", "gather_command",
           "train_command", "validate_command", "loop_command"]


def _lr_drops(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple[tuple[int, float], ...]:
    """``--lr-drop GENERATION:LR`` options as ``(generation, rate)`` pairs (LoopConfig checks their values)."""
    drops = []
    for text in values:
        generation, _, rate = text.partition(":")
        try:
            drops.append((int(generation), float(rate)))
        except ValueError:
            raise click.BadParameter(f"{text!r}: expected GENERATION:LR, e.g. 33:0.005") from None
    return tuple(drops)


def _grow_steps(_ctx: click.Context, _param: click.Parameter,
                values: tuple[str, ...]) -> tuple[tuple[int, int, int], ...]:
    """``--grow GENERATION:BLOCKSxFILTERS`` options as ``(generation, blocks, filters)`` (LoopConfig checks them)."""
    steps = []
    for text in values:
        generation, _, size = text.partition(":")
        blocks, _, filters = size.lower().partition("x")
        try:
            steps.append((int(generation), int(blocks), int(filters)))
        except ValueError:
            raise click.BadParameter(f"{text!r}: expected GENERATION:BLOCKSxFILTERS, e.g. 58:6x64") from None
    return tuple(steps)


def _share(_ctx: click.Context, _param: click.Parameter, percent: float) -> float:
    """A ``--...-pct`` option's value as the share the configs hold."""
    return percent / 100


def _aux_heads(_ctx: click.Context, _param: click.Parameter, text: str | None) -> tuple[str, ...] | None:
    """``--aux-heads ownership,score`` as the heads' names; None when not given (the game's default)."""
    if text is None:
        return None
    from engine import parse_aux_heads

    try:
        return parse_aux_heads(text)
    except ValueError as error:
        raise click.BadParameter(str(error)) from error


def _aux_heads_option(name: str) -> Callable[..., Any]:
    """``--aux-heads`` of a command that makes a new network, setting the parameter ``name``."""
    return click.option("--aux-heads", name, default=None, callback=_aux_heads,
                        help="Auxiliary heads of a new network: ownership,score, one of them, or none "
                             "[default: ownership,score for go, none for the other games].")


def _loss_weights(prefix: str = "") -> Callable[..., Any]:
    """The ownership and score loss weights (``prefix``: where the parameters go in a nested config)."""
    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for flag, weight, what in (("--score-stdev-weight", 0.02, "the score spread's Gaussian NLL"),
                                   ("--score-mean-weight", 0.02, "the score mean's Huber loss"),
                                   ("--ownership-weight", 1.5, "the ownership's per-point squared error")):
            name = prefix + flag[2:].replace("-", "_")
            command = click.option(flag, name, type=click.FloatRange(0), default=weight, show_default=True,
                                   help=f"Weight of {what} (networks with the head).")(command)
        return command
    return decorate


def _ray_cluster(store: Any, actors: int | None, inference: str, threads: int | None) -> Any:
    from training.cluster.backend import RayCluster

    return RayCluster(store, ray_layout(actors, inference, threads), threads)


def _no_url(location: str | None, option: str) -> None:
    from training.cluster.storage import is_url

    if location is not None and is_url(location):
        raise click.UsageError(f"{option} {location} is a URL: give --ray to run on a cluster with it")


# --------------------------------------------------------------- bootstrap
@click.command("bootstrap")
@click.argument("out_model", type=click.Path(dir_okay=False))
@click.option("--game", type=GAMES, default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=9, show_default=True)
@click.option("--encoder", default=None,
              help="Feature encoder [default: zero17 for go, gomoku4 for gomoku, orbs8 for chain-reaction].")
@click.option("--blocks", type=click.IntRange(0), default=6, show_default=True, help="Residual blocks.")
@click.option("--filters", type=click.IntRange(1), default=64, show_default=True, help="Filters per layer.")
@click.option("--heads", type=click.Choice(["fc", "pooled"]), default="fc", show_default=True,
              help="fc: AlphaGo Zero heads for one board size; pooled: any board size.")
@_aux_heads_option("aux_heads")
@seed_option()
def bootstrap_command(out_model: str, game: str, size: int, encoder: str | None, blocks: int, filters: int,
                      heads: str, aux_heads: tuple[str, ...] | None, seed: int) -> None:
    """Write a randomly initialised model, generation 0."""
    from engine import EngineError, read_info
    from training.models import BootstrapConfig, bootstrap

    try:
        path = bootstrap(out_model, BootstrapConfig(game, size, encoder, blocks, filters, heads, seed, aux_heads))
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    info = read_info(path)
    aux = ", ".join(info.config.aux_heads) or "none"
    click.echo(f"{path}: {info.name}, {info.describe()}, auxiliary heads: {aux}")


# -------------------------------------------------------------------- grow
@click.command("grow")
@click.argument("in_model", type=click.Path(exists=True, dir_okay=False))
@click.argument("out_model", type=click.Path(dir_okay=False))
@click.option("--blocks", type=click.IntRange(0), required=True, help="Residual blocks (at least the model's).")
@click.option("--filters", type=click.IntRange(1), required=True, help="Filters per layer (at least the model's).")
@click.option("--noise", type=click.FloatRange(0), default=0.01, show_default=True,
              help="Relative spread of the copied filters' weights (0: exactly the same outputs).")
@seed_option()
def grow_command(in_model: str, out_model: str, blocks: int, filters: int, noise: float, seed: int) -> None:
    """Write IN_MODEL grown to more blocks and filters, playing as it did: train it on from there."""
    from engine import EngineError, load_model, save_model
    from training.grow import grow_model

    try:
        model = load_model(in_model)
        path = save_model(out_model, grow_model(model, blocks, filters, noise, seed))
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    click.echo(f"{path}: {model.net.config.name} grown to {blocks} blocks of {filters} filters")


# ----------------------------------------------------------------- average
def _weights(_ctx: click.Context, _param: click.Parameter, text: str | None) -> tuple[float, ...] | None:
    """``--weights 2,1,1`` as floats (average_models checks their count and signs)."""
    if text is None:
        return None
    try:
        return tuple(float(word) for word in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r}: expected numbers separated by commas, e.g. 2,1,1") from None


@click.command("average")
@click.argument("in_models", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--output", "-o", "out_model", type=click.Path(dir_okay=False), required=True,
              help="The model file to write.")
@click.option("--weights", callback=_weights, metavar="W1,W2,...",
              help="One weight per model, in their order (default: equal).")
def average_command(in_models: tuple[str, ...], out_model: str, weights: tuple[float, ...] | None) -> None:
    """Write the mean of IN_MODELS' weights: networks trained on from one ancestor, averaged, predict better than
    each. Networks of unrelated runs average to noise."""
    from engine import EngineError, load_model, save_model
    from training.average import average_models

    try:
        models = [load_model(path) for path in in_models]
        path = save_model(out_model, average_models(models, weights))
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    click.echo(f"{path}: the average of {len(models)} {models[0].net.config.name} networks")


# ---------------------------------------------------------------- selfplay
def _selfplay_method_options(prefix: str) -> Callable[..., Any]:
    """``--forced-playouts K`` and ``--gumbel M``, the self-play search methods, as SearchConfig settings
    under ``prefix`` (``"player__search__"``: parameter names are dotted setting paths, ``__`` for ``.``)."""
    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option(
            "--gumbel", f"{prefix}gumbel_considered", type=click.IntRange(0), default=SELFPLAY_GUMBEL.default,
            show_default=True,
            help="Gumbel root search over this many sampled moves, with sequential halving and the completed-Q "
                 "policy target (0: PUCT at the root). Give --full-search-pct 100 with it.")(command)
        return click.option(
            "--forced-playouts", f"{prefix}forced_playouts_k", type=click.FloatRange(0),
            default=SELFPLAY_FORCED_PLAYOUTS.default,
            show_default=True, help="KataGo's forced playouts (k) in full PUCT searches, and the pruned policy "
                                    "target (0: off).")(command)
    return decorate


@click.command("selfplay")
@click.argument("model", type=click.Path(exists=True, dir_okay=False))
@click.option("--visits", "--readouts", "visits", type=click.IntRange(2), default=SELFPLAY_VISITS.default,
              show_default=True, help="Visits of a full search (a policy target); --readouts is the same setting.")
@click.option("--cheap-visits", "--cheap-readouts", "cheap_visits", type=click.IntRange(2), default=None,
              help="Visits of a cheap search [default: --visits / 6]; --cheap-readouts is the same setting.")
@click.option("--full-search-pct", "full_search_share", type=click.FloatRange(0, 100),
              default=SELFPLAY_FULL_SEARCH_PCT,
              show_default=True, callback=_share,
              help="Playout Cap Randomization: share of moves with the full search (100: all).")
@_selfplay_method_options("player__search__")
@click.option("--games", type=click.IntRange(1), default=16, show_default=True)
@click.option("--output-dir", default="games", show_default=True,
              help="Game records (with --ray also an fsspec URL); held-out games go to its holdout/ folder.")
@click.option("--output-sgf", type=click.Path(file_okay=False), default=None, help="Also write SGF files here.")
@click.option("--holdout-pct", "holdout_share", type=click.FloatRange(0, 100),
              default=SELFPLAY_HOLDOUT_PCT, show_default=True,
              callback=_share)
@click.option("--parallel-games", type=click.IntRange(1), default=None,
              help="Games in flight per process; their leaves share one network call [default: 16; 64 on a GPU].")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="Processes [default: 1; on a GPU one a core but two].")
@click.option("--batch-size", type=click.IntRange(1), default=SELFPLAY_BATCH.default, show_default=True,
              help="Leaves per game and step.")
@click.option("--temperature-moves", type=click.IntRange(0), default=None,
              help="Opening moves sampled from the visits [default: N*N / 12].")
@click.option("--resign-threshold", type=click.FloatRange(-1, 1), default=SELFPLAY_RESIGN_THRESHOLD.default,
              show_default=True)
@click.option("--no-resign", is_flag=True, help="Never resign.")
@click.option("--random-moves", type=click.IntRange(0), default=0, show_default=True,
              help="Uniformly random opening moves a game (no policy target).")
@click.option("--resign-disabled-pct", "resign_disabled_share", type=click.FloatRange(0, 100),
              default=SELFPLAY_RESIGN_DISABLED_PCT,
              show_default=True, callback=_share, help="Games that may not resign, to measure false resignations.")
@click.option("--rules", "rules_text", default=None,
              help="Rules string [default: chinese / freestyle k=5 / chain-reaction].")
@click.option("--size", type=click.IntRange(2, 25), default=None, help="Board size for size-independent models.")
@runtime_options()
@ray_options
@seed_option(None)
@json_option
def selfplay_command(model: str, visits: int, cheap_visits: int | None, full_search_share: float,
                     player__search__forced_playouts_k: float, player__search__gumbel_considered: int, games: int,
                     output_dir: str, output_sgf: str | None, holdout_share: float, parallel_games: int | None,
                     workers: int | None, batch_size: int, temperature_moves: int | None, random_moves: int,
                     resign_threshold: float, no_resign: bool, resign_disabled_share: float, rules_text: str | None,
                     size: int | None,
                     device: str | None, dtype: str, runtime: str, threads: int | None, ray_target: str | None,
                     ray_actors: int | None, ray_inference: str, seed: int | None, as_json: bool) -> None:
    """Play self-play games with MODEL and write their records (and SGF).

    With --ray the games are played by actors of a Ray cluster, and --output-dir may be an fsspec URL.
    """
    from tqdm import tqdm

    from engine import EngineError, pick_device, read_info
    from training.gpu_busy import GpuBusy, counting_games
    from training.layout import default_layout
    from training.models import model_rules
    from training.selfplay import SelfPlayOutput, run_selfplay
    from training.selfplay_config import SelfPlayConfig, opening_moves
    from training.settings import replace_paths

    try:
        rules = model_rules(read_info(model), rules_text, size)
        layout = default_layout(pick_device(device).type, len(os.sched_getaffinity(0)))
        parallel_games = parallel_games or layout.parallel_games
        workers = workers or layout.workers
        config = replace_paths(SelfPlayConfig(), {
            "player.visits": visits, "player.search.batch_size": batch_size,
            "player.search.forced_playouts_k": player__search__forced_playouts_k,
            "player.search.gumbel_considered": player__search__gumbel_considered,
            "player.temperature_moves": opening_moves(rules.size) if temperature_moves is None else temperature_moves,
            "player.resign_threshold": None if no_resign else resign_threshold, "cheap_readouts": cheap_visits,
            "full_search_share": full_search_share, "parallel_games": parallel_games,
            "resign_disabled_share": resign_disabled_share, "holdout_share": holdout_share,
            "random_moves": random_moves, "seed": seed})
        sgf_dir = None if output_sgf is None else Path(output_sgf)
        options = evaluator_options(device, dtype, runtime, threads, seed)
        if ray_target is not None:
            from training.cluster.connect import connected
            from training.cluster.storage import RunStore

            store = RunStore(output_dir)
            with connected(ray_target):
                summary = _ray_cluster(store, ray_actors, ray_inference, threads).selfplay(
                    Path(model), rules, config, games, SelfPlayOutput(store.local, sgf_dir), options)
        else:
            _no_url(output_dir, "--output-dir")
            with tqdm(total=games, desc="self-play", unit="game", file=sys.stderr) as bar, GpuBusy() as gpu:
                summary = run_selfplay(model, rules, config, games, SelfPlayOutput(Path(output_dir), sgf_dir), options,
                                       workers, counting_games(bar, gpu), worker_threads=threads)
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    report(summary.to_dict(), as_json, summary.describe())


# ------------------------------------------------------------------ gather
@click.command("gather")
@click.option("--input-directory", type=click.Path(exists=True, file_okay=False), default=None,
              help="Self-play game records (this folder only; not its holdout/).")
@click.option("--sgf", "sgf_directory", type=click.Path(exists=True, file_okay=False), default=None,
              help="SGF files anywhere below this folder (pi: the move played, z: the result).")
@click.option("--collection", "collections", type=click.Path(exists=True), multiple=True,
              help="Game collections (repeatable; folders taken whole): zip or plain files in the one-line "
                   "format 'ID<TAB>;B[pd];W[dd]...', SGF archives (.zip, .tar.gz), .sgf files, Piskvork .psq and "
                   ".rec games (loose or zipped). Read on --workers cores, resumable.")
@click.option("--index", "index_paths", type=click.Path(exists=True), multiple=True,
              help="With --collection: the one-line games' results ('ID, date, ..., result, ...' tab-separated "
                   "lines; zip or plain; repeatable).")
@click.option("--holdout-months", default="", metavar="YYYY-MM,...",
              help="With --collection: games of these months go to OUTPUT/holdout/, never to training.")
@click.option("--holdout-games", multiple=True, metavar="PATTERN",
              help="With --collection: games whose COLLECTION/MEMBER name (or whose collection's file name) "
                   "matches this wildcard pattern go to OUTPUT/holdout/ (repeatable), e.g. 'games.zip/5/*'.")
@click.option("--fit-board", is_flag=True,
              help="With --collection: Gomoku games of a larger board are moved onto --size where every stone "
                   "fits (the others are skipped as 'another board').")
@click.option("--collection-rules", default="chinese komi=6.5 ko=simple", show_default=True,
              help="With --collection: the rules of the one-line and Piskvork games (their files do not say; "
                   "e.g. 'freestyle').")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="With --collection: collections read at a time [default: the cores].")
@click.option("--output-directory", type=click.Path(file_okay=False), required=True)
@click.option("--model", "model_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Encode for this model (its encoder, game and board).")
@click.option("--encoder", default=None, help="Encode with this encoder (board and game from --size or the inputs).")
@click.option("--size", type=click.IntRange(2, 25), default=None, help="Board size to keep [default: the model's, "
              "else the first input's; for collections, the board of --collection-rules].")
@click.option("--window", type=click.IntRange(1), default=None, help="Only the newest N inputs.")
@click.option("--chunk-samples", type=click.IntRange(1), default=8192, show_default=True)
@click.option("--skip-moves", type=click.IntRange(0), default=0, show_default=True,
              help="With --sgf or --collection: the first N moves of each game give no samples.")
@seed_option(None)
@json_option
def gather_command(input_directory: str | None, sgf_directory: str | None, collections: tuple[str, ...],
                   index_paths: tuple[str, ...], holdout_months: str, holdout_games: tuple[str, ...],
                   fit_board: bool, collection_rules: str, workers: int | None,
                   output_directory: str, model_path: str | None, encoder: str | None, size: int | None,
                   window: int | None, chunk_samples: int, skip_moves: int, seed: int | None, as_json: bool) -> None:
    """Replay game records, SGF files or game collections into shuffled training chunks (idempotent)."""
    from tqdm import tqdm

    from engine import EngineError
    from training.gather import GatherConfig, gather, gather_target, list_inputs

    if sum(map(bool, (input_directory, sgf_directory, collections))) != 1:
        raise click.UsageError("give one of --input-directory, --sgf and --collection")
    if collections:
        _gather_collections(collections, index_paths, holdout_months, holdout_games, fit_board, collection_rules,
                            workers, output_directory, model_path, encoder, size, chunk_samples, skip_moves, seed,
                            as_json)
        return
    if index_paths or holdout_months or holdout_games or fit_board:
        raise click.UsageError("--index, --holdout-months, --holdout-games and --fit-board apply to --collection only")
    kind = "records" if input_directory is not None else "sgf"
    if skip_moves and kind != "sgf":
        raise click.UsageError("--skip-moves applies to --sgf and --collection only")
    try:
        inputs = list_inputs(input_directory or sgf_directory, kind)  # type: ignore[arg-type]
        target = gather_target(inputs, kind, model_path, encoder, size)
        with tqdm(total=len(inputs), desc="gather", unit="file", file=sys.stderr) as bar:
            config = GatherConfig(kind, window, chunk_samples, seed, skip_moves)
            summary = gather(inputs, output_directory, target, config, bar.update)
    except (EngineError, ValueError, OSError) as error:
        raise fail(error) from error
    result = {"inputs": summary.inputs, "already_gathered": summary.already_gathered, "empty": summary.empty,
              "rejected": summary.rejected,
              "samples": summary.samples, "chunks": [str(p) for p in summary.chunks]}
    report(result, as_json, summary.describe())


def _gather_collections(collections: tuple[str, ...], index_paths: tuple[str, ...], holdout_months: str,
                        holdout_games: tuple[str, ...], fit_board: bool, rules: str, workers: int | None,
                        output_directory: str, model_path: str | None, encoder: str | None, size: int | None,
                        chunk_samples: int, skip_moves: int,
                        seed: int | None, as_json: bool) -> None:
    """``gather --collection``: the collections' games into chunks, held-out months and games apart."""
    import os
    import re
    import tarfile
    import zipfile

    from tqdm import tqdm

    from engine import EngineError, Rules, list_collections, read_info
    from training.gather import GatherTarget, gather_target
    from training.gather_collections import CollectionConfig, gather_collections

    months = tuple(m.strip() for m in holdout_months.split(",") if m.strip())
    for month in months:
        if not re.fullmatch(r"\d{4}-\d{2}", month):
            raise click.BadParameter(f"{month!r}: expected YYYY-MM", param_hint="--holdout-months")
    if (model_path is None) == (encoder is None):
        raise click.UsageError("give one of --model and --encoder")
    try:
        files = list_collections(collections)
        if not files:
            raise ValueError(f"no game collections in {', '.join(collections)}")
        if model_path:
            board = size or (19 if read_info(model_path).board_size is None else None)
            target = gather_target([], "sgf", model_path, None, board)
        else:
            preset = Rules.parse(rules)
            target = GatherTarget(preset.game, size or preset.size, encoder.strip().lower())
        config = CollectionConfig(rules=rules, holdout_months=months, holdout_games=holdout_games,
                                  fit_board=fit_board, skip_moves=skip_moves, chunk_samples=chunk_samples,
                                  workers=workers or os.cpu_count() or 1, seed=seed)
        with tqdm(desc="gather", unit="game", file=sys.stderr) as bar:
            summary = gather_collections(files, list_collections(index_paths), output_directory, target, config,
                                         bar.update)
    except (EngineError, ValueError, OSError, zipfile.BadZipFile, tarfile.TarError, EOFError) as error:
        raise fail(error) from error
    result = {"collections": summary.finished, "already_gathered": summary.already_gathered,
              "games": summary.games, "used": summary.used, "skipped": dict(summary.skipped),
              "scored": summary.scored, "unconfirmed": summary.unconfirmed, "samples": summary.samples,
              "holdout_samples": summary.holdout_samples, "chunks": len(summary.chunks)}
    report(result, as_json, summary.describe())


# ------------------------------------------------------------------- train
@click.command("train")
@click.argument("chunks", nargs=-1, required=True, type=click.Path(exists=True))
@click.argument("out_model", type=click.Path(dir_okay=False))
@click.option("--load-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Start from this model [default: a new random network of --blocks x --filters].")
@click.option("--fresh-value-head", is_flag=True,
              help="Start the loaded model's value layers afresh (seeded): revives a value head whose units died.")
@click.option("--generation-num", type=click.IntRange(0), default=None,
              help="Generation of the result [default: the loaded model's + 1, else 1].")
@click.option("--logdir", type=click.Path(file_okay=False), default=None, help="TensorBoard scalars go here.")
@click.option("--steps", type=click.IntRange(0), default=1000, show_default=True)
@click.option("--batch-size", type=click.IntRange(1), default=256, show_default=True)
@click.option("--optimizer", type=click.Choice(["sgd", "adam"]), default="sgd", show_default=True,
              help="SGD with Nesterov momentum, or Adam.")
@click.option("--lr", type=click.FloatRange(0, min_open=True), default=None,
              help="Learning rate [default: 0.02 for SGD, 0.001 for Adam].")
@click.option("--momentum", type=click.FloatRange(0, 1), default=0.9, show_default=True)
@click.option("--l2", type=click.FloatRange(0), default=1e-4, show_default=True, help="L2 weight penalty.")
@click.option("--schedule", type=click.Choice(["constant", "cosine", "step"]), default="cosine", show_default=True)
@click.option("--warmup-steps", type=click.IntRange(0), default=0, show_default=True)
@click.option("--value-weight", type=click.FloatRange(0), default=1.0, show_default=True)
@_loss_weights()
@click.option("--kl-target", type=click.FloatRange(0, min_open=True), default=None,
              help="KL-adaptive learning rate: keep the policy's change per step near this KL divergence.")
@click.option("--no-symmetries", is_flag=True, help="Train on the samples as stored (no random symmetry).")
@click.option("--channels-last/--no-channels-last", default=True, show_default=True,
              help="Train in the NHWC memory layout (faster convolutions on the CPU).")
@click.option("--dtype", type=click.Choice(["auto", "fp32", "bf16"]), default="auto", show_default=True,
              help="Arithmetic of the passes; bf16 is mixed precision (weights and optimiser in fp32). auto: bf16 "
                   "where the hardware has it natively (a GPU; a CPU with AMX or AVX-512 BF16), else fp32.")
@click.option("--checkpoint-every", type=click.IntRange(0), default=200, show_default=True)
@click.option("--memory-samples", type=click.IntRange(1), default=2_000_000, show_default=True,
              help="Samples held in memory at most: a larger set streams through two windows of half as many "
                   "(about 1.5 KB a 19x19 sample).")
@click.option("--blocks", type=click.IntRange(0), default=6, show_default=True)
@click.option("--filters", type=click.IntRange(1), default=64, show_default=True)
@click.option("--heads", type=click.Choice(["fc", "pooled"]), default="fc", show_default=True)
@_aux_heads_option("aux_heads")
@device_option
@threads_option()
@seed_option()
@json_option
def train_command(chunks: tuple[str, ...], out_model: str, load_file: str | None, fresh_value_head: bool,
                  generation_num: int | None,
                  logdir: str | None, steps: int, batch_size: int, optimizer: str, lr: float | None, momentum: float,
                  l2: float, schedule: str, warmup_steps: int, value_weight: float, ownership_weight: float,
                  score_mean_weight: float, score_stdev_weight: float, kl_target: float | None,
                  no_symmetries: bool, channels_last: bool, dtype: str, checkpoint_every: int,
                  memory_samples: int, blocks: int,
                  filters: int, heads: str,
                  aux_heads: tuple[str, ...] | None, device: str | None, threads: int | None, seed: int,
                  as_json: bool) -> None:
    """Train a network on CHUNKS (files or folders) and save it as OUT_MODEL; resumes from its checkpoint."""
    from tqdm import tqdm

    from engine import EngineError
    from training.models import BootstrapConfig, model_for_chunks
    from training.models import fresh_value_head as refresh
    from training.stream import SampleStream
    from training.train import TrainConfig, train

    config = TrainConfig(steps=steps, batch_size=batch_size, optimizer=optimizer,
                         learning_rate=lr if lr is not None else (0.001 if optimizer == "adam" else 0.02),
                         momentum=momentum, l2=l2, schedule=schedule, warmup_steps=warmup_steps,
                         value_weight=value_weight, ownership_weight=ownership_weight,
                         score_mean_weight=score_mean_weight, score_stdev_weight=score_stdev_weight,
                         kl_target=kl_target, symmetries=not no_symmetries,
                         checkpoint_every=checkpoint_every, seed=seed, device=device, channels_last=channels_last,
                         dtype=dtype)
    set_torch_threads(threads)
    try:
        samples = SampleStream.from_chunks(list(chunks), memory_samples=memory_samples)
        note(f"training set: {samples.describe()}")
        new = BootstrapConfig(blocks=blocks, filters=filters, heads=heads, seed=seed, aux_heads=aux_heads)
        model = model_for_chunks(samples.info, load_file, new)
        if fresh_value_head:
            if load_file is None:
                raise ValueError("--fresh-value-head renews a loaded model's value layers: give --load-file")
            refresh(model, seed)
        generation = generation_num if generation_num is not None else (
            model.info.generation + 1 if load_file else 1)
        with tqdm(total=steps, desc="train", unit="step", file=sys.stderr) as bar:
            def on_step(done: int, metrics: dict[str, float]) -> None:
                bar.update(done - bar.n)
                bar.set_postfix(policy=f"{metrics['loss/policy']:.3f}", value=f"{metrics['loss/value']:.3f}",
                                passes=f"{metrics['passes']:.2f}", refresh=False)
            result = train(samples, model, out_model, generation, config, logdir, on_step)
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    report(result.to_dict(), as_json, result.describe())


# ---------------------------------------------------------------- validate
@click.command("validate")
@click.argument("holdout", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--load-file", type=click.Path(exists=True, dir_okay=False), required=True, help="The model.")
@click.option("--batch-size", type=click.IntRange(1), default=1024, show_default=True)
@device_option
@json_option
def validate_command(holdout: tuple[str, ...], load_file: str, batch_size: int, device: str | None,
                     as_json: bool) -> None:
    """Policy loss, top-1 accuracy and value MSE of a model on held-out chunks (files or folders)."""
    from engine import EngineError
    from training.chunks import load_samples
    from training.models import model_for_chunks
    from training.validate import validate

    try:
        samples = load_samples(list(holdout))
        model = model_for_chunks(samples.info, load_file)
        result = validate(model.net, samples, batch_size, device)
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    # The name is the network's generation, which networks trained apart may share: the file tells them apart.
    report({"model": model.name, "file": load_file, **result.to_dict()}, as_json,
           f"{load_file} ({model.name}) on {result.describe()}")


# -------------------------------------------------------------------- loop
def _openings(ctx: click.Context, param: click.Parameter, path: str | None) -> tuple[str, ...]:
    """``--match-openings``: the list's openings as text (fitted to the run's board once its rules are known)."""
    from engine import read_openings

    try:
        return () if path is None else read_openings(path)
    except (OSError, ValueError) as error:
        raise click.BadParameter(str(error)) from error


# Each option's parameter name is the LoopConfig setting it sets, "__" for "." ("selfplay__player__visits"),
# so there is no table to keep; --seed seeds every part of the run.
_SEEDED = ("bootstrap", "selfplay", "train", "match")


@click.command("loop")
@click.argument("run_dir")
@click.option("--game", "bootstrap__game", type=GAMES, default="gomoku", show_default=True)
@click.option("--size", "bootstrap__size", type=click.IntRange(2, 25), default=6, show_default=True)
@click.option("--win-length", "win_length", type=click.IntRange(3, 25), default=None,
              help="Gomoku: stones in a row to win.")
@click.option("--rules", "rules", default=None, help="Rules string (overrides --win-length).")
@click.option("--encoder", "bootstrap__encoder", default=None)
@click.option("--blocks", "bootstrap__blocks", type=click.IntRange(0), default=2, show_default=True)
@click.option("--filters", "bootstrap__filters", type=click.IntRange(1), default=32, show_default=True)
@click.option("--heads", "bootstrap__heads", type=click.Choice(["fc", "pooled"]), default="fc", show_default=True)
@_aux_heads_option("bootstrap__aux_heads")
@click.option("--generations", "generations", type=click.IntRange(1), default=10, show_default=True)
@click.option("--games", "games_per_generation", type=click.IntRange(1), default=200, show_default=True,
              help="Self-play games a generation.")
@click.option("--visits", "--readouts", "selfplay__player__visits", type=click.IntRange(2),
              default=SELFPLAY_VISITS.default, show_default=True,
              help="Visits of a self-play move's full search (a policy target); --readouts is the same setting. "
                   "Matches have their own, --match-visits.")
@click.option("--cheap-visits", "--cheap-readouts", "selfplay__cheap_readouts", type=click.IntRange(2), default=None,
              help="Visits of a self-play move's cheap search [default: --visits / 6]; --cheap-readouts is the same "
              "setting.")
@click.option("--full-search-pct", "selfplay__full_search_share", type=click.FloatRange(0, 100),
              default=SELFPLAY_FULL_SEARCH_PCT,
              show_default=True, callback=_share)
@click.option("--holdout-pct", "selfplay__holdout_share", type=click.FloatRange(0, 100),
              default=SELFPLAY_HOLDOUT_PCT,
              show_default=True, callback=_share)
@_selfplay_method_options("selfplay__player__search__")
@click.option("--random-moves", "selfplay__random_moves", type=click.IntRange(0), default=0, show_default=True,
              help="Uniformly random opening moves a self-play game (no policy target).")
@click.option("--resign-threshold", "selfplay__player__resign_threshold", type=click.FloatRange(-1, 1),
              default=SELFPLAY_RESIGN_THRESHOLD.default, show_default=True,
              help="Self-play resigns after 3 of its moves valued below this.")
@click.option("--parallel-games", "selfplay__parallel_games", type=click.IntRange(1),
              default=SELFPLAY_PARALLEL_GAMES.default, show_default=True,
              help="Self-play games in flight per process (a new run on a GPU: 64 unless given).")
@click.option("--workers", "workers", type=click.IntRange(1), default=1, show_default=True,
              help="Self-play processes (a new run on a GPU: one a core but two, unless given).")
@click.option("--cpu-hours", "cpu_hours", type=click.FloatRange(0, min_open=True), default=None,
              help="Start no generation once the run has used this much CPU time (self-play, gather, training).")
@click.option("--start-model", "start_model", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Generation 0 is a copy of this model (a new run's network size follows it) [default: random].")
@click.option("--steps", "train__steps", type=click.IntRange(0), default=1000, show_default=True,
              help="Training steps a generation.")
@click.option("--batch-size", "train__batch_size", type=click.IntRange(1), default=256, show_default=True)
@click.option("--lr", "train__learning_rate", type=click.FloatRange(0, min_open=True), default=0.02,
              show_default=True)
@click.option("--lr-drop", "lr_drops", multiple=True, callback=_lr_drops, metavar="GENERATION:LR",
              help="From GENERATION on, train at peak learning rate LR (repeat for a step schedule; "
                   "e.g. --lr-drop 33:0.005 once the curve flattens).")
@click.option("--grow", "grow", multiple=True, callback=_grow_steps, metavar="GENERATION:BLOCKSxFILTERS",
              help="From GENERATION on, train a network of this size, grown from the best so that it "
                   "keeps what it learnt (e.g. --grow 58:6x64 once a small network's curve flattens).")
@click.option("--optimizer", "train__optimizer", type=click.Choice(["sgd", "adam"]), default="sgd",
              show_default=True)
@click.option("--kl-target", "train__kl_target", type=click.FloatRange(0, min_open=True), default=None)
@click.option("--l2", "train__l2", type=click.FloatRange(0), default=1e-4, show_default=True)
@_loss_weights("train__")
@click.option("--window", "window", type=click.IntRange(1), default=4, show_default=True,
              help="Generations of samples a generation trains on.")
@click.option("--gate-games", "gate_games", type=click.IntRange(0), default=0, show_default=True,
              help="Games of a new generation against the best (0: always accept).")
@click.option("--gate-threshold", "gate_threshold", type=click.FloatRange(0, 1), default=0.55, show_default=True)
@click.option("--rating-games", "rating_games", type=click.IntRange(0), default=0, show_default=True,
              help="Games of each rated generation against --rating-opponent (0: no ratings).")
@click.option("--rating-opponent", "rating_opponent", default="mcts-rollouts:1000", show_default=True,
              help="The fixed opponent of the ratings: a baseline (random, mcts-rollouts:N, gomokubench:LEVEL), "
                   "a model file, or a GTP engine's command line, e.g. \"gnugo --mode gtp --level 10 "
                   "--chinese-rules --positional-superko\" (games start with 2 random moves; its final_score "
                   "scores Go games).")
@click.option("--rating-every", "rating_every", type=click.IntRange(1), default=1, show_default=True,
              help="Rate generation 0 and every N-th accepted generation.")
@click.option("--match-visits", "match__player__visits", type=click.IntRange(2), default=MATCH_VISITS.default,
              show_default=True,
              help="Visits per move of models in gating and rating games (self-play's are --visits).")
@click.option("--match-openings", "match__openings", type=click.Path(exists=True, dir_okay=False), default=None,
              callback=_openings, help="Gating and rating games start from this opening list (one opening a line, "
              "'dx,dy' stones as offsets from the centre, black first), each opening twice with colours swapped; "
              "those that do not fit the board are left out.")
@device_option
@runtime_option()
@threads_option()
@seed_option()
@ray_options
@click.option("--staging", type=click.Path(file_okay=False), default=None,
              help="With --ray and a URL RUN_DIR: the local copy the loop works in "
                   "[default: ~/.cache/engine/runs/HASH].")
@click.pass_context
def loop_command(ctx: click.Context, run_dir: str, seed: int, ray_target: str | None, ray_actors: int | None,
                 ray_inference: str, staging: str | None, **settings: Any) -> None:
    """Bootstrap, then self-play, gather, train (and gate, rate) generation after generation in RUN_DIR.

    Resumable: run the same command again after a kill. On a run that exists,
    only the options given on the command line change its stored settings.
    With --ray, self-play runs as Ray actors and training as a Ray Train job,
    and RUN_DIR may be a path every node shares or an fsspec URL (s3://, gs://, file://).
    """
    from engine import EngineError, pick_device
    from training.layout import default_layout
    from training.loop import LoopConfig, load_config, run_loop
    from training.selfplay_config import opening_moves
    from training.settings import replace_paths

    cluster = None
    if ray_target is not None:
        from training.cluster.storage import RunStore

        store = RunStore(run_dir, staging)
        store.pull()  # a URL run resumes from what the URL holds
        cluster = _ray_cluster(store, ray_actors, ray_inference, settings["threads"])
        local_dir: str | Path = store.local
    else:
        _no_url(run_dir, "RUN_DIR")
        local_dir = run_dir
    try:
        stored = load_config(local_dir)
        given = {name for name in ctx.params
                 if stored is None or ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT}
        changes = {name.replace("__", "."): value for name, value in settings.items() if name in given}
        if "seed" in given:
            changes.update({f"{part}.seed": seed for part in _SEEDED})
        config = replace_paths(stored or LoopConfig(), changes)
        if "match__openings" in given and config.match.openings:
            from engine import fitting_openings

            size = config.game_rules().size
            fitting = fitting_openings(config.match.openings, size)
            if not fitting:
                raise ValueError(f"no opening of --match-openings fits the {size}x{size} board")
            config = replace_paths(config, {"match.openings": fitting})
        if stored is None:  # the opening, sampled from the visits, scales with the board; the layout, with the device
            opening = opening_moves(config.game_rules().size)
            config = replace_paths(config, {"selfplay.player.temperature_moves": opening})
            layout = default_layout(pick_device(config.device).type, len(os.sched_getaffinity(0)))
            config = replace_paths(config, {key: value for key, value in (
                ("workers", layout.workers), ("selfplay.parallel_games", layout.parallel_games))
                if ctx.get_parameter_source(key.replace(".", "__")) == click.core.ParameterSource.DEFAULT})
        set_torch_threads(config.threads)
        if cluster is None:
            state = run_loop(local_dir, config, note)
        else:
            from training.cluster.connect import connected, describe_cluster

            with connected(ray_target):  # type: ignore[arg-type]
                note(f"Ray cluster: {describe_cluster()}")
                state = run_loop(local_dir, config, note, cluster=cluster)
    except (EngineError, ValueError) as error:
        raise fail(error) from error
    click.echo(f"{len(state['history']) - 1} generations in {run_dir}; best model {state['best']}; "
               f"ratings in {run_dir}/ratings.md")
