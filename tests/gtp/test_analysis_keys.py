"""Every key KataGo's ``lz-analyze``, ``kata-analyze`` and ``analyze`` accept, in transcripts over pipes: what
each asks for is in the lines, in KataGo's field names and order (its docs/GTP_Extensions.md), and what KataGo
refuses is refused."""

from __future__ import annotations

import time

import numpy as np
import pytest

import gtp.state
from engine import Evaluation, PositionBatch, gtp_to_action
from engine.core.board import TO_PLAY
from engine.search.evaluator import UniformEvaluator
from tests.gtp.helpers import answers, responses
from tests.gtp.test_streaming import PipeSession

SIZE = 9


class StonesOwn:
    """Uniform priors and value 0; the side to move owns its stones and the opponent its own (empty points 0), and
    leads by the difference in stones (spread 2): the ownership differs from node to node of a tree."""

    def evaluate(self, positions: PositionBatch, legal: np.ndarray | None = None) -> Evaluation:
        time.sleep(0.002)   # analysis lines come while the search runs
        batch = PositionBatch.stack(positions)
        stones = np.stack([position.board().reshape(-1) for position in batch])
        to_play = batch.info[:, TO_PLAY][:, None]
        own = np.where(stones == to_play, 1.0, np.where(stones == 0, 0.0, -1.0)).astype(np.float32)
        return UniformEvaluator().evaluate(batch, legal)._replace(
            ownership=own, score_mean=own.sum(axis=1), score_stdev=np.full(len(batch), 2.0, np.float32))


@pytest.fixture(autouse=True)
def heads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gtp.state, "load_evaluator", lambda rules, model, options: StonesOwn())


def _analysis(command: str, until: str = r"^info move ", setup: str = "play b E5\nplay w C3\n") -> str:
    """The last complete line ``command`` streams once a line matches ``until``."""
    session = PipeSession(size=SIZE, visits=100)
    session.send(setup + command + "\n")
    session.wait_for(until + r".*\n", timeout=60)
    session.send("protocol_version\n")
    session.wait_for(r"^= 2\n\n")
    session.close_input()
    found = responses(session.finish())
    lines = found[setup.count("\n")][2].split("\n")
    return [line for line in lines if line.startswith("info ")][-1]


def _fields(segment: str) -> dict[str, list[str]]:
    """A kata ``info`` segment as KataGo's keys with their values (numbers, or the vertices of ``pv``)."""
    fields: dict[str, list[str]] = {}
    key = None
    for word in segment.split():
        if word[0].islower() and word != "pass":   # keys are camel case, vertices upper case
            key = word
            fields[key] = []
        else:
            fields[key].append(word)  # type: ignore[index]
    return fields


def _segments(line: str) -> tuple[list[dict[str, list[str]]], dict[str, list[str]]]:
    """The candidates of a line, and what follows them (``rootInfo``, ``ownership``, ``ownershipStdev``)."""
    head, _, tail = line.partition(" rootInfo ")
    moves = [_fields(part) for part in head.split("info ")[1:]]
    rest = _fields("rootInfo " + tail) if tail else {}
    if not tail and moves:
        last = moves[-1]
        rest = {key: last.pop(key) for key in ("ownership", "ownershipStdev") if key in last}
    return moves, rest


def test_kata_analyze_reports_every_kata_key_in_katago_s_order() -> None:
    line = _analysis("kata-analyze b 5 rootInfo true pvVisits true pvEdgeVisits true movesOwnership true "
                     "movesOwnershipStdev true ownership true ownershipStdev true", until=r"^info move .*rootInfo")
    moves, rest = _segments(line)
    assert moves and list(rest) == ["rootInfo", "visits", "utility", "winrate", "scoreMean", "scoreStdev",
                                    "scoreLead", "ownership", "ownershipStdev"]
    for move in moves:
        assert list(move) == ["move", "visits", "utility", "winrate", "scoreMean", "scoreStdev", "scoreLead",
                              "prior", "lcb", "order", "pv", "pvVisits", "pvEdgeVisits", "movesOwnership",
                              "movesOwnershipStdev"]
        visits = [int(v) for v in move["pvVisits"]]
        assert visits[0] == int(move["visits"][0]) and visits == sorted(visits, reverse=True)
        assert len(visits) <= len(move["pv"]) and move["pvEdgeVisits"] == move["pvVisits"]
        owned, spread = (np.array(move[key], dtype=float) for key in ("movesOwnership", "movesOwnershipStdev"))
        assert owned.shape == spread.shape == (SIZE * SIZE,) and (spread >= 0).all() and (spread <= 1).all()
        if move["move"] != ["pass"]:   # black's own stone in every node after the move
            point = _action(move["move"][0])
            assert owned[point] == 1.0 and spread[point] == 0.0
    root_visits = int(rest["visits"][0])
    assert root_visits > sum(int(move["visits"][0]) for move in moves) - 1
    assert float(rest["winrate"][0]) == pytest.approx((float(rest["utility"][0]) + 1) / 2, abs=1e-5)
    ownership, stdev = np.array(rest["ownership"], dtype=float), np.array(rest["ownershipStdev"], dtype=float)
    assert ownership[_action("E5")] == 1.0 and ownership[_action("C3")] == -1.0    # black's view, as asked
    assert stdev[_action("E5")] == 0.0 and stdev.max() > 0                          # later moves vary


