"""Two checkouts of the engine timed in one window: the rules core, the search, genmove, self-play and a
Gomocup brain, each workload run alternately on A and B, the median of the runs and B's ratio to A.

    python experiments/speed-ab/ab.py A_DIR B_DIR --rounds 3 --core 0 --json results/NAME.json
        [--only WORKLOAD ...] [--gomocup-model PATH]

Each run is ``python -m engine ...`` with ``PYTHONPATH`` set to the checkout, pinned to ``--core`` with
``taskset``; numba's caches are warmed by one untimed round first.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # experiments.piskvork, run as a script

from engine import Game, Rules
from experiments.piskvork import Brain, board_command

WORKLOADS: dict[str, tuple[list[str], str]] = {
    "rules go 9x9": (["bench", "rules", "--seconds", "1", "--runs", "3", "--json"], "moves_per_s"),
    "rules gomoku 15x15": (["bench", "rules", "--game", "gomoku", "--seconds", "1", "--runs", "3", "--json"],
                           "moves_per_s"),
    "search 19x19": (["bench", "search", "--visits", "800", "--seconds", "1", "--runs", "3", "--json"],
                     "sims_per_s"),
    "genmove 19x19": (["bench", "genmove", "--size", "19", "--visits", "400", "--moves", "4", "--threads", "1",
                       "--runtime", "eager", "--json"], "visits_per_s"),
    "selfplay 9x9": (["bench", "selfplay", "--seconds", "30", "--threads", "1", "--runtime", "eager", "--json"],
                     "positions_per_s"),
}
"""Workload name: the engine's arguments and the JSON key it reports (larger is faster)."""

EQUAL_SETTINGS = Path(__file__).with_name("equal_settings.py")
EQUAL_WORKLOADS: dict[str, tuple[str, str]] = {
    "search 19x19, A's settings": ("search", "sims_per_s"),
    "genmove 19x19, A's settings": ("genmove", "visits_per_s"),
}
"""Workload name: the mode of :data:`EQUAL_SETTINGS` and its JSON key: the search and genmove with the older
checkout's search settings on both sides."""

GOMOCUP = "gomocup 15x15"
"""The workload of :func:`gomocup_moves_per_s`."""
GOMOCUP_MOVES = 8
GOMOCUP_VISITS = 400
GOMOCUP_TIMEOUT = 300.0
"""Seconds a Gomocup answer may take before the run fails (the first includes the network's loading)."""


def run_bench(tree: Path, core: int, args: list[str], key: str) -> float:
    """One workload on ``tree`` (``args`` after the interpreter: ``-m engine ...`` or a script): the figure under
    ``key`` of its JSON report."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(["taskset", "-c", str(core), sys.executable, *args], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1])[key])


def gomocup_positions(count: int, seed: int = 0) -> list[Game]:
    """``count`` freestyle 15x15 games of 10, 12, ... stones drawn in the centre's 7x7 with no five on the
    board."""
    rng = random.Random(seed)
    centre = [y * 15 + x for y in range(4, 11) for x in range(4, 11)]
    positions: list[Game] = []
    while len(positions) < count:
        stones = 10 + 2 * len(positions)
        game = Game(Rules.gomoku(15))
        for action in rng.sample(centre, stones):
            if game.is_over:
                break
            game.play(action)
        if not game.is_over and len(game.moves) == stones:
            positions.append(game)
    return positions


def gomocup_moves_per_s(tree: Path, core: int, model: Path | None) -> float:
    """``engine gomocup --visits 400`` (on ``model``, else its bundled network) answering ``BOARD`` for each of
    :data:`GOMOCUP_MOVES` middle-game positions (:func:`gomocup_positions`) after a first one untimed (which
    loads the network): moves a second."""
    network = [] if model is None else ["--model", str(model)]
    brain = Brain(["env", f"PYTHONPATH={tree}", "taskset", "-c", str(core), sys.executable, "-m", "engine",
                   "gomocup", "--visits", str(GOMOCUP_VISITS), "--temperature-moves", "0", "--seed", "1", *network],
                  tree.name)
    seconds = []
    try:
        if brain.ask("START 15", GOMOCUP_TIMEOUT)[0] != "OK":
            raise RuntimeError("engine gomocup refused START 15")
        for i, game in enumerate(gomocup_positions(GOMOCUP_MOVES + 1)):
            answer, taken = brain.ask(board_command(game, game.to_play), GOMOCUP_TIMEOUT)
            if answer is None or not re.fullmatch(r"\d+,\d+", answer):
                raise RuntimeError(f"engine gomocup answered {answer!r} to a position")
            if i:
                seconds.append(taken)
    finally:
        brain.close()
    return len(seconds) / sum(seconds)


def measure(tree: Path, core: int, name: str, gomocup_model: Path | None = None) -> float:
    if name == GOMOCUP:
        return gomocup_moves_per_s(tree, core, gomocup_model)
    if name in EQUAL_WORKLOADS:
        mode, key = EQUAL_WORKLOADS[name]
        return run_bench(tree, core, [str(EQUAL_SETTINGS), mode], key)
    args, key = WORKLOADS[name]
    return run_bench(tree, core, ["-m", "engine", *args], key)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="checkout A (the reference)")
    parser.add_argument("b", type=Path, help="checkout B")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write every run and the medians here")
    parser.add_argument("--only", action="append", help="time only this workload (repeatable)")
    parser.add_argument("--gomocup-model", type=Path, help="the network both Gomocup brains play [default: each "
                        "checkout's bundled one]")
    args = parser.parse_args()
    names = args.only or [*WORKLOADS, *EQUAL_WORKLOADS, GOMOCUP]
    model = args.gomocup_model.resolve() if args.gomocup_model else None
    trees = {"A": args.a.resolve(), "B": args.b.resolve()}
    for tree in trees.values():   # numba's and torch's caches, untimed
        for name in names:
            measure(tree, args.core, name, model)
    runs: dict[str, dict[str, list[float]]] = {name: {"A": [], "B": []} for name in names}
    for round_ in range(args.rounds):
        order = ("A", "B") if round_ % 2 == 0 else ("B", "A")
        for name in names:
            for side in order:
                runs[name][side].append(measure(trees[side], args.core, name, model))
            print(f"round {round_ + 1} {name}: A {runs[name]['A'][-1]:.1f} B {runs[name]['B'][-1]:.1f}", flush=True)
    table = {name: {"A": statistics.median(sides["A"]), "B": statistics.median(sides["B"]),
                    "ratio": statistics.median(sides["B"]) / statistics.median(sides["A"]), "runs": sides}
             for name, sides in runs.items()}
    for name, row in table.items():
        print(f"{name:20s} A {row['A']:10.1f}  B {row['B']:10.1f}  B/A {row['ratio']:.3f}")
    if args.json:
        report = {"a": str(trees["A"]), "b": str(trees["B"]), "core": args.core, "rounds": args.rounds,
                  "gomocup_model": None if model is None else str(model), "workloads": table}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
