"""Self-play: many games sharing evaluator calls, Playout Cap Randomization, resignation, outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from encoders import get_encoder
from engine.core.game import Game
from engine.core.types import Outcome
from engine.formats.sgf import load_sgf_file
from engine.search.batching import step
from engine.search.config import SearchConfig
from engine.search.evaluator import UniformEvaluator
from engine.search.mcts import Search, SearchJob
from engine.search.root import Root
from tests.training.conftest import GO5, GOMOKU6, BlackIsLost, Counting, eager_evaluator
from training.gather import samples_from_record
from training.records import list_records, read_record
from training.selfplay import HOLDOUT_DIR, SelfPlayOutput, play_games
from training.selfplay_config import SelfPlayConfig
from training.settings import replace_paths


def _config(**changes: object) -> SelfPlayConfig:
    """A small self-play config; ``changes`` are dotted settings (``player.resign_threshold``)."""
    base = {"player.visits": 12, "player.search.batch_size": 4, "player.resign_threshold": None,
            "cheap_readouts": 3, "parallel_games": 4, "holdout_share": 0.0, "seed": 3}
    return replace_paths(SelfPlayConfig(), {**base, **changes})


RESIGNING = {"player.resign_threshold": -0.9}


def test_one_evaluator_call_per_step_serves_every_search() -> None:
    counting = Counting()
    jobs = [SearchJob(Search(Game(GOMOKU6), counting, SearchConfig(batch_size=4), seed=i), counting, 30)
            for i in range(3)]
    calls = 0
    while not all(job.finished for job in jobs):
        calls += step(jobs)
    assert calls == len(counting.batches)
    assert max(counting.batches) > 4  # leaves of several searches in one call
    assert all(job.result().visits.sum() == 29 for job in jobs)  # 30 root visits: the root and 29 below


def test_parallel_games_share_calls_and_their_records_replay(tmp_path: Path) -> None:
    counting = Counting()
    summary = play_games(counting, GOMOKU6, "000000-b1c8", _config(), 6, SelfPlayOutput(tmp_path / "games"))
    records = [read_record(path) for path in list_records(tmp_path / "games")]
    assert summary.games == 6 == len(records)
    assert summary.evaluator_calls == len(counting.batches)
    assert max(counting.batches) > _config().player.search.batch_size  # one call served several games
    single_game_calls = sum(len(r.actions) for r in records)  # a lower bound had every game its own calls
    assert summary.evaluator_calls < single_game_calls
    encoder = get_encoder("gomoku4", GOMOKU6)
    for record in records:
        samples = samples_from_record(record, encoder)  # replays every move through Game
        assert len(samples.value) == sum(record.targets)
        assert record.result is not None and abs(samples.value).max(initial=1) == 1
        assert record.final is None and not samples.aux_mask.any(), "a Gomoku game has no final board"


@pytest.mark.parametrize("share,expect", [(0.0, "none"), (1.0, "all"), (0.5, "some")])
def test_playout_cap_randomization_marks_full_searches_as_targets(tmp_path: Path, share: float, expect: str) -> None:
    unpruned = {"player.search.forced_playouts_k": 0.0}  # the recorded visits are the search's
    summary = play_games(UniformEvaluator(), GOMOKU6, "m", _config(**unpruned, full_search_share=share), 4,
                         SelfPlayOutput(tmp_path))
    records = [read_record(path) for path in list_records(tmp_path)]
    targets = [t for record in records for t in record.targets]
    assert summary.targets == sum(targets) and summary.moves == len(targets)
    if expect == "none":
        assert not any(targets)
    elif expect == "all":
        assert all(targets)
        # full searches have readouts visits at the root: the children hold readouts - 1 (reuse may add more)
        assert all(sum(n for _, n in v) >= 11 for r in records for v in r.policy if v is not None)
    else:
        assert 0 < sum(targets) < len(targets)
    cheap = [v for r in records for t, v in zip(r.targets, r.policy) if not t]
    assert all(v is None for v in cheap)


def test_resignation_and_its_disabled_share(tmp_path: Path) -> None:
    resigning = play_games(BlackIsLost(), GO5, "m", _config(**RESIGNING, resign_disabled_share=0.0), 3,
                           SelfPlayOutput(tmp_path / "a"))
    assert resigning.resigned == 3 and resigning.white_wins == 3 and resigning.resign_disabled == 0
    records = [read_record(p) for p in list_records(tmp_path / "a")]
    assert all(r.result is not None and r.result.reason == "resign" for r in records)
    assert all(r.final is None for r in records), "a resigned game has no final board"
    assert all(len(r.actions) == 4 for r in records)  # black resigns at its third low-valued move (move 5)
    playing_on = play_games(BlackIsLost(), GO5, "m", _config(**RESIGNING, resign_disabled_share=1.0), 3,
                            SelfPlayOutput(tmp_path / "b"))
    assert playing_on.resigned == 0 and playing_on.resign_disabled == 3 and playing_on.would_resign == 3
    records = [read_record(p) for p in list_records(tmp_path / "b")]
    assert all(r.resign_disabled and r.would_resign == "B" for r in records)
    wrong = sum(r.result is not None and r.result.value_for(1) >= 0 for r in records)  # black did not lose
    assert playing_on.false_resigns == wrong
    assert playing_on.false_resign_rate == pytest.approx(wrong / 3)


def test_holdout_share_and_sgf_with_comments(tmp_path: Path) -> None:
    output = SelfPlayOutput(tmp_path / "games", tmp_path / "sgf")
    summary = play_games(UniformEvaluator(), GO5, "000007-b1c8", _config(holdout_share=1.0), 2, output)
    assert summary.holdout == 2
    assert list_records(tmp_path / "games") == [] and len(list_records(tmp_path / "games" / HOLDOUT_DIR)) == 2
    sgfs = sorted((tmp_path / "sgf").glob("*.sgf"))
    assert len(sgfs) == 2
    record = load_sgf_file(sgfs[0])
    assert record.black_name == "000007-b1c8" and record.result is not None
    assert record.comments and all(c is not None and "visits" in c for c in record.comments)
    assert record.replay().is_over


def test_games_that_end_on_the_board_record_the_scorers_map(tmp_path: Path) -> None:
    """The record's final board is the map and score the result was scored from (the board as it stands)."""
    play_games(UniformEvaluator(), GO5, "m", _config(), 6, SelfPlayOutput(tmp_path))
    records = [read_record(p) for p in list_records(tmp_path)]
    assert any(r.final is not None for r in records)
    for record in records:
        game = Game(GO5)
        for action in record.actions:
            game.play(action)
        if game.position.passes < 2:   # the move cap ended it: nothing was settled
            assert record.final is None
            continue
        assert record.final is not None
        assert record.final.owners == tuple(game.ownership().tolist()) and record.final.score == game.score()
        assert Outcome.from_lead(record.final.score) == record.result == game.outcome()