def _action(vertex: str) -> int:
    return gtp_to_action(vertex, SIZE)


def test_kata_keys_left_false_add_nothing() -> None:
    line = _analysis("kata-analyze b 5 rootInfo false pvVisits false movesOwnership false ownership false")
    moves, rest = _segments(line)
    assert rest == {} and all(list(move)[-1] == "pv" for move in moves)


@pytest.mark.parametrize("command", ["lz-analyze b 5", "analyze b 5"])
def test_the_leela_zero_format_carries_the_scores_for_sabaki_and_lizzie(command: str) -> None:
    """Sabaki's score graph reads ``scoreLead`` from ``analyze``; the ``pv`` stays last (Sabaki reads it so)."""
    line = _analysis(command)
    for part in line.split("info ")[1:]:
        words = part.split()
        assert words[:10:2] == ["move", "visits", "winrate", "scoreMean", "scoreStdev"]
        assert words[10] == "scoreLead" and words[12:19:2] == ["prior", "lcb", "order", "pv"]
        assert words[5].isdigit() and not words[7].isdigit()   # 10000ths for the winrate, floats for the scores


def test_avoid_keeps_the_moves_out_of_the_analysis() -> None:
    line = _analysis("kata-analyze b 5 avoid b D4,D5,,F5 30 avoid w A1 1 minmoves 80")
    moves = {fields["move"][0] for fields in _segments(line)[0]}
    assert len(moves) == 80 - 3 and not moves & {"D4", "D5", "F5"}   # 79 empty points and pass, less three


def test_allow_keeps_the_analysis_to_those_moves() -> None:
    line = _analysis("lz-analyze b 5 allow b C7,G7 1 minmoves 10")
    assert {part.split()[1] for part in line.split("info ")[1:]} == {"C7", "G7"}


def test_avoid_for_the_other_colour_leaves_the_root_alone() -> None:
    line = _analysis("lz-analyze b 5 avoid w D4 1 minmoves 80")
    assert "D4" in {part.split()[1] for part in line.split("info ")[1:]}


def test_allow_and_avoid_hold_for_their_depth() -> None:
    """Lizzie's avoid keeps moves out of the line, not only the root: black's two moves at the root, white's one
    reply at ply 2, none of white's F5 through ply 4, and black free again at ply 3."""
    line = _analysis("kata-analyze b 5 allow b D4,E4 1 allow w C7 2",
                     until=r"^info move .* pv \S+ C7 \S+")
    lines = [_fields(part)["pv"] for part in line.split("info ")[1:]]
    assert {pv[0] for pv in lines} == {"D4", "E4"} and any(len(pv) >= 3 for pv in lines)
    assert all(pv[1] == "C7" for pv in lines if len(pv) > 1)
    assert {pv[2] for pv in lines if len(pv) > 2} - {"D4", "E4", "C7"}   # ply 3 is free
    line = _analysis("kata-analyze b 5 avoid w F5,G5,H5 4", until=r"^info move (?:.* pv \S+ \S+ \S+ \S+){3}")
    replies = [pv[i] for pv in (_fields(part)["pv"] for part in line.split("info ")[1:]) for i in (1, 3)
               if len(pv) > i]
    assert replies and not set(replies) & {"F5", "G5", "H5"}


