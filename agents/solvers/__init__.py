"""Perfect-knowledge solvers: they read the hidden cards, so their scores are upper bounds, not fair agents.

:mod:`agents.solvers.golf` (with its optional C core, ``agents.solvers._golf_solver``, built by
``pip install -e .``), :mod:`agents.solvers.puss` and :mod:`agents.solvers.milligan`. This package imports
none of them; it holds the budget checks they share.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse


def check_budget(name: str, value: Any, integer: bool, unlimited: str | None = "None") -> None:
    """A ValueError naming ``name`` unless ``value`` is None or a positive (whole, if ``integer``) budget.

    ``unlimited``: how the caller asks for no limit, named in the message (None: it cannot).
    """
    if value is None:
        return
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not value > 0 or not math.isfinite(value):
        what = "a positive integer" if integer else "a positive number of seconds"
        otherwise = f" (or {unlimited})" if unlimited else ""
        raise ValueError(f"{name} must be {what}{otherwise}, got {value!r}")


def check_budget_option(
    parser: argparse.ArgumentParser,
    option: str,
    value: Any,
    integer: bool,
    unlimited: str | None = "left out: no limit",
) -> None:
    """:func:`check_budget` for a command-line option: a usage error (exit 2) naming ``option``."""
    try:
        check_budget(option, value, integer, unlimited)
    except ValueError as exc:
        parser.error(str(exc))
