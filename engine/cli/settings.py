"""The settings whose defaults the commands' options print, each read from its config class (:class:`Setting`).

A config class holds each setting's one default; the options of every command that takes the setting read it
from here. The config classes live in modules that import nothing heavy, so ``--help`` stays fast.
"""

from __future__ import annotations

from engine.cli.options import Setting
from engine.search.config import PlayerConfig, SearchConfig
from gtp.config import GtpConfig
from training.match_config import MatchConfig
from training.selfplay_config import SelfPlayConfig

__all__ = ["PLAYER_VISITS", "GTP_VISITS", "GTP_MOVE_SECONDS", "SEARCH_STDEV_SCALE", "SEARCH_FPU_FROM_MEAN",
           "SEARCH_LCB_STDEVS", "SEARCH_LCB_MIN_VISIT_SHARE",
           "MATCH_VISITS", "MATCH_GAMES", "MATCH_PARALLEL_GAMES", "MATCH_BATCH", "MATCH_OPENING_MOVES",
           "MATCH_RESIGN_THRESHOLD", "MATCH_HANDICAP", "MATCH_HANDICAP_TAKER", "SELFPLAY_VISITS",
           "SELFPLAY_PARALLEL_GAMES", "SELFPLAY_BATCH", "SELFPLAY_RESIGN_THRESHOLD", "SELFPLAY_FORCED_PLAYOUTS",
           "SELFPLAY_GUMBEL", "SELFPLAY_FULL_SEARCH_PCT", "SELFPLAY_HOLDOUT_PCT", "SELFPLAY_RESIGN_DISABLED_PCT"]

PLAYER_VISITS = Setting(PlayerConfig, "visits")
"""The player's visits a move: ``engine gomocup`` and ``engine play`` with neither ``--visits`` nor ``--time``, and
the searches the benchmarks time."""
GTP_VISITS = Setting(GtpConfig, "visits")
"""``engine gtp``'s visits a move with neither ``--visits`` nor ``--time``."""
GTP_MOVE_SECONDS = Setting(GtpConfig, "move_seconds")
"""``engine gtp``'s bound on such a move while the controller has set no time control."""
SEARCH_STDEV_SCALE = Setting(SearchConfig, "c_puct_stdev_scale")
"""The front ends' exploration scaled by the spread of the values (:attr:`SearchConfig.c_puct_stdev_scale`)."""
SEARCH_FPU_FROM_MEAN = Setting(SearchConfig, "fpu_from_mean")
"""The front ends' first-play value from the parent's mean (:attr:`SearchConfig.fpu_from_mean`)."""
SEARCH_LCB_STDEVS = Setting(SearchConfig, "lcb_stdevs")
"""The front ends' move by the lower confidence bound of its value (:attr:`SearchConfig.lcb_stdevs`)."""
SEARCH_LCB_MIN_VISIT_SHARE = Setting(SearchConfig, "lcb_min_visit_share")

MATCH_VISITS = Setting(MatchConfig, "player.visits")
"""Visits a move of a model in a match (gating and rating games too)."""
MATCH_GAMES = Setting(MatchConfig, "games")
MATCH_PARALLEL_GAMES = Setting(MatchConfig, "parallel_games")
MATCH_BATCH = Setting(MatchConfig, "player.search.batch_size")
MATCH_OPENING_MOVES = Setting(MatchConfig, "player.temperature_moves")
MATCH_RESIGN_THRESHOLD = Setting(MatchConfig, "player.resign_threshold")
MATCH_HANDICAP = Setting(MatchConfig, "handicap")
MATCH_HANDICAP_TAKER = Setting(MatchConfig, "handicap_taker")

SELFPLAY_VISITS = Setting(SelfPlayConfig, "player.visits")
"""Visits of a self-play move's full search (a policy target)."""
SELFPLAY_PARALLEL_GAMES = Setting(SelfPlayConfig, "parallel_games")
SELFPLAY_BATCH = Setting(SelfPlayConfig, "player.search.batch_size")
SELFPLAY_RESIGN_THRESHOLD = Setting(SelfPlayConfig, "player.resign_threshold")
SELFPLAY_FORCED_PLAYOUTS = Setting(SelfPlayConfig, "player.search.forced_playouts_k")
SELFPLAY_GUMBEL = Setting(SelfPlayConfig, "player.search.gumbel_considered")
SELFPLAY_FULL_SEARCH_PCT = 100 * Setting(SelfPlayConfig, "full_search_share").default
"""Playout Cap Randomization's share of full searches, as the ``--full-search-pct`` options give it (percent)."""
SELFPLAY_HOLDOUT_PCT = 100 * Setting(SelfPlayConfig, "holdout_share").default
"""The share of self-play games held out, as ``--holdout-pct`` gives it (percent)."""
SELFPLAY_RESIGN_DISABLED_PCT = 100 * Setting(SelfPlayConfig, "resign_disabled_share").default
"""The share of self-play games that play on past resignation, as ``--resign-disabled-pct`` gives it (percent)."""
