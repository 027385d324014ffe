"""The batched-engine contract (``BatchedGame``) and its Gymnasium front (``BatchedVectorEnv``).

A ``BatchedGame`` holds N games of one kind in numpy arrays and steps them with
numba kernels, without autoreset. ``BatchedVectorEnv`` adds what the single
env's wrappers add (autoreset, TimeLimit truncation, the info dict, the
illegal-action policy), so that env ``i`` plays bit-identically to
``gym.make(env_id, ...)`` reset with ``seed=seeds[i]`` and then without a seed
after each finished game. The SB3 adapter lives in :mod:`agents.training.sb3_vec_env`.
"""

from __future__ import annotations

import abc
import warnings
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, ClassVar

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from patience_gym.core import Game, IllegalActionError
from patience_gym.vector import rng as vrng

ILLEGAL_ACTION_MODES = ("penalize", "raise")
#: The action a resetting env is given: out of range, so the game leaves it untouched.
NO_OP = -1


def read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that cannot be written through (the engine keeps writing the array itself)."""
    view = array.view()
    view.flags.writeable = False
    return view


class BatchedGame(abc.ABC):
    """N games of one kind held in numpy arrays and stepped by numba kernels, no autoreset.

    Subclasses set ``env_id`` and ``encodings`` and implement the
    abstract methods; the base class validates the arguments exactly as the
    single env does (by making one with ``gym.make``) and keeps every env's deal
    RNG as a PCG64 state row in ``rng_states`` (see :mod:`patience_gym.vector.rng`):
    a kernel draws env ``i``'s next deal with ``rng.permute(rng_states, i, out)``.
    """

    #: The registered env id; the single env made from it validates the arguments.
    env_id: ClassVar[str]
    #: Observation encodings the kernels produce.
    encodings: ClassVar[tuple[str, ...]]

    def __init__(self, num_envs: int, obs_encoding: str | None = None, **rule_options: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.num_envs = int(num_envs)
        # The single env checks the options and the encoding (same errors) and gives the space.
        single: Any = gymnasium.make(self.env_id, obs_encoding=obs_encoding, **rule_options).unwrapped
        #: The single env's rules object: the reference (options, action names).
        self.game: Game[Any] = single.game
        self.options = self.game.options
        self.obs_encoding: str = single.obs_encoding
        if self.obs_encoding not in self.encodings:
            raise ValueError(
                f"obs_encoding {self.obs_encoding!r} of {self.env_id} has no batched engine; batched encodings: "
                f"{list(self.encodings)} (use gymnasium's sync vectorization for the others)"
            )
        self.num_actions: int = self.game.num_actions
        self.single_observation_space: spaces.Box = single.observation_space
        self.rng_states = vrng.seeded_states([None] * self.num_envs)
        #: ``resetting`` for a step that resets no env (engines whose ``step`` is ``step_reset``).
        self._no_reset = np.zeros(self.num_envs, dtype=np.bool_)

    def seed(self, seeds: Sequence[int | None], which: np.ndarray | None = None) -> None:
        """Env ``i``'s RNG becomes ``seeding.np_random(seeds[i])`` (None: fresh OS entropy), for ``which[i]``."""
        if len(seeds) != self.num_envs:
            raise ValueError(f"seed() needs {self.num_envs} seeds, got {len(seeds)}")
        rows = range(self.num_envs) if which is None else np.flatnonzero(which).tolist()
        for i in rows:
            self.rng_states[i] = vrng.seeded_states([seeds[i]])[0]

    @abc.abstractmethod
    def reset(self, which: np.ndarray) -> None:
        """Deal a new game in every env ``i`` with ``which[i]``, drawing as ``Game.init(rng)`` does."""

    @abc.abstractmethod
    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play int64 ``actions`` [N]: fresh (reward float64, terminated bool, illegal bool) arrays [N].

        A masked-out or out-of-range action leaves the env unchanged with reward -1.0, illegal True.
        """

    def step_reset(self, actions: np.ndarray, resetting: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``step`` for the envs not in ``resetting`` (bool [N]), ``reset`` for the others, in one call.

        A resetting env's action is ignored and it reports reward 0, not terminated, not illegal.
        Kernels may override this to do both in one pass; this default calls the two methods.
        """
        resetting = self.check_vector(resetting, "resetting", np.bool_)
        if not resetting.any():
            return self.step(actions)
        actions = self.check_vector(actions, "actions", np.int64).copy()
        actions[resetting] = NO_OP
        reward, terminated, illegal = self.step(actions)
        self.reset(resetting)
        reward[resetting] = 0.0
        terminated[resetting] = False
        illegal[resetting] = False
        return reward, terminated, illegal

    def masks(self) -> np.ndarray:
        """Legal actions, bool [N, num_actions]; all-False exactly where the game is over.

        A fresh array, the caller's to keep or change.
        """
        return self.legal().copy()

    @abc.abstractmethod
    def legal(self) -> np.ndarray:
        """The engine's own legal-action array, bool [N, num_actions] (``masks()`` without the copy).

        Read-only, valid until the next step or reset: for the engine's fronts, which copy what
        they hand out; writing into it (after setting its flags) could drive a kernel out of bounds.
        """

    @abc.abstractmethod
    def observe(self) -> np.ndarray:
        """Observations [N, *single_observation_space.shape] in the space's dtype."""

    @abc.abstractmethod
    def scores(self) -> np.ndarray:
        """float64 [N]: the single env's ``info["score"]``."""

    @abc.abstractmethod
    def won(self) -> np.ndarray:
        """bool [N]: the single env's ``info["won"]``."""

    def infos(self) -> dict[str, np.ndarray]:
        """Further per-env info keys the single env reports, as arrays with N rows."""
        return {}

    #: Whether :meth:`greedy_moves` is built into this engine (every game's is).
    has_greedy = False

    def greedy_moves(self, which: np.ndarray | None = None) -> np.ndarray:
        """int64 [N]: the greedy agent's move in every env (0 where the game is over), as the agent makes
        it when started on the env's reset or loaded state; computed in the engine's kernels. ``which``
        (bool [N]): only those envs (0 for the others)."""
        raise NotImplementedError(f"the batched engine of {self.env_id} has no greedy policy built in")

    def _greedy_rows(self, which: np.ndarray | None) -> np.ndarray:
        """``which`` checked as a bool [N] vector (all envs for None)."""
        return np.ones(self.num_envs, dtype=bool) if which is None else self.check_vector(which, "which", np.bool_)

    # --- positions as the rules write them ----------------------------------
    def get_state(self, i: int) -> dict[str, Any]:
        """Env ``i``'s position as :meth:`Game.to_dict` writes it (the single env's ``state_dict()``)."""
        return self.game.to_dict(self.rules_state(self._env_index(i)))

    def set_state(self, i: int, state: Mapping[str, Any]) -> None:
        """Env ``i`` takes the position ``state`` (a :meth:`Game.to_dict` dict), as the single env's
        ``reset(options={"state": state})`` does: read by :meth:`Game.from_dict` (its ValueError for a bad
        one); observation, mask, score and infos follow. Env ``i``'s deal RNG is untouched."""
        index = self._env_index(i)
        self.load_state(index, self.game.from_dict(state))

    @abc.abstractmethod
    def rules_state(self, i: int) -> Any:
        """Env ``i``'s position as the rules' state object (what :meth:`Game.from_dict` makes)."""

    @abc.abstractmethod
    def load_state(self, i: int, state: Any) -> None:
        """Write the rules' state object ``state`` into env ``i``'s arrays (ValueError where they cannot hold it)."""

    def _env_index(self, i: Any) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"env index must be an int, got {type(i).__name__}")
        if not 0 <= i < self.num_envs:
            raise ValueError(f"env index {i} is outside 0..{self.num_envs - 1}")
        return int(i)

    def check_vector(self, value: Any, name: str, dtype: type) -> np.ndarray:
        """``value`` as a contiguous [num_envs] array of ``dtype`` (bool or int64); a ValueError or
        TypeError naming ``name`` where its shape or dtype is wrong (the kernels do not check bounds)."""
        arr = np.asarray(value)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"{name} must have shape ({self.num_envs},), one per env, got {arr.shape}")
        if dtype is np.bool_ and arr.dtype != np.bool_:
            raise TypeError(f"{name} must be bool, got dtype {arr.dtype}")
        if dtype is not np.bool_ and (arr.dtype == np.bool_ or arr.dtype.kind not in "iu"):
            raise TypeError(f"{name} must be integers, got dtype {arr.dtype}")
        return np.ascontiguousarray(arr, dtype=dtype)


