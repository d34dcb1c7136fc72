"""The encoder registry, its errors, and the ``engine bench encode`` command."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from encoders import ENCODERS, EncoderError, encoder_names, get_encoder
from engine.cli import main
from engine.core.position import Position
from engine.core.rules import Rules
from engine.core.types import EngineError

EXPECTED = {  # name: (planes, games), as the encoders' docstrings define them
    "oneplane": (1, {"go", "gomoku"}),
    "sevenplane": (7, {"go"}),
    "elevenplane": (11, {"go"}),
    "fifteenplane": (15, {"go"}),
    "zero17": (17, {"go", "gomoku"}),
    "lz18": (18, {"go"}),
    "gomoku4": (4, {"gomoku"}),
    "orbs8": (8, {"chain-reaction"}),
    "katago-v7": (41, {"go"}),
}


def test_registry_lists_every_encoder_with_its_planes_and_games() -> None:
    assert list(ENCODERS) == list(EXPECTED)
    for name, (planes, games) in EXPECTED.items():
        cls = ENCODERS[name]
        assert (cls.name, cls.num_planes, set(cls.games)) == (name, planes, games)
        assert cls.dtype in (np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.float32))
    assert encoder_names("gomoku") == ["oneplane", "zero17", "gomoku4"]
    assert encoder_names("chain-reaction") == ["orbs8"]


def test_unknown_name_lists_the_valid_names() -> None:
    with pytest.raises(EncoderError) as error:
        get_encoder("nineteenplane", Rules.go(9))
    assert all(name in str(error.value) for name in EXPECTED)
    assert isinstance(error.value, ValueError) and isinstance(error.value, EngineError)


def test_a_go_encoder_refuses_gomoku_and_names_those_that_fit() -> None:
    with pytest.raises(EncoderError, match="does not fit gomoku: expected one of oneplane, zero17, gomoku4"):
        get_encoder("sevenplane", Rules.gomoku(15))
    with pytest.raises(EncoderError, match="does not fit go"):
        get_encoder("gomoku4", Rules.go(9))
    with pytest.raises(EncoderError, match="does not fit gomoku"):
        ENCODERS["lz18"](Rules.gomoku(9))


def test_plane_count_must_match_a_stored_one() -> None:
    assert get_encoder("zero17", Rules.go(9), num_planes=17).num_planes == 17
    with pytest.raises(EncoderError, match="has 17 planes, not 18"):
        get_encoder("zero17", Rules.go(9), num_planes=18)


def test_bad_inputs_to_encode_are_refused() -> None:
    encoder = get_encoder("sevenplane", Rules.go(9))
    with pytest.raises(EncoderError, match="built for go 9x9, not go 5x5"):
        encoder.encode(Position(Rules.go(5)))
    with pytest.raises(EncoderError, match="not gomoku 9x9"):
        get_encoder("oneplane", Rules.go(9)).encode(Position(Rules.gomoku(9)))
    with pytest.raises(EncoderError, match="Position or a Game"):
        encoder.encode_batch([np.zeros((9, 9))])  # type: ignore[list-item]
    with pytest.raises(EncoderError, match="banned must have shape"):
        encoder.encode(Position(Rules.go(9)), banned=np.zeros(80, dtype=bool))
    position = Position(Rules.go(9))
    with pytest.raises(EncoderError, match="expected cells int16"):
        encoder.encode_arrays(position.cells[None].astype(np.int32), position.info[None])


def test_bench_encode_prints_json() -> None:
    result = CliRunner().invoke(main, ["bench", "encode", "--encoder", "oneplane", "--size", "9",
                                       "--seconds", "0.05", "--runs", "2", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["positions_per_s"] > 0
    assert (report["encoder"], report["size"], report["batch"], report["runs"]) == ("oneplane", 9, 64, 2)


def test_bench_encode_refuses_an_unknown_encoder() -> None:
    result = CliRunner().invoke(main, ["bench", "encode", "--encoder", "nope"])
    assert result.exit_code != 0 and "oneplane" in result.output
