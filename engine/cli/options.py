"""What the commands share: the options that name a network and say how it runs, and the report.

Every option is defined once here; a command picks the ones it takes. The
choices come from the library (``engine.nn.config``: a module that imports
nothing heavy), so a new runtime or dtype needs no edit here.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import click

from engine.core.rules import GAMES as GAME_NAMES
from engine.nn.config import DTYPES, RUNTIMES, TORCH_RUNTIMES

__all__ = ["GAMES", "Decorator", "Setting", "stack", "device_option", "dtype_option", "threads_option",
           "runtime_option", "runtime_options", "network_options", "seed_option", "json_option", "log_level_option",
           "ray_options", "ray_layout", "evaluator_options", "komi_correction_option", "with_komi_correction",
           "report", "note", "fail"]

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
"""An option, or several stacked: what a command function is decorated with."""

GAMES = click.Choice(GAME_NAMES)


@dataclasses.dataclass(frozen=True)
class Setting:
    """A setting's one default: the field at ``path`` (dotted through nested configs) of ``config`` built with its
    own defaults. An option reads its default, and its help the value, from here rather than holding a copy; the
    config class must live in a module that imports nothing heavy (``engine --help`` loads it)."""

    config: type
    path: str

    @property
    def default(self) -> Any:
        value: Any = self.config()
        for name in self.path.split("."):
            value = getattr(value, name)
        return value


def stack(*options: Decorator) -> Decorator:
    """The options as one decorator, listed in ``--help`` in the order given."""
    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


device_option = click.option("--device", default=None, help="cpu, cuda, mps [default: cuda, then mps, else cpu].")
"""``--device`` (``EvaluatorOptions.device``)."""

dtype_option = click.option(
    "--dtype", type=click.Choice(DTYPES), default="auto", show_default=True,
    help="The network's arithmetic. auto: bf16 where the hardware has it natively, else fp32. int8: the residual "
         "blocks quantized, on the cpu, eager (about twice bf16's speed on big networks such as Leela Zero's).")
"""``--dtype`` (``EvaluatorOptions.dtype``)."""


def threads_option(default: int | None = None, numpy: bool = False) -> Decorator:
    """``--threads``: the process's CPU threads for the network: torch's, and with ``numpy`` (a command with
    ``--runtime numpy``) numpy's BLAS's under that runtime."""
    whose = " (torch's, or numpy's BLAS under --runtime numpy)" if numpy else ""
    why = ("; more can help on an idle many-core machine, while one does not collapse when another program takes a "
           "core" if default == 1 else " [default: every core]; 1 can be faster when other work shares them")
    return click.option("--threads", type=click.IntRange(1), default=default, show_default=default is not None,
                        help=f"CPU threads for the network{whose}{why}.")


def runtime_option(numpy: bool = False, default: str = "auto") -> Decorator:
    """``--runtime`` (``EvaluatorOptions.runtime``): torch's runtimes, and with ``numpy`` the numpy forward pass."""
    extra = (" numpy: float32 on the cpu without torch (about 220 MB less memory, a slower network). A front end's"
             " auto on a machine without a GPU starts on numpy and moves to the compiled network once it is ready"
             " (no move waits for torch's import)." if numpy else "")
    return click.option("--runtime", type=click.Choice(RUNTIMES if numpy else TORCH_RUNTIMES), default=default,
                        show_default=True,
                        help="compile: torch.compile (10-25 s once per process; a front end answers eagerly until "
                             "it is ready); eager; auto: compile on a cpu, eager on a gpu." + extra)


def runtime_options(numpy: bool = False, runtime: str = "auto", threads: int | None = None) -> Decorator:
    """--device, --dtype, --runtime, --threads: how a network runs (``EvaluatorOptions``, and the process's
    threads, which the command sets through :mod:`engine.cli.process`)."""
    return stack(device_option, dtype_option, runtime_option(numpy, runtime), threads_option(threads, numpy))


network_options = stack(
    click.option("--model", "model_path", type=click.Path(exists=True, dir_okay=False), default=None,
                 help="A model file; otherwise a random network of --blocks x --filters."),
    click.option("--blocks", type=click.IntRange(0), default=6, show_default=True, help="Residual blocks."),
    click.option("--filters", type=click.IntRange(1), default=64, show_default=True, help="Filters per layer."))
"""--model, --blocks, --filters of the benchmarks: a model file, or a random network of that size (speed does not
depend on the weights)."""


def seed_option(default: int | None = 0, help_text: str | None = None) -> Decorator:
    """``--seed``: what makes a command's randomness repeatable."""
    return click.option("--seed", type=int, default=default, show_default=default is not None, help=help_text)


json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
"""``--json``: :func:`report` prints the result as one JSON object rather than a line of text."""