@numba.njit(cache=True)
def _track(resetting, steps, limit, reward, terminated, illegal):  # type: ignore[no-untyped-def]
    """Step counters and the step's outputs around autoreset: (truncated, done), fresh bool arrays.

    An env reset in this step (``resetting``) reports reward 0, not terminated, not
    illegal, and starts its count again; the others count one more step.
    """
    n = steps.shape[0]
    truncated = np.empty(n, dtype=np.bool_)
    done = np.empty(n, dtype=np.bool_)
    for i in range(n):
        if resetting[i]:
            steps[i] = 0
            reward[i] = 0.0
            terminated[i] = False
            illegal[i] = False
        else:
            steps[i] += 1
        truncated[i] = steps[i] >= limit
        done[i] = terminated[i] or truncated[i]
    return truncated, done


def _seed_list(seed: int | Sequence[int | None] | None, num_envs: int) -> list[int | None] | None:
    """Gymnasium's vector seeding: an int seeds env i with seed + i; a sequence gives one per env."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return [int(seed) + i for i in range(num_envs)]
    if isinstance(seed, Sequence) and not isinstance(seed, str):
        if len(seed) != num_envs:
            raise ValueError(f"reset(seed=...) needs {num_envs} seeds, one per env, got {len(seed)}")
        return list(seed)
    raise TypeError(f"seed must be an int, a sequence of {num_envs} ints or None, got {seed!r}")


class BatchedVectorEnv(VectorEnv):  # type: ignore[type-arg]
    """A ``gymnasium.vector.VectorEnv`` over a ``BatchedGame``.

    Autoreset follows gymnasium's ``NEXT_STEP`` mode by default (as ``SyncVectorEnv``):
    the step after an episode ends resets that env, ignores its action and returns
    reward 0. ``SAME_STEP`` mode (what SB3 wants) resets at once and puts the last
    observation and info in ``infos["final_obs"]`` and ``infos["final_info"]``.
    Truncation counts each env's steps since its reset against ``max_episode_steps``
    (the registered limit by default), as gymnasium's ``TimeLimit`` does.

    ``infos`` always carry ``action_mask`` (int8 [N, A]), ``score``, ``won`` and
    ``illegal_action`` plus the game's further keys, each with its ``_key`` mask.
    ``action_masks()`` gives the bool masks (sb3-contrib's name). In next-step mode the
    mask row of an env whose game has ended (awaiting its reset) is all True: any action,
    it is ignored (as pgx does), so a masked sampler never sees an all-False row.

    Every array handed out (observations, rewards, terminations, truncations, masks and
    every info entry) is fresh: writing into it never changes the engine.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        game: BatchedGame,
        *,
        max_episode_steps: int | None = None,
        illegal_action: str = "penalize",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
    ) -> None:
        from patience_gym import ENVS

        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"unknown illegal_action {illegal_action!r}; choose one of {list(ILLEGAL_ACTION_MODES)}")
        mode = _autoreset_mode(autoreset_mode)
        if render_mode is not None:
            raise ValueError(
                f"render_mode {render_mode!r}: batched envs do not render (render_mode must be None); "
                "for pictures use gym.make, or gym.make_vec(..., vectorization_mode='sync')"
            )
        limit = ENVS[game.env_id][1] if max_episode_steps is None else max_episode_steps
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1:
            raise ValueError(f"max_episode_steps must be a positive integer, got {limit!r}")
        self.game = game
        self.num_envs = game.num_envs
        self.max_episode_steps = int(limit)
        self.illegal_action = illegal_action
        self.autoreset_mode = mode
        self.render_mode = None
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.single_observation_space = game.single_observation_space
        self.single_action_space = spaces.Discrete(game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        #: Envs whose game ended in the last step and that the next step resets (next-step mode).
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._all = np.ones(self.num_envs, dtype=bool)
        self._none = np.zeros(self.num_envs, dtype=bool)
        self._started = False

    # --- gymnasium API ---------------------------------------------------
    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"reset options must be a dict (or None), got {type(options).__name__}: {options!r}")
        options = dict(options or {})
        which = self._all
        if "reset_mask" in options:
            which = np.array(options.pop("reset_mask"))  # a copy: the caller's array stays theirs
            if which.dtype != np.bool_ or which.shape != (self.num_envs,):
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
        if options:
            raise ValueError(f"unknown reset option(s) {sorted(options)}; batched envs know only 'reset_mask'")
        seeds = _seed_list(seed, self.num_envs)
        if seeds is not None:
            given = np.array([s is not None for s in seeds]) & which
            self.game.seed([0 if s is None else s for s in seeds], which=given)
        self.game.reset(which)
        self._steps[which] = 0
        self._autoreset[which] = False
        self._started = True
        return self.game.observe(), self._infos(np.zeros(self.num_envs, dtype=bool), which)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        resetting = self._autoreset if self.autoreset_mode is AutoresetMode.NEXT_STEP else self._none
        if self.illegal_action == "raise":
            self._raise_illegal(actions, resetting)
        reward, terminated, illegal = self.game.step_reset(actions, resetting)  # checks the actions' shape and dtype
        truncated, done = _track(resetting, self._steps, self.max_episode_steps, reward, terminated, illegal)
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:
            self._autoreset = done
            return self.game.observe(), reward, terminated, truncated, self._infos(illegal, self._all)
        if not done.any():
            return self.game.observe(), reward, terminated, truncated, self._infos(illegal, self._all)
        final_obs, final_info = self.game.observe(), self._infos(illegal, done)
        self.game.reset(done)
        self._steps[done] = 0
        infos = self._infos(np.where(done, False, illegal), self._all)
        infos.update({"final_obs": final_obs, "_final_obs": done.copy(), "final_info": final_info})
        infos["_final_info"] = done.copy()
        return self.game.observe(), reward, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """Legal actions, bool [N, A], a fresh array.

        The row of an env whose game ended in the last step and that the next step resets
        (next-step autoreset) is all True: any action, it is ignored. No row is ever all-False.
        """
        masks = self.game.masks()
        masks[self._autoreset] = True
        return masks

    # --- internals ---------------------------------------------------------
    def _infos(self, illegal: np.ndarray, present: np.ndarray) -> dict[str, Any]:
        """The info dict: fresh arrays only (a caller writing into one never reaches the engine)."""
        action_mask = self.game.legal().astype(np.int8)
        action_mask[self._autoreset] = 1  # awaiting its reset: any action (see ``action_masks``)
        values = {
            "action_mask": action_mask,
            "score": self.game.scores(),
            "won": self.game.won(),
            "illegal_action": illegal,  # fresh: the kernel's own output of this step, or a new array
            **self.game.infos(),
        }
        present = present.copy()  # one copy shared by the ``_key`` flags: the engine keeps none of them
        infos: dict[str, Any] = {}
        for key, value in values.items():
            infos[key] = value
            infos["_" + key] = present
        return infos

    def _raise_illegal(self, actions: Any, resetting: np.ndarray) -> None:
        """IllegalActionError naming the first env whose action is not legal there (resetting envs aside)."""
        given = np.asarray(actions)
        actions = self.game.check_vector(actions, "actions", np.int64)
        masks = self.game.legal()
        in_range = (given >= 0) & (given < self.game.num_actions)
        legal = np.zeros(self.num_envs, dtype=bool)
        rows = np.flatnonzero(in_range)
        legal[rows] = masks[rows, actions[rows]]
        bad = np.flatnonzero(~legal & ~resetting)
        if bad.size == 0:
            return
        i = int(bad[0])
        a = int(given[i])
        shown = self.game.game.describe_action(a) if in_range[i] else "out of range"
        moves = ", ".join(f"{m} ({self.game.game.describe_action(int(m))})" for m in np.flatnonzero(masks[i]))
        raise IllegalActionError(
            f"illegal action {a} ({shown}) in env {i} of {self.game.env_id}; legal there: {moves or 'none'}"
        )


