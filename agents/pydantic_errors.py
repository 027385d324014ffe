"""Pydantic's validation errors in one line: the first problem's dotted key (or its flag), pydantic's message and
the value it got."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


def one_line(error: ValidationError, prefix: str = "", flags: Collection[str] = ()) -> str:
    """``<prefix.dotted.key>: <pydantic's message> (got <input>)`` for the first problem of ``error``; a key in
    ``flags`` is named as its command-line flag (``report.episodes``: ``--report.episodes``)."""
    first = error.errors()[0]
    loc = [p for p in first["loc"] if not str(p).startswith("function-")]
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")
    where = "--" + key.replace("_", "-") if key in flags else ".".join(filter(None, [prefix, key]))
    message = first["msg"].removeprefix("Value error, ")
    got = f" (got {first['input']!r})" if loc else ""  # a check of the whole model got all of it: not repeated
    return f"{where}: {message}{got}" if where else message
