"""GNU Go self-play games as SGF files: the data of the supervised run (``benchmarks/gnugo_supervised.sh``).

::

    python -m training.gnugo_games OUT_DIR --games 3000 --size 9 --level 1 --jobs 2

Each job keeps one ``gnugo --mode gtp`` process (Chinese rules) and plays
games against itself: ``--random-moves`` uniformly random legal opening moves
(so that games differ; GNU Go is nearly deterministic), then ``genmove`` for
each side until two passes, a resignation or the move cap; the result is GNU
Go's ``final_score``. Every game is checked move by move through
:class:`~engine.core.game.Game` and written atomically as ``gnugo-SEED-NNNNNN.sgf``;
a re-run skips the games already written, so a killed run resumes.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from pathlib import Path

import click
import numpy as np

from engine import Rules, dump_sgf, write_text
from training.gtp_games import GtpEngine, play_game

__all__ = ["gnugo", "find_gnugo"]


def find_gnugo() -> str | None:
    """The gnugo binary (Debian installs it in /usr/games)."""
    return shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games:/usr/local/games")


def gnugo(binary: str, level: int, seed: int) -> GtpEngine:
    """GNU Go in GTP mode under Chinese rules, at ``level``, with its random choices seeded."""
    return GtpEngine([binary, "--mode", "gtp", "--level", str(level), "--chinese-rules", "--seed", str(seed)])


@click.command()
@click.argument("out_dir", type=click.Path(file_okay=False))
@click.option("--games", type=click.IntRange(1), default=100, show_default=True)
@click.option("--size", type=click.IntRange(5, 19), default=9, show_default=True)
@click.option("--komi", type=float, default=7.0, show_default=True)
@click.option("--level", type=click.IntRange(0, 10), default=1, show_default=True, help="GNU Go's strength.")
@click.option("--random-moves", type=click.IntRange(0), default=4, show_default=True)
@click.option("--jobs", type=click.IntRange(1), default=2, show_default=True, help="GNU Go processes.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--gnugo", "binary", default=None, help="Path of gnugo [default: found on PATH or /usr/games].")
def main(out_dir: str, games: int, size: int, komi: float, level: int, random_moves: int, jobs: int, seed: int,
         binary: str | None) -> None:
    """Write GNU Go self-play games as SGF files into OUT_DIR (resumable)."""
    binary = binary or find_gnugo()
    if binary is None:
        raise click.ClickException("gnugo is not installed (apt-get install gnugo)")
    rules = Rules.go(size, "chinese", komi=komi)
    out = Path(out_dir)
    todo = [i for i in range(games) if not (out / f"gnugo-{seed}-{i:06d}.sgf").exists()]
    lock = threading.Lock()
    started, done = time.perf_counter(), [0]

    def work(job: int) -> None:
        engine = gnugo(binary, level, seed * 1000 + job)
        try:
            while True:
                with lock:
                    if not todo:
                        return
                    index = todo.pop(0)
                rng = np.random.default_rng([seed, index])
                game, outcome = play_game(engine, engine, rules, random_moves, rng)
                text = dump_sgf(game, black_name=f"GNU Go level {level}", white_name=f"GNU Go level {level}",
                                result=outcome)
                write_text(out / f"gnugo-{seed}-{index:06d}.sgf", text)
                with lock:
                    done[0] += 1
                    if done[0] % 25 == 0:
                        rate = 3600 * done[0] / (time.perf_counter() - started)
                        print(f"{done[0]} games, {rate:.0f} games/hour", file=sys.stderr, flush=True)
        finally:
            engine.close()

    threads = [threading.Thread(target=work, args=(job,)) for job in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    click.echo(f"{done[0]} games written to {out} in {elapsed:.0f} s "
               f"({3600 * done[0] / max(elapsed, 1e-9):.0f} games/hour); {games - len(todo) - done[0]} were there")


if __name__ == "__main__":
    main()
