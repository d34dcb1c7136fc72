"""The soak benchmark on real engine gtp processes: games finish and are counted, memory and speed are read
from the processes, an engine that cannot start is an error, not a silent zero (:mod:`bench.soak`)."""

from __future__ import annotations

import statistics

import pytest

from bench.soak import soak_analyze, soak_games
from bench.timing import BenchError


def test_a_games_soak_counts_its_games_moves_and_memory() -> None:
    seen: list[int] = []
    result = soak_games(3, 5, 2, 1, [], progress=seen.append)
    assert seen == [1, 2, 3]
    assert result["games"] == 3 and result["moves"] >= 3 and result["errors"] == []
    assert len(result["rss_first_mb"]) == 2 and min(result["rss_first_mb"]) > 20
    curve = result["rss_mb_by_game"]
    assert len(curve) == 3 and all(len(row) == 2 and min(row) > 20 for row in curve)
    assert curve[0] == pytest.approx(result["rss_first_mb"], abs=0.1)
    assert curve[-1] == pytest.approx(result["rss_last_mb"], abs=0.1)
    assert result["rss_growth_second_half"] == pytest.approx(max(b / a - 1 for a, b in zip(curve[1], curve[2])),
                                                             abs=1e-3)
    assert result["moves_per_s_start"] > 0 and result["moves_per_s_end"] > 0


def test_an_engine_that_cannot_start_fails_the_soak() -> None:
    with pytest.raises(BenchError, match="no game finished"):
        soak_games(2, 5, 2, 0, ["--no-such-option"])


def test_an_analyze_soak_plays_the_top_moves_and_reads_the_visits(monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.soak as soak

    monkeypatch.setattr(soak, "_SETTLE_SECONDS", 7.0)
    result = soak_analyze(15.0, 3.0, 9, 2, [])   # periods of 3 s: a loaded machine still streams several lines
    assert result["periods"] >= 3 and result["errors"] == []
    played = result["played_by_period"]
    assert len(played) == result["periods"] and played[0].startswith("play b ") and played[1].startswith("clear_board")
    assert all(len(line.split(" | ")[1].split()) == 2 for line in played)
    assert result["visits_per_s_start"] > 0 and result["rss_last_mb"] > 20
    rates = result["visits_per_s_by_period"]
    assert len(rates) == result["periods"]
    start = result["speed_start_period"]   # once settled: the third period at the earliest (two end before 7 s)
    edge = max(1, (len(rates) - 1) // 2)
    assert start >= 2 and result["visits_per_s_start"] == statistics.median(rates[start:start + edge])
    assert len(result["rss_mb_by_period"]) == result["periods"] and min(result["rss_mb_by_period"]) > 20
    by_period, half = result["rss_mb_by_period"], result["periods"] // 2
    assert result["rss_growth_second_half"] == pytest.approx(
        statistics.median(by_period[half:]) / statistics.median(by_period[:half]) - 1)


def test_an_engine_that_dies_is_reported_at_once_with_its_status_and_stderr() -> None:
    import time

    from bench.gtp_pipe import GtpPipe

    engine = GtpPipe(["--size", "9", "--no-such-option"])
    started = time.perf_counter()
    with pytest.raises(BenchError, match=r"exited with status 2; its stderr ended:\n(.|\n)*no-such-option"):
        engine.ask("name")
    assert time.perf_counter() - started < 60   # not the answer timeout


def test_a_search_that_stops_with_a_full_tree_is_counted_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    import bench.soak as soak

    class Stopped:
        """An engine whose analysis writes one line and then nothing (its search stopped)."""

        def __init__(self) -> None:
            self.pending = ["=", "info move D4 visits 5 rootInfo visits 9 winrate 0.61 scoreLead 2.5"]

        def send(self, command: str) -> None:
            if not command.startswith("kata-analyze"):
                self.pending += ["", f"= {command}", ""]

        def line(self, timeout: float = 600.0) -> str:
            return self.pending.pop(0)

        def line_within(self, timeout: float) -> str | None:
            if len(self.pending) > 0:
                return self.pending.pop(0)
            time.sleep(timeout)
            return None

        def answer(self, command: str, first: str | None = None) -> str:
            self.line()
            return self.line()

    started = time.perf_counter()
    analysis = soak._analyse(Stopped(), "b", soak._SILENCE_SECONDS + 0.5, "play b {top}")  # type: ignore[arg-type]
    assert time.perf_counter() - started < soak._SILENCE_SECONDS + 3
    assert analysis == ("D4", 0.0, [], True, "0.61 2.5")
