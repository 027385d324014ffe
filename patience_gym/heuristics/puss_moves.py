"""What a Puss in the Corner player weighs before each move: per-action features.

Used by the ``moves`` observation encoding. Everything here is read from
what a player sees or remembers: the foundations, the packets (a player may
look through them), the dealt card and, on the second pass, the new pack,
whose order is the packets' order as they were taken up. Never the order of
the face-down pack on the first pass.

A card's *wait* is how many ranks its foundation must still climb before the
card fits (0: it fits now): each rank of a colour appears twice and each pile
of that colour takes one, so a card of rank ``r`` waits ``r - n`` where ``n``
is the highest next-needed rank of its colour's two piles not above ``r``.

For every action, :func:`move_features` gives ``MOVE_FEATURES`` numbers
(0 for actions that are not legal or where a feature does not apply):

* ``0`` legal;
* placing the dealt card on packet ``k`` (``dealt>A``..): ``1`` the card's
  wait, ``2`` packet empty, ``3`` the packet top's wait, ``4`` the top waits
  longer than the card (or the packet is empty: the card will be gone before
  what it covers is wanted), ``5`` top's wait minus the card's, ``6`` packet
  size, ``7`` the shortest wait in the packet, ``8`` the packet's cards that
  wait no longer than the card (the ones it buries too long);
* a packet top to a foundation (``A>f1``..): ``2`` the packet empties,
  ``3`` the wait of the card beneath, ``4`` that card fits at once, ``6``
  packet size, ``7`` the shortest wait left in the packet, ``9`` how many
  cards play off the packet in a row;
* the sevens privilege: ``6`` cards moved, ``10`` pairs merged, ``11`` the
  smallest margin (the lower packet top's wait minus the longest wait in the
  packet put on it), ``12`` harmless pairs (margin above 0), ``13`` cards put
  on a top that waits no longer than they do;
* ``take k``: ``6`` packet size, ``14`` how many of its cards would go to
  the foundations if it were dealt first (foundations as they are, other
  packets aside), ``15`` that as a share of the packet, ``16`` mean wait,
  ``17..28`` the waits of its first 12 cards in dealing order (its bottom
  card first), as ``(wait + 1) / 13`` with 0 for no card;
* ``deal``: ``6`` cards left in the pack.

Waits and counts are scaled to -1..1 (waits by 12, packet sizes by 24 and
short counts by 8, capped at 1).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from typing import TypeVar

import numpy as np

from patience_gym.cards import RANK, RED

T = TypeVar("T")

NUM_ACTIONS = 53
MOVE_FEATURES = 29
_FIRST_CARDS = 12
_DEAL, _TO_CORNER, _TO_FOUNDATION, _CORNER_TO_FOUNDATION, _MERGE, _TAKE = 0, 1, 5, 9, 25, 49
_FOUNDATION_RED = (False, True, True, False)
# An empty packet's "top" shows as wait 12 (longer than any card waits): anything may go on it.


def _size(packet: Sequence[int]) -> float:
    return min(len(packet), 24) / 24


def card_waits(need: Sequence[int]) -> tuple[int, ...]:
    """``w[c]``: ranks card ``c``'s foundation must still climb before ``c`` fits (see module docstring).

    Remembered by the foundations' needs (at most 13**4 of them): the greedy asks at every move.
    """
    return _card_waits(tuple(need))


@functools.cache
def _card_waits(need: tuple[int, ...]) -> tuple[int, ...]:
    by_colour = {red: sorted(need[f] for f in range(4) if _FOUNDATION_RED[f] == red) for red in (False, True)}
    w = [0] * 52
    for c in range(52):
        r = RANK[c]
        low, high = by_colour[RED[c]]
        w[c] = r - (high if high <= r else low)
    return tuple(w)


def chain_to_foundations(cards: Sequence[int], need: Sequence[int], stop_at_first_miss: bool) -> int:
    """How many of ``cards``, dealt in order onto the foundations needing ``need``, would go up.

    With ``stop_at_first_miss`` the count stops at the first card that does not fit
    (cards played off a packet top); otherwise misses are passed over (a pack dealt through).
    """
    need = list(need)
    played = 0
    for card in cards:
        r = RANK[card]
        red = RED[card]
        for f in range(4):
            if _FOUNDATION_RED[f] == red and need[f] == r:
                need[f] = r + 1
                played += 1
                break
        else:
            if stop_at_first_miss:
                break
    return played


def _legal_rows(out: np.ndarray, bits: int, first: int, items: Sequence[T]) -> Iterator[tuple[np.ndarray, T]]:
    """``(row, item)`` for each ``items[i]`` whose action ``first + i`` is legal; the row is marked legal."""
    for i, item in enumerate(items):
        if bits >> (first + i) & 1:
            row = out[first + i]
            row[0] = 1.0
            yield row, item


def move_features(
    corners: Sequence[Sequence[int]],
    hand: int,
    need: Sequence[int],
    pack_left: int,
    bits: int,
    merges: Sequence[Sequence[tuple[int, int]]],
) -> np.ndarray:
    """``(NUM_ACTIONS, MOVE_FEATURES)`` float32 features of the legal actions ``bits`` (see module docstring).

    ``merges[i]`` lists the (upper, lower) packet pairs of the sevens action ``25 + i``.
    """
    out = np.zeros((NUM_ACTIONS, MOVE_FEATURES), dtype=np.float32)
    w = card_waits(need)
    if bits >> _DEAL & 1:
        out[_DEAL, 0] = 1.0
        out[_DEAL, 6] = pack_left / 48
    if hand >= 0:
        wc = w[hand]
        for row, packet in _legal_rows(out, bits, _TO_CORNER, corners):
            row[1] = wc / 12
            if packet:
                wt = w[packet[-1]]
                row[3] = wt / 12
                row[4] = wt > wc
                row[5] = max(-1.0, min(1.0, (wt - wc) / 12))
                row[6] = _size(packet)
                row[7] = min(w[c] for c in packet) / 12
                row[8] = min(sum(1 for c in packet if w[c] <= wc), 8) / 8
            else:
                row[2] = row[4] = 1.0
                row[3] = 1.0
                row[5] = 1.0
        for f in range(4):
            a = _TO_FOUNDATION + f
            if bits >> a & 1:
                out[a, 0] = 1.0
    plays = bits >> _CORNER_TO_FOUNDATION & 0xFFFF
    if plays:
        for k, packet in enumerate(corners):
            if not plays >> (4 * k) & 0b1111:
                continue
            rest = packet[:-1]
            chain = chain_to_foundations(packet[::-1], need, stop_at_first_miss=True)
            for f in range(4):
                a = _CORNER_TO_FOUNDATION + 4 * k + f
                if not bits >> a & 1:
                    continue
                row = out[a]
                row[0] = 1.0
                row[6] = _size(packet)
                row[9] = min(chain, 8) / 8
                if rest:
                    # The beneath card's wait once this card is up (it may then fit).
                    after = list(need)
                    after[f] += 1
                    wa = card_waits(after)
                    row[3] = wa[rest[-1]] / 12
                    row[4] = wa[rest[-1]] == 0
                    row[7] = min(wa[c] for c in rest) / 12
                else:
                    row[2] = 1.0
                    row[3] = 1.0
    merge_bits = bits >> _MERGE & 0xFFFFFF
    if merge_bits:
        for row, pairs in _legal_rows(out, bits, _MERGE, merges):
            moved = 0
            margins = []
            buried = 0
            for upper, lower in pairs:
                top = w[corners[lower][-1]]
                moving = corners[upper]
                moved += len(moving)
                margins.append(top - max(w[c] for c in moving))
                buried += sum(1 for c in moving if w[c] >= top)
            row[6] = min(moved, 24) / 24
            row[10] = len(pairs) / 2
            row[11] = max(-1.0, min(1.0, min(margins) / 12))
            row[12] = sum(1 for m in margins if m > 0) / 2
            row[13] = min(buried, 8) / 8
    takes = bits >> _TAKE & 0b1111
    if takes:
        for row, packet in _legal_rows(out, bits, _TAKE, corners):
            row[6] = _size(packet)
            up = chain_to_foundations(packet, need, stop_at_first_miss=False)
            row[14] = min(up, 12) / 12
            row[15] = up / len(packet)
            row[16] = sum(w[c] for c in packet) / (12 * len(packet))
            for i, card in enumerate(packet[:_FIRST_CARDS]):
                row[17 + i] = (w[card] + 1) / 13
    return out
