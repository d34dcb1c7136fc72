"""The layering rules of DESIGN.md, checked by path prefix on every import and every lazy reference.

Imports under ``if TYPE_CHECKING:`` count (the packages' public names load lazily from them), and so does a lazy
reference, a string naming a module of this repository (``"engine.core.rules"`` or
``"engine.cli.train:train_command"``), as click's lazy subcommands import through such strings. Only the CLI
layer imports click, and no module imports another that imports it back.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "encoders", "gtp", "training", "bench")
EVERYTHING = PACKAGES

# The layer a module belongs to (longest prefix wins) -> the first-party prefixes it may import.
ALLOWED: dict[str, tuple[str, ...]] = {
    "engine.core": ("engine.core",),
    "engine.formats": ("engine.core", "engine.formats"),
    "encoders": ("engine.core", "encoders"),
    "engine.search": ("engine.core", "engine.search"),
    "engine.nn": ("engine.core", "engine.search", "engine.nn", "engine.atomic", "encoders"),
    "engine.lazy": (),
    "engine.atomic": (),  # atomic file writes: a leaf every layer above the core may use
    "engine": ("engine.lazy", "engine.atomic", "engine.core", "engine.formats", "engine.search",  # the facade
               "engine.nn"),
    "engine.cli": EVERYTHING,  # the CLI layer: options in, configs to one library function
    "engine.__main__": ("engine.cli",),  # ``python -m engine``
    "gtp": ("engine", "gtp"),
    "training": ("engine", "encoders", "training"),
    "bench": ("engine", "encoders", "gtp", "training", "bench"),  # measurement: above all it measures, internals too
}
# What gtp and training may import from the engine besides the names of ``engine.__all__``.
ENGINE_TOOLS = ("engine.lazy",)
TORCH_USERS = ("engine.nn", "training", "bench")
CLICK_USERS = ("engine.cli",)
# Modules of engine.nn that must load without torch (the numpy runtime, ``engine gomocup``): at module level they
# import neither torch nor a module of engine.nn outside this list (functions may, for the torch runtimes).
TORCH_FREE = ("engine.nn", "engine.nn.config", "engine.nn.model_format", "engine.nn.cached_evaluator",
              "engine.nn.numpy_net", "engine.nn.numpy_evaluator", "engine.nn.blas", "engine.nn.loading",
              "engine.nn.networks", "engine.nn.cold_start")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(*packages: str) -> list[tuple[str, Path]]:
    return [(_module_name(path), path) for package in packages for path in sorted((ROOT / package).rglob("*.py"))]


KNOWN_MODULES = {name for name, _ in _modules(*PACKAGES)}


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str) -> str:
    return max((prefix for prefix in ALLOWED if _within(module, prefix)), key=len)


def references(source: str) -> list[tuple[str, list[str]]]:
    """(module, names imported from it) for every import and every lazy string reference in ``source``."""
    tree = ast.parse(source)
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            module = node.value.split(":")[0]
            if "." in module and module in KNOWN_MODULES:
                found.append((module, []))
    return found


def module_level_references(source: str) -> list[str]:
    """The modules ``source`` imports when it loads: top-level imports, outside ``if TYPE_CHECKING:``."""
    found: list[str] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                found.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append(node.module)
            elif isinstance(node, ast.If) and not (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"):
                visit(node.body + node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body + node.orelse + node.finalbody)

    visit(ast.parse(source).body)
    return found


def torch_free_violations(module: str, source: str) -> list[str]:
    """What makes a module of TORCH_FREE load torch when it is imported."""
    return [f"{module} imports {target} when it loads" for target in module_level_references(source)
            if target.split(".")[0] == "torch" or (_within(target, "engine.nn") and target not in TORCH_FREE)]


def violations(module: str, source: str) -> list[str]:
    """Every reference in ``module``'s source that its layer forbids."""
    allowed = ALLOWED[layer_of(module)]
    problems = []
    for target, names in references(source):
        if target.split(".")[0] == "torch" and not any(_within(module, user) for user in TORCH_USERS):
            problems.append(f"{module} imports torch")
        if target.split(".")[0] == "click" and not any(_within(module, user) for user in CLICK_USERS):
            problems.append(f"{module} imports click: only the CLI layer (engine.cli) does")
        if target.split(".")[0] not in PACKAGES:
            continue
        if target == "engine" and layer_of(module) in ("gtp", "training"):
            problems += [f"{module} imports engine.{name}, which engine.__all__ does not export"
                         for name in names if name not in engine.__all__]
        elif layer_of(module) in ("gtp", "training") and _within(target, "engine"):
            if not any(_within(target, tool) for tool in ENGINE_TOOLS):
                problems.append(f"{module} imports {target}: import it from engine's public surface")
        elif not any(_within(target, prefix) for prefix in allowed):
            problems.append(f"{module} ({layer_of(module)}) may not depend on {target}")
    return problems


