"""The greedy Puss in the Corner player's rules: keep every packet in the order its cards will be wanted.

It reads only what a player sees: the foundations, the packets (a player may
look through them), the dealt card and the pack count; never the face-down
pack. Its measure of a card is its *wait*: how many ranks its foundation
still has to climb before the card fits (0: it fits now). Each rank of a
colour appears twice and each pile of that colour takes exactly one, so a
card of rank ``r`` waits ``r - n`` where ``n`` is the highest next-needed
rank of its colour's two piles not above ``r``. Then:

1. every card that fits a foundation goes there: the dealt card at once,
   packet tops between deals, choosing first the play that exposes the card
   with the shortest wait beneath it (two piles of the same colour and rank
   are interchangeable, so the lower-numbered one is taken);
2. a card for the packets goes on the packet whose top card waits longer
   than it does (so it will be gone before that top is wanted), the closest
   such fit first; failing that on an empty corner; failing that on the
   packet whose top waits longest (the least harmful burial);
3. the sevens privilege puts packet X on packet Y only when every card of X
   waits less than Y's top (a harmless merge that frees a corner), taking
   the safest such merges, at most one per pair; with a 7 that goes to a
   foundation it first places the 7 and plays what that releases (where the
   rules allow the privilege after placing, as the book's example does);
4. for the redeal it tries every order of the packets, dealing the second
   pass through in its head with these same rules (the packets are in view,
   so the new pack's order is known), and takes the order that ends with
   the most cards on the foundations (ties: the first order tried).

They live here, beside the rules, because the ``moves_replay`` observation
encoding gives each take-up action the outcome of this same mental replay
(:func:`redeal_values`), and ``moves_replay_all`` gives every second-pass
action the outcome of the greedy's replay after it (:class:`SecondPassReplay`);
:class:`agents.baselines.greedy_puss.PussGreedy` plays them.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

import numpy as np

from patience_gym.games.puss import (
    CORNER_TO_FOUNDATION,
    DEAL,
    MERGE,
    MERGES,
    NUM_CORNERS,
    TAKE,
    TO_CORNER,
    TO_FOUNDATION,
    PussInTheCorner,
    PussState,
)
from patience_gym.heuristics.puss_moves import card_waits

NO_WAIT = 99  # an empty packet's "top": anything may go on it safely


def waits(state: PussState) -> tuple[int, ...]:
    """``w[c]``: ranks card ``c``'s foundation must still climb before ``c`` fits (see module docstring)."""
    return card_waits(state.need)


def choose_move(game: PussInTheCorner, state: PussState, plan_redeal: bool = True) -> int:
    """The greedy move in ``state`` (a live position)."""
    bits = game.legal_bits(state)
    w = waits(state)
    hand = state.hand
    if hand >= 0:
        fits = bits >> TO_FOUNDATION & 0b1111
        after = game.options.sevens_after_placing
        if state.seven and not (fits and after):
            merge = _choose_merge(state, bits, w)
            if merge is not None:
                return merge
        if fits:
            return TO_FOUNDATION + lowest_bit(fits)
        return TO_CORNER + _choose_corner(state, w, hand)
    play = _choose_play(state, bits, w)
    if play is not None:
        return play
    if state.seven:
        merge = _choose_merge(state, bits, w)
        if merge is not None:
            return merge
    if bits >> DEAL & 1:
        return DEAL
    takes = [k for k in range(NUM_CORNERS) if bits >> (TAKE + k) & 1]
    if len(takes) == 1 or not plan_redeal:
        return TAKE + takes[0]
    return TAKE + _choose_redeal(game, state, takes)


def greedy_move(game: PussInTheCorner, state: PussState, mask: np.ndarray) -> int:
    """The greedy baseline's move (the game table's ``greedy_move``; ``mask`` unused: the rules give it)."""
    return choose_move(game, state)


def lowest_bit(x: int) -> int:
    return (x & -x).bit_length() - 1


def _choose_corner(state: PussState, w: Sequence[int], card: int) -> int:
    wc = w[card]
    best_fit: tuple[int, int] | None = None  # (gap, k): the top waits longer than the card
    empty = -1
    least_harm: tuple[int, int] | None = None  # (-wait of top, k)
    for k, packet in enumerate(state.corners):
        if not packet:
            if empty < 0:
                empty = k
            continue
        wt = w[packet[-1]]
        if wt > wc:
            if best_fit is None or (wt - wc, k) < best_fit:
                best_fit = (wt - wc, k)
        elif least_harm is None or (-wt, k) < least_harm:
            least_harm = (-wt, k)
    if best_fit is not None:
        return best_fit[1]
    if empty >= 0:
        return empty
    assert least_harm is not None
    return least_harm[1]


