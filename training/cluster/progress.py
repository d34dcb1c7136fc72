"""One progress display for the whole cluster: games done, games/hour, positions/s, actors, and how busy the
inference servers and their GPUs are, where there are some. Ray's own dashboard is left as it is."""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["ClusterProgress"]


class ClusterProgress:
    """A tqdm bar on stderr over a run's ``total`` games, with the cluster's rates in its postfix.

    :meth:`watch` asks the inference servers for their totals without waiting for them (a server that is
    still loading answers later): the busy share is the servers' time inside the network over wall time,
    over all servers (none shown without servers).
    """

    def __init__(self, total: int, desc: str, leave: bool = True) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, desc=desc, unit="game", file=sys.stderr, leave=leave)
        self.started = time.perf_counter()
        self.moves = 0
        self.actors = 0
        self.asked: dict[Any, Any] = {}  # server -> its pending report
        self.seen: dict[Any, dict[str, float]] = {}  # server -> its last report
        self.first: dict[Any, dict[str, float]] = {}
        self.busy: float | None = None
        self.gpu: float | None = None

    def game(self, moves: int) -> None:
        """A game of ``moves`` moves finished."""
        self.moves += moves
        self.bar.update(1)
        self._show()

    def watch(self, servers: list[Any], actors: int) -> None:
        """Collect the servers' reports that came in and ask them again."""
        import ray

        self.actors = actors
        for server in servers:
            if server not in self.asked:
                self.asked[server] = server.report.remote()
        ready, _ = ray.wait(list(self.asked.values()), num_returns=len(self.asked), timeout=0)
        done = set(ready)
        for server, ref in list(self.asked.items()):
            if ref in done:
                del self.asked[server]
                try:
                    self.seen[server] = ray.get(ref)
                except ray.exceptions.RayError:
                    continue
                self.first.setdefault(server, self.seen[server])
        busy = [(now["busy_s"] - self.first[s]["busy_s"], now["alive_s"] - self.first[s]["alive_s"])
                for s, now in self.seen.items()]
        spans = sum(span for _, span in busy)
        self.busy = sum(b for b, _ in busy) / spans if spans > 0 else None
        gpus = [now["gpu_utilization"] for now in self.seen.values() if now.get("gpu_utilization", -1) >= 0]
        self.gpu = sum(gpus) / len(gpus) if gpus else None
        self._show()

    def write(self, text: str) -> None:
        self.bar.write(text, file=sys.stderr)

    def _show(self) -> None:
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        parts = [f"{3600 * self.bar.n / elapsed:,.0f} games/h", f"{self.moves / elapsed:,.1f} pos/s",
                 f"{self.actors} actors"]
        if self.busy is not None:
            parts.append(f"inference busy {100 * self.busy:.0f}%")
        if self.gpu is not None:
            parts.append(f"GPU {self.gpu:.0f}%")
        self.bar.set_postfix_str(", ".join(parts), refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()
