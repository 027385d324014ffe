"""Miss Milligan, Giant and Miss Milligan (pocket version): one rules module for the family.

Rules: ``docs/pages/rules.md`` and the source texts
``miss_milligan_and_giant__book.txt`` and ``miss_milligan__pocket_version.txt``.
Two packs (104 cards). Eight cards are dealt face up in a row: the eight
columns. Eight foundations are built up in suit from Ace to King. Columns
build down in alternating colours; any built sequence at the foot of a column
(alternating colours, each card one rank lower) moves whole or in part onto a
fitting exposed card. At any time the next eight stock cards may be dealt,
one onto the foot of each column in order (filling vacancies): twelve deals
after the first row. The three games differ in a few settings of
:class:`MilliganGame`:

=====================  ==================  ====================  ==================
setting                Miss Milligan       Giant                 pocket version
=====================  ==================  ====================  ==================
vacancy takes          King (sequence)     any card or sequence  King (sequence)
reserve                waiver              none                  pocket
reserve usable         stock exhausted     -                     any time
foundation to column   never               stock exhausted       any time
=====================  ==================  ====================  ==================

* **Waiving** (Miss Milligan): once the stock is exhausted and no card is
  waived, the exposed card of a column may be lifted aside (option
  ``waive_sequences=True``: any built sequence at a column's foot). Play
  goes on; the waived card(s) may go to a foundation or onto a fitting
  exposed card (a vacancy only for a King), or be restored to the foot of
  the column they came from, fitting or not. Only when none is held may
  another be waived.
* **Worrying back** (Giant): once the stock is exhausted (option
  ``worry_back_anytime=True``: at any time), the top card of a foundation
  may move to the foot of a column where it fits by the packing rule, or
  into a vacancy.
* **Pocket** (pocket version): at any time, the exposed card of a column may
  go into the empty pocket; the pocket card leaves only onto a foundation or
  a fitting exposed card (a vacancy only if it is a King). The top card of a
  foundation may move onto a fitting exposed card (a King into a vacancy)
  at any time.

**Progress rule** (this project's; RULES.md: "lost when no move can make
progress"). A *progress event* is a deal, or a move that brings the number
of cards on the foundations above its highest level so far in the game.
Every other move is an *idle* move. Between two progress events:

1. at most :data:`IDLE_LIMIT` (50) idle moves may be made, and
2. no move may recreate a position already seen since the last progress
   event (a position: the columns, foundations, reserve and the waived
   card's column of origin).

Positions are compared by 64-bit Zobrist fingerprints, kept incrementally
(a false match, which would mask one legal move, has odds below one in
10^12 even over the longest possible game). Moves these two limits forbid are masked out. The game is won when all 104
cards are on the foundations and lost when no legal move is left, which by
(1) happens within :data:`IDLE_LIMIT` moves of the last progress event. An
episode is therefore at most ``116 * 51 + 50 = 5,966`` moves long (12 deals
and at most 104 new foundation highs). Waive-and-restore, worry-back-and-
return, pocket-in-and-out and sequence shuttles can thus never run forever.

Foundations have fixed slots: ``f1 f2`` clubs, ``f3 f4`` diamonds, ``f5 f6``
hearts, ``f7 f8`` spades. The two piles of a suit hold identical cards, so
the slots are kept canonical: the odd slot (``f1``) is never lower than the
even one (``f2``); a card goes to the odd slot when both fit, and when both
piles are equal only the even slot's top card may come down. Every distinct
move is thus exactly one action (layout: :mod:`patience_gym.games.milligan_tables`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from patience_gym.cards import CODE, RANK, SUIT, check_cards, codes, parse_card, parse_cards, shuffled_deck
from patience_gym.core import Chance, Game, ObsSpec, Rules, check_keys
from patience_gym.games.milligan_tables import (
    CC,
    CC_BASE,
    CF,
    COLUMN_TO_COLUMN,
    COLUMN_TO_RESERVE,
    CR,
    DEAL,
    FC,
    FITS,
    FOUNDATION_TO_COLUMN,
    KING_DEPTH,
    MAX_COLUMN,
    MAX_RUN,
    MAX_STOCK,
    NUM_ACTIONS,
    NUM_COLUMNS,
    NUM_FOUNDATIONS,
    ONTO_SET,
    PARENT_SET,
    PARENTS,
    RC,
    RESERVE_TO_COLUMN,
    RF,
    SUIT2,
    TO_FOUNDATION,
    TOTAL_CARDS,
    ZCARD,
    ZFOUND,
    ZORIGIN,
    decode_action,
)

#: Idle moves allowed between two progress events (see the module docstring).
IDLE_LIMIT = 50
#: Progress events in a game at most: 12 deals and 104 new foundation highs.
MAX_PROGRESS_EVENTS = MAX_STOCK // NUM_COLUMNS + TOTAL_CARDS
#: The longest possible episode under the progress rule.
MAX_EPISODE_MOVES = MAX_PROGRESS_EVENTS * (IDLE_LIMIT + 1) + IDLE_LIMIT

_R = NUM_COLUMNS  # fingerprint slot of the reserve
_ROW = MAX_COLUMN * 52  # stride of one fingerprint slot

# --- "ids" observation layout ------------------------------------------------
OBS_COLUMNS = 0  # column j, row r (0 = deepest): card + 1, 0 = empty
OBS_FOUNDATIONS = NUM_COLUMNS * MAX_COLUMN  # 832: top card + 1 of each slot
OBS_RESERVE = OBS_FOUNDATIONS + NUM_FOUNDATIONS  # 840: reserve cards + 1, deepest first
OBS_ORIGIN = OBS_RESERVE + MAX_RUN  # 853: waived cards' column + 1 (0: none)
OBS_STOCK = OBS_ORIGIN + 1  # 854: cards left in the stock
OBS_IDLE = OBS_STOCK + 1  # 855: idle moves left before the next progress event
OBS_BEST = OBS_IDLE + 1  # 856: highest number of cards on the foundations so far
OBS_SIZE = OBS_BEST + 1  # 857

# --- "planes" observation layout -------------------------------------------
# Per card instance (card c's two copies are instances 2c and 2c+1, the copy
# met first in the order columns 1..8 top to foot, foundations, reserve,
# stock being 2c): location one-hot (column 1..8, foundation, reserve,
# stock), row (column row / 103, reserve row / 12, foundation 0), exposed,
# in the movable sequence at its column's (or the reserve's) foot.
PLANE_WIDTH = 14
_P_FOUND, _P_RESERVE, _P_STOCK, _P_ROW, _P_EXPOSED, _P_RUN = 8, 9, 10, 11, 12, 13
PLANES_GLOBAL = 3 + NUM_COLUMNS + 1  # stock, idle left, best, origin one-hot (none + 8)
PLANES_SIZE = TOTAL_CARDS * PLANE_WIDTH + PLANES_GLOBAL


@dataclasses.dataclass(frozen=True)
class MissMilliganOptions:
    """Rule options of Miss Milligan (env kwargs)."""

    #: A whole built sequence (any length at a column's foot) may be waived,
    #: not only the exposed card (PySolFC, Morehead & Mott-Smith).
    waive_sequences: bool = False


@dataclasses.dataclass(frozen=True)
class GiantOptions:
    """Rule options of Giant (env kwargs)."""

    #: Worry back at any time, not only once the stock is exhausted (Aisleriot).
    worry_back_anytime: bool = False


@dataclasses.dataclass(frozen=True)
class PocketOptions:
    """The pocket version has no rule options."""


class MilliganState:
    """A position of the family, with the caches that keep steps cheap.

    ``columns[j]`` lists column ``j`` deepest first (exposed card last).
    ``found[s]`` is the height of foundation slot ``s`` (suit ``s // 2``).
    ``stock`` is the whole stock in dealing order (shared between copies), of
    which ``stock[pos:]`` is still face down. ``reserve`` holds the waived
    card(s) or the pocket card, deepest first; ``origin`` is the column the
    waived cards came from (-1: none; always -1 for the pocket).
    ``best`` is the foundation high-water mark, ``idle`` the idle moves made
    since the last progress event, ``seen`` the fingerprints of the positions
    met since then (the current one included).

    ``rules`` is the game and rule options that made the state (:class:`patience_gym.core.Rules`): the
    family's three games share this class, and each refuses the others' states, so a cache is only ever
    read by the game that filled it.

    Caches (rebuilt by :meth:`MilliganGame.refresh`): ``runs[j]`` the length
    of the built sequence at column ``j``'s foot, ``total`` the cards on the
    foundations, ``hash`` the current fingerprint, ``obs`` the "ids"
    observation, ``mask``/``acts`` the legal moves (None until computed).
    """

    __slots__ = (
        "acts",
        "best",
        "columns",
        "found",
        "hash",
        "idle",
        "mask",
        "obs",
        "origin",
        "pos",
        "reserve",
        "rules",
        "runs",
        "seen",
        "stock",
        "total",
    )

    columns: list[list[int]]
    found: list[int]
    stock: tuple[int, ...]
    pos: int
    reserve: list[int]
    origin: int
    best: int
    idle: int
    seen: set[int]
    runs: list[int]
    total: int
    hash: int
    obs: np.ndarray
    mask: np.ndarray | None
    acts: list[int] | None
    rules: Rules

    def copy(self) -> MilliganState:
        new = MilliganState.__new__(MilliganState)
        new.columns = [c[:] for c in self.columns]
        new.found = self.found[:]
        new.stock = self.stock
        new.pos = self.pos
        new.reserve = self.reserve[:]
        new.origin = self.origin
        new.best = self.best
        new.idle = self.idle
        new.seen = set(self.seen)
        new.runs = self.runs[:]
        new.total = self.total
        new.hash = self.hash
        new.obs = self.obs.copy()
        new.mask = self.mask
        new.acts = self.acts
        new.rules = self.rules
        return new

    @property
    def stock_left(self) -> int:
        return len(self.stock) - self.pos

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, MilliganState)
            and self.rules == other.rules
            and self.columns == other.columns
            and self.found == other.found
            and self.stock[self.pos :] == other.stock[other.pos :]
            and self.reserve == other.reserve
            and self.origin == other.origin
            and self.best == other.best
            and self.idle == other.idle
            and self.seen == other.seen
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        cols = " | ".join(" ".join(codes(c)) or "-" for c in self.columns)
        return f"MilliganState({cols}; found {self.found}; reserve {codes(self.reserve)}; stock {self.stock_left})"


def foot_run(column: Sequence[int]) -> int:
    """Length of the built sequence at the foot of ``column`` (0 if empty)."""
    n = len(column)
    if not n:
        return 0
    run = 1
    while run < n and FITS[column[n - run - 1] * 52 + column[n - run]]:
        run += 1
    return run


def moved_delta(cards: Sequence[int], k: int, src: int, dst: int, dst_row: int) -> int:
    """Fingerprint change of moving the last ``k`` of ``cards`` (slot ``src``) to slot ``dst`` from ``dst_row`` on."""
    n = len(cards)
    d = 0
    bi = src * _ROW + (n - k) * 52
    bj = dst * _ROW + dst_row * 52
    for t in range(n - k, n):
        c = cards[t]
        d ^= ZCARD[bi + c] ^ ZCARD[bj + c]
        bi += 52
        bj += 52
    return d


class MilliganGame(Game[MilliganState]):
    """Rules shared by the family; subclasses set the variant settings only."""

    #: Display title.
    title: ClassVar[str]
    #: A vacancy takes any card or built sequence (Giant), else only a King-headed one.
    vacancy_any: ClassVar[bool] = False
    #: "waiver" (Miss Milligan), "pocket" or "" (Giant).
    reserve_kind: ClassVar[str] = ""
    #: Foundation tops may come down: "never", "stock_out" (once the stock is
    #: exhausted) or "anytime".
    foundation_down: ClassVar[str] = "never"

    obs_encodings = ("ids", "planes")
    num_actions = NUM_ACTIONS
    deck_copies = 2

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.max_reserve = 0
        if self.reserve_kind == "pocket":
            self.max_reserve = 1
        elif self.reserve_kind == "waiver":
            self.max_reserve = MAX_RUN if self.options.waive_sequences else 1
        self.down = self.foundation_down
        if getattr(self.options, "worry_back_anytime", False):
            self.down = "anytime"
        self.reserve_letter = "p" if self.reserve_kind == "pocket" else "w"
        self._zeros = np.zeros(NUM_ACTIONS, dtype=bool)
        self._zeros.flags.writeable = False

    # --- states ---------------------------------------------------------
    def init(self, rng: np.random.Generator) -> MilliganState:
        return self._from_cards(shuffled_deck(rng, 2))

    def from_deal(self, deal: Sequence[str]) -> MilliganState:
        """The first row (columns 1..8), then each later deal of eight in column order."""
        if isinstance(deal, (str, Mapping)) or not hasattr(deal, "__iter__"):
            raise ValueError(f"a {self.title} deal is a list of {TOTAL_CARDS} card codes, got {type(deal).__name__}")
        cards = parse_cards(list(deal))
        check_cards(cards, 2, f"a {self.title} deal")
        return self._from_cards(cards)

    def _from_cards(self, cards: Sequence[int]) -> MilliganState:
        columns = [[c] for c in cards[:NUM_COLUMNS]]
        return self._make(columns, [0] * NUM_FOUNDATIONS, tuple(cards[NUM_COLUMNS:]), [], -1, 0, 0, None)

    def _make(
        self,
        columns: list[list[int]],
        found: list[int],
        stock: tuple[int, ...],
        reserve: list[int],
        origin: int,
        best: int,
        idle: int,
        seen: set[int] | None,
    ) -> MilliganState:
        state = MilliganState.__new__(MilliganState)
        state.columns = columns
        state.found = found
        state.stock = stock
        state.pos = 0
        state.reserve = reserve
        state.origin = origin
        state.best = best
        state.idle = idle
        state.seen = set()
        state.rules = self.rules
        self.refresh(state)
        state.seen = {state.hash} if seen is None else seen | {state.hash}
        return state

    def refresh(self, state: MilliganState) -> None:
        """Recompute every cache of ``state`` from its cards (tests compare with the incremental ones)."""
        state.runs = [foot_run(c) for c in state.columns]
        state.total = sum(state.found)
        state.hash = self.fingerprint(state)
        state.obs = self._observe_ids_full(state)
        state.mask = None
        state.acts = None

    @staticmethod
    def fingerprint(state: MilliganState) -> int:
        """The position's 64-bit fingerprint, computed from scratch."""
        h = ZORIGIN[state.origin + 1]
        for j, col in enumerate(state.columns):
            for r, c in enumerate(col):
                h ^= ZCARD[j * _ROW + r * 52 + c]
        for r, c in enumerate(state.reserve):
            h ^= ZCARD[_R * _ROW + r * 52 + c]
        for s, height in enumerate(state.found):
            h ^= ZFOUND[s * 14 + height]
        return h

    def to_dict(self, state: MilliganState) -> dict[str, Any]:
        self.check_state(state)
        data: dict[str, Any] = {
            "game": self.name,
            "options": self.options_dict(),
            "tableau": [codes(c) for c in state.columns],
            "foundations": [codes(range((s >> 1) * 13, (s >> 1) * 13 + h)) for s, h in enumerate(state.found)],
            "stock": codes(state.stock[state.pos :]),
        }
        if self.reserve_kind == "waiver":
            data["waived"] = codes(state.reserve)
            data["waived_from"] = state.origin if state.reserve else None
        elif self.reserve_kind == "pocket":
            data["pocket"] = CODE[state.reserve[0]] if state.reserve else None
        data["best"] = state.best
        data["idle_moves"] = state.idle
        data["seen"] = sorted(f"{h:016x}" for h in state.seen)
        return data

    def from_dict(self, data: Mapping[str, Any]) -> MilliganState:
        what = f"a {self.title} state"
        if not isinstance(data, Mapping):
            raise ValueError(f"{what} must be a dict, got {type(data).__name__}")
        optional = {"game", "options", "best", "idle_moves", "seen"}
        if self.reserve_kind == "waiver":
            optional |= {"waived", "waived_from"}
        elif self.reserve_kind == "pocket":
            optional.add("pocket")
        self.check_dict_game(data)
        check_keys(data, ("tableau", "foundations", "stock"), optional, what, unknown_first=True)
        columns = self._card_lists(data["tableau"], NUM_COLUMNS, "tableau")
        piles = self._card_lists(data["foundations"], NUM_FOUNDATIONS, "foundations")
        found = self._foundation_heights(piles)
        stock_codes = data["stock"]
        if isinstance(stock_codes, str) or not isinstance(stock_codes, Sequence):
            raise ValueError(f"{what}: stock must be a list of card codes")
        stock = tuple(parse_cards(stock_codes))
        if len(stock) % NUM_COLUMNS:
            raise ValueError(f"{what}: the stock must hold a multiple of 8 cards, got {len(stock)}")
        reserve, origin = self._reserve_from_dict(data, bool(stock))
        check_cards(
            [c for col in columns for c in col] + [c for p in piles for c in p] + list(stock) + reserve, 2, what
        )
        total = sum(found)
        best = data.get("best", total)
        if not isinstance(best, int) or isinstance(best, bool) or not total <= best <= TOTAL_CARDS:
            raise ValueError(f"{what}: best must be an integer from {total} (cards on the foundations) to 104")
        if self.down == "never" and best != total:
            raise ValueError(f"{what}: cards never leave the foundations here, so best must equal {total}")
        idle = data.get("idle_moves", 0)
        if not isinstance(idle, int) or isinstance(idle, bool) or not 0 <= idle <= IDLE_LIMIT:
            raise ValueError(f"{what}: idle_moves must be an integer from 0 to {IDLE_LIMIT}")
        seen_codes = data.get("seen", [])
        if isinstance(seen_codes, str) or not isinstance(seen_codes, Sequence):
            raise ValueError(f"{what}: seen must be a list of 16-digit hex fingerprints")
        seen = set()
        for code in seen_codes:
            try:
                value = int(code, 16)
            except (TypeError, ValueError):
                value = -1
            if not isinstance(code, str) or not 0 <= value < 2**64:
                raise ValueError(f"{what}: bad fingerprint {code!r} in seen (16-digit hex expected)")
            seen.add(value)
        return self._make(columns, found, stock, reserve, origin, best, idle, seen)

    def _card_lists(self, value: Any, count: int, key: str) -> list[list[int]]:
        if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != count:
            raise ValueError(f"a {self.title} state's {key} must be a list of {count} lists of card codes")
        lists = []
        for i, item in enumerate(value):
            if isinstance(item, str) or not isinstance(item, Sequence):
                raise ValueError(f"{key} entry {i + 1} must be a list of card codes, got {item!r}")
            lists.append(parse_cards(item))
        return lists

    def _foundation_heights(self, piles: list[list[int]]) -> list[int]:
        by_suit: list[list[int]] = [[] for _ in range(4)]
        for i, pile in enumerate(piles):
            if not pile:
                continue
            suit = SUIT[pile[0]]
            if pile != list(range(suit * 13, suit * 13 + len(pile))):
                raise ValueError(f"foundation {i + 1} ({' '.join(codes(pile))}) must run up in one suit from its Ace")
            by_suit[suit].append(len(pile))
        found = []
        for suit, heights in enumerate(by_suit):
            if len(heights) > 2:
                raise ValueError(f"{len(heights)} foundations of suit {'CDHS'[suit]}; two packs give at most two")
            heights = sorted(heights, reverse=True) + [0, 0]
            found += heights[:2]
        return found

    def _reserve_from_dict(self, data: Mapping[str, Any], stock_left: bool) -> tuple[list[int], int]:
        if self.reserve_kind == "pocket":
            pocket = data.get("pocket")
            if pocket is None or pocket == []:
                return [], -1
            if isinstance(pocket, Sequence) and not isinstance(pocket, str) and len(pocket) == 1:
                pocket = pocket[0]
            return [parse_card(pocket)], -1
        if self.reserve_kind != "waiver":
            return [], -1
        waived_codes = data.get("waived", [])
        if not isinstance(waived_codes, (str, list, tuple)):
            raise ValueError(f"waived must be a list of card codes, got {waived_codes!r}")
        if isinstance(waived_codes, str):
            waived_codes = waived_codes.split()
        waived = parse_cards(waived_codes)
        origin = data.get("waived_from")
        if not waived:
            if origin is not None:
                raise ValueError("waived_from must be None when no card is waived")
            return [], -1
        if stock_left:
            raise ValueError("a card may be waived only once the stock is exhausted, but the stock has cards")
        if len(waived) > self.max_reserve:
            raise ValueError(
                f"{len(waived)} waived cards; only one may be waived at a time "
                "(option waive_sequences=True allows a sequence)"
            )
        if foot_run(waived) != len(waived):
            raise ValueError(f"waived cards {' '.join(codes(waived))} are not a built sequence")
        if not isinstance(origin, int) or isinstance(origin, bool) or not 0 <= origin < NUM_COLUMNS:
            raise ValueError(f"waived_from must be the column (0..7) the waived cards came from, got {origin!r}")
        return waived, origin

    # --- rules ----------------------------------------------------------
    def legal_mask(self, state: MilliganState) -> np.ndarray:
        if state.rules is not self.rules:  # the cache below is its own game's
            self.check_state(state)
        mask = state.mask
        if mask is None:
            acts = self._legal(state)
            if acts:
                mask = np.zeros(NUM_ACTIONS, dtype=bool)
                mask[acts] = True
                mask.flags.writeable = False
            else:
                mask = self._zeros
            state.mask = mask
            state.acts = acts
        return mask

    def legal_actions(self, state: MilliganState) -> list[int]:
        if state.acts is None or state.rules is not self.rules:
            self.legal_mask(state)
        return sorted(state.acts)  # type: ignore[arg-type]

    def _legal(self, state: MilliganState) -> list[int]:
        """The legal actions (unordered)."""
        total = state.total
        if total == TOTAL_CARDS:
            return []
        acts: list[int] = []
        cols = state.columns
        found = state.found
        runs = state.runs
        seen = state.seen
        h = state.hash
        stock_out = state.pos >= len(state.stock)
        at_best = total == state.best
        may_idle = state.idle < IDLE_LIMIT
        check = len(seen) > 1  # with only the current position seen, no move repeats
        reserve = state.reserve
        nres = len(reserve)
        if not stock_out:
            acts.append(DEAL)

        # exposed cards: to the foundations, and indexed by card for packing
        # (a card's two copies may both be exposed)
        expo: dict[int, int] = {}
        expo2: dict[int, int] = {}
        empties = []
        for i in range(NUM_COLUMNS):
            col = cols[i]
            if not col:
                empties.append(i)
                continue
            c = col[-1]
            if c in expo:
                expo2[c] = i
            else:
                expo[c] = i
            r = RANK[c] - 1
            s = SUIT2[c]
            if found[s] == r or found[s + 1] == r:
                if at_best:
                    acts.append(CF + i)
                elif may_idle:
                    if found[s] != r:
                        s += 1
                    d = h ^ ZCARD[i * _ROW + (len(col) - 1) * 52 + c] ^ ZFOUND[s * 14 + r] ^ ZFOUND[s * 14 + r + 1]
                    if not check or d not in seen:
                        acts.append(CF + i)
        if nres:
            c = reserve[-1]
            r = RANK[c] - 1
            s = SUIT2[c]
            if found[s] == r or found[s + 1] == r:
                if at_best:
                    acts.append(RF)
                elif may_idle:
                    if found[s] != r:
                        s += 1
                    d = h ^ ZCARD[_R * _ROW + (nres - 1) * 52 + c] ^ ZFOUND[s * 14 + r] ^ ZFOUND[s * 14 + r + 1]
                    if nres == 1:
                        d ^= ZORIGIN[state.origin + 1] ^ ZORIGIN[0]
                    if not check or d not in seen:
                        acts.append(RF)
        if not may_idle:
            return acts

        exposed = expo.keys()

        # column to column
        for i in range(NUM_COLUMNS):
            run = runs[i]
            if not run:
                continue
            col = cols[i]
            foot = col[-1]
            n = len(col)
            for target in ONTO_SET[foot * 14 + run] & exposed:
                k = RANK[target] - RANK[foot]
                for j in (expo[target], expo2.get(target, -1)) if expo2 else (expo[target],):
                    if j < 0:
                        continue
                    if check and h ^ moved_delta(col, k, i, j, len(cols[j])) in seen:
                        continue
                    acts.append(CC_BASE[i][j] + k - 1)
            if empties:
                if self.vacancy_any:
                    ks: Sequence[int] = range(1, run + 1)
                else:
                    kd = KING_DEPTH[foot]
                    ks = (kd,) if kd <= run else ()
                for k in ks:
                    for j in empties:
                        if check and h ^ moved_delta(col, k, i, j, 0) in seen:
                            continue
                        acts.append(CC_BASE[i][j] + k - 1)

        # the reserve
        kind = self.reserve_kind
        if kind:
            if nres:
                self._reserve_out(state, acts, expo, expo2, empties, check)
            elif kind == "pocket" or stock_out:
                waiver = kind == "waiver"
                zr = _R * _ROW
                for i in range(NUM_COLUMNS):
                    col = cols[i]
                    if not col:
                        continue
                    n = len(col)
                    if self.max_reserve == 1:  # the exposed card alone
                        if check:
                            c = col[-1]
                            d = h ^ ZCARD[i * _ROW + (n - 1) * 52 + c] ^ ZCARD[zr + c]
                            if waiver:
                                d ^= ZORIGIN[0] ^ ZORIGIN[i + 1]
                            if d in seen:
                                continue
                        acts.append(CR + i * MAX_RUN)
                        continue
                    for k in range(1, runs[i] + 1):
                        if check:
                            d = h ^ moved_delta(col, k, i, _R, 0)
                            if waiver:
                                d ^= ZORIGIN[0] ^ ZORIGIN[i + 1]
                            if d in seen:
                                continue
                        acts.append(CR + i * MAX_RUN + k - 1)

        # foundation tops back down
        down = self.down
        if down != "never" and total and (stock_out or down == "anytime"):
            for s in range(NUM_FOUNDATIONS):
                height = found[s]
                if not height or (s % 2 == 0 and found[s + 1] == height):
                    continue
                c = (s >> 1) * 13 + height - 1
                hits = PARENT_SET[c] & exposed
                if hits:
                    targets = [expo[e] for e in hits]
                    if expo2:
                        targets += [expo2[e] for e in hits if e in expo2]
                    if empties and (self.vacancy_any or height == 13):
                        targets += empties
                elif empties and (self.vacancy_any or height == 13):
                    targets = empties
                else:
                    continue
                for j in targets:
                    if check:
                        m = len(cols[j])
                        d = h ^ ZFOUND[s * 14 + height] ^ ZFOUND[s * 14 + height - 1] ^ ZCARD[j * _ROW + m * 52 + c]
                        if d in seen:
                            continue
                    acts.append(FC + s * NUM_COLUMNS + j)
        return acts

    def _reserve_out(
        self,
        state: MilliganState,
        acts: list[int],
        expo: dict[int, int],
        expo2: dict[int, int],
        empties: list[int],
        check: bool,
    ) -> None:
        """Moves of reserve cards onto columns (foundation moves are done by the caller)."""
        reserve = state.reserve
        cols = state.columns
        nres = len(reserve)  # the reserve always holds a built sequence
        origin = state.origin
        h = state.hash
        seen = state.seen
        for k in range(1, nres + 1):
            head = reserve[nres - k]
            targets = [expo.get(e, -1) for e in PARENTS[head]]
            if expo2:
                targets += [expo2.get(e, -1) for e in PARENTS[head]]
            if self.vacancy_any or RANK[head] == 13:
                targets += empties
            if k == nres and origin >= 0 and origin not in targets:
                targets.append(origin)  # restoring the waived cards, fitting or not
            for j in targets:
                if j < 0:
                    continue
                if check:
                    d = h ^ moved_delta(reserve, k, _R, j, len(cols[j]))
                    if k == nres:
                        d ^= ZORIGIN[origin + 1] ^ ZORIGIN[0]
                    if d in seen:
                        continue
                acts.append(RC + j * MAX_RUN + k - 1)

    def apply(self, state: MilliganState, action: int) -> float:
        if state.rules is not self.rules:
            self.check_state(state)
        cols = state.columns
        obs = state.obs
        h = state.hash
        reward = 0.0
        if action < RC:  # column to column
            i, rest = divmod(action - CC, (NUM_COLUMNS - 1) * MAX_RUN)
            jj, k1 = divmod(rest, MAX_RUN)
            j = jj if jj < i else jj + 1
            h = self._move(state, cols[i], i, cols[j], j, k1 + 1, h)
        elif action < CR:  # reserve to column
            j, k1 = divmod(action - RC, MAX_RUN)
            k = k1 + 1
            h = self._move(state, state.reserve, _R, cols[j], j, k, h)
            if not state.reserve:
                h ^= ZORIGIN[state.origin + 1] ^ ZORIGIN[0]
                state.origin = -1
                obs[OBS_ORIGIN] = 0
        elif action < CF:  # column to reserve
            i, k1 = divmod(action - CR, MAX_RUN)
            h = self._move(state, cols[i], i, state.reserve, _R, k1 + 1, h)
            if self.reserve_kind == "waiver":
                h ^= ZORIGIN[0] ^ ZORIGIN[i + 1]
                state.origin = i
                obs[OBS_ORIGIN] = i + 1
        elif action < FC:  # column or reserve to a foundation
            if action == RF:
                src = state.reserve
                slot = _R
            else:
                slot = action - CF
                src = cols[slot]
            n = len(src) - 1
            c = src.pop()
            h ^= ZCARD[slot * _ROW + n * 52 + c]
            if slot == _R:
                obs[OBS_RESERVE + n] = 0
                if not src:
                    h ^= ZORIGIN[state.origin + 1] ^ ZORIGIN[0]
                    state.origin = -1
                    obs[OBS_ORIGIN] = 0
            else:
                obs[slot * MAX_COLUMN + n] = 0
                run = state.runs[slot]
                state.runs[slot] = run - 1 if run > 1 else foot_run(src)
            r = RANK[c] - 1
            s = SUIT2[c]
            if state.found[s] != r:
                s += 1
            state.found[s] = r + 1
            h ^= ZFOUND[s * 14 + r] ^ ZFOUND[s * 14 + r + 1]
            obs[OBS_FOUNDATIONS + s] = c + 1
            state.total += 1
            reward = 1.0
        elif action < DEAL:  # foundation top to a column
            s, j = divmod(action - FC, NUM_COLUMNS)
            height = state.found[s]
            c = (s >> 1) * 13 + height - 1
            state.found[s] = height - 1
            state.total -= 1
            h ^= ZFOUND[s * 14 + height] ^ ZFOUND[s * 14 + height - 1]
            obs[OBS_FOUNDATIONS + s] = c if height > 1 else 0
            dst = cols[j]
            m = len(dst)
            state.runs[j] = state.runs[j] + 1 if m and FITS[dst[-1] * 52 + c] else 1
            dst.append(c)
            h ^= ZCARD[j * _ROW + m * 52 + c]
            obs[j * MAX_COLUMN + m] = c + 1
            reward = -1.0
        else:  # deal
            pos = state.pos
            runs = state.runs
            for j, c in enumerate(state.stock[pos : pos + NUM_COLUMNS]):
                dst = cols[j]
                m = len(dst)
                runs[j] = runs[j] + 1 if m and FITS[dst[-1] * 52 + c] else 1
                dst.append(c)
                h ^= ZCARD[j * _ROW + m * 52 + c]
                obs[j * MAX_COLUMN + m] = c + 1
            state.pos = pos = min(pos + NUM_COLUMNS, len(state.stock))
            obs[OBS_STOCK] = len(state.stock) - pos
        state.hash = h
        if action == DEAL or state.total > state.best:
            if state.total > state.best:
                state.best = state.total
                obs[OBS_BEST] = state.total
            state.idle = 0
            state.seen = {h}
        else:
            state.idle += 1
            state.seen.add(h)
        obs[OBS_IDLE] = IDLE_LIMIT - state.idle
        state.mask = None
        state.acts = None
        return reward

    @staticmethod
    def _move(state: MilliganState, src: list[int], si: int, dst: list[int], dj: int, k: int, h: int) -> int:
        """Move the last ``k`` cards of ``src`` (slot ``si``) to ``dst`` (slot ``dj``); returns the new fingerprint."""
        obs = state.obs
        n = len(src)
        m = len(dst)
        seg = src[n - k :]
        del src[n - k :]
        ob_s = OBS_RESERVE if si == _R else si * MAX_COLUMN
        ob_d = OBS_RESERVE if dj == _R else dj * MAX_COLUMN
        bi = si * _ROW + (n - k) * 52
        bj = dj * _ROW + m * 52
        for t, c in enumerate(seg):
            h ^= ZCARD[bi + c] ^ ZCARD[bj + c]
            bi += 52
            bj += 52
            obs[ob_s + n - k + t] = 0
            obs[ob_d + m + t] = c + 1
        runs = state.runs
        if si != _R:
            run = runs[si]
            runs[si] = run - k if run > k else foot_run(src)
        if dj != _R:
            runs[dj] = runs[dj] + k if m and FITS[dst[-1] * 52 + seg[0]] else k
        dst += seg
        return h

    def is_over(self, state: MilliganState) -> bool:
        if state.total == TOTAL_CARDS:
            return True
        if state.acts is None or state.rules is not self.rules:
            self.legal_mask(state)
        return not state.acts

    def is_won(self, state: MilliganState) -> bool:
        return state.total == TOTAL_CARDS

    def score(self, state: MilliganState) -> float:
        """Cards on the foundations (of 104)."""
        return float(state.total)

    def info(self, state: MilliganState) -> dict[str, Any]:
        return {"stock_left": len(state.stock) - state.pos, "idle_moves_left": IDLE_LIMIT - state.idle}

    # --- hidden cards ---------------------------------------------------
    def visible_cards(self, state: MilliganState) -> list[int]:
        """The columns, the foundations and the waived cards or the pocket (every card but the stock's)."""
        cards = [c for col in state.columns for c in col] + list(state.reserve)
        for slot, height in enumerate(state.found):
            base = (slot >> 1) * 13  # slots 2s and 2s+1 hold suit s
            cards.extend(range(base, base + height))
        return cards

    def hidden_count(self, state: MilliganState) -> int:
        return state.stock_left

    def replace_hidden(
        self, state: MilliganState, order: Sequence[int], rng: np.random.Generator | None
    ) -> MilliganState:
        world = state.copy()  # the stock is replaced below, never read
        world.stock = tuple(order)
        world.pos = 0
        return world

    def chance_of(self, state: MilliganState, action: int) -> Chance | None:
        """A deal turns the next eight stock cards, one onto each column; nothing else turns a card."""
        return Chance(NUM_COLUMNS, tuple(self.unseen_cards(state))) if action == DEAL else None

    def is_progress(self, state: MilliganState, action: int) -> bool:
        """True when ``action`` would be a progress event (a deal or a new foundation high)."""
        return action == DEAL or ((CF <= action <= RF) and state.total == state.best)

    # --- observation ----------------------------------------------------
    def obs_spec(self, encoding: str) -> ObsSpec:
        self.check_encoding(encoding)
        if encoding == "ids":
            return ObsSpec((OBS_SIZE,), 0, TOTAL_CARDS, np.int8)
        return ObsSpec((PLANES_SIZE,), 0.0, 1.0, np.float32)

    def observe(self, state: MilliganState, encoding: str) -> np.ndarray:
        if encoding == "ids":
            return state.obs.copy()
        return self._observe_planes(state)

    def _observe_ids_full(self, state: MilliganState) -> np.ndarray:
        obs = np.zeros(OBS_SIZE, dtype=np.int8)
        for j, col in enumerate(state.columns):
            obs[j * MAX_COLUMN : j * MAX_COLUMN + len(col)] = [c + 1 for c in col]
        for s, height in enumerate(state.found):
            obs[OBS_FOUNDATIONS + s] = (s >> 1) * 13 + height if height else 0
        obs[OBS_RESERVE : OBS_RESERVE + len(state.reserve)] = [c + 1 for c in state.reserve]
        obs[OBS_ORIGIN] = state.origin + 1
        obs[OBS_STOCK] = len(state.stock) - state.pos
        obs[OBS_IDLE] = IDLE_LIMIT - state.idle
        obs[OBS_BEST] = state.best
        return obs

    def _observe_planes(self, state: MilliganState) -> np.ndarray:
        obs = np.zeros(PLANES_SIZE, dtype=np.float32)
        met = [0] * 52

        def place(c: int) -> int:
            base = (2 * c + met[c]) * PLANE_WIDTH
            met[c] += 1
            return base

        for j, col in enumerate(state.columns):
            n = len(col)
            first_run = n - state.runs[j]
            for r, c in enumerate(col):
                b = place(c)
                obs[b + j] = 1.0
                obs[b + _P_ROW] = r / (MAX_COLUMN - 1)
                if r >= first_run:
                    obs[b + _P_RUN] = 1.0
            if n:
                obs[b + _P_EXPOSED] = 1.0
        for s, height in enumerate(state.found):
            for c in range((s >> 1) * 13, (s >> 1) * 13 + height):
                obs[place(c) + _P_FOUND] = 1.0
        nres = len(state.reserve)
        for r, c in enumerate(state.reserve):
            b = place(c)
            obs[b + _P_RESERVE] = 1.0
            obs[b + _P_ROW] = r / (MAX_RUN - 1)
            obs[b + _P_RUN] = 1.0
            if r == nres - 1:
                obs[b + _P_EXPOSED] = 1.0
        for c in range(52):  # copies not met are face down in the stock
            for copy in range(met[c], 2):
                obs[(2 * c + copy) * PLANE_WIDTH + _P_STOCK] = 1.0
        g = TOTAL_CARDS * PLANE_WIDTH
        obs[g] = (len(state.stock) - state.pos) / MAX_STOCK
        obs[g + 1] = (IDLE_LIMIT - state.idle) / IDLE_LIMIT
        obs[g + 2] = state.best / TOTAL_CARDS
        obs[g + 3 + state.origin + 1] = 1.0
        return obs

    # --- text -----------------------------------------------------------
    def describe_action(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
        w = self.reserve_letter
        kind, src, dst, k = decode_action(action)
        count = f"x{k}" if k > 1 else ""
        if kind == COLUMN_TO_COLUMN:
            return f"c{src + 1}>c{dst + 1}{count}"
        if kind == RESERVE_TO_COLUMN:
            return f"{w}>c{dst + 1}{count}"
        if kind == COLUMN_TO_RESERVE:
            return f"c{src + 1}>{w}{count}"
        if kind == TO_FOUNDATION:
            return f"c{src + 1}>f" if src >= 0 else f"{w}>f"
        if kind == FOUNDATION_TO_COLUMN:
            return f"f{src + 1}>c{dst + 1}"
        return "deal"

    def action_from_description(self, text: str) -> int:
        """Inverse of :meth:`describe_action`; a count ``x1`` may be written or left out."""
        if not isinstance(text, str):
            raise TypeError(f"a move is written as text, got {text!r}")
        cleaned = text.strip().lower().replace(" ", "")
        if cleaned.endswith("x1"):
            cleaned = cleaned[:-2]
        return super().action_from_description(cleaned)


class MissMilligan(MilliganGame):
    """Miss Milligan: King-only vacancies; waiving once the stock is exhausted."""

    name = "miss_milligan"
    title = "Miss Milligan"
    Options = MissMilliganOptions
    reserve_kind = "waiver"


class Giant(MilliganGame):
    """Giant: any card or sequence into a vacancy; worrying back once the stock is exhausted."""

    name = "giant"
    title = "Giant"
    Options = GiantOptions
    vacancy_any = True
    foundation_down = "stock_out"


class MissMilliganPocket(MilliganGame):
    """Miss Milligan, pocket version: a one-card pocket and foundation cards back down, any time."""

    name = "miss_milligan_pocket"
    title = "Miss Milligan (pocket)"
    Options = PocketOptions
    reserve_kind = "pocket"
    foundation_down = "anytime"
