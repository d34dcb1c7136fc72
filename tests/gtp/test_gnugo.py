"""End to end: ``engine gtp`` plays complete 9x9 games against GNU Go, refereed by a small arbiter.

The arbiter keeps its own Game under the same rules (Chinese scoring; simple
ko, which is what GNU Go enforces): every move either engine generates must
be legal there, and both engines must accept the other's moves. At the end
(two passes, a resignation or the move cap) both engines score the game.
They must agree on the winner, or the disagreement must be explained by the
dead stones each of them names: the arbiter, removing exactly those stones,
reproduces each engine's own result.
"""

from __future__ import annotations

import sys

import pytest

from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.rules import Rules
from engine.core.types import Color, Outcome
from training.gtp_client import GTPClient, gnugo_argv

RULES = "chinese ko=simple komi=7.5 size=9"
ENGINE_ARGV = [sys.executable, "-c", "from engine.cli import main; main()", "gtp", "--size", "9", "--rules", RULES,
               "--model", "uniform", "--visits", "16", "--batch", "8", "--seed", "11", "--log-level", "warning"]


def _vertices(text: str) -> list[int]:
    return [gtp_to_action(word, 9) for word in text.split()]


def _play_game(players: dict[Color, GTPClient]) -> tuple[Game, Outcome | None]:
    """Alternate genmove / play until the arbiter's game ends; the arbiter's game and any resignation."""
    arbiter = Game(Rules.parse(RULES))
    color = Color.BLACK
    while not arbiter.is_over:
        mover, other = players[color], players[color.opponent]
        vertex = mover.send(f"genmove {color.letter}")
        if vertex.lower() == "resign":
            return arbiter, Outcome(color.opponent, None, "resign")
        arbiter.play(gtp_to_action(vertex, 9), color)  # IllegalMoveError fails the test: an illegal move
        other.send(f"play {color.letter} {vertex}")
        color = color.opponent
    return arbiter, None


def _check_scores(arbiter: Game, ours: GTPClient, gnugo: GTPClient) -> None:
    results = {name: Outcome.from_sgf(client.send("final_score")) for name, client in
               (("ours", ours), ("gnugo", gnugo))}
    for result in results.values():
        assert result is not None and result.reason == "score"
    if results["ours"].winner == results["gnugo"].winner:
        return
    for name, client in (("ours", ours), ("gnugo", gnugo)):
        dead = _vertices(client.send("final_status_list dead"))
        explained = Outcome.from_lead(arbiter.score(dead=dead))
        assert explained.winner == results[name].winner, (
            f"{name} says {results[name].to_sgf()}, but its dead stones give {explained.to_sgf()}")
    own_dead = _vertices(ours.send("final_status_list dead"))
    assert Outcome.from_lead(arbiter.score(dead=own_dead)).to_sgf() == results["ours"].to_sgf()


@pytest.mark.gnugo
@pytest.mark.timeout(120)
@pytest.mark.parametrize("our_color", [Color.BLACK, Color.WHITE], ids=["engine-black", "engine-white"])
def test_complete_game_against_gnugo(gnugo_path: str, our_color: Color) -> None:
    gnugo_command = gnugo_argv(gnugo_path, "--seed", "3")  # GNU Go's own randomness, fixed
    with GTPClient(ENGINE_ARGV, timeout=60) as ours, GTPClient(gnugo_command, timeout=30) as gnugo:
        for client in (ours, gnugo):
            client.send_many(["boardsize 9", "clear_board", "komi 7.5"])
        players = {our_color: ours, our_color.opponent: gnugo}
        arbiter, resignation = _play_game(players)
        assert arbiter.is_over or resignation is not None
        if resignation is None:
            _check_scores(arbiter, ours, gnugo)
