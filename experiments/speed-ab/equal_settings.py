"""The search and genmove workloads of ``ab.py`` with the search settings of the older checkout on both sides,
so that a change of defaults (which changes the tree each visit builds, not the speed of building it) does
not read as a change of speed. Run by ``ab.py`` with ``PYTHONPATH`` set to one checkout:

    python experiments/speed-ab/equal_settings.py search|genmove

``search``: simulations a second of 19x19 800-visit searches from the empty board with a uniform evaluator
(median of five runs of a second); ``genmove``: new simulations a second over 8 moves of 400 visits from the
empty board, the tree reused, a random b6c64 on eager torch with one thread (the moves played are printed too:
equal settings play the same game on both checkouts). The settings that became defaults with the house
redesign (exploration scaled by the values' spread, the first-play value from the parent's mean, the move by
its value's lower confidence bound, the komi correction) are turned off where the checkout has them.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

from engine.core.game import Game
from engine.core.rules import Rules

try:   # the checkout with one config module and the newer defaults
    from engine.search.config import PlayerConfig, SearchConfig

    OLDER_SETTINGS = {"c_puct_stdev_scale": 0.0, "fpu_from_mean": False, "lcb_stdevs": 0.0, "komi_correction": False}
except ImportError:   # the older checkout: its defaults are the settings
    from engine.search.mcts import SearchConfig  # type: ignore[no-redef]
    from engine.search.player import PlayerConfig  # type: ignore[no-redef]

    OLDER_SETTINGS = {}


def search_rate() -> dict[str, float]:
    from engine.search.evaluator import UniformEvaluator
    from engine.search.mcts import Search

    search = Search(Game(Rules.go(19)), UniformEvaluator(), SearchConfig(batch_size=16, **OLDER_SETTINGS), seed=0)

    def one() -> int:
        search.reset()
        return search.run(800).simulations

    one()
    rates = []
    for _ in range(5):
        simulations, started = 0, time.perf_counter()
        while time.perf_counter() - started < 1.0:
            simulations += one()
        rates.append(simulations / (time.perf_counter() - started))
    return {"sims_per_s": statistics.median(rates)}


def genmove_rate() -> dict[str, object]:
    import torch

    from encoders import get_encoder
    from engine.nn.evaluator import NetEvaluator
    from engine.nn.net import NetConfig, PolicyValueNet
    from engine.search.player import Player

    torch.set_num_threads(1)
    rules = Rules.go(19)
    planes = get_encoder("zero17", rules)
    torch.manual_seed(0)
    evaluator = NetEvaluator(PolicyValueNet(NetConfig(6, 64, planes.num_planes, 19)), planes, runtime="eager", seed=0)
    config = PlayerConfig(visits=400, resign_threshold=None, threat_guard=True,
                          search=SearchConfig(batch_size=16, **OLDER_SETTINGS))
    evaluator.warm_up(19)
    Player(evaluator, config, seed=0).choose(Game(rules))   # compiles every batch shape, loads the kernels
    evaluator.clear_cache()
    player, game = Player(evaluator, config, seed=0), Game(rules)
    simulations, seconds, moves = 0, 0.0, []
    for _ in range(8):
        started = time.perf_counter()
        decision = player.choose(game)
        seconds += time.perf_counter() - started
        simulations += decision.search.simulations
        moves.append(decision.action)
        game.play(decision.action)
    return {"visits_per_s": simulations / seconds, "simulations": simulations, "moves": moves}


if __name__ == "__main__":
    print(json.dumps(search_rate() if sys.argv[1] == "search" else genmove_rate()))
