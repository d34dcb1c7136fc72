"""Property tests of the rules core: random legal playouts checked against definitions.

Every property drives games with a seeded numpy generator choosing among the
legal actions (pass included in Go), on sampled board sizes and every Go
preset and Gomoku variant. The independent checker in ``consistency.py``
re-derives chains, liberties, hashes and winners from the stones alone.
Under ``NUMBA_DISABLE_JIT=1`` the kernels are plain Python, so move budgets
are cut (hypothesis also runs fewer examples there, see ``tests/conftest.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import EngineError, Game, IllegalMoveError, Position, Rules
from engine.core.board import FORBIDDEN, KO_RECAPTURE, LEGAL, OCCUPIED, STONES
from engine.core.dispatch import is_terminal, pack_rules, terminal_value
from engine.core.playout import random_playout
from engine.core.position import GAME_OVER, OFF_BOARD, SUPERKO
from engine.core.rng import new_rng
from engine.core.rules import GO_PRESETS, GOMOKU_PRESETS
from engine.core.types import BLACK, EMPTY, WHITE, Color, Outcome
from tests.engine.core.consistency import chain_at, check_consistency, expected_go_verdict, winning_colors

NOJIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"
MOVE_BUDGET = 20 if NOJIT else 60
PASS_PROBABILITY = 0.1
LINES = ((0, 1), (1, 0), (1, 1), (1, -1))  # Gomoku directions as (row, col) steps


def _fewer(n: int) -> settings:
    """Per-test example cap that never raises the loaded profile's count."""
    return settings(max_examples=min(n, settings.default.max_examples))


# Small boards (full games, captures, ko, superko) as often as large ones (edge of the coordinate range).
go_sizes = st.one_of(st.integers(2, 7), st.integers(2, 25))
gomoku_sizes = st.one_of(st.integers(5, 9), st.integers(5, 25))
go_rules = st.builds(Rules.go, go_sizes, st.sampled_from(sorted(GO_PRESETS)))
gomoku_rules = st.builds(lambda n, k, variant: Rules.gomoku(n, min(k, n), variant),
                         gomoku_sizes, st.integers(4, 6), st.sampled_from(GOMOKU_PRESETS))
any_rules = st.one_of(go_rules, gomoku_rules)
seeds = st.integers(0, 2**32 - 1)


# ------------------------------------------------------------------ playouts
def touching(stones: np.ndarray, diagonal: bool) -> np.ndarray:
    """``bool[N, N]``: points next to a True cell of ``stones`` (orthogonally, or also diagonally)."""
    n = stones.shape[0]
    padded = np.zeros((n + 2, n + 2), dtype=np.bool_)
    padded[1:-1, 1:-1] = stones
    steps = [(0, 1), (1, 0), (1, 2), (2, 1)] + ([(0, 0), (0, 2), (2, 0), (2, 2)] if diagonal else [])
    return np.logical_or.reduce([padded[r:r + n, c:c + n] for r, c in steps])


def choose(mask: np.ndarray, position: Position, rng: np.random.Generator) -> int:
    """A random legal action, favouring points next to stones so chains grow, merge and get captured.

    Uniform moves on an open board almost never merge two large chains or make
    long lines; pass (the last action) is picked now and then.
    """
    color = int(position.to_play)
    points = mask[:-1]
    if mask[-1] and (not points.any() or rng.random() < PASS_PROBABILITY):
        return mask.shape[0] - 1
    board = position.board()
    diagonal = position.rules.game == "gomoku"
    weights = (1.0 + 6.0 * touching(board == color, diagonal) + 3.0 * touching(board == 3 - color, diagonal))
    if not diagonal:  # captures and kos are rare in random play: favour ataris taken and the opponent's eyes
        weights += 20.0 * touching((board == 3 - color) & (position.liberties() == 1), False)
        weights += 20.0 * ~touching(board != 3 - color, False)
    weights = weights.reshape(-1) * points
    return int(rng.choice(points.shape[0], p=weights / weights.sum()))