def test_an_analysis_with_allow_leaves_the_player_s_tree_whole() -> None:
    """The restricted search grows its own tree: the next analysis, on the player's tree, searches every move."""
    session = PipeSession(size=SIZE, visits=100)
    session.send("1 lz-analyze b 5 allow b C7 1\n")
    session.wait_for(r"^info move .*\n")
    session.send("2 lz-analyze b 5\n")
    session.wait_for(r"^=2\n(?:.*\n)*info move .*\n")
    session.send("3 name\n")
    session.wait_for(r"^=3 engine\n\n")
    session.close_input()
    first, second, _ = responses(session.finish())
    restricted = {part.split()[1] for line in first[2].split("\n") for part in line.split("info ")[1:]}
    whole = {part.split()[1] for line in second[2].split("\n") for part in line.split("info ")[1:]}
    assert restricted == {"C7"} and len(whole) > 1


@pytest.mark.parametrize("command, message", [
    ("lz-analyze b 5 ownership true", "syntax error: ownership is a key of kata-analyze"),
    ("analyze b 5 rootInfo true", "syntax error: rootInfo is a key of kata-analyze"),
    ("kata-analyze b 5 pvVisits yes", "syntax error: pvVisits wants true or false, not 'yes'"),
    ("kata-analyze b 5 avoid b D4 0", "syntax error: avoid wants a depth from 1, not '0'"),
    ("kata-analyze b 5 avoid b D4 99999999999999999999", "syntax error: avoid wants a depth from 1, not "
                                                        "'99999999999999999999'"),
    ("kata-analyze b 5 avoid b D4", "syntax error: avoid wants COLOR VERTEX,VERTEX,... DEPTH"),
    ("kata-analyze b 5 avoid x D4 1", "syntax error: avoid wants COLOR VERTEX,VERTEX,... DEPTH"),
    ("kata-analyze b 5 avoid b Z99 1", "syntax error: avoid: bad vertex in 'Z99'"),
    ("kata-analyze b 5 allow b D4 1 allow b E4 1", "syntax error: one allow per colour, and never with avoid (black)"),
    ("kata-analyze b 5 avoid b D4 1 allow b E4 1", "syntax error: one allow per colour, and never with avoid (black)"),
    ("kata-analyze b 5 allow b D4 1 avoid b E4 1", "syntax error: one allow per colour, and never with avoid (black)"),
    ("kata-analyze b 5 maxmoves -1", "syntax error: maxmoves wants a whole number from 0, not '-1'"),
    ("kata-analyze b 5 interval x", "syntax error: interval wants centiseconds, not 'x'"),
    ("kata-analyze b -5", "syntax error: an interval is centiseconds from 0, not '-5'"),
    ("lz-analyze 1e400", "syntax error: an interval is centiseconds from 0, not '1e400'"),
    ("kata-analyze b 5 minmoves", "syntax error: minmoves wants a value"),
    ("kata-analyze b 5 bogus 1", "syntax error: unknown key 'bogus'"),
    ("kata-genmove_analyze b 5 avoid b D4 1", "avoid and allow restrict analysis, not the move a genmove plays"),
])
def test_what_katago_refuses_is_refused(command: str, message: str) -> None:
    assert answers(f"{command}\nname\n", size=SIZE) == [f"? {message}", "engine"]


def test_maxmoves_zero_writes_no_line_and_interval_takes_fractions() -> None:
    session = PipeSession(size=SIZE, visits=100)
    session.send("kata-analyze b 0.5 maxmoves 0\n")
    time.sleep(0.5)
    session.send("kata-analyze b interval 2.5 maxmoves 1\n")
    session.wait_for(r"^info move \S+ visits .* pv [^i]*\n")
    session.send("name\n")
    session.wait_for(r"^= engine\n\n")
    session.close_input()
    first, second, _ = responses(session.finish())
    assert first == ("=", None, "") and second[2].count("info ") >= 1
    assert all(line.count("info move") == 1 for line in second[2].split("\n") if line)


def test_the_move_the_search_would_play_is_order_0() -> None:
    """KataGo's order 0 is its move: where the lower confidence bound plays a move with fewer visits than the
    most visited, analysis lists that move first, then the others by visits."""
    from types import SimpleNamespace

    from gtp.analysis import candidates

    visits = np.array([0, 40, 50, 10, 0], np.float32)
    priors = np.array([0.1, 0.2, 0.3, 0.2, 0.2], np.float32)
    by_bound = SimpleNamespace(visits=visits, priors=priors, best_action=1)
    assert candidates(by_bound) == [1, 2, 3]  # type: ignore[arg-type]
    by_visits = SimpleNamespace(visits=visits, priors=priors, best_action=2)
    assert candidates(by_visits, minmoves=5) == [2, 1, 3, 4, 0]  # type: ignore[arg-type]
