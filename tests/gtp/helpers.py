"""Running GTP sessions in-process for the tests, and reading what they answer."""

from __future__ import annotations

import io
import re

from gtp.commands import serve
from gtp.state import FrontEndConfig

RESPONSE = re.compile(r"([=?])(\d*)(?: (.*))?$")


def run_session(data: bytes | str, **options: object) -> str:
    """Everything a session writes for ``data`` (the whole input), engine warmed up before it starts."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    options.setdefault("seed", 1)
    options.setdefault("visits", 32)
    options.setdefault("batch", 8)
    out = io.BytesIO()
    serve(FrontEndConfig(**options), io.BytesIO(data), out, background=False)  # type: ignore[arg-type]
    return out.getvalue().decode("utf-8")


def responses(output: str) -> list[tuple[str, str | None, str]]:
    """``(status, id, text)`` for every response; fails on anything that is not a GTP response."""
    assert output.endswith("\n\n") or output == "", f"output does not end a response: {output[-40:]!r}"
    found = []
    for block in output.split("\n\n")[:-1]:
        first, *rest = block.split("\n")
        match = RESPONSE.match(first)
        assert match is not None, f"not a GTP response: {block!r}"
        text = "\n".join([match.group(3) or ""] + rest).strip("\n")
        found.append((match.group(1), match.group(2) or None, text))
    return found


def answers(data: str, **options: object) -> list[str]:
    """The texts of the responses, ``?`` failures written as ``"? message"``."""
    return [text if status == "=" else f"? {text}" for status, _id, text in responses(run_session(data, **options))]
