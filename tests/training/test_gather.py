"""gather: replay records and SGF files into chunks; pi and z from the side to move; idempotent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from encoders import get_encoder
from engine.core.coords import gtp_to_action
from engine.core.game import Game
from engine.core.types import Color, Outcome, SGFError
from engine.formats.sgf import dump_sgf, load_sgf, load_sgf_file
from tests.training.conftest import GO5, GOMOKU6
from training.chunks import list_chunks, load_samples, read_chunk
from training.errors import ChunkFormatError, RecordFormatError
from training.gather import (
    MANIFEST,
    Arrays,
    GatherConfig,
    GatherTarget,
    gather,
    list_inputs,
    samples_from_record,
    samples_from_sgf,
    sgf_final_board,
)
from training.records import SelfPlayRecord, read_record, write_record
from training.territory import dead_from_territory, final_board

TARGET = GatherTarget("gomoku", 6, "gomoku4")


def _gomoku_record(actions: list[int], targets: list[bool], winner: Color | None) -> SelfPlayRecord:
    visits = tuple(((a, 3), ((a + 1) % 36, 1)) if t else None for a, t in zip(actions, targets))
    return SelfPlayRecord(GOMOKU6, "000000-b1c8", tuple(actions), tuple(targets), visits, (0.0,) * len(actions),
                          Outcome(winner, None, "five"), created="2025-01-01T00:00:00+00:00")


def _black_wins() -> SelfPlayRecord:
    """Black makes four in a row on the top row (actions 0..3) while white plays the second row."""
    return _gomoku_record([0, 6, 1, 7, 2, 8, 3], [True, True, False, True, True, False, True], Color.BLACK)


def test_record_samples_take_pi_and_z_from_the_side_to_move() -> None:
    encoder = get_encoder("gomoku4", GOMOKU6)
    planes, policy, value, ownership, score, mask, komi = samples_from_record(_black_wins(), encoder)
    assert ownership.shape == (5, 36) and score.shape == mask.shape == komi.shape == (5,)
    assert np.isnan(komi).all(), "Gomoku has no komi"
    assert not mask.any() and not ownership.any() and not score.any(), "a Gomoku game has no final board"
    assert len(value) == 5  # the full-search moves only
    assert np.array_equal(value, [1, -1, -1, 1, 1])  # moves 1, 2, 4, 5, 7: black, white, white, black, black
    assert np.allclose(policy.sum(axis=1), 1.0) and policy[0, 0] == pytest.approx(0.75)
    game = Game(GOMOKU6)
    game.play(0)  # the second sample is white to move after black's first stone
    assert np.array_equal(planes[1], encoder.encode(game))


def test_an_illegal_record_is_rejected_naming_the_file(tmp_path: Path) -> None:
    path = write_record(tmp_path, _gomoku_record([0, 0], [True, True], Color.BLACK))
    with pytest.raises(RecordFormatError, match=f"{path.name}.*move 2 is illegal"):
        gather(list_inputs(tmp_path, "records"), tmp_path / "chunks", TARGET)


def test_gather_is_idempotent_and_recovers_from_a_lost_manifest(tmp_path: Path) -> None:
    games = tmp_path / "games"
    for _ in range(3):
        write_record(games, _black_wins())
    write_record(games, _gomoku_record([5], [False], None))  # no full-search move: no samples
    out = tmp_path / "chunks"
    first = gather(list_inputs(games, "records"), out, TARGET, GatherConfig(chunk_samples=8, seed=0))
    # identical records have one digest: the first is gathered, the copies are known already
    assert (first.inputs, first.empty, first.samples) == (1, 1, 5)
    second = gather(list_inputs(games, "records"), out, TARGET)
    assert second.inputs == 0 and second.samples == 0 and second.chunks == []
    write_record(games, _gomoku_record([0, 6, 1, 7, 2, 8, 3], [True] * 7, Color.BLACK))
    (out / MANIFEST).unlink()  # as if killed after the chunk was written but before the manifest
    third = gather(list_inputs(games, "records"), out, TARGET)
    assert third.inputs == 1 and third.samples == 7
    assert len(load_samples([out])) == 12
    assert len(list_chunks([out])) == 2


def test_gather_groups_inputs_into_chunks_of_the_size_asked(tmp_path: Path) -> None:
    games = tmp_path / "games"
    for shift in range(4):
        actions = [(a + 12 * (shift % 2)) % 36 for a in (0, 6, 1, 7, 2, 8, 3)]
        actions = [a if shift < 2 else 35 - a for a in actions]
        write_record(games, _gomoku_record(actions, [True] * 7, Color.BLACK))
    summary = gather(list_inputs(games, "records"), tmp_path / "out", TARGET, GatherConfig(chunk_samples=14, seed=1))
    assert summary.inputs == 4 and len(summary.chunks) == 2 and summary.samples == 28


def test_window_takes_the_newest_inputs(tmp_path: Path) -> None:
    games = tmp_path / "games"
    write_record(games, _black_wins())
    write_record(games, _gomoku_record([35, 29, 34, 28, 33, 27, 32], [True] * 7, Color.BLACK))
    summary = gather(list_inputs(games, "records"), tmp_path / "out", TARGET, GatherConfig(window=1))
    assert summary.inputs == 1 and summary.samples == 7


def test_a_folder_of_another_encoder_is_refused(tmp_path: Path) -> None:
    games = tmp_path / "games"
    write_record(games, _black_wins())
    gather(list_inputs(games, "records"), tmp_path / "out", TARGET)
    with pytest.raises(ChunkFormatError, match="gather into another folder"):
        gather(list_inputs(games, "records"), tmp_path / "out", GatherTarget("gomoku", 6, "zero17"))


def _go_sgf(moves: list[str], result: str) -> str:
    game = Game(GO5)
    for vertex in moves:
        game.play(gtp_to_action(vertex, 5))
    return dump_sgf(game, result=result)


def test_sgf_samples_are_the_moves_played_and_the_recorded_result(tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    (sgf / "deeper").mkdir(parents=True)
    (sgf / "deeper" / "a.sgf").write_text(_go_sgf(["C3", "D4", "B2"], "W+R"))
    (sgf / "b.sgf").write_text(_go_sgf(["C3"], "?"))           # no result: rejected
    (sgf / "c.sgf").write_text("(;GM[1]SZ[9];B[ee])")           # another board: rejected
    (sgf / "d.sgf").write_text("not sgf at all")                 # unreadable: rejected
    target = GatherTarget("go", 5, "sevenplane")
    summary = gather(list_inputs(sgf, "sgf"), tmp_path / "out", target, GatherConfig(kind="sgf"))
    assert (summary.inputs, summary.rejected, summary.samples) == (1, 3, 3)
    samples = load_samples([tmp_path / "out"])
    moves = {gtp_to_action(v, 5) for v in ("C3", "D4", "B2")}
    played = samples.policy.astype(np.float32).argmax(axis=1)
    assert set(played.tolist()) == moves and np.all(samples.policy.max(axis=1) == 1)
    by_move = dict(zip(played.tolist(), samples.value.tolist()))
    assert by_move[gtp_to_action("D4", 5)] == 1.0 and by_move[gtp_to_action("C3", 5)] == -1.0
    again = gather(list_inputs(sgf, "sgf"), tmp_path / "out", target, GatherConfig(kind="sgf"))
    assert again.already_gathered == 4 and again.inputs == 0


def test_skipped_opening_moves_are_played_but_give_no_samples(tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    sgf.mkdir()
    (sgf / "a.sgf").write_text(_go_sgf(["C3", "D4", "B2", "A1"], "B+R"))
    target = GatherTarget("go", 5, "sevenplane")
    summary = gather(list_inputs(sgf, "sgf"), tmp_path / "out", target, GatherConfig(kind="sgf", skip_moves=2))
    assert summary.samples == 2
    samples = load_samples([tmp_path / "out"])
    played = set(samples.policy.astype(np.float32).argmax(axis=1).tolist())
    assert played == {gtp_to_action("B2", 5), gtp_to_action("A1", 5)}
    stones = samples.planes.reshape(2, -1).sum(axis=1)   # the skipped moves' stones are on the board
    assert np.all(stones > 0)


def test_skip_moves_is_for_sgf_collections_only(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from engine.cli import main

    result = CliRunner().invoke(main, ["gather", "--input-directory", str(tmp_path), "--output-directory",
                                       str(tmp_path / "out"), "--encoder", "sevenplane", "--skip-moves", "4"])
    assert result.exit_code == 2 and "--sgf and --collection only" in result.output


# ----------------------------------------------------------- ownership and score
# A 5x5 game (Chinese rules, komi 7.5) that two passes end: black walls off the left, white the right,
# column C is dame; the black stone at E1 is dead in white's area. With it removed: W+7.5 (10 - 10 - 7.5);
# as the board stands: W+1.5 (black 11, white 5: E2-E5 touch both colours).
WALLS = ["B1", "D1", "B2", "D2", "B3", "D3", "B4", "D4", "B5", "D5", "E1", "pass", "pass"]


def _walls_game() -> Game:
    game = Game(GO5)
    for vertex in WALLS:
        game.play(gtp_to_action(vertex, 5))
    return game


def _check_targets(samples: Arrays, movers: list[Color], owners: np.ndarray, lead: float) -> None:
    """Each sample's targets are the scorer's map ``owners`` and black's ``lead``, from its side to move."""
    assert samples.aux_mask.all()
    for color, ownership, score in zip(movers, samples.ownership, samples.score):
        mine, theirs = (owners == color), (owners == color.opponent)
        assert np.array_equal(ownership, mine.astype(np.int8) - theirs.astype(np.int8))
        assert score == pytest.approx(lead if color == Color.BLACK else -lead)


