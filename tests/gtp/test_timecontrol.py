"""Time controls: parsing GTP's, KGS's and KataGo's settings, the clocks, and budgets that never lose on time."""

from __future__ import annotations

import random

import pytest

from gtp.timecontrol import MIN_MOVES, TimeControl, TimeSettings, expected_moves


def test_gtp_time_settings_semantics() -> None:
    assert TimeSettings.from_gtp("300", "0", "0") == TimeSettings("absolute", 300.0)
    assert TimeSettings.from_gtp("600", "30", "0").kind == "none"  # byo-yomi time without stones: no limit
    assert TimeSettings.from_gtp("0", "10", "1") == TimeSettings("canadian", 0.0, 10.0, 1)
    assert TimeSettings.from_gtp("60.5", "300", "25") == TimeSettings("canadian", 60.5, 300.0, 25)


@pytest.mark.parametrize("args", [("x", "0", "0"), ("-1", "0", "0"), ("nan", "0", "0"), ("inf", "1", "1"),
                                  ("1", "1", "1.5"), ("1", "1", "-2")])
def test_bad_gtp_time_settings(args: tuple[str, str, str]) -> None:
    with pytest.raises(ValueError):
        TimeSettings.from_gtp(*args)


def test_kgs_time_settings() -> None:
    assert TimeSettings.from_kgs(("none",)).kind == "none"
    assert TimeSettings.from_kgs(("absolute", "600")) == TimeSettings("absolute", 600.0)
    assert TimeSettings.from_kgs(("byoyomi", "600", "30", "5")) == TimeSettings("byoyomi", 600.0, 30.0, periods=5)
    assert TimeSettings.from_kgs(("canadian", "600", "300", "25")) == TimeSettings("canadian", 600.0, 300.0, 25)
    assert TimeSettings.from_kgs(("byoyomi", "600", "0", "0")) == TimeSettings("absolute", 600.0)
    for bad in [(), ("fischer", "1"), ("absolute",), ("byoyomi", "1", "2"), ("none", "1")]:
        with pytest.raises(ValueError):
            TimeSettings.from_kgs(bad)


def test_kata_time_settings() -> None:
    assert TimeSettings.from_kata(("byo-yomi", "600", "30.5", "5")) == TimeSettings("byoyomi", 600.0, 30.5, periods=5)
    assert TimeSettings.from_kata(("fischer", "300", "2.5")) == TimeSettings("fischer", 300.0, increment=2.5)
    assert TimeSettings.from_kata(("fischer-capped", "300", "5", "600", "-1")) == TimeSettings(
        "fischer", 300.0, increment=5.0, main_limit=600.0)
    assert TimeSettings.from_kata(("fischer-capped", "300", "5", "-1", "20")).move_limit == 20.0
    for bad in [(), ("fischer", "1"), ("fischer", "1", "-2"), ("fischer-capped", "1", "1", "0.5", "-1"),
                ("fischer-capped", "1", "1", "nan", "1"), ("hourglass", "1")]:
        with pytest.raises(ValueError):
            TimeSettings.from_kata(bad)


def test_fischer_adds_the_increment_and_keeps_the_caps() -> None:
    control = TimeControl(TimeSettings("fischer", 60.0, increment=5.0, main_limit=62.0, move_limit=3.0), lag=0.5)
    assert control.budget(1, 30) == pytest.approx(2.5)          # 60 / 30 + 5 - 0.5, at most the move limit less lag
    control.spent(1, 1.0)
    assert control.clocks[1].main == 62.0                      # 59 + 5, capped at the limit
    control.time_left(1, 1.0, 0)
    assert control.budget(1, 30) == pytest.approx(0.5)          # never more than the clock holds, less the lag
    uncapped = TimeControl(TimeSettings("fischer", 60.0, increment=5.0), lag=0.5)
    assert uncapped.budget(1, 30) == pytest.approx(6.5)
    uncapped.spent(1, 10.0)
    assert uncapped.clocks[1].main == 55.0


def test_expected_moves() -> None:
    assert expected_moves(361) == 145
    assert expected_moves(81) == 33
    assert expected_moves(0) == MIN_MOVES
    assert expected_moves(225, "gomoku") == 23   # a Gomoku game ends long before the board fills
    assert expected_moves(100, "gomoku") == MIN_MOVES
    assert expected_moves(81, "chain-reaction") == 33


def test_no_time_control_means_no_budget() -> None:
    assert TimeControl().budget(1, 50) is None
    assert TimeControl().budget(1, 50, per_move_cap=2.0) == pytest.approx(1.5)


