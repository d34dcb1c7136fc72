"""The layering rules of DESIGN.md, checked on the import statements of every module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES_CORE = {"engine", "engine.types", "engine.rules", "engine.coords", "engine.board", "engine.go",
              "engine.gomoku", "engine.scoring", "engine.position", "engine.game", "engine.diagram",
              "engine.sgf", "engine.handicap", "engine.playout", "engine.jit"}
# Top-level modules that may name anything (they are the CLI layer).
CLI_LAYER = {"engine.cli"}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(imported module, at module level?) for every import in a file."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[tuple[str, bool]] = []
    top_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, id(node) in top_level))
    return found


def _modules(package: str) -> list[tuple[str, Path]]:
    result = []
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        result.append((".".join(parts), path))
    return result


@pytest.mark.parametrize("module,path", _modules("engine"), ids=lambda v: str(v))
def test_engine_imports_neither_gtp_nor_training(module: str, path: Path) -> None:
    for name, top in _imports(path):
        assert not name.startswith(("gtp", "training")), f"{module} imports {name}"
        if name.startswith("encoders") and module not in CLI_LAYER:
            assert not top, f"{module} imports {name} at module level; inject the encoder instead"


@pytest.mark.parametrize("module,path", _modules("encoders"), ids=lambda v: str(v))
def test_encoders_use_only_the_rules_core(module: str, path: Path) -> None:
    for name, _top in _imports(path):
        if name.startswith("engine"):
            assert name in RULES_CORE or name.startswith("engine.bench"), f"{module} imports {name}"
        assert not name.startswith(("gtp", "training", "torch")), f"{module} imports {name}"


def test_training_never_imports_gtp() -> None:
    for module, path in _modules("training"):
        for name, _top in _imports(path):
            assert not name.startswith("gtp"), f"{module} imports {name}"


def test_help_imports_nothing_heavy() -> None:
    """``engine --help`` must stay fast: no numba, torch or rules-core import behind it."""
    code = ("import sys; from click.testing import CliRunner; from engine.cli import main; "
            "r = CliRunner().invoke(main, ['--help']); assert r.exit_code == 0, r.output; "
            "r = CliRunner().invoke(main, ['bench', '--help']); assert r.exit_code == 0, r.output; "
            "heavy = [m for m in ('numba', 'torch', 'engine.board', 'encoders') if m in sys.modules]; "
            "print(','.join(heavy))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "", f"--help imported {result.stdout.strip()}"
