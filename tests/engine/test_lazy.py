"""The packages' public names: plain imports under ``TYPE_CHECKING``, loaded from those modules on first use."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from engine.lazy import lazy_getattr, type_checking_imports

PACKAGES = ("engine", "gtp", "training", "training.cluster")


def _homes(package: str) -> dict[str, str]:
    return type_checking_imports(Path(importlib.import_module(package).__file__).read_text(encoding="utf-8"))


def test_the_block_is_read_and_nothing_else() -> None:
    source = ("from typing import TYPE_CHECKING\nfrom a.b import c\nif TYPE_CHECKING:\n"
              "    from a.d import e, f as g\n    import a.h\nif OTHER:\n    from a.i import j\n")
    assert type_checking_imports(source) == {"e": "a.d", "g": "a.d"}


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_is_imported_for_the_checkers_and_loads(package: str) -> None:
    module = importlib.import_module(package)
    homes = _homes(package)
    assert sorted(homes) == sorted(module.__all__), "__all__ and the TYPE_CHECKING imports name the same names"
    assert len(set(module.__all__)) == len(module.__all__)
    for name, home in homes.items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name), name


def test_an_unknown_name_is_an_attribute_error(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from json import dumps\n")
    getter = lazy_getattr("pkg", str(init))
    assert getter("dumps") is importlib.import_module("json").dumps
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'loads'"):
        getter("loads")


def test_importing_the_packages_loads_none_of_their_modules() -> None:
    code = ("import sys, engine, gtp, training, training.cluster\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('engine', 'gtp', 'training', 'encoders')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['engine', 'engine.lazy', 'gtp', 'training', 'training.cluster']"
