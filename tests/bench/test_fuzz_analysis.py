"""Fuzzing the JSON analysis session: every fuzzed line gets its one error, echo or warnings in order, every
accepted query one result per turn, and a valid query is still analysed correctly (:mod:`bench.fuzz`;
hypothesis is the random source). The regression tests name the lines that ended the session."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.fuzz import AnalysisFuzz, Script, Verdict, make_script
from engine import SearchConfig
from engine.search.evaluator import UniformEvaluator
from gtp import kata_session
from gtp.kata_config import AnalysisConfig
from gtp.kata_json import MAX_DEPTH, MAX_REQUEST_BYTES
from gtp.kata_session import AnalysisSession

CONFIG = AnalysisConfig(visits=8, analysis_threads=2, search=SearchConfig(batch_size=4))
QUERY = {"id": "q", "moves": [["B", "E5"], ["W", "C3"]], "rules": "chinese", "komi": 7.5, "boardXSize": 9,
         "boardYSize": 9, "maxVisits": 8}


def run_session(data: bytes, read_ahead: bool = True) -> bytes:
    out = io.BytesIO()
    AnalysisSession(CONFIG, lambda rules: UniformEvaluator(), io.BytesIO(data), out).run(read_ahead=read_ahead)
    return out.getvalue()


def replies(*lines: bytes | dict[str, Any]) -> list[dict[str, Any]]:
    data = b"".join((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines)
    return [json.loads(line) for line in run_session(data).splitlines()]


def fuzz(script: Script, read_ahead: bool) -> Verdict:
    return AnalysisFuzz(CONFIG).check(script, run_session(script.data(), read_ahead).splitlines())


@given(st.randoms(use_true_random=False), st.integers(1, 16), st.booleans())
def test_fuzzed_lines_each_get_their_answers_and_a_valid_query_is_analysed(rng: random.Random, count: int,
                                                                           read_ahead: bool) -> None:
    verdict = fuzz(make_script(AnalysisFuzz(CONFIG), rng, count), read_ahead)
    assert verdict.clean and not verdict.internal_errors, verdict


def test_a_long_fuzzed_stream() -> None:
    verdict = fuzz(make_script(AnalysisFuzz(CONFIG), random.Random(41), 300), read_ahead=False)
    assert verdict.clean and not verdict.internal_errors and verdict.probes == 300, verdict


def test_the_check_finds_a_lost_result_and_a_wrong_echo() -> None:
    script = make_script(AnalysisFuzz(CONFIG), random.Random(5), 6)
    lines = run_session(script.data()).splitlines()
    assert AnalysisFuzz(CONFIG).check(script, lines).clean
    results = [line for line in lines if b'"turnNumber"' in line]
    assert not AnalysisFuzz(CONFIG).check(script, [line for line in lines if line != results[0]]).clean
    echo = next(line for line in lines if b'"probe-2"' in line)
    assert not AnalysisFuzz(CONFIG).check(script, [line for line in lines if line != echo]).clean


def test_a_deeply_nested_line_gets_an_error_and_the_next_query_is_analysed() -> None:
    first, second = replies(b"[" * 5000 + b"]" * 5000, QUERY)
    assert first == {"error": f"Request nests arrays and objects deeper than {MAX_DEPTH} levels, ignoring"}
    assert second["id"] == "q" and second["turnNumber"] == 2 and second["rootInfo"]["visits"] >= 8


def test_a_deep_structure_in_a_valid_query_gets_an_error_with_its_id() -> None:
    deep = json.dumps({**QUERY, "id": "deep"})[:-1] + ', "overrideSettings": {"x": ' + "[" * 3000 + "]" * 3000 + "}}"
    error, result = replies(deep.encode(), QUERY)
    assert error["id"] == "deep" and "deeper than" in error["error"]
    assert result["id"] == "q"


def test_nesting_is_read_to_its_limit() -> None:
    inside = "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2)
    accepted = json.dumps(QUERY)[:-1] + ', "overrideSettings": {"x": ' + inside + "}}"
    refused = json.dumps(QUERY)[:-1] + ', "overrideSettings": {"x": [' + inside + "]}}"
    warning, error, result = replies(accepted.encode(), refused.encode())   # errors at once, results later
    assert warning == {"id": "q", "field": "overrideSettings", "warning": "Unknown config params: x"}
    assert error["id"] == "q" and "deeper than" in error["error"]
    assert result["id"] == "q" and result["turnNumber"] == 2


@pytest.mark.parametrize("value", [b"NaN", b"Infinity", b"-Infinity", b"1e999"])
def test_a_number_json_cannot_write_back_no_longer_ends_the_session(value: bytes) -> None:
    error, echo = replies(b'{"id": "a", "action": "query_version", "x": ' + value + b"}",
                          {"id": "b", "action": "query_version"})
    assert "could not parse input line as json request" in error["error"]
    assert echo["id"] == "b" and echo["action"] == "query_version"


def test_an_over_long_line_is_refused_and_the_next_one_read() -> None:
    error, echo = replies(b'{"id": "' + b"x" * MAX_REQUEST_BYTES + b'"}', {"id": "b", "action": "clear_cache"})
    assert error == {"error": f"Request line longer than {MAX_REQUEST_BYTES} bytes, ignoring"}
    assert echo == {"id": "b", "action": "clear_cache"}


def test_a_failure_while_handling_a_request_is_answered_with_its_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AnalysisSession, "_act", lambda self, action: {}["missing"])
    error, result = replies({"id": "a", "action": "clear_cache"}, QUERY)
    assert error == {"id": "a", "field": "", "error": "internal error: KeyError: 'missing'"}
    assert result["id"] == "q"


def test_a_search_that_cannot_start_fails_its_turn_only(monkeypatch: pytest.MonkeyPatch) -> None:
    job = kata_session._TurnJob

    def start(query: Any, turn: Any, evaluator: Any, rng: Any) -> Any:
        if query.id == "bad":
            raise IndexError("no such point")
        return job(query, turn, evaluator, rng)

    monkeypatch.setattr(kata_session, "_TurnJob", start)
    found = replies({**QUERY, "id": "bad", "analyzeTurns": [0, 2]}, QUERY)
    errors = sorted((reply["turnNumber"], reply["error"]) for reply in found if reply["id"] == "bad")
    assert errors == [(turn, "internal error: IndexError: no such point") for turn in (0, 2)]
    assert [reply["turnNumber"] for reply in found if reply["id"] == "q"] == [2]
