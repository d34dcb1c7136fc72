"""The code base passes its linter (pyflakes errors, pycodestyle, import order: see pyproject.toml)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_is_clean() -> None:
    """ruff is run by the interpreter running the tests, so an unactivated venv's ruff is found (not PATH's)."""
    if importlib.util.find_spec("ruff") is None:
        pytest.fail(f"ruff is part of the dev extras: {sys.executable} -m pip install -e '.[dev]'")
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
