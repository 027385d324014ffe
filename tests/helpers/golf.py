"""Golf test data: the book's worked example, the rule sets, and small positions for brute-force checks."""

from __future__ import annotations

from typing import Any

import numpy as np

from patience_gym.cards import RANK, codes
from patience_gym.games.golf import NUM_COLUMNS

# The book's example (golf__book.txt). The text names all 17 stock cards and the
# 21 cards played from the links; the other 14 link cards and the column layout
# are not given, so this layout was built to be consistent with every play and
# every stoppage the text describes (links row by row, then the stock).
BOOK_DEAL = [
    "3D",
    "8S",
    "TS",
    "TH",
    "4D",
    "KS",
    "2C",
    "JS",
    "KC",
    "QS",
    "AS",
    "JD",
    "QD",
    "AH",
    "KD",
    "6H",
    "AC",
    "2H",
    "2S",
    "AD",
    "4S",
    "JH",
    "9D",
    "7D",
    "3H",
    "2D",
    "3C",
    "8D",
    "8H",
    "TC",
    "9S",
    "QC",
    "JC",
    "QH",
    "5H",
    "7H",
    "4C",
    "TD",
    "9H",
    "KH",
    "4H",
    "3S",
    "6D",
    "5S",
    "5D",
    "9C",
    "6S",
    "7C",
    "7S",
    "8C",
    "5C",
    "6C",
]

# Golf's rule sets (as benchmarks/golf_solver.py names them).
RULES: dict[str, dict[str, bool]] = {
    "book": {},
    "queens_on_kings": {"queens_on_kings": True},
    "wrap_ranks": {"wrap_ranks": True},
}


def small_position(rng: np.random.Generator, wrap: bool) -> dict[str, Any]:
    """A 52-card state with 0-2 cards per column and 0-3 stock cards, ranks from a narrow window."""
    start = int(rng.integers(1, 14 if wrap else 10))
    window = [(start - 1 + k) % 13 + 1 for k in range(5)]
    pool = [c for c in range(52) if RANK[c] in window]
    rng.shuffle(pool)
    heights = rng.integers(0, 3, NUM_COLUMNS)
    n_stock = int(rng.integers(0, 4))
    need = int(heights.sum()) + n_stock + 1
    picked = pool[:need]
    columns = []
    for h in heights:
        columns.append(codes(picked[: int(h)]))
        picked = picked[int(h) :]
    stock, top = codes(picked[:n_stock]), picked[n_stock]
    named = set(pool[:need])
    waste = codes([c for c in range(52) if c not in named] + [top])
    return {"tableau": columns, "waste": waste, "stock": stock}
