"""The codec alone: GTP 3.1 preprocessing, ids, response framing and the input limits."""

from __future__ import annotations

import pytest

from gtp.protocol import (
    MAX_LINE_BYTES,
    Command,
    GtpError,
    decode_line,
    failure,
    is_interrupt,
    leading_id,
    parse_line,
    preprocess,
    stream_header,
    success,
)


@pytest.mark.parametrize("line,expected", [
    ("play b D4", "play b D4"),
    ("play\tb\tD4", "play b D4"),
    ("play b D4\r", "play b D4"),
    ("pl\x00ay b\x07 D4\x7f", "play b D4"),
    ("  genmove w   # think hard", "genmove w"),
    ("# only a comment", ""),
    ("\t \r", ""),
    ("name#comment", "name"),
    ("ki\x1bomi 6.5", "kiomi 6.5"),
])
def test_preprocess(line: str, expected: str) -> None:
    assert preprocess(line) == expected


def test_control_characters_go_before_the_comment_is_cut() -> None:
    """A control character inside '#' is removed first, so the comment still starts there."""
    assert preprocess("name \x01# x") == "name"
    assert preprocess("komi 7\x0b.5") == "komi 7.5"


@pytest.mark.parametrize("line,command", [
    ("protocol_version", Command(None, "protocol_version", ())),
    ("12 play b D4", Command("12", "play", ("b", "D4"))),
    ("007 name", Command("007", "name", ())),
    ("\t3\tgenmove  w  ", Command("3", "genmove", ("w",))),
    ("-1 name", Command(None, "-1", ("name",))),
    ("1a name", Command(None, "1a", ("name",))),
])
def test_parse_line(line: str, command: Command) -> None:
    assert parse_line(line) == command


def test_empty_lines_and_comments_are_no_command() -> None:
    assert parse_line("") is None
    assert parse_line("   # 12 play b D4") is None


def test_an_id_alone_is_a_syntax_error() -> None:
    with pytest.raises(GtpError, match="syntax error"):
        parse_line("42")


def test_unicode_digits_are_not_an_id() -> None:
    """Only ASCII digits make an id; anything else is the command name."""
    assert parse_line("\u0663 name") == Command(None, "\u0663", ("name",))


def test_success_and_failure_framing() -> None:
    assert success(None) == "= \n\n"
    assert success("5", "D4") == "=5 D4\n\n"
    assert failure("5", "illegal move") == "?5 illegal move\n\n"
    assert failure(None, "two\nlines") == "? two lines\n\n"
    assert stream_header("9") == "=9\n"
    assert stream_header(None) == "=\n"


def test_responses_never_hold_a_blank_line() -> None:
    """A blank line ends a GTP response, so blank lines inside the text are dropped."""
    assert success("1", "a\n\nb\n \n") == "=1 a\nb\n\n"
    assert success(None, "\nboard\n\nrow") == "= \nboard\nrow\n\n"
    assert success(None, "x\r\x00y") == "= xy\n\n"


def test_decode_line_limits() -> None:
    assert decode_line(b"name\n") == "name\n"
    with pytest.raises(GtpError, match="invalid UTF-8"):
        decode_line(b"name \xff\xfe\n")
    with pytest.raises(GtpError, match="line too long"):
        decode_line(b"x" * (MAX_LINE_BYTES + 1))
    assert decode_line("komi 7.5 # \u00e9".encode()) == "komi 7.5 # \u00e9"


@pytest.mark.parametrize("raw,ident", [(b"12 play \xff", "12"), (b"  7\tname", "7"), (b"12x play", None),
                                       (b"play 12", None), (b"\xff12 name", None), (b"33", "33"),
                                       (b"30\r\n", "30")])
def test_leading_id(raw: bytes, ident: str | None) -> None:
    assert leading_id(raw) == ident


@pytest.mark.parametrize("line,expected", [("# interrupt", True), ("  #\tinterrupt\r\n", True),
                                           ("# interrupt\r\n", True), ("#interrupt", False),
                                           ("# interrupted", False), ("\t# interrupt ", True)])
def test_interrupt_line(line: str, expected: bool) -> None:
    assert is_interrupt(line) == expected


@pytest.mark.parametrize("module", ["protocol", "registry", "session", "timecontrol"])
def test_the_protocol_layer_imports_no_engine(module: str) -> None:
    """The codec, the command table, the session and the clocks know nothing of the engine."""
    import ast
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "gtp" / f"{module}.py"
    for node in ast.walk(ast.parse(path.read_text())):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        for name in names:
            assert not name.startswith(("engine", "encoders", "numpy", "torch")), f"gtp/{module}.py imports {name}"