def random_moves(game: Game, rng: np.random.Generator, budget: int = MOVE_BUDGET) -> Iterator[int]:
    """Play up to ``budget`` random legal moves through ``Game.play``; yield each after it is played."""
    for _ in range(budget):
        mask = game.legal_mask()
        if not mask.any():
            return
        action = choose(mask, game.position, rng)
        game.play(action)
        yield action


def random_unchecked(position: Position, rng: np.random.Generator, budget: int) -> None:
    """Play up to ``budget`` random moves from ``Position.legal_mask`` with ``play_unchecked``."""
    for _ in range(budget):
        mask = position.legal_mask()
        if not mask.any():
            return
        position.play_unchecked(choose(mask, position, rng))


def stones_of(board: np.ndarray) -> tuple[list[int], list[int]]:
    flat = board.reshape(-1)
    return np.flatnonzero(flat == BLACK).tolist(), np.flatnonzero(flat == WHITE).tolist()


def line_through(board: np.ndarray, row: int, col: int, step: tuple[int, int]) -> int:
    """Length of the run of ``board[row, col]``'s colour through it along ``+-step``."""
    size, color, n = board.shape[0], board[row, col], 1
    for sign in (1, -1):
        r, c = row + sign * step[0], col + sign * step[1]
        while 0 <= r < size and 0 <= c < size and board[r, c] == color:
            n, r, c = n + 1, r + sign * step[0], c + sign * step[1]
    return n


def random_start(rules: Rules, rng: np.random.Generator) -> np.ndarray:
    """A random board of any density that play could continue from.

    Go: chains without liberties are taken off. Gomoku: no run reaches the
    winning length. Dense starts make the merges, multi-chain captures and
    long lines that sparse random play from an empty board rarely reaches.
    """
    n = rules.size
    board = np.zeros((n, n), dtype=np.int16)
    density = rng.uniform(0.0, 0.8)
    for action in rng.permutation(n * n)[: int(density * n * n)]:
        row, col = divmod(int(action), n)
        board[row, col] = rng.integers(BLACK, WHITE + 1)
        if rules.game == "gomoku" and max(line_through(board, row, col, d) for d in LINES) >= rules.win_length:
            board[row, col] = EMPTY
    if rules.game == "go":
        dead = [(int(r), int(c)) for r, c in np.argwhere(board) if not chain_at(board, r, c)[1]]
        for point in dead:
            board[point] = EMPTY
    return board


def new_game(rules: Rules, rng: np.random.Generator, dense: bool) -> Game:
    """An empty game, or one set up on a random start with a random side to move."""
    game = Game(rules)
    if dense:
        black, white = stones_of(random_start(rules, rng))
        game.setup(black=black, white=white, to_play=int(rng.integers(BLACK, WHITE + 1)))
    return game


# Go and Gomoku as separate test ids, so that each gets its own examples.
RULES_BY_GAME = {"go": go_rules, "gomoku": gomoku_rules}
per_game = pytest.mark.parametrize("game_name", sorted(RULES_BY_GAME))


def drawn_game(data: st.DataObject, game_name: str, seed: int, dense: bool) -> tuple[Game, np.random.Generator]:
    """A new game (see :func:`new_game`) under rules drawn for ``game_name``, and the generator that made it."""
    rng = np.random.default_rng(seed)
    return new_game(data.draw(RULES_BY_GAME[game_name], label="rules"), rng, dense), rng


# -------------------------------------------------------------- state checks
def snapshot(game: Game) -> tuple[bytes, bytes, list]:
    """Everything a move could change, as immutable copies."""
    return game.position.cells.tobytes(), game.position.info.tobytes(), list(game.moves)


