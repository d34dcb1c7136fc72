"""Plane semantics of every encoder: hand-checked diagram positions and a reference on random games."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from encoders import ENCODERS, get_encoder, superko_banned
from encoders.liberties import mark_ko, signed_liberties
from engine.core.board import INFO_LEN, KO, geometry
from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.position import SUPERKO, Position
from engine.core.rules import Rules
from engine.core.types import BLACK, WHITE
from engine.formats.diagram import parse_diagram, parse_orb_diagram
from tests.encoders.reference import (
    KO_DIAGRAM,
    LIBERTY_DIAGRAM,
    any_rules,
    go_rules,
    random_game,
    reference_planes,
    setup_diagram,
)


def marks(size: int, *vertices: str) -> np.ndarray:
    """``int64[N, N]`` with ones on the given GTP vertices."""
    plane = np.zeros(size * size, dtype=np.int64)
    for vertex in vertices:
        plane[gtp_to_action(vertex, size)] = 1
    return plane.reshape(size, size)


def expect(planes: np.ndarray, expected: dict[int, np.ndarray]) -> None:
    """Each listed plane equals its expected marks; every other plane is empty."""
    for index in range(planes.shape[0]):
        want = expected.get(index, np.zeros(planes.shape[1:], dtype=np.int64))
        assert np.array_equal(planes[index].astype(np.int64), want), f"plane {index}:\n{planes[index]}"


def play(game: Game, *vertices: str) -> None:
    for vertex in vertices:
        game.play(game.rules.pass_action if vertex == "pass" else gtp_to_action(vertex, game.rules.size))


def liberty_position(to_play: int) -> Position:
    return Position.from_board(Rules.go(7), parse_diagram(LIBERTY_DIAGRAM), to_play)


# ------------------------------------------------------------- liberties
def test_sevenplane_buckets_chains_by_liberties_for_the_side_to_move() -> None:
    encoder = get_encoder("sevenplane", Rules.go(7))
    expect(encoder.encode(liberty_position(BLACK)), {
        1: marks(7, "A7", "B1"), 2: marks(7, "D7", "D4", "E4"),
        3: marks(7, "A1"), 4: marks(7, "G1"), 5: marks(7, "B5")})
    expect(encoder.encode(liberty_position(WHITE)), {
        0: marks(7, "A1"), 1: marks(7, "G1"), 2: marks(7, "B5"),
        4: marks(7, "A7", "B1"), 5: marks(7, "D7", "D4", "E4")})


def test_elevenplane_buckets_and_colour_planes() -> None:
    encoder = get_encoder("elevenplane", Rules.go(7))
    ones = np.ones((7, 7), dtype=np.int64)
    expect(encoder.encode(liberty_position(BLACK)), {
        1: marks(7, "A7", "B1"), 2: marks(7, "D7"), 3: marks(7, "D4", "E4"),
        4: marks(7, "A1"), 5: marks(7, "G1"), 7: marks(7, "B5"), 8: ones})
    expect(encoder.encode(liberty_position(WHITE)), {
        0: marks(7, "A1"), 1: marks(7, "G1"), 3: marks(7, "B5"),
        5: marks(7, "A7", "B1"), 6: marks(7, "D7"), 7: marks(7, "D4", "E4"), 9: ones})


def test_signed_liberties_are_capped_and_positive_for_the_given_side() -> None:
    code = np.empty(49, dtype=np.int16)
    signed_liberties(liberty_position(WHITE).cells, WHITE, geometry(7).action_point, 2, code)
    want = marks(7, "A1") + 2 * marks(7, "G1", "B5") - 2 * marks(7, "A7", "B1", "D7", "D4", "E4")
    assert np.array_equal(code.reshape(7, 7), want)


@pytest.mark.parametrize("b,banned_rows", [(0, 2), (1, 2), (1, 0)])
def test_mark_ko_marks_the_ko_point_and_the_boards_banned_points(b: int, banned_rows: int) -> None:
    geo = geometry(7)
    info = np.zeros(INFO_LEN, dtype=np.int64)
    info[KO] = geo.action_point[gtp_to_action("C4", 7)]
    banned = np.zeros((banned_rows, 49), dtype=bool)
    if banned_rows:
        banned[1, gtp_to_action("A1", 7)] = True
    plane = np.zeros(49, dtype=np.uint8)
    mark_ko(info, geo.point_action, banned, b, plane)
    want = marks(7, "C4", "A1") if banned_rows and b == 1 else marks(7, "C4")
    assert np.array_equal(plane.reshape(7, 7), want)


def test_a_stone_put_in_atari_moves_to_the_one_liberty_plane() -> None:
    game = Game(Rules.go(7))
    setup_diagram(game, LIBERTY_DIAGRAM, WHITE)
    play(game, "C1")  # B1 is left with B2 only
    planes = get_encoder("sevenplane", game.rules).encode(game)
    expect(planes, {0: marks(7, "B1"), 1: marks(7, "A7"), 2: marks(7, "D7", "D4", "E4"),
                    3: marks(7, "A1"), 4: marks(7, "G1", "C1"), 5: marks(7, "B5")})


def test_oneplane_signs_follow_the_side_to_move() -> None:
    encoder = get_encoder("oneplane", Rules.go(7))
    black = marks(7, "A7", "D7", "D4", "E4", "B1")
    white = marks(7, "B5", "A1", "G1")
    expect(encoder.encode(liberty_position(BLACK)), {0: black - white})
    expect(encoder.encode(liberty_position(WHITE)), {0: white - black})


# -------------------------------------------------------------------- ko
@pytest.mark.parametrize("name,ko_plane", [("sevenplane", 6), ("elevenplane", 10)])
@pytest.mark.parametrize("then", ["pass", "E1"])
def test_ko_point_is_marked_only_while_the_ko_is_active(name: str, ko_plane: int, then: str) -> None:
    game = Game(Rules.go(5, "japanese"))
    setup_diagram(game, KO_DIAGRAM)
    encoder = get_encoder(name, game.rules)
    assert not encoder.encode(game)[ko_plane].any()
    play(game, "C4")  # takes B4: white may not take back at once
    assert np.array_equal(encoder.encode(game)[ko_plane], marks(5, "B4"))
    assert np.array_equal(encoder.encode(game.position)[ko_plane], marks(5, "B4"))
    play(game, then)
    assert not encoder.encode(game)[ko_plane].any()


def test_the_ko_capturing_stone_is_in_atari_for_the_opponent() -> None:
    game = Game(Rules.go(5, "japanese"))
    setup_diagram(game, KO_DIAGRAM)
    play(game, "C4")
    planes = get_encoder("sevenplane", game.rules).encode(game)
    assert planes[3, 1, 2] == 1  # C4: an opponent stone (white to move) with one liberty


def test_superko_points_join_the_ko_plane_for_a_game_only() -> None:
    # Under positional superko a one-stone suicide recreates the position, so A5 is banned for white.
    game = Game(Rules.go(5, "tromp-taylor"))
    game.setup(black=[gtp_to_action("B5", 5), gtp_to_action("A4", 5)], to_play=WHITE)
    a5 = gtp_to_action("A5", 5)
    assert game.check(a5) == SUPERKO and game.position.is_legal(a5)
    encoder = get_encoder("sevenplane", game.rules)
    assert np.array_equal(encoder.encode(game)[6], marks(5, "A5"))
    assert not encoder.encode(game.position)[6].any()
    extra = marks(5, "E1").reshape(-1).astype(bool)
    assert np.array_equal(encoder.encode(game.position, banned=extra)[6], marks(5, "E1"))
    assert np.array_equal(encoder.encode_batch([game], banned=extra[None])[0, 6], marks(5, "A5", "E1"))


def test_no_superko_points_where_the_rules_forbid_suicide() -> None:
    game = Game(Rules.go(5, "chinese"))
    game.setup(black=[gtp_to_action("B5", 5), gtp_to_action("A4", 5)], to_play=WHITE)
    assert not superko_banned(game).any()
    assert not get_encoder("elevenplane", game.rules).encode(game)[10].any()


# --------------------------------------------------------------- history
def test_history_planes_shift_through_a_capture_and_a_pass() -> None:
    game = Game(Rules.go(5))
    play(game, "B5", "A5", "A4", "pass")  # black's A4 captures A5, then white passes
    both, b5 = marks(5, "B5", "A4"), marks(5, "B5")
    ones = np.ones((5, 5), dtype=np.int64)
    zero17, lz18 = get_encoder("zero17", game.rules), get_encoder("lz18", game.rules)
    expect(zero17.encode(game), {0: both, 2: both, 4: b5, 5: marks(5, "A5"), 6: b5, 16: ones})
    expect(lz18.encode(game), {0: both, 1: both, 2: b5, 3: b5, 10: marks(5, "A5"), 16: ones})
    play(game, "E1")  # white to move: "own" is now white at every step
    after = marks(5, "B5", "A4", "E1")
    expect(zero17.encode(game), {1: after, 3: both, 5: both, 6: marks(5, "A5"), 7: b5, 9: b5})
    expect(lz18.encode(game), {3: marks(5, "A5"), 8: after, 9: both, 10: both, 11: b5, 12: b5, 17: ones})


def test_history_wraps_after_eight_moves() -> None:
    game = Game(Rules.go(5))
    play(game, "A1", "A5", "C1", "C5", "E1", "E5", "A3", "B5", "C3", "D5")
    planes = get_encoder("lz18", game.rules).encode(game)
    # black to move; the board 7 moves ago is the one after the third move
    assert np.array_equal(planes[7], marks(5, "A1", "C1"))
    assert np.array_equal(planes[15], marks(5, "A5"))
    assert np.array_equal(planes[0], marks(5, "A1", "C1", "E1", "A3", "C3"))
    assert np.array_equal(planes[8], marks(5, "A5", "C5", "E5", "B5", "D5"))


# ---------------------------------------------------------- colour planes
def test_colour_planes_after_a_handicap_and_a_pass() -> None:
    game = Game(Rules.go(9))
    game.place_handicap([gtp_to_action("C3", 9), gtp_to_action("G7", 9)])
    stones = marks(9, "C3", "G7")
    ones, zeros = np.ones((9, 9), dtype=np.int64), np.zeros((9, 9), dtype=np.int64)
    encode = {name: get_encoder(name, game.rules).encode for name in ("oneplane", "elevenplane", "zero17", "lz18")}
    assert game.to_play == WHITE
    expect(encode["oneplane"](game), {0: -stones})
    assert np.array_equal(encode["elevenplane"](game)[8], zeros)
    assert np.array_equal(encode["elevenplane"](game)[9], ones)
    expect(encode["zero17"](game), {1: stones})
    expect(encode["lz18"](game), {8: stones, 17: ones})
    play(game, "pass")
    expect(encode["oneplane"](game), {0: stones})
    assert np.array_equal(encode["elevenplane"](game)[8], ones)
    assert np.array_equal(encode["elevenplane"](game)[9], zeros)
    expect(encode["zero17"](game), {0: stones, 2: stones, 16: ones})
    expect(encode["lz18"](game), {0: stones, 1: stones, 16: ones})


def test_gomoku4_marks_the_last_move_and_black_to_move() -> None:
    game = Game(Rules.gomoku(7))
    encoder = get_encoder("gomoku4", game.rules)
    ones = np.ones((7, 7), dtype=np.int64)
    expect(encoder.encode(game), {3: ones})
    play(game, "D4", "E5")
    expect(encoder.encode(game), {0: marks(7, "D4"), 1: marks(7, "E5"), 2: marks(7, "E5"), 3: ones})
    play(game, "C3")
    expect(encoder.encode(game), {0: marks(7, "E5"), 1: marks(7, "D4", "C3"), 2: marks(7, "C3")})


def test_orbs8_sorts_cells_by_owner_and_orbs_and_always_has_a_plane_of_ones() -> None:
    owners, orbs = parse_orb_diagram("""
        X1 .  O2
        .  X3 .
        O1 X2 .""")
    position = Position.from_board(Rules.chain_reaction(3), owners, WHITE, orbs)
    encoder = get_encoder("orbs8", position.rules)
    ones = np.ones((3, 3), dtype=np.int64)
    expect(encoder.encode(position), {0: marks(3, "A1"), 1: marks(3, "C3"), 3: marks(3, "A3"), 4: marks(3, "B1"),
                                      5: marks(3, "B2"), 7: ones})
    position.to_play = BLACK
    expect(encoder.encode(position), {0: marks(3, "A3"), 1: marks(3, "B1"), 2: marks(3, "B2"), 3: marks(3, "A1"),
                                      4: marks(3, "C3"), 6: ones})


def test_fifteenplane_marks_the_last_four_moves_through_a_pass_and_a_capture() -> None:
    game = Game(Rules.go(5))
    encoder = get_encoder("fifteenplane", game.rules)
    play(game, "B1", "A1", "A2")          # black's A2 takes the white stone at A1
    expect(encoder.encode(game)[11:], {0: marks(5, "A2"), 1: marks(5, "A1"), 2: marks(5, "B1")})
    game.play(game.rules.num_points)       # white passes
    play(game, "A1")                       # black fills the point of the capture
    expect(encoder.encode(game)[11:], {0: marks(5, "A1"), 2: marks(5, "A2"), 3: marks(5, "A1")})
    assert np.array_equal(encoder.encode(game)[:11], get_encoder("elevenplane", game.rules).encode(game))


def test_fifteenplane_marks_nothing_for_setup_stones() -> None:
    game = Game(Rules.go(9))
    game.place_handicap([gtp_to_action(v, 9) for v in ("C3", "G7")])
    assert not get_encoder("fifteenplane", game.rules).encode(game)[11:].any()
    play(game, "E5")
    expect(get_encoder("fifteenplane", game.rules).encode(game)[11:], {0: marks(9, "E5")})


@given(seed=st.integers(0, 2**32 - 1))
def test_fifteenplane_recent_moves_are_the_moves_of_the_game(seed: int) -> None:
    rules = Rules.go(7)
    game = random_game(rules, seed)
    planes = get_encoder("fifteenplane", rules).encode(game)
    played = [move.action for move in game.moves][::-1][:4]
    for t, action in enumerate(played):
        expected = np.zeros(rules.num_points, dtype=np.uint8)
        if action < rules.num_points:
            expected[action] = 1
        assert np.array_equal(planes[11 + t].reshape(-1), expected), (t, played)
    for t in range(len(played), 4):
        assert not planes[11 + t].any()


# -------------------------------------------------- reference and batches
def _fitting(rules: Rules) -> list[str]:
    # katago-v7's reference is KataGo itself (experiments/katago-net/compare.py), not tests/encoders/reference.py
    return [name for name, cls in ENCODERS.items() if rules.game in cls.games and name != "katago-v7"]


@given(rules=any_rules, seed=st.integers(0, 2**32 - 1))
def test_every_encoder_matches_the_reference_on_random_games(rules: Rules, seed: int) -> None:
    game = random_game(rules, seed)
    for name in _fitting(rules):
        encoder = get_encoder(name, rules)
        planes = encoder.encode(game.position)
        assert planes.shape == encoder.shape and planes.dtype == encoder.dtype
        assert np.array_equal(planes.astype(np.int64), reference_planes(name, game.position)), name


@given(rules=go_rules, seed=st.integers(0, 2**32 - 1))
def test_ko_plane_of_a_game_includes_its_superko_points(rules: Rules, seed: int) -> None:
    game = random_game(rules, seed)
    banned = np.array([game.check(a) == SUPERKO for a in range(rules.num_points)])
    for name in ("sevenplane", "elevenplane", "fifteenplane"):
        planes = get_encoder(name, rules).encode(game)
        assert np.array_equal(planes.astype(np.int64), reference_planes(name, game.position, banned)), name


@given(rules=any_rules, seed=st.integers(0, 2**32 - 1), batch=st.integers(1, 5))
def test_batch_equals_stacked_single_encodes(rules: Rules, seed: int, batch: int) -> None:
    games = [random_game(rules, seed + i) for i in range(batch)]
    states = [game if i % 2 else game.position for i, game in enumerate(games)]  # Games and Positions mixed
    cells = np.stack([game.position.cells for game in games])
    info = np.stack([game.position.info for game in games])
    for name in _fitting(rules):
        encoder = get_encoder(name, rules)
        singles = np.stack([encoder.encode(state) for state in states])
        assert np.array_equal(encoder.encode_batch(states), singles), name
        if not encoder.uses_ko or rules.ko == "simple":  # bare arrays carry no superko history
            assert np.array_equal(encoder.encode_arrays(cells, info), singles), name


def test_an_empty_batch_has_the_encoder_shape() -> None:
    encoder = get_encoder("lz18", Rules.go(9))
    assert encoder.encode_batch([]).shape == (0, 18, 9, 9)
