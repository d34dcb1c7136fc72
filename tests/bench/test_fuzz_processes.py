"""Each front end as a real process (``engine analysis``, ``engine gtp``, ``engine gomocup``) under a short fuzzed
stream, as ``engine bench fuzz`` drives it; the driver's count of a death; and the line that once killed
``engine analysis``."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from click.testing import CliRunner

from bench.fuzz import GomocupFuzz, engine_argv, fuzz_process, make_script
from engine.cli import main

FAST = ["--model", "uniform", "--seed", "1", "--log-level", "error"]


def test_engine_bench_fuzz_finds_every_front_end_alive_and_answering() -> None:
    result = CliRunner().invoke(main, ["bench", "fuzz", "--lines", "60", "--seed", "7", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output.splitlines()[-1])["results"]
    assert [row["front_end"] for row in rows] == ["analysis", "gtp", "gomocup"]
    for row in rows:
        counts = [row[key] for key in ("deaths", "hangs", "unanswered", "problems", "internal_errors")]
        assert counts == [0, 0, 0, 0, 0] and row["final_ok"] and row["commands"] > 30, row


def test_engine_analysis_answers_the_deeply_nested_line_and_analyses_the_next_query() -> None:
    query = {"id": "after", "moves": [["B", "C3"]], "rules": "chinese", "boardXSize": 5, "boardYSize": 5,
             "maxVisits": 8}
    data = b"[" * 5000 + b"]" * 5000 + b"\n" + json.dumps(query).encode() + b"\n"
    done = subprocess.run(engine_argv("analysis", *FAST), input=data, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    error, result = (json.loads(line) for line in done.stdout.splitlines())
    assert "deeper than" in error["error"]
    assert result["id"] == "after" and result["rootInfo"]["currentPlayer"] == "W"


def test_a_process_that_dies_is_counted_and_a_fresh_one_goes_on(tmp_path: Path) -> None:
    """A stand-in brain that exits on ``TURN 1,1``: the driver counts the death, names the line and carries on
    after it."""
    script = tmp_path / "brain.py"
    script.write_text("import sys\n"
                      "for line in sys.stdin:\n"
                      "    word = line.split()[0] if line.split() else ''\n"
                      "    if line.strip() == 'TURN 1,1':\n"
                      "        sys.exit(3)\n"
                      "    answer = {'ABOUT': 'name=\"stand-in\"', 'START': 'OK', 'RESTART': 'OK', 'BEGIN': '1,2',\n"
                      "              'DONE': '3,4', 'TURN': '5,6'}.get(word)\n"
                      "    if answer:\n"
                      "        print(answer, flush=True)\n")
    front_end = GomocupFuzz()
    plan = make_script(front_end, random.Random(0), 3)
    plan = type(plan)(((b"START 15", b"ABOUT"), (b"TURN 1,1", b"ABOUT"), (b"TURN 2,2", b"ABOUT")), plan.final)
    outcome = fuzz_process(["python3", str(script)], front_end, plan, stall=30)
    assert outcome.deaths == 1 and outcome.killers == ["b'TURN 1,1'"]
    assert outcome.unanswered == 2 and outcome.final_ok
