"""Evaluators: legal-move masking and renormalisation, values, the cache, random symmetry, devices and dtypes."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import pytest
import torch

from encoders import symmetry
from encoders.registry import get_encoder
from engine.core.game import Game
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.types import BLACK, EMPTY, WHITE
from engine.formats.diagram import parse_diagram
from engine.nn.cached_evaluator import Symmetries
from engine.nn.evaluator import NetEvaluator, pick_device, pick_dtype, pick_runtime, set_cpu_threads
from engine.nn.model_file import Model, ModelFormatError, ModelInfo, load_model, save_model
from engine.nn.net import NetConfig, PolicyValueNet
from engine.search.evaluator import Evaluation, Evaluator, UniformEvaluator, masked_softmax
from tests.support.games import play_stones


class TwoPlanes:
    """Stand-in encoder: own stones, opponent stones (from the side to move's point of view)."""

    name = "two"
    num_planes = 2

    def __init__(self, uses_history: bool = False) -> None:
        self.uses_history = uses_history
        self.calls = 0

    def encode_batch(self, positions: Sequence[Position]) -> np.ndarray:
        self.calls += 1
        boards = np.stack([p.board() for p in positions])
        me = np.array([int(p.to_play) for p in positions])[:, None, None]
        own = boards == me
        theirs = (boards != EMPTY) & ~own
        return np.stack([own, theirs], axis=1).astype(np.uint8)


AUX = ("ownership", "score")
HEADS = Evaluation._fields[:Evaluation._fields.index("proven")]
"""The fields of an evaluation that the network gives (its proofs come from Gomoku's decisive moves)."""


def _net(size: int | None, heads: str = "fc", seed: int = 0, aux_heads: tuple[str, ...] = ()) -> PolicyValueNet:
    torch.manual_seed(seed)
    return PolicyValueNet(NetConfig(1, 8, 2, size, heads, aux_heads))


def _eager(net: PolicyValueNet | Model, encoder: TwoPlanes, **options: object) -> NetEvaluator:
    """An fp32 CPU evaluator without torch.compile (compiling takes seconds)."""
    return NetEvaluator(net, encoder, device="cpu", runtime="eager", dtype="fp32", **options)  # type: ignore[arg-type]


def _positions(rules: Rules, count: int, seed: int = 0) -> list[Position]:
    """Positions along random legal games (captures and ko included on small boards)."""
    rng = np.random.default_rng(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position(rules)
        for _ in range(rng.integers(0, 3 * rules.num_points)):
            legal = np.flatnonzero(position.legal_mask()[:-1])  # no passes, so the game goes on
            if len(legal) == 0 or position.is_over:
                break
            position.play_unchecked(int(rng.choice(legal)))
        if not position.is_over:
            found.append(position)
    return found


def _check_priors(priors: np.ndarray, positions: list[Position], underflow: bool = False) -> None:
    """Exactly 0 on illegal actions, sums to 1; > 0 on legal ones unless float32 ``underflow`` is expected."""
    assert priors.dtype == np.float32
    for row, position in zip(priors, positions):
        mask = position.legal_mask()
        assert np.all(row[~mask] == 0.0), "an illegal action has probability"
        assert underflow or np.all(row[mask] > 0.0)
        assert abs(float(row.sum()) - 1.0) < 1e-5


# ---------------------------------------------------------------- uniform
def test_uniform_evaluator() -> None:
    positions = _positions(Rules.go(5, "japanese"), 12)
    evaluation = UniformEvaluator().evaluate(positions)
    priors, values = evaluation.priors, evaluation.values
    _check_priors(priors, positions)
    for row, position in zip(priors, positions):
        np.testing.assert_allclose(row[position.legal_mask()], 1.0 / position.legal_mask().sum(), rtol=1e-6)
    assert values.shape == (12,) and values.dtype == np.float32 and not values.any()
    assert isinstance(UniformEvaluator(), Evaluator)


def test_gomoku_never_gets_pass() -> None:
    positions = _positions(Rules.gomoku(7), 6)
    priors = UniformEvaluator().evaluate(positions).priors
    _check_priors(priors, positions)
    assert not priors[:, -1].any()


def test_finished_game_puts_all_mass_on_pass() -> None:
    game = Game(Rules.go(5, "chinese"))
    game.play(25)
    game.play(25)
    assert not game.position.legal_mask().any()
    priors = UniformEvaluator().evaluate([game.position]).priors
    assert priors[0, -1] == 1.0 and priors[0].sum() == 1.0


def test_masked_softmax_matches_softmax_over_legal_actions() -> None:
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(6, 10)).astype(np.float32) * 30  # large logits: exp would overflow unshifted
    masks = rng.random((6, 10)) < 0.5
    masks[0] = False
    priors = masked_softmax(logits, masks)
    for row, logit, mask in zip(priors[1:], logits[1:], masks[1:]):
        want = np.exp(logit[mask].astype(np.float64) - logit[mask].max())
        np.testing.assert_allclose(row[mask], want / want.sum(), rtol=1e-5, atol=1e-7)
        assert np.all(row[~mask] == 0)
    assert priors[0, -1] == 1 and priors[0, :-1].sum() == 0


# ------------------------------------------------------------------- net
@pytest.mark.parametrize("heads,size,aux", [("fc", 5, ()), ("fc", 9, AUX), ("pooled", 9, ()), ("pooled", 9, AUX),
                                            ("pooled", 5, ("ownership",)), ("fc", 5, ("score",))])
def test_net_evaluator_masks_and_renormalises(heads: str, size: int, aux: tuple[str, ...]) -> None:
    rules = Rules.go(size, "japanese")
    positions = _positions(rules, 10)
    net = _net(None if heads == "pooled" else size, heads, aux_heads=aux)
    evaluator = _eager(net, TwoPlanes())
    evaluation = evaluator.evaluate(positions)
    priors, values = evaluation.priors, evaluation.values
    _check_priors(priors, positions)
    assert values.shape == (10,) and values.dtype == np.float32
    assert np.all(np.abs(values) <= 1.0)
    # The priors are the network's softmax restricted to the legal actions (checked with torch's own softmax).
    with torch.no_grad():
        want = net.eval()(torch.from_numpy(TwoPlanes().encode_batch(positions)).float())
    masks = torch.from_numpy(np.stack([p.legal_mask() for p in positions]))
    want_priors = torch.softmax(want.policy.masked_fill(~masks, float("-inf")), dim=1).numpy()
    np.testing.assert_allclose(priors, want_priors, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(values, want.value.numpy(), rtol=1e-4, atol=1e-5)
    # The auxiliary heads come through as the network gives them, None where it has none.
    heads_out = evaluation
    assert evaluator.aux_heads == aux
    shapes = {"ownership": (10, size * size), "score_mean": (10,), "score_stdev": (10,)}
    for name, shape in shapes.items():
        got, expected = getattr(heads_out, name), getattr(want, name)
        assert (got is None) == (name.split("_")[0] not in aux) == (expected is None), name
        if got is not None:
            assert got.shape == shape and got.dtype == np.float32, name
            np.testing.assert_allclose(got, expected.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)
    if "score" in aux:
        assert np.all(heads_out.score_stdev > 0)
    if "ownership" in aux:
        assert np.all(np.abs(heads_out.ownership) <= 1)


def test_values_stay_in_range_with_extreme_weights() -> None:
    net = _net(5)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.mul_(50)
    positions = _positions(Rules.go(5, "japanese"), 8)
    evaluation = _eager(net, TwoPlanes()).evaluate(positions)
    priors, values = evaluation.priors, evaluation.values
    _check_priors(priors, positions, underflow=True)
    assert np.all(np.abs(values) <= 1.0)


def test_bf16_runs_and_stays_close_to_fp32() -> None:
    positions = _positions(Rules.go(5, "japanese"), 6)
    net = _net(5)
    fp32 = _eager(net, TwoPlanes()).evaluate(positions)
    bf16_evaluator = NetEvaluator(net, TwoPlanes(), device="cpu", runtime="eager", dtype="bf16")
    assert bf16_evaluator.dtype_name == "bf16"
    bf16 = bf16_evaluator.evaluate(positions)
    _check_priors(bf16.priors, positions)
    np.testing.assert_allclose(bf16.priors, fp32.priors, atol=0.02)
    np.testing.assert_allclose(bf16.values, fp32.values, atol=0.05)


def test_cache_hits_return_identical_results() -> None:
    positions = _positions(Rules.go(9, "japanese"), 8)
    encoder = TwoPlanes()
    evaluator = _eager(_net(9, aux_heads=AUX), encoder, cache_size=100)
    first = evaluator.evaluate(positions)
    assert (evaluator.hits, evaluator.misses, encoder.calls) == (0, 8, 1)
    again = evaluator.evaluate(positions[::-1])
    assert (evaluator.hits, encoder.calls) == (8, 1), "cached positions were encoded again"
    assert first.proven is None and again.proven is None  # Go: nothing proven
    for field, got, want in zip(HEADS, again, first):
        np.testing.assert_array_equal(got, want[::-1], err_msg=field)
    mixed = evaluator.evaluate(positions[:3] + _positions(Rules.go(9, "japanese"), 2, seed=7))
    assert (evaluator.hits, encoder.calls) == (11, 2)
    for got, want in zip(mixed[:len(HEADS)], first):
        np.testing.assert_array_equal(got[:3], want[:3])
    uncached = _eager(_net(9, aux_heads=AUX), TwoPlanes(), cache_size=0).evaluate(positions)
    for got, want in zip(uncached[:len(HEADS)], first):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_submissions_read_in_any_order_give_what_evaluate_gives() -> None:
    rules = Rules.go(9, "japanese")
    early, late = _positions(rules, 6), _positions(rules, 5, seed=3) + _positions(rules, 2)[:1]
    reference = _eager(_net(9, aux_heads=AUX), TwoPlanes(), cache_size=0)
    evaluator = _eager(_net(9, aux_heads=AUX), TwoPlanes(), cache_size=100)
    assert not evaluator.asynchronous   # on a CPU the network runs within submit
    first, second = evaluator.submit(early), evaluator.submit(late)   # late's last position is early's first
    assert evaluator.misses == 12, "nothing is cached before a result is read"
    for pending, positions in ((second, late), (first, early)):
        got, want = pending.result(), reference.evaluate(positions)
        assert pending.result() is got
        for field, a, b in zip(HEADS, got, want):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=field)
    again = evaluator.evaluate(early)
    assert evaluator.hits == 6
    np.testing.assert_array_equal(again.priors, first.result().priors)


def test_cache_is_bounded_and_evicts_the_least_recent() -> None:
    positions = _positions(Rules.go(5, "japanese"), 5)
    encoder = TwoPlanes()
    evaluator = _eager(_net(5), encoder, cache_size=3)
    for position in positions[:3]:
        evaluator.evaluate([position])
    evaluator.evaluate([positions[0]])                 # refresh 0: now 1 is the least recent
    evaluator.evaluate([positions[3]])                 # evicts 1
    calls = encoder.calls
    evaluator.evaluate([positions[0], positions[2], positions[3]])
    assert encoder.calls == calls, "a recent entry was evicted"
    evaluator.evaluate([positions[1]])
    assert encoder.calls == calls + 1, "the least recent entry was kept"
    assert len(evaluator._cache) == 3


KO_SHAPE = """
. . . . .
. X O . .
X O . O .
. X O . .
. . . . .
"""


def test_cache_masks_for_the_position_asked() -> None:
    """Same stones and side to move, one with a ko: masking is redone per call, not cached."""
    rules = Rules.go(5, "japanese")
    before = Position.from_board(rules, parse_diagram(KO_SHAPE), BLACK)
    before.play_unchecked(12)   # black C3 takes the white stone at B3: a ko
    assert before.ko_action == 11
    no_ko = Position.from_board(rules, before.board(), WHITE)
    assert no_ko.ko_action is None and no_ko.legal_mask()[11]
    evaluator = _eager(_net(5), TwoPlanes(), cache_size=10)
    evaluator._history = False     # key on the position alone, so that the two could share an entry
    ko_priors = evaluator.evaluate([before]).priors
    free_priors = evaluator.evaluate([no_ko]).priors
    assert ko_priors[0, 11] == 0.0 and free_priors[0, 11] > 0.0
    _check_priors(ko_priors, [before])
    _check_priors(free_priors, [no_ko])


def test_history_encoders_key_the_cache_on_the_history_too() -> None:
    rules = Rules.go(5, "japanese")
    one, two = Position(rules), Position(rules)
    for action in (0, 12, 24):
        one.play_unchecked(action)
    for action in (24, 12, 0):
        two.play_unchecked(action)
    assert one.key == two.key and not np.array_equal(one.history(), two.history())
    with_history = _eager(_net(5), TwoPlanes(uses_history=True))
    with_history.evaluate([one])
    with_history.evaluate([two])
    assert with_history.hits == 0
    stones_only = _eager(_net(5), TwoPlanes(uses_history=False))
    stones_only.evaluate([one])
    stones_only.evaluate([two])
    assert stones_only.hits == 1


def test_random_symmetry_keeps_illegal_moves_at_zero() -> None:
    positions = _positions(Rules.go(7, "japanese"), 16, seed=4)
    evaluator = _eager(_net(7), TwoPlanes(), random_symmetry=True, seed=1, cache_size=0)
    for _ in range(3):
        evaluation = evaluator.evaluate(positions)
        priors, values = evaluation.priors, evaluation.values
        _check_priors(priors, positions)
        assert np.all(np.abs(values) <= 1.0)


def test_random_symmetry_evaluates_the_transformed_board() -> None:
    """With symmetry k forced, the priors are those of the transformed board, mapped back."""
    rules = Rules.go(7, "japanese")
    positions = _positions(rules, 8, seed=5)
    net = _net(7, aux_heads=AUX)
    plain = _eager(net, TwoPlanes(), cache_size=0)
    evaluator = _eager(net, TwoPlanes(), random_symmetry=True, cache_size=0)
    ks = np.arange(8)

    class Fixed:
        def integers(self, low: int, high: int, size: int) -> np.ndarray:
            return ks[:size]

    evaluator._rng = Fixed()  # type: ignore[assignment]
    heads = evaluator.evaluate(positions)
    for k, position, row, value, ownership, score in zip(ks, positions, heads.priors, heads.values, heads.ownership,
                                                         heads.score_mean):
        board = position.board()
        n = board.shape[0]
        turned = np.rot90(np.fliplr(board) if k >= 4 else board, k % 4)
        other = Position.from_board(rules, np.ascontiguousarray(turned), position.to_play)
        other_heads = plain.evaluate([other])
        grid = np.arange(n * n).reshape(n, n)
        source = np.rot90(np.fliplr(grid) if k >= 4 else grid, k % 4).reshape(-1)  # input cell of each output
        back = np.empty(n * n + 1, dtype=np.float32)
        back[source] = other_heads.priors[0, :-1]
        back[-1] = other_heads.priors[0, -1]
        if position.ko_action is None:  # from_board drops the ko point, so masks differ only with a ko
            np.testing.assert_allclose(row, back, rtol=1e-4, atol=1e-6)
        owned_back = np.empty(n * n, dtype=np.float32)
        owned_back[source] = other_heads.ownership[0]
        np.testing.assert_allclose(ownership, owned_back, rtol=1e-4, atol=1e-5)
        assert abs(value - other_heads.values[0]) < 1e-5
        assert abs(score - other_heads.score_mean[0]) < 1e-4


def test_evaluator_symmetries_agree_with_the_encoders_package() -> None:
    size = 5
    tables = Symmetries(size)
    planes = np.random.default_rng(0).integers(0, 9, (8, 3, size, size))
    logits = np.random.default_rng(1).normal(size=(8, size * size + 1)).astype(np.float32)
    ks = np.arange(8)
    turned = tables.planes(planes, ks)
    undone = tables.undo_policy(logits, ks)
    points = tables.undo_points(logits[:, :-1], ks)
    for k in range(8):
        np.testing.assert_array_equal(turned[k], symmetry.transform_planes(planes[k], k))
        np.testing.assert_array_equal(undone[k], symmetry.inverse_policy(logits[k], k))
        want = symmetry.inverse_planes(logits[k, :-1].reshape(size, size), k).reshape(-1)
        np.testing.assert_array_equal(points[k], want)


def test_with_a_real_encoder_and_a_model_file(tmp_path: pytest.TempPathFactory) -> None:
    rules = Rules.go(9, "chinese")
    encoder = get_encoder("zero17", rules)
    config = NetConfig(1, 8, encoder.num_planes, 9)
    path = save_model(tmp_path / "m.safetensors",
                      Model(PolicyValueNet(config), ModelInfo("go", "zero17", encoder.num_planes, config)))
    model = load_model(path, expect_game="go", expect_size=9, expect_encoder=encoder)
    positions = _positions(rules, 6)
    evaluation = NetEvaluator(model, encoder, device="cpu", runtime="eager").evaluate(positions)
    priors, values = evaluation.priors, evaluation.values
    _check_priors(priors, positions)
    assert np.all(np.abs(values) <= 1.0)


def test_encoder_mismatch_is_refused() -> None:
    config = NetConfig(1, 8, 2, 5)
    model = Model(PolicyValueNet(config), ModelInfo("go", "other", 2, config))
    with pytest.raises(ModelFormatError, match="reads encoder other"):
        NetEvaluator(model, TwoPlanes(), device="cpu", runtime="eager")
    with pytest.raises(ModelFormatError, match="reads 3 planes"):
        NetEvaluator(PolicyValueNet(NetConfig(1, 8, 3, 5)), TwoPlanes(), device="cpu", runtime="eager")


def test_compile_failure_falls_back_to_eager(caplog: pytest.LogCaptureFixture) -> None:
    positions = _positions(Rules.go(5, "japanese"), 3)
    eager = _eager(_net(5), TwoPlanes()).evaluate(positions)
    evaluator = _eager(_net(5), TwoPlanes())

    def broken(x: torch.Tensor) -> None:
        raise RuntimeError("no C++ compiler")

    evaluator._compiled, evaluator.runtime = broken, "compile"  # a compiled forward that fails (importing
    # torch._dynamo for a real one takes seconds; test_compiled_network_matches_eager does that)
    with caplog.at_level("WARNING"):
        got = evaluator.evaluate(positions)
    assert evaluator.runtime == "eager" and "no C++ compiler" in caplog.text
    np.testing.assert_array_equal(got.priors, eager.priors)


@pytest.mark.slow
def test_compiled_network_matches_eager() -> None:
    """torch.compile (the CPU default): same answers, batch 1 included; one compilation (seconds)."""
    positions = _positions(Rules.go(5, "japanese"), 5)
    eager = _eager(_net(5, aux_heads=AUX), TwoPlanes(), cache_size=0)
    compiled = NetEvaluator(_net(5, aux_heads=AUX), TwoPlanes(), device="cpu", runtime="compile", dtype="fp32",
                            cache_size=0)
    for batch in (positions, positions[:1]):
        want, got = eager.evaluate(batch), compiled.evaluate(batch)
        for field, a, b in zip(HEADS, got, want):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=field)
            assert len(a) == len(batch)
    assert compiled.runtime == "compile", "compiling failed and fell back to eager"
    assert compiled.compiled_sizes == {5}


