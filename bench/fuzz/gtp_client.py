"""The hostile GTP client: fuzzed lines for ``engine gtp`` (Go) and the check of its answers."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.fuzz.script import (
    INTERNAL_ERROR,
    WORDS,
    FrontEnd,
    Script,
    Verdict,
    mutate,
    output_lines,
    random_bytes,
    random_vertex,
)
from engine import gtp_to_action
from gtp.protocol import MAX_LINE_BYTES, GtpError, decode_line, leading_id, parse_line

__all__ = ["GtpFuzz"]

_COLORS = ("b", "w", "black", "white", "B", "W")
_GTP_FINAL_ID = 990000000
_GTP_PROBE_ID = 1000000000
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

    def valid(self, rng: random.Random, writes: bool = True) -> str:
        """A valid command (it may still fail: an occupied point, an undo with nothing to undo); ``printsgf`` only
        with ``writes`` (an edited path could name a file anywhere)."""
        color = rng.choice(_COLORS)
        choices: list[Callable[[], str]] = [
            lambda: f"play {color} {random_vertex(rng)}", lambda: f"play {color} {random_vertex(rng, 9)}",
            lambda: f"genmove {color}", lambda: f"reg_genmove {color}", lambda: f"kgs-genmove_cleanup {color}",
            lambda: f"boardsize {rng.choice((9, 9, 9, 5, 7, 13, 19, 25, 2))}", lambda: "clear_board",
            lambda: "undo", lambda: "showboard", lambda: "final_score", lambda: "final_status_list dead",
            lambda: f"komi {rng.choice(('7.5', '6.5', '0', '-3.5', '150'))}",
            lambda: f"fixed_handicap {rng.randint(2, 9)}", lambda: f"place_free_handicap {rng.randint(2, 9)}",
            lambda: f"set_free_handicap {random_vertex(rng, 9)} {random_vertex(rng, 9)}",
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
        if self.scratch is not None and writes:
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
            words = [rng.choice(self.names)] + [rng.choice(WORDS) for _ in range(rng.randint(0, 5))]
            return (ident + " ".join(words)).encode("utf-8", "surrogatepass")
        if roll < 0.75:
            return mutate((ident + self.valid(rng, writes=False)).encode(), rng)
        if roll < 0.85:
            return random_bytes(rng, rng.randint(0, 80))
        return rng.choice([
            b"", b"   ", b"\t", b"# interrupt", b"# a comment", b"12", b"007", b"\r", b"name\r", b"\xff\xfe\xfd",
            b"play b \xc3", b"pla\x00y b D4", b"\x1b[31mname", b"12 genmove b # comment", b"-1 name",
            b"99999999999999999999999999999 name", b"name " + b"x" * 1000,
        ] if roll < 0.99 else [   # lines at and over the limit, rarer: they cost reading rather than handling
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
        responses = _gtp_responses(output_lines(output, verdict), verdict)
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
            verdict.internal_errors += match.group(1) == "?" and text.startswith(INTERNAL_ERROR)
            yield match.group(1), match.group(2) or None, text
        block = []
    if block:
        verdict.problem(f"output ends inside a response: {block[:3]}")
