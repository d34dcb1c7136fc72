"""The tree carries a binary only where something cites it, never the same bytes twice, and within a budget.

A binary (git's own test: its indexed content is not text) under `experiments/NAME/` must be named by a markdown
file of that experiment, of docs/ or the README, as a path tail or a glob (`matches/stage13-vs-stage9-19x19*`) or
a folder (`results/ratings-matches/`); anything else outside tests/ by a markdown file beside it, in docs/ or the
README; a test fixture by a test module. Results and resume points are cited; everything else lives in history.
"""

from __future__ import annotations

import re
import subprocess
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[1]
SYMLINK_MODE = "120000"
_WORD = re.compile(r"[^\s`'\"()\[\]<>|,;]+")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def index() -> dict[str, tuple[str, str]]:
    """Tracked path -> (mode, object id), read from git's index."""
    try:
        listing = _git("ls-files", "-s", "-z")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (or git is missing): the tracked files cannot be listed")
    entries = {}
    for record in listing.split("\0"):
        if record:
            meta, path = record.split("\t", 1)
            mode, object_id, _stage = meta.split()
            entries[path] = (mode, object_id)
    return entries


@pytest.fixture(scope="module")
def binaries(index: dict[str, tuple[str, str]]) -> list[str]:
    """Tracked regular files whose indexed content git classes as binary (`git ls-files --eol`: `i/-text`)."""
    found = []
    for record in _git("ls-files", "--eol", "-z").split("\0"):
        if record:
            meta, path = record.split("\t", 1)
            if meta.split()[0] == "i/-text" and index[path][0] != SYMLINK_MODE:
                found.append(path)
    return found


def cited_words(text: str) -> set[str]:
    """Every word of `text` that could name a path: it holds a slash, a dot or a glob character."""
    words = (word.rstrip(".:") for word in _WORD.findall(text))
    return {word for word in words if re.search(r"[./*?]", word) and re.search(r"[A-Za-z0-9]", word)}


def _resolve(word: str, base: PurePosixPath) -> str:
    """`word` read from folder `base`, with `.` and `..` folded (a word climbing above the root resolves to '')."""
    parts: list[str] = []
    for part in (base / word).parts:
        if part == "..":
            if not parts:
                return ""
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def _glob_matches(path: str, pattern: str) -> bool:
    """Component-wise glob (a `*` never crosses a slash), as pathlib's full match."""
    names, globs = path.split("/"), pattern.split("/")
    return len(names) == len(globs) and all(fnmatchcase(name, glob) for name, glob in zip(names, globs))


def is_cited(path: str, words: set[str], bases: list[PurePosixPath]) -> bool:
    """Whether a word names `path`: a plain name by a tail of its components; a glob or a folder (`name/`) as a
    path read from one of `bases` (the citing file's folder, the repository root, the home for its own files and
    for test code, which reads a fixture through its folder), inside the binary's home and
    with a literal part of three characters at least in its last name (`*` and `experiments/` cite nothing)."""
    parts = PurePosixPath(path).parts
    tails = {"/".join(parts[i:]) for i in range(len(parts))}
    inside = f"{home(path)}/"
    for word in words:
        if not word.endswith("/") and not re.search(r"[*?\[]", word):
            if word.removeprefix("./") in tails:
                return True
            continue
        if len(re.sub(r"[*?\[\]]", "", word.rstrip("/").rsplit("/", 1)[-1])) < 3:
            continue
        for base in bases:
            resolved = _resolve(word, base)
            if not resolved.startswith(inside):
                continue
            if word.endswith("/") and path.startswith(resolved + "/"):
                return True
            if not word.endswith("/") and _glob_matches(path, resolved):
                return True
    return False


def home(path: str) -> PurePosixPath:
    """The folder whose files speak for a binary: its experiment (`experiments/NAME`), else its own folder."""
    parts = PurePosixPath(path).parts
    return PurePosixPath(*parts[:2]) if parts[0] == "experiments" else PurePosixPath(path).parent


