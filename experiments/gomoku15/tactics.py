"""What Gomoku's tactical corrections are worth to a network: the decisive and anti-decisive moves at every
leaf (``EvaluatorOptions.decisive``) or the threat guard at the root (``PlayerConfig.threat_guard``).

Plays MODEL with the correction and without it, each against the same OPPONENT (a baseline such as
``gomokubench:hard``, or a model file) with the same seed, so the two matches open the same way
wherever the players agree; or, with ``--head-to-head``, the corrected network against the plain one.
``--time SGF...`` instead times the threat guard on every position of those games, as a player meets them.

    python experiments/gomoku15/tactics.py MODEL gomokubench:hard --games 40 --visits 800
    python experiments/gomoku15/tactics.py MODEL gomokubench:hard --tactic guard --games 40 --visits 800
    python experiments/gomoku15/tactics.py MODEL --head-to-head --games 100 --visits 400
    python experiments/gomoku15/tactics.py MODEL --time GAMES/*.sgf   # e.g. a match archive of results/, extracted

Prints one JSON line per match (``engine evaluate --json``'s fields, with the tactic and whether it was
on), or for ``--time`` the guard's milliseconds a move (median, mean, 99th percentile) and how often it
chose the moves (a victory of the mover's, or a threat of the opponent's it could stop).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

import numpy as np

from engine import EvaluatorOptions
from engine.core.game import Game
from engine.core.rules import Rules
from engine.formats.sgf import load_sgf_file
from engine.nn.evaluator import set_cpu_threads
from engine.search.evaluator import Evaluator
from engine.search.guard import guarded_moves
from training.match import Agent, make_agent, match_rules, play_match
from training.match_config import MatchConfig


def _time_guard(model: str, paths: list[str]) -> dict[str, object]:
    """The guard's cost on every position of the games at ``paths`` where the game goes on."""
    from engine import load_evaluator

    evaluators: dict[Rules, Evaluator] = {}
    seconds, restricted, positions = [], 0, 0
    for path in paths:
        record = load_sgf_file(path)
        game = Game(record.rules)
        if record.rules not in evaluators:
            evaluators[record.rules] = load_evaluator(record.rules, model)
        evaluator = evaluators[record.rules]
        for move in record.moves:
            game.play(move.action)
            if game.is_over:
                break
            started = time.perf_counter()
            allowed = guarded_moves(game, evaluator)
            seconds.append(time.perf_counter() - started)
            positions += 1
            restricted += allowed is not None
    ms = np.asarray(seconds) * 1000
    return {"positions": positions, "guarded": restricted, "median_ms": round(float(np.median(ms)), 2),
            "mean_ms": round(float(ms.mean()), 2), "p99_ms": round(float(np.percentile(ms, 99)), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("opponent", nargs="?", default="gomokubench:hard")
    parser.add_argument("--tactic", choices=("decisive", "guard"), default="decisive")
    parser.add_argument("--head-to-head", action="store_true", help="the corrected network against the plain one")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--visits", type=int, default=800)
    parser.add_argument("--rules", default="freestyle")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("on", "off"), help="one of the two matches against OPPONENT")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: every core)")
    parser.add_argument("--time", nargs="+", metavar="SGF", help="time the threat guard on these games instead")
    args = parser.parse_args()
    if args.threads:
        set_cpu_threads(args.threads)

    if args.time:
        print(json.dumps({"model": args.model, **_time_guard(args.model, args.time)}), flush=True)
        return
    base = MatchConfig(games=args.games, seed=args.seed)
    config = replace(base, player=replace(base.player, visits=args.visits))
    rules = match_rules(args.model, args.opponent if not args.head_to_head else args.model, args.rules)

    def network(on: bool) -> Agent:
        decisive = on or args.tactic != "decisive"
        agent = make_agent(args.model, rules, config,
                           EvaluatorOptions(random_symmetry=True, seed=args.seed, decisive=decisive))
        guarded = replace(agent.config, threat_guard=on or args.tactic != "guard")
        return replace(agent, name=f"{agent.name}{'+' + args.tactic if on else ''}", config=guarded)

    if args.head_to_head:
        pairs = [(True, network(True), network(False))]
    else:
        opponent = make_agent(args.opponent, rules, config)
        pairs = [(on, network(on), opponent) for on in (False, True)
                 if args.only is None or args.only == ("on" if on else "off")]
    for on, a, b in pairs:
        result = play_match(a, b, rules, config)
        print(json.dumps({"tactic": args.tactic, "on": on, "visits": args.visits, **result.to_dict()}), flush=True)


if __name__ == "__main__":
    main()