def test_a_self_play_record_keeps_the_scorers_map_and_score_as_targets(tmp_path: Path) -> None:
    game = _walls_game()
    final = final_board(game)
    assert final is not None and Outcome.from_lead(final.score) == game.outcome()
    assert final.owners == tuple(game.ownership().tolist()) and final.score == game.score()
    actions = tuple(m.action for m in game.moves)
    record = SelfPlayRecord(GO5, "m", actions, (True,) * len(actions), tuple(((a, 1),) for a in actions),
                            (0.0,) * len(actions), game.outcome(), final)
    again = read_record(write_record(tmp_path, record))
    assert again.final == final
    samples = samples_from_record(again, get_encoder("sevenplane", GO5))
    assert np.array_equal(samples.komi, np.full(len(actions), GO5.komi, np.float32))
    movers = [Color.BLACK if i % 2 == 0 else Color.WHITE for i in range(len(actions))]
    _check_targets(samples, movers, game.ownership(), game.score())
    # the board as it stands: the black stone at E1 is black's, so white's area is short of it
    assert game.ownership()[gtp_to_action("E1", 5)] == Color.BLACK


def _territory_sgf(tmp_path: Path, result: str, markers: bool = True, moves: list[str] = WALLS) -> Path:
    game = Game(GO5)
    for vertex in moves:
        game.play(gtp_to_action(vertex, 5))
    territory = None
    if markers:
        black = [gtp_to_action(f"A{row}", 5) for row in range(1, 6)]
        white = [gtp_to_action(f"E{row}", 5) for row in range(1, 6)]
        territory = (black, white)   # E1 (a black stone) on white's territory: dead
    text = dump_sgf(game, result=result, territory=territory)
    path = tmp_path / f"game-{len(list(tmp_path.glob('*.sgf')))}.sgf"
    path.write_text(text)
    return path