log_level_option = click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]),
                                default="info", show_default=True, help="Diagnostics on stderr.")
"""``--log-level`` of the front ends (:func:`engine.cli.process.setup_logging`)."""


def _ray_target(_ctx: click.Context, _param: click.Parameter, target: str | None) -> str | None:
    """``--ray local`` binds the loopback address only (Ray reads that setting from the environment at import)."""
    if target == "local":
        from engine.cli.process import bind_ray_to_loopback

        bind_ray_to_loopback()
    return target


ray_options = stack(
    click.option("--ray", "ray_target", default=None, metavar="auto|local|ADDRESS", callback=_ray_target,
                 help="Run on a Ray cluster: local (this machine), auto (the cluster this machine is in) "
                      "or a head node's address (pip install -e \".[ray]\")."),
    click.option("--actors", "ray_actors", type=click.IntRange(1), default=None,
                 help="With --ray: self-play actors per node [default: one per CPU the node's "
                      "inference actors leave]."),
    click.option("--inference", "ray_inference", type=click.Choice(["auto", "server", "actor"]),
                 default="auto", show_default=True,
                 help="With --ray: where the network runs. server: in inference actors that the "
                      "self-play actors feed (one per GPU, one per CPU-only node); actor: in every "
                      "self-play actor (--threads torch threads each, default 1); auto: servers on GPU "
                      "nodes, in-actor on CPU-only nodes, where the network is most of the work and "
                      "batching gains little, so a server would leave the actors' cores idle."))
"""``--ray auto|local|ADDRESS``, ``--actors N`` and ``--inference``: self-play and inference actors on a Ray cluster
(:func:`ray_layout`)."""


def ray_layout(actors: int | None, inference: str, threads: int | None) -> Any:
    """The :class:`~training.cluster.pool.Layout` of :data:`ray_options` (``threads``: each CPU network's)."""
    from training.cluster.pool import Layout

    return Layout(actors_per_node=actors, threads=threads, inference=inference)


def evaluator_options(device: str | None, dtype: str, runtime: str, threads: int | None, seed: int | None) -> Any:
    """The options of :func:`runtime_options` as EvaluatorOptions with a random symmetry per evaluation (self-play,
    matches); sizes this process's torch threads."""
    from engine import EvaluatorOptions
    from engine.cli.process import set_torch_threads

    set_torch_threads(threads)
    return EvaluatorOptions(device=device, dtype=dtype, random_symmetry=True, runtime=runtime, seed=seed)


komi_correction_option = click.option(
    "--komi-correction/--no-komi-correction", "komi_correction", default=None,
    help="Go: value each position at the game's komi (and White's handicap bonus) from the network's score "
         "where the model file records the komi it learnt [default: on] (docs/search.md, *Komi*).")
"""``--komi-correction/--no-komi-correction`` (``SearchConfig.komi_correction``; left out, the config's default)."""


def with_komi_correction(config: Any, komi_correction: bool | None) -> Any:
    """The SearchConfig ``config`` with :data:`komi_correction_option`'s choice (None: as it is)."""
    from dataclasses import replace

    return config if komi_correction is None else replace(config, komi_correction=komi_correction)


def report(result: dict[str, Any], as_json: bool, text: str) -> None:
    """The result on stdout: one JSON object with ``--json``, else a line (or lines) of text."""
    click.echo(json.dumps(result, sort_keys=True) if as_json else text)


def note(text: str) -> None:
    """A note on stderr, beside the progress bars."""
    click.echo(text, err=True)


def fail(error: Exception) -> click.ClickException:
    """A library error as the command's error message (exit status 1)."""
    return click.ClickException(str(error))


def openings_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--openings FILE`` and ``--openings-within N``: games from an opening list, each opening twice with
    colours swapped (:mod:`engine.formats.openings`)."""
    command = click.option("--openings-within", "openings_within", type=click.IntRange(0), default=None,
                           help="With --openings: only openings whose stones lie at most N points from the centre "
                                "(e.g. 5 for the Piskvork list on 15x15).")(command)
    return click.option("--openings", "openings_path", type=click.Path(exists=True, dir_okay=False), default=None,
                        help="Opening list (one opening a line, 'dx,dy' stones as offsets from the centre, black "
                             "first): games 2k and 2k+1 start from opening k with colours swapped; the result "
                             "counts opening pairs.")(command)


def read_openings_option(path: str | None, within: int | None, size: int) -> tuple[str, ...]:
    """The openings :func:`openings_options` names that fit a ``size`` board (none without ``--openings``)."""
    from engine import read_openings

    if path is None:
        if within is not None:
            raise click.UsageError("--openings-within needs --openings")
        return ()
    return read_openings(path, size, within)
