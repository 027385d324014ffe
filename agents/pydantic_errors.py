"""Pydantic's validation errors in words: the first problem as one line naming the key (or its flag)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


def describe(error: ValidationError, prefix: str = "", names: dict[str, str] | None = None) -> str:
    """The first problem of a pydantic ``error`` in words: the dotted key (or its flag in ``names``) and why."""
    first = error.errors()[0]
    loc = [str(p) for p in first["loc"] if not str(p).startswith("function-")]
    key = ".".join(loc)
    where = names[key] if names and key in names else ".".join(filter(None, [prefix, key]))
    kind, ctx, value = first["type"], first.get("ctx", {}), first.get("input")
    if kind in ("extra_forbidden", "unexpected_keyword_argument"):
        return f"unknown key {where}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = next(iter(ctx.values()))
        words = {
            "greater_than_equal": "0 or more" if bound == 0 else f"at least {bound}",
            "greater_than": f"greater than {bound}",
            "less_than_equal": f"at most {bound}",
            "less_than": f"below {bound:,}" if isinstance(bound, int) else f"below {bound}",
        }[kind]
        return f"{where} must be {words}, got {value!r}"
    if kind == "finite_number":
        return f"{where} must be a finite number, got {value!r}"
    if kind == "literal_error":
        return f"{where} must be one of {ctx['expected'].replace(chr(39), '').replace(' or ', ', ')}, got {value!r}"
    if kind == "value_error":
        message = str(ctx.get("error", first["msg"]))
        return f"{where}{message}" if message.startswith((".", ":")) else f"{where} {message}"
    names_of = {"int": "int", "float": "float", "bool": "bool", "string": "str", "list": "list", "dict": "a mapping"}
    for stem, name in names_of.items():
        if kind.startswith(stem + "_"):
            return f"{where} must be {name}, got {value!r}"
    if kind == "dataclass_type":
        return f"{where} must be a mapping, got {value!r}"
    return f"{where}: {first['msg']}, got {value!r}"