def _choose_play(state: PussState, bits: int, w: Sequence[int]) -> int | None:
    """The packet-to-foundation play exposing the shortest wait beneath, or None."""
    plays = bits >> CORNER_TO_FOUNDATION & 0xFFFF
    if not plays:
        return None
    best: tuple[int, int] | None = None
    for k, packet in enumerate(state.corners):
        fits = plays >> (4 * k) & 0b1111
        if not fits:
            continue
        under = w[packet[-2]] if len(packet) > 1 else NO_WAIT
        key = (under, CORNER_TO_FOUNDATION + 4 * k + lowest_bit(fits))
        if best is None or key < best:
            best = key
    assert best is not None
    return best[1]


def _choose_merge(state: PussState, bits: int, w: Sequence[int]) -> int | None:
    """The legal merge made of the safest harmless pairs (one per pair), or None."""
    corners = state.corners
    slack: dict[tuple[int, int], int] = {}
    for x in range(NUM_CORNERS):
        for y in range(NUM_CORNERS):
            if x != y and corners[x] and corners[y]:
                margin = w[corners[y][-1]] - max(w[c] for c in corners[x])
                if margin > 0:
                    slack[x, y] = margin
    if not slack:
        return None
    best: tuple[int, int, int] | None = None  # (-pairs, -total slack, action)
    for i, pairs in enumerate(MERGES):
        action = MERGE + i
        if not bits >> action & 1 or not all(p in slack for p in pairs):
            continue
        key = (-len(pairs), -sum(slack[p] for p in pairs), action)
        if best is None or key < best:
            best = key
    return None if best is None else best[2]


def redeal_values(game: PussInTheCorner, state: PussState, takes: list[int]) -> dict[int, int]:
    """For each packet in ``takes``: the best replay score over the take-up orders that start with it.

    Each order is taken up and the second pass dealt through by :func:`choose_move`
    (without planning). ``takes`` are the packets that may be taken up next.
    """
    best: dict[int, int] = {}
    for order in permutations(takes):
        trial = state.copy()
        for k in order[:-1]:
            if trial.redeal or trial.pass_no == 1:
                game.apply(trial, TAKE + k)
        while not game.is_over(trial):
            game.apply(trial, choose_move(game, trial, plan_redeal=False))
        if order[0] not in best or trial.score > best[order[0]]:
            best[order[0]] = trial.score
    return best


class SecondPassReplay:
    """The greedy's outcome from second-pass positions: the cards on the foundations when it plays on to the end.

    In the second pass the pack's order is known (the packets were taken up face
    up), so the replay reads only what a player sees. Every position along a
    replayed line has the same outcome, so each is remembered, and the next
    position of a game, usually on a line already replayed, costs a lookup. The
    memo holds one second-pass pack's positions: a new pack (a new deal) empties
    it, as does passing ``limit`` positions.
    """

    def __init__(self, limit: int = 200_000) -> None:
        self.limit = limit
        self._pack: tuple[int, ...] | None = None
        self._memo: dict[tuple[object, ...], int] = {}

    def outcome(self, game: PussInTheCorner, state: PussState) -> int:
        """The score the greedy (without redeal planning) reaches from ``state``, a second-pass position."""
        if state.pack is not self._pack or len(self._memo) > self.limit:
            self._pack = state.pack
            self._memo = {}
        memo = self._memo
        key = _position_key(state)
        value = memo.get(key)
        if value is not None:
            return value
        path = [key]
        trial = state.copy()
        while True:
            if game.is_over(trial):
                value = trial.score
                break
            game.apply(trial, choose_move(game, trial, plan_redeal=False))
            key = _position_key(trial)
            value = memo.get(key)
            if value is not None:
                break
            path.append(key)
        for key in path:
            memo[key] = value
        return value

    def values(self, game: PussInTheCorner, state: PussState, actions: list[int]) -> dict[int, int]:
        """For each of ``actions`` (legal second-pass moves): the greedy's outcome after it."""
        out: dict[int, int] = {}
        for action in actions:
            after = state.copy()
            game.apply(after, action)
            out[action] = self.outcome(game, after)
        return out


def _position_key(state: PussState) -> tuple[object, ...]:
    """A second-pass position within its pack (the pack itself is the memo's)."""
    return (state.pos, state.hand, state.seven, tuple(state.need), tuple(map(tuple, state.corners)))


def _choose_redeal(game: PussInTheCorner, state: PussState, takes: list[int]) -> int:
    """The first packet of the take-up order whose mental replay scores best (ties: the first in ``takes``)."""
    values = redeal_values(game, state, takes)
    top = max(values.values())
    return next(k for k in takes if values[k] == top)
