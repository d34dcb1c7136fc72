"""KataGo's JSON analysis protocol (``engine analysis``) in-process: a golden request/response file, every
error path, perspectives, priorities, terminate during a search, shared network batches and the end of the
input. The evaluator is a deterministic fake with the score and ownership heads, so that every number in the
golden file follows from the search alone."""

from __future__ import annotations

import io
import json
import logging
import os
import queue
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import Evaluation, PositionBatch, SearchConfig
from engine.core.types import BLACK
from engine.search.evaluator import UniformEvaluator, masked_softmax
from gtp.kata_config import AnalysisConfig
from gtp.kata_session import AnalysisSession
from gtp.protocol import package_version
from tests.gtp.helpers import ClosedOutput

GOLDEN = Path(__file__).parent / "golden"
CONFIG = AnalysisConfig(visits=12, analysis_threads=2, search=SearchConfig(batch_size=4))


class Material:
    """Priors favour the centre; the value, the score and the ownership count the stones (side to move's view).

    ``calls`` and ``sizes`` record every evaluation; after ``gate_after`` calls ``reached`` is set.
    """

    def __init__(self, gate_after: int = 0) -> None:
        self.sizes: list[int] = []
        self.reached = threading.Event()
        self.gate_after = gate_after

    def evaluate(self, positions: Any, legal: np.ndarray | None = None) -> Evaluation:
        batch = PositionBatch.stack(positions)
        n = batch.rules.size
        rows, cols = np.divmod(np.arange(n * n), n)
        centre = (n - 1) / 2
        logits = np.append(-0.5 * (np.abs(rows - centre) + np.abs(cols - centre)), -3.0)
        masks = batch.legal_masks() if legal is None else legal
        priors = masked_softmax(np.tile(logits, (len(batch), 1)), masks)
        owners = []
        for position in batch:
            board = position.board().reshape(-1)
            own = 1 if position.to_play == BLACK else 2
            owners.append(np.where(board == own, 1.0, np.where(board == 0, 0.0, -1.0)))
        ownership = np.asarray(owners, dtype=np.float32)
        material = ownership.sum(axis=1)
        self.sizes.append(len(batch))
        if len(self.sizes) >= self.gate_after:
            self.reached.set()
        return Evaluation(priors, np.tanh(material / 4).astype(np.float32), ownership,
                          (material - 0.5).astype(np.float32), np.full(len(batch), 4.0, np.float32))


