"""Every command in-process: what the golden transcripts cannot pin down (searches, files, versions)."""

from __future__ import annotations

import io
import re
from importlib import metadata
from pathlib import Path

import pytest

from engine.formats.sgf import load_sgf, load_sgf_file
from gtp.commands import build_registry, version_text
from gtp.errors import describe_error
from gtp.registry import Request
from gtp.session import Session
from gtp.state import EngineState
from tests.gtp.helpers import answers, front_end_config, responses, run_session

VERTEX = re.compile(r"^([A-HJ-Z][0-9]{1,2}|pass|resign)$")
INFO_LZ = re.compile(r"^info move (\S+) visits (\d+) winrate (\d+) prior (\d+) lcb (\d+) order (\d+) pv( \S+)+$")


def test_version_satisfies_lizzie_and_names_the_package_version() -> None:
    """Lizzie splits on spaces, then dots, and wants the second number to be at least 15."""
    first = version_text().split(" ")[0]
    assert int(first.split(".")[1]) >= 15
    assert metadata.version("engine") in version_text()


def test_every_listed_command_is_known_and_answers() -> None:
    registry = build_registry()
    names = registry.names()
    assert len(names) == len(set(names))
    for required in ("protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
                     "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score",
                     "final_status_list", "fixed_handicap", "place_free_handicap", "set_free_handicap",
                     "time_settings", "time_left", "loadsgf", "printsgf", "reg_genmove", "cputime",
                     "kgs-time_settings", "kgs-genmove_cleanup", "lz-analyze", "lz-genmove_analyze", "kata-analyze",
                     "kata-genmove_analyze", "analyze", "genmove_analyze", "gogui-analyze_commands",
                     "gogui-interrupt"):
        assert required in registry, required
    assert set(build_registry("gomoku").names()) == set(names) | set(RULER_COMMANDS)
    # Every command GoGui's analyze menu offers exists.
    for line in answers("gogui-analyze_commands\n", size=9)[0].split("\n"):
        assert line.split("/")[2].split()[0] in registry


def test_genmove_honours_the_colour_and_plays_out_of_turn() -> None:
    out = answers("boardsize 9\ngenmove w\ngenmove w\nshowboard\n", size=9)
    assert VERTEX.match(out[1]) and VERTEX.match(out[2])
    board = out[3]
    assert board.count("O") == 2 and board.count("X") == 0
    assert "black to play, 2 moves played" in board


def test_reg_genmove_does_not_play() -> None:
    out = answers("reg_genmove b\nshowboard\n", size=9)
    assert VERTEX.match(out[0])
    assert "0 moves played" in out[1]


def test_genmove_cleanup_does_not_pass_while_dead_stones_remain() -> None:
    """A lone white stone inside black's wall: black keeps playing instead of passing."""
    setup = "".join(f"play b {v}\n" for v in ("C1", "C2", "C3", "C4", "C5", "D5", "E5")) + "play w A1\n"
    out = answers(setup + "final_status_list dead\nkgs-genmove_cleanup b\n", size=5, rules="chinese komi=0.5")
    assert out[-2] == "A1"
    assert out[-1] != "pass" and VERTEX.match(out[-1])


def test_printsgf_round_trips(tmp_path: Path) -> None:
    target = tmp_path / "out game.sgf"
    out = answers(f"boardsize 9\nkomi 6.5\nplay b E5\nplay w C3\nprintsgf\nprintsgf {target}\n", size=9)
    record = load_sgf(out[4])
    assert record.rules.size == 9 and record.rules.komi == 6.5
    assert [(m.color.letter, m.action) for m in record.moves] == [("B", 40), ("W", 56)]
    assert out[5] == ""
    assert load_sgf_file(target).moves == record.moves


def test_loadsgf_move_numbers(tmp_path: Path) -> None:
    (tmp_path / "g.sgf").write_text("(;GM[1]SZ[9]KM[0.5];B[ee];W[cc];B[gc])")
    out = answers(f"loadsgf {tmp_path / 'g.sgf'} 1\nshowboard\nloadsgf {tmp_path / 'g.sgf'} 99\nshowboard\n", size=19)
    assert "0 moves played" in out[1] and "komi 0.5" in out[1]
    assert "3 moves played" in out[3]


def test_loadsgf_of_an_illegal_record_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "bad.sgf").write_text("(;GM[1]SZ[9];B[ee];W[ee])")
    out = answers(f"play b A1\nloadsgf {tmp_path / 'bad.sgf'}\nshowboard\n", size=13)
    assert out[1] == "? cannot load file"
    assert out[2].split("\n")[13].startswith(" 1 X .")  # still 13x13, A1 black
    assert "1 moves played" in out[2]


def test_cputime_is_a_number() -> None:
    assert float(answers("cputime\n", size=9)[0]) >= 0


