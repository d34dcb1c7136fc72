"""What Gomoku's decisive and anti-decisive moves are worth to a network (``EvaluatorOptions.decisive``).

Plays MODEL with the correction and without it, each against the same OPPONENT (a baseline such as
``gomokubench:hard``, or a model file) with the same seed, so the two matches open the same way
wherever the players agree; or, with ``--head-to-head``, the corrected network against the plain one.

    python benchmarks/gomoku_decisive.py MODEL gomokubench:hard --games 40 --visits 800
    python benchmarks/gomoku_decisive.py MODEL --head-to-head --games 100 --visits 400

Prints one JSON line per match (``engine evaluate --json``'s fields, with ``decisive``).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from engine import EvaluatorOptions
from engine.nn.evaluator import set_cpu_threads
from training.match import MatchConfig, make_agent, match_rules, play_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("opponent", nargs="?", default="gomokubench:hard")
    parser.add_argument("--head-to-head", action="store_true", help="the corrected network against the plain one")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--visits", type=int, default=800)
    parser.add_argument("--rules", default="freestyle")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("on", "off"), help="one of the two matches against OPPONENT")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: every core)")
    args = parser.parse_args()
    if args.threads:
        set_cpu_threads(args.threads)

    base = MatchConfig(games=args.games, seed=args.seed)
    config = replace(base, player=replace(base.player, visits=args.visits))
    rules = match_rules(args.model, args.opponent if not args.head_to_head else args.model, args.rules)

    def network(decisive: bool):
        agent = make_agent(args.model, rules, config,
                           EvaluatorOptions(random_symmetry=True, seed=args.seed, decisive=decisive))
        return replace(agent, name=f"{agent.name}{'+decisive' if decisive else ''}")

    if args.head_to_head:
        pairs = [(True, network(True), network(False))]
    else:
        opponent = make_agent(args.opponent, rules, config)
        pairs = [(decisive, network(decisive), opponent) for decisive in (False, True)
                 if args.only is None or args.only == ("on" if decisive else "off")]
    for decisive, a, b in pairs:
        result = play_match(a, b, rules, config)
        print(json.dumps({"decisive": decisive, "visits": args.visits, **result.to_dict()}), flush=True)


if __name__ == "__main__":
    main()