def _autoreset_mode(value: AutoresetMode | str) -> AutoresetMode:
    """``value`` as one of the two autoreset modes batched envs play; ValueError naming the accepted values."""
    accepted = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
    try:
        mode = AutoresetMode(value)
    except ValueError:
        mode = None
    if mode not in accepted:
        names = " or ".join(f"AutoresetMode.{m.name} ({m.value!r})" for m in accepted)
        raise ValueError(f"autoreset_mode {value!r} is not supported by batched envs; use {names}")
    return mode


class MaskedSyncVectorEnv(gymnasium.vector.SyncVectorEnv):
    """gymnasium's ``SyncVectorEnv`` with ``action_masks()`` and the batched envs' mask rule.

    In next-step mode, the mask row of an env awaiting its reset is all True (any action,
    it is ignored), in ``action_masks()`` and ``infos["action_mask"]`` alike.
    """

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, reward, terminated, truncated, infos = super().step(actions)
        if "action_mask" in infos:
            infos["action_mask"][self._awaiting_reset()] = 1
        return obs, reward, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """Legal actions, bool [N, A], a fresh array; all True in a row awaiting its reset."""
        masks = np.stack([env.unwrapped.action_masks() for env in self.envs])  # type: ignore[attr-defined]
        masks[self._awaiting_reset()] = True
        return masks

    def _awaiting_reset(self) -> np.ndarray:
        if self.autoreset_mode is AutoresetMode.NEXT_STEP:
            return np.asarray(self._autoreset_envs, dtype=bool)
        return np.zeros(self.num_envs, dtype=bool)