def test_device_and_dtype_choice() -> None:
    assert pick_device("cpu").type == "cpu"
    assert pick_device(None).type in ("cpu", "cuda", "mps")
    cpu = torch.device("cpu")
    assert pick_dtype("fp32", cpu) == torch.float32
    assert pick_dtype("bf16", cpu) == torch.bfloat16
    assert pick_dtype("auto", cpu) in (torch.float32, torch.bfloat16)
    with pytest.raises(ValueError, match="unknown dtype"):
        pick_dtype("fp8", cpu)
    assert pick_runtime("auto", cpu) == "compile" and pick_runtime("eager", cpu) == "eager"
    assert pick_runtime("auto", torch.device("cuda")) == "eager"
    with pytest.raises(ValueError, match="unknown runtime"):
        pick_runtime("onnx", cpu)


def test_network_copy_is_frozen() -> None:
    """Training the original net after building the evaluator does not change its answers."""
    net = _net(5)
    positions = _positions(Rules.go(5, "japanese"), 3)
    evaluator = _eager(net, TwoPlanes(), cache_size=0)
    before = evaluator.evaluate(positions)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.add_(1.0)
    after = evaluator.evaluate(positions)
    np.testing.assert_array_equal(before.priors, after.priors)


def test_an_evaluator_leaves_the_process_thread_count_alone() -> None:
    """Torch's thread pool is the process's: only ``set_cpu_threads`` (called by the CLI layer) sizes it."""
    before = torch.get_num_threads()
    try:
        set_cpu_threads(1)
        _eager(_net(5), TwoPlanes())
        assert torch.get_num_threads() == 1
        assert set_cpu_threads(None) == len(os.sched_getaffinity(0)) == torch.get_num_threads()
    finally:
        torch.set_num_threads(before)


