"""Two checkouts of the engine timed in one window: the rules core, the search, genmove, self-play and a
Gomocup brain, each workload run alternately on A and B, the median of the runs and B's ratio to A.

    python experiments/speed-ab/ab.py A_DIR B_DIR --rounds 3 --core 0 --json results/NAME.json

Each run is ``python -m engine ...`` with ``PYTHONPATH`` set to the checkout, pinned to ``--core`` with
``taskset``; numba's caches are warmed by one untimed round first.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

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

GOMOCUP_MOVES = 8
GOMOCUP_VISITS = 400


def run_bench(tree: Path, core: int, args: list[str], key: str) -> float:
    """One workload on ``tree``: the figure under ``key`` of its JSON report."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(["taskset", "-c", str(core), sys.executable, "-m", "engine", *args], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1])[key])


def gomocup_moves_per_s(tree: Path, core: int) -> float:
    """``engine gomocup --visits 400`` playing black on 15x15 against replies on the first free point of the
    board: its moves a second over :data:`GOMOCUP_MOVES` moves after its first (which loads the network)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    brain = subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-m", "engine", "gomocup", "--visits",
                              str(GOMOCUP_VISITS), "--temperature-moves", "0", "--seed", "1"], cwd=tree, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert brain.stdin is not None and brain.stdout is not None

    def ask(line: str) -> str:
        brain.stdin.write(line + "\n")
        brain.stdin.flush()
        while True:
            answer = brain.stdout.readline()
            if not answer:
                raise RuntimeError(f"engine gomocup closed answering {line!r}")
            if not answer.startswith(("MESSAGE", "DEBUG")):
                return answer.strip()

    try:
        if ask("START 15") != "OK":
            raise RuntimeError("engine gomocup refused START 15")
        taken = set()
        move = ask("BEGIN")
        seconds = []
        for _ in range(GOMOCUP_MOVES):
            taken.add(move)
            reply = next(f"{x},{y}" for y in range(15) for x in range(15) if f"{x},{y}" not in taken)
            taken.add(reply)
            started = time.perf_counter()
            move = ask(f"TURN {reply}")
            seconds.append(time.perf_counter() - started)
    finally:
        if brain.poll() is None:
            brain.stdin.write("END\n")
            brain.stdin.close()
        brain.wait(timeout=60)
    return len(seconds) / sum(seconds)


def measure(tree: Path, core: int, name: str) -> float:
    if name == "gomocup 15x15":
        return gomocup_moves_per_s(tree, core)
    args, key = WORKLOADS[name]
    return run_bench(tree, core, args, key)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path, help="checkout A (the reference)")
    parser.add_argument("b", type=Path, help="checkout B")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write every run and the medians here")
    args = parser.parse_args()
    names = [*WORKLOADS, "gomocup 15x15"]
    trees = {"A": args.a.resolve(), "B": args.b.resolve()}
    for tree in trees.values():   # numba's and torch's caches, untimed
        for name in names:
            measure(tree, args.core, name)
    runs: dict[str, dict[str, list[float]]] = {name: {"A": [], "B": []} for name in names}
    for round_ in range(args.rounds):
        order = ("A", "B") if round_ % 2 == 0 else ("B", "A")
        for name in names:
            for side in order:
                runs[name][side].append(measure(trees[side], args.core, name))
            print(f"round {round_ + 1} {name}: A {runs[name]['A'][-1]:.1f} B {runs[name]['B'][-1]:.1f}", flush=True)
    table = {name: {"A": statistics.median(sides["A"]), "B": statistics.median(sides["B"]),
                    "ratio": statistics.median(sides["B"]) / statistics.median(sides["A"]), "runs": sides}
             for name, sides in runs.items()}
    for name, row in table.items():
        print(f"{name:20s} A {row['A']:10.1f}  B {row['B']:10.1f}  B/A {row['ratio']:.3f}")
    if args.json:
        report = {"a": str(trees["A"]), "b": str(trees["B"]), "core": args.core, "rounds": args.rounds,
                  "workloads": table}
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
