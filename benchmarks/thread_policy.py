"""Which torch thread setting keeps genmove's speed when another program takes a core (``engine gtp --threads``).

Runs ``engine bench genmove`` (a network on a 9x9 game, 800 visits a move, tree reuse) for each thread
setting, alone and with ``--contend`` (a busy process holding one core, as another engine thinking
beside ours in a GUI match), in interleaved rounds, and prints the median visits/s of each over all
rounds' genmoves:

    python benchmarks/thread_policy.py [--rounds 3] [--model PATH] [--size 9] [--visits 800] [--json]

Settings: ``threads 1``; ``threads N`` (every core, torch's default); ``threads N pinned``
(``OMP_PROC_BIND=close OMP_PLACES=cores``: each OpenMP thread bound to one core); ``threads N passive``
(``OMP_WAIT_POLICY=PASSIVE``: a thread waiting at a barrier sleeps instead of spinning).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from engine.nn.networks import bundled_model

PINNED = {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
PASSIVE = {"OMP_WAIT_POLICY": "PASSIVE"}


def _run(args: argparse.Namespace, threads: int, env: dict[str, str], contend: bool) -> list[float]:
    command = [sys.executable, "-c", "from engine.cli import main; main()", "bench", "genmove", "--model",
               str(args.model), "--size", str(args.size), "--visits", str(args.visits), "--moves", str(args.moves),
               "--threads", str(threads), "--json"] + (["--contend"] if contend else [])
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, **env}, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])["visits_per_s_runs"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--model", default=str(bundled_model("go")))
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--visits", type=int, default=800)
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    settings = {"threads 1": (1, {}), f"threads {cores}": (cores, {}), f"threads {cores} pinned": (cores, PINNED),
                f"threads {cores} passive": (cores, PASSIVE)}
    rates: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for name, (threads, env) in settings.items():
            for contend in (False, True):
                key = f"{name}, {'contended' if contend else 'alone'}"
                rates.setdefault(key, []).extend(_run(args, threads, env, contend))
                print(f"{key}: {statistics.median(rates[key]):,.0f} visits/s so far", file=sys.stderr)
    medians = {key: statistics.median(values) for key, values in rates.items()}
    single = medians["threads 1, alone"]
    if args.json:
        print(json.dumps({"medians": medians, "runs": rates, "cores": cores}, sort_keys=True))
        return
    for key, value in medians.items():
        print(f"{key:32s} {value:8,.0f} visits/s  {100 * value / single:5.0f}% of threads 1 alone")


if __name__ == "__main__":
    main()
