"""``Deadline``: the time on the monotonic clock by which a move is due, shared by every step that chooses it.

A move's time runs from the moment the move is asked for. The threat guard reads before the search
starts, so a search given ``seconds`` of its own would start its clock late and the answer would come
that much after the limit; one deadline passed down to both keeps the whole move inside it. Long
loops check :attr:`Deadline.passed` between units of work of bounded cost (a threat search within its
threat budget, one network batch), so a move overruns its deadline by at most one such unit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["Deadline"]


@dataclass(frozen=True)
class Deadline:
    """``at``: a :func:`time.monotonic` reading, in seconds."""

    at: float

    @classmethod
    def after(cls, seconds: float) -> "Deadline":
        """The deadline ``seconds`` from now."""
        return cls(time.monotonic() + max(0.0, seconds))

    def remaining(self) -> float:
        """Seconds left (0 once passed)."""
        return max(0.0, self.at - time.monotonic())

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.at

    def share(self, fraction: float) -> "Deadline":
        """An earlier deadline for one step of the work: ``fraction`` (0 to 1) of the time left from now."""
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"a share of the time left is between 0 and 1, not {fraction}")
        now = time.monotonic()
        return Deadline(now + fraction * max(0.0, self.at - now))
