"""The contract every game's pure rules module fulfils.

A :class:`Game` holds rule options only; all game data lives in an explicit,
cheap-to-copy state object (``state.copy()``, ``==``). The rules never import
gymnasium or torch: :mod:`patience_gym.env` wraps any game as a Gymnasium env.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np

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

    # --- rules ----------------------------------------------------------
    @abstractmethod
    def legal_mask(self, state: S) -> np.ndarray:
        """Bool array of length ``num_actions``; never all-False while live."""

    def legal_actions(self, state: S) -> list[int]:
        """The legal actions, in action order."""
        return np.flatnonzero(self.legal_mask(state)).tolist()

    @abstractmethod
    def apply(self, state: S, action: int) -> float:
        """Play a legal ``action`` in place and return its reward."""

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
