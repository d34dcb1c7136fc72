"""Opening lists: offsets from the centre, the openings that fit a board, and lines that do not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.formats.openings import fitting_openings, opening_actions, read_openings

LIST = """# three Piskvork openings and a short one
-8,-7, -6,-6, -5,-5
-1,0, 1,1, 0,2

0,0
"""


def test_openings_are_offsets_from_the_centre_in_order(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text(LIST)
    assert read_openings(path) == ("-8,-7, -6,-6, -5,-5", "-1,0, 1,1, 0,2", "0,0")
    assert opening_actions("-1,0, 1,1, 0,2", 15) == (7 * 15 + 6, 8 * 15 + 8, 9 * 15 + 7)   # centre 7,7
    assert opening_actions("0,0", 20) == (10 * 20 + 10,)


def test_only_openings_that_fit_the_board_and_the_distance_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text(LIST)
    assert read_openings(path, 15) == ("-1,0, 1,1, 0,2", "0,0")    # -8 is off a 15x15 board (centre 7)
    assert read_openings(path, 20) == read_openings(path)
    assert read_openings(path, 20, within=1) == ("0,0",)
    assert fitting_openings(read_openings(path), 15) == read_openings(path, 15)
    far = tmp_path / "far.txt"
    far.write_text("-8,-7, -6,-6, -5,-5\n")
    with pytest.raises(ValueError, match="no opening fits the 15x15 board$"):
        read_openings(far, 15)
    with pytest.raises(ValueError, match="no opening fits the 20x20 board within 7 points"):
        read_openings(far, 20, within=7)


@pytest.mark.parametrize("line,message", [
    ("1,2, 3", "line 1: expected 'dx,dy' pairs"),
    ("a,b", "line 1: expected 'dx,dy' pairs"),
    ("0,0, 0,0", "line 1: '0,0, 0,0' names a point twice"),
])
def test_a_line_that_does_not_read_is_an_error_naming_it(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(line + "\n")
    with pytest.raises(ValueError, match=message):
        read_openings(path)


def test_an_opening_off_the_board_does_not_place() -> None:
    with pytest.raises(ValueError, match="does not fit the 15x15 board"):
        opening_actions("-8,0", 15)
