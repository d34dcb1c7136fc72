"""KaTrain drives ``engine analysis``: its own engine class (``katrain.core.engine.KataGoEngine``), headless
(:class:`bench.katrain_host.KaTrainHost`), through a short game and KaTrain's game review, and its human, rank
and pro AIs each through a few moves, with its KataGo path set to ``engine`` and its model to ours.

KaTrain is a dev dependency (docs/analysis.md, *Use with KaTrain*); ``test_kata_analysis`` replays the queries it
sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.katrain_host import KaTrainHost
from engine.core.rules import Rules
from engine.nn.networks import bundled_model


@pytest.fixture(params=[9])
def host(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[KaTrainHost]:
    """KaTrain on the bundled network of the board size ``request.param``, at few visits."""
    model = bundled_model(Rules.go(request.param))
    katrain = KaTrainHost(tmp_path, model, humanlike_model=str(model), max_visits=16, fast_visits=8, max_time=20.0)
    yield katrain
    katrain.close()


def test_katrain_reviews_a_game_on_engine_analysis(host: KaTrainHost) -> None:
    from pysgf import Move

    game = host.game({"SZ": 9, "KM": 6.5, "RU": "japanese"})
    for number, vertex in enumerate(["E5", "C3", "G4", "C6", "F7", "D3"]):
        game.play(Move.from_gtp(vertex, player="BW"[number % 2]))
    game.analyze_extra("game", visits=24)  # KaTrain's game review: every node again, at the lowest priority
    nodes = game.root.nodes_in_tree
    host.wait(nodes, 240)
    assert host.errors == []
    for node in nodes:
        root = node.analysis["root"]
        assert root["visits"] >= 16 and "scoreLead" in root and 0 <= root["winrate"] <= 1
        assert len(node.ownership) == 81 and len(node.policy) == 82
        assert node.analysis["moves"] and all("scoreLead" in move for move in node.analysis["moves"].values())
    assert any(node.analysis["root"]["visits"] >= 24 for node in nodes)  # the review's deeper searches arrived
    assert game.root.children[0].points_lost is not None  # KaTrain's own review numbers come out of ours


@pytest.mark.parametrize("host", [19], indirect=True)   # KaTrain reads a human policy of 19x19 only
@pytest.mark.parametrize("mode,settings", [
    ("ai:human", {"human_kyu_rank": 8, "modern_style": False}),   # a humanSLProfile: preaz_8k
    ("ai:p:rank", {"kyu_rank": 4.0}),                              # a pick from the policy of the node's analysis
    ("ai:pro", {"pro_year": 1914}),                                # a humanSLProfile: proyear_1914
])
def test_katrains_human_rank_and_pro_ais_play_on_engine_analysis(host: KaTrainHost, mode: str,
                                                                  settings: dict[str, object]) -> None:
    from katrain.core.ai import generate_ai_move

    game = host.game({"SZ": 19, "KM": 6.5, "RU": "chinese"})
    for _ in range(4):
        host.wait([game.current_node], 120)   # the rank AI picks from the position's analysis
        move, node = generate_ai_move(game, mode, settings)
        assert host.errors == [] and node is not None and node is game.current_node, (mode, move, host.errors)
        assert not move.is_pass
    assert len(game.current_node.nodes_from_root) == 5
