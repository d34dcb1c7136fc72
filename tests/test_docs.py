"""The docs hold: every link leads somewhere, every ``engine`` command they show exists with the options they give
it, and the examples marked ``<!-- example -->`` (cheap ones) run as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

from engine.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "experiments").rglob("README.md")])
EXAMPLE = "<!-- example -->"
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
_INLINE = re.compile(r"`(engine [^`]+)`")


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def fenced_blocks(text: str) -> list[tuple[str, str, bool]]:
    """Every fenced block of a page: its language, its text, and whether an example marker stands before it."""
    return [(match.group(1), match.group(2), text[:match.start()].rstrip().endswith(EXAMPLE))
            for match in _FENCE.finditer(text)]


def command_lines(text: str) -> list[str]:
    """The ``engine ...`` command lines a page shows: in shell blocks (continuations joined), and in inline code
    that names a subcommand."""
    lines = []
    for language, block, _ in fenced_blocks(text):
        if language in ("sh", "bash", ""):
            joined = re.sub(r"\\\n\s*", " ", block)
            lines += [line.split(" #")[0].strip() for line in joined.splitlines()]
    commands = set(main.list_commands(click.Context(main)))
    lines += [span for span in _INLINE.findall(_FENCE.sub("", text)) if span.split()[1] in commands]
    return [line[line.index("engine "):] for line in lines if re.match(r"^(.* \| )?engine \w", line)]


def check_command(line: str) -> list[str]:
    """What is wrong with an ``engine ...`` command line as the CLI reads it: an unknown subcommand or option."""
    plain = line.replace("[", " ").replace("]", " ").replace("|", " ").replace("\n", " ")
    try:
        words = shlex.split(plain)[1:]
    except ValueError:   # a quote the span does not close
        words = plain.split()[1:]
    words = [word for word in words if "..." not in word]
    command: click.Command = main
    path = ["engine"]
    while isinstance(command, click.Group) and words and not words[0].startswith("-"):
        found = command.get_command(click.Context(command), words[0])
        if found is None:
            return [f"{' '.join(path)} has no subcommand {words[0]!r}"]
        command, path = found, path + [words.pop(0)]
    options = {option for parameter in command.params for option in getattr(parameter, "opts", [])}
    options |= {option for parameter in command.params for option in getattr(parameter, "secondary_opts", [])}
    options |= {"--help", "-h"}
    problems = []
    for word in words:
        if word == "--":
            break
        option = word.split("=")[0]
        if re.fullmatch(r"--?[a-z][a-z0-9-]*", option) and option not in options:
            problems.append(f"{' '.join(path)} has no option {option}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_link_leads_to_a_file(page: Path) -> None:
    text = page.read_text()
    targets = [link.split("#")[0] for link in _LINK.findall(text) if not re.match(r"^(https?|mailto):", link)]
    missing = [target for target in targets if target and not (page.parent / target).exists()]
    assert missing == []


def test_the_readme_is_a_front_page_that_links_every_docs_page() -> None:
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 200
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in text, f"README.md does not link docs/{page.name}"
    marker = text.splitlines().index("<!-- test-command -->")
    assert text.splitlines()[marker + 1] == "```sh" and "pytest" in text.splitlines()[marker + 2]


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_engine_command_shown_exists_with_its_options(page: Path) -> None:
    problems = [f"{line}: {problem}" for line in command_lines(page.read_text()) for problem in check_command(line)]
    assert problems == []


@pytest.mark.parametrize("line,caught", [("engine gtp --visits 8", False), ("engine gtp --visit 8", True),
                                         ("engine bench rules --game go [--api compiled|game]", False),
                                         ("engine trian chunks out", True),
                                         ("engine bench ponder --seconds 1 -- --runtime eager", False)])
def test_a_wrong_command_in_the_docs_is_caught(line: str, caught: bool) -> None:
    assert bool(check_command(line)) == caught


EXAMPLES = [(page, index, language, block) for page in PAGES
            for index, (language, block, marked) in enumerate(fenced_blocks(page.read_text())) if marked]


def test_the_docs_have_examples_to_run() -> None:
    assert {language for _, _, language, _ in EXAMPLES} >= {"sh", "python"}


@pytest.mark.parametrize("page,index,language,block", EXAMPLES,
                         ids=[f"{_name(page)}-{index}" for page, index, _, _ in EXAMPLES])
def test_a_marked_example_runs_as_written(page: Path, index: int, language: str, block: str, tmp_path: Path) -> None:
    """Shell examples run with ``engine`` as this tree's ``python -m engine``, in an empty folder."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    if language == "python":
        command = [sys.executable, "-c", block]
    else:
        command = ["bash", "-euo", "pipefail", "-c", f"engine() {{ {shlex.quote(sys.executable)} -m engine \"$@\"; }}\n"
                                                     + block]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{_name(page)} example {index}:\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
