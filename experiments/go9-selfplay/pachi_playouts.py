"""Pachi's playouts a move that take it SECONDS a move on this machine: equal time for ship_matches.sh.

    python experiments/go9-selfplay/pachi_playouts.py PACHI SECONDS SGF_DIR [--probe 5000] [--games 4] [--every 4]

Pachi's own time control cannot give it a short time a move: it reserves 2 s of network lag
(``MAX_NET_LAG`` in its ``timeinfo.c``), so ``-t 0.4`` thinks about 0.1 s (its 100 ms minimum), a
quarter of what it was given. So Pachi plays a fixed number of playouts (``-t =N``), measured here:
its genmove is timed at ``--probe`` playouts on the positions of recorded games (every ``--every``-th
position of the first ``--games`` SGF files of SGF_DIR, each set up afresh on a cleared board), and
N = probe x SECONDS / its mean time. Prints N; the measured rate goes to stderr.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from engine import action_to_gtp, load_sgf_file
from training.gtp_client import GTPClient


def probe_positions(sgf_dir: Path, games: int, every: int) -> list[tuple[int, list[str], str]]:
    """``(board size, moves so far as GTP "play" arguments, colour to move)`` at every ``every``-th position."""
    positions = []
    for path in sorted(sgf_dir.glob("*.sgf"))[:games]:
        record = load_sgf_file(path)
        played: list[str] = []
        for number, move in enumerate(record.moves):
            if number % every == 0:
                positions.append((record.rules.size, list(played), move.color.letter))
            played.append(f"{move.color.letter} {action_to_gtp(move.action, record.rules.size)}")
    return positions


def mean_genmove_seconds(pachi: list[str], positions: list[tuple[int, list[str], str]], komi: float) -> float:
    """Pachi's mean genmove time over ``positions`` at ``komi``, as the client times a match's genmoves."""
    with GTPClient(pachi, timeout=120.0, name="pachi") as engine:
        for size, moves, to_play in positions:
            engine.send_many([f"boardsize {size}", "clear_board", f"komi {komi}", *(f"play {m}" for m in moves)])
            engine.send(f"genmove {to_play}")
        return engine.genmove_seconds / engine.genmoves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pachi", help="Pachi's command line, without -t (e.g. 'pachi -r chinese threads=1')")
    parser.add_argument("seconds", type=float, help="The time a move Pachi should take.")
    parser.add_argument("sgf_dir", type=Path, help="Recorded games whose positions Pachi is timed on.")
    parser.add_argument("--probe", type=int, default=5000, help="Playouts a move while timing.")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--komi", type=float, default=7.0)
    args = parser.parse_args()
    positions = probe_positions(args.sgf_dir, args.games, args.every)
    if not positions:
        parser.error(f"no SGF games in {args.sgf_dir}")
    mean = mean_genmove_seconds([*shlex.split(args.pachi), "-t", f"={args.probe}"], positions, args.komi)
    playouts = max(1, round(args.probe * args.seconds / mean))
    print(f"Pachi: {args.probe} playouts in {mean:.3f} s a move over {len(positions)} positions "
          f"({args.probe / mean:,.0f} a second): {playouts} playouts for {args.seconds:.3f} s", file=sys.stderr)
    print(playouts)


if __name__ == "__main__":
    main()
