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
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_path", "write_bytes", "write_text", "write_json", "read_json", "utc_timestamp"]


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
        yield temp_path
        with open(temp_path, "rb") as written:
            os.fsync(written.fileno())
        os.replace(temp_path, path)
    except BaseException:
        temp_path.unlink(missing_ok=True)
        raise


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


def read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON content of ``path`` (ValueError or OSError on failure, for the caller to name)."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def utc_timestamp() -> str:
    """Now in UTC to the second, ISO 8601 (``2026-01-31T12:00:00+00:00``): the ``created`` time that
    model files and game records carry."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
