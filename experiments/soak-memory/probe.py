"""Resident memory after every game of 9x9 play at 16 visits a move, played in one process by the player and
the staged evaluator that ``engine gtp`` uses, beside the evaluation cache's fill.

    python experiments/soak-memory/probe.py CACHE_ENTRIES GAMES > LOG
"""

from __future__ import annotations

import os
import random
import sys
import time
from dataclasses import replace

import numpy as np

from bench.gtp_pipe import resident_bytes
from engine.core.game import Game
from engine.core.rules import Rules
from engine.nn.loading import EvaluatorOptions, load_evaluator
from engine.nn.networks import bundled_model
from engine.search.config import PlayerConfig
from engine.search.player import Player

RANDOM_MOVES = 4


def resident_mb() -> float:
    return resident_bytes(os.getpid()) / 2**20


def main(cache_entries: int, games: int) -> None:
    rules = replace(Rules.parse("chinese", size=9), komi=7.0)
    evaluator = load_evaluator(rules, bundled_model(rules),
                               EvaluatorOptions(cache_size=cache_entries, ahead_of_time=True))
    evaluator.compile_ahead(9)   # as engine gtp's warm-up: torch's network replaces numpy's in the background
    player = Player(evaluator, PlayerConfig(visits=16, resign_threshold=None))
    rng = random.Random(1)
    start = time.time()
    for number in range(1, games + 1):
        game = Game(rules)
        player.new_game()
        for _ in range(RANDOM_MOVES):
            game.play(rng.choice(np.flatnonzero(game.position.legal_mask()[:-1]).tolist()))
        while not game.is_over and len(game.moves) < 200:
            decision = player.choose(game)
            if decision.action is None:
                break
            game.play(decision.action)
        print(f"game {number} moves {len(game.moves)} rss {resident_mb():.0f} MB "
              f"cache {len(evaluator._cache)} t {time.time() - start:.0f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
