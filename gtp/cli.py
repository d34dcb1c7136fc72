"""``engine gtp`` and ``engine gomocup``: thin click commands over the protocol front ends.

Only click is imported here; the engine loads when a command runs, so
``engine gtp --help`` stays fast.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from gtp.state import FrontEndConfig

__all__ = ["gtp_command", "gomocup_command"]

_LOG_FORMAT = "engine %(levelname)s: %(message)s"


UNIFORM = "uniform"


def _check_model(_context: click.Context, _parameter: click.Parameter, value: str | None) -> str | None:
    if value is not None and value != UNIFORM and not Path(value).is_file():
        raise click.BadParameter(f"{value!r} is not a model file (give a path, or 'uniform')")
    return value


def _resolve_model(model: str | None, game: str) -> str | None:
    """The model file to load: the one given, else the bundled one; None plays with uniform priors."""
    if model == UNIFORM:
        return None
    if model is not None:
        return model
    from engine import bundled_model

    bundled = bundled_model(game)
    return None if bundled is None else str(bundled)


def _engine_options(function: Any) -> Any:
    """Options both front ends share: the model, the search limits and the hardware."""
    options = [
        click.option("--model", default=None, callback=_check_model, metavar="PATH|uniform",
                     help="Model file [default: the network bundled for the game, if one ships]; 'uniform' plays "
                          "with uniform priors and no network (very weak)."),
        click.option("--visits", type=click.IntRange(min=1), default=None,
                     help="Search visits per move (default 800 unless --time is given)."),
        click.option("--time", "seconds", type=click.FloatRange(min=0, min_open=True), default=None,
                     help="Seconds per move instead of a visit count; a time control set by the controller "
                          "can only lower it."),
        click.option("--batch", type=click.IntRange(min=1), default=16, show_default=True,
                     help="Positions per network evaluation."),
        click.option("--device", default=None, help="Torch device for the network (default: cuda, mps, else cpu)."),
        click.option("--threads", type=click.IntRange(min=1), default=None, help="CPU threads for the network."),
        click.option("--runtime", type=click.Choice(["auto", "eager", "compile"]), default="auto", show_default=True,
                     help="How the network runs: compile (torch.compile in the background; moves run eagerly until "
                          "it is ready, then faster on a CPU), eager, or auto (compile on a CPU, eager on a GPU)."),
        click.option("--seed", type=int, default=None, help="Seed for repeatable searches and ownership estimates."),
        click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]), default="info",
                     show_default=True, help="Diagnostics on stderr."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _setup_logging(level: str) -> None:
    logging.basicConfig(stream=sys.stderr, level=level.upper(), format=_LOG_FORMAT, force=True)


def _check_limits(visits: int | None, seconds: float | None) -> None:
    if visits is not None and seconds is not None:
        raise click.UsageError("give --visits or --time, not both")


def _front_end_config(model: str | None, game: str, visits: int | None, seconds: float | None, batch: int,
                      device: str | None, runtime: str, seed: int | None, **own: Any) -> FrontEndConfig:
    """The FrontEndConfig the options describe: the limits go to the player, the hardware to the evaluator.

    Neither ``--visits`` nor ``--time``: the player's default visits. ``own`` are the
    config's own fields (size, rules, komi).
    """
    from engine import EvaluatorOptions, PlayerConfig, SearchConfig
    from gtp.state import FrontEndConfig

    search = SearchConfig(batch_size=batch)
    player = (PlayerConfig(search=search) if visits is None and seconds is None
              else PlayerConfig(visits=visits, seconds=seconds, search=search))
    return FrontEndConfig(model=_resolve_model(model, game), game=game, player=player, seed=seed,
                          evaluator=EvaluatorOptions(device=device, runtime=runtime, seed=seed), **own)


def _exit_at_once() -> None:
    """End the process now that the session is over, without waiting for a background compile.

    Torch aborts ("terminate called without an active exception") when the
    interpreter shuts down under a compile that is still running (:mod:`gtp.warmup`).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(0)


def _size_threads(config: FrontEndConfig, threads: int | None) -> None:
    """Torch's thread pool is the process's, so the command sizes it, and only when a network will run."""
    if config.model is not None:
        from engine import set_cpu_threads

        set_cpu_threads(threads)


@click.command("gtp")
@click.option("--game", type=click.Choice(["go", "gomoku"]), default="go", show_default=True)
@click.option("--size", type=click.IntRange(2, 25), default=None, help="Board size (default 19 for Go, 15 Gomoku).")
@click.option("--rules", "rules_text", default=None,
              help="Rules preset or string, e.g. chinese, japanese, 'tromp-taylor komi=7', freestyle, standard.")
@click.option("--komi", type=float, default=None, help="Komi (default: the rules preset's).")
@_engine_options
def gtp_command(game: str, size: int | None, rules_text: str | None, komi: float | None, model: str | None,
                visits: int | None, seconds: float | None, batch: int, device: str | None, threads: int | None,
                runtime: str, seed: int | None, log_level: str) -> None:
    """Speak GTP on stdin/stdout for GUIs (Sabaki, Lizzie, GoGui) and match tools.

    Besides GTP 2 the engine knows the KGS, Leela Zero, KataGo, Sabaki and
    GoGui extensions: live analysis (lz-analyze, kata-analyze, analyze and
    the genmove_analyze variants), time controls, GoGui's analyze and ruler
    commands. See the README for the full list.
    """
    _check_limits(visits, seconds)
    _setup_logging(log_level)
    from engine import RulesError
    from gtp.commands import serve

    config = _front_end_config(model, game, visits, seconds, batch, device, runtime, seed, size=size,
                               rules=rules_text, komi=komi)
    try:
        config.initial_rules()
    except RulesError as exc:
        raise click.UsageError(str(exc)) from exc
    _size_threads(config, threads)
    serve(config, sys.stdin.buffer, sys.stdout.buffer)
    _exit_at_once()


@click.command("gomocup")
@_engine_options
def gomocup_command(model: str | None, visits: int | None, seconds: float | None, batch: int, device: str | None,
                    threads: int | None, runtime: str, seed: int | None, log_level: str) -> None:
    """Speak the Gomocup (Piskvork) protocol on stdin/stdout for Gomoku managers and tournaments.

    The board size comes with START; INFO rule 1 selects exactly-five
    (standard) rules, 4 renju, otherwise five or more win (freestyle). Times from INFO
    (timeout_turn, timeout_match, time_left) limit each move.
    """
    _check_limits(visits, seconds)
    _setup_logging(log_level)
    from gtp.gomocup import play_gomocup

    config = _front_end_config(model, "gomoku", visits, seconds, batch, device, runtime, seed)
    _size_threads(config, threads)
    play_gomocup(config, sys.stdin.buffer, sys.stdout.buffer)
    _exit_at_once()
