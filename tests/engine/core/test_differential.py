"""Differential tests: the Go rules core against two independent implementations.

* sgfmill's ``Board`` (captures and the simple-ko point) on random legal games.
* GNU Go 3.8 over GTP: ``is_legal`` for every empty point and both colours at
  positions sampled from random games, and ``final_score`` under Chinese (area)
  and Japanese (territory) rules on finished games whose score is unambiguous.
* The GTP client those tests rely on, against a scripted fake engine.

GNU Go knows only simple ko with suicide illegal, so the games are played under
``Rules.go(N, "japanese")``, which has exactly those rules. Counts shrink under
``NUMBA_DISABLE_JIT=1`` (see ``SCALE``).
"""

from __future__ import annotations

import os
import sys
import textwrap

import numpy as np
import pytest
from sgfmill import boards

from engine.core.coords import action_to_gtp
from engine.core.game import Game
from engine.core.position import REASONS
from engine.core.rules import Rules
from engine.core.types import BLACK, EMPTY, WHITE, Color
from training.gtp_client import GTPClient, GTPError, GTPTimeout, gnugo_argv

SCALE = 0.1 if os.environ.get("NUMBA_DISABLE_JIT") == "1" else 1.0


def scaled(count: int) -> int:
    return max(1, round(count * SCALE))


# ------------------------------------------------------------------ games
def random_move(game: Game, rng: np.random.Generator) -> int:
    """An action drawn uniformly from ``game.legal_mask()`` (pass included)."""
    return int(rng.choice(np.flatnonzero(game.legal_mask())))


def random_game(rules: Rules, rng: np.random.Generator) -> Game:
    """A game of :func:`random_move` moves, played until two passes or the move cap."""
    game = Game(rules)
    while not game.is_over:
        game.play(random_move(game, rng))
    return game


def gtp_play(color: int, action: int, size: int) -> str:
    return f"play {Color(color).letter} {action_to_gtp(action, size)}"


def history(game: Game) -> str:
    """The game's moves in GTP form, to replay a failure."""
    return "moves: " + " ".join(f"{m.color.letter} {action_to_gtp(m.action, game.rules.size)}" for m in game.moves)


def neighbour_table(size: int) -> np.ndarray:
    """``int64[N*N, 4]``: the four neighbours of each action, ``N*N`` standing for the edge."""
    rows, cols = np.divmod(np.arange(size * size), size)
    table = np.full((size * size, 4), size * size, dtype=np.int64)
    for k, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
        r, c = rows + dr, cols + dc
        on_board = (r >= 0) & (r < size) & (c >= 0) & (c < size)
        table[on_board, k] = r[on_board] * size + c[on_board]
    return table


def own_eyes(game: Game, color: int, neighbours: np.ndarray) -> np.ndarray:
    """``bool[N*N]``: empty points whose neighbours are all ``color`` (or edge), none in atari.

    The atari exception lets a player connect a ko it has just won instead of
    leaving its capturing stone hanging, which would ko forever.
    """
    stones = np.append(game.position.board().reshape(-1), color)
    libs = np.append(game.position.liberties().reshape(-1), 2)
    return (stones[:-1] == EMPTY) & (stones[neighbours] == color).all(1) & (libs[neighbours] >= 2).all(1)


def fillable(game: Game, color: int, neighbours: np.ndarray) -> np.ndarray:
    """Legal non-pass actions of ``color`` that do not fill one of its own eyes."""
    return np.flatnonzero(game.legal_mask(color)[:-1] & ~own_eyes(game, color, neighbours))


def eye_filling_playout(rules: Rules, rng: np.random.Generator, max_moves: int) -> Game | None:
    """A random game in which nobody fills an own eye, played until neither side has a move.

    A player with no :func:`fillable` move passes; where that would be the
    second pass in a row, the opponent (whose ko ban the first pass lifted)
    moves again if it can, else the game is finished. ``None`` if it runs past
    ``max_moves`` (rules need ``move_cap > max_moves``).
    """
    game = Game(rules)
    neighbours = neighbour_table(rules.size)
    while len(game.moves) < max_moves:
        color = game.to_play
        actions = fillable(game, color, neighbours)
        if actions.size:
            game.play(int(rng.choice(actions)), color)
        elif game.position.passes == 0:
            game.play(rules.pass_action, color)
        else:
            actions = fillable(game, color.opponent, neighbours)
            if not actions.size:
                return game
            game.play(int(rng.choice(actions)), color.opponent)
    return None