def test_a_network_plays_self_play_games(tmp_path: Path, go5_model: Path) -> None:
    evaluator = eager_evaluator(go5_model, GO5)
    summary = play_games(evaluator, GO5, "000000-b1c8", _config(full_search_share=1.0), 2,
                         SelfPlayOutput(tmp_path))
    assert summary.games == 2 and summary.moves == summary.targets > 0
    assert summary.black_wins + summary.white_wins + summary.draws == 2
    assert np.isfinite(summary.games_per_hour)


def test_a_stop_leaves_the_games_in_flight_counted(tmp_path: Path) -> None:
    steps = iter(range(1000))
    summary = play_games(UniformEvaluator(), GO5, "m", _config(), 100, SelfPlayOutput(tmp_path),
                         stop=lambda: next(steps) >= 40)
    assert summary.games < 100 and summary.in_flight_games == 4  # parallel_games
    assert summary.moves_played == summary.moves + summary.in_flight_moves + summary.resigned
    assert summary.simulations >= summary.moves_played


def _replayed_targets(records: list) -> list[tuple[Game, tuple[tuple[int, float], ...]]]:
    """Every policy target with the position it was searched in."""
    targets = []
    for record in records:
        game = Game(record.rules)
        for action, policy in zip(record.actions, record.policy):
            if policy is not None:
                targets.append((game.copy(), policy))
            game.play(action)
    return targets


def test_gumbel_self_play_records_the_completed_q_policy(tmp_path: Path) -> None:
    config = _config(**{"player.search.gumbel_considered": 4, "player.reuse_tree": False}, full_search_share=1.0)
    play_games(UniformEvaluator(), GO5, "m", config, 2, SelfPlayOutput(tmp_path))
    targets = _replayed_targets([read_record(p) for p in list_records(tmp_path)])
    assert targets
    for game, policy in targets:
        assert sum(w for _, w in policy) == pytest.approx(1.0, abs=1e-4)
        searched = Root.of(game, keep_eyes=True).legal  # the legal moves but those filling one's own eyes
        assert {a for a, _ in policy} == set(np.flatnonzero(searched))  # every move searched, not 4


def test_forced_playout_self_play_records_pruned_visits(tmp_path: Path) -> None:
    config = _config(**{"player.search.forced_playouts_k": 2.0, "player.visits": 40}, full_search_share=1.0)
    play_games(UniformEvaluator(), GOMOKU6, "m", config, 2, SelfPlayOutput(tmp_path))
    records = [read_record(p) for p in list_records(tmp_path)]
    targets = _replayed_targets(records)
    assert targets and all(sum(w for _, w in policy) == pytest.approx(1.0, abs=1e-4) for _, policy in targets)
    # a uniform prior spreads 39 visits over up to 36 moves; pruning drops every child left with one visit
    assert all(len(policy) <= 39 // 2 for _, policy in targets)
    encoder = get_encoder("gomoku4", GOMOKU6)
    assert sum(len(samples_from_record(r, encoder).value) for r in records) == len(targets)


def test_random_opening_moves_give_no_targets_and_differ_between_games(tmp_path: Path) -> None:
    summary = play_games(UniformEvaluator(), GOMOKU6, "m", _config(random_moves=2, full_search_share=1.0), 6,
                         SelfPlayOutput(tmp_path))
    records = [read_record(path) for path in list_records(tmp_path)]
    assert summary.games == 6 and all(len(r.actions) > 2 for r in records)
    assert all(r.targets[:2] == (False, False) and r.policy[:2] == (None, None) for r in records)
    assert all(all(r.targets[2:]) for r in records)   # every searched move was a full search
    assert summary.targets == sum(len(r.actions) - 2 for r in records)
    assert len({r.actions[:2] for r in records}) > 1
    encoder = get_encoder("gomoku4", GOMOKU6)
    assert all(len(samples_from_record(r, encoder).value) == len(r.actions) - 2 for r in records)
    with pytest.raises(ValueError, match="random_moves"):
        _config(random_moves=-1)