@pytest.mark.parametrize("module,path", _modules(*PACKAGES), ids=lambda v: str(v))
def test_every_module_keeps_to_its_layer(module: str, path: Path) -> None:
    assert violations(module, path.read_text()) == []


@pytest.mark.parametrize("module,source,problem", [
    ("engine.core.go", "from engine.search.mcts import Search", "may not depend on engine.search.mcts"),
    ("engine.core.go", "import torch", "imports torch"),
    ("training.loop", 'LAZY = {"x": "bench.selfplay:measure_selfplay"}', "may not depend on bench.selfplay"),
    ("engine.search.mcts", "from bench.timing import measure_rate", "may not depend on bench.timing"),
    ("encoders.stones", "def f():\n    from engine.nn.net import NetConfig", "may not depend on engine.nn.net"),
    ("engine.search.player", 'HOME = "engine.nn.evaluator"', "may not depend on engine.nn.evaluator"),
    ("gtp.state", "from engine.core.board import STONES", "import it from engine's public surface"),
    ("training.selfplay", "from engine import lazy_getattr", "engine.__all__ does not export"),
    ("engine", "if TYPE_CHECKING:\n    from training.loop import run_loop", "may not depend on training.loop"),
    ("gtp", "if TYPE_CHECKING:\n    from engine.core.board import STONES", "import it from engine's public surface"),
    ("training.selfplay", "from gtp.session import Session", "may not depend on gtp.session"),
    ("training.gather", "import click", "only the CLI layer"),
    ("bench.net", "def f():\n    from click import option", "only the CLI layer"),
])
def test_a_cross_layer_reference_is_caught(module: str, source: str, problem: str) -> None:
    found = violations(module, source)
    assert any(problem in line for line in found), found


@pytest.mark.parametrize("module", TORCH_FREE)
def test_the_numpy_runtime_loads_no_torch(module: str) -> None:
    path = dict(_modules(*PACKAGES))[module]
    assert torch_free_violations(module, path.read_text()) == []


@pytest.mark.parametrize("source,caught", [
    ("import torch", True),
    ("from engine.nn.net import NetConfig", True),
    ("try:\n    import torch.nn\nexcept ImportError:\n    pass", True),
    ("from engine.nn.config import NetConfig", False),
    ("def f():\n    import torch", False),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch", False),
])
def test_a_torch_import_at_load_is_caught(source: str, caught: bool) -> None:
    assert bool(torch_free_violations("engine.nn.numpy_net", source)) == caught


def test_prose_naming_a_module_is_not_a_reference() -> None:
    assert violations("engine.core.go", '"""See engine.search.mcts for the search."""') == []


def test_help_imports_nothing_heavy() -> None:
    """``engine --help`` and every subcommand's ``--help`` stay fast: no numba, torch or rules-core import behind
    them."""
    code = ("import sys, click; from click.testing import CliRunner; from engine.cli import main\n"
            "def walk(group, words):\n"
            "    for name in group.list_commands(click.Context(group)):\n"
            "        command = group.get_command(click.Context(group), name)\n"
            "        yield words + [name]\n"
            "        if isinstance(command, click.Group): yield from walk(command, words + [name])\n"
            "for words in [[], *walk(main, [])]:\n"
            "    r = CliRunner().invoke(main, [*words, '--help']); assert r.exit_code == 0, (words, r.output)\n"
            "heavy = [m for m in ('numba', 'torch', 'numpy', 'engine.core.board', 'encoders') if m in sys.modules]\n"
            "print(','.join(heavy))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "", f"--help imported {result.stdout.strip()}"


def imported_modules(module: str, source: str) -> set[str]:
    """The modules of this repository that ``module`` imports anywhere (functions included), lazy references too:
    for ``from package import name`` the module ``package.name`` where there is one."""
    found = set()
    for target, names in references(source):
        for candidate in [f"{target}.{name}" for name in names] or [target]:
            if candidate in KNOWN_MODULES:
                found.add(candidate)
            elif target in KNOWN_MODULES:
                found.add(target)
    found.discard(module)
    return found


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module in ``graph`` (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = {module: imported_modules(module, path.read_text()) for module, path in _modules(*PACKAGES)}
    assert import_circles(graph) == []


def test_an_import_circle_is_caught() -> None:
    graph = {"a": imported_modules("a", "from engine.nn import model_format"),
             "engine.nn.model_format": {"engine.nn.leela"}, "engine.nn.leela": {"engine.nn.model_format"}}
    assert import_circles(graph) == [["engine.nn.leela", "engine.nn.model_format"]]