def serve(lines: list[str | dict[str, Any]], config: AnalysisConfig = CONFIG, evaluator: Any = None,
          quit_without_waiting: bool = False) -> list[dict[str, Any]]:
    """Every response to ``lines`` (the whole input read before the first search)."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    out = io.BytesIO()
    evaluator = evaluator or Material()
    AnalysisSession(config, lambda rules: evaluator, io.BytesIO(text.encode()), out, quit_without_waiting).run(
        read_ahead=True)
    return [json.loads(line) for line in out.getvalue().decode().splitlines()]


def query(ident: str = "q", **fields: Any) -> dict[str, Any]:
    base = {"id": ident, "moves": [["B", "E5"], ["W", "C3"]], "rules": "chinese", "komi": 7.5, "boardXSize": 9,
            "boardYSize": 9}
    return {**base, **fields}


def results(replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [reply for reply in replies if "turnNumber" in reply and "error" not in reply]


def test_golden_requests_get_the_golden_responses() -> None:
    requests = (GOLDEN / "analysis.jsonl").read_text().splitlines()
    expected = (GOLDEN / "analysis.out.jsonl").read_text().splitlines()
    out = io.BytesIO()
    evaluator = Material()
    AnalysisSession(CONFIG, lambda rules: evaluator, io.BytesIO("\n".join(requests).encode() + b"\n"), out).run(
        read_ahead=True)
    got = out.getvalue().decode().splitlines()
    assert got == expected


def test_golden_responses_say_what_the_requests_ask() -> None:
    """Independent checks of the golden file, so that a wrong golden file cannot pass."""
    replies = [json.loads(line) for line in (GOLDEN / "analysis.out.jsonl").read_text().splitlines()]
    game = [r for r in replies if r.get("id") == "game" and "turnNumber" in r]
    assert [r["turnNumber"] for r in sorted(game, key=lambda r: r["turnNumber"])] == [0, 1, 3]
    for reply in game:
        assert len(reply["ownership"]) == 81 and len(reply["policy"]) == 82
        assert reply["rootInfo"]["visits"] == 12
        assert sum(info["visits"] for info in reply["moveInfos"]) == 11
        assert [info["order"] for info in reply["moveInfos"]] == list(range(len(reply["moveInfos"])))
        for info in reply["moveInfos"]:
            assert len(info["pvVisits"]) == len(info["pv"]) and info["pvVisits"][0] == info["visits"]
    turn3 = next(r for r in game if r["turnNumber"] == 3)
    assert turn3["rootInfo"]["currentPlayer"] == "W"
    policy = turn3["policy"]
    for vertex in ("E5", "C3", "G4"):  # occupied: -1
        col, row = "ABCDEFGHJ".index(vertex[0]), 9 - int(vertex[1])
        assert policy[row * 9 + col] == -1
    assert sum(p for p in policy if p >= 0) == pytest.approx(1.0, abs=1e-4)
    black_view = next(r for r in replies if r.get("id") == "black-view" and "turnNumber" in r)
    assert black_view["rootInfo"]["currentPlayer"] == "W"
    assert max(len(info["pv"]) for info in black_view["moveInfos"]) == 3  # analysisPVLen 2: two after the first
    assert all(len(info["ownership"]) == 25 for info in black_view["moveInfos"])
    handicap = next(r for r in replies if r.get("id") == "handicap" and "turnNumber" in r)
    assert {"E5", "D4"}.isdisjoint(info["move"] for info in handicap["moveInfos"])
    errors = {r["id"]: r["field"] for r in replies if "error" in r and "id" in r}
    assert errors == {"no-rules": "rules", "stone-scoring": "rules", "unknown-rules": "rules", "bad-move": "moves",
                      "occupied": "moves", "too-big": "boardXSize", "oblong": "boardYSize", "no-moves": "moves",
                      "far-turn": "analyzeTurns", "bad-setting": "overrideSettings"}
    assert sum("error" in r and "id" not in r for r in replies) == 4  # not JSON, not an object, no id, no action
    assert {"id": "queued", "turnNumber": 0, "isDuringSearch": False, "noResults": True} in replies
    assert {"id": "handicap", "field": "typo", "warning": replies[[r.get("field") for r in replies].index("typo")][
        "warning"]} in replies


@pytest.mark.parametrize("bad,field,words", [
    ("{", None, "could not parse input line as json"),
    ('"a string"', None, "not an object"),
    (json.dumps({"moves": []}), None, '"id"'),
    (json.dumps(query(rules="stone-scoring")), "rules", "stone scoring"),
    (json.dumps(query(rules="ing")), "rules", "Spight"),
    (json.dumps(query(rules={"ko": "SIMPLE", "hasButton": True})), "rules", "hasButton"),
    (json.dumps(query(rules={"scoring": "TERRITORY", "tax": "NONE"})), "rules", "tax"),
    (json.dumps(query(moves=[["B", "E5"], ["W", "T19"]])), "moves", "T19"),
    (json.dumps(query(moves=[["X", "E5"]])), "moves", "player"),
    (json.dumps(query(moves=[["B", "E5"], ["W", "E5"]])), "moves", "Illegal move 1: E5"),
    (json.dumps(query(boardXSize=26, boardYSize=26)), "boardXSize", "2 to 25"),
    (json.dumps(query(boardXSize=9, boardYSize=7)), "boardYSize", "Rectangular"),
    (json.dumps({k: v for k, v in query().items() if k != "boardYSize"}), "boardYSize", "2 to 25"),
    (json.dumps(query(komi=7.3)), "komi", "half-integer"),
    (json.dumps(query(maxVisits=0)), "maxVisits", "1 to 2^50"),
    (json.dumps(query(analyzeTurns=[5])), "analyzeTurns", "Invalid turn number: 5"),
    (json.dumps(query(includeOwnership="yes")), "includeOwnership", "boolean"),
    (json.dumps(query(avoidMoves=[{"player": "B"}])), "avoidMoves", "untilDepth"),
    (json.dumps(query(initialStones=[["B", "pass"]])), "initialStones", "pass"),
    (json.dumps(query(overrideSettings={"reportAnalysisWinratesAs": "GREEN"})), "overrideSettings", "BLACK"),
    (json.dumps({"id": "t", "action": "terminate"}), "terminateId", "terminateId"),
])
def test_every_bad_request_gets_katagos_error_form_and_the_engine_keeps_serving(bad: str, field: str | None,
                                                                                words: str) -> None:
    replies = serve([bad, query("after", maxVisits=3)])
    assert len(replies) == 2
    error, after = replies
    assert words in error["error"]
    assert error.get("field") == field and ("id" in error) == (field is not None)
    assert after["id"] == "after" and after["rootInfo"]["visits"] == 3


def test_actions_echo_the_request() -> None:
    replies = serve([{"id": "v", "action": "query_version"}, {"id": "c", "action": "clear_cache", "x": 1},
                     {"id": "t", "action": "terminate_all", "turnNumbers": [3]}])
    assert replies == [{"id": "v", "action": "query_version", "version": package_version(), "git_hash": "<omitted>"},
                       {"id": "c", "action": "clear_cache", "x": 1},
                       {"id": "t", "action": "terminate_all", "turnNumbers": [3]}]


class _Cached(Material):
    """Material with a cache to clear (a network evaluator's)."""

    def __init__(self) -> None:
        super().__init__()
        self.cleared = 0

    def clear_cache(self) -> None:
        self.cleared += 1


def test_clear_cache_clears_every_network_s_cache() -> None:
    evaluator = _Cached()
    replies = serve([query("first", maxVisits=2), {"id": "c", "action": "clear_cache"}], evaluator=evaluator)
    assert {"id": "c", "action": "clear_cache"} in replies and evaluator.cleared == 1


def test_allow_moves_holds_for_its_depth() -> None:
    """White, to reply at ply 2, may answer only C7; black's moves are free: every line's second move is C7."""
    allow = [{"player": "W", "moves": ["C7"], "untilDepth": 2}]
    (reply,) = results(serve([query("allow", moves=[], maxVisits=200, allowMoves=allow)]))
    lines = [info["pv"] for info in reply["moveInfos"]]
    assert len({pv[0] for pv in lines}) > 1 and any(len(pv) > 1 for pv in lines)
    assert all(pv[1] == "C7" for pv in lines if len(pv) > 1 and pv[0] != "C7")


def test_query_models_names_the_networks_loaded() -> None:
    """KataGo's fields, one entry per model file, for the board sizes queried so far."""
    text = "".join(json.dumps(line) + "\n" for line in (
        {"id": "m0", "action": "query_models"}, query("nine"), query("seven", boardXSize=7, boardYSize=7),
        {"id": "m1", "action": "query_models"}))
    out = io.BytesIO()
    evaluator = Material()
    files = {9: "/models/000012-b6c64.safetensors", 7: "/models/000012-b6c64.safetensors"}
    AnalysisSession(CONFIG, lambda rules: evaluator, io.BytesIO(text.encode()), out,
                    model_for=lambda rules: files[rules.size]).run(read_ahead=False)
    replies = {reply["id"]: reply for reply in map(json.loads, out.getvalue().decode().splitlines())}
    assert replies["m0"] == {"id": "m0", "action": "query_models", "models": []}
    assert replies["m1"]["models"] == [{"name": "000012-b6c64.safetensors", "internalName": "000012-b6c64",
                                        "maxBatchSize": CONFIG.concurrent * CONFIG.search.batch_size,
                                        "usesHumanSLProfile": False, "version": 2, "usingFP16": "false"}]


@pytest.mark.parametrize("perspective,flipped", [("SIDETOMOVE", False), ("WHITE", False), ("BLACK", True)])
def test_values_are_from_the_perspective_the_config_asks(perspective: str, flipped: bool) -> None:
    """White to move after two black stones: white's view unless BLACK is asked."""
    white_to_move = query(moves=[["B", "E5"], ["W", "pass"], ["B", "C3"]], maxVisits=6, includeOwnership=True)
    side = results(serve([white_to_move], replace(CONFIG, perspective="SIDETOMOVE")))[0]
    reply = results(serve([white_to_move], replace(CONFIG, perspective=perspective)))[0]
    sign = -1 if flipped else 1
    root, base = reply["rootInfo"], side["rootInfo"]
    assert base["scoreLead"] < 0 and base["winrate"] < 0.5  # white is two stones down
    assert root["scoreLead"] == pytest.approx(sign * base["scoreLead"])
    assert root["utility"] == pytest.approx(sign * base["utility"])
    assert root["winrate"] == pytest.approx(1 - base["winrate"] if flipped else base["winrate"])
    assert reply["ownership"] == pytest.approx([sign * x for x in side["ownership"]])
    for info, mine in zip(reply["moveInfos"], side["moveInfos"]):
        assert info["move"] == mine["move"]
        assert info["scoreLead"] == pytest.approx(sign * mine["scoreLead"])
        assert info["lcb"] == pytest.approx(1 - mine["lcb"] if flipped else mine["lcb"])


def test_override_settings_set_the_perspective_per_query() -> None:
    asked = query(moves=[["B", "E5"]], maxVisits=1, overrideSettings={"reportAnalysisWinratesAs": "BLACK"})
    plain = query(moves=[["B", "E5"]], maxVisits=1)
    lead, plain_lead = (results(serve([q]))[0]["rootInfo"]["scoreLead"] for q in (asked, plain))
    assert (lead, plain_lead) == (1.5, -1.5)  # the network's view of the root alone: white is a stone down


def test_the_highest_priority_goes_first_and_earlier_queries_first_among_equals() -> None:
    one_at_a_time = replace(CONFIG, analysis_threads=1)
    lines = [query("low", priority=-1), query("first", priority=3), query("high", priority=7),
             query("second", priority=3), query("turns", analyzeTurns=[0, 2], priorities=[5, 1])]
    order = [(r["id"], r["turnNumber"]) for r in results(serve(lines, one_at_a_time))]
    assert order == [("high", 2), ("turns", 0), ("first", 2), ("second", 2), ("turns", 2), ("low", 2)]


def test_queries_share_network_batches_up_to_the_thread_setting() -> None:
    lines = [query(f"q{i}", maxVisits=21) for i in range(6)]
    shared, alone = Material(), Material()
    serve(lines, replace(CONFIG, analysis_threads=3), shared)
    serve(lines, replace(CONFIG, analysis_threads=1), alone)
    assert max(alone.sizes) == 4 and len(alone.sizes) == 6 * 6  # per search: its root, then 5 batches of 4
    assert max(shared.sizes) == 12 and len(shared.sizes) == 2 * 6  # three searches per call
    capped = Material()
    serve(lines, replace(CONFIG, analysis_threads=3, max_batch=8), capped)  # nnMaxBatchSize: two searches a call
    assert max(capped.sizes) == 8


def test_the_end_of_the_input_finishes_pending_queries_unless_told_to_quit() -> None:
    lines = [query(f"q{i}", maxVisits=5) for i in range(3)]
    assert len(results(serve(lines))) == 3
    assert serve(lines + ["not json"], quit_without_waiting=True) == [serve(["not json"])[0]]


def test_a_model_without_heads_reports_what_it_has_and_says_so_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="gtp.kata_session"):
        replies = results(serve([query("a", includeOwnership=True, maxVisits=4), query("b", maxVisits=4)],
                                evaluator=UniformEvaluator()))
    assert len(replies) == 2
    for reply in replies:
        assert "scoreLead" not in reply["rootInfo"] and "ownership" not in reply
        assert all("scoreLead" not in info and "winrate" in info for info in reply["moveInfos"])
    assert [r.message for r in caplog.records].count(
        "the network has no score and ownership heads: responses carry no scoreLead, scoreMean, scoreStdev or "
        "ownership") == 1