def test_sgf_territory_markers_give_the_dead_stones_and_the_scorers_map(tmp_path: Path) -> None:
    path = _territory_sgf(tmp_path, "W+7.5")
    record = load_sgf_file(path)
    game = record.replay()
    territory = record.territory
    assert territory is not None
    dead = dead_from_territory(game, *territory)
    assert dead == [gtp_to_action("E1", 5)]
    final, disagrees = sgf_final_board(record)
    assert not disagrees and final is not None
    assert final.owners == tuple(game.ownership(dead).tolist()) and final.score == game.score(dead) == -7.5
    assert Outcome.from_lead(final.score) == game.outcome(dead) == record.result
    samples = samples_from_sgf(record, get_encoder("sevenplane", GO5), final=final)
    movers = [move.color for move in record.moves]
    _check_targets(samples, movers, game.ownership(dead), game.score(dead))
    assert samples.ownership[0, gtp_to_action("E1", 5)] == -1, "black to move: the dead stone's point is white's"


def test_sgf_games_without_a_confirmed_scoring_are_masked_and_counted(tmp_path: Path) -> None:
    sgf = tmp_path / "sgf"
    sgf.mkdir()
    _territory_sgf(sgf, "W+7.5")                                 # markers agree with RE
    _territory_sgf(sgf, "W+3")                                   # markers disagree with RE: masked, counted
    _territory_sgf(sgf, "W+1.5", markers=False)                  # no markers; RE says the board as it stands
    _territory_sgf(sgf, "W+", markers=False)                     # no markers, no margin: nothing confirms it
    _territory_sgf(sgf, "W+R", markers=False, moves=WALLS[:5])   # resigned: nothing to score
    target = GatherTarget("go", 5, "sevenplane")
    summary = gather(list_inputs(sgf, "sgf"), tmp_path / "out", target, GatherConfig(kind="sgf", chunk_samples=1))
    assert (summary.inputs, summary.scored, summary.disagreements) == (5, 2, 1)
    assert "from 2 games (1 masked" in summary.describe()
    by_game = [read_chunk(path) for path in summary.chunks]
    assert [bool(chunk.aux_mask.all()) for chunk in by_game] == [True, False, True, False, False]
    assert [bool(chunk.aux_mask.any()) for chunk in by_game] == [True, False, True, False, False]
    scores = by_game[2].batch_at(np.arange(len(by_game[2])))[4]   # the board as it stands, from each mover
    assert sorted(set(scores.tolist())) == [-1.5, 1.5] and _walls_game().score() == -1.5


def test_territory_markers_round_trip_and_bad_ones_are_refused() -> None:
    game = Game(GO5)
    for vertex in ["C3", "pass", "pass"]:
        game.play(gtp_to_action(vertex, 5))
    text = dump_sgf(game, result="B+18", territory=([1, 0], [24]))
    assert "TB[aa][ba]" in text and "TW[ee]" in text and text.index("TB") > text.index(";W[]")
    assert load_sgf(text).territory == ((0, 1), (24,))
    assert load_sgf(_go_sgf(["C3"], "B+R")).territory is None
    with pytest.raises(SGFError, match="one point on the board"):
        load_sgf(b"(;GM[1]SZ[5];B[cc]TB[aa:bb])")
    with pytest.raises(SGFError, match="TW"):
        load_sgf(b"(;GM[1]SZ[5];B[cc]TW[zz])")
