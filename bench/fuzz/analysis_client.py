"""The hostile analysis client: fuzzed request lines for ``engine analysis`` and the check of its answers.

The check parses each fuzzed line as the session does (:func:`~gtp.kata_json.parse_request`) to know what it
must answer at once (an error, an echo, warnings) and which analyses it owes; analyses come in any order.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from bench.fuzz.script import (
    INTERNAL_ERROR,
    FrontEnd,
    Script,
    Verdict,
    mutate,
    output_lines,
    random_bytes,
    random_vertex,
)
from engine import action_to_gtp, gtp_to_action
from gtp.kata_config import AnalysisConfig
from gtp.kata_json import MAX_REQUEST_BYTES, Action, ProtocolError, parse_request

__all__ = ["AnalysisFuzz"]

_RULES = ("chinese", "japanese", "tromp-taylor", "korean", "aga", "nz", "stone-scoring", "bogus", "",
          {"ko": "SIMPLE", "scoring": "AREA"}, {"ko": "SPIGHT"}, {"scoring": "TERRITORY", "tax": "SEKI"})
_VALUES: tuple[Any, ...] = (0, 1, -1, 2, 7, 9, 19, 26, 1 << 40, 10 ** 30, -(10 ** 30), 0.5, -0.5, 7.5, 1e300, True,
                            False, None, "", "b", "w", "B", "W", "pass", "A1", "J9", "T19", "Z1", "I5", "\u00e9", [],
                            {}, [0], ["b"], [["B", "E5"]], [["b", "pass"]], [["x", "y", "z"]], {"player": "b"},
                            [{"player": "b", "moves": ["A1"], "untilDepth": 1}],
                            [{"player": "w", "moves": [], "untilDepth": 3}], "chinese", {"ko": 1})
_FIELDS = ("id", "moves", "initialStones", "initialPlayer", "rules", "komi", "whiteHandicapBonus", "boardXSize",
           "boardYSize", "analyzeTurns", "maxVisits", "rootPolicyTemperature", "rootFpuReductionMax", "analysisPVLen",
           "includeOwnership", "includeMovesOwnership", "includePolicy", "includePVVisits", "avoidMoves",
           "allowMoves", "overrideSettings", "reportDuringSearchEvery", "priority", "priorities", "action",
           "terminateId", "turnNumbers", "includeOwnershipStdev", "unusedField")
_SETTINGS: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("maxVisits", (1, 4, "8", 0, -1, "x")), ("maxPlayouts", (2, 0)), ("maxTime", (0.05, 0, -1, "nan")),
    ("numSearchThreads", (1, 4, 0, 5000)), ("reportAnalysisWinratesAs", ("BLACK", "WHITE", "SIDETOMOVE", "x")),
    ("wideRootNoise", (0.0, 0.04, -1)), ("rootPolicyTemperature", (1.5, 0)), ("analysisPVLen", (1, 3, 0, 2000)),
    ("cpuctExploration", (0.5, 0)), ("fpuReductionMax", (0.2,)), ("rootFpuReductionMax", (0.1,)),
    ("nnCacheSizePowerOfTwo", (-1, 4, 99)), ("nnRandomize", (True, "maybe")), ("rules", ("japanese", "x")),
    ("warnUnusedFields", (False, True)), ("someOtherKey", (1,)),
)
_PROBE_PREFIX = "probe-"
_FINAL_ID = "final"


class AnalysisFuzz(FrontEnd):
    """KataGo's JSON analysis protocol (``engine analysis``). ``config`` is the session's (the checker parses
    each fuzzed line as it does, to know what it must answer)."""

    name = "analysis"

    def __init__(self, config: AnalysisConfig = AnalysisConfig()) -> None:
        self.config = config
        self._serial = 0

    def query(self, rng: random.Random) -> dict[str, Any]:
        """A valid query on a small board (it may still fail: a suicide among its moves)."""
        size = rng.choice((5, 7, 9, 9, 9, 13, 19))
        points = rng.sample(range(size * size), rng.randint(0, min(12, size * size - 1)))
        moves = [["BW"[i % 2], action_to_gtp(action, size)] for i, action in enumerate(points)]
        self._serial += 1
        query: dict[str, Any] = {"id": f"q{self._serial}", "moves": moves, "rules": rng.choice(_RULES[:6]),
                                 "komi": rng.choice((7.5, 6.5, 0, -2)), "boardXSize": size, "boardYSize": size,
                                 "maxVisits": rng.randint(1, 12)}
        extras: list[tuple[str, Callable[[], Any]]] = [
            ("analyzeTurns", lambda: sorted(rng.sample(range(len(moves) + 1), rng.randint(1, min(3, len(moves) + 1))))),
            ("includeOwnership", lambda: rng.random() < 0.5), ("includePolicy", lambda: rng.random() < 0.5),
            ("includePVVisits", lambda: True), ("includeMovesOwnership", lambda: True),
            ("priority", lambda: rng.randint(-5, 5)), ("analysisPVLen", lambda: rng.randint(1, 5)),
            ("initialPlayer", lambda: rng.choice("BW")), ("rootPolicyTemperature", lambda: rng.choice((0.5, 2.0))),
            ("reportDuringSearchEvery", lambda: rng.choice((0.001, 0.05))),
            ("avoidMoves", lambda: [{"player": rng.choice("bw"), "moves": [random_vertex(rng, size)],
                                     "untilDepth": 1}]),
            ("allowMoves", lambda: [{"player": "b", "moves": [random_vertex(rng, size), random_vertex(rng, size)],
                                     "untilDepth": 1}]),
            ("overrideSettings", lambda: dict(
                (key, rng.choice(values)) for key, values in rng.sample(_SETTINGS, rng.randint(1, 3)))),
            ("initialStones", lambda: [["B", random_vertex(rng, size)]]), ("whiteHandicapBonus", lambda: "N"),
        ]
        for key, value in rng.sample(extras, rng.randint(0, 4)):
            query[key] = value()
        return query

    def action(self, rng: random.Random) -> dict[str, Any]:
        self._serial += 1
        name = rng.choice(("query_version", "clear_cache", "terminate", "terminate_all"))
        action: dict[str, Any] = {"id": f"a{self._serial}", "action": name}
        if name == "terminate":
            action["terminateId"] = f"q{rng.randint(max(1, self._serial - 10), self._serial)}"
        if name != "query_version" and rng.random() < 0.3:
            action["turnNumbers"] = [rng.randint(0, 3)]
        return action

    def fuzzed(self, rng: random.Random) -> bytes:
        roll = rng.random()
        if roll < 0.25:
            return json.dumps(self.query(rng)).encode()
        if roll < 0.3:
            return json.dumps(self.action(rng)).encode()
        if roll < 0.5:
            query = self.query(rng)
            for _ in range(rng.randint(1, 3)):
                query[rng.choice(_FIELDS)] = rng.choice(_VALUES)
            return json.dumps(query).encode()
        if roll < 0.7:
            return mutate(json.dumps(self.query(rng) if rng.random() < 0.8 else self.action(rng)).encode(), rng)
        if roll < 0.8:
            return random_bytes(rng, rng.randint(0, 60))
        query = json.dumps(self.query(rng))
        deep = rng.randint(33, 3000)
        return rng.choice([
            b"", b"  ", b"{}", b"[]", b"null", b"1", b'"id"', b'{"id": 5}', b'{"id": "x"', b"\xff\xfe{",
            b"[" * 5000 + b"]" * 5000, b"{" * deep, (query[:-1] + ', "x": ' + "[" * deep + "]" * deep + "}").encode(),
            (query[:-1] + ', "x": NaN}').encode(), (query[:-1] + ', "komi": Infinity}').encode(),
            (query[:-1] + ', "x": 1e999}').encode(), (query[:-1] + ', "x": ' + "9" * 5000 + "}").encode(),
            (query[:-1] + ', "x": "\\ud800"}').encode(), b'{"id": "a", "action": "query_version", "k": NaN}',
            query.replace('"moves"', '"moves"' * 2).encode(),
        ] if roll < 0.995 else [   # big lines, rare: they cost reading rather than handling
            b'{"id": "' + b"x" * rng.randint(1000, 100000) + b'", "action": "query_version"}',
            b'{"id": "long", "moves": [' + b'["B", "A1"], ' * (MAX_REQUEST_BYTES // 12) + b"]}",
        ])

    def probe(self, number: int) -> bytes:
        return json.dumps({"id": f"{_PROBE_PREFIX}{number}", "action": "query_version"}).encode()

    def final(self, pairs: Sequence[tuple[bytes, bytes]]) -> list[bytes]:
        return [json.dumps({"id": _FINAL_ID, "moves": [["B", "C3"]], "rules": "tromp-taylor", "komi": 7.5,
                            "boardXSize": 5, "boardYSize": 5, "maxVisits": 16, "includePolicy": True}).encode()]

    def expected(self, line: bytes) -> tuple[str, str | None, Counter[int] | None, int]:
        """What the session answers to ``line`` at once: ``("none" | "error" | "echo" | "query", id, turn
        numbers of a query, warnings of a query)``."""
        if len(line) > MAX_REQUEST_BYTES:
            return "error", None, None, 0
        text = line.decode("utf-8", "replace")
        if not text.strip():
            return "none", None, None, 0
        try:
            request = parse_request(text, self.config)
        except ProtocolError as exc:
            return "error", exc.id, None, 0
        except Exception:  # noqa: BLE001 -- the session's guard answers it with an internal error
            return "error", None, None, 0
        if isinstance(request, Action):
            return "echo", request.request["id"], None, 0
        return "query", request.id, Counter(turn.number for turn in request.turns), len(request.warnings)

    def check(self, script: Script, output: Iterable[bytes]) -> Verdict:
        verdict = Verdict(commands=2 * len(script.pairs) + len(script.final))
        immediate: list[dict[str, Any]] = []
        finals: Counter[tuple[str, int]] = Counter()
        final_reply: dict[str, Any] | None = None
        for line in output_lines(output, verdict):
            try:
                reply = json.loads(line)
            except ValueError:
                verdict.problem(f"not JSON: {line[:80]!r}")
                continue
            if not isinstance(reply, dict):
                verdict.problem(f"not an object: {line[:80]!r}")
                continue
            verdict.internal_errors += str(reply.get("error", "")).startswith(INTERNAL_ERROR)
            if "turnNumber" in reply:
                if not _result_ok(reply):
                    verdict.problem(f"malformed result: {line[:120]!r}")
                if not reply.get("isDuringSearch"):
                    finals[(str(reply.get("id")), reply["turnNumber"])] += 1
                    if reply.get("id") == _FINAL_ID:
                        final_reply = reply
            else:
                immediate.append(reply)
        wanted: Counter[tuple[str, int]] = Counter()
        answers = iter(immediate)
        for index, (line, _probe) in enumerate(script.pairs):
            got = []
            probe_id = f"{_PROBE_PREFIX}{script.first + index}"
            for reply in answers:
                if reply.get("id") == probe_id and reply.get("action") == "query_version":
                    break
                got.append(reply)
            else:   # the output ended before the probe's answer
                verdict.unanswered += 2 * (len(script.pairs) - index)
                break
            verdict.probes += 1
            self._match(line, got, wanted, verdict)
        if script.final:
            wanted[(_FINAL_ID, 1)] += 1
        for key, count in (wanted | finals).items():
            if finals[key] < wanted[key]:
                verdict.unanswered += wanted[key] - finals[key]
                verdict.problem(f"{wanted[key] - finals[key]} of {wanted[key]} analyses of {key} never came")
            elif finals[key] > wanted[key]:
                verdict.problem(f"{finals[key]} analyses of {key}, {wanted[key]} asked for")
        verdict.final_ok = _final_analysis_ok(final_reply, verdict) if script.final else True
        return verdict

    def _match(self, line: bytes, got: list[dict[str, Any]], wanted: Counter[tuple[str, int]],
               verdict: Verdict) -> None:
        kind, ident, turns, warnings = self.expected(line)
        if kind == "none":
            if got:
                verdict.problem(f"{len(got)} answers to a blank line: {got[:2]}")
            return
        if kind == "query" and len(got) == 1 and "error" in got[0] and got[0].get("id") == ident:
            return   # refused after parsing (a board size the network cannot play)
        if kind == "query":
            assert turns is not None and ident is not None
            if len(got) != warnings or any("warning" not in reply or reply.get("id") != ident for reply in got):
                verdict.problem(f"{line[:60]!r}: {warnings} warnings expected, got {got[:3]}")
            for turn, count in turns.items():
                wanted[(ident, turn)] += count
            return
        key = "action" if kind == "echo" else "error"
        if len(got) != 1 or key not in got[0] or got[0].get("id") != ident:
            verdict.problem(f"{line[:60]!r}: one {kind} with id {ident!r} expected, got {got[:3]}")


def _result_ok(reply: dict[str, Any]) -> bool:
    if not isinstance(reply.get("id"), str) or not isinstance(reply["turnNumber"], int):
        return False
    if "error" in reply or reply.get("noResults"):
        return True
    infos, root = reply.get("moveInfos"), reply.get("rootInfo")
    return (isinstance(infos, list) and isinstance(root, dict) and isinstance(root.get("visits"), int)
            and all(isinstance(info, dict) and isinstance(info.get("move"), str) for info in infos))


def _final_analysis_ok(reply: dict[str, Any] | None, verdict: Verdict) -> bool:
    if reply is None or "moveInfos" not in reply:
        verdict.problem(f"final query answered {reply}")
        return False
    moves = [info["move"] for info in reply["moveInfos"]]
    policy = reply.get("policy", [])
    legal = all(move != "C3" and (move == "pass" or gtp_to_action(move, 5) < 25) for move in moves)
    if not moves or not legal or reply["rootInfo"].get("currentPlayer") != "W" or len(policy) != 26 or \
            policy[gtp_to_action("C3", 5)] != -1 or reply["rootInfo"]["visits"] < 16:
        verdict.problem(f"final query on 5x5 after B C3 answered {json.dumps(reply)[:300]}")
        return False
    return True