def citing_files(path: str, tracked: list[str]) -> list[str]:
    """The tracked files allowed to cite `path`: test modules for a fixture, else the markdown of its home, of
    docs/ and the README."""
    if path.startswith("tests/"):
        return [name for name in tracked if name.startswith("tests/") and name.endswith(".py")]
    prefix = f"{home(path)}/"
    return [name for name in tracked if name.endswith(".md")
            and (name.startswith(prefix) or name.startswith("docs/") or name == "README.md")]


def test_is_cited_reads_tails_globs_and_folders() -> None:
    path = "experiments/go19-supervised/matches/stage13-vs-stage9-19x19-sgf.tar.xz"
    bases = [PurePosixPath("experiments/go19-supervised"), PurePosixPath(".")]
    assert home(path) == bases[0]
    assert home("engine/nn/networks/a.safetensors") == PurePosixPath("engine/nn/networks")
    assert is_cited(path, {"stage13-vs-stage9-19x19-sgf.tar.xz"}, bases)
    assert is_cited(path, {"matches/stage13-vs-stage9-19x19*"}, bases)
    assert is_cited(path, {"matches/"}, bases)
    assert is_cited(path, {"../go19-supervised/matches/*.tar.xz"}, bases)
    assert not is_cited(path, {"stage13-vs-stage9-19x19.json", "matches/stage12*", "go19-supervised/matches",
                               "experiments/", "experiments/go19-supervised/", "*", "**", "matches*", "*.xz",
                               "sgf.tar.xz", "../../../matches/"}, bases)
    assert cited_words("games in `../matches/x-sgf.tar.xz`, and (results/a.png). See ** and `*`.") == {
        "../matches/x-sgf.tar.xz", "results/a.png"}
    assert _resolve("../../x", PurePosixPath("a")) == ""


def test_every_binary_is_cited(index: dict[str, tuple[str, str]], binaries: list[str]) -> None:
    tracked = sorted(index)
    words_of: dict[str, set[str]] = {}
    uncited = []
    for path in binaries:
        for name in citing_files(path, tracked):
            if name not in words_of:
                words_of[name] = cited_words((ROOT / name).read_text(encoding="utf-8", errors="replace"))
            bases = [PurePosixPath(name).parent, PurePosixPath(".")]
            if name.startswith(f"{home(path)}/") or path.startswith("tests/"):
                bases.append(home(path))
            if is_cited(path, words_of[name], bases):
                break
        else:
            uncited.append(path)
    assert not uncited, ("tracked binaries that no README, docs page or test names (cite them for a result or a "
                         "resume point, or `git rm` them: history keeps them):\n" + "\n".join(uncited))


def test_no_two_binaries_share_their_bytes(index: dict[str, tuple[str, str]], binaries: list[str]) -> None:
    by_object: dict[str, list[str]] = {}
    for path in binaries:
        by_object.setdefault(index[path][1], []).append(path)
    copies = [paths for paths in by_object.values() if len(paths) > 1]
    assert not copies, f"the same bytes tracked twice (keep one, link the other with a git symlink): {copies}"


BINARY_BUDGET_BYTES = 15_000_000
"""What the tracked binaries may weigh together: the bundled networks and the archives that results cite."""


def test_tracked_binaries_fit_their_budget(index: dict[str, tuple[str, str]], binaries: list[str]) -> None:
    sizes = {path: int(_git("cat-file", "-s", index[path][1]).strip()) for path in binaries}
    total = sum(sizes.values())
    largest = sorted(sizes, key=sizes.get, reverse=True)[:5]
    assert total <= BINARY_BUDGET_BYTES, (f"tracked binaries weigh {total / 1e6:.1f} MB, over the "
                                          f"{BINARY_BUDGET_BYTES / 1e6:.0f} MB budget; the largest: {largest}")
