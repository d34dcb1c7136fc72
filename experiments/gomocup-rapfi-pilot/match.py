"""A match between two Gomocup (Piskvork) brains under Gomocup's limits (`experiments/piskvork.py`).

    python experiments/gomocup-rapfi-pilot/match.py "engine gomocup" /path/to/pbrain-rapfi --games 10 \\
        --rules freestyle [--opening-stones 2 --turn 5 --match 120 --memory-mb 350 --seed 0 --sgf-dir DIR --json]
        [--late-moves-play] [--paired] [--openings LIST --openings-within N]

Brain A against brain B (command lines), colours alternating (A black in even games), each game opened with
random stones (or an opening list's, each opening twice) and both brains started afresh. Prints A's results,
every game lost on time or by forfeit (with what happened), each brain's thinking time a move (median, 99th
percentile, maximum) and peak memory; one line of JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # experiments.piskvork, run as a script

from engine import Rules, read_openings
from experiments.piskvork import Limits, PiskvorkConfig, PiskvorkMatch, play_piskvork_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("brain_a")
    parser.add_argument("brain_b")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--rules", default="freestyle", help="freestyle, standard or renju (15x15 unless 'size=N').")
    parser.add_argument("--opening-stones", type=int, default=2)
    parser.add_argument("--turn", type=float, default=5.0, help="Seconds a move (INFO timeout_turn).")
    parser.add_argument("--match", type=float, default=120.0, help="Seconds a game (INFO timeout_match).")
    parser.add_argument("--memory-mb", type=int, default=350, help="INFO max_memory, in MB (2^20 bytes).")
    parser.add_argument("--late-moves-play", action="store_true",
                        help="A move past a limit is played, not lost on time (games played as training data).")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--paired", action="store_true",
                        help="Each opening twice, A black in one game and white in the next (Gomocup's way).")
    parser.add_argument("--openings", default=None,
                        help="An opening list (offsets from the centre, e.g. the Piskvork tournament's 3,800): "
                             "games 2k and 2k+1 from its k-th opening that fits the board, colours swapped.")
    parser.add_argument("--openings-within", type=int, default=None,
                        help="With --openings: only openings whose stones lie at most N points from the centre.")
    parser.add_argument("--sgf-dir", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rules = Rules.parse(args.rules)
    openings = () if args.openings is None else read_openings(args.openings, rules.size, args.openings_within)
    config = PiskvorkConfig(args.games, rules, args.opening_stones,
                            Limits(args.turn, args.match, args.memory_mb * 2 ** 20,
                                   late_loses=not args.late_moves_play), args.seed, args.paired,
                            openings)

    def progress(match: PiskvorkMatch) -> None:
        result = match.result
        print(f"game {result.games}: A {result.wins}-{result.losses}-{result.draws}, faults {len(match.faults)}",
              file=sys.stderr, flush=True)

    match = play_piskvork_match(args.brain_a, args.brain_b, config, args.sgf_dir, progress)
    summary = {"rules": str(config.rules), "opening_stones": config.opening_stones, "openings": args.openings,
               "openings_within": args.openings_within, "turn_s": args.turn,
               "match_s": args.match, "memory_mb": args.memory_mb, "seed": args.seed, **match.to_dict()}
    if args.json:
        print(json.dumps(summary, sort_keys=True))
        return
    result = match.result
    low, high = result.interval()
    print(f"A {result.wins}-{result.losses}-{result.draws} in {result.games} games ({100 * result.rate:.1f}% "
          f"[{100 * low:.1f}-{100 * high:.1f}]), {config.rules}")
    for game, fault in match.faults.items():
        print(f"  game {game + 1}: {fault}")
    for brain in ("a", "b"):
        profile, memory = summary[f"{brain}_time"], summary[f"{brain}_peak_memory_mb"]
        print(f"  {brain.upper()}: {profile['moves']} moves, median {profile['median_s']} s, 99th percentile "
              f"{profile['p99_s']} s, longest {profile['max_s']} s; peak memory {memory} MB")


if __name__ == "__main__":
    main()
