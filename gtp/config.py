"""``engine gtp``'s own settings: what a move may spend when neither the command line nor the controller says.

Plain Python, no engine import, so that ``engine gtp --help`` prints these defaults without loading the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GtpConfig"]


@dataclass(frozen=True)
class GtpConfig:
    """A move's budget in ``engine gtp`` with neither ``--visits`` nor ``--time``: ``visits`` visits, enough to use
    the second a GUI user waits on one thread, where half as many left most of it unused (docs/benchmarks.md,
    *Default visits*), or ``move_seconds`` seconds, whichever comes first, unless the controller sets a time
    control (it bounds the move on a slower machine). A GUI user waits for every move."""

    visits: int = 1600
    move_seconds: float = 1.5
