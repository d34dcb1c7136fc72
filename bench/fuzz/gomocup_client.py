"""The hostile Gomocup manager: fuzzed lines for ``engine gomocup`` and the check of its answers."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence

from bench.fuzz.script import INTERNAL_ERROR, WORDS, FrontEnd, Script, Verdict, mutate, output_lines, random_bytes
from gtp.protocol import MAX_LINE_BYTES

__all__ = ["GomocupFuzz"]

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
            words += [rng.choice(WORDS + ("7,7", "7,7,1", "99,99", "-1,-1", "1,2,3", ",", "15"))
                      for _ in range(rng.randint(0, 3))]
            return " ".join(words).encode("utf-8", "surrogatepass")
        if roll < 0.8:
            return mutate(self.valid(rng).encode(), rng)
        if roll < 0.9:
            return random_bytes(rng, rng.randint(0, 60))
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
        answers = output_lines(output, verdict)
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
            verdict.internal_errors += answer.startswith("ERROR " + INTERNAL_ERROR)
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
