"""The contract every game's pure rules module fulfils.

A :class:`Game` holds rule options only; all game data lives in an explicit,
cheap-to-copy state object (``state.copy()``, ``==``). The rules never import
gymnasium or torch: :mod:`patience_gym.env` wraps any game as a Gymnasium env.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np

from patience_gym.cards import CODE, NUM_CARDS
from patience_gym.specs import by_game


class GameState(Protocol):
    """What the env and the agents need of a state."""

    def copy(self) -> GameState: ...


S = TypeVar("S")


@dataclasses.dataclass(frozen=True)
class ObsSpec:
    """Shape and bounds of one observation encoding (a Box, without gymnasium)."""

    shape: tuple[int, ...]
    low: float
    high: float
    dtype: type


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current position."""


class ForeignStateError(TypeError):
    """A state made by another game, or by the same game with other rule options."""


@dataclasses.dataclass(frozen=True)
class Rules:
    """The game and rule options a state belongs to (``state.rules``, set by the game that made it).

    Every game refuses a state whose rules are not its own (:meth:`Game.check_state`), so a state
    never carries one game's legal moves, or its own cached ones, into another's play.
    """

    game: str
    options: Any

    def __str__(self) -> str:
        given = ", ".join(f"{f.name}={getattr(self.options, f.name)!r}" for f in dataclasses.fields(self.options))
        return f"{self.game} ({given})" if given else self.game


_RULES: dict[Rules, Rules] = {}


def rules_of(game: str, options: Any) -> Rules:
    """The one shared :class:`Rules` object of ``game`` with ``options`` (equal games share it: an
    identity test is the fast check)."""
    key = Rules(game, options)
    return _RULES.setdefault(key, key)


@dataclasses.dataclass(frozen=True)
class Chance:
    """The chance outcome of a move that turns face-down cards up (:meth:`Game.chance`).

    The move turns ``count`` cards, drawn without replacement from ``pool`` (card ids, sorted,
    with repeats for two packs) in a uniformly random order: every ordered draw is equally
    likely. :meth:`outcomes` gives the distribution of each turned card.
    """

    count: int
    pool: tuple[int, ...]

    def outcomes(self) -> dict[int, float]:
        """Card id -> the probability that a turned card (the first, or any one) is that card."""
        size = len(self.pool)
        return {card: n / size for card, n in sorted(Counter(self.pool).items())}


def make_options(options_type: type, given: Mapping[str, Any], game_name: str) -> Any:
    """Build a rule-options dataclass, naming any unknown or mistyped option."""
    fields = {f.name: f for f in dataclasses.fields(options_type)}
    for key, value in given.items():
        if key not in fields:
            known = ", ".join(sorted(fields)) or "none"
            raise TypeError(f"unknown option {key!r} for {game_name}; its rule options are: {known}")
        default = getattr(options_type(), key)
        if isinstance(default, bool) and not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"option {key!r} for {game_name} must be True or False, got {value!r}")
    return options_type(**{k: bool(v) if isinstance(v, np.bool_) else v for k, v in given.items()})


def check_keys(
    data: Mapping[Any, Any], required: Sequence[str], optional: Iterable[str], what: str, *, unknown_first: bool = False
) -> None:
    """Raise ValueError naming the ``required`` keys ``data`` lacks, or its keys neither required nor optional.

    ``what`` begins the message (``"Golf state"``: "Golf state lacks waste"). Where both are wrong, the
    missing keys are named, or the unknown ones with ``unknown_first``.
    """
    missing = [k for k in required if k not in data]
    unknown = sorted(map(str, set(data) - {*required, *optional}))
    problems = [(missing, "lacks "), (unknown, "has unknown keys: ")]
    for names, problem in reversed(problems) if unknown_first else problems:
        if names:
            raise ValueError(f"{what} {problem}{', '.join(names)}")


def _is_card_id(card: Any) -> bool:
    return isinstance(card, (int, np.integer)) and not isinstance(card, bool) and bool(0 <= card < NUM_CARDS)


def _check_rng(rng: Any, method: str, *, optional: bool) -> None:
    if (rng is None and optional) or isinstance(rng, np.random.Generator):
        return
    raise TypeError(f"{method} draws from a numpy Generator (np.random.default_rng(seed)), got rng={rng!r}")