def is_settled(game: Game) -> bool:
    """Every empty point is enclosed by one colour and every chain has at least two liberties."""
    board = game.position.board()
    padded = np.pad(board, 1, constant_values=-1)
    around = np.stack([padded[:-2, 1:-1], padded[2:, 1:-1], padded[1:-1, :-2], padded[1:-1, 2:]])
    one_colour = ((around == BLACK) | (around == -1)).all(0) | ((around == WHITE) | (around == -1)).all(0)
    return bool(one_colour[board == EMPTY].all() and (game.position.liberties()[board != EMPTY] >= 2).all())


# ----------------------------------------------------------------- sgfmill
def sgfmill_stones(board: boards.Board) -> np.ndarray:
    """sgfmill's board as ``int[N, N]`` with row 0 at the top (sgfmill counts rows from the bottom)."""
    size = board.side
    stones = np.zeros((size, size), dtype=np.int64)
    for colour, (row, col) in board.list_occupied_points():
        stones[size - 1 - row, col] = BLACK if colour == "b" else WHITE
    return stones


@pytest.mark.parametrize("size, games", [(5, 12), (9, 6), (13, 2), (19, 1)])
def test_random_games_match_sgfmill(size: int, games: int) -> None:
    """Stones, capture counts and the simple-ko point agree with sgfmill after every move."""
    rng = np.random.default_rng(1000 + size)
    moves = captures_seen = kos_seen = 0
    for _ in range(scaled(games)):
        game = Game(Rules.go(size, "japanese"))
        board = boards.Board(size)
        stones = sgfmill_stones(board)
        while not game.is_over:
            color = game.to_play
            action = random_move(game, rng)
            ours_before = game.position.captures(color.opponent)
            theirs_before = np.count_nonzero(stones == color.opponent)
            game.play(action)
            ko = None
            if action != game.rules.pass_action:
                row, col = divmod(action, size)
                ko = board.play(size - 1 - row, col, color.letter.lower())
            stones = sgfmill_stones(board)
            assert np.array_equal(game.position.board(), stones), history(game)
            captured = theirs_before - np.count_nonzero(stones == color.opponent)
            assert game.position.captures(color.opponent) - ours_before == captured, history(game)
            ko_action = None if ko is None else (size - 1 - ko[0]) * size + ko[1]
            assert game.position.ko_action == ko_action, history(game)
            moves += 1
            captures_seen += captured > 0
            kos_seen += ko is not None
    if SCALE == 1.0 and size >= 9:
        assert captures_seen and kos_seen, f"{moves} random moves should capture and make kos"


# --------------------------------------------------------- GNU Go is_legal
IS_LEGAL_GAMES = [(9, 80, 6), (13, 8, 6), (19, 2, 12)]  # size, games, query every k-th move and at kos