def test_a_root_policy_temperature_widens_the_priors_but_not_the_policy() -> None:
    plain = results(serve([query(maxVisits=3, includePolicy=True)]))[0]
    wide = results(serve([query(maxVisits=3, includePolicy=True, rootPolicyTemperature=3.0)]))[0]
    assert wide["policy"] == plain["policy"]
    assert wide["moveInfos"][0]["prior"] < plain["moveInfos"][0]["prior"]


class _Slow(Material):
    """Takes 2 ms an evaluation: longer than the report interval below."""

    def evaluate(self, positions: Any, legal: np.ndarray | None = None) -> Evaluation:
        threading.Event().wait(0.002)
        return super().evaluate(positions, legal)


def test_reports_during_the_search_come_before_exactly_one_final_response() -> None:
    replies = serve([query("r", maxVisits=40, reportDuringSearchEvery=0.001)], evaluator=_Slow())
    assert [r["isDuringSearch"] for r in replies][-1] is False
    assert sum(not r["isDuringSearch"] for r in replies) == 1 and len(replies) > 2
    visits = [r["rootInfo"]["visits"] for r in replies]
    assert visits == sorted(visits) and visits[-1] == 40


class _Lines:
    """A binary output that hands each written line to a queue."""

    def __init__(self) -> None:
        self.lines: queue.Queue[dict[str, Any]] = queue.Queue()

    def write(self, data: bytes) -> int:
        for line in data.decode().splitlines():
            self.lines.put(json.loads(line))
        return len(data)

    def flush(self) -> None:
        pass


