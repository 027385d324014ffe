"""Golf: pure rules of one hole and of a nine-hole round.

Rules: ``docs/pages/rules.md`` (Golf) and ``golf__book.txt``. Actions:
``0..6`` play the exposed card of that column onto the waste; ``7`` turns the
next stock card. Reward: +1 per card cleared from the links, plus ``k`` when
the links clear with ``k`` stock cards left, so a hole returns 35 - score.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from patience_gym.cards import CODE, RANK, check_cards, codes, parse_cards, shuffled_deck
from patience_gym.core import Chance, Game, ObsSpec, Rules, check_keys

NUM_COLUMNS = 7
NUM_ROWS = 5
NUM_LINKS = NUM_COLUMNS * NUM_ROWS
STOCK_SIZE = 52 - NUM_LINKS  # 17: the first is turned up at once
DEAL = NUM_COLUMNS  # action index of "turn the next stock card"
NUM_HOLES = 9
BOGEY = 40

#: What ``reset(options={"deal": ...})`` takes, for the messages that refuse something else.
GOLF_DEAL_IS = (
    "a Golf deal is the 52 card codes in dealing order (the links row by row, then the stock), "
    "as a list or one space-separated string"
)
ROUND_DEAL_IS = (
    f"a GolfRound deal is a list of {NUM_HOLES} deals, one per hole, each a Golf deal: the 52 card codes "
    "in dealing order, as a list or one space-separated string"
)

# Card-centric "planes" layout per card: column (7), row (5), exposed, waste top, in waste.
PLANE_WIDTH = NUM_COLUMNS + NUM_ROWS + 3
PLANES_SIZE = 52 * PLANE_WIDTH + 1


@dataclasses.dataclass(frozen=True)
class GolfOptions:
    """Rule options (env kwargs)."""

    #: A Queen may be played on a King (PySolFC "Golf", Politaire Golf-B).
    queens_on_kings: bool = False
    #: Ace and King are adjacent both ways ("Putt Putt"); implies queens on kings.
    wrap_ranks: bool = False


class GolfState:
    """One hole: the links, the waste pile and the stock.

    ``columns[i]`` lists column ``i`` deepest first (exposed card last);
    ``waste`` bottom first (top last); ``stock`` is the whole stock in turning
    order, shared between copies, of which ``stock[pos:]`` is still face down.
    ``rules``: the game and rule options that made it (:class:`patience_gym.core.Rules`).
    """

    __slots__ = ("columns", "pos", "rules", "stock", "waste")

    def __init__(
        self, columns: list[list[int]], waste: list[int], stock: tuple[int, ...], pos: int, rules: Rules
    ) -> None:
        self.columns = columns
        self.waste = waste
        self.stock = stock
        self.pos = pos
        self.rules = rules

    def copy(self) -> GolfState:
        return GolfState([c[:] for c in self.columns], self.waste[:], self.stock, self.pos, self.rules)

    @property
    def stock_left(self) -> int:
        return len(self.stock) - self.pos

    @property
    def links_left(self) -> int:
        return sum(len(c) for c in self.columns)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GolfState)
            and self.rules == other.rules
            and self.columns == other.columns
            and self.waste == other.waste
            and self.stock[self.pos :] == other.stock[other.pos :]
        )

    def __repr__(self) -> str:
        cols = " | ".join(" ".join(codes(c)) for c in self.columns)
        return f"GolfState({cols}; waste {CODE[self.waste[-1]]}; stock {self.stock_left})"


def _fits_table(options: GolfOptions) -> tuple[tuple[bool, ...], ...]:
    """``table[w][r]``: may a card of rank ``r`` go on a waste card of rank ``w``."""
    table = [[False] * 14 for _ in range(14)]
    for w in range(1, 14):
        for r in range(1, 14):
            if w == 13 and not (options.queens_on_kings or options.wrap_ranks):
                continue  # a King bars further progress
            table[w][r] = abs(w - r) == 1 or (options.wrap_ranks and {w, r} == {1, 13})
    return tuple(tuple(row) for row in table)


class Golf(Game[GolfState]):
    """One hole of Golf."""

    name = "golf"
    Options = GolfOptions
    lower_score_is_better = True
    obs_encodings = ("ids", "planes")
    num_actions = NUM_COLUMNS + 1

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.fits = _fits_table(self.options)

    # --- states ---------------------------------------------------------
    def init(self, rng: np.random.Generator) -> GolfState:
        return self._from_cards(shuffled_deck(rng))

    def from_deal(self, deal: Sequence[str]) -> GolfState:
        return self._from_cards(_hole_deal(deal))

    def _from_cards(self, cards: Sequence[int]) -> GolfState:
        """Links row by row (last row exposed), then the stock in turning order."""
        columns = [[cards[row * NUM_COLUMNS + col] for row in range(NUM_ROWS)] for col in range(NUM_COLUMNS)]
        stock = tuple(cards[NUM_LINKS:])
        return GolfState(columns, [stock[0]], stock, 1, self.rules)

    def to_dict(self, state: GolfState) -> dict[str, Any]:
        self.check_state(state)
        return {
            "game": self.name,
            "options": self.options_dict(),
            "tableau": [codes(c) for c in state.columns],
            "waste": codes(state.waste),
            "stock": codes(state.stock[state.pos :]),
        }

    def from_dict(self, data: Mapping[str, Any]) -> GolfState:
        if not isinstance(data, Mapping):
            raise ValueError(f"a Golf state must be a dict, got {type(data).__name__}")
        self.check_dict_game(data)
        check_keys(data, ("tableau", "waste", "stock"), ("game", "options"), "Golf state")
        tableau = data["tableau"]
        if not isinstance(tableau, Sequence) or len(tableau) != NUM_COLUMNS:
            raise ValueError(f"Golf tableau must have {NUM_COLUMNS} columns")
        columns = [parse_cards(col) for col in tableau]
        for i, col in enumerate(columns):
            if len(col) > NUM_ROWS:
                raise ValueError(f"Golf column {i + 1} has {len(col)} cards; at most {NUM_ROWS}")
        waste = parse_cards(data["waste"])
        if not waste:
            raise ValueError("Golf waste must hold at least the first turned card")
        stock = tuple(parse_cards(data["stock"]))
        check_cards([c for col in columns for c in col] + waste + list(stock), 1, "a Golf state")
        return GolfState(columns, waste, stock, 0, self.rules)

    def from_text(self, text: str) -> GolfState:
        from patience_gym.games.golf_board import parse_board

        data = parse_board(text)
        return self.from_dict(data)

    # --- rules ----------------------------------------------------------
    def playable(self, state: GolfState, column: int) -> bool:
        """True when column ``column``'s exposed card may go on the waste."""
        col = state.columns[column]
        return bool(col) and self.fits[RANK[state.waste[-1]]][RANK[col[-1]]]

    def legal_mask(self, state: GolfState) -> np.ndarray:
        if state.rules is not self.rules:
            self.check_state(state)
        fits = self.fits[RANK[state.waste[-1]]]
        mask = [bool(col) and fits[RANK[col[-1]]] for col in state.columns]
        mask.append(state.pos < len(state.stock))
        return np.array(mask, dtype=bool)

    def apply(self, state: GolfState, action: int) -> float:
        if state.rules is not self.rules:
            self.check_state(state)
        if action == DEAL:
            state.waste.append(state.stock[state.pos])
            state.pos += 1
            return 0.0
        state.waste.append(state.columns[action].pop())
        if any(state.columns):
            return 1.0
        return 1.0 + state.stock_left  # links cleared: the unturned stock counts in our favour

    def is_over(self, state: GolfState) -> bool:
        if not any(state.columns):
            return True
        if state.pos < len(state.stock):
            return False
        fits = self.fits[RANK[state.waste[-1]]]
        return not any(col and fits[RANK[col[-1]]] for col in state.columns)

    def is_won(self, state: GolfState) -> bool:
        return not any(state.columns)

    def score(self, state: GolfState) -> float:
        left = state.links_left
        return float(left if left else -state.stock_left)

    # --- hidden cards ---------------------------------------------------
    def visible_cards(self, state: GolfState) -> list[int]:
        """The links and the waste (every card but the stock's)."""
        return [c for col in state.columns for c in col] + list(state.waste)

    def hidden_count(self, state: GolfState) -> int:
        return state.stock_left

    def replace_hidden(self, state: GolfState, order: Sequence[int], rng: np.random.Generator | None) -> GolfState:
        # Built from the links and the waste only: the old stock is not read.
        return GolfState([col[:] for col in state.columns], state.waste[:], tuple(order), 0, self.rules)

    def chance_of(self, state: GolfState, action: int) -> Chance | None:
        """Turning the stock shows one of the unseen cards; playing a link turns nothing."""
        return Chance(1, tuple(self.unseen_cards(state))) if action == DEAL else None

    # --- observation ----------------------------------------------------
    def obs_spec(self, encoding: str) -> ObsSpec:
        self.check_encoding(encoding)
        if encoding == "ids":
            return ObsSpec((NUM_LINKS + 2,), 0, 52, np.int8)
        return ObsSpec((PLANES_SIZE,), 0.0, 1.0, np.float32)

    def observe(self, state: GolfState, encoding: str) -> np.ndarray:
        if encoding == "ids":
            return self._observe_ids(state)
        return self._observe_planes(state)

    @staticmethod
    def _observe_ids(state: GolfState) -> np.ndarray:
        """Link slot ``row*7+col`` holds card+1 (0 once cleared), then waste top+1, stock count."""
        obs = np.zeros(NUM_LINKS + 2, dtype=np.int8)
        for c, col in enumerate(state.columns):
            for r, card in enumerate(col):
                obs[r * NUM_COLUMNS + c] = card + 1
        obs[NUM_LINKS] = state.waste[-1] + 1
        obs[NUM_LINKS + 1] = len(state.stock) - state.pos
        return obs

    @staticmethod
    def _observe_planes(state: GolfState) -> np.ndarray:
        """Per card: one-hot column and row, exposed, waste top, in waste; then stock/16."""
        obs = np.zeros(PLANES_SIZE, dtype=np.float32)
        for c, col in enumerate(state.columns):
            last = len(col) - 1
            for r, card in enumerate(col):
                base = card * PLANE_WIDTH
                obs[base + c] = 1.0
                obs[base + NUM_COLUMNS + r] = 1.0
                if r == last:
                    obs[base + NUM_COLUMNS + NUM_ROWS] = 1.0
        waste_at = NUM_COLUMNS + NUM_ROWS + 2
        for card in state.waste:
            obs[card * PLANE_WIDTH + waste_at] = 1.0
        obs[state.waste[-1] * PLANE_WIDTH + waste_at - 1] = 1.0
        obs[52 * PLANE_WIDTH] = (len(state.stock) - state.pos) / (STOCK_SIZE - 1)
        return obs

    # --- text -----------------------------------------------------------
    def describe_action(self, action: int) -> str:
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is outside 0..{self.num_actions - 1}")
        return "deal" if action == DEAL else f"c{action + 1}>w"


