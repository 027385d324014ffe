"""Puss in the Corner: pure rules.

Rules: ``docs/pages/rules.md`` (Puss in the Corner) and
``puss_in_the_corner__book.txt``. The four Aces are the foundations, built up
by colour to the King; the other 48 cards are dealt one at a time onto a
foundation (compulsory where one fits, by default) or onto one of four corner
packets A-D, whose top cards may go to a foundation between deals. A dealt 7
grants the sevens privilege (pair the packets, put one of each pair on the
other); when the pack runs out the packets are taken up, in the player's
order, and dealt through once more.

Decisions come in phases, shown in the observation; the mask offers only the
current phase's actions:

* **place** (a dealt card is in hand): put it on a corner packet or on a
  foundation it fits (only the latter where ``forced_foundation`` and it fits;
  either foundation of its colour where both fit);
* **free** (no card in hand): play a packet's top card to a foundation, deal
  the next card, or, once the pack is out on the first pass, take up a packet
  to start the redeal;
* **redeal** (packets being taken up): take up the next packet.

While a dealt 7's privilege is unused, the 24 merges are offered too (with
the card in hand, and, with ``sevens_after_placing``, after it is placed until
the next deal). Reward: +1 per card onto a foundation.

Readings of the text (``tests/games/test_puss_rules.py`` replays its worked example):

* packet tops go to the foundations between deals, not while a dealt card
  waits to be placed (which would let a player dodge the forced placement);
* the book's example merges packets with the 7 of clubs in hand, but with the
  7 of hearts only after placing it and building the 8 and 9 of diamonds;
  the default follows RULES.md ("before it is placed"), and
  ``sevens_after_placing=True`` keeps the privilege open from the deal of
  the 7 until the next deal, as that second merge needs;
* the example puts the 3 of clubs on a packet although it fits the 2 of
  spades; the book's rule ("if it will build ... put it on") is kept as the
  default, so that play needs ``forced_foundation=False``;
* corners are interchangeable, so a merge needs both packets of each pair
  non-empty (otherwise it changes nothing or only moves a packet to another
  corner); the last packet left at the redeal is taken up at once.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from patience_gym.cards import CODE, RANK, RED, codes, parse_card, parse_cards
from patience_gym.core import Chance, Game, ObsSpec, Rules, check_keys

NUM_CORNERS = 4
NUM_FOUNDATIONS = 4
PACK_SIZE = 48
CORNER_NAMES = "ABCD"
#: Foundation ``f`` is the pile started by the Ace of suit ``f`` (C, D, H, S).
ACES = (0, 13, 26, 39)
FOUNDATION_RED = (False, True, True, False)
NON_ACES = tuple(c for c in range(52) if RANK[c] != 1)

# --- action layout (53 actions) ----------------------------------------------
DEAL = 0  #: deal the next card of the pack
TO_CORNER = 1  #: 1..4: the dealt card onto corner packet A..D
TO_FOUNDATION = 5  #: 5..8: the dealt card onto foundation f1..f4
CORNER_TO_FOUNDATION = 9  #: 9 + 4*k + f: top card of packet k onto foundation f
MERGE = 25  #: 25..48: the sevens privilege, one action per distinct merge (see MERGES)
TAKE = 49  #: 49..52: take up packet A..D next for the redeal
NUM_ACTIONS = 53

_PAIRINGS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))
#: ``MERGES[i]`` (action ``MERGE + i``): the (upper, lower) packet pairs moved;
#: 12 single merges (one packet on another), then 12 double merges (both pairs
#: of a pairing). "No merge at all" is no action: the privilege lapses.
MERGES: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    [((x, y),) for x in range(4) for y in range(4) if x != y]
    + [
        (p1 if o1 else p1[::-1], p2 if o2 else p2[::-1])
        for p1, p2 in _PAIRINGS
        for o1 in (False, True)
        for o2 in (False, True)
    ]
)

# Phases (the observation's "pending decision").
FREE, PLACE, REDEAL = 0, 1, 2

# --- "ids" observation layout ------------------------------------------------
FOUNDATION_SLOTS = 13
CORNER_SLOTS = PACK_SIZE
OBS_CORNERS = NUM_FOUNDATIONS * FOUNDATION_SLOTS  # 52
OBS_HAND = OBS_CORNERS + NUM_CORNERS * CORNER_SLOTS  # 244
OBS_PACK = OBS_HAND + 1  # 245
OBS_PASS = OBS_PACK + 1
OBS_PHASE = OBS_PASS + 1
OBS_SEVEN = OBS_PHASE + 1
OBS_SIZE = OBS_SEVEN + 1  # 249
#: Card slots (ids 0 = empty, card+1) come first: foundations, corners, hand.
CARD_SLOTS = OBS_PACK

# --- "planes" observation layout (card-centric) --------------------------------
# Per card: in pack, in hand, on foundation f1..f4, in packet A..D, top of its
# packet, position in its packet from the bottom / 47.
PLANE_WIDTH = 12
_P_PACK, _P_HAND, _P_FOUND, _P_CORNER, _P_TOP, _P_POS = 0, 1, 2, 6, 10, 11
PLANES_SIZE = 52 * PLANE_WIDTH + 6

_SLOT_FEATURE = np.array(
    [_P_FOUND + s // FOUNDATION_SLOTS for s in range(OBS_CORNERS)]
    + [_P_CORNER + (s // CORNER_SLOTS) for s in range(NUM_CORNERS * CORNER_SLOTS)],
    dtype=np.intp,
)
_SLOT_POSITION = np.array(
    [0.0] * OBS_CORNERS + [(s % CORNER_SLOTS) / (CORNER_SLOTS - 1) for s in range(NUM_CORNERS * CORNER_SLOTS)],
    dtype=np.float32,
)

#: ``_COLOUR_RANK[red, r]``: the two cards of that colour and rank ``r``.
_COLOUR_RANK = {
    (red, r): tuple(c for c in range(52) if RED[c] == red and RANK[c] == r)
    for red in (False, True)
    for r in range(1, 14)
}


@dataclasses.dataclass(frozen=True)
class PussOptions:
    """Rule options (env kwargs)."""

    #: A dealt card that fits a foundation must go there (the book's "put it on").
    forced_foundation: bool = True
    #: The sevens privilege may be used after the 7 is placed (and after plays
    #: to the foundations) until the next card is dealt, as the book's worked
    #: example does with the 7 of hearts; False (RULES.md): only before the 7 is placed.
    sevens_after_placing: bool = False


class PussState:
    """A position.

    ``foundations[f]`` lists pile ``f`` from its Ace up; ``need[f]`` is the rank
    it takes next (14 when complete); ``fit[c]`` has bit ``f`` set when card
    ``c`` fits foundation ``f`` now. ``corners[k]`` is packet ``k`` bottom first
    (top last). ``pack`` is the whole current pack in dealing order, shared
    between copies, of which ``pack[pos:]`` is still face down. ``hand`` is the
    dealt card awaiting placement (-1: none). ``seven``: a dealt 7's privilege
    is unused. ``redeal`` holds the cards taken up so far (new dealing order)
    while the packets are being taken up. ``obs`` is the "ids" observation,
    kept up to date by every change. ``rules``: the game and rule options that made it
    (:class:`patience_gym.core.Rules`).
    """

    __slots__ = (
        "corners",
        "fit",
        "foundations",
        "hand",
        "need",
        "obs",
        "pack",
        "pass_no",
        "pos",
        "redeal",
        "rules",
        "score",
        "seven",
    )

    def __init__(
        self,
        foundations: list[list[int]],
        corners: list[list[int]],
        pack: tuple[int, ...],
        pos: int,
        hand: int,
        pass_no: int,
        seven: bool,
        redeal: list[int],
        rules: Rules,
    ) -> None:
        self.foundations = foundations
        self.corners = corners
        self.pack = pack
        self.pos = pos
        self.hand = hand
        self.pass_no = pass_no
        self.seven = seven
        self.redeal = redeal
        self.rules = rules
        self.need = [RANK[p[-1]] + 1 for p in foundations]
        self.score = sum(len(p) for p in foundations)
        fit = [0] * 52
        for f, need in enumerate(self.need):
            if need <= 13:
                for c in _COLOUR_RANK[FOUNDATION_RED[f], need]:
                    fit[c] |= 1 << f
        self.fit = fit
        self.obs = _build_obs(self)

    def copy(self) -> PussState:
        new = PussState.__new__(PussState)
        new.foundations = [p[:] for p in self.foundations]
        new.corners = [c[:] for c in self.corners]
        new.pack = self.pack
        new.pos = self.pos
        new.hand = self.hand
        new.pass_no = self.pass_no
        new.seven = self.seven
        new.redeal = self.redeal[:]
        new.need = self.need[:]
        new.score = self.score
        new.fit = self.fit[:]
        new.obs = self.obs.copy()
        new.rules = self.rules
        return new

    @property
    def pack_left(self) -> int:
        return len(self.pack) - self.pos

    @property
    def phase(self) -> int:
        if self.hand >= 0:
            return PLACE
        return REDEAL if self.redeal else FREE

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PussState)
            and self.rules == other.rules
            and self.foundations == other.foundations
            and self.corners == other.corners
            and self.pack[self.pos :] == other.pack[other.pos :]
            and self.hand == other.hand
            and self.pass_no == other.pass_no
            and self.seven == other.seven
            and self.redeal == other.redeal
        )

    def __repr__(self) -> str:
        piles = " ".join(CODE[p[-1]] for p in self.foundations)
        packets = " | ".join(" ".join(codes(c)) for c in self.corners)
        hand = CODE[self.hand] if self.hand >= 0 else "-"
        return f"PussState(pass {self.pass_no}; foundations {piles}; {packets}; hand {hand}; pack {self.pack_left})"


def _build_obs(state: PussState) -> np.ndarray:
    """The "ids" observation from scratch (``apply`` then keeps it up to date)."""
    obs = np.zeros(OBS_SIZE, dtype=np.int8)
    for f, pile in enumerate(state.foundations):
        for card in pile:
            obs[f * FOUNDATION_SLOTS + RANK[card] - 1] = card + 1
    for k, packet in enumerate(state.corners):
        for i, card in enumerate(packet):
            obs[OBS_CORNERS + k * CORNER_SLOTS + i] = card + 1
    obs[OBS_HAND] = state.hand + 1
    obs[OBS_PACK] = len(state.redeal) if state.redeal else state.pack_left
    obs[OBS_PASS] = state.pass_no
    obs[OBS_PHASE] = state.phase
    obs[OBS_SEVEN] = state.seven
    return obs


def write_pack_order(state: PussState, out: np.ndarray) -> None:
    """Write each card's place in the pack being dealt, as the player remembers it, into ``out`` (52 values).

    The player takes the packets up face up, in an order of their choice, so on
    the second pass they know the rest of the pack (``pack[pos:]``) and during
    the redeal the cards taken up so far (``redeal``); the first pass's pack is
    unknown. A card at index ``j`` of that sequence gets ``(48 - j) / 48`` (the
    next card nearest 1), every other card 0.
    """
    out[:] = 0.0
    cards = state.pack[state.pos :] if state.pass_no == 2 else state.redeal
    if cards:
        out[list(cards)] = (PACK_SIZE - np.arange(len(cards), dtype=np.float32)) / PACK_SIZE


def _merge_bits(nonempty: int) -> int:
    """Mask bits of the merges allowed when the packets in ``nonempty`` (bit k) hold cards."""
    bits = 0
    for i, pairs in enumerate(MERGES):
        if all(nonempty >> x & 1 and nonempty >> y & 1 for x, y in pairs):
            bits |= 1 << (MERGE + i)
    return bits


_MERGE_BITS = tuple(_merge_bits(ne) for ne in range(16))
_PLACE_CORNER_BITS = 0b1111 << TO_CORNER
_DEAL_BIT = 1 << DEAL
_BIT_INDEX = np.arange(NUM_ACTIONS, dtype=np.uint64)


@functools.lru_cache(maxsize=1 << 16)
def _mask_of(bits: int) -> np.ndarray:
    """The bool mask of a set of legal-action bits (read-only; remembered, as few sets occur)."""
    mask = ((np.uint64(bits) >> _BIT_INDEX) & np.uint64(1)).astype(bool)
    mask.flags.writeable = False
    return mask


def _describe_merge(pairs: tuple[tuple[int, int], ...]) -> str:
    return ", ".join(f"{CORNER_NAMES[x]} on {CORNER_NAMES[y]}" for x, y in pairs)


def _action_texts() -> tuple[str, ...]:
    texts = ["deal"]
    texts += [f"dealt>{CORNER_NAMES[k]}" for k in range(NUM_CORNERS)]
    texts += [f"dealt>f{f + 1}" for f in range(NUM_FOUNDATIONS)]
    texts += [f"{CORNER_NAMES[k]}>f{f + 1}" for k in range(NUM_CORNERS) for f in range(NUM_FOUNDATIONS)]
    texts += [_describe_merge(pairs) for pairs in MERGES]
    texts += [f"take {CORNER_NAMES[k]}" for k in range(NUM_CORNERS)]
    assert len(texts) == NUM_ACTIONS and len(set(texts)) == NUM_ACTIONS
    return tuple(texts)


ACTION_TEXTS = _action_texts()


class PussInTheCorner(Game[PussState]):
    """Puss in the Corner (one deal per episode)."""

    name = "puss_in_the_corner"
    Options = PussOptions
    obs_encodings = ("ids", "planes")
    #: Safety net only: a game has at most 96 deals, 96 placements, 48 plays
    #: from the packets, 8 merges and 3 take-ups.
    num_actions = NUM_ACTIONS

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._forced = self.options.forced_foundation
        self._sevens_after = self.options.sevens_after_placing

    # --- states ---------------------------------------------------------
    def _start(self, pack: Sequence[int]) -> PussState:
        foundations = [[ace] for ace in ACES]
        return PussState(foundations, [[], [], [], []], tuple(pack), 0, -1, 1, False, [], self.rules)

    def init(self, rng: np.random.Generator) -> PussState:
        order = rng.permutation(PACK_SIZE)
        return self._start([NON_ACES[i] for i in order])

    def from_deal(self, deal: Sequence[str]) -> PussState:
        """The 48 non-Ace cards in pack order, top (first dealt) first."""
        if isinstance(deal, str) or not isinstance(deal, Sequence):
            raise ValueError("a Puss in the Corner deal is a list of the 48 non-Ace card codes, top of the pack first")
        cards = parse_cards(deal)
        _check_cards(cards, with_aces=False, what="a Puss in the Corner deal")
        return self._start(cards)

    def to_dict(self, state: PussState) -> dict[str, Any]:
        self.check_state(state)
        return {
            "game": self.name,
            "options": self.options_dict(),
            "pass": state.pass_no,
            "foundations": [codes(p) for p in state.foundations],
            "corners": [codes(c) for c in state.corners],
            "hand": CODE[state.hand] if state.hand >= 0 else None,
            "pack": codes(state.pack[state.pos :]),
            "seven": state.seven,
            "redeal": codes(state.redeal),
        }

    def from_dict(self, data: Mapping[str, Any]) -> PussState:
        if not isinstance(data, Mapping):
            raise ValueError(f"a Puss in the Corner state must be a dict, got {type(data).__name__}")
        keys = ("pass", "foundations", "corners", "hand", "pack", "seven", "redeal")
        self.check_dict_game(data)
        check_keys(data, keys, ("game", "options"), "Puss in the Corner state")
        pass_no = data["pass"]
        if not isinstance(pass_no, (int, np.integer)) or isinstance(pass_no, bool) or pass_no not in (1, 2):
            raise ValueError(f"Puss in the Corner 'pass' must be 1 or 2, got {pass_no!r}")
        seven = data["seven"]
        if not isinstance(seven, (bool, np.bool_)):
            raise ValueError(f"Puss in the Corner 'seven' must be True or False, got {seven!r}")
        foundations = _card_lists(data["foundations"], NUM_FOUNDATIONS, "foundations")
        for f, pile in enumerate(foundations):
            if not pile or pile[0] != ACES[f]:
                first = CODE[pile[0]] if pile else "nothing"
                raise ValueError(f"foundation f{f + 1} must start with {CODE[ACES[f]]}, got {first}")
            for below, card in itertools.pairwise(pile):
                if RED[card] != FOUNDATION_RED[f] or RANK[card] != RANK[below] + 1:
                    colour = "red" if FOUNDATION_RED[f] else "black"
                    raise ValueError(
                        f"foundation f{f + 1} builds up in {colour}: {CODE[card]} cannot lie on {CODE[below]}"
                    )
        corners = _card_lists(data["corners"], NUM_CORNERS, "corners")
        hand_code = data["hand"]
        hand = -1 if hand_code is None else parse_card(hand_code)
        pack = parse_cards(_code_list(data["pack"], "pack"))
        redeal = parse_cards(_code_list(data["redeal"], "redeal"))
        everything = [c for p in foundations for c in p] + [c for k in corners for c in k] + pack + redeal
        if hand >= 0:
            everything.append(hand)
        _check_cards(everything, with_aces=True, what="a Puss in the Corner state")
        if seven:
            if hand >= 0 and RANK[hand] != 7:
                raise ValueError(f"'seven' is True but the dealt card in hand is {CODE[hand]}, not a 7")
            if hand < 0 and not self._sevens_after:
                raise ValueError("'seven' is True with no card in hand, but sevens_after_placing is off")
        if redeal:
            if pass_no != 1 or pack or hand >= 0 or seven:
                raise ValueError("a redeal in progress needs pass 1, an empty pack, no card in hand and seven False")
            if sum(1 for k in corners if k) < 2:
                raise ValueError("a redeal in progress leaves at least two packets to take up")
        return PussState(foundations, corners, tuple(pack), 0, hand, int(pass_no), bool(seven), redeal, self.rules)

    # --- rules ----------------------------------------------------------
    def legal_bits(self, state: PussState) -> int:
        """The legal actions as bits of an int."""
        if state.rules is not self.rules:
            self.check_state(state)
        corners = state.corners
        hand = state.hand
        if hand >= 0:
            fits = state.fit[hand]
            bits = fits << TO_FOUNDATION
            if not (fits and self._forced):
                bits |= _PLACE_CORNER_BITS
            if state.seven:
                nonempty = sum(1 << k for k in range(NUM_CORNERS) if corners[k])
                bits |= _MERGE_BITS[nonempty]
            return bits
        fit = state.fit
        bits = 0
        nonempty = 0
        c = corners[0]
        if c:
            nonempty = 1
            bits = fit[c[-1]] << CORNER_TO_FOUNDATION
        c = corners[1]
        if c:
            nonempty |= 2
            bits |= fit[c[-1]] << (CORNER_TO_FOUNDATION + 4)
        c = corners[2]
        if c:
            nonempty |= 4
            bits |= fit[c[-1]] << (CORNER_TO_FOUNDATION + 8)
        c = corners[3]
        if c:
            nonempty |= 8
            bits |= fit[c[-1]] << (CORNER_TO_FOUNDATION + 12)
        if state.redeal:
            return nonempty << TAKE
        if state.pos < len(state.pack):
            bits |= _DEAL_BIT
        elif state.pass_no == 1:
            bits |= nonempty << TAKE
        elif not bits:
            return 0  # the second pass is out and nothing plays: the game is over
        if state.seven:
            bits |= _MERGE_BITS[nonempty]
        return bits

    def legal_mask(self, state: PussState) -> np.ndarray:
        return _mask_of(self.legal_bits(state)).copy()

    def is_legal(self, state: PussState, action: int) -> bool:
        """Whether ``action`` is legal in ``state``."""
        return 0 <= action < NUM_ACTIONS and bool(self.legal_bits(state) >> action & 1)

    def apply(self, state: PussState, action: int) -> float:
        if state.rules is not self.rules:
            self.check_state(state)
        obs = state.obs
        if action == DEAL:
            card = state.pack[state.pos]
            state.pos += 1
            state.hand = card
            obs[OBS_HAND] = card + 1
            obs[OBS_PACK] = len(state.pack) - state.pos
            obs[OBS_PHASE] = PLACE
            seven = RANK[card] == 7
            if seven or state.seven:
                state.seven = seven
                obs[OBS_SEVEN] = seven
            return 0.0
        if action < TO_FOUNDATION:
            k = action - TO_CORNER
            packet = state.corners[k]
            obs[OBS_CORNERS + k * CORNER_SLOTS + len(packet)] = state.hand + 1
            packet.append(state.hand)
            self._hand_placed(state)
            return 0.0
        if action < CORNER_TO_FOUNDATION:
            self._to_foundation(state, action - TO_FOUNDATION, state.hand)
            self._hand_placed(state)
            return 1.0
        if action < MERGE:
            k, f = divmod(action - CORNER_TO_FOUNDATION, 4)
            packet = state.corners[k]
            obs[OBS_CORNERS + k * CORNER_SLOTS + len(packet) - 1] = 0
            self._to_foundation(state, f, packet.pop())
            return 1.0
        if action < TAKE:
            for upper, lower in MERGES[action - MERGE]:
                self._merge(state, upper, lower)
            state.seven = False
            obs[OBS_SEVEN] = 0
            return 0.0
        self._take_up(state, action - TAKE)
        return 0.0

    def _hand_placed(self, state: PussState) -> None:
        obs = state.obs
        state.hand = -1
        obs[OBS_HAND] = 0
        obs[OBS_PHASE] = FREE
        if state.seven and not self._sevens_after:
            state.seven = False
            obs[OBS_SEVEN] = 0

    @staticmethod
    def _to_foundation(state: PussState, f: int, card: int) -> None:
        rank = RANK[card]
        state.foundations[f].append(card)
        state.obs[f * FOUNDATION_SLOTS + rank - 1] = card + 1
        state.score += 1
        state.need[f] = rank + 1
        fit = state.fit
        bit = 1 << f
        red = FOUNDATION_RED[f]
        for c in _COLOUR_RANK[red, rank]:
            fit[c] &= ~bit
        if rank < 13:
            for c in _COLOUR_RANK[red, rank + 1]:
                fit[c] |= bit

    @staticmethod
    def _merge(state: PussState, upper: int, lower: int) -> None:
        """Put packet ``upper`` on packet ``lower``, keeping both in order."""
        obs = state.obs
        moving = state.corners[upper]
        target = state.corners[lower]
        start = OBS_CORNERS + lower * CORNER_SLOTS + len(target)
        src = OBS_CORNERS + upper * CORNER_SLOTS
        obs[start : start + len(moving)] = obs[src : src + len(moving)]
        obs[src : src + len(moving)] = 0
        target.extend(moving)
        state.corners[upper] = []

    @staticmethod
    def _take_up(state: PussState, k: int) -> None:
        """Take packet ``k`` up next; the last packet left follows at once, and the second pass starts."""
        obs = state.obs
        state.seven = False
        obs[OBS_SEVEN] = 0
        redeal = state.redeal
        corners = state.corners
        for _ in range(2):
            redeal.extend(corners[k])
            base = OBS_CORNERS + k * CORNER_SLOTS
            obs[base : base + len(corners[k])] = 0
            corners[k] = []
            left = [i for i in range(NUM_CORNERS) if corners[i]]
            if len(left) != 1:
                break
            k = left[0]
        if any(corners):
            obs[OBS_PHASE] = REDEAL
            obs[OBS_PACK] = len(redeal)
            return
        state.pack = tuple(redeal)
        state.pos = 0
        state.redeal = []
        state.pass_no = 2
        obs[OBS_PASS] = 2
        obs[OBS_PHASE] = FREE
        obs[OBS_PACK] = len(state.pack)

    def is_over(self, state: PussState) -> bool:
        if state.score == 52:
            return True
        if state.pass_no == 1 or state.hand >= 0 or state.pos < len(state.pack):
            return False
        fit = state.fit
        return not any(c and fit[c[-1]] for c in state.corners)

    def is_won(self, state: PussState) -> bool:
        return state.score == 52

    # --- hidden cards ---------------------------------------------------
    def visible_cards(self, state: PussState) -> list[int]:
        """The foundations, the packets, the card in hand, and the pack being dealt where the player
        knows its order: the cards taken up for the redeal (face up), on the second pass the rest of
        that pack (see :func:`write_pack_order`). Only the first pass's pack is unseen."""
        cards = [c for pile in state.foundations for c in pile] + [c for packet in state.corners for c in packet]
        if state.hand >= 0:
            cards.append(state.hand)
        return cards + list(state.redeal) + (list(state.pack[state.pos :]) if state.pass_no == 2 else [])

    def hidden_count(self, state: PussState) -> int:
        return state.pack_left if state.pass_no == 1 else 0

    def replace_hidden(self, state: PussState, order: Sequence[int], rng: np.random.Generator | None) -> PussState:
        world = state.copy()
        if state.pass_no == 1:  # the first pass's pack is replaced, never read
            world.pack = tuple(order)
            world.pos = 0
        return world

    def chance_of(self, state: PussState, action: int) -> Chance | None:
        """A deal turns the next card of the pack: on the first pass one of the unseen cards, on the
        second the card the player remembers (certain)."""
        if action != DEAL:
            return None
        if state.pass_no == 2:
            return Chance(1, (state.pack[state.pos],))
        return Chance(1, tuple(self.unseen_cards(state)))

    def score(self, state: PussState) -> float:
        """Cards on the foundations, Aces included (4..52)."""
        return float(state.score)

    # --- observation ----------------------------------------------------
    def obs_spec(self, encoding: str) -> ObsSpec:
        self.check_encoding(encoding)
        if encoding == "ids":
            return ObsSpec((OBS_SIZE,), 0, 52, np.int8)
        return ObsSpec((PLANES_SIZE,), 0.0, 1.0, np.float32)

    def observe(self, state: PussState, encoding: str) -> np.ndarray:
        if encoding == "ids":
            return state.obs.copy()
        return self.observe_planes(state)

    @staticmethod
    def observe_planes(state: PussState) -> np.ndarray:
        """Card-centric: per card 12 flags/values (see ``PLANE_WIDTH``), then 6 globals."""
        ids = state.obs
        planes = np.zeros(PLANES_SIZE, dtype=np.float32)
        slots = np.flatnonzero(ids[:OBS_HAND])
        cards = ids[slots].astype(np.intp) - 1
        base = cards * PLANE_WIDTH
        planes[base + _SLOT_FEATURE[slots]] = 1.0
        planes[base + _P_POS] = _SLOT_POSITION[slots]
        in_pack = np.ones(52, dtype=np.float32)
        in_pack[cards] = 0.0
        for packet in state.corners:
            if packet:
                planes[packet[-1] * PLANE_WIDTH + _P_TOP] = 1.0
        if state.hand >= 0:
            in_pack[state.hand] = 0.0
            planes[state.hand * PLANE_WIDTH + _P_HAND] = 1.0
        planes[_P_PACK : 52 * PLANE_WIDTH : PLANE_WIDTH] = in_pack
        tail = 52 * PLANE_WIDTH
        planes[tail] = ids[OBS_PACK] / PACK_SIZE
        planes[tail + 1] = state.pass_no == 2
        planes[tail + 2 + int(ids[OBS_PHASE])] = 1.0
        planes[tail + 5] = state.seven
        return planes

    # --- text -----------------------------------------------------------
    def describe_action(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
        return ACTION_TEXTS[action]

    def action_from_description(self, text: str) -> int:
        """Inverse of :meth:`describe_action`; case and spacing are free, and a
        double merge may name its pairs in either order (``"D on C, B on A"``)."""
        if self._action_by_text is None:
            table: dict[str, int] = {}
            for a, t in enumerate(ACTION_TEXTS):
                table[_normalise(t)] = a
                pairs = MERGES[a - MERGE] if MERGE <= a < TAKE else ()
                if len(pairs) == 2:
                    table[_normalise(_describe_merge(pairs[::-1]))] = a
            self._action_by_text = table
        action = self._action_by_text.get(_normalise(text)) if isinstance(text, str) else None
        if action is None:
            raise ValueError(
                f"unknown move {text!r} for {self.name}; moves look like "
                "'deal', 'dealt>A', 'dealt>f2', 'C>f1', 'B on A', 'B on A, D on C', 'take A'"
            )
        return action


def _normalise(text: str) -> str:
    return " ".join(text.replace(",", " , ").split()).lower()


def _code_list(value: Any, what: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ValueError(f"Puss in the Corner '{what}' must be a list of card codes, got {value!r}")
    return list(value)


def _card_lists(value: Any, count: int, what: str) -> list[list[int]]:
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != count:
        raise ValueError(f"Puss in the Corner '{what}' must be a list of {count} lists of card codes")
    return [parse_cards(_code_list(v, what)) for v in value]


def _check_cards(cards: Sequence[int], with_aces: bool, what: str) -> None:
    """ValueError naming wrong counts, duplicates, missing cards and (in deals) Aces."""
    expected = set(range(52)) if with_aces else set(NON_ACES)
    counts = Counter(cards)
    seen = set(counts)
    twice = sorted(c for c, n in counts.items() if n > 1)
    aces = sorted(c for c in seen if c not in expected)
    missing = sorted(expected - seen)
    if len(cards) == len(expected) and not twice and not aces and not missing:
        return
    kind = "all 52 cards" if with_aces else "the 48 cards other than the Aces"
    parts = [f"{what} must hold {kind} once each ({len(expected)} cards), got {len(cards)} cards"]
    if twice:
        parts.append("duplicated: " + " ".join(CODE[c] for c in twice))
    if aces:
        parts.append("Aces are the foundations, not part of the pack: " + " ".join(CODE[c] for c in aces))
    if missing:
        parts.append("missing: " + " ".join(CODE[c] for c in missing))
    raise ValueError("; ".join(parts))
