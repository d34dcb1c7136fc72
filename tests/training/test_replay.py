"""``engine check-games``'s replay: results are checked as the players counted them."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.replay import check_games

# Black's two handicap stones against White's one on an open 9x9 board: black 2, white 1, komi 0.5. Only
# White's handicap bonus (2 points under Chinese counting) makes it White's game, by 1.5.
HANDICAP_GAME = "(;GM[1]FF[4]SZ[9]KM[0.5]RU[Chinese]HA[2]AB[cc][gg]RE[{result}];W[ee];B[];W[])"


@pytest.mark.parametrize("result,problems", [("W+1.5", 0), ("B+0.5", 1)])
def test_a_handicap_game_is_checked_with_whites_bonus(tmp_path: Path, result: str, problems: int) -> None:
    (tmp_path / "game.sgf").write_text(HANDICAP_GAME.format(result=result))
    summary = check_games(tmp_path)
    assert summary.games == 1 and len(summary.problems) == problems
    if problems:
        assert "W+1.5" in summary.problems[0]