@pytest.mark.gnugo
def test_is_legal_matches_gnugo(gnugo_path: str) -> None:
    """``Game.is_legal`` agrees with GNU Go's ``is_legal`` for both colours on every empty point.

    The games alternate between uniformly random legal moves and
    :func:`eye_filling_playout` (simple ko, suicide illegal), so the positions
    are full of captures, suicide points and one-point eyes. They are sampled
    every k-th move and after every ko capture, where both colours are asked
    about the ko point. The moves since the last sample and the queries go to
    GNU Go in one GTP batch per position.
    """
    disagreements: list[str] = []
    verdicts: dict[str, int] = {}
    positions = 0
    with GTPClient(gnugo_argv(gnugo_path)) as gnugo:
        for size, games, every in IS_LEGAL_GAMES:
            gnugo.send(f"boardsize {size}")
            rng = np.random.default_rng(2000 + size)
            rules = Rules.go(size, "japanese", move_cap=4 * size * size + 1)
            for i in range(scaled(games)):
                source = random_game(rules, rng) if i % 2 == 0 else eye_filling_playout(rules, rng, 4 * size * size)
                if source is None:
                    continue
                gnugo.send("clear_board")
                game = Game(rules)
                pending: list[str] = []
                for move in source.moves:
                    game.play(move.action, move.color)
                    pending.append(gtp_play(move.color, move.action, size))
                    if game.is_over or (len(game.moves) % every and game.position.ko_action is None):
                        continue
                    empty = np.flatnonzero(game.position.board().reshape(-1) == EMPTY)
                    queries = [(Color(c), int(a)) for a in empty for c in (BLACK, WHITE)]
                    answers = gnugo.send_many(pending + [f"is_legal {c.letter} {action_to_gtp(a, size)}"
                                                         for c, a in queries])[len(pending):]
                    pending = []
                    positions += 1
                    for (c, a), answer in zip(queries, answers):
                        verdict = REASONS.get(game.check(a, c), "legal")
                        verdicts[verdict] = verdicts.get(verdict, 0) + 1
                        if (verdict == "legal") != (answer == "1"):
                            disagreements.append(f"{size}x{size} {c.letter} {action_to_gtp(a, size)}: ours "
                                                 f"{verdict}, gnugo {answer}; {history(game)}")
    assert not disagreements, f"{len(disagreements)} disagreements, first: {disagreements[0]}"
    assert positions >= scaled(1000)
    assert verdicts.get("suicide", 0) > 0 and verdicts.get("ko", 0) > 0, verdicts


# ------------------------------------------------------ GNU Go final_score
SCORED_GAMES = [(5, 80), (7, 50), (9, 50), (13, 16), (19, 4)]  # size, games


@pytest.fixture(scope="module")
def finished_games() -> list[Game]:
    """Settled games from :func:`eye_filling_playout`, each with its own komi (-10 .. 10)."""
    games = []
    for size, count in SCORED_GAMES:
        rng = np.random.default_rng(3000 + size)
        for _ in range(scaled(count)):
            komi = float(rng.integers(-20, 21)) / 2
            max_moves = 4 * size * size
            game = eye_filling_playout(Rules.go(size, "japanese", komi=komi, move_cap=max_moves + 1), rng,
                                       max_moves)
            if game is not None:
                games.append(game)
    assert len(games) >= 0.9 * sum(scaled(count) for _, count in SCORED_GAMES)
    return games


def gnugo_lead(result: str) -> float:
    """Black's lead from a GTP score (``B+3.5``, ``W+12.0``, ``0``)."""
    if result == "0":
        return 0.0
    sign = {"B": 1.0, "W": -1.0}[result[0].upper()]
    return sign * float(result[2:])


def gnugo_scores(gnugo_path: str, rules_flag: str, games: list[Game]) -> list[float]:
    """GNU Go's ``final_score`` (as black's lead) for each game, replayed move by move."""
    scores = []
    with GTPClient(gnugo_argv(gnugo_path, rules=rules_flag)) as gnugo:
        for game in games:
            size = game.rules.size
            commands = [f"boardsize {size}", "clear_board", f"komi {game.rules.komi:g}"]
            commands += [gtp_play(move.color, move.action, size) for move in game.moves]
            gnugo.send_many(commands)
            scores.append(gnugo_lead(gnugo.send("final_score")))
    return scores