def test_terminate_stops_a_running_search_which_reports_what_it_found() -> None:
    read, write = os.pipe()
    stdin, out = os.fdopen(read, "rb"), _Lines()
    evaluator = Material(gate_after=5)
    session = AnalysisSession(replace(CONFIG, visits=10**9), lambda rules: evaluator, stdin, out)
    server = threading.Thread(target=session.run, daemon=True)
    server.start()
    with os.fdopen(write, "wb") as pipe:
        for line in (query("long", analyzeTurns=[0, 1, 2], includeOwnership=True), query("other", maxVisits=2)):
            pipe.write(json.dumps(line).encode() + b"\n")
        pipe.flush()
        assert evaluator.reached.wait(60), "the search never started"
        pipe.write(json.dumps({"id": "t", "action": "terminate", "terminateId": "long",
                               "turnNumbers": [0, 1]}).encode() + b"\n")
        pipe.flush()
        replies = [out.lines.get(timeout=60) for _ in range(4)]  # the ack, two partial results and "other"
        assert replies[0] == {"id": "t", "action": "terminate", "terminateId": "long", "turnNumbers": [0, 1]}
        stopped = {r["turnNumber"]: r for r in replies[1:] if r["id"] == "long"}
        assert set(stopped) == {0, 1}
        for reply in stopped.values():
            assert reply["isDuringSearch"] is False and 0 < reply["rootInfo"]["visits"] < 10**9
            assert len(reply["ownership"]) == 81
        pipe.write(json.dumps({"id": "t2", "action": "terminate_all"}).encode() + b"\n")
    last = [out.lines.get(timeout=60) for _ in range(2)]
    assert {r["id"] for r in last} == {"t2", "long"}
    server.join(60)
    assert not server.is_alive()