def check_stone_count(game: Game) -> None:
    """Stones on the board plus stones captured equal stones put down, per colour."""
    board = game.position.board()
    for color in (BLACK, WHITE):
        put = sum(1 for m in game.moves if m.color == color and m.action != game.rules.pass_action)
        put += sum(1 for m in game.setup_stones if m.color == color)
        on_board = int(np.count_nonzero(board == color))
        assert on_board + game.position.captures(color) == put, (
            f"colour {color}: {on_board} on board + {game.position.captures(color)} captured != {put} played")


def expected_ko(before: np.ndarray, position: Position) -> int | None:
    """The simple-ko point after a move: the one stone it took, if a lone stone with that one liberty took it."""
    last = position.last_action
    if last is None or last == position.rules.pass_action:
        return None
    after = position.board()
    row, col = divmod(last, position.size)
    if after[row, col] == EMPTY:
        return None  # a suicide
    taken = np.flatnonzero((before.reshape(-1) == 3 - after[row, col]) & (after.reshape(-1) == EMPTY))
    chain, liberties = chain_at(after, row, col)
    if len(taken) == 1 and len(chain) == 1 and liberties == {divmod(int(taken[0]), position.size)}:
        return int(taken[0])
    return None


# ---------------------------------------------------------------- properties
@per_game
@given(data=st.data(), seed=seeds, dense=st.booleans())
def test_consistency_holds_after_every_move(game_name: str, data: st.DataObject, seed: int, dense: bool) -> None:
    game, rng = drawn_game(data, game_name, seed, dense)
    check_consistency(game.position)
    before = game.position.board().copy()
    for _ in random_moves(game, rng):
        check_consistency(game.position)
        check_stone_count(game)
        if game_name == "go":
            ko = expected_ko(before, game.position)
            assert game.position.ko_action == ko, f"ko point is {game.position.ko_action}, expected {ko}"
            # a capture that reaches the move cap ends the game: then every move is refused as GAME_OVER
            retake = game.position.check(ko) if ko is not None else None
            assert ko is None or retake == (GAME_OVER if game.is_over else KO_RECAPTURE), f"ko point {ko}: {retake}"
        before = game.position.board().copy()


@_fewer(20)
@given(rules=st.builds(Rules.go, st.integers(2, 9), st.sampled_from(sorted(GO_PRESETS))), seed=seeds)
def test_every_move_from_a_random_position_keeps_consistency(rules: Rules, seed: int) -> None:
    """Each legal move once from a dense start: captures, kos, merges and suicides in every shape."""
    rng = np.random.default_rng(seed)
    game = new_game(rules, rng, dense=True)
    before = game.position.board().copy()
    for action in np.flatnonzero(game.position.legal_mask()[:-1]).tolist():
        after = game.position.copy()
        after.play_unchecked(action)
        check_consistency(after)
        ko = expected_ko(before, after)
        assert after.ko_action == ko, f"after {action}: ko point is {after.ko_action}, expected {ko}"
        assert ko is None or after.check(ko) == KO_RECAPTURE, f"after {action}: ko point {ko} may be retaken"


@given(rules=any_rules, seed=seeds, dense=st.booleans())
def test_incremental_state_equals_rebuilt_from_stones(rules: Rules, seed: int, dense: bool) -> None:
    rng = np.random.default_rng(seed)
    game = new_game(rules, rng, dense)
    for _ in random_moves(game, rng):
        played = game.position
        rebuilt = Position.from_board(rules, played.board(), played.to_play)
        check_consistency(rebuilt, after_move=False)
        assert np.array_equal(rebuilt.cells[STONES], played.cells[STONES]), "stones differ"
        assert rebuilt.hash == played.hash, "hash of the rebuilt position differs"
        if rules.game == "go":
            assert np.array_equal(rebuilt.liberties(), played.liberties()), (
                f"liberties differ:\n{played.liberties()}\nrebuilt:\n{rebuilt.liberties()}")


