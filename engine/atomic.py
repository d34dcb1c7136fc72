"""Atomic file writes: a temporary name in the target's folder, fsync, then ``os.replace``.

The one atomic-write helper of the repository: model files (:mod:`engine.nn.model_file`),
game records, chunks, checkpoints and run state all go through :func:`atomic_path`.

A reader (or a process restarted after ``kill -9``) sees either the old file
or the complete new one, never half of one; a failed write leaves no
temporary file behind. Temporary names start with a dot and end in ``.tmp``,
so directory listings that look for ``*.npz`` or ``*.game.json.gz`` skip them.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_path", "write_bytes", "write_text", "write_json", "read_json", "utc_timestamp"]

MAX_JSON_BYTES = 64 << 20
"""Largest JSON file :func:`read_json` reads (a run's state after thousands of generations takes a few MB)."""


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block succeeds, move it onto ``path``.

    The caller writes the temporary file by any means (``np.savez``,
    ``torch.save``, ``savefig``). The folder is created if missing.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    temp_path = Path(temp)
    try:
        os.chmod(temp_path, _mode_for(path))
        yield temp_path
        with open(temp_path, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temp_path, path)
    except BaseException:
        temp_path.unlink(missing_ok=True)
        raise


def _mode_for(path: Path) -> int:
    """The permissions ``open`` would give a new ``path`` (mkstemp's are owner-only: a model written for a
    shared cluster or a container must stay readable by others), or those of the file it replaces."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


@functools.cache
def _umask() -> int:
    """The process's umask, read once: reading it means setting it, which is not safe beside other threads."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write(path: str | os.PathLike[str], mode: str, fill: Callable[[IO[Any]], None]) -> Path:
    with atomic_path(path) as temp:
        with open(temp, mode) as handle:
            fill(handle)
    return Path(path)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    return _write(path, "wb", lambda handle: handle.write(data))


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write UTF-8 ``text`` to ``path`` atomically."""
    return _write(path, "w", lambda handle: handle.write(text))


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write ``data`` as indented JSON to ``path`` atomically."""
    return write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def read_json(path: str | os.PathLike[str], max_bytes: int = MAX_JSON_BYTES) -> Any:
    """The JSON content of ``path`` (ValueError or OSError on failure, for the caller to name). At most
    ``max_bytes`` are read, and nesting too deep for the parser is a ValueError too."""
    with open(path, "rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"larger than {max_bytes} bytes: not a file this engine wrote")
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError("arrays and objects nested too deep") from None


def utc_timestamp() -> str:
    """Now in UTC to the second, ISO 8601 (``2026-01-31T12:00:00+00:00``): the ``created`` time that
    model files and game records carry."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