KATRAIN_CONFIG = """# the settings of KaTrain 1.20's analysis_config.cfg
reportAnalysisWinratesAs = BLACK
conservativePass = true
maxVisits = 500
numAnalysisThreads = 12
numSearchThreads = 8
nnMaxBatchSize = 96
nnCacheSizePowerOfTwo = 20
nnMutexPoolSizePowerOfTwo = 16
nnRandomize = true
"""


def test_katrains_queries_get_analyses_from_the_bundled_networks_heads(tmp_path: Path) -> None:
    """The queries KaTrain 1.20 sent for a three-move 9x9 game and its game review (golden/katrain_queries.jsonl,
    recorded from its KataGoEngine), answered under KaTrain's config with the bundled network."""
    from engine import Rules, bundled_model, load_evaluator
    from gtp.kata_config import apply_settings, read_config

    (tmp_path / "katrain.cfg").write_text(KATRAIN_CONFIG)
    config, unknown = apply_settings(AnalysisConfig(), read_config(tmp_path / "katrain.cfg"))
    assert unknown == ["conservativePass", "nnMutexPoolSizePowerOfTwo"]
    assert config.concurrent == 12 and config.search.batch_size == 8 and config.perspective == "BLACK"
    evaluator = load_evaluator(Rules.go(9), bundled_model(Rules.go(9)), replace(config.evaluator, runtime="eager"))
    lines = (GOLDEN / "katrain_queries.jsonl").read_text().splitlines()
    replies = serve(lines, config, evaluator)
    final = [r for r in replies if r.get("isDuringSearch") is False]
    assert not [r for r in replies if "error" in r or "warning" in r]
    assert sorted(r["id"] for r in final) == sorted(json.loads(line)["id"] for line in lines)
    for reply in final:
        asked = json.loads(lines[[json.loads(line)["id"] for line in lines].index(reply["id"])])
        assert reply["turnNumber"] == asked["analyzeTurns"][0]
        assert reply["rootInfo"]["visits"] == asked["maxVisits"]
        assert len(reply["ownership"]) == 81 and len(reply["policy"]) == 82
        assert reply["moveInfos"] and all(len(info["ownership"]) == 81 for info in reply["moveInfos"])
        assert all({"scoreLead", "scoreMean", "scoreStdev", "winrate", "lcb", "prior", "pv", "utility"} <= set(info)
                   for info in reply["moveInfos"])
    # black's view on every turn (KaTrain forces BLACK): the network gives black 5-7 points more of the board in all
    # these positions (komi pays white for it), so the sum stays positive whoever is to move; in white's view it
    # would be as negative on white's turns
    assert {r["rootInfo"]["currentPlayer"] for r in final} == {"B", "W"}
    assert all(sum(r["ownership"]) > 2 for r in final)


