"""A Ray run's directory: a plain path shared by the nodes, or an fsspec URL (``s3://``, ``gs://``, ``file://``).

A plain path is used in place, exactly as a run without Ray uses it. A URL is
mirrored in a local folder (``staging``) that the loop reads and writes as it
always does; :meth:`RunStore.pull` copies the URL's files there when a run
starts or resumes, and every file the loop commits is uploaded as it is
committed: a game record as soon as it is saved, the other files of a phase
before the ``state.json`` that records the phase as done. Each upload goes to a
temporary name (a dot, ``.tmp``) and is then moved onto its name, so a reader
of the URL, or a driver resumed after ``kill -9``, sees whole files only. A
store is a small picklable value: Ray workers rebuild the filesystem from the
URL (credentials come from the environment, as fsspec's backends read them).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["RunStore", "is_url", "TRAIN_FOLDER"]

_STATE = "state.json"
TRAIN_FOLDER = "ray-train"
"""Where Ray Train keeps its jobs' checkpoints in a run: written by Ray itself, never mirrored."""


def is_url(location: str | os.PathLike[str]) -> bool:
    """Whether ``location`` names an fsspec URL (``scheme://...``) rather than a plain path."""
    return "://" in str(location)


def _default_staging(url: str) -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "engine" / "runs" / hashlib.sha256(url.encode()).hexdigest()[:16]


class RunStore:
    """Where a run's files live (see the module docstring); ``local`` is the folder the loop works in."""

    def __init__(self, location: str | os.PathLike[str], staging: str | os.PathLike[str] | None = None) -> None:
        self.location = str(location).rstrip("/") if is_url(location) else str(location)
        self.remote = is_url(location)
        if self.remote:
            self.local = Path(staging) if staging is not None else _default_staging(self.location)
        else:
            self.local = Path(location).resolve()  # workers on other nodes see a shared path at the same place
        self._sent: dict[str, tuple[int, int]] = {}  # relative path -> (size, mtime_ns) uploaded
        self._fs: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_fs": None, "_sent": {}}

    @property
    def fs(self) -> Any:
        """The fsspec filesystem of a URL store."""
        if self._fs is None:
            import fsspec

            self._fs, _ = fsspec.core.url_to_fs(self.location)
        return self._fs

    @property
    def root(self) -> str:
        """The URL's path inside its filesystem."""
        import fsspec

        return fsspec.core.url_to_fs(self.location)[1]

    def url(self, relative: str) -> str:
        """Where ``relative`` lives: a URL, or a path for a plain store."""
        return f"{self.location}/{relative}" if self.remote else str(self.local / relative)

    def _remote_path(self, relative: str) -> str:
        return f"{self.root}/{relative}"

    # ---------------------------------------------------------------- driver
    def pull(self) -> int:
        """Copy the URL's files that the local mirror lacks (or holds in another size); return how many."""
        if not self.remote:
            return 0
        self.local.mkdir(parents=True, exist_ok=True)
        root = self.root
        copied = 0
        for path, info in sorted(self.fs.find(root, detail=True).items()):
            relative = path[len(root):].lstrip("/")
            parts = relative.split("/")
            if not relative or parts[0] == TRAIN_FOLDER or any(part.startswith(".") for part in parts):
                continue
            target = self.local / relative
            if not target.exists() or target.stat().st_size != info.get("size"):
                self._download(path, target)
                copied += 1
            self._note_sent(relative)
        return copied

    def commit(self, paths: Iterable[Path]) -> None:
        """Upload these files of the local mirror now (a game record and its SGF as they are saved); files
        outside the mirror are left alone."""
        if self.remote:
            for path in paths:
                if Path(path).resolve().is_relative_to(self.local.resolve()):
                    self._upload(Path(path).resolve().relative_to(self.local.resolve()).as_posix())

    def sync(self) -> int:
        """Upload every file of the mirror that is new or changed since it was last uploaded, ``state.json``
        last, so the URL never records a phase as done before holding its files; return how many."""
        if not self.remote:
            return 0
        changed = []
        for path in sorted(self.local.rglob("*")):
            relative = path.relative_to(self.local).as_posix()
            if not path.is_file() or any(part.startswith(".") for part in relative.split("/")):
                continue
            stat = path.stat()
            if self._sent.get(relative) != (stat.st_size, stat.st_mtime_ns):
                changed.append(relative)
        changed.sort(key=lambda relative: relative == _STATE)
        for relative in changed:
            self._upload(relative)
        return len(changed)

    def remove(self, relative: str) -> None:
        """Delete ``relative`` (a file or folder) wherever the run lives."""
        if self.remote:
            if self.fs.exists(self._remote_path(relative)):
                self.fs.rm(self._remote_path(relative), recursive=True)
        target = self.local / relative
        if target.is_dir():
            import shutil

            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)

    # --------------------------------------------------------------- workers
    def fetch(self, relative: str, into: Path | None = None) -> Path:
        """A local folder or file holding ``relative``: in place for a plain store (a shared path), else a
        copy under ``into`` (default: a new temporary folder), for a worker on any node."""
        if not self.remote:
            return self.local / relative
        into = Path(into or tempfile.mkdtemp(prefix="engine-run-"))
        source = self._remote_path(relative)
        if self.fs.isdir(source):
            for path in self.fs.find(source):
                self._download(path, into / relative / path[len(source):].lstrip("/"))
        else:
            self._download(source, into / relative)
        return into / relative

    # --------------------------------------------------------------- helpers
    def _note_sent(self, relative: str) -> None:
        stat = (self.local / relative).stat()
        self._sent[relative] = (stat.st_size, stat.st_mtime_ns)

    def _upload(self, relative: str) -> None:
        target = self._remote_path(relative)
        parent, _, name = target.rpartition("/")
        temp = f"{parent}/.{name}.tmp"
        self.fs.makedirs(parent, exist_ok=True)
        self.fs.put_file(str(self.local / relative), temp)
        self.fs.mv(temp, target)
        self._note_sent(relative)

    def _download(self, source: str, target: Path) -> None:
        from engine import atomic_path

        with atomic_path(target) as temp:
            self.fs.get_file(source, str(temp))