@pytest.mark.gnugo
def test_area_score_matches_gnugo_chinese(gnugo_path: str, finished_games: list[Game]) -> None:
    """``Game.score`` under Chinese rules equals GNU Go's ``final_score`` with ``--chinese-rules``.

    The positions are the ends of :func:`eye_filling_playout` games on 5x5 to
    19x19 with komi from -10 to 10: neither side has a legal move left except
    into its own one-point eyes. The test checks (``is_settled``) what that
    implies: every empty point is enclosed by one colour and every chain has
    at least two liberties, each such a one-point eye. By Benson's criterion
    every chain is then unconditionally alive, so GNU Go's dead-stone
    judgement has nothing to remove and there is no seki and no dame: both
    programs count stones plus eyes, minus komi. Our area score is taken from
    the final stones set up afresh under ``Rules.go(N, "chinese")``, since the
    games were played under simple ko and area counting ignores history.
    """
    theirs = gnugo_scores(gnugo_path, "chinese", finished_games)
    mismatches = []
    for game, lead in zip(finished_games, theirs):
        assert is_settled(game), game.position
        board = game.position.board().reshape(-1)
        area = Game(Rules.go(game.rules.size, "chinese", komi=game.rules.komi))
        area.setup(black=np.flatnonzero(board == BLACK), white=np.flatnonzero(board == WHITE))
        if area.score() != lead:
            mismatches.append(f"ours {area.score()}, gnugo {lead}:\n{game.position}")
    assert not mismatches, f"{len(mismatches)} of {len(theirs)} differ; first: {mismatches[0]}"


@pytest.mark.gnugo
def test_territory_score_matches_gnugo_japanese(gnugo_path: str, finished_games: list[Game]) -> None:
    """``Game.score`` under Japanese rules equals GNU Go's ``final_score`` with ``--japanese-rules``.

    The same settled positions as the area test (every chain unconditionally
    alive, every empty point a one-point eye, no seki, no dame), scored as
    eyes plus prisoners minus komi. Prisoners are the stones captured during
    the game, which both programs count from the moves they were sent; no
    stone is removed as dead at the end by either.
    """
    theirs = gnugo_scores(gnugo_path, "japanese", finished_games)
    mismatches = [f"ours {game.score()}, gnugo {lead} (captures B {game.position.captures(BLACK)}, "
                  f"W {game.position.captures(WHITE)}):\n{game.position}"
                  for game, lead in zip(finished_games, theirs) if game.score() != lead]
    assert not mismatches, f"{len(mismatches)} of {len(theirs)} differ; first: {mismatches[0]}"
    assert any(game.position.captures(BLACK) + game.position.captures(WHITE) for game in finished_games)


# ------------------------------------------------------------- GTP client
FAKE_ENGINE = textwrap.dedent("""
    import sys, time
    for line in sys.stdin:
        words = line.split()
        ident = words.pop(0) if words[0].isdigit() else ""
        if words[0] == "hang":
            time.sleep(60)
        elif words[0] == "exit":
            sys.exit(3)
        elif words[0] == "fail":
            sys.stdout.write(f"?{ident} no can do\\n\\n")
        else:
            sys.stdout.write(f"={ident} {' '.join(words[1:])}\\n\\n")
        sys.stdout.flush()
        if words[0] == "quit":
            break
""")


def fake_engine(timeout: float = 10.0) -> GTPClient:
    return GTPClient([sys.executable, "-c", FAKE_ENGINE], timeout=timeout)


def test_gtp_client_reads_answers_ids_and_errors() -> None:
    with fake_engine() as engine:
        assert engine.send("echo hello world") == "hello world"
        assert engine.send("12 echo with id") == "with id"
        with pytest.raises(GTPError, match="no can do"):
            engine.send("fail")
        assert engine.send_many(["echo a", "echo", "echo b"]) == ["a", "", "b"]


def test_gtp_client_pipelines_large_batches() -> None:
    """More than a pipe's worth of commands and answers in one batch neither deadlocks nor reorders."""
    words = [f"echo {i} {'x' * 60}" for i in range(3000)]
    with fake_engine() as engine:
        assert engine.send_many(words) == [w[len("echo "):] for w in words]


def test_gtp_client_times_out_on_a_hung_engine() -> None:
    engine = fake_engine(timeout=0.5)
    with engine, pytest.raises(GTPTimeout):
        engine.send("hang")


def test_gtp_client_reports_an_engine_that_exits() -> None:
    with fake_engine() as engine, pytest.raises(GTPTimeout, match="exited"):
        engine.send("exit")
