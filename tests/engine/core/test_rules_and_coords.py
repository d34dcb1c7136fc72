"""Rules strings, coordinates, colours and results: the small value types every layer speaks.

Fixed points come from the GTP and SGF specifications (columns skip I, GTP row 1
is the bottom, SGF counts columns then rows from the top-left), not from the code.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engine.core.coords import (
    action_to_gtp,
    action_to_point,
    action_to_rowcol,
    action_to_sgf,
    gtp_to_action,
    point_to_action,
    rowcol_to_action,
    sgf_to_action,
)
from engine.core.rules import GO_PRESETS, Rules
from engine.core.types import Color, InvalidVertexError, Outcome, RulesError

# ------------------------------------------------------------------ rules
GO_PRESET_TABLE = {  # preset -> (ko, scoring, suicide allowed, komi), as the common rule sets define them
    "tromp-taylor": ("positional", "area", True, 7.5),
    "chinese": ("positional", "area", False, 7.5),
    "japanese": ("simple", "territory", False, 6.5),
    "aga": ("situational", "area", False, 7.5),
    "new-zealand": ("situational", "area", True, 7.0),
}


@pytest.mark.parametrize("preset", sorted(GO_PRESET_TABLE))
def test_go_presets(preset: str) -> None:
    rules = Rules.parse(preset)
    assert (rules.ko, rules.scoring, rules.suicide, rules.komi) == GO_PRESET_TABLE[preset]
    assert (rules.game, rules.size, rules.preset) == ("go", 19, preset)
    assert rules.move_cap == 2 * 19 * 19
    assert Rules.parse(str(rules)) == rules


def test_every_go_preset_is_tested() -> None:
    assert set(GO_PRESETS) == set(GO_PRESET_TABLE)


@pytest.mark.parametrize("variant", ["freestyle", "standard", "renju"])
def test_gomoku_presets(variant: str) -> None:
    rules = Rules.parse(variant)
    assert (rules.game, rules.size, rules.win_length, rules.variant) == ("gomoku", 15, 5, variant)
    assert rules.move_cap == 15 * 15
    assert Rules.parse(str(rules)) == rules


@pytest.mark.parametrize("text, expected", [
    ("chinese komi=6.5", Rules.go(19, "chinese", komi=6.5)),
    ("japanese size=9", Rules.go(9, "japanese")),
    ("tromp-taylor size=5 komi=0", Rules.go(5, "tromp-taylor", komi=0)),
    ("chinese size=9 cap=100", Rules.go(9, "chinese", move_cap=100)),
    ("  Chinese   SIZE=13  ", Rules.go(13, "chinese")),
    ("tt", Rules.go(19, "tromp-taylor")),
    ("korean", Rules.go(19, "japanese")),
    ("nz size=7", Rules.go(7, "new-zealand")),
    ("freestyle size=6 k=4", Rules.gomoku(6, 4, "freestyle")),
    ("standard size=9", Rules.gomoku(9, 5, "standard")),
    ("exact size=10", Rules.gomoku(10, 5, "standard")),
    ("renju", Rules.gomoku(15, 5, "renju")),
])
def test_rules_strings(text: str, expected: Rules) -> None:
    rules = Rules.parse(text)
    assert rules == expected
    assert Rules.parse(str(rules)) == rules


@pytest.mark.parametrize("text, field, value", [
    ("tromp-taylor ko=situational", "ko", "situational"),
    ("chinese ko=simple", "ko", "simple"),
    ("chinese suicide=yes", "suicide", True),
    ("tromp-taylor suicide=no", "suicide", False),
    ("japanese scoring=area", "scoring", "area"),
    ("chinese komi=-2.5", "komi", -2.5),
    ("renju size=11 cap=50", "move_cap", 50),
])
def test_rules_options_override_and_round_trip(text: str, field: str, value: object) -> None:
    rules = Rules.parse(text)
    assert getattr(rules, field) == value
    assert Rules.parse(str(rules)) == rules


def test_size_argument_is_a_default_that_options_override() -> None:
    assert Rules.parse("chinese", size=9).size == 9
    assert Rules.parse("chinese size=13", size=9).size == 13
    assert Rules.parse("renju", size=9).size == 9


@pytest.mark.parametrize("text", [
    "", "   ", "chess", "chinese komi", "chinese =5", "chinese komi=", "chinese foo=1", "chinese komi=abc",
    "chinese komi=0.3", "chinese komi=nan", "chinese komi=inf", "chinese size=1", "chinese size=26",
    "chinese size=abc", "chinese size=9.5", "chinese ko=super", "chinese scoring=stones", "chinese suicide=maybe",
    "chinese cap=0", "freestyle size=4", "freestyle size=26", "freestyle k=2", "freestyle size=6 k=7",
    "freestyle k=abc", "renju cap=-1",
])
def test_bad_rules_strings(text: str) -> None:
    with pytest.raises(RulesError):
        Rules.parse(text)


@pytest.mark.parametrize("build", [
    lambda: Rules.go(1), lambda: Rules.go(26), lambda: Rules.go(0), lambda: Rules.gomoku(4), lambda: Rules.gomoku(26),
    lambda: Rules.go(9, "stones"), lambda: Rules.gomoku(15, 5, "connect6"), lambda: Rules.go(9, komi=0.25),
], ids=["go 1", "go 26", "go 0", "gomoku 4", "gomoku 26", "bad preset", "bad variant", "quarter komi"])
def test_bad_rules_values(build: Callable[[], Rules]) -> None:
    with pytest.raises(RulesError):
        build()


def test_rules_resize() -> None:
    assert Rules.go(19, "japanese").resized(9) == Rules.go(9, "japanese")
    assert Rules.gomoku(15, 5, "renju").resized(9) == Rules.gomoku(9, 5, "renju")
    assert Rules.go(9).num_actions == 82 and Rules.go(9).pass_action == 81


# ------------------------------------------------------------ coordinates
SIZES = [5, 9, 19, 25]


@pytest.mark.parametrize("size", SIZES)
def test_every_point_round_trips(size: int) -> None:
    vertices = set()
    for action in range(size * size + 1):
        vertex = action_to_gtp(action, size)
        vertices.add(vertex)
        assert gtp_to_action(vertex, size) == action
        assert gtp_to_action(vertex.lower(), size) == action
        assert sgf_to_action(action_to_sgf(action, size), size) == action
        if action < size * size:
            row, col = action_to_rowcol(action, size)
            assert rowcol_to_action(row, col, size) == action
            assert point_to_action(action_to_point(action, size), size) == action
            assert vertex == "ABCDEFGHJKLMNOPQRSTUVWXYZ"[col] + str(size - row)
            assert action_to_sgf(action, size) == "abcdefghijklmnopqrstuvwxy"[col] + "abcdefghijklmnopqrstuvwxy"[row]
    assert len(vertices) == size * size + 1
    assert not any("I" in v for v in vertices)


@pytest.mark.parametrize("vertex, size, action", [
    ("A1", 19, 342), ("T19", 19, 18), ("A19", 19, 0), ("T1", 19, 360), ("K10", 19, 180), ("D4", 19, 288),
    ("J9", 9, 8), ("H9", 9, 7), ("J8", 9, 17), ("A1", 9, 72), ("E5", 9, 40),
    ("Z25", 25, 24), ("A25", 25, 0), ("Z1", 25, 624), ("A1", 5, 20), ("E5", 5, 4), ("C3", 5, 12),
    ("pass", 19, 361), ("PASS", 9, 81), ("Pass", 25, 625),
])
def test_known_vertices(vertex: str, size: int, action: int) -> None:
    assert gtp_to_action(vertex, size) == action
    assert action_to_gtp(action, size) == ("pass" if action == size * size else vertex.upper())


@pytest.mark.parametrize("point, size, action", [
    ("aa", 19, 0), ("sa", 19, 18), ("as", 19, 342), ("ss", 19, 360), ("dp", 19, 15 * 19 + 3),
    ("ii", 9, 80), ("ia", 9, 8), ("yy", 25, 624), ("tt", 19, 361), ("", 19, 361), ("", 25, 625),
    ("tt", 25, 19 * 25 + 19),
])
def test_known_sgf_points(point: str, size: int, action: int) -> None:
    assert sgf_to_action(point, size) == action


@pytest.mark.parametrize("vertex, size", [
    ("I5", 19), ("Z1", 19), ("U1", 19), ("A0", 19), ("A20", 19), ("", 19), ("D", 19), ("4D", 19), ("pass1", 19),
    ("J10", 9), ("K1", 9), ("A-1", 9), ("A+1", 9), ("AA1", 25), ("A26", 25), ("resign", 19), ("A 1", 19),
    ("A\u00b2", 19), ("A\u0661", 19),  # a superscript two and an Arabic-Indic one are digits to str.isdigit
])
def test_bad_vertices(vertex: str, size: int) -> None:
    with pytest.raises(InvalidVertexError):
        gtp_to_action(vertex, size)


@pytest.mark.parametrize("point, size", [("ta", 19), ("at", 19), ("zz", 25), ("a", 19), ("abc", 19), ("A1", 19),
                                         ("AA", 19), ("jj", 9)])
def test_bad_sgf_points(point: str, size: int) -> None:
    with pytest.raises(InvalidVertexError):
        sgf_to_action(point, size)


@pytest.mark.parametrize("action, size", [(-1, 9), (82, 9), (362, 19)])
def test_bad_actions(action: int, size: int) -> None:
    with pytest.raises(InvalidVertexError):
        action_to_gtp(action, size)
    with pytest.raises(InvalidVertexError):
        action_to_sgf(action, size)


def test_bad_board_sizes_for_coordinates() -> None:
    with pytest.raises(InvalidVertexError):
        gtp_to_action("A1", 26)
    with pytest.raises(InvalidVertexError):
        action_to_gtp(0, 0)


# ------------------------------------------------------- colours and results
@pytest.mark.parametrize("text, color", [("b", Color.BLACK), ("B", Color.BLACK), ("black", Color.BLACK),
                                         (" Black ", Color.BLACK), ("w", Color.WHITE), ("WHITE", Color.WHITE)])
def test_color_parse(text: str, color: Color) -> None:
    assert Color.parse(text) is color
    assert color.opponent.opponent is color and color.opponent is not color


@pytest.mark.parametrize("text", ["", "x", "bl", "1", "blackwhite"])
def test_color_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        Color.parse(text)


def test_color_letters() -> None:
    assert (Color.BLACK.letter, Color.WHITE.letter) == ("B", "W")
    assert (int(Color.BLACK), int(Color.WHITE)) == (1, 2)


@pytest.mark.parametrize("text, outcome, written", [
    ("B+3.5", Outcome(Color.BLACK, 3.5, "score"), "B+3.5"),
    ("W+0.5", Outcome(Color.WHITE, 0.5, "score"), "W+0.5"),
    ("W+12", Outcome(Color.WHITE, 12.0, "score"), "W+12"),
    ("W+R", Outcome(Color.WHITE, None, "resign"), "W+R"),
    ("b+resign", Outcome(Color.BLACK, None, "resign"), "B+R"),
    ("B+T", Outcome(Color.BLACK, None, "time"), "B+T"),
    ("W+Time", Outcome(Color.WHITE, None, "time"), "W+T"),
    ("B+F", Outcome(Color.BLACK, None, "forfeit"), "B+F"),
    ("B+", Outcome(Color.BLACK, None, "score"), "B+"),
    ("0", Outcome(None, 0.0, "score"), "0"),
    ("Draw", Outcome(None, 0.0, "score"), "0"),
    ("jigo", Outcome(None, 0.0, "score"), "0"),
])
def test_outcome_sgf(text: str, outcome: Outcome, written: str) -> None:
    assert Outcome.from_sgf(text) == outcome
    assert outcome.to_sgf() == written
    assert Outcome.from_sgf(written) == outcome


@pytest.mark.parametrize("text", ["", "?", "Void", "X+3", "B3.5", "B+abc"])
def test_outcome_sgf_unknown(text: str) -> None:
    assert Outcome.from_sgf(text) is None


def test_outcome_from_lead_and_values() -> None:
    assert Outcome.from_lead(3.5) == Outcome(Color.BLACK, 3.5, "score")
    assert Outcome.from_lead(-0.5) == Outcome(Color.WHITE, 0.5, "score")
    assert Outcome.from_lead(0).winner is None
    win = Outcome(Color.WHITE, None, "five")
    assert (win.value_for(Color.WHITE), win.value_for(Color.BLACK)) == (1.0, -1.0)
    assert Outcome(None, 0.0, "full-board").value_for(Color.BLACK) == 0.0
    assert win.to_sgf() == "W+"
