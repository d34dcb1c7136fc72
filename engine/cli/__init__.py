"""The ``engine`` command: the one layer that knows click and sets up the process.

Library modules expose configs and functions; the modules here turn options
into those configs, call one function and report. They are grouped by what a
user does: :mod:`~engine.cli.play` (the protocol front ends),
:mod:`~engine.cli.train` (self-play to trained network), :mod:`~engine.cli.games`
(matches and game collections), :mod:`~engine.cli.networks` (foreign weights) and
:mod:`~engine.cli.bench` (speed). What they share is in :mod:`~engine.cli.options`
(options and the report) and :mod:`~engine.cli.process` (threads, logging, exit).

Subcommands are named as ``module:attribute`` strings and imported only when
run, so ``engine --help`` loads neither numba nor torch.
"""

from __future__ import annotations

import click

from engine.cli.lazy_group import Lazy, LazyGroup

__all__ = ["main", "bench_group"]

_PLAY = {
    "gtp": Lazy("engine.cli.play:gtp_command", "Speak GTP on stdin/stdout (Sabaki, Lizzie, GoGui, match tools)."),
    "analysis": Lazy("engine.cli.play:analysis_command",
                     "Speak KataGo's JSON analysis protocol on stdin/stdout (KaTrain, batches)."),
    "gomocup": Lazy("engine.cli.play:gomocup_command", "Speak the Gomocup (Piskvork) protocol on stdin/stdout."),
    "play": Lazy("engine.cli.play:play_command", "Play against the engine in the terminal, the board drawn as text."),
}
_TRAIN = {
    "bootstrap": Lazy("engine.cli.train:bootstrap_command", "Write a randomly initialised model (generation 0)."),
    "selfplay": Lazy("engine.cli.train:selfplay_command",
                     "Play self-play games with a model; write game records and SGF."),
    "gather": Lazy("engine.cli.train:gather_command",
                   "Replay game records or SGF files into shuffled training chunks."),
    "train": Lazy("engine.cli.train:train_command",
                  "Train a network on chunks; resumable checkpoints, TensorBoard scalars."),
    "validate": Lazy("engine.cli.train:validate_command",
                     "Policy loss, top-1 accuracy and value MSE on held-out chunks."),
    "loop": Lazy("engine.cli.train:loop_command",
                 "Self-play, gather, train, gate and rate, generation after generation."),
    "grow": Lazy("engine.cli.train:grow_command", "Grow a model to more blocks and filters, keeping what it plays."),
    "average": Lazy("engine.cli.train:average_command",
                    "Average the weights of models trained on from one ancestor."),
}
_GAMES = {
    "match": Lazy("engine.cli.games:match_command",
                  "Play two GTP engines (or models, baselines) against each other, refereed by the rules core."),
    "evaluate": Lazy("engine.cli.games:evaluate_command",
                     "Play two models (or baselines) in this process, searches batched: win rate and Elo."),
    "search-picture": Lazy("engine.cli.games:search_picture_command",
                           "Search one position with a model and draw it: visits per move, the tree by depth."),
    "check-games": Lazy("engine.cli.games:check_games_command",
                        "Replay SGF games through the rules core (renju: no forbidden move)."),
    "gnugo-games": Lazy("engine.cli.games:gnugo_games_command",
                        "Write GNU Go self-play games as SGF (supervised training data)."),
    "gomokubench-games": Lazy("engine.cli.games:gomokubench_games_command",
                              "Write gomokubench alpha-beta games as SGF (supervised Gomoku data)."),
}
_NETWORKS = {
    "convert-lz": Lazy("engine.cli.networks:convert_command",
                       "Convert Leela Zero weights (text or .gz) to a model file."),
    "export-lz": Lazy("engine.cli.networks:export_command", "Write a 19x19 lz18 model as Leela Zero weights."),
}
_MEASURE = {
    "bench": Lazy("engine.cli:bench_group", "Measure the speed of the rules core, encoders, search and network."),
}
_BENCH = {
    "rules": Lazy("engine.cli.bench:rules_command", "Random playouts through the rules core: moves/s and playouts/s."),
    "encode": Lazy("engine.cli.bench:encode_command", "Batch feature encoding: positions/s."),
    "net": Lazy("engine.cli.bench:net_command", "Network forward passes: positions/s."),
    "search": Lazy("engine.cli.bench:search_command", "Tree search with a uniform evaluator: simulations/s."),
    "threats": Lazy("engine.cli.bench:threats_command",
                    "Gomoku's threat reading (victories by continuous threats): threats read/s."),
    "genmove": Lazy("engine.cli.bench:genmove_command",
                    "Whole genmoves with a network: visits/s, time outside the network."),
    "startup": Lazy("engine.cli.bench:startup_command",
                    "engine gtp from start to its first three genmoves, cold and warm caches: seconds."),
    "selfplay": Lazy("engine.cli.bench:selfplay_command", "Self-play with a network: positions/s and games/hour."),
    "fuzz": Lazy("engine.cli.bench:fuzz_command",
                 "engine analysis, gtp and gomocup under fuzzed input: deaths, unanswered commands."),
    "train": Lazy("engine.cli.bench:train_command",
                  "Training steps on random samples: samples/s and the minibatch's share of a step."),
    "threads": Lazy("engine.cli.bench:threads_command",
                    "Genmove visits/s per torch thread setting, alone and with a core taken."),
    "ponder": Lazy("engine.cli.bench:ponder_command",
                   "engine gtp --ponder: visits gained for the next move, answers' latency."),
    "analysis": Lazy("engine.cli.bench:analysis_command",
                     "engine analysis on a collection of positions: positions/s, batched and not."),
    "soak": Lazy("engine.cli.bench:soak_group",
                 "Hours of engine gtp without a restart: memory and speed at the start and the end, errors."),
    "gpu": Lazy("engine.cli.bench:gpu_command",
                "A CUDA GPU's targets in one run: self-play, the network, training, each with the GPU's busy share."),
}


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]},
             sections={"Play": _PLAY, "Train": _TRAIN, "Games": _GAMES, "Networks": _NETWORKS, "Measure": _MEASURE})
@click.version_option(package_name="engine", prog_name="engine")
def main() -> None:
    """An AlphaZero-style engine for Go, Gomoku and Chain Reaction."""


@click.group(cls=LazyGroup, sections={"Commands": _BENCH})
def bench_group() -> None:
    """Measure the speed of the engine's parts (medians of several runs)."""
