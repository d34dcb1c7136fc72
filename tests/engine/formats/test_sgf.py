"""SGF reading and writing: round trips, setup and handicap, rules, results, errors."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sgfmill import sgf as sgfmill_sgf

from engine.core.coords import action_to_gtp, gtp_to_action
from engine.core.game import Game, Move
from engine.core.rules import Rules
from engine.core.types import Color, Outcome, SGFError
from engine.formats.diagram import parse_diagram
from engine.formats.sgf import GameRecord, dump_sgf, load_sgf, load_sgf_file
from tests.support.games import play_randomly

DATA = Path(__file__).parent / "data" / "sgf"


def random_game(rules: Rules, moves: int, seed: int, pass_chance: float = 0.03) -> Game:
    """A game of up to ``moves`` random legal moves (passes now and then in Go)."""
    game = Game(rules)
    play_randomly(game, np.random.default_rng(seed), moves, pass_chance)
    return game


def assert_same_game(replayed: Game, original: Game) -> None:
    assert replayed.rules == original.rules
    assert replayed.moves == original.moves
    assert sorted(replayed.setup_stones, key=lambda m: m.action) == \
        sorted(original.setup_stones, key=lambda m: m.action)
    assert replayed.handicap == original.handicap
    np.testing.assert_array_equal(replayed.position.board(), original.position.board())
    assert replayed.to_play == original.to_play
    assert replayed.position.key == original.position.key
    assert replayed.is_over == original.is_over


def round_trip(game: Game, **kwargs: object) -> tuple[str, GameRecord, Game]:
    text = dump_sgf(game, **kwargs)
    record = load_sgf(text)
    replayed = record.replay()
    assert_same_game(replayed, game)
    return text, record, replayed


def sgfmill_main_line(text: str | bytes) -> list[tuple[str, int | None]]:
    """The main line as sgfmill reads it (an independent coordinate conversion): (colour, action or None)."""
    game = sgfmill_sgf.Sgf_game.from_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    size = game.get_size()
    line = []
    for node in game.get_main_sequence():
        colour, point = node.get_move()
        if colour is not None:
            line.append((colour.upper(), None if point is None else (size - 1 - point[0]) * size + point[1]))
    return line


def vertices(record: GameRecord) -> list[str]:
    return [action_to_gtp(m.action, record.rules.size) for m in record.moves]


# --------------------------------------------------------------- round trips
@pytest.mark.parametrize("size, moves, seed", [(9, 250, 1), (19, 300, 2)])
def test_go_round_trip_of_random_games(size: int, moves: int, seed: int) -> None:
    game = random_game(Rules.go(size, "japanese"), moves, seed)
    text, record, replayed = round_trip(game)
    actions = [m.action for m in game.moves]
    assert game.rules.pass_action in actions, "the game should contain passes"
    assert game.position.captures(Color.BLACK) + game.position.captures(Color.WHITE) > 0
    assert "RU[japanese]" in text and "KM[6.5]" in text and "GM[1]" in text
    assert record.rules == game.rules
    assert sgfmill_main_line(text) == [(m.color.letter, None if m.action == size * size else m.action)
                                       for m in game.moves]


def test_go_round_trip_of_a_finished_game_keeps_the_result() -> None:
    game = random_game(Rules.go(9, "tromp-taylor"), 400, seed=5, pass_chance=0.2)
    assert game.is_over
    text, record, _ = round_trip(game)
    assert record.result == game.outcome()
    assert "B[]" in text or "W[]" in text


@pytest.mark.parametrize("rules", [Rules.gomoku(15), Rules.gomoku(6, 4), Rules.gomoku(15, variant="renju")],
                         ids=str)
def test_gomoku_round_trip(rules: Rules) -> None:
    game = random_game(rules, rules.num_points, seed=rules.size)
    text, record, replayed = round_trip(game)
    assert "GM[4]" in text and "KM[" not in text
    assert record.rules == rules
    assert game.outcome() is not None and game.outcome().reason == "five"
    assert record.result == game.outcome()
    assert replayed.outcome() == game.outcome()


def test_gomoku_draw_round_trip() -> None:
    game = random_game(Rules.gomoku(5, 5), 25, seed=2)
    assert game.outcome() == Outcome(None, 0.0, "full-board")
    text, record, _ = round_trip(game)
    assert "RE[0]" in text and record.result == game.outcome()


@pytest.mark.parametrize("rules", [Rules.chain_reaction(5), Rules.chain_reaction(4, move_cap=6)], ids=str)
def test_chain_reaction_round_trip(rules: Rules) -> None:
    game = random_game(rules, rules.move_cap, seed=5)
    text, record, replayed = round_trip(game)
    assert "GM[1000]" in text and "KM[" not in text and record.rules == rules
    assert record.result == game.outcome() and game.outcome().reason in ("elimination", "move-cap")
    np.testing.assert_array_equal(replayed.position.orbs(), game.position.orbs())


def test_round_trip_keeps_rules_that_are_no_preset() -> None:
    rules = Rules.parse("tromp-taylor size=7 ko=simple cap=30")
    game = random_game(rules, 10, seed=3)
    _, record, _ = round_trip(game)
    assert record.rules == rules


def test_round_trip_of_setup_stones_and_side_to_move() -> None:
    game = Game(Rules.go(9))
    game.setup(black=[0, 10, 20], white=[40, 41], to_play=Color.WHITE)
    text, record, replayed = round_trip(game)
    assert "PL[W]" in text and "HA[" not in text
    assert replayed.to_play == Color.WHITE
    game.play(gtp_to_action("J1", 9))
    game.play(gtp_to_action("A1", 9))
    round_trip(game)


def test_round_trip_of_a_handicap_game() -> None:
    game = Game(Rules.go(19, komi=0.5))
    game.place_handicap([gtp_to_action(v, 19) for v in ("D4", "Q16", "D16", "Q4")])
    text, record, replayed = round_trip(game)
    assert "HA[4]" in text and "PL[" not in text
    assert record.handicap == 4 and replayed.handicap == 4 and replayed.to_play == Color.WHITE
    game.play(gtp_to_action("K10", 19))
    round_trip(game)


def test_round_trip_of_names_comments_and_extra_properties() -> None:
    game = random_game(Rules.go(9), 6, seed=4)
    comments = ["first ] with a bracket", None, "back\\slash and\nnewline", "中文"]
    text, record, _ = round_trip(game, black_name="Zoë [B]", white_name="白", comments=comments,
                                 result="?", properties={"DT": "2024-05-01", "GN": "test: one"})
    assert text.startswith("(;FF[4]") and "CA[UTF-8]" in text and "AP[engine:" in text
    assert record.black_name == "Zoë [B]" and record.white_name == "白"
    assert record.comments == tuple(comments) + (None,) * (len(game.moves) - len(comments))
    assert record.result is None and record.properties["RE"] == ("?",)
    assert record.properties["DT"] == ("2024-05-01",) and record.properties["GN"] == ("test: one",)


def test_dump_rejects_derived_properties_and_too_many_comments() -> None:
    game = random_game(Rules.go(9), 2, seed=4)
    with pytest.raises(ValueError, match="SZ"):
        dump_sgf(game, properties={"SZ": "19"})
    with pytest.raises(ValueError, match="comments"):
        dump_sgf(game, comments=["a", "b", "c"])


def test_dump_writes_no_result_for_an_unfinished_game() -> None:
    game = random_game(Rules.go(9), 4, seed=4)
    assert "RE[" not in dump_sgf(game)
    assert "RE[W+R]" in dump_sgf(game, result=Outcome(Color.WHITE, None, "resign"))


# ------------------------------------------------------------ setup, handicap
def test_handicap_fixture_replays_as_a_handicap() -> None:
    record = load_sgf_file(DATA / "handicap4.sgf")
    assert record.handicap == 4 and record.is_handicap
    assert record.rules == Rules.go(19, "chinese", komi=0.5)
    start = record.replay(upto=0)
    assert start.handicap == 4 and start.to_play == Color.WHITE
    stones = {gtp_to_action(v, 19) for v in ("D16", "Q16", "D4", "Q4")}
    assert {m.action for m in start.setup_stones} == stones
    assert all(m.color == Color.BLACK for m in start.setup_stones)
    game = record.replay()
    assert [m.color for m in game.moves] == [Color.WHITE, Color.BLACK] * 2
    assert game.to_play == Color.WHITE


def test_handicap_that_does_not_match_the_stones_is_plain_setup() -> None:
    record = load_sgf("(;SZ[9]HA[3]AB[cc][gg];W[ee])")
    assert not record.is_handicap
    game = record.replay()
    assert game.handicap == 0 and len(game.setup_stones) == 2 and game.moves == [Move(Color.WHITE, 40)]


def test_setup_nodes_before_the_first_move_are_applied_in_order() -> None:
    record = load_sgf("(;SZ[5]AB[aa:bb]AW[dd][ed];AE[aa]AB[ee]AW[ab];W[cc];B[ca])")
    expected = parse_diagram("""
        . X . . .
        O X . . .
        . . . . .
        . . . O O
        . . . . X
    """)
    start = record.replay(upto=0)
    np.testing.assert_array_equal(start.position.board(), expected)
    assert start.to_play == Color.WHITE  # no PL: the first move's colour
    assert vertices(record) == ["C3", "C5"]


def test_setup_with_a_chain_without_liberties_is_rejected_on_replay() -> None:
    record = load_sgf("(;SZ[5]AB[ba][ab]AW[aa])")
    with pytest.raises(SGFError, match="no liberties"):
        record.replay()


def test_player_to_move_is_read() -> None:
    assert load_sgf("(;SZ[9]AB[cc]PL[W])").replay().to_play == Color.WHITE
    assert load_sgf("(;SZ[9]PL[B];W[cc])").start_color() == Color.BLACK


# ----------------------------------------------------------- rules and result
@pytest.mark.parametrize("ru, expected", [
    ("Chinese", Rules.go(19, "chinese")),
    ("chinese", Rules.go(19, "chinese")),
    ("Japanese", Rules.go(19, "japanese")),
    ("Korean", Rules.go(19, "japanese")),
    ("AGA", Rules.go(19, "aga")),
    ("NZ", Rules.go(19, "new-zealand")),
    ("New Zealand", Rules.go(19, "new-zealand")),
    ("Tromp-Taylor", Rules.go(19, "tromp-taylor")),
    ("TT", Rules.go(19, "tromp-taylor")),
])
def test_go_rules_names_map_to_presets(ru: str, expected: Rules) -> None:
    assert load_sgf(f"(;GM[1]RU[{ru}])").rules == expected


@pytest.mark.parametrize("ru, expected", [
    ("renju", Rules.gomoku(15, variant="renju")),
    ("Freestyle", Rules.gomoku(15)),
    ("standard", Rules.gomoku(15, variant="standard")),
])
def test_gomoku_rules_names_map_to_variants(ru: str, expected: Rules) -> None:
    assert load_sgf(f"(;GM[4]RU[{ru}])").rules == expected


def test_unknown_rules_fall_back_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="engine.formats.sgf"):
        assert load_sgf("(;SZ[13]RU[Ing]KM[8])").rules == Rules.go(13, "chinese", komi=8.0)
        assert load_sgf("(;GM[4]RU[Japanese])").rules == Rules.gomoku(15)
    assert "Ing" in caplog.text and "Japanese" in caplog.text


def test_defaults_and_komi() -> None:
    assert load_sgf("(;)").rules == Rules.go(19)
    assert load_sgf("(;GM[4])").rules == Rules.gomoku(15)
    assert load_sgf("(;SZ[9]RU[Japanese])").rules.komi == 6.5
    assert load_sgf("(;SZ[9]RU[Japanese]KM[0])").rules.komi == 0.0
    assert load_sgf("(;SZ[25])").rules.size == 25


@pytest.mark.parametrize("re_value, expected", [
    ("B+3.5", Outcome(Color.BLACK, 3.5, "score")),
    ("W+R", Outcome(Color.WHITE, None, "resign")),
    ("W+Resign", Outcome(Color.WHITE, None, "resign")),
    ("B+T", Outcome(Color.BLACK, None, "time")),
    ("0", Outcome(None, 0.0, "score")),
    ("Void", None),
    ("?", None),
])
def test_result_is_parsed(re_value: str, expected: Outcome | None) -> None:
    assert load_sgf(f"(;RE[{re_value}])").result == expected


# ---------------------------------------------------------------- replaying
def test_replay_upto_counts_moves() -> None:
    record = load_sgf("(;SZ[9];B[ee];W[cc];B[];W[gg])")
    assert len(record.replay(upto=0).moves) == 0
    assert record.replay(upto=3).moves == [Move(Color.BLACK, 40), Move(Color.WHITE, 20), Move(Color.BLACK, 81)]
    assert record.replay(upto=3).to_play == Color.WHITE
    assert len(record.replay(upto=99).moves) == 4
    with pytest.raises(ValueError):
        record.replay(upto=-1)


KO_FIGHT = "(;SZ[9]RU[Japanese];B[ed];W[fd];B[de];W[ff];B[ef];W[ge];B[aa];W[ee];B[fe];W[ee])"


@pytest.mark.parametrize("sgf, message", [
    ("(;SZ[9];B[ee];W[ee])", "move 2 (W E5) is illegal: occupied"),
    (KO_FIGHT, "move 10 (W E5) is illegal: ko"),
    ("(;SZ[9];B[];W[];B[ee])", "move 3 (B E5) is illegal: game over"),
    ("(;GM[4]SZ[9];B[ee];W[])", "move 2 (W pass) is illegal: there is no pass in this game"),
    ("(;SZ[9]AB[ab][ba];W[aa])", "move 1 (W A9) is illegal: suicide"),
])
def test_illegal_moves_name_the_move_and_the_reason(sgf: str, message: str) -> None:
    record = load_sgf(sgf)
    with pytest.raises(SGFError) as info:
        record.replay()
    assert str(info.value) == message


def test_the_moves_before_an_illegal_one_replay() -> None:
    assert len(load_sgf(KO_FIGHT).replay(upto=9).moves) == 9


def test_play_on_replays_moves_after_two_passes() -> None:
    """GTP plays on after two passes (KGS's cleanup phase): with ``play_on`` such a record replays."""
    game = load_sgf("(;SZ[9];B[];W[];B[ee])").replay(play_on=True)
    assert len(game.moves) == 3 and not game.is_over


def test_a_game_that_went_on_after_two_passes_round_trips() -> None:
    game = Game(Rules.go(9))
    for vertex in ("E5", "pass", "pass"):
        game.play(gtp_to_action(vertex, 9))
    game.play_on()
    for vertex in ("C3", "D4"):
        game.play(gtp_to_action(vertex, 9))
    assert_same_game(load_sgf(dump_sgf(game)).replay(play_on=True), game)


# ---------------------------------------------------------- record of a game
@pytest.mark.parametrize("seed", range(3))
def test_the_record_of_a_game_replays_it_under_other_rules(seed: int) -> None:
    game = random_game(Rules.go(9, komi=7.5), 60, seed)
    replayed = replace(GameRecord.from_game(game), rules=Rules.go(9, komi=0.5)).replay()
    assert replayed.rules == Rules.go(9, komi=0.5) and replayed.moves == game.moves
    np.testing.assert_array_equal(replayed.position.board(), game.position.board())
    assert replayed.position.key == game.position.key and replayed.to_play == game.to_play


def test_the_record_of_a_game_keeps_its_setup_handicap_and_first_side_to_move() -> None:
    """A handicap game in which black moves first (out of turn) is still a handicap game;
    setup stones with white to move, then a black move, keep white as the side to move after the setup."""
    handicap = Game(Rules.go(9, komi=0.5))
    handicap.place_handicap([gtp_to_action(v, 9) for v in ("C3", "G7")])
    handicap.play(gtp_to_action("E5", 9), Color.BLACK)
    setup = Game(Rules.go(9))
    setup.setup(black=[0, 10], white=[40], to_play=Color.WHITE)
    setup.play(gtp_to_action("J1", 9), Color.BLACK)
    for game in (handicap, setup):
        replayed = GameRecord.from_game(game).replay()
        assert_same_game(replayed, game)
        assert replayed.start_to_play == Color.WHITE
    assert handicap.handicap == 2


# ------------------------------------------------------------ corrupt input
@pytest.mark.parametrize("data, fragment", [
    (b"", "not a readable SGF"),
    (b"hello world, this is not a game record", "not a readable SGF"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a readable SGF"),
    (b"(;GM[1]SZ[9];B[aa];W[bb]", "not a readable SGF"),
    (b"(;C[a value that never ends", "not a readable SGF"),
    (b"(;SZ[0])", "SZ[0]"),
    (b"(;SZ[40])", "SZ[40]"),
    (b"(;SZ[abc])", "SZ[abc]"),
    (b"(;SZ[19:13])", "square"),
    (b"(;GM[4]SZ[3])", "SZ[3]"),
    (b"(;GM[2])", "GM[2]"),
    (b"(;GM[chess])", "GM[chess]"),
    (b"(;SZ[9];B[jj])", "move 1"),
    (b"(;SZ[9];B[ee];W[abc])", "move 2"),
    (b"(;SZ[9];B[aa][bb])", "2 values"),
    (b"(;SZ[9];B[aa]W[bb])", "both"),
    (b"(;SZ[19]AB[tt])", "pass"),
    (b"(;SZ[9]AB[aa:bb:cc])", "rectangle"),
    (b"(;SZ[9]AB[aa]AW[aa])", "twice"),
    (b"(;SZ[9];B[aa];AW[bb])", "after move 1"),
    (b"(;KM[abc])", "KM[abc]"),
    (b"(;KM[6.3])", "KM[6.3]"),
    (b"(;HA[many])", "HA[many]"),
    (b"(;SZ[9]HA[-1])", "HA[-1]"),
    (b"(;PL[X])", "PL[X]"),
])
def test_corrupt_records_raise_sgf_error(data: bytes, fragment: str) -> None:
    with pytest.raises(SGFError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        load_sgf(data)


SEEDS = [(DATA / "real_game.sgf").read_bytes(), (DATA / "handicap4.sgf").read_bytes(),
         b"(;GM[4]SZ[6]RU[freestyle size=6 k=4];B[aa];W[bb];B[cc])",
         b"(;SZ[5]AB[aa:bb]AW[dd][ed];AE[aa]AB[ee]AW[ab];W[cc];B[ca])"]


@given(seed=st.sampled_from(SEEDS),
       edits=st.lists(st.tuples(st.floats(0, 1), st.binary(max_size=3)), min_size=1, max_size=4))
def test_mangled_records_load_or_raise_sgf_error(seed: bytes, edits: list[tuple[float, bytes]]) -> None:
    """Bytes cut out of or pasted into a good record give a record or an SGFError, nothing else."""
    data = bytearray(seed)
    for where, insert in edits:
        at = int(where * (len(data) - 1))
        data[at:at + (0 if insert else 1)] = insert
    logging.disable(logging.WARNING)
    try:
        load_sgf(bytes(data)).replay()
    except SGFError:
        pass
    finally:
        logging.disable(logging.NOTSET)


def test_missing_file_is_an_sgf_error(tmp_path: Path) -> None:
    with pytest.raises(SGFError, match="cannot read"):
        load_sgf_file(tmp_path / "missing.sgf")


def test_load_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        load_sgf(42)  # type: ignore[arg-type]


# --------------------------------------------------------- real-looking data
def test_real_game_fixture_loads_its_main_line() -> None:
    record = load_sgf_file(DATA / "real_game.sgf")
    assert record.rules == Rules.go(19, "japanese")
    assert (record.black_name, record.white_name) == ("Cho Hunhyun", "李昌镐")
    assert record.result == Outcome(Color.WHITE, None, "resign")
    assert record.comment == "A friendly game.\nComments may span lines and escape ] brackets."
    assert vertices(record) == ["Q16", "D4", "Q3", "D16", "F3", "C6", "K4", "R6", "O3", "Q10",
                                "R14", "Q7", "C12", "E10", "C14", "pass", "pass"]
    assert [m.color for m in record.moves] == [Color.BLACK, Color.WHITE] * 8 + [Color.BLACK]
    assert record.comments[0] == "Star point."
    assert record.comments[6:8] == ("Solid extension.", "The main line goes on \\ here.")
    assert record.comments[14] == "Kakari and pincer."
    assert sum(c is not None for c in record.comments) == 4
    assert record.properties["DT"] == ("1994-03-12",)
    assert sgfmill_main_line((DATA / "real_game.sgf").read_bytes()) == \
        [(m.color.letter, None if m.action == 361 else m.action) for m in record.moves]
    game = record.replay()
    assert game.is_over and len(game.moves) == 17


def test_charsets() -> None:
    latin = b"(;CA[ISO-8859-1]PB[Jos\xe9])"
    assert load_sgf(latin).black_name == "José"
    assert load_sgf(b"(;PB[Jos\xe9])").black_name == "José"  # not UTF-8: read as Latin-1
    assert load_sgf("(;PB[José])").black_name == "José"
    assert load_sgf("(;PB[José])".encode("utf-8")).black_name == "José"
