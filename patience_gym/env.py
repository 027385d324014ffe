"""One generic Gymnasium env that serves every game's rules module."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from patience_gym.core import Game, IllegalActionError
from patience_gym.features import encodings, make_observer
from patience_gym.games import make_game
from patience_gym.render import render_text

ILLEGAL_ACTION_MODES = ("penalize", "raise")
ILLEGAL_ACTION_REWARD = -1.0
RESET_OPTIONS = ("deal", "state", "board")


def env_kwargs_from_json(text: str, flag: str = "--env-kwargs") -> dict[str, Any]:
    """The env kwargs a command line gives as a JSON object; ValueError naming ``flag`` otherwise."""
    try:
        kwargs = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{flag} is not valid JSON: {exc}") from None
    if not isinstance(kwargs, dict):
        raise ValueError(f"{flag} must be a JSON object, got {text!r}")
    return kwargs


class PatienceEnv(gym.Env[np.ndarray, np.int64]):
    """A patience game as a Gymnasium env with action masking.

    Subclasses (one per game, in :mod:`patience_gym.envs`) set ``game_name`` and
    carry the game's documentation; everything else is shared.

    Args:
        game: game name (see :data:`patience_gym.games.GAMES`) or a ``Game``;
            defaults to the subclass's ``game_name``.
        render_mode: ``"ansi"`` (returns text) or ``"human"`` (prints it).
        illegal_action: ``"penalize"`` (state unchanged, reward -1,
            ``info["illegal_action"] = True``) or ``"raise"`` (strict mode).
        obs_encoding: one of :func:`patience_gym.features.encodings` of the game (the
            rules' plain ``ids``/``planes``, then the feature encodings); ``ids`` by default.
        **rule_options: the game's rule options; unknown ones are a TypeError.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    game_name: ClassVar[str | None] = None

    def __init__(
        self,
        game: str | Game[Any] | None = None,
        *,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        obs_encoding: str | None = None,
        **rule_options: Any,
    ) -> None:
        if game is not None and self.game_name is not None and game != self.game_name:
            given = game.name if isinstance(game, Game) else game
            if given == self.game_name:  # a Game object: its rule options belong in the env's kwargs
                raise TypeError(
                    f"{type(self).__name__} plays {self.game_name!r} and makes its own Game: give rule options as "
                    f"keyword arguments (gym.make(id, wrap_ranks=True)), not game={game!r}"
                )
            raise TypeError(
                f"{type(self).__name__} plays {self.game_name!r}; make the env of {given!r} by its own id "
                "(see patience_gym.ENVS) instead of passing game="
            )
        if isinstance(game, Game):
            if rule_options:
                raise TypeError("pass rule options to the Game, not the env, when giving a Game object")
            self.game: Game[Any] = game
        else:
            name = game or self.game_name
            if name is None:
                raise TypeError("PatienceEnv needs a game name")
            self.game = make_game(name, **rule_options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"unknown render_mode {render_mode!r}; choose one of {self.metadata['render_modes']}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"unknown illegal_action {illegal_action!r}; choose one of {list(ILLEGAL_ACTION_MODES)}")
        self.obs_encoding = self.game.obs_encodings[0] if obs_encoding is None else obs_encoding
        self.observer = make_observer(self.game, self.obs_encoding)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.action_space = spaces.Discrete(self.game.num_actions)
        spec = self.observer.spec
        self.observation_space = spaces.Box(spec.low, spec.high, spec.shape, spec.dtype)
        self.state: Any = None
        self._mask = np.zeros(self.game.num_actions, dtype=bool)
        self._over = True
        self._last_action: int | None = None  # the move the picture frames (render_mode="rgb_array")
        self._previous: Any = None  # the position before it

    # --- Gymnasium API --------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise TypeError(f"reset options must be a dict (or None), got {type(options).__name__}")
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: {list(RESET_OPTIONS)}")
        if len(options.keys() & set(RESET_OPTIONS)) > 1:
            raise ValueError("give at most one of the reset options 'deal', 'state' and 'board'")
        if "state" in options:
            self.state = self.game.from_dict(options["state"])
        elif "deal" in options:
            self.state = self.game.from_deal(options["deal"])
        elif "board" in options:
            if not isinstance(options["board"], str):
                raise TypeError(f"reset option 'board' must be board text, got {type(options['board']).__name__}")
            self.state = self.game.from_text(options["board"])
        else:
            self.state = self.game.init(self.np_random)
        self._last_action = self._previous = None
        self._refresh()
        if self.render_mode == "human":
            self.render()
        return self.observer.observe(self.state), self._info(illegal=False)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        a = self._as_action(action)
        if not (0 <= a < self.game.num_actions and self._mask[a]):
            return self._illegal(a)
        if self.render_mode == "rgb_array":
            self._previous, self._last_action = self.state.copy(), a
        reward = self.game.apply(self.state, a)
        self._refresh()
        if self.render_mode == "human":
            self.render()
        return self.observer.observe(self.state), reward, self._over, False, self._info(illegal=False)

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        if self.state is None or self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            from patience_gym.render.image import render_rgb  # Pillow, imported only for pictures

            return render_rgb(self.game, self.state, self._last_action, self._previous)
        text = render_text(self.game, self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # --- masking and helpers --------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Legal actions as a bool array (sb3-contrib's MaskablePPO reads this)."""
        return self._mask.copy()

    @property
    def obs_encodings(self) -> tuple[str, ...]:
        """The observation encodings this env's game offers (the default first)."""
        return encodings(self.game)

    def legal_actions(self) -> list[int]:
        """Indices of the legal actions."""
        return np.flatnonzero(self._mask).tolist()

    def describe_action(self, action: int) -> str:
        """Readable notation of ``action``, e.g. ``"c3>w"``."""
        return self.game.describe_action(int(action))

    def action_from_description(self, text: str) -> int:
        """The action of a move written as :meth:`describe_action` writes it."""
        return self.game.action_from_description(text)

    def state_dict(self) -> dict[str, Any]:
        """The whole position as a JSON-able dict (accepted by ``reset(options={"state": ...})``)."""
        if self.state is None:
            raise RuntimeError("call reset() before state_dict()")
        return self.game.to_dict(self.state)

    # --- internals ------------------------------------------------------
    def _as_action(self, action: Any) -> int:
        """``action`` as an int; TypeError for anything but an integer (bools, floats, strings, arrays)."""
        if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
            return int(action)
        if isinstance(action, np.ndarray) and action.shape == () and np.issubdtype(action.dtype, np.integer):
            return int(action)
        raise TypeError(
            f"action must be an integer in 0..{self.game.num_actions - 1}, got {action!r} ({type(action).__name__})"
        )

    def _refresh(self) -> None:
        self._over = self.game.is_over(self.state)
        if self._over:
            self._mask = np.zeros(self.game.num_actions, dtype=bool)
        else:
            self._mask = self.game.legal_mask(self.state)

    def _info(self, illegal: bool) -> dict[str, Any]:
        info = {
            "action_mask": self._mask.astype(np.int8),
            "score": self.game.score(self.state),
            "won": self.game.is_won(self.state),
            "illegal_action": illegal,
        }
        info.update(self.game.info(self.state))
        return info

    def _illegal(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.illegal_action == "raise":
            raise IllegalActionError(self.game.illegal_action_message(self.state, action))
        # a fresh observation: the one handed out before is the caller's, who may have written into it
        return self.observer.observe(self.state), ILLEGAL_ACTION_REWARD, self._over, False, self._info(illegal=True)