# ------------------------------------------------------ decisive moves
def _freestyle(black: list[str], white: list[str]) -> Position:
    return play_stones(Rules.gomoku(15, 5, "freestyle"), black, white).position


def test_the_network_takes_a_five_and_stops_a_four_and_is_left_alone_elsewhere() -> None:
    from engine.core.coords import gtp_to_action

    win = _freestyle(["E8", "F8", "G8", "H8", "C3"], ["D8", "E10", "F11", "G12", "K3"])  # black: J8 makes five
    stop = _freestyle(["E5", "H10", "C13", "M12"], ["F5", "G5", "H5", "J5"])           # black must take K5
    quiet = _freestyle(["H8"], ["J9"])
    positions = [win, stop, quiet]
    net = _net(None, "pooled")
    plain = _eager(net, TwoPlanes(), decisive=False).evaluate(positions)
    decisive = _eager(net, TwoPlanes()).evaluate(positions)
    assert decisive.values[0] == 1.0 and plain.values[0] != 1.0
    np.testing.assert_array_equal(np.flatnonzero(decisive.priors[0]), [gtp_to_action("J8", 15)])
    np.testing.assert_array_equal(np.flatnonzero(decisive.priors[1]), [gtp_to_action("K5", 15)])
    assert decisive.values[1] == plain.values[1]
    assert (plain.priors[:2] > 0).sum() > 2   # the network alone spreads its priors
    np.testing.assert_array_equal(decisive.priors[2], plain.priors[2])
    assert decisive.values[2] == plain.values[2]


def test_decisive_moves_leave_go_alone() -> None:
    positions = _positions(Rules.go(9), 6)
    net = _net(None, "pooled")
    plain = _eager(net, TwoPlanes(), decisive=False).evaluate(positions)
    default = _eager(net, TwoPlanes()).evaluate(positions)
    np.testing.assert_array_equal(plain.priors, default.priors)
    np.testing.assert_array_equal(plain.values, default.values)
