"""Nested configs by dotted path: one home per setting, and no setting that does not exist."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from training.match_config import MatchConfig
from training.selfplay_config import SelfPlayConfig
from training.settings import from_dict, replace_paths


def test_a_dotted_path_sets_one_field_deep_inside() -> None:
    config = replace_paths(SelfPlayConfig(), {"player.search.batch_size": 3, "player.visits": 50, "seed": 2})
    assert (config.player.search.batch_size, config.player.visits, config.seed) == (3, 50, 2)
    assert config.player.search.c_puct == SelfPlayConfig().player.search.c_puct  # the rest is untouched
    assert config.readouts == 50


@pytest.mark.parametrize("path", ["player.serch.batch_size", "readouts", "player.visits.count"])
def test_a_path_that_names_no_field_is_refused(path: str) -> None:
    with pytest.raises((ValueError, TypeError)):
        replace_paths(SelfPlayConfig(), {path: 1})


def test_configs_load_from_their_json_form() -> None:
    config = replace_paths(MatchConfig(games=3), {"player.search.c_puct": 2.0, "player.resign_threshold": None})
    assert from_dict(MatchConfig, json.loads(json.dumps(asdict(config)))) == config
    with pytest.raises(ValueError, match="unknown MatchConfig settings: visits"):
        from_dict(MatchConfig, {"visits": 400})  # a flat field of the old layout