class Game(ABC, Generic[S]):
    """Pure rules of one patience game: init, legal mask, apply, observe.

    Subclasses set the class attributes and implement the abstract methods.
    ``apply`` mutates the state in place and assumes the action is legal;
    callers copy a state first when they need the old one (search, undo).
    """

    #: Short name, e.g. ``"golf"``.
    name: ClassVar[str]
    #: Dataclass of rule options; its fields are the env's rule kwargs.
    Options: ClassVar[type]
    #: True where a lower score is better (Golf).
    lower_score_is_better: ClassVar[bool] = False
    #: Observation encodings by name; the first is the default.
    obs_encodings: ClassVar[tuple[str, ...]] = ("ids",)
    #: A sentence for result tables on how the score and a "win" are counted, where that needs saying.
    score_note: ClassVar[str] = ""

    num_actions: int

    def __init__(self, **options: Any) -> None:
        self.options = make_options(self.Options, options, self.name)
        #: The game and options every state of this game carries (``state.rules``).
        self.rules = rules_of(self.name, self.options)
        self._action_by_text: dict[str, int] | None = None

    @property
    def max_episode_steps(self) -> int:
        """The registered env's safety-net step limit, stated once in the game table (:mod:`patience_gym.specs`)."""
        return by_game(self.name).max_episode_steps

    # --- states ---------------------------------------------------------
    @abstractmethod
    def init(self, rng: np.random.Generator) -> S:
        """A fresh shuffled deal."""

    @abstractmethod
    def from_deal(self, deal: Sequence[str]) -> S:
        """The position after dealing ``deal`` (card codes in dealing order)."""

    @abstractmethod
    def from_dict(self, data: Mapping[str, Any]) -> S:
        """A state from :meth:`to_dict` output; ValueError naming any problem."""

    @abstractmethod
    def to_dict(self, state: S) -> dict[str, Any]:
        """A JSON-able dict of the whole state (hidden cards included)."""

    def from_text(self, text: str) -> S:
        """A state from the game's board text format, where it has one (ValueError where it has none)."""
        raise ValueError(f"{self.name} has no board text format; give a 'deal' or a 'state' instead")

    def check_state(self, state: Any) -> None:
        """A :class:`ForeignStateError` naming both where ``state`` was not made by this game with these rule
        options (its ``rules``). The rules' entry points (legal moves, apply, to_dict, the hidden cards) call it."""
        if getattr(state, "rules", None) is not self.rules:
            self._adopt_or_refuse(state)

    def _adopt_or_refuse(self, state: Any) -> None:
        rules = getattr(state, "rules", None)
        if isinstance(rules, Rules) and rules == self.rules:  # an equal key (a state unpickled): share ours
            state.rules = self.rules
            return
        kind = type(state).__name__
        made = f"a {kind} of {rules}" if isinstance(rules, Rules) else f"a {kind}, not a state of any game,"
        raise ForeignStateError(
            f"{made} cannot be played by {self.rules}: a state belongs to the game and rule options that made "
            f"it; make it with this game (init, from_deal, from_dict)"
        )

    def check_dict_game(self, data: Mapping[str, Any]) -> None:
        """ValueError where a state dict names another game (``"game"``) or other rule options (``"options"``)."""
        if data.get("game", self.name) != self.name:
            raise ValueError(f"state is for game {data['game']!r}, not {self.name!r}")
        if "options" not in data:
            return
        given = data["options"]
        ours = dataclasses.asdict(self.options)
        if not isinstance(given, Mapping) or set(given) != set(ours):
            raise ValueError(
                f"a {self.name} state's options must map {sorted(ours) or 'no option'} to values, got {given!r}"
            )
        differ = [f"{k}={given[k]!r} (this game: {v!r})" for k, v in ours.items() if given[k] != v]
        if differ:
            raise ValueError(f"state is for {self.name} with other rule options: {', '.join(differ)}")

    def options_dict(self) -> dict[str, Any]:
        """The rule options as :meth:`to_dict` writes them (``"options"``)."""
        return dataclasses.asdict(self.options)

    # --- hidden cards and determinization -------------------------------
    #: Copies of each of the 52 cards in the game's deck.
    deck_copies: ClassVar[int] = 1

    def visible_cards(self, state: S) -> list[int]:
        """Every card the player has seen and knows the place of (repeats for two packs)."""
        raise NotImplementedError(f"{self.name} does not describe its hidden cards")

    def hidden_count(self, state: S) -> int:
        """How many face-down cards ``state`` holds whose order the player does not know."""
        raise NotImplementedError(f"{self.name} does not describe its hidden cards")

    def replace_hidden(self, state: S, order: Sequence[int], rng: np.random.Generator | None) -> S:
        """A new state equal to ``state`` in all the player knows, with ``order`` as its face-down
        cards; ``rng`` deals any hidden part independent of the position (a round's later holes)."""
        raise NotImplementedError(f"{self.name} does not describe its hidden cards")

    def unseen_cards(self, state: S) -> list[int]:
        """The cards the player has not seen, sorted (repeats for two packs): the deck less the
        visible cards. Read from the visible position alone; ValueError naming the problem
        where the state is not consistent (a card id outside 0..51, a card more often than the
        deck holds it, or a face-down count that does not match)."""
        self.check_state(state)
        visible = self.visible_cards(state)
        for card in visible:
            if not _is_card_id(card):
                raise ValueError(f"inconsistent {self.name} state: {card!r} is not a card id (0..{NUM_CARDS - 1})")
        left = Counter({card: self.deck_copies for card in range(NUM_CARDS)})
        left.subtract(int(card) for card in visible)
        over = sorted(card for card, n in left.items() if n < 0)
        if over:
            shown = ", ".join(f"{CODE[c]} ({self.deck_copies - left[c]} times)" for c in over)
            raise ValueError(
                f"inconsistent {self.name} state: cards seen more often than the deck holds them "
                f"({self.deck_copies} of each): {shown}"
            )
        unseen = sorted(left.elements())
        hidden = self.hidden_count(state)
        if hidden != len(unseen):
            raise ValueError(
                f"inconsistent {self.name} state: {hidden} face-down cards, but {len(unseen)} cards are unseen"
            )
        return unseen

    def with_hidden(self, state: S, order: Sequence[int], rng: np.random.Generator | None = None) -> S:
        """``state`` with ``order`` (an arrangement of :meth:`unseen_cards`) as its face-down cards,
        in dealing order; ValueError where ``order`` is not one, TypeError where an entry is not an
        integer card id or ``rng`` is not a numpy Generator. ``state`` is left unchanged."""
        _check_rng(rng, "with_hidden", optional=True)
        unseen = self.unseen_cards(state)
        if isinstance(order, (str, bytes)) or not isinstance(order, Iterable):
            raise TypeError(f"a hidden order is a sequence of card ids, got {type(order).__name__}")
        given = list(order)
        for i, card in enumerate(given):
            if isinstance(card, bool) or not isinstance(card, (int, np.integer)):
                raise TypeError(f"a hidden order holds integer card ids, but entry {i} is {card!r}")
            if not _is_card_id(card):
                raise ValueError(f"entry {i} of the hidden order, {card!r}, is not a card id (0..{NUM_CARDS - 1})")
        cards = [int(c) for c in given]
        if sorted(cards) != unseen:
            raise ValueError(
                f"a hidden order must arrange the {len(unseen)} unseen cards of this {self.name} state, "
                f"got {len(cards)} cards that do not match them"
            )
        return self.replace_hidden(state, cards, rng)

    def determinize(self, state: S, rng: np.random.Generator) -> S:
        """A full state agreeing with everything the player sees in ``state``, its face-down cards
        a uniformly random arrangement (drawn from ``rng``) of :meth:`unseen_cards`. Never reads
        the hidden order; every observation of the result equals that of ``state``."""
        _check_rng(rng, "determinize", optional=False)
        unseen = self.unseen_cards(state)
        order = [unseen[i] for i in rng.permutation(len(unseen))]
        return self.replace_hidden(state, order, rng)

    def chance(self, state: S, action: int) -> Chance | None:
        """What the legal ``action`` turns face up, as a :class:`Chance`; None where it turns
        nothing. IllegalActionError where ``action`` is not an int or not legal in ``state``."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"an action is an int in 0..{self.num_actions - 1}, got {action!r}")
        if self.is_over(state) or not (0 <= action < self.num_actions and self.legal_mask(state)[action]):
            raise IllegalActionError(f"action {action} is not legal here, so it has no chance outcome")
        return self.chance_of(state, int(action))

    def chance_of(self, state: S, action: int) -> Chance | None:
        """:meth:`chance` for an action known to be legal (the game's part)."""
        raise NotImplementedError(f"{self.name} does not describe its hidden cards")

    # --- rules ----------------------------------------------------------
    @abstractmethod
    def legal_mask(self, state: S) -> np.ndarray:
        """Bool array of length ``num_actions``; never all-False while live."""

    def legal_actions(self, state: S) -> list[int]:
        """The legal actions, in action order."""
        return np.flatnonzero(self.legal_mask(state)).tolist()

    @abstractmethod
    def apply(self, state: S, action: int) -> float:
        """Play a legal ``action`` in place and return its reward.

        Unchecked, for speed in search (checking costs about as much as the move): an illegal or out-of-range
        action leaves a state the rules never reach. Play an action that does not come from
        :meth:`legal_actions` or :meth:`legal_mask` with :meth:`play`."""

    def play(self, state: S, action: int) -> float:
        """:meth:`apply` after checking ``action``: an IllegalActionError naming it and the legal actions where
        it is not a legal action in ``state`` (which is then left as it was)."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"an action is an int in 0..{self.num_actions - 1}, got {action!r}")
        if self.is_over(state) or not (0 <= action < self.num_actions and self.legal_mask(state)[action]):
            raise IllegalActionError(self.illegal_action_message(state, int(action)))
        return self.apply(state, int(action))

    def illegal_action_message(self, state: S, action: int) -> str:
        """Why ``action`` cannot be played in ``state``: the action, as notation where it is in range, and the
        legal actions."""
        mask = np.zeros(self.num_actions, bool) if self.is_over(state) else self.legal_mask(state)
        legal = ", ".join(f"{a} ({self.describe_action(a)})" for a in np.flatnonzero(mask).tolist()) or "none"
        shown = self.describe_action(action) if 0 <= action < self.num_actions else "out of range"
        return f"illegal action {action} ({shown}) in {self.name}; legal: {legal}"

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """True when the episode has ended (won or no move left)."""

    @abstractmethod
    def is_won(self, state: S) -> bool:
        """True when the game is won."""

    @abstractmethod
    def score(self, state: S) -> float:
        """The game's score of the position (see ``lower_score_is_better``)."""

    def stage(self, state: S) -> tuple[Game[Any], Any]:
        """The game and position being played now: ``(self, state)``, or for a game made of
        parts (a round of holes) the part in play, so an agent of the part can play it."""
        return self, state

    def part(self, state: S) -> int:
        """Which part of the game is in play, counted from 0 (a round's hole); always 0 for a game of one
        part. An agent of the part (:meth:`stage`) treats each new part as a game of its own."""
        return 0

    def info(self, state: S) -> dict[str, Any]:
        """Extra per-step information for the env's ``info`` dict."""
        return {}

    # --- observation ----------------------------------------------------
    @abstractmethod
    def obs_spec(self, encoding: str) -> ObsSpec:
        """Shape and bounds of the observation in ``encoding``."""

    @abstractmethod
    def observe(self, state: S, encoding: str) -> np.ndarray:
        """The visible position as a fixed-shape array; hidden cards never leak."""

    def check_encoding(self, encoding: str) -> None:
        """ValueError unless ``encoding`` is one of ``obs_encodings``."""
        if encoding not in self.obs_encodings:
            raise ValueError(
                f"unknown obs_encoding {encoding!r} for {self.name}; choose one of {list(self.obs_encodings)}"
            )

    # --- actions as text ------------------------------------------------
    @abstractmethod
    def describe_action(self, action: int) -> str:
        """Readable move notation of ``action``."""

    def action_from_description(self, text: str) -> int:
        """Inverse of :meth:`describe_action`; ValueError naming unknown text."""
        if not isinstance(text, str):
            raise TypeError(f"a move is written as text, got {text!r}")
        if self._action_by_text is None:
            self._action_by_text = {self.describe_action(a): a for a in range(self.num_actions)}
        action = self._action_by_text.get(text.strip())
        if action is None:
            examples = ", ".join(list(self._action_by_text)[:4])
            raise ValueError(f"unknown move {text!r} for {self.name}; moves look like {examples}, ...")
        return action
