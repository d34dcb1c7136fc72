"""The ``engine`` command and its ``bench`` group: the CLI layer, the one module that names every package.

Subcommands are named as ``module:attribute`` strings and imported only when
run, so ``engine --help`` loads neither numba nor torch. Only this module may
point at ``gtp``, ``training`` and ``encoders`` from inside ``engine``; the
layering test reads these strings as imports.
"""

from __future__ import annotations

import importlib

import click

__all__ = ["main", "bench", "LazyGroup"]


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use.

    ``lazy`` maps a subcommand name to ``"package.module:attribute"``; the short
    help shown by ``--help`` comes from ``summaries`` so listing needs no import.
    """

    def __init__(self, *args: object, lazy: dict[str, str] | None = None,
                 summaries: dict[str, str] | None = None, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy = dict(lazy or {})
        self.summaries = dict(summaries or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self.lazy))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy:
            module_name, attribute = self.lazy[name].split(":")
            command = getattr(importlib.import_module(module_name), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{self.lazy[name]} is not a click command")
            return command
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, self.summaries.get(name, "")) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]},
             lazy={"bench": "engine.cli:bench", "gtp": "gtp.cli:gtp_command", "gomocup": "gtp.cli:gomocup_command",
                   "analysis": "gtp.cli:analysis_command",
                   "bootstrap": "training.cli:bootstrap_command", "grow": "training.cli:grow_command",
                   "selfplay": "training.cli:selfplay_command",
                   "gather": "training.cli:gather_command", "train": "training.cli:train_command",
                   "validate": "training.cli:validate_command", "evaluate": "training.cli:evaluate_command",
                   "loop": "training.cli:loop_command", "match": "training.cli:match_command",
                   "gnugo-games": "training.cli:gnugo_games_command",
                   "check-games": "training.cli:check_games_command",
                   "gomokubench-games": "training.cli:gomokubench_games_command",
                   "convert-lz": "engine.nn.leela_commands:convert_command",
                   "export-lz": "engine.nn.leela_commands:export_command"},
             summaries={"bench": "Measure the speed of the rules core, encoders, search and network.",
                        "gtp": "Speak GTP on stdin/stdout (Sabaki, Lizzie, GoGui, match tools).",
                        "gomocup": "Speak the Gomocup (Piskvork) protocol on stdin/stdout.",
                        "analysis": "Speak KataGo's JSON analysis protocol on stdin/stdout (KaTrain, batches).",
                        "bootstrap": "Write a randomly initialised model (generation 0).",
                        "grow": "Grow a model to more blocks and filters, keeping what it plays.",
                        "selfplay": "Play self-play games with a model; write game records and SGF.",
                        "gather": "Replay game records or SGF files into shuffled training chunks.",
                        "train": "Train a network on chunks; resumable checkpoints, TensorBoard scalars.",
                        "validate": "Policy loss, top-1 accuracy and value MSE on held-out chunks.",
                        "evaluate": "Play two models (or baselines) against each other: win rate and Elo.",
                        "loop": "Self-play, gather, train, gate and rate, generation after generation.",
                        "match": "Play two GTP engines against each other, refereed by the rules core.",
                        "gnugo-games": "Write GNU Go self-play games as SGF (supervised training data).",
                        "check-games": "Replay SGF games through the rules core (renju: no forbidden move).",
                        "gomokubench-games": "Write gomokubench alpha-beta games as SGF (supervised Gomoku data).",
                        "convert-lz": "Convert Leela Zero weights (text or .gz) to a model file.",
                        "export-lz": "Write a 19x19 lz18 model as Leela Zero weights."})
@click.version_option(package_name="engine", prog_name="engine")
def main() -> None:
    """An AlphaZero-style engine for Go and Gomoku."""


@click.group(cls=LazyGroup,
             lazy={"rules": "engine.bench.rules:rules_command",
                   "encode": "encoders.bench:encode_command",
                   "net": "engine.bench.net:net_command",
                   "search": "engine.bench.search:search_command",
                   "genmove": "engine.bench.genmove:genmove_command",
                   "startup": "engine.bench.startup:startup_command",
                   "selfplay": "training.bench:selfplay_bench_command",
                   "train": "training.train_bench:train_bench_command",
                   "fuzz": "gtp.bench:fuzz_command"},
             summaries={"rules": "Random playouts through the rules core: moves/s and playouts/s.",
                        "encode": "Batch feature encoding: positions/s.",
                        "net": "Network forward passes: positions/s.",
                        "search": "Tree search with a uniform evaluator: simulations/s.",
                        "genmove": "Whole genmoves with a network: visits/s, time outside the network.",
                        "startup": "engine gtp from start to first genmove, cold and warm caches: seconds.",
                        "train": "Training steps on random samples: samples/s and the data pipeline's share.",
                        "selfplay": "Self-play with a network: positions/s and games/hour.",
                        "fuzz": "engine analysis, gtp and gomocup under fuzzed input: deaths, unanswered commands."})
def bench() -> None:
    """Measure the speed of the engine's parts (medians of several runs)."""
