"""Card identity, notation and decks.

A card is an ``int`` in ``0..51``: ``suit * 13 + (rank - 1)`` with suits in the
order ``C D H S`` and ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` (1..13). Two-pack
games use the same identities; each appears twice in the deck.

The notation everywhere is rank then suit: ``"AS"``, ``"TD"``, ``"KH"``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"
NUM_CARDS = 52
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE, KING = 1, 13

#: ``RANK[c]`` is the rank (1..13) of card ``c``.
RANK: tuple[int, ...] = tuple(c % 13 + 1 for c in range(NUM_CARDS))
#: ``SUIT[c]`` is the suit index (0..3, ``C D H S``) of card ``c``.
SUIT: tuple[int, ...] = tuple(c // 13 for c in range(NUM_CARDS))
#: ``RED[c]`` is True for diamonds and hearts.
RED: tuple[bool, ...] = tuple(SUIT[c] in (DIAMONDS, HEARTS) for c in range(NUM_CARDS))
#: ``CODE[c]`` is the two-character code of card ``c``.
CODE: tuple[str, ...] = tuple(RANK_CHARS[c % 13] + SUIT_CHARS[c // 13] for c in range(NUM_CARDS))
_BY_CODE = {code: c for c, code in enumerate(CODE)}
# Accept the common "10" spelling of ten on input.
_BY_CODE.update({"10" + s: _BY_CODE["T" + s] for s in SUIT_CHARS})


def make_card(rank: int, suit: int) -> int:
    """Card of ``rank`` (1..13) and ``suit`` (0..3)."""
    if not (1 <= rank <= 13 and 0 <= suit <= 3):
        raise ValueError(f"no card with rank {rank} and suit {suit}")
    return suit * 13 + rank - 1


def card_code(card: int) -> str:
    """Two-character code of ``card``, e.g. ``"TD"``."""
    return CODE[card]


def parse_card(code: str) -> int:
    """Card of a code such as ``"AS"`` or ``"td"``; ValueError naming a bad code."""
    if not isinstance(code, str):
        raise ValueError(f"card code must be a string, got {code!r}")
    card = _BY_CODE.get(code.strip().upper())
    if card is None:
        raise ValueError(
            f"unknown card code {code!r}: expected rank {'/'.join(RANK_CHARS)} "
            f"followed by suit {'/'.join(SUIT_CHARS)}, e.g. 'AS', 'TD'"
        )
    return card


def parse_cards(codes: str | Iterable[str]) -> list[int]:
    """Cards of a whitespace-separated string or an ordered sequence of codes (a list or tuple)."""
    if isinstance(codes, str):
        codes = codes.split()
    elif isinstance(codes, (set, frozenset, dict)) or not isinstance(codes, Iterable):
        raise ValueError(
            f"cards must be a string of codes or an ordered list of them, got {type(codes).__name__}"
            + (
                " (a set has no order, so the deal would depend on hash order)"
                if isinstance(codes, (set, frozenset))
                else ""
            )
        )
    return [parse_card(code) for code in codes]


def codes(cards: Iterable[int]) -> list[str]:
    """Codes of ``cards``."""
    return [CODE[c] for c in cards]


def deck(packs: int = 1) -> list[int]:
    """An ordered deck of ``packs`` packs."""
    return list(range(NUM_CARDS)) * packs


def shuffled_deck(rng: np.random.Generator, packs: int = 1) -> list[int]:
    """A deck of ``packs`` packs shuffled by ``rng``."""
    cards = deck(packs)
    order = rng.permutation(len(cards))
    return [cards[i] for i in order]


def check_cards(cards: Sequence[int], packs: int, what: str = "deal") -> None:
    """Raise ValueError unless ``cards`` holds every card exactly ``packs`` times."""
    counts = Counter(cards)
    wrong = {c: n for c, n in counts.items() if n != packs}
    missing = [c for c in range(NUM_CARDS) if c not in counts]
    if len(cards) == NUM_CARDS * packs and not wrong and not missing:
        return
    times = "once" if packs == 1 else f"exactly {packs} times"
    parts = [f"{what} must hold each of the 52 cards {times} ({NUM_CARDS * packs} cards), got {len(cards)} cards"]
    over = sorted(c for c, n in wrong.items() if n > packs)
    if over:
        parts.append("too many: " + " ".join(f"{CODE[c]}x{counts[c]}" for c in over))
    under = sorted([c for c, n in wrong.items() if n < packs] + missing)
    if under:
        parts.append("missing: " + " ".join(CODE[c] for c in under))
    raise ValueError("; ".join(parts))
