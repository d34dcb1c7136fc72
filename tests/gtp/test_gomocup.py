"""The Gomocup (Piskvork) brain, in-process and once as ``engine gomocup`` in a subprocess."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import BLACK, WHITE, Color, Game
from engine.nn.networks import bundled_model
from gtp.gomocup import PASS, GomocupBrain
from gtp.state import FrontEndConfig
from tests.gtp.helpers import board_command, front_end_config, gomocup_config
from training.models import BootstrapConfig, bootstrap

POINT = re.compile(r"^(\d+),(\d+)$")


def brain_answers(text: str, config: FrontEndConfig | None = None, **options: Any) -> list[str]:
    """The brain's answer lines to ``text``, under ``config``, else :func:`front_end_config`'s with ``options``
    (seed 1, 200 visits, batches of 8 unless given)."""
    if config is None:
        options.setdefault("seed", 1)
        options.setdefault("visits", 200)
        options.setdefault("batch", 8)
        config = front_end_config(game="gomoku", **options)
    out = io.BytesIO()
    brain = GomocupBrain(config, io.BytesIO(text.encode()), out)
    brain.run()
    return out.getvalue().decode().splitlines()


def _point(answer: str, size: int) -> tuple[int, int]:
    match = POINT.match(answer)
    assert match, answer
    x, y = int(match.group(1)), int(match.group(2))
    assert 0 <= x < size and 0 <= y < size
    return x, y


def test_start_begin_turn() -> None:
    out = brain_answers("START 15\nBEGIN\nTURN 7,7\nEND\nABOUT\n")
    assert out[0] == "OK"
    first, second = _point(out[1], 15), _point(out[2], 15)
    assert len(out) == 3, "END stops the brain"
    assert first != (7, 7) and second not in (first, (7, 7))


def test_board_then_the_winning_move() -> None:
    """Four own stones in a row, blocked on the left: the only five is at 7,7."""
    own = "".join(f"{x},7,1\n" for x in range(3, 7))
    theirs = "2,7,2\n0,0,2\n0,1,2\n0,2,2\n"
    out = brain_answers(f"START 15\nBOARD\n{own}{theirs}DONE\n")
    assert out == ["OK", "7,7"]


def test_board_colour_follows_the_stone_counts() -> None:
    """Three own stones and four of the opponent's: the engine is white, black's four must be blocked."""
    out = brain_answers("START 15\nBOARD\n0,0,2\n1,0,2\n2,0,2\n3,0,2\n9,9,1\n10,10,1\n12,12,1\nDONE\n")
    assert out == ["OK", "4,0"]


def test_board_with_one_stone_fewer_plays_white_under_renju() -> None:
    """Renju: five own stones to the opponent's six make the brain white, for whom six in a row wins (it would
    be an overline, forbidden, for black)."""
    position = """
        X . X . X . X . X . X . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . O O O . O O . . . . . .
    """ + ". . . . . . . . . . . . . . .\n" * 7
    out = brain_answers(f"INFO rule 4\nSTART 15\n{board_command(position, WHITE)}", gomocup_config(visits=50))
    assert out == ["OK", "6,7"]


def test_errors_unknown_and_sizes() -> None:
    out = brain_answers("START 3\nSTART 99\nSTART x\nRECTSTART 15,20\nRECTSTART 9,9\nFROB\nTURN 99,1\nTURN a,b\n"
                        "TAKEBACK 4,4\nPLAY 4,4\nTAKEBACK 4,4\nTAKEBACK 4,4\nBOARD\n1,1,7\nDONE\nBEGIN\n")
    assert [line.split()[0] for line in out[:-1]] == ["ERROR", "ERROR", "ERROR", "ERROR", "OK", "UNKNOWN", "ERROR",
                                                      "ERROR", "ERROR", "4,4", "OK", "ERROR", "ERROR"]
    _point(out[-1], 9)  # the failed BOARD left the board empty, so BEGIN opens


def test_info_rules_and_time() -> None:
    out = brain_answers("INFO rule 8\nINFO rule 1\nINFO timeout_turn 200\nINFO timeout_match 60000\n"
                        "INFO time_left 30000\nINFO max_memory 83886080\nINFO folder /tmp\nSTART 9\nBEGIN\n",
                        visits=1_000_000)
    assert out[0] == ("ERROR rule 8 is not supported (0 freestyle, 1 standard, 2 renju, 4 renju, "
                      "5 freestyle swap1, 6 freestyle swap2); still playing freestyle")
    assert out[1] == "OK"
    _point(out[2], 9)


def test_rule_codes_follow_gomocup_and_yixin_board() -> None:
    """2 (Yixin-Board's renju) and 4 play renju, 1 standard, 0/5/6 freestyle; an unknown code changes nothing."""
    for code, variant in ((0, "freestyle"), (1, "standard"), (2, "renju"), (4, "renju"), (5, "freestyle"),
                          (6, "freestyle")):
        brain = GomocupBrain(front_end_config(game="gomoku", visits=8), io.BytesIO(), io.BytesIO())
        assert brain.handle("START 15") == "OK" and brain.handle(f"INFO rule {code}") == ""
        assert brain.state.rules.variant == variant and brain.variant == variant
        assert brain.handle("INFO rule 3").startswith("ERROR rule 3 is not supported")
        assert brain.state.rules.variant == variant


def _brain_at(stones: dict[tuple[int, int], int], to_play: Color, rule: int = 0, visits: int = 8) -> GomocupBrain:
    """A brain on 15x15 under ``INFO rule`` ``rule`` at the position of ``stones`` ((x, y): colour)."""
    brain = GomocupBrain(front_end_config(game="gomoku", visits=visits, seed=1), io.BytesIO(), io.BytesIO())
    assert brain.handle("START 15") == "OK" and brain.handle(f"INFO rule {rule}") == ""
    board = np.zeros(225, np.int8)
    for (x, y), color in stones.items():
        board[y * 15 + x] = color
    brain.state.new_game(game=Game.from_board(brain.state.rules, board, to_play))
    return brain


def test_yxshowforbid_names_blacks_forbidden_points_under_renju_only() -> None:
    """Black's two twos crossing at 7,7 (5,7 6,7 and 7,5 7,6): playing 7,7 makes two open threes, a renju foul."""
    stones = {(5, 7): BLACK, (6, 7): BLACK, (7, 5): BLACK, (7, 6): BLACK,
              (0, 0): WHITE, (0, 2): WHITE, (0, 4): WHITE, (0, 6): WHITE}
    assert _brain_at(stones, Color.BLACK, rule=4).handle("YXSHOWFORBID") == "FORBID 0707."
    assert _brain_at(stones, Color.BLACK, rule=2).handle("YXSHOWFORBID") == "FORBID 0707."
    assert _brain_at(stones, Color.BLACK, rule=0).handle("YXSHOWFORBID") == "FORBID ."
    stones[(14, 14)] = BLACK
    assert _brain_at(stones, Color.WHITE, rule=4).handle("YXSHOWFORBID") == "FORBID ."


def test_renju_forbids_black_an_overline() -> None:
    """Rule 4 (renju): black may not make six, so with 0..3 and 5 on a row black does not play 4,7."""
    own = "".join(f"{x},7,1\n" for x in (0, 1, 2, 3, 5))
    theirs = "".join(f"{x},0,2\n" for x in (0, 2, 4, 6, 8))
    out = brain_answers(f"INFO rule 4\nSTART 15\nBOARD\n{own}{theirs}DONE\n")
    assert out[0] == "OK" and out[1] != "4,7"
    freestyle = brain_answers(f"START 15\nBOARD\n{own}{theirs}DONE\n")
    assert freestyle == ["OK", "4,7"]


def test_takeback_of_a_board_stone_and_restart() -> None:
    out = brain_answers("START 9\nBOARD\n1,1,1\n2,2,2\n4,4,2\nDONE\nTAKEBACK 4,4\nRESTART\nBEGIN\n")
    assert out[0] == "OK" and out[2] == "OK" and out[3] == "OK"
    _point(out[1], 9)
    _point(out[4], 9)


def test_engine_gomocup_subprocess() -> None:
    result = subprocess.run([sys.executable, "-c", "from engine.cli import main; main()", "gomocup", "--visits", "50"],
                            input=b"START 10\nBEGIN\nTURN 5,5\nABOUT\nEND\n", capture_output=True, timeout=120)
    lines = result.stdout.decode().splitlines()
    assert result.returncode == 0, result.stderr.decode()
    assert lines[0] == "OK" and POINT.match(lines[1]) and POINT.match(lines[2])
    assert lines[3].startswith('name="engine", version=')
    assert f"network: {bundled_model('gomoku')}" in result.stderr.decode()   # the freestyle network ships


NO_TORCH_PROBE = """
import os, sys
exit_now = os._exit
def report_and_exit(code):
    print("torch loaded" if "torch" in sys.modules else "no torch", file=sys.stderr, flush=True)
    exit_now(code)
os._exit = report_and_exit   # engine gomocup ends with os._exit: say first whether torch was ever imported
from engine.cli import main
main()
"""


def test_engine_gomocup_plays_a_network_without_importing_torch(tmp_path: Path) -> None:
    """Gomocup limits a brain's memory and torch alone takes 220 MB: the default runtime is numpy."""
    model = bootstrap(tmp_path / "gomoku.safetensors", BootstrapConfig("gomoku", 15, blocks=1, filters=8,
                                                                        heads="pooled"))
    result = subprocess.run([sys.executable, "-c", NO_TORCH_PROBE, "gomocup", "--model", str(model), "--visits", "16"],
                            input=b"START 15\nBEGIN\nTURN 7,7\nEND\n", capture_output=True, timeout=300)
    lines, errors = result.stdout.decode().splitlines(), result.stderr.decode()
    assert result.returncode == 0, errors
    assert lines[0] == "OK" and POINT.match(lines[1]) and POINT.match(lines[2])
    assert f"network: {model}" in errors and errors.rstrip().endswith("no torch"), errors


# ------------------------------------------------------------ always a move
def test_the_game_where_the_brain_answered_an_error_to_an_open_four() -> None:
    """Freestyle 15x15, the brain white with the bundled network: black's 7,12 makes an open four on row 12.
    The game is lost, not over, and a brain has no resignation: it blocks one end. The brain's moves of the
    game are imposed (TAKEBACK, PLAY) wherever it would choose others, so that its searches see the game's
    positions one after another, as they did when it resigned."""
    black = "10,9 10,10 10,11 9,12 8,12 10,12 7,12".split()
    white = "9,8 9,10 10,8 12,9 11,8 10,13".split()
    brain = GomocupBrain(gomocup_config(visits=200), io.BytesIO(), io.BytesIO())
    assert brain.handle("START 15") == "OK"
    for line in ("BOARD", "11,10,2", "2,14,1", "10,9,2"):
        assert brain.handle(line) == ""
    answer = brain.handle("DONE")
    for ours, theirs in zip(white, black[1:]):
        if answer != ours:
            assert brain.handle(f"TAKEBACK {answer}") == "OK"
            assert brain.handle(f"PLAY {ours}") == ours
        answer = brain.handle(f"TURN {theirs}")
    assert answer in ("6,12", "11,12")


def test_a_lost_position_gets_a_move() -> None:
    """Black has an open four on row 1 and a four on the diagonal: whatever white plays, black wins. White
    still blocks one of them (0,1 or 5,1; the diagonal's one open end is 1,4)."""
    lost = """
        . . . . . . . . O
        . X X X X . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . . . .
        O O . X . . . . .
        O O . . X . . . .
        O O . . . X . . .
    """
    out = brain_answers(f"START 9\n{board_command(lost, WHITE)}", gomocup_config(visits=200))
    assert out[0] == "OK" and out[1] in ("0,1", "5,1", "1,4")


FULL = """
    X X O O X X O
    O O X X O O X
    X X O O X X O
    O O X X O O X
    X X O O X X O
    O O X X O O X
    X X O O X X O
"""
"""A 7x7 board filled without five in a row (25 black, 24 white)."""


def test_the_last_empty_point_is_played() -> None:
    one_left = FULL.replace("X", ".", 1)   # 0,0: black has 24 stones as white does, so the brain is black
    assert brain_answers(f"START 7\n{board_command(one_left, BLACK)}") == ["OK", "0,0"]


def test_a_full_board_and_a_finished_game_get_a_pass() -> None:
    """No point is left, or the opponent's TURN made five: no move exists, and the answer is a pass rather
    than an ERROR the manager would count as a fault."""
    four = """
        . . . . . . .
        . O O O O . .
        . . . . . . .
        . X X X . . .
        . . . . . . .
        . . . . . . X
        . . . . . . .
    """
    out = brain_answers(f"START 7\n{board_command(FULL, WHITE)}{board_command(four, BLACK)}TURN 5,1\n")
    assert out[:2] == ["OK", PASS] and out[2] not in ("0,1", "5,1") and out[3] == PASS   # uniform priors


def test_renju_black_with_only_forbidden_points_passes() -> None:
    """Renju, black to move: 3,3 is the only empty point and would make seven in a row (an overline),
    forbidden to black, so black has no legal move and passes, as the renju rules allow."""
    forbidden_only = """
        X X O O X X O
        O O X X O O X
        O X O O X X O
        X X X . X X X
        X X O O X X O
        O O X O O O X
        O O O O X X O
    """
    out = brain_answers(f"INFO rule 4\nSTART 7\n{board_command(forbidden_only, BLACK)}")
    assert out == ["OK", PASS]
    freestyle = brain_answers(f"START 7\n{board_command(forbidden_only, BLACK)}")
    assert freestyle == ["OK", "3,3"]


def test_a_failed_search_still_answers_a_legal_move(monkeypatch: Any) -> None:
    """Whatever goes wrong inside the search, a Gomocup brain answers a move: one that answers an error forfeits."""
    brain = GomocupBrain(gomocup_config(visits=8), io.BytesIO(), io.BytesIO())
    assert brain.handle("START 15") == "OK"
    assert brain.handle("TURN 7,7") != PASS

    def broken(*_args: Any, **_kwargs: Any) -> int:
        raise ValueError("probabilities contain NaN")

    monkeypatch.setattr(brain.state, "generate", broken)
    answer = brain.answer(b"TURN 8,7")
    assert re.fullmatch(r"\d+,\d+", answer), answer
    x, y = _point(answer, 15)
    assert brain.state.game.position.board()[y, x] != 0, "the answer is played"
    assert len(brain.state.game.moves) == 4


@pytest.mark.timeout(120)
def test_stop_makes_a_search_without_limits_answer() -> None:
    """A million visits and no clock would search for minutes; the STOP read after BEGIN ends it at once."""
    for stop in ("STOP", "yxstop"):
        out = brain_answers(f"START 15\nBEGIN\n{stop}\nEND\n", visits=1_000_000)
        assert out[0] == "OK" and len(out) == 2
        _point(out[1], 15)


def test_yxnbest_lists_the_most_visited_moves_and_plays_the_first() -> None:
    out = brain_answers("START 15\nTURN 7,7\nYXNBEST 3\n", visits=120)
    assert out[0] == "OK"
    messages = [line for line in out[2:] if line.startswith("MESSAGE")]
    assert 1 <= len(messages) <= 3 and out[-1] == messages[0].split()[3]
    visits = [int(line.split()[5]) for line in messages]
    assert visits == sorted(visits, reverse=True) and [line.split()[2] for line in messages] == ["1", "2", "3"][
        :len(messages)]
    assert len({out[1], out[-1], "7,7"}) == 3, "YXNBEST plays its move like TURN"
    assert brain_answers("START 15\nYXNBEST 0\n")[1].startswith("ERROR")


def test_swap2board_proposes_an_opening_then_chooses_a_colour() -> None:
    out = brain_answers("INFO rule 6\nSTART 15\nSWAP2BOARD\nDONE\n", visits=48)
    stones = [_point(p, 15) for p in out[1].split()]
    assert out[0] == "OK" and len(set(stones)) == 3 and stones[0] == (7, 7)
    three = "".join(f"{x},{y},{2 if i != 1 else 1}\n" for i, (x, y) in enumerate(stones))
    answer = brain_answers(f"INFO rule 6\nSTART 15\nSWAP2BOARD\n{three}DONE\n", visits=48)[1]
    assert answer == "SWAP" or all(_point(p, 15) not in stones for p in answer.split())
    assert len(answer.split()) in (1, 2)
    five = three + "9,9,1\n9,10,2\n"
    answer = brain_answers(f"INFO rule 6\nSTART 15\nSWAP2BOARD\n{five}DONE\n", visits=48)[1]
    assert answer == "SWAP" or _point(answer, 15) not in stones + [(9, 9), (9, 10)]


def test_pondering_searches_while_the_brain_waits(monkeypatch: Any) -> None:
    """With INFO pondering 1 the brain runs the state's ponder job between its answer and the next line."""
    read, write = os.pipe()
    out = io.BytesIO()
    brain = GomocupBrain(front_end_config(game="gomoku", visits=16, seed=1), os.fdopen(read, "rb"), out)
    pondered = threading.Event()
    job_of = brain.state.ponder_job

    def ponder_job() -> Any:
        job = job_of()
        if job is None:
            return None

        def recorded(stop: Any) -> None:
            pondered.set()
            job(stop)
        return recorded

    monkeypatch.setattr(brain.state, "ponder_job", ponder_job)
    runner = threading.Thread(target=brain.run)
    runner.start()
    with os.fdopen(write, "wb", buffering=0) as pipe:
        pipe.write(b"INFO pondering 1\nSTART 9\nBEGIN\n")
        assert pondered.wait(60)
        pipe.write(b"END\n")
    runner.join(60)
    assert out.getvalue().decode().splitlines()[0] == "OK"


def test_start_20_plays_the_freestyle_league_board() -> None:
    out = brain_answers("START 20\nBEGIN\nTURN 0,19\n", visits=32)
    assert out[0] == "OK"
    assert _point(out[1], 20) != _point(out[2], 20)
