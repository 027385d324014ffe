"""Miss Milligan family test positions, built from the named cards."""

from __future__ import annotations

from collections import Counter

from patience_gym.cards import CODE, RANK, RED, parse_cards
from patience_gym.games.milligan import MilliganGame, MilliganState


def position(
    game: MilliganGame,
    columns: list[str],
    heights: tuple[int, ...] = (0,) * 8,
    stock: int = 0,
    reserve: str = "",
    origin: int | None = None,
    heap: int = 7,
) -> MilliganState:
    """A position with the given columns (codes, deepest first), foundation heights and reserve.

    The cards the test does not place go, in a fixed order, to the first
    ``stock`` places of the stock and then to the deep end of column ``heap``
    (above the cards the test put there), so the exposed cards and foot
    sequences are the test's own.
    """
    cols = [parse_cards(c) for c in columns]
    cols += [[] for _ in range(8 - len(cols))]
    held = parse_cards(reserve)
    used = Counter(c for col in cols for c in col) + Counter(held)
    used += Counter((s // 2) * 13 + r for s, h in enumerate(heights) for r in range(h))
    rest = [c for c in range(52) for _ in range(2 - used[c])]
    assert all(n <= 2 for n in used.values()), "a test position uses a card three times"
    # Keep the heap's deepest test card from extending a sequence by accident.
    if cols[heap] and rest[stock:]:
        while (RANK[rest[-1]] == RANK[cols[heap][0]] + 1 and RED[rest[-1]] != RED[cols[heap][0]]) and len(
            set(rest[stock:])
        ) > 1:
            rest.append(rest.pop(stock))
    cols[heap] = rest[stock:] + cols[heap]
    data = {
        "tableau": [[CODE[c] for c in col] for col in cols],
        "foundations": [[CODE[(s // 2) * 13 + r] for r in range(h)] for s, h in enumerate(heights)],
        "stock": [CODE[c] for c in rest[:stock]],
    }
    if game.reserve_kind == "waiver":
        data["waived"] = [CODE[c] for c in held]
        data["waived_from"] = origin
    elif game.reserve_kind == "pocket":
        data["pocket"] = CODE[held[0]] if held else None
    return game.from_dict(data)