def test_a_failing_handler_leaves_the_state_unchanged() -> None:
    """A handler that changes the game and then raises: the answer is '?', the game is as before."""
    registry = build_registry()

    def broken(state: EngineState, request: Request) -> str:
        state.game.play(0)
        state.rules = state.rules.resized(5)
        raise RuntimeError("boom")

    registry.add("broken", broken)
    state = EngineState(front_end_config(size=9, visits=8, seed=1))
    state.start(background=False)
    out = io.BytesIO()
    data = b"play b E5\n1 broken\n2 showboard\n3 name\n"
    Session(registry, state, io.BytesIO(data), out, describe_error).run()
    found = responses(out.getvalue().decode())
    assert found[1] == ("?", "1", "internal error: RuntimeError: boom")
    assert "A9" not in found[2][2] and found[2][2].count("X") == 1 and " 9 . . ." in found[2][2]
    assert "1 moves played" in found[2][2]
    assert found[3] == ("=", "3", "engine")


def test_komi_keeps_the_game() -> None:
    out = answers("play b E5\nplay w C3\nkomi 0.5\nshowboard\nundo\nundo\nundo\n", size=9)
    assert "2 moves played" in out[3] and "komi 0.5" in out[3]
    assert out[4:] == ["", "", "? cannot undo"]


def test_play_after_two_passes_goes_on() -> None:
    """GTP has no end of game: after two passes a controller may still play (KGS cleanup, GUIs)."""
    out = answers("play b E5\nplay w pass\nplay b pass\nplay w C3\nshowboard\n", size=9)
    assert out[3] == ""
    assert out[4].count("O") == 1 and out[4].count("X") == 1


def test_going_on_after_two_passes_keeps_the_game(tmp_path: Path) -> None:
    """The moves before the passes stay: genmove goes on too, the game prints and loads whole, and undo goes
    back through the passes."""
    target = tmp_path / "on.sgf"
    out = answers(f"play b E5\nplay w pass\nplay b pass\ngenmove w\nprintsgf {target}\nloadsgf {target}\n"
                  "showboard\nundo\nundo\nshowboard\n", size=9)
    assert VERTEX.match(out[3]) and out[3] not in ("pass", "resign")
    assert out[4:6] == ["", ""]
    assert "black to play, 4 moves played" in out[6] and out[6].count("O") == 1
    assert out[7:9] == ["", ""]
    assert "black to play, 2 moves played" in out[9] and out[9].count("X") == 1 and out[9].count("O") == 0


def test_final_status_list_in_gomoku_is_every_stone() -> None:
    out = answers("play b A1\nplay w B2\nfinal_status_list alive\nfinal_status_list dead\n", game="gomoku", size=7)
    assert out[2].split("\n") == ["B2", "A1"] and out[3] == ""


def test_genmove_analyze_variants_end_with_play() -> None:
    for command in ("lz-genmove_analyze b 1", "genmove_analyze b 1", "kata-genmove_analyze b 1"):
        output = run_session(f"7 {command}\n8 showboard\n", size=9, visits=200)
        head, rest = output.split("\n", 1)
        assert head == "=7"
        stream, after = rest.split("\n\n", 1)
        lines = stream.split("\n")
        assert re.match(r"^play ([A-HJ-T][1-9]|pass)$", lines[-1]), lines[-1]
        for line in lines[:-1]:
            assert line.startswith("info move ")
        assert "1 moves played" in after


def test_genmove_analyze_colour_defaults_to_the_side_to_move() -> None:
    """As in KataGo the colour is optional; a bad one is an error."""
    out = answers("play b E5\nlz-genmove_analyze 10\nshowboard\nkata-genmove_analyze purple 10\n", size=9)
    assert out[1].split("\n")[-1].startswith("play ")
    assert "black to play, 2 moves played" in out[2]
    assert out[3] == "? syntax error: unknown key 'purple'"


def test_analysis_answers_and_stops_at_the_next_command() -> None:
    """In-process the next command is already waiting, so each analysis stops at once and ends its response."""
    output = run_session("1 lz-analyze 10\n2 kata-analyze b 10 ownership true\n3 analyze W 5\n4 name\n", size=9)
    found = responses(output)
    assert [(status, ident) for status, ident, _ in found] == [("=", "1"), ("=", "2"), ("=", "3"), ("=", "4")]
    for _status, _ident, text in found[:3]:
        for line in text.split("\n"):
            assert line == "" or line.startswith("info move ")


