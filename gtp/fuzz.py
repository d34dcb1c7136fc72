"""Hostile clients for the front ends: fuzzed input, and the check that every command got one answer, in order.

A :class:`Script` is what a client sends: each fuzzed line followed by a
*probe*, a valid command whose answer is known (GTP ``protocol_version``,
Gomocup ``ABOUT``, a JSON ``query_version`` action), so that whatever comes
between two probes' answers answers the one fuzzed line between them; then a
few valid commands whose answers must be right (a move on the board, an
analysis of the position). Fuzzed lines mix valid commands, commands with
random arguments, valid commands with random edits, random bytes and hostile
lines (over-long, control characters, invalid UTF-8, deep JSON, NaN); none
ends the conversation (``quit``, ``END``).

:meth:`FrontEnd.check` reads a front end's output against its script: a
command the protocol answers must get exactly one well-formed answer before
the next probe's (echoing its id), one it does not answer (an empty line, a
``BOARD`` line, a JSON query's results come later) none; JSON analyses are
counted by query id and turn. ``engine bench fuzz`` sends 100,000 fuzzed
lines into each real process; the tests drive the sessions in process, with
hypothesis as the random source (:func:`make_script` takes any
:class:`random.Random`).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import action_to_gtp, gtp_to_action
from gtp.kata_config import AnalysisConfig
from gtp.kata_json import MAX_REQUEST_BYTES, Action, ProtocolError, parse_request
from gtp.protocol import MAX_LINE_BYTES, GtpError, decode_line, leading_id, parse_line

__all__ = ["Script", "Verdict", "FrontEnd", "GtpFuzz", "GomocupFuzz", "AnalysisFuzz", "make_script", "mutate",
           "ProcessReport", "fuzz_process", "engine_argv"]

_MAX_PROBLEMS = 20
_INTERNAL = "internal error"


@dataclass(frozen=True)
class Script:
    """Fuzzed lines, each followed by a probe, then the final valid commands; ``first`` numbers the first pair
    (a script resumed after a death keeps its probes' numbers). A fuzzed Gomocup ``BOARD`` block spans lines."""

    pairs: tuple[tuple[bytes, bytes], ...]
    final: tuple[bytes, ...]
    first: int = 0

    def data(self) -> bytes:
        """Everything sent, one line feed after each line."""
        return b"".join(line + b"\n" for pair in self.pairs for line in pair) + b"".join(
            line + b"\n" for line in self.final)

    def resumed(self, pair: int) -> "Script":
        """The script from pair number ``pair`` on."""
        return Script(self.pairs[pair - self.first:], self.final, pair)


@dataclass
class Verdict:
    """How a front end answered a script. ``commands``: the commands sent that the protocol answers;
    ``unanswered``: those whose answer never came; ``problems``: malformed, extra or wrong answers (the first
    few); ``probes``: the probes answered in order (a death happened after the last of them); ``final_ok``:
    whether the final valid commands got correct answers; ``internal_errors``: answers saying that a front end's
    guard caught an unexpected failure (well-formed, but each one a bug)."""

    commands: int = 0
    unanswered: int = 0
    problems: list[str] = field(default_factory=list)
    problem_count: int = 0
    internal_errors: int = 0
    probes: int = 0
    final_ok: bool = False

    def problem(self, text: str) -> None:
        self.problem_count += 1
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append(text)

    @property
    def clean(self) -> bool:
        """Every command answered once, well-formed, in order, and the final commands correctly."""
        return not self.unanswered and not self.problem_count and self.final_ok


class FrontEnd:
    """One protocol's fuzzed lines, probes, final commands and output check."""

    name = ""

    def fuzzed(self, rng: random.Random) -> bytes:
        raise NotImplementedError

    def probe(self, number: int) -> bytes:
        raise NotImplementedError

    def final(self, pairs: Sequence[tuple[bytes, bytes]]) -> list[bytes]:
        raise NotImplementedError

    def check(self, script: Script, output: Iterable[bytes]) -> Verdict:
        """The verdict on ``output``, the front end's output lines (line feeds optional)."""
        raise NotImplementedError


def make_script(front_end: FrontEnd, rng: random.Random, count: int) -> Script:
    """``count`` fuzzed lines with their probes, and the front end's final commands."""
    pairs = tuple((front_end.fuzzed(rng), front_end.probe(number)) for number in range(count))
    return Script(pairs, tuple(front_end.final(pairs)))


# ---------------------------------------------------------------- mutations
_EDIT_BYTES = bytes(b for b in range(256) if b != 0x0A and not 0x30 <= b <= 0x39)
"""Bytes an edit may insert: anything but a line feed (one line stays one line) and digits (an edit must not
turn a visit count into a search of hours)."""
_EDIT_TEXT = bytes(b for b in _EDIT_BYTES if 0x20 <= b < 0x7F)


def _edit_byte(rng: random.Random) -> int:
    """Mostly printable ASCII, so that edited lines still decode and reach the parsers."""
    return rng.choice(_EDIT_TEXT if rng.random() < 0.8 else _EDIT_BYTES)


def mutate(line: bytes, rng: random.Random, edits: int = 3) -> bytes:
    """``line`` with 1 to ``edits`` random byte edits: deletions, insertions, replacements, swaps, a cut."""
    data = bytearray(line)
    for _ in range(rng.randint(1, edits)):
        kind = rng.randrange(5)
        where = rng.randrange(len(data) + 1)
        if kind == 0 and data:
            del data[min(where, len(data) - 1):where + rng.randint(1, 4)]
        elif kind == 1:
            data[where:where] = bytes([_edit_byte(rng)])
        elif kind == 2 and data:
            data[min(where, len(data) - 1)] = _edit_byte(rng)
        elif kind == 3 and len(data) > 1:
            a, b = rng.randrange(len(data)), rng.randrange(len(data))
            data[a], data[b] = data[b], data[a]
        elif kind == 4:
            del data[where:]
    return bytes(data)


def _random_bytes(rng: random.Random, size: int) -> bytes:
    return bytes(rng.choice(_EDIT_BYTES + b"0123456789") for _ in range(size))


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _lines(output: Iterable[bytes], verdict: Verdict) -> Iterator[str]:
    """The output's lines; a control character in one (a line break a client may split on) is a problem."""
    for raw in output:
        line = raw.decode("utf-8", "replace").removesuffix("\n")
        if _CONTROL.search(line):
            verdict.problem(f"control character in the output line {line[:80]!r}")
        yield line


def _final_failed(verdict: Verdict, text: str) -> None:
    verdict.final_ok = False
    verdict.problem(f"final command: {text}")


# ---------------------------------------------------------------------- GTP
_COLORS = ("b", "w", "black", "white", "B", "W")
_GTP_WORDS = ("b", "w", "black", "WHITE", "pass", "resign", "D4", "A1", "T19", "Z99", "I5", "j9", "E5", "A0", "0",
              "-1", "1", "2", "3", "7.5", "1e400", "nan", "inf", "-inf", "10", "100", "ownership", "true", "false",
              "interval", "minmoves", "maxmoves", "avoid", "allow", "alive", "dead", "seki", "pv", "rootInfo",
              "movesOwnership", "99999999999999999999", "#", "\t", "\u00e9", "\x00", "\x1b[2J", ",", "a:b")
_GTP_FINAL_ID = 990000000
_GTP_PROBE_ID = 1000000000


def _vertex(rng: random.Random, size: int = 19) -> str:
    if rng.random() < 0.05:
        return "pass"
    return action_to_gtp(rng.randrange(size * size), size)


_SGF_FILES = {"game.sgf": b"(;GM[1]SZ[9]KM[7.5];B[ee];W[cc];B[gc])", "truncated.sgf": b"(;GM[1]SZ[9];B[ee];W[c",
              "deep.sgf": b"(;GM[1]SZ[9]" + b"(;B[aa]" * 3000 + b")" * 3001, "garbage.sgf": bytes(range(256)) * 4,
              "empty.sgf": b"", "huge-comment.sgf": b"(;GM[1]SZ[9]C[" + b"x" * (1 << 20) + b"];B[ee])",
              "big-board.sgf": b"(;GM[1]SZ[99999999999999999999];B[ee])", "off-board.sgf": b"(;GM[1]SZ[9];B[zz])"}


class GtpFuzz(FrontEnd):
    """GTP (``engine gtp``, Go). ``names``: the commands to fuzz (the session's ``list_commands``). With a
    ``scratch`` folder, ``loadsgf`` reads hostile SGF files written there (and a folder, a missing file,
    ``/dev/zero``) and ``printsgf`` writes there; without one, no fuzzed command touches a file."""

    name = "gtp"

    def __init__(self, names: Sequence[str], scratch: Path | None = None) -> None:
        self.names = [name for name in names if name not in ("quit", "loadsgf", "printsgf")]
        self.scratch = scratch
        self.sgf_files: list[Path] = []
        if scratch is not None:
            for file_name, data in _SGF_FILES.items():
                (scratch / file_name).write_bytes(data)
            self.sgf_files = [scratch / file_name for file_name in _SGF_FILES] + [
                scratch, scratch / "missing.sgf", Path("/dev/zero")]

    def valid(self, rng: random.Random) -> str:
        """A valid command (it may still fail: an occupied point, an undo with nothing to undo)."""
        color = rng.choice(_COLORS)
        choices: list[Callable[[], str]] = [
            lambda: f"play {color} {_vertex(rng)}", lambda: f"play {color} {_vertex(rng, 9)}",
            lambda: f"genmove {color}", lambda: f"reg_genmove {color}", lambda: f"kgs-genmove_cleanup {color}",
            lambda: f"boardsize {rng.choice((9, 9, 9, 5, 7, 13, 19, 25, 2))}", lambda: "clear_board",
            lambda: "undo", lambda: "showboard", lambda: "final_score", lambda: "final_status_list dead",
            lambda: f"komi {rng.choice(('7.5', '6.5', '0', '-3.5', '150'))}",
            lambda: f"fixed_handicap {rng.randint(2, 9)}", lambda: f"place_free_handicap {rng.randint(2, 9)}",
            lambda: f"set_free_handicap {_vertex(rng, 9)} {_vertex(rng, 9)}",
            lambda: f"time_settings {rng.randint(0, 60)} {rng.randint(0, 10)} {rng.randint(0, 5)}",
            lambda: "kgs-time_settings none", lambda: f"kgs-time_settings byoyomi 10 {rng.randint(1, 5)} 3",
            lambda: f"time_left {color} {rng.randint(0, 30)} {rng.randint(0, 3)}",
            lambda: f"lz-analyze {rng.randint(1, 50)}", lambda: "kata-analyze interval 10 ownership true",
            lambda: f"analyze {color} 10", lambda: f"lz-genmove_analyze {color} 10",
            lambda: f"kata-genmove_analyze {color} 10", lambda: "heatmap", lambda: "kata-raw-nn 0",
            lambda: "gogui-analyze_commands", lambda: "gogui-value", lambda: "gogui-ownership",
            lambda: "gogui-policy_heatmap", lambda: "gogui-principal_variation", lambda: "name", lambda: "version",
            lambda: "list_commands", lambda: f"known_command {rng.choice(self.names or ['name'])}",
            lambda: "protocol_version", lambda: "cputime",
        ]
        if self.sgf_files:
            choices.append(lambda: f"loadsgf {rng.choice(self.sgf_files)} {rng.choice(('', '1', '10', '999'))}")
        if self.scratch is not None:
            choices.append(lambda: f"printsgf {self.scratch / 'game.sgf'}")
        return rng.choice(choices)()

    def fuzzed(self, rng: random.Random) -> bytes:
        while True:
            line = self._candidate(rng)
            command = self._command(line)
            if command is None or command.name != "quit":
                return line

    def _candidate(self, rng: random.Random) -> bytes:
        ident = f"{rng.randrange(10 ** rng.randint(1, 6))} " if rng.random() < 0.3 else ""
        roll = rng.random()
        if roll < 0.3:
            return (ident + self.valid(rng)).encode()
        if roll < 0.55 and self.names:
            words = [rng.choice(self.names)] + [rng.choice(_GTP_WORDS) for _ in range(rng.randint(0, 5))]
            return (ident + " ".join(words)).encode("utf-8", "surrogatepass")
        if roll < 0.75:
            return mutate((ident + self.valid(rng)).encode(), rng)
        if roll < 0.85:
            return _random_bytes(rng, rng.randint(0, 80))
        return rng.choice([
            b"", b"   ", b"\t", b"# interrupt", b"# a comment", b"12", b"007", b"\r", b"name\r", b"\xff\xfe\xfd",
            b"play b \xc3", b"pla\x00y b D4", b"\x1b[31mname", b"12 genmove b # comment", b"-1 name",
            b"99999999999999999999999999999 name", b"name " + b"x" * 1000,
            b"known_command " + b"a" * (MAX_LINE_BYTES - 15), b"komi " + b"9" * (MAX_LINE_BYTES + 10),
            b"1 " + b"\xff" * (MAX_LINE_BYTES + rng.randint(1, 100)),
        ])

    @staticmethod
    def _command(line: bytes) -> Any:
        try:
            return parse_line(decode_line(line))
        except GtpError:
            return None

    @staticmethod
    def expected(line: bytes) -> tuple[bool, str | None]:
        """Whether a GTP session answers ``line``, and the id the answer echoes."""
        try:
            command = parse_line(decode_line(line))
        except GtpError:
            return True, leading_id(line)
        return (False, None) if command is None else (True, command.id)

    def probe(self, number: int) -> bytes:
        return f"{_GTP_PROBE_ID + number} protocol_version".encode()

    def final(self, pairs: Sequence[tuple[bytes, bytes]]) -> list[bytes]:
        commands = ["kgs-time_settings none", "boardsize 9", "clear_board", "komi 7.5", "play b E5", "genmove w",
                    "protocol_version"]
        return [f"{_GTP_FINAL_ID + i} {command}".encode() for i, command in enumerate(commands)]

    def check(self, script: Script, output: Iterable[bytes]) -> Verdict:
        answered = [self.expected(line)[0] for line, _ in script.pairs]
        verdict = Verdict(commands=sum(answered) + len(script.pairs) + len(script.final))
        responses = _gtp_responses(_lines(output, verdict), verdict)
        for index, (line, _probe) in enumerate(script.pairs):
            wanted, ident = self.expected(line)
            probe_id = str(_GTP_PROBE_ID + script.first + index)
            got = []
            for response in responses:
                if response[:2] == ("=", probe_id):
                    if response[2] != "2":
                        verdict.problem(f"probe {probe_id} answered {response}")
                    break
                got.append(response)
            else:   # the output ended before the probe's answer
                verdict.unanswered += (wanted and not got) + 1 + sum(answered[index + 1:]) + len(
                    script.pairs) - index - 1 + len(script.final)
                return verdict
            verdict.probes += 1
            if wanted and not got:
                verdict.unanswered += 1
                verdict.problem(f"no answer to {line[:60]!r}")
            elif len(got) > wanted:
                verdict.problem(f"{len(got)} answers to {line[:60]!r}: {got[:3]}")
            elif got and got[0][1] != ident:
                verdict.problem(f"answer {got[0]} to {line[:60]!r} does not echo its id {ident}")
        finals = list(responses)
        verdict.unanswered += max(0, len(script.final) - len(finals))
        verdict.final_ok = self._final_ok(finals, verdict) if script.final else not finals
        return verdict

    def _final_ok(self, finals: list[tuple[str, str | None, str]], verdict: Verdict) -> bool:
        if len(finals) != 7:
            verdict.problem(f"final commands: {len(finals)} answers, not 7")
            return False
        ids = [str(_GTP_FINAL_ID + i) for i in range(7)]
        if [(status, ident) for status, ident, _ in finals] != [("=", ident) for ident in ids]:
            verdict.problem(f"final commands failed: {finals}")
            return False
        move = finals[5][2]
        try:
            legal = move.lower() != "e5" and (move.lower() == "pass" or gtp_to_action(move, 9) < 81)
        except ValueError:
            legal = False
        if not legal or finals[6][2] != "2":
            verdict.problem(f"final genmove w on 9x9 after b E5 answered {move!r}")
            return False
        return True


_RESPONSE = re.compile(r"([=?])(\d*)(?: (.*))?$")


def _gtp_responses(lines: Iterable[str], verdict: Verdict) -> Iterator[tuple[str, str | None, str]]:
    """``(status, id, text)`` of each response in the output; a block that is not a response is a problem."""
    block: list[str] = []
    for line in lines:
        if line:
            block.append(line)
            continue
        if not block:
            continue
        match = _RESPONSE.match(block[0])
        if match is None:
            verdict.problem(f"not a GTP response: {block[:3]}")
        else:
            text = "\n".join([match.group(3) or ""] + block[1:]).strip()
            verdict.internal_errors += match.group(1) == "?" and text.startswith(_INTERNAL)
            yield match.group(1), match.group(2) or None, text
        block = []
    if block:
        verdict.problem(f"output ends inside a response: {block[:3]}")


# ------------------------------------------------------------------ Gomocup
_MOVE = re.compile(r"^\d+,\d+$")
_ABOUT = 'name="'
_GOMOCUP_INFO = ("timeout_turn", "timeout_match", "time_left", "max_memory", "rule", "game_type", "folder",
                 "evaluate", "unknown_key")


def _point(rng: random.Random, size: int = 15) -> str:
    low, high = (-2, size + 2) if rng.random() < 0.1 else (0, size - 1)
    return f"{rng.randint(low, high)},{rng.randint(low, high)}"


def _command_word(line: str) -> str:
    words = line.split(None, 1)
    return words[0].upper() if words else ""


class GomocupFuzz(FrontEnd):
    """The Gomocup protocol (``engine gomocup``)."""

    name = "gomocup"

    def valid(self, rng: random.Random) -> str:
        size = rng.choice((15, 15, 15, 20, 9, 5, 19))
        choices: list[Callable[[], str]] = [
            lambda: f"START {size}", lambda: f"RECTSTART {size},{rng.choice((size, size, 10))}", lambda: "RESTART",
            lambda: "BEGIN", lambda: f"TURN {_point(rng)}", lambda: f"TURN {_point(rng)}",
            lambda: f"PLAY {_point(rng)}",
            lambda: f"TAKEBACK {_point(rng)}", lambda: "ABOUT",
            lambda: f"INFO {rng.choice(_GOMOCUP_INFO)} {rng.choice(('0', '1', '4', '8', '500', '2000', '-5', 'x'))}",
            lambda: "\n".join(["BOARD"] + [f"{_point(rng)},{rng.choice('12213')}" for _ in range(rng.randint(0, 8))]
                              + ["DONE"]),
        ]
        return rng.choice(choices)()

    def fuzzed(self, rng: random.Random) -> bytes:
        """A fuzzed line; a ``BOARD`` it leaves open is mostly closed by a ``DONE`` line, so that the lines after
        it are mostly commands rather than stones."""
        while True:
            line = self._candidate(rng)
            if not any(_command_word(part.decode("utf-8", "replace")) == "END" for part in line.split(b"\n")):
                break
        return line + b"\nDONE" if self._board_open([line]) and rng.random() < 0.8 else line

    def _candidate(self, rng: random.Random) -> bytes:
        roll = rng.random()
        if roll < 0.4:
            return self.valid(rng).encode()
        if roll < 0.6:
            words = [rng.choice(("START", "TURN", "BEGIN", "BOARD", "DONE", "INFO", "TAKEBACK", "PLAY", "RESTART",
                                 "ABOUT", "RECTSTART", "turn", "Start", "XYZZY"))]
            words += [rng.choice(_GTP_WORDS + ("7,7", "7,7,1", "99,99", "-1,-1", "1,2,3", ",", "15"))
                      for _ in range(rng.randint(0, 3))]
            return " ".join(words).encode("utf-8", "surrogatepass")
        if roll < 0.8:
            return mutate(self.valid(rng).encode(), rng)
        if roll < 0.9:
            return _random_bytes(rng, rng.randint(0, 60))
        return rng.choice([
            b"", b"  ", b"\r", b"TURN 7,7\r", b"\x00", b"TURN \x007,7", b"TU\x1bRN 7,7", b"ABOUT\x07\rMESSAGE hi",
            b"\xff\xfe", b"START " + b"9" * 5000, b"INFO time_left " + b"9" * 5000, b"BOARD",
            b"BOARD\n" + b"\n".join(f"{i % 15},{i // 15},1".encode() for i in range(240)) + b"\nDONE",
            b"TURN " + b"x" * (MAX_LINE_BYTES + rng.randint(1, 100)),
        ])

    def probe(self, number: int) -> bytes:
        return b"ABOUT"

    def final(self, pairs: Sequence[tuple[bytes, bytes]]) -> list[bytes]:
        board = self._board_open([line for pair in pairs for line in pair])
        return ([b"DONE"] if board else []) + [b"INFO rule 0", b"START 15", b"BOARD", b"7,7,2", b"DONE",
                                               b"RESTART", b"BEGIN"]

    @staticmethod
    def _board_open(lines: Iterable[bytes]) -> bool:
        board = False
        for raw in (part for line in lines for part in line.split(b"\n")):
            if len(raw) > MAX_LINE_BYTES:
                continue
            text = raw.decode("utf-8", "replace").strip()
            if board:
                board = text.upper() != "DONE"
            else:
                board = _command_word(text) == "BOARD"
        return board

    @staticmethod
    def expectations(lines: Iterable[bytes]) -> Iterator[str | None]:
        """What a brain answers to each physical line: ``ok`` (OK), ``move`` (x,y), ``about``, ``unknown``,
        ``info`` (nothing, or ERROR), None (nothing); any of them but None may be ``ERROR ...`` instead."""
        board = False
        for raw in lines:
            if len(raw) > MAX_LINE_BYTES:
                yield "error"
                continue
            text = raw.decode("utf-8", "replace").strip()
            if board:
                board = text.upper() != "DONE"
                yield None if board else "move"
                continue
            word = _command_word(text)
            board = word == "BOARD"
            yield {"": None, "BOARD": None, "INFO": "info", "START": "ok", "RECTSTART": "ok", "RESTART": "ok",
                   "TAKEBACK": "ok", "BEGIN": "move", "TURN": "move", "PLAY": "move", "ABOUT": "about"}.get(
                       word, "unknown")

    def check(self, script: Script, output: Iterable[bytes]) -> Verdict:
        physical = [(part, index) for index, pair in enumerate(script.pairs) for line in pair
                    for part in line.split(b"\n")]
        probes = set()
        position = 0
        for fuzzed, _probe in script.pairs:
            position += fuzzed.count(b"\n") + 2
            probes.add(position - 1)
        physical += [(line, -1) for line in script.final]
        expectations = list(self.expectations(line for line, _ in physical))
        verdict = Verdict(commands=sum(expected not in (None, "info") for expected in expectations))
        answers = _lines(output, verdict)
        final_answers: list[str] = []
        pending: str | None = None   # an answer read ahead (after an INFO that had none)
        for position, ((line, index), expected) in enumerate(zip(physical, expectations)):
            if expected is None:
                continue
            answer = pending if pending is not None else next(answers, None)
            pending = None
            if expected == "info":
                if answer is not None and not answer.startswith("ERROR"):
                    pending = answer
                continue
            if answer is None:
                verdict.unanswered += 1
                continue
            verdict.internal_errors += answer.startswith("ERROR " + _INTERNAL)
            if index < 0:
                final_answers.append(answer)
            elif position in probes and answer.startswith(_ABOUT):
                verdict.probes = index + 1
            if not _gomocup_answer_ok(expected, answer):
                verdict.problem(f"{answer[:80]!r} answers {line[:60]!r} ({expected})")
        if pending is not None or next(answers, None) is not None:
            verdict.problem("answers left over after the last command")
        verdict.final_ok = self._final_ok(final_answers, verdict) if script.final else True
        return verdict

    @staticmethod
    def _final_ok(answers: list[str], verdict: Verdict) -> bool:
        moves = [answer for answer in answers if _MOVE.match(answer)]
        if len(answers) < 4 or answers[-4] != "OK" or answers[-2] != "OK" or len(moves) < 2:
            verdict.problem(f"final commands answered {answers}")
            return False
        points = [tuple(map(int, move.split(","))) for move in (answers[-3], answers[-1])]
        if points[0] == (7, 7) or not all(0 <= x < 15 and 0 <= y < 15 for x, y in points):
            verdict.problem(f"final moves {points} on 15x15 (a stone at 7,7 before the first)")
            return False
        return True


def _gomocup_answer_ok(expected: str, answer: str) -> bool:
    if answer.startswith("ERROR"):
        return expected != "about"
    return {"ok": answer == "OK", "move": bool(_MOVE.match(answer)), "about": answer.startswith(_ABOUT),
            "unknown": answer.startswith("UNKNOWN"), "error": False}[expected]


# ------------------------------------------------------------ JSON analysis
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
            ("avoidMoves", lambda: [{"player": rng.choice("bw"), "moves": [_vertex(rng, size)], "untilDepth": 1}]),
            ("allowMoves", lambda: [{"player": "b", "moves": [_vertex(rng, size), _vertex(rng, size)],
                                     "untilDepth": 1}]),
            ("overrideSettings", lambda: dict(
                (key, rng.choice(values)) for key, values in rng.sample(_SETTINGS, rng.randint(1, 3)))),
            ("initialStones", lambda: [["B", _vertex(rng, size)]]), ("whiteHandicapBonus", lambda: "N"),
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
            return _random_bytes(rng, rng.randint(0, 60))
        query = json.dumps(self.query(rng))
        deep = rng.randint(33, 3000)
        return rng.choice([
            b"", b"  ", b"{}", b"[]", b"null", b"1", b'"id"', b'{"id": 5}', b'{"id": "x"', b"\xff\xfe{",
            b"[" * 5000 + b"]" * 5000, b"{" * deep, (query[:-1] + ', "x": ' + "[" * deep + "]" * deep + "}").encode(),
            (query[:-1] + ', "x": NaN}').encode(), (query[:-1] + ', "komi": Infinity}').encode(),
            (query[:-1] + ', "x": 1e999}').encode(), (query[:-1] + ', "x": ' + "9" * 5000 + "}").encode(),
            (query[:-1] + ', "x": "\\ud800"}').encode(), b'{"id": "a", "action": "query_version", "k": NaN}',
            query.replace('"moves"', '"moves"' * 2).encode(),
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
        for line in _lines(output, verdict):
            try:
                reply = json.loads(line)
            except ValueError:
                verdict.problem(f"not JSON: {line[:80]!r}")
                continue
            if not isinstance(reply, dict):
                verdict.problem(f"not an object: {line[:80]!r}")
                continue
            verdict.internal_errors += str(reply.get("error", "")).startswith(_INTERNAL)
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


# ------------------------------------------------------------- a real process
_SOURCE_ROOT = Path(__file__).resolve().parents[1]   # the tree this module runs from, so the process runs it too


def engine_argv(command: str, *options: str) -> list[str]:
    """The command line of ``engine COMMAND OPTIONS`` run by this interpreter from this source tree."""
    return [sys.executable, "-c", "from engine.cli import main; main()", command, *options]


@dataclass
class ProcessReport:
    """One front end's process under a fuzzed script. ``deaths``: processes that ended before answering
    everything (a failure status, or answers lost), each followed by a fresh process from the line after the
    one that killed it (``killers``); ``hangs``: processes killed after ``stall`` seconds without output."""

    front_end: str
    fuzzed_lines: int
    commands: int = 0
    unanswered: int = 0
    problems: int = 0
    internal_errors: int = 0
    deaths: int = 0
    hangs: int = 0
    final_ok: bool = False
    seconds: float = 0.0
    killers: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)


def fuzz_process(argv: Sequence[str], front_end: FrontEnd, script: Script, stall: float = 60.0) -> ProcessReport:
    """Send ``script`` to a process started with ``argv`` (stdin from a file, as a pipe would deliver it) and
    check everything it answers."""
    report = ProcessReport(front_end.name, len(script.pairs))
    started = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(_SOURCE_ROOT),
                                                                     os.environ.get("PYTHONPATH")])))
    while True:
        with tempfile.TemporaryDirectory(prefix="engine-fuzz-") as folder:
            stdin, stdout, stderr = (Path(folder, name) for name in ("stdin", "stdout", "stderr"))
            stdin.write_bytes(script.data())
            status = _run(argv, stdin, stdout, stderr, stall, env)
            with open(stdout, "rb") as output:
                verdict = front_end.check(script, output)
            if status == 0 and not verdict.unanswered:
                _add(report, verdict)
                report.final_ok = verdict.final_ok
                break
            report.deaths += status is not None
            report.hangs += status is None
            report.examples.append(f"exit status {status}: " + stderr.read_bytes()[-1500:].decode("utf-8", "replace"))
            killer = verdict.probes
            with open(stdout, "rb") as output:
                _add(report, front_end.check(Script(script.pairs[:killer + 1], (), script.first), output))
        if killer >= len(script.pairs) - 1:
            break
        report.killers.append(repr(script.pairs[killer][0][:200]))
        script = script.resumed(script.first + killer + 1)
    report.seconds = time.perf_counter() - started
    return report


def _add(report: ProcessReport, verdict: Verdict) -> None:
    report.commands += verdict.commands
    report.unanswered += verdict.unanswered
    report.problems += verdict.problem_count
    report.internal_errors += verdict.internal_errors
    report.examples += verdict.problems[:max(0, _MAX_PROBLEMS - len(report.examples))]


def _run(argv: Sequence[str], stdin: Path, stdout: Path, stderr: Path, stall: float,
         env: dict[str, str]) -> int | None:
    """The process's exit status; None when it wrote nothing for ``stall`` seconds and was killed."""
    with open(stdin, "rb") as source, open(stdout, "wb") as sink, open(stderr, "wb") as errors:
        process = subprocess.Popen(list(argv), stdin=source, stdout=sink, stderr=errors, env=env)
        size, last = -1, time.monotonic()
        while True:
            try:
                return process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
            now = stdout.stat().st_size
            if now != size:
                size, last = now, time.monotonic()
            elif time.monotonic() - last > stall:
                process.kill()
                process.wait()
                return None
