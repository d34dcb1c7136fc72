"""Golden transcripts: each ``golden/NAME.gtp`` run in-process must answer exactly ``golden/NAME.out``.

The first line of a transcript, ``# golden: key=value ...``, configures the
engine (options of ``tests.gtp.helpers.front_end_config``; every run has seed 1). The expected answers
were written by hand from the GTP specification and the positions in the
transcripts' comments; they use only commands whose answers do not depend on
search details (or positions whose move is forced). Where a transcript needs a
move that is not forced, its answer is written ``{vertex}``: any vertex, ``pass``
or ``resign``, so that the exchange around it is still checked line by line.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from tests.gtp.helpers import run_session

GOLDEN = Path(__file__).parent / "golden"
VERTEX = "{vertex}"
_VERTEX_PATTERN = r"(?:[A-HJ-Z][1-9][0-9]?|pass|resign)"
_TYPES = {"size": int, "visits": int, "komi": float, "game": str, "rules": str, "network_free": str}


def _config(first_line: str) -> dict[str, object]:
    assert first_line.startswith("# golden:"), "a transcript starts with its '# golden:' line"
    options: dict[str, object] = {}
    for word in first_line.split(":", 1)[1].split():
        key, value = word.split("=", 1)
        options[key] = _TYPES[key](value)
    return options


@pytest.mark.parametrize("name", sorted(p.stem for p in GOLDEN.glob("*.gtp")))
def test_transcript(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = (GOLDEN / f"{name}.gtp").read_bytes()
    expected = (GOLDEN / f"{name}.out").read_text()
    monkeypatch.chdir(GOLDEN)
    output = run_session(data, **_config(data.split(b"\n", 1)[0].decode()))
    pattern = _VERTEX_PATTERN.join(re.escape(part) for part in expected.split(VERTEX))
    if re.fullmatch(pattern, output) is None:
        diff = "\n".join(difflib.unified_diff(expected.split("\n"), output.split("\n"), "expected", "got",
                                              lineterm=""))
        pytest.fail(f"transcript {name} differs:\n{diff}")