class GolfRoundState:
    """A nine-hole round: the hole in play, the scores so far and the deals.

    ``deals[h]`` is hole ``h``'s deal for every hole after the one in play (the hole in play lives in
    ``hole_state``). The entries of the holes played and in play are the real deals in a dealt round, and
    empty in a state read by ``from_dict`` and in a determinized world, which keeps nothing of them.
    """

    __slots__ = ("deals", "hole", "hole_scores", "hole_state", "rules")

    def __init__(
        self,
        hole_state: GolfState,
        hole: int,
        hole_scores: list[int],
        deals: tuple[tuple[int, ...], ...],
        rules: Rules,
    ) -> None:
        self.hole_state = hole_state
        self.hole = hole
        self.hole_scores = hole_scores
        self.deals = deals
        self.rules = rules

    def copy(self) -> GolfRoundState:
        return GolfRoundState(self.hole_state.copy(), self.hole, self.hole_scores[:], self.deals, self.rules)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GolfRoundState)
            and self.rules == other.rules
            and self.hole == other.hole
            and self.hole_scores == other.hole_scores
            and self.hole_state == other.hole_state
            and self.deals[self.hole + 1 :] == other.deals[other.hole + 1 :]
        )


class GolfRound(Game[GolfRoundState]):
    """Nine holes of Golf, nine fresh deals; the round score is the sum (bogey 40)."""

    name = "golf_round"
    Options = GolfOptions
    lower_score_is_better = True
    obs_encodings = Golf.obs_encodings
    num_actions = Golf.num_actions
    score_note = f"Round score is the sum of nine holes; the book's bogey is {BOGEY}. 'win' = round at or under bogey."

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.hole_game = Golf(**options)

    def _start(self, deals: Sequence[Sequence[int]]) -> GolfRoundState:
        frozen = tuple(tuple(d) for d in deals)
        return GolfRoundState(self.hole_game._from_cards(frozen[0]), 0, [], frozen, self.rules)

    def init(self, rng: np.random.Generator) -> GolfRoundState:
        return self._start([shuffled_deck(rng) for _ in range(NUM_HOLES)])

    def from_deal(self, deal: Sequence[Any]) -> GolfRoundState:
        """Nine deals of 52 codes, one per hole; ValueError saying what a deal is otherwise."""
        if isinstance(deal, (str, bytes, Mapping, set, frozenset)) or not isinstance(deal, Iterable):
            raise ValueError(f"{ROUND_DEAL_IS}; got {type(deal).__name__}")
        holes = list(deal)
        if len(holes) != NUM_HOLES:
            raise ValueError(f"{ROUND_DEAL_IS}; got {len(holes)} items")
        return self._start([_hole_deal(d, hole) for hole, d in enumerate(holes, 1)])

    def to_dict(self, state: GolfRoundState) -> dict[str, Any]:
        self.check_state(state)
        return {
            "game": self.name,
            "options": self.options_dict(),
            "hole": state.hole,
            "hole_scores": list(state.hole_scores),
            "hole_state": self.hole_game.to_dict(state.hole_state),
            "next_deals": [codes(d) for d in state.deals[state.hole + 1 :]],
        }

    def from_dict(self, data: Mapping[str, Any]) -> GolfRoundState:
        if not isinstance(data, Mapping):
            raise ValueError(f"a GolfRound state must be a dict, got {type(data).__name__}")
        self.check_dict_game(data)
        check_keys(data, ("hole", "hole_scores", "hole_state", "next_deals"), ("game", "options"), "GolfRound state")
        hole = data["hole"]
        scores = data["hole_scores"]
        if isinstance(hole, bool) or not isinstance(hole, int) or not 0 <= hole < NUM_HOLES:
            raise ValueError(f"GolfRound hole must be an integer 0..{NUM_HOLES - 1}, got {hole!r}")
        if (
            isinstance(scores, str)
            or not isinstance(scores, Sequence)
            or len(scores) not in (hole, NUM_HOLES if hole == NUM_HOLES - 1 else hole)
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in scores)
        ):
            raise ValueError(f"GolfRound hole_scores must list {hole} integer scores (one per finished hole)")
        lowest = -(STOCK_SIZE - 1)  # links cleared with the whole stock unturned
        bad = [s for s in scores if not lowest <= s <= NUM_LINKS]
        if bad:
            raise ValueError(f"GolfRound hole scores lie in {lowest}..{NUM_LINKS}, got {bad}")
        next_deals = [parse_cards(d) for d in data["next_deals"]]
        if len(next_deals) != NUM_HOLES - 1 - hole:
            raise ValueError(f"GolfRound next_deals must hold {NUM_HOLES - 1 - hole} deals at hole {hole}")
        for i, cards in enumerate(next_deals):
            check_cards(cards, 1, f"the deal of hole {hole + 2 + i}")
        hole_state = self.hole_game.from_dict(data["hole_state"])
        finished = len(scores) == NUM_HOLES  # the round is over: the last hole is finished and scored
        if self.hole_game.is_over(hole_state) != finished:
            raise ValueError(
                f"GolfRound hole_state of hole {hole + 1} is already finished; a round's state holds the hole in play"
                if not finished
                else "GolfRound with nine hole scores needs the ninth hole finished in hole_state"
            )
        if finished and scores[-1] != int(self.hole_game.score(hole_state)):
            raise ValueError(f"GolfRound's ninth hole score {scores[-1]} is not its hole_state's score")
        # The deals of the holes played and in play are not kept; keep the tuple's indexing by hole.
        placeholder: tuple[tuple[int, ...], ...] = tuple(() for _ in range(hole + 1))
        deals = placeholder + tuple(tuple(d) for d in next_deals)
        return GolfRoundState(hole_state, hole, list(scores), deals, self.rules)

    def from_text(self, text: str) -> GolfRoundState:
        """Refused: board text has no hole number, hole scores or later deals."""
        raise ValueError(
            "a board text holds one Golf hole, not a round's hole number, hole scores and later deals: "
            "play the board in patience_gym/Golf-v0, or reset a round with a 'state' (env.unwrapped.state_dict())"
        )

    # --- rules ----------------------------------------------------------
    def legal_mask(self, state: GolfRoundState) -> np.ndarray:
        if state.rules is not self.rules:
            self.check_state(state)
        return self.hole_game.legal_mask(state.hole_state)

    def apply(self, state: GolfRoundState, action: int) -> float:
        if state.rules is not self.rules:
            self.check_state(state)
        reward = self.hole_game.apply(state.hole_state, action)
        if self.hole_game.is_over(state.hole_state):
            state.hole_scores.append(int(self.hole_game.score(state.hole_state)))
            if state.hole + 1 < NUM_HOLES:
                state.hole += 1
                state.hole_state = self.hole_game._from_cards(state.deals[state.hole])
        return reward

    def is_over(self, state: GolfRoundState) -> bool:
        return len(state.hole_scores) == NUM_HOLES

    def is_won(self, state: GolfRoundState) -> bool:
        """A round is 'won' when it finishes at or under bogey."""
        return self.is_over(state) and sum(state.hole_scores) <= BOGEY

    def score(self, state: GolfRoundState) -> float:
        running = 0 if self.is_over(state) else self.hole_game.score(state.hole_state)
        return float(sum(state.hole_scores) + running)

    # --- hidden cards ---------------------------------------------------
    def visible_cards(self, state: GolfRoundState) -> list[int]:
        """The hole in play's links and waste (the later holes' deals are unseen and independent)."""
        return self.hole_game.visible_cards(state.hole_state)

    def hidden_count(self, state: GolfRoundState) -> int:
        return state.hole_state.stock_left

    def replace_hidden(
        self, state: GolfRoundState, order: Sequence[int], rng: np.random.Generator | None
    ) -> GolfRoundState:
        """The hole's stock in ``order``; each later hole dealt afresh from ``rng`` (a full shuffled deck,
        as :meth:`init` deals it: the player has seen none of them). Built from the visible hole and the
        scores only: no deal of ``state`` is read or kept."""
        later = NUM_HOLES - 1 - state.hole
        deals: tuple[tuple[int, ...], ...] = tuple(() for _ in range(state.hole + 1))
        if later:
            if rng is None:
                raise ValueError(
                    f"a round at hole {state.hole + 1} hides {later} later deals: give an rng to deal them"
                )
            deals += tuple(tuple(shuffled_deck(rng)) for _ in range(later))
        hole = self.hole_game.replace_hidden(state.hole_state, order, None)
        return GolfRoundState(hole, state.hole, state.hole_scores[:], deals, self.rules)

    def chance_of(self, state: GolfRoundState, action: int) -> Chance | None:
        """Turning the stock as in a hole; a move that ends the hole with holes to come (a link played, or
        the stock's last card turned with nothing to play on it) deals the next hole: its 35 links and first
        waste card, drawn from a fresh deck (the last stock card was certain: the one card unseen)."""
        hole = state.hole_state
        if state.hole + 1 < NUM_HOLES and (action != DEAL or hole.stock_left == 1):
            after = hole.copy()  # a deal turns the one unseen card here: nothing hidden is read
            self.hole_game.apply(after, action)
            if self.hole_game.is_over(after):
                return Chance(NUM_LINKS + 1, tuple(range(52)))
        return self.hole_game.chance_of(hole, action) if action == DEAL else None

    def stage(self, state: GolfRoundState) -> tuple[Game[Any], Any]:
        return self.hole_game, state.hole_state

    def part(self, state: GolfRoundState) -> int:
        return state.hole

    def info(self, state: GolfRoundState) -> dict[str, Any]:
        return {"hole": state.hole + 1, "hole_scores": list(state.hole_scores)}

    # --- observation ----------------------------------------------------
    def obs_spec(self, encoding: str) -> ObsSpec:
        spec = self.hole_game.obs_spec(encoding)
        return dataclasses.replace(spec, shape=(spec.shape[0] + 1,))

    def observe(self, state: GolfRoundState, encoding: str) -> np.ndarray:
        obs = self.hole_game.observe(state.hole_state, encoding)
        hole = state.hole if encoding == "ids" else state.hole / (NUM_HOLES - 1)
        return np.append(obs, np.array(hole, dtype=obs.dtype))

    def describe_action(self, action: int) -> str:
        return self.hole_game.describe_action(action)


def _hole_deal(deal: Any, hole: int | None = None) -> list[int]:
    """The 52 cards of one hole's deal (of a round's ``hole``); ValueError saying what a deal is otherwise."""
    where = "" if hole is None else f"the deal of hole {hole}: "
    try:
        cards = parse_cards(deal)
    except ValueError as exc:
        raise ValueError(f"{where}{GOLF_DEAL_IS}; {exc}") from None
    check_cards(cards, 1, "a Golf deal" if hole is None else f"the deal of hole {hole}")
    return cards


def hole_in_play(game: Game[Any], state: Any) -> tuple[Golf, GolfState]:
    """The rules and position of the hole being played, for a Golf or a GolfRound game."""
    hole_game, hole = game.stage(state)
    if not isinstance(hole_game, Golf):
        raise TypeError(f"expected a Golf or GolfRound game, got {game.name}")
    return hole_game, hole
