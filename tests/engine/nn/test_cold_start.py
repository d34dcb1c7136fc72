"""A cold start's second compiler: the kernels it compiles are ones the front end's first search then loads from
the cache instead of compiling, and it starts only where it can help."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numba
import pytest

from engine.core.rules import Rules
from engine.nn import cold_start
from engine.nn.networks import bundled_model

FIRST_SEARCH = """
import sys
from numba.core import event

compiled = []

class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Compiles())
from engine import EvaluatorOptions, Game, Rules, Search, load_evaluator
from engine.nn.cold_start import second_compiler_kernels_cached

print("cached" if second_compiler_kernels_cached() else "cold")
rules = Rules.go(9)
game = Game(rules)
search = Search(game, load_evaluator(rules, sys.argv[1], EvaluatorOptions(runtime="numpy")))
result = search.run(24)
game.play(result.best_action)
search.set_game(game)   # tree reuse: the re-rooting kernels
game.position.check(0)
print(" ".join(compiled))
"""

SECOND_COMPILERS = {"_best_child", "_backup", "_backup_exact", "_release", "_prove", "_terminal", "is_terminal",
                    "_go_result", "lead_of", "region_owners", "_label_regions", "expand_and_backup",
                    "principal_variation", "compact_subtree", "liberty_kernel", "check_move", "_go_check"}


@pytest.mark.slow
@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="kernels are plain Python: nothing compiles")
def test_the_first_search_loads_what_the_second_compiler_compiled(tmp_path: Path) -> None:
    model = str(bundled_model(Rules.go(9)))
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "engine.nn.cold_start", str(Rules.go(9)), model], env=environment,
                   check=True, timeout=300)
    lines = subprocess.run([sys.executable, "-c", FIRST_SEARCH, model], env=environment, check=True, timeout=300,
                           capture_output=True, text=True).stdout.splitlines()
    compiled = set(lines[1].split())
    assert lines[0] == "cached"
    assert {"select_leaves", "go_play"} <= compiled, "selection and its moves still compiled here: the cache was cold"
    assert compiled & SECOND_COMPILERS == set(), "these compiled again: the second compiler typed them otherwise"


def test_it_starts_on_a_cold_cache_with_the_rules_and_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[list[str]] = []
    monkeypatch.setattr(cold_start, "second_compiler_kernels_cached", lambda: False)
    monkeypatch.setattr(numba.config, "DISABLE_JIT", False)
    monkeypatch.setattr(cold_start, "_usable_cores", lambda: 2)
    monkeypatch.setattr(cold_start.subprocess, "Popen", lambda command, **kwargs: started.append(command) or "child")
    assert cold_start.start_kernel_compiler(Rules.go(13), "net.safetensors") == "child"
    assert started[0][1:] == ["-m", "engine.nn.cold_start", str(Rules.go(13)), "net.safetensors"]
    assert Rules.parse(started[0][3]) == Rules.go(13)


@pytest.mark.parametrize("why", ["cached", "one core", "no jit"])
def test_it_does_not_start_where_it_cannot_help(monkeypatch: pytest.MonkeyPatch, why: str) -> None:
    monkeypatch.setattr(cold_start, "second_compiler_kernels_cached", lambda: why == "cached")
    monkeypatch.setattr(numba.config, "DISABLE_JIT", why == "no jit")
    monkeypatch.setattr(cold_start, "_usable_cores", lambda: 1 if why == "one core" else 2)

    def popen(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("started")

    monkeypatch.setattr(cold_start.subprocess, "Popen", popen)
    assert cold_start.start_kernel_compiler(Rules.go(9), None) is None


def test_a_bad_command_line_is_refused() -> None:
    assert cold_start.main([]) == 2
    with pytest.raises(ValueError):
        cold_start.main(["no such rules"])
