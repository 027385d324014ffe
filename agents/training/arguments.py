"""Reading one flag out of a command line before argparse sees it (``train.py`` routes on ``--config`` and
``--resume`` first; a sweep hands the rest of its line to each trial)."""

from __future__ import annotations


def flag_value(args: list[str], flag: str) -> str | None:
    """The value given to ``flag`` (``--flag V`` or ``--flag=V``), or None."""
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(f"{flag}="):
            return arg.split("=", 1)[1]
    return None


def without_flag(args: list[str], flag: str) -> list[str]:
    """``args`` with ``flag`` and the value given to it left out (its first occurrence, either spelling)."""
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[:i] + args[i + 2 :]
        if arg.startswith(f"{flag}="):
            return args[:i] + args[i + 1 :]
    return list(args)
