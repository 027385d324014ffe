"""What a Golf player sees at a glance: for each column, the run of plays it starts.

Used by Golf's ``runs`` observation encoding. Only visible cards are read: the
links, the waste and the count of cards not yet seen (not on the links, not in
the waste); never the order of the face-down stock.

For each column whose exposed card plays on the waste, ``column_runs`` gives
the longest run of plays that starts with that card (before a stock card must
be turned), and the *openness* at the end of that run: how many unseen cards
are one rank from some exposed card, i.e. the chances that the next turned card
plays. Ties in length keep the most open ending.
"""

from __future__ import annotations

from collections.abc import Sequence

from patience_gym.cards import RANK

#: A search visits at most this many positions per observation (runs are short in practice).
MAX_NODES = 50_000


class _Search:
    def __init__(self, fits: Sequence[Sequence[bool]], columns: Sequence[Sequence[int]], waste: Sequence[int]):
        self.fits = fits
        self.columns = columns
        self.heights = [len(c) for c in columns]
        unseen = [4] * 14
        unseen[0] = 0
        for col in columns:
            for card in col:
                unseen[RANK[card]] -= 1
        for card in waste:
            unseen[RANK[card]] -= 1
        self.unseen = unseen
        self.memo: dict[tuple[int, ...], tuple[int, int]] = {}
        self.nodes = 0

    def openness(self) -> int:
        exposed = {RANK[col[h - 1]] for col, h in zip(self.columns, self.heights) if h}
        return sum(self.unseen[r] for r in range(1, 14) if any(self.fits[r][e] for e in exposed))

    def best(self, waste_rank: int) -> tuple[int, int]:
        """(longest run, openness at its end) from the current heights and waste rank."""
        key = (*self.heights, waste_rank)
        cached = self.memo.get(key)
        if cached is not None:
            return cached
        self.nodes += 1
        result = (0, self.openness())
        if self.nodes <= MAX_NODES:
            for i, col in enumerate(self.columns):
                h = self.heights[i]
                if h and self.fits[waste_rank][RANK[col[h - 1]]]:
                    result = max(result, self.after_playing(i))
        self.memo[key] = result
        return result

    def after_playing(self, i: int) -> tuple[int, int]:
        """(run length, openness) of the best run that starts by playing column ``i``'s exposed card."""
        h = self.heights[i]
        self.heights[i] = h - 1
        length, openness = self.best(RANK[self.columns[i][h - 1]])
        self.heights[i] = h
        return length + 1, openness


def column_runs(
    fits: Sequence[Sequence[bool]], columns: Sequence[Sequence[int]], waste: Sequence[int]
) -> list[tuple[int, int]]:
    """Per column: (longest run starting with its exposed card, openness after it); (0, 0) if it cannot play."""
    search = _Search(fits, columns, waste)
    waste_rank = RANK[waste[-1]]
    out = []
    for i, col in enumerate(columns):
        if col and fits[waste_rank][RANK[col[-1]]]:
            out.append(search.after_playing(i))
        else:
            out.append((0, 0))
    return out
