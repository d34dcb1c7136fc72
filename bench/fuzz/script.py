"""What every hostile client shares: the script it sends, the verdict on what came back, byte mutations.

A :class:`Script` is each fuzzed line followed by a *probe*, a valid command
whose answer is known, then a few valid commands whose answers must be right;
a :class:`FrontEnd` writes the lines of one protocol and checks its output.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from engine import action_to_gtp

__all__ = ["Script", "Verdict", "FrontEnd", "make_script", "mutate", "random_bytes", "random_vertex",
           "output_lines", "WORDS", "MAX_PROBLEMS", "INTERNAL_ERROR"]

MAX_PROBLEMS = 20
"""Problems a verdict keeps the text of (it counts them all)."""
INTERNAL_ERROR = "internal error"
"""How every front end's guard begins its answer to an unexpected failure."""
WORDS = ("b", "w", "black", "WHITE", "pass", "resign", "D4", "A1", "T19", "Z99", "I5", "j9", "E5", "A0", "0", "-1",
         "1", "2", "3", "7.5", "1e400", "nan", "inf", "-inf", "10", "100", "ownership", "true", "false", "interval",
         "minmoves", "maxmoves", "avoid", "allow", "alive", "dead", "seki", "pv", "rootInfo", "movesOwnership",
         "99999999999999999999", "#", "\t", "\u00e9", "\x00", "\x1b[2J", ",", "a:b")
"""Words for random arguments: colours, vertices good and bad, numbers out of range, analysis keys, text."""


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
        if len(self.problems) < MAX_PROBLEMS:
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


def random_bytes(rng: random.Random, size: int) -> bytes:
    return bytes(rng.choice(_EDIT_BYTES + b"0123456789") for _ in range(size))


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def output_lines(output: Iterable[bytes], verdict: Verdict) -> Iterator[str]:
    """The output's lines; a control character in one (a line break a client may split on) is a problem."""
    for raw in output:
        line = raw.decode("utf-8", "replace").removesuffix("\n")
        if _CONTROL.search(line):
            verdict.problem(f"control character in the output line {line[:80]!r}")
        yield line


def random_vertex(rng: random.Random, size: int = 19) -> str:
    """A GTP vertex on an N x N board, sometimes ``pass``."""
    if rng.random() < 0.05:
        return "pass"
    return action_to_gtp(rng.randrange(size * size), size)