def test_a_closed_output_ends_the_session_after_one_attempt_to_write() -> None:
    gone = ClosedOutput()
    text = "not json\n" + json.dumps(query("q")) + "\n"
    AnalysisSession(CONFIG, lambda rules: Material(), io.BytesIO(text.encode()), gone).run(  # type: ignore[arg-type]
        read_ahead=True)
    assert gone.attempts == 1


@pytest.mark.parametrize("rules,lead", [("chinese", 24.5), ("japanese", 23.5)])
def test_a_game_that_two_passes_ended_answers_its_count(rules: str, lead: float) -> None:
    """Black's C3 owns the 5x5 board and both passed: nothing to search, and the root's score is the count
    under the rules (area 25, territory 24, less komi 0.5) from white's view, exact, so that a host reading the
    lead of every position (KaTrain's points lost) has one for the last."""
    finished = query("end", moves=[["B", "C3"], ["W", "pass"], ["B", "pass"]], boardXSize=5, boardYSize=5,
                     komi=0.5, rules=rules)
    (reply,) = results(serve([finished]))
    root = reply["rootInfo"]
    assert reply["moveInfos"] == [] and root["visits"] == 0 and root["winrate"] == 0.0
    assert root["scoreLead"] == -lead and root["scoreStdev"] == 0.0
