"""Ray self-play against the single-process self-play it wraps, side by side: ``engine bench selfplay`` and
``engine bench selfplay --ray local`` (and any further variants), alternating, ROUNDS rounds, medians.

    python experiments/ray-selfplay/run.py [--rounds 3] [--variant "--ray local --inference server"] \\
        -- --size 9 --visits 400 --blocks 6 --filters 64 --seconds 60

Everything after ``--`` goes to every run (without ``--threads`` each side has its default: every core for
the single process, one for each self-play actor's own network on a CPU-only Ray node). Each run prints one
JSON line; the table gives the median positions/s of each variant and its ratio to the single process.
Alternating the order keeps a slow spell of a shared machine from landing on one variant only.
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys


def run(args: list[str]) -> dict:
    done = subprocess.run(["engine", "bench", "selfplay", *args, "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"engine bench selfplay {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", action="append", default=[], help="Options of one more variant.")
    parser.add_argument("common", nargs="*", help="Options of every run (after --).")
    options = parser.parse_args()
    variants = {"single process": [], "--ray local": ["--ray", "local"],
                **{text: shlex.split(text) for text in options.variant}}
    rates: dict[str, list[float]] = {name: [] for name in variants}
    for round_ in range(options.rounds):
        order = list(variants) if round_ % 2 == 0 else list(reversed(variants))
        for name in order:
            figures = run([*options.common, *variants[name]])
            rates[name].append(figures["positions_per_s"])
            print(json.dumps({"round": round_ + 1, "variant": name, **figures}), flush=True)
    base = statistics.median(rates["single process"])
    print("\n| variant | positions/s, each round | median | vs single process |\n|---|---|---:|---:|")
    for name, values in rates.items():
        middle = statistics.median(values)
        print(f"| {name} | {', '.join(f'{v:.2f}' for v in values)} | {middle:.2f} | {middle / base:.2f} |")


if __name__ == "__main__":
    main()