def test_absolute_budget_spreads_the_main_time() -> None:
    control = TimeControl(TimeSettings("absolute", 300.0), lag=0.5)
    assert control.budget(1, 100) == pytest.approx(2.5)
    control.time_left(1, 10.0, 0)
    assert control.budget(1, 100) == 0.0
    assert control.budget(2, 100) == pytest.approx(2.5)  # the other clock is untouched


def test_canadian_overtime_budget() -> None:
    control = TimeControl(TimeSettings("canadian", 0.0, 100.0, 10), lag=0.5)
    assert control.budget(1, 50) == pytest.approx(9.5)
    control.time_left(1, 30.0, 2)  # 30 s for the last 2 stones of the block
    assert control.budget(1, 50) == pytest.approx(14.5)
    control.time_left(1, 600.0, 0)  # back in main time: the larger of the share and the overtime rate
    assert control.budget(1, 50) == pytest.approx(11.5)


def test_byoyomi_budget_stays_inside_the_period() -> None:
    control = TimeControl(TimeSettings("byoyomi", 0.0, 30.0, periods=3), lag=1.0)
    assert control.budget(1, 80) == pytest.approx(29.0)
    control.time_left(1, 30.0, 1)  # KGS: stones = periods left
    assert control.clocks[1].periods == 1
    assert control.budget(1, 80) == pytest.approx(29.0)


def test_lizzie_style_seconds_per_move() -> None:
    """Lizzie sends time_settings 0 T 1: T seconds for every move."""
    control = TimeControl(TimeSettings.from_gtp("0", "5", "1"), lag=0.5)
    for _ in range(20):
        assert control.budget(1, 40) == pytest.approx(4.5)
        control.spent(1, 4.6)


def test_spent_charges_main_time_then_overtime() -> None:
    control = TimeControl(TimeSettings("canadian", 10.0, 60.0, 5), lag=0.0)
    control.spent(1, 4.0)
    assert control.clocks[1].main == pytest.approx(6.0)
    control.spent(1, 10.0)  # 6 s of main time, 4 s of the first block
    assert (control.clocks[1].main, control.clocks[1].period, control.clocks[1].stones) == (0.0, 56.0, 4)
    control = TimeControl(TimeSettings("byoyomi", 0.0, 10.0, periods=3), lag=0.0)
    control.spent(1, 25.0)
    assert control.clocks[1].periods == 1


def _simulate(settings: TimeSettings, moves: int, overhead: float, report: bool, seed: int) -> float:
    """A game against a fake clock: the lowest time the engine's clock ever showed (< 0: lost on time).

    Each move takes its budget plus up to ``overhead`` seconds; the controller
    reports the clock before every move when ``report`` is set, otherwise the
    engine keeps its own account. The board fills as on 19x19 (captures keep
    some points empty).
    """
    rng = random.Random(seed)
    control = TimeControl(settings, lag=0.5)
    clock = settings.main
    lowest = clock
    for move in range(moves):
        if report:
            control.time_left(1, clock, 0)
        empty = max(30, 361 - 2 * move)
        budget = control.budget(1, expected_moves(empty))
        assert budget is not None
        used = budget + rng.uniform(0.0, overhead)
        control.spent(1, used)
        clock -= used
        lowest = min(lowest, clock)
    return lowest


@pytest.mark.parametrize("report", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_loss_on_time_in_five_minutes_absolute(report: bool, seed: int) -> None:
    """5 minutes for 150 moves and more, with up to 0.4 s spent outside the search on each move."""
    lowest = _simulate(TimeSettings("absolute", 300.0), 180, overhead=0.4, report=report, seed=seed)
    assert lowest > 0, f"lost on time (clock reached {lowest:.2f} s)"


def test_the_budget_uses_most_of_the_time() -> None:
    """Not losing on time by playing instantly is no success: over 100 moves most of the clock is used."""
    lowest = _simulate(TimeSettings("absolute", 300.0), 100, overhead=0.0, report=True, seed=0)
    assert lowest < 200


def test_the_default_move_time_holds_only_until_the_controller_sets_a_time_control() -> None:
    from engine import BLACK
    from gtp.state import EngineState
    from tests.gtp.helpers import front_end_config

    state = EngineState(front_end_config(visits=8, move_seconds=1.5))
    state.start(background=False)
    assert state.budget(BLACK) == pytest.approx(1.5 - state.time.lag)
    assert state.budget(BLACK, time_cap=1.0) == pytest.approx(1.0 - state.time.lag)
    state.time.set(TimeSettings("absolute", 3600.0))
    assert state.budget(BLACK) > 10.0   # the controller's clock rules now: an hour for about 145 moves
    assert EngineState(front_end_config(visits=8)).config.move_seconds is None
