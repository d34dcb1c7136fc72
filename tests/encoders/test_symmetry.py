"""The 8 board symmetries: hand-checked images, round trips, and encoders commuting with them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from encoders import ENCODERS, get_encoder
from encoders.symmetry import (
    NUM_SYMMETRIES,
    action_map,
    inverse,
    inverse_planes,
    inverse_policy,
    transform_action,
    transform_planes,
    transform_policy,
    transform_position,
)
from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.rules import Rules
from tests.encoders.reference import KO_DIAGRAM, any_rules, random_game, setup_diagram
from tests.engine.core.consistency import check_consistency

symmetries = st.integers(0, NUM_SYMMETRIES - 1)
seeds = st.integers(0, 2**32 - 1)

# Where the top-right corner (row 0, col N-1) and the point (row 0, col 1) of a 3x3 board go, by hand.
#   0 identity, 1 rotate 90 ccw, 2 rotate 180, 3 rotate 90 cw,
#   4 mirror left-right, 5 transpose, 6 mirror top-bottom, 7 anti-transpose
HAND_IMAGES = {
    0: ((0, 2), (0, 1)), 1: ((0, 0), (1, 0)), 2: ((2, 0), (2, 1)), 3: ((2, 2), (1, 2)),
    4: ((0, 0), (0, 1)), 5: ((2, 0), (1, 0)), 6: ((2, 2), (2, 1)), 7: ((0, 2), (1, 2)),
}


@pytest.mark.parametrize("k", range(NUM_SYMMETRIES))
def test_points_go_where_the_table_says(k: int) -> None:
    for (row, col), image in zip([(0, 2), (0, 1)], HAND_IMAGES[k], strict=True):
        assert divmod(transform_action(row * 3 + col, k, 3), 3) == image
        plane = np.zeros((3, 3), dtype=np.int8)
        plane[row, col] = 1
        assert tuple(np.argwhere(transform_planes(plane, k))[0]) == image
    assert transform_action(9, k, 3) == 9  # pass


def test_inverse_pairs() -> None:
    assert [inverse(k) for k in range(NUM_SYMMETRIES)] == [0, 3, 2, 1, 4, 5, 6, 7]
    with pytest.raises(ValueError):
        transform_planes(np.zeros((3, 3)), 8)
    with pytest.raises(ValueError):
        transform_policy(np.zeros(9), 1)  # 9 is not N*N + 1


planes_arrays = st.integers(1, 9).flatmap(lambda n: hnp.arrays(
    np.float32, st.tuples(st.integers(1, 3), st.integers(1, 3), st.just(n), st.just(n)),
    elements=st.floats(-1, 1, width=32)))


@given(planes=planes_arrays, k=symmetries)
def test_inverse_undoes_a_plane_transform(planes: np.ndarray, k: int) -> None:
    moved = transform_planes(planes, k)
    assert moved.shape == planes.shape and moved.flags.c_contiguous
    assert np.array_equal(inverse_planes(moved, k), planes)
    assert np.array_equal(transform_planes(moved, inverse(k)), planes)


@given(size=st.integers(1, 19), k=symmetries, seed=seeds)
def test_policy_round_trip_keeps_pass_last(size: int, k: int, seed: int) -> None:
    policy = np.random.default_rng(seed).dirichlet(np.ones(size * size + 1), size=2)
    moved = transform_policy(policy, k)
    assert moved.flags.c_contiguous
    assert np.array_equal(moved[:, -1], policy[:, -1])
    assert np.array_equal(inverse_policy(moved, k), policy)
    assert np.isclose(moved.sum(), policy.sum())


@given(rules=any_rules, seed=seeds, k=symmetries)
def test_transformed_policy_gives_transformed_moves_the_same_probability(rules: Rules, seed: int, k: int) -> None:
    position = random_game(rules, seed).position
    mask = position.legal_mask()
    policy = np.where(mask, np.random.default_rng(seed).random(mask.shape), 0.0)
    moved = transform_policy(policy, k)
    targets = action_map(k, rules.size)
    for action in range(rules.num_actions):
        assert moved[transform_action(action, k, rules.size)] == policy[action]
        assert targets[action] == transform_action(action, k, rules.size)
    # the legal moves of the transformed position are the transformed legal moves
    assert np.array_equal(transform_position(position, k).legal_mask(), transform_policy(mask, k))


@given(rules=any_rules, seed=seeds)
def test_every_encoder_commutes_with_every_symmetry(rules: Rules, seed: int) -> None:
    position = random_game(rules, seed).position
    encoders = [get_encoder(name, rules) for name, cls in ENCODERS.items() if rules.game in cls.games]
    for k in range(NUM_SYMMETRIES):
        moved = transform_position(position, k)
        check_consistency(moved, after_move=False)
        assert moved.to_play == position.to_play
        for encoder in encoders:
            assert np.array_equal(transform_planes(encoder.encode(position), k), encoder.encode(moved)), \
                f"{encoder.name} under symmetry {k}"


@given(rules=any_rules, seed=seeds)
def test_identity_rebuilds_the_same_position(rules: Rules, seed: int) -> None:
    position = random_game(rules, seed).position
    same = transform_position(position, 0)
    assert np.array_equal(same.info, position.info)
    assert np.array_equal(same.board(), position.board())
    assert np.array_equal(same.liberties(), position.liberties())
    assert np.array_equal(same.history(), position.history())


@pytest.mark.parametrize("k", range(NUM_SYMMETRIES))
def test_ko_point_and_last_move_move_with_the_board(k: int) -> None:
    game = Game(Rules.go(5, "japanese"))
    setup_diagram(game, KO_DIAGRAM)
    game.play(gtp_to_action("C4", 5))  # a ko capture: white may not retake at B4 at once
    moved = transform_position(game.position, k)
    assert moved.ko_action == transform_action(gtp_to_action("B4", 5), k, 5)
    assert moved.last_action == transform_action(gtp_to_action("C4", 5), k, 5)
    assert not moved.is_legal(moved.ko_action)
    encoder = get_encoder("sevenplane", game.rules)
    assert np.array_equal(transform_planes(encoder.encode(game.position), k), encoder.encode(moved))