def make_vector_env(
    game_cls: type[BatchedGame],
    num_envs: int = 1,
    *,
    obs_encoding: str | None = None,
    max_episode_steps: int | None = None,
    illegal_action: str = "penalize",
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    render_mode: str | None = None,
    **rule_options: Any,
) -> VectorEnv:  # type: ignore[type-arg]
    """The ``vector_entry_point`` of a registered env: batched where its encoding has kernels.

    An encoding without kernels (e.g. a ``features`` encoding) falls back, with a
    warning, to gymnasium's ``SyncVectorEnv`` over ``gym.make`` (the same games).
    """
    encoding = obs_encoding
    if encoding is not None and encoding not in game_cls.encodings:
        gymnasium.make(game_cls.env_id, obs_encoding=encoding, **rule_options)  # the single env's errors
        warnings.warn(
            f"{game_cls.env_id}: obs_encoding {encoding!r} has no batched engine; using SyncVectorEnv",
            stacklevel=2,
        )
        make_one = partial(
            gymnasium.make,
            game_cls.env_id,
            max_episode_steps=max_episode_steps,
            obs_encoding=encoding,
            illegal_action=illegal_action,
            render_mode=render_mode,
            **rule_options,
        )
        return MaskedSyncVectorEnv([make_one] * num_envs, autoreset_mode=_autoreset_mode(autoreset_mode))
    game = game_cls(num_envs, obs_encoding=encoding, **rule_options)
    return BatchedVectorEnv(
        game,
        max_episode_steps=max_episode_steps,
        illegal_action=illegal_action,
        autoreset_mode=autoreset_mode,
        render_mode=render_mode,
    )