def test_gogui_analyze_commands_answer_in_their_formats() -> None:
    out = answers("play b E5\ngogui-policy_heatmap\ngogui-visit_heatmap\ngogui-principal_variation\ngogui-value\n"
                  "gogui-ownership\n", size=9, visits=64)
    policy = out[1].split("\n")
    assert policy[0].startswith("INFLUENCE ") and policy[-1].startswith("TEXT ")
    words = policy[0].split()[1:]
    assert all(VERTEX.match(v) for v in words[0::2]) and all(0 < float(x) <= 1 for x in words[1::2])
    assert "E5" not in words
    visits = out[2].split("\n")
    assert visits[0].startswith("INFLUENCE ") and visits[1].startswith("LABEL ")
    assert sum(int(x) for x in visits[1].split()[2::2]) >= 63
    assert all(VERTEX.match(v) for v in out[3].split())
    assert re.match(r"^white wins \d+\.\d% \(\d+ visits\)$", out[4])
    rows = out[5].split("\n")
    assert len(rows) == 9 and all(len(row.split()) == 9 for row in rows)
    assert float(rows[4].split()[4]) > 0.5  # E5 is black's
    assert all(-1 <= float(x) <= 1 for row in rows for x in row.split())


def test_time_settings_bound_genmove(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lizzie's ``time_settings 0 1 1`` (1 s a move) reaches the search as 1 s less the lag buffer."""
    state = EngineState(front_end_config(size=9, visits=10_000_000, seed=1, lag=0.25))
    state.start(background=False)
    seen: list[float | None] = []
    choose = state.player.choose

    def recording_choose(game, color, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(kwargs["seconds"])
        if kwargs["seconds"] is None:   # untimed, 10 million visits would search until the tree is full
            kwargs["stop"] = lambda: True
        return choose(game, color, **kwargs)

    monkeypatch.setattr(state.player, "choose", recording_choose)
    out = io.BytesIO()
    data = b"genmove b\ntime_settings 0 1 1\ngenmove w\ntime_settings 300 0 0\ntime_left b 100 0\ngenmove b\n"
    Session(build_registry(), state, io.BytesIO(data), out, describe_error).run()
    assert [status for status, _, _ in responses(out.getvalue().decode())] == ["="] * 6
    assert seen[0] is None
    assert seen[1] == pytest.approx(0.75)
    assert seen[2] == pytest.approx(100 / 32 - 0.25)  # 100 s over the 32 moves expected on 79 empty points


RULER_COMMANDS = ("gogui-rules_game_id", "gogui-rules_board_size", "gogui-rules_legal_moves",
                  "gogui-rules_side_to_move", "gogui-rules_final_result", "gogui-rules_board")


def _gogui_sees(game: str) -> tuple[bool, bool]:
    """``(ruler, resizes)`` as GoGui.java decides from ``list_commands`` on attaching a program: it hosts
    it as a game ruler when it lists gogui-rules_game_id, _legal_moves and _side_to_move and the game is
    not Go (isGtpRuler, isGtpCompatibleWithGame), and it sets up a new board of the size the program
    answers to gogui-rules_board_size whenever that is listed."""
    listed = set(answers("list_commands\n", game=game, size=9)[0].split("\n"))
    ruler_commands = {"gogui-rules_game_id", "gogui-rules_legal_moves", "gogui-rules_side_to_move"} <= listed
    compatible = "gogui-rules_game_id" in listed and answers("gogui-rules_game_id\n", game=game)[0].lower() == "go"
    return ruler_commands and not compatible, "gogui-rules_board_size" in listed


def test_gogui_attaches_go_as_a_player_and_gomoku_as_a_ruler() -> None:
    assert _gogui_sees("go") == (False, False)  # as GNU Go: GoGui keeps the user's board and referees itself
    assert _gogui_sees("gomoku") == (True, True)
    assert answers("".join(f"known_command {name}\n" for name in RULER_COMMANDS), size=9) == ["false"] * 6


@pytest.mark.parametrize("command,expected", [("gogui-rules_game_id", "Gomoku"), ("gogui-rules_board_size", "9"),
                                              ("gogui-rules_side_to_move", "black"),
                                              ("gogui-rules_final_result", "unknown")])
def test_rules_commands_for_gomoku(command: str, expected: str) -> None:
    assert answers(command + "\n", game="gomoku", size=9) == [expected]


def test_gomoku_legal_moves_are_the_empty_points() -> None:
    legal = answers("play b E5\nplay w D4\ngogui-rules_legal_moves\n", game="gomoku", size=5)[-1].split()
    assert len(legal) == 23 and "pass" not in legal and "E5" not in legal and "D4" not in legal and "A1" in legal


def test_docs_table_names_every_command() -> None:
    """docs/gtp.md's *Commands* table has a row naming each command of both games' registries."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "gtp.md").read_text()
    table = text[text.index("## Commands"):text.index("Notes on the GTP 2 commands")]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    named = {word.strip("`") for row in rows for word in re.findall(r"`([a-z][\w-]*)", row.split(" | ")[0])}
    for game in ("go", "gomoku"):
        assert set(build_registry(game).names()) - named == set(), game