@given(rules=any_rules, seed=seeds, dense=st.booleans())
def test_hash_does_not_depend_on_placement_order(rules: Rules, seed: int, dense: bool) -> None:
    rng = np.random.default_rng(seed)
    game = new_game(rules, rng, dense)
    for _ in random_moves(game, rng):
        pass
    black, white = stones_of(game.position.board())
    placed = Position(rules)
    stones = [(a, BLACK) for a in black] + [(a, WHITE) for a in white]
    for i in rng.permutation(len(stones)):
        placed.place(*stones[i])
    setup = Game(rules)
    setup.setup(black=rng.permutation(black).tolist(), white=rng.permutation(white).tolist())
    for other in (placed, setup.position):
        check_consistency(other, after_move=False)
        assert other.hash == game.position.hash, "same stones, different hash"
        assert np.array_equal(other.board(), game.position.board())
        if rules.game == "go":
            assert np.array_equal(other.liberties(), game.position.liberties())


def capture_free_moves(rules: Rules, rng: np.random.Generator) -> list:
    """Random non-pass moves from the empty board, stopped before the first capture or win."""
    game = Game(rules)
    for _ in range(MOVE_BUDGET):
        mask = game.legal_mask()
        mask[-1] = False
        if not mask.any():
            break
        before = int(np.count_nonzero(game.position.board()))
        game.play(choose(mask, game.position, rng))
        if np.count_nonzero(game.position.board()) <= before or game.is_over:
            game.undo()
            break
    return list(game.moves)


@given(rules=any_rules, seed=seeds)
def test_capture_free_move_orders_reach_the_same_hash(rules: Rules, seed: int) -> None:
    rng = np.random.default_rng(seed)
    moves = capture_free_moves(rules, rng)
    reference = Position(rules)
    for move in moves:
        reference.play_unchecked(move.action, move.color)
    queues = {c: [m.action for m in moves if m.color == c] for c in (BLACK, WHITE)}
    queues = {c: rng.permutation(q).tolist() for c, q in queues.items()}
    replay = Game(rules)
    for move in moves:  # the same colour sequence, each colour's points in another order
        action = queues[move.color].pop()
        if rules.game == "go":
            replay.play(action, move.color)  # no capture can occur on any subset of a capture-free board
        else:
            replay.position.play_unchecked(action, move.color)  # reordering may make an early five
    assert np.array_equal(replay.position.board(), reference.board())
    assert replay.position.hash == reference.hash, "same board after another move order, different hash"
    check_consistency(replay.position, after_move=rules.game == "go")


@given(rules=any_rules, seed=seeds, extra=st.integers(1, 8), dense=st.booleans())
def test_undo_restores_exactly(rules: Rules, seed: int, extra: int, dense: bool) -> None:
    rng = np.random.default_rng(seed)
    game = new_game(rules, rng, dense)
    start = snapshot(game), game.legal_mask()
    for _ in random_moves(game, rng, int(rng.integers(0, MOVE_BUDGET))):
        pass
    cells, info, moves = snapshot(game)
    game_mask, position_mask = game.legal_mask(), game.position.legal_mask()
    played = sum(1 for _ in random_moves(game, rng, extra))
    for _ in range(played):
        game.undo()
    assert game.position.cells.tobytes() == cells, "cells differ after undo"
    assert game.position.info.tobytes() == info, "info differs after undo"
    assert game.moves == moves
    assert np.array_equal(game.legal_mask(), game_mask), "superko legal mask differs after undo"
    assert np.array_equal(game.position.legal_mask(), position_mask), "legal mask differs after undo"
    while game.moves:
        game.undo()
    assert snapshot(game) == start[0] and np.array_equal(game.legal_mask(), start[1]), "undo to the start differs"
    with pytest.raises(EngineError):
        game.undo()


def test_undo_without_moves_raises_even_after_setup() -> None:
    game = Game(Rules.go(5, "chinese"))
    game.setup(black=[0, 6], white=[12])
    before = snapshot(game)
    with pytest.raises(EngineError):
        game.undo()
    assert snapshot(game) == before


@given(rules=any_rules, seed=seeds)
def test_copies_are_independent(rules: Rules, seed: int) -> None:
    rng = np.random.default_rng(seed)
    game = Game(rules)
    for _ in random_moves(game, rng, int(rng.integers(0, MOVE_BUDGET))):
        pass
    original = snapshot(game)
    position_copy = game.position.copy()
    random_unchecked(position_copy, rng, 8)
    game_copy = game.copy()
    for _ in random_moves(game_copy, rng, 8):
        pass
    assert snapshot(game) == original, "playing on a copy changed the original"
    copied = position_copy.cells.tobytes(), position_copy.info.tobytes()
    random_unchecked(game.position, rng, 8)
    assert (position_copy.cells.tobytes(), position_copy.info.tobytes()) == copied, (
        "playing on the original changed its copy")


def check_verdicts_agree(game: Game, color: int) -> None:
    """Masks, ``check`` and ``is_legal`` of both Position and Game agree on every action."""
    position = game.position
    position_mask, game_mask = position.legal_mask(color), game.legal_mask(color)
    for action in range(game.rules.num_actions):
        verdict = position.check(action, color)
        assert position_mask[action] == (verdict == LEGAL) == position.is_legal(action, color), (
            f"Position disagrees on action {action} for colour {color}: verdict {verdict}")
        if action < game.rules.pass_action and not position.is_over:
            expected = expected_verdict(position, action, color)
            assert verdict in expected, f"action {action} for colour {color}: verdict {verdict}, expected {expected}"
        verdict = game.check(action, color)
        assert game_mask[action] == (verdict == LEGAL) == game.is_legal(action, color), (
            f"Game disagrees on action {action} for colour {color}: verdict {verdict}")
    for action in (-1, game.rules.num_actions):
        assert position.check(action, color) == game.check(action, color) == OFF_BOARD


def expected_verdict(position: Position, action: int, color: int) -> tuple[int, ...]:
    """The verdicts the rules allow for a point move (renju's forbidden points are not re-derived)."""
    if position.rules.game == "go":
        return (expected_go_verdict(position, action, color),)
    if position.board().reshape(-1)[action] != EMPTY:
        return (OCCUPIED,)
    return (LEGAL, FORBIDDEN) if position.rules.variant == "renju" and color == BLACK else (LEGAL,)


def check_illegal_moves_change_nothing(game: Game, color: int, rng: np.random.Generator) -> None:
    mask = game.legal_mask(color)
    illegal = np.flatnonzero(~mask).tolist()
    sample = rng.permutation(illegal)[:4].tolist() + [-1, game.rules.num_actions]
    before = snapshot(game)
    for action in sample:
        with pytest.raises(IllegalMoveError):
            game.play(action, color)
        assert snapshot(game) == before, f"rejected move {action} changed the state"


@_fewer(25)
@per_game
@given(data=st.data(), seed=seeds, dense=st.booleans())
def test_legal_mask_agrees_with_check_and_play(game_name: str, data: st.DataObject, seed: int, dense: bool) -> None:
    game, rng = drawn_game(data, game_name, seed, dense)
    for _ in random_moves(game, rng, MOVE_BUDGET // 3):
        if rng.random() < 0.3:
            for color in (BLACK, WHITE):
                check_verdicts_agree(game, color)
                check_illegal_moves_change_nothing(game, color, rng)


@given(rules=any_rules, seed=seeds, dense=st.booleans())
def test_game_legal_mask_matches_what_play_accepts(rules: Rules, seed: int, dense: bool) -> None:
    rng = np.random.default_rng(seed)
    game = new_game(rules, rng, dense)
    for _ in random_moves(game, rng):
        color = int(rng.choice([BLACK, WHITE]))
        mask = game.legal_mask(color)
        for action in rng.permutation(np.flatnonzero(mask))[:3]:
            game.copy().play(int(action), color)  # must not raise
        for action in rng.permutation(np.flatnonzero(~mask))[:3]:
            with pytest.raises(IllegalMoveError):
                game.copy().play(int(action), color)


def superko_key(position: Position, ko: str) -> object:
    """What may not repeat: the stones (positional) or the stones and the side to move (situational)."""
    stones = position.board().tobytes()
    return (stones, int(position.to_play)) if ko == "situational" else stones


@given(rules=st.builds(Rules.go, st.integers(2, 6), st.sampled_from(sorted(GO_PRESETS))), seed=seeds,
       dense=st.booleans())
def test_superko_forbids_exactly_the_repeats(rules: Rules, seed: int, dense: bool) -> None:
    rng = np.random.default_rng(seed)
    game = new_game(rules, rng, dense)
    seen = {superko_key(game.position, rules.ko)}
    for action in random_moves(game, rng, 2 * MOVE_BUDGET):
        key = superko_key(game.position, rules.ko)
        if rules.ko != "simple" and action != rules.pass_action:
            assert key not in seen, f"move {action} repeated a position under {rules.ko} superko"
        seen.add(key)
        for candidate in np.flatnonzero(game.position.legal_mask()[:-1]):
            after = game.position.copy()
            after.play_unchecked(int(candidate))
            repeats = rules.ko != "simple" and superko_key(after, rules.ko) in seen
            verdict = game.check(int(candidate))
            assert (verdict == SUPERKO) == repeats, (
                f"action {candidate}: verdict {verdict}, repeats an earlier position: {repeats}")


def check_history(position: Position, boards: list[np.ndarray]) -> None:
    """``history()[age]`` is the board ``age`` moves ago (``boards[-1]`` is now), empty before the start."""
    for age, board in enumerate(position.history()):
        expected = boards[-1 - age] if age < len(boards) else np.full_like(board, EMPTY)
        assert np.array_equal(board, expected), (
            f"history[{age}] after {len(boards) - 1} moves:\n{board}\nexpected:\n{expected}")


@given(rules=any_rules, seed=seeds, dense=st.booleans())
def test_history_holds_the_last_boards(rules: Rules, seed: int, dense: bool) -> None:
    rng = np.random.default_rng(seed)
    game = new_game(rules, rng, dense)
    boards = [game.position.board().copy()]
    check_history(game.position, boards)
    for _ in random_moves(game, rng):
        boards.append(game.position.board().copy())
        check_history(game.position, boards)


def wins_through(board: np.ndarray, row: int, col: int, rules: Rules) -> bool:
    """Whether the stone at (row, col) lies on a line that wins under the variant."""
    color = int(board[row, col])
    exact = rules.variant == "standard" or (rules.variant == "renju" and color == BLACK)
    lengths = [line_through(board, row, col, d) for d in LINES]
    return any(n == rules.win_length or (n > rules.win_length and not exact) for n in lengths)


def longest_line_if_played(board: np.ndarray, action: int, color: int) -> int:
    row, col = divmod(action, board.shape[0])
    board[row, col] = color
    longest = max(line_through(board, row, col, d) for d in LINES)
    board[row, col] = EMPTY
    return longest


@given(rules=gomoku_rules, seed=seeds)
def test_gomoku_move_wins_exactly_when_it_completes_a_winning_line(rules: Rules, seed: int) -> None:
    rng = np.random.default_rng(seed)
    board = random_start(rules, rng)
    start = Position.from_board(rules, board)
    moves = [(a, c) for a in np.flatnonzero(board.reshape(-1) == EMPTY).tolist() for c in (BLACK, WHITE)]
    # Lines of k and overlines are rare among random points: try every such move, plus a few others.
    long = [m for m in moves if longest_line_if_played(board, *m) >= rules.win_length]
    sample = [moves[i] for i in rng.permutation(len(moves))[:10]]
    for action, color in long[:30] + sample:
        after = start.copy()
        after.play_unchecked(action, color)  # legality (renju) is not the point here
        wins = wins_through(after.board(), *divmod(action, rules.size), rules)
        assert after.winner == (color if wins else None), (
            f"{rules}: colour {color} at {action}, wins by the lines: {wins}, engine's winner {after.winner}")
        if wins or rng.random() < 0.1:
            assert winning_colors(after.board(), rules.win_length, rules.variant) == ({color} if wins else set())


def expected_lead(position: Position) -> float:
    """Black's lead by counting (every stone alive, komi included), written from the definitions.

    Area: stones plus empty regions that only one colour borders. Territory:
    those regions plus prisoners.
    """
    board, rules = position.board(), position.rules
    territory = rules.scoring == "territory"
    lead = 0 if territory else int(np.count_nonzero(board == BLACK)) - int(np.count_nonzero(board == WHITE))
    seen = board != EMPTY
    for row, col in np.argwhere(board == EMPTY):
        if seen[row, col]:
            continue
        seen[row, col] = True
        region, borders, todo = 0, set(), [(int(row), int(col))]
        while todo:
            r, c = todo.pop()
            region += 1
            for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= q[0] < rules.size and 0 <= q[1] < rules.size:
                    if board[q] != EMPTY:
                        borders.add(int(board[q]))
                    elif not seen[q]:
                        seen[q] = True
                        todo.append(q)
        if len(borders) == 1:
            lead += region if borders == {BLACK} else -region
    if territory:
        lead += position.captures(WHITE) - position.captures(BLACK)
    return lead - rules.komi


def expected_end(position: Position) -> Outcome | None:
    """The result the rules give (every stone alive), None while the game goes on."""
    rules, board = position.rules, position.board()
    if rules.game == "go":
        if position.passes < 2 and position.move_number < rules.move_cap:
            return None
        return Outcome.from_lead(expected_lead(position))
    winners = winning_colors(board, rules.win_length, rules.variant)
    if winners:
        return Outcome(Color(winners.pop()), None, "five")
    if position.move_number < rules.move_cap and (board == EMPTY).any():
        return None
    return Outcome(None, 0.0, "full-board")


def check_end(position: Position) -> None:
    """Position and the dispatch kernels the search calls end and score the game as the rules say."""
    expected = expected_end(position)
    spec, geo = pack_rules(position.rules), position.geo
    assert position.is_over == bool(is_terminal(position.cells, position.info, spec)) == (expected is not None), (
        f"{position}: over by the rules: {expected is not None}")
    assert position.outcome() == expected
    if expected is not None:
        assert not position.legal_mask().any() and position.check(0) == GAME_OVER
        value = terminal_value(position.cells, position.info, geo.width, geo.action_point, spec,
                               float(position.rules.komi))
        assert value == expected.value_for(position.to_play), f"{position}: value {value} for {expected}"


@given(rules=any_rules, seed=seeds, dense=st.booleans(), keep_eyes=st.booleans())
def test_the_end_and_result_follow_the_rules_in_position_search_and_playouts(rules: Rules, seed: int, dense: bool,
                                                                              keep_eyes: bool) -> None:
    """Checked moves first, then a compiled random playout to the end (its own end test) from there."""
    rng = np.random.default_rng(seed)
    game = new_game(rules, rng, dense)
    check_end(game.position)
    for _ in random_moves(game, rng):
        check_end(game.position)
    position = game.position.copy()
    geo = position.geo
    random_playout(position.cells, position.info, geo.zobrist, geo.width, geo.action_point, pack_rules(rules),
                   keep_eyes, new_rng(seed), np.empty(rules.num_points, np.int64), np.empty(0, np.int64))
    check_end(position)
    assert position.is_over or not position.legal_mask().any(), "the playout stopped with legal moves left"
