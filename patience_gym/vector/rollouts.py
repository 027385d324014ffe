"""Determinized rollouts in the batched engine: many worlds of one position, played out in one call.

A planner that weighs a move in a game with face-down cards plays it out in many *worlds*:
full states that agree with everything the player sees, their hidden cards arranged at random
(:meth:`patience_gym.core.Game.determinize`). :class:`WorldRollouts` loads up to ``slots`` such
states into the slots of one batched engine (:mod:`patience_gym.vector`) and plays every world
to its end with a policy: uniformly random among the legal moves, the greedy baseline's rule
computed in the engine's kernel (``BatchedGame.greedy_moves``: every game's), or a callable
that picks the moves of all worlds step by step. Each world plays bit for bit as the single env
(``gym.make(env_id)`` reset with ``options={"state": game.to_dict(world)}``) would play the same
moves. The engine is made once and reused, so its kernels compile once and its arrays are kept::

    import numpy as np
    from patience_gym.vector.rollouts import WorldRollouts

    rollouts = WorldRollouts("patience_gym/Golf-v0", slots=256)
    game = rollouts.game
    state = game.init(np.random.default_rng(0))
    for action in game.legal_actions(state):
        after = state.copy()
        reward = game.apply(after, action)
        result = rollouts.run_determinized(after, 256, np.random.default_rng(1))
        print(game.describe_action(action), reward + result.returns.mean())

This module imports no numba itself: the engine's kernel modules do, on first use.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from patience_gym.core import ForeignStateError, Game, IllegalActionError
from patience_gym.vector import batched_game_class

if TYPE_CHECKING:
    from patience_gym.vector.base import BatchedGame

#: A policy's signature: ``policy(masks, observations, live) -> actions``, for the ``k`` worlds of a run:
#: ``masks`` bool [k, num_actions] (all-False in a world that has ended), ``observations`` [k, *obs shape]
#: in the rollout's encoding, ``live`` bool [k] (the worlds still playing); ``actions`` integers [k] (the
#: entries of worlds not live are ignored). Every array it is given is fresh: it may keep or change them.
Policy = Callable[[np.ndarray, np.ndarray, np.ndarray], Any]

#: The policy names :meth:`WorldRollouts.run` knows.
POLICIES = ("random", "greedy")
#: How many legal moves an illegal-action error lists.
_SHOWN_MOVES = 12


@dataclasses.dataclass(frozen=True, eq=False)
class RolloutResult:
    """The outcome of one :meth:`WorldRollouts.run`, one entry per world (in the order of the states given).

    Every array is the caller's own: writing into one changes neither the engine nor another result.
    """

    #: float64 [k]: each world's final score (the single env's ``info["score"]``).
    scores: np.ndarray
    #: bool [k]: each world ended won (``info["won"]``).
    won: np.ndarray
    #: float64 [k]: the sum of each world's rewards, in the order they came.
    returns: np.ndarray
    #: int64 [k]: the moves each world made.
    steps: np.ndarray
    #: bool [k]: the world was still live when ``max_steps`` stopped it (False where its game ended).
    truncated: np.ndarray
    #: int16 [k, T] (``record=True``): each world's moves in order, padded with -1 after its last;
    #: ``T`` is the most moves any world made. None without ``record``.
    actions: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.scores)


def determinized(game: Game[Any], state: Any, k: int, rng: np.random.Generator) -> list[Any]:
    """``k`` worlds of ``state``: ``k`` calls of ``game.determinize(state, rng)``, in order.

    Each world shows the player what ``state`` shows, its face-down cards a fresh uniformly random
    arrangement of the unseen cards; ``state`` is left unchanged. ValueError where ``k`` is not a
    positive integer::

        worlds = determinized(game, state, 64, np.random.default_rng(0))
    """
    _check_count(k, "k")
    return [game.determinize(state, rng) for _ in range(int(k))]


class WorldRollouts:
    """Up to ``slots`` worlds of one game, played out in one batched engine that is made once and reused.

    ``env_id`` is a registered env with a batched engine (``patience_gym.vector.BATCHED_GAMES``);
    ``obs_encoding`` (one the engine supports; None: the env's default) is what a callable policy
    observes; ``rule_options`` are the env's rule options (``wrap_ranks=True``, ...), checked as
    ``gym.make`` checks them. States are the rules' own objects (``game.init``, ``game.from_dict``,
    ``game.determinize``) of :attr:`game`::

        rollouts = WorldRollouts("patience_gym/PussInTheCorner-v0", slots=128, forced_foundation=False)
        worlds = determinized(rollouts.game, state, 128, np.random.default_rng(0))
        result = rollouts.run(worlds, seed=1)
        result.scores.mean(), result.won.mean()
    """

    def __init__(self, env_id: str, slots: int, *, obs_encoding: str | None = None, **rule_options: Any) -> None:
        from patience_gym import ENVS

        _check_count(slots, "slots")
        cls = batched_game_class(env_id)  # ValueError for an env without a batched engine
        self.env_id = env_id
        self.slots = int(slots)
        #: The batched engine the worlds play in (its slots beyond a run's worlds stay idle).
        self.engine: BatchedGame = cls(self.slots, obs_encoding=obs_encoding, **rule_options)
        #: The rules object (options included) whose states :meth:`run` takes.
        self.game: Game[Any] = self.engine.game
        self.obs_encoding: str = self.engine.obs_encoding
        #: The default ``max_steps``: the registered env's step limit.
        self.max_steps: int = int(ENVS[env_id][1])
        # Every slot holds a dealt game from the start: an idle slot is a valid one (given action -1).
        self.engine.seed(list(range(self.slots)))
        self.engine.reset(np.ones(self.slots, dtype=bool))
        #: The class of the rules' states, for refusing a state of another game.
        self.state_type: type = type(self.engine.rules_state(0))
        num_actions = self.engine.num_actions
        self._action_dtype = np.int16 if num_actions <= np.iinfo(np.int16).max else np.int64

    def __repr__(self) -> str:
        return f"WorldRollouts({self.env_id!r}, slots={self.slots}, obs_encoding={self.obs_encoding!r})"

    # --- the runs --------------------------------------------------------------------------------
    def run(
        self,
        states: Sequence[Any],
        policy: str | Policy = "random",
        *,
        seed: int | np.random.Generator | None = None,
        max_steps: int | None = None,
        record: bool = False,
    ) -> RolloutResult:
        """Load ``states`` (``k <= slots`` rules states of :attr:`game`) into slots ``0..k-1`` and play each
        to its end, or until it has made ``max_steps`` moves (default: the registered env's step limit,
        counted from the given position); a result with one entry per state, in order.

        ``policy`` is ``"random"`` (each live world plays a uniformly random legal move, drawn from
        ``np.random.default_rng(seed)``: the same seed and states give the same result), ``"greedy"``
        (each world plays the move the greedy agent, started on that world, would make: computed in the
        engine's kernel, ``BatchedGame.greedy_moves``) or a callable
        ``policy(masks, observations, live) -> actions`` (see :data:`Policy`; ``seed`` is not used),
        called once a step for all worlds. A move that is not legal in a live world raises
        :class:`~patience_gym.core.IllegalActionError` naming the world and the move; actions of the
        wrong shape or dtype a ValueError. ``record=True`` keeps every world's moves (``actions``).
        A state that has already ended makes no move. The arguments are checked before any state is
        loaded (ValueError or TypeError naming the problem)::

            result = rollouts.run(worlds, seed=0, record=True)
            lowest = rollouts.run(worlds, lambda masks, obs, live: masks.argmax(axis=1))
        """
        k = self._check_states(states)
        limit = self.max_steps if max_steps is None else _check_count(max_steps, "max_steps")
        pick: Callable[[np.ndarray], np.ndarray]
        if isinstance(policy, str):
            if policy not in POLICIES:
                raise ValueError(
                    f"unknown policy {policy!r}; give one of {list(POLICIES)} or a callable "
                    "policy(masks, observations, live) -> actions"
                )
            if policy == "greedy":
                if not self.engine.has_greedy:
                    raise ValueError(
                        f"policy 'greedy' is not built into {self.env_id}'s batched engine; give 'random' or a "
                        "callable policy(masks, observations, live) -> actions"
                    )
                pick = self._greedy_moves
            else:
                pick = partial(self._random_moves, np.random.default_rng(seed))
        elif callable(policy):
            pick = partial(self._policy_moves, policy)
        else:
            raise TypeError(f"policy must be one of {list(POLICIES)} or a callable, got {type(policy).__name__}")

        engine = self.engine
        for j, state in enumerate(states):
            engine.load_state(j, state)
        returns = np.zeros(k, dtype=np.float64)
        steps = np.zeros(k, dtype=np.int64)
        # A mask row is all-False exactly where the game has ended.
        live: np.ndarray = np.array(engine.legal()[:k].any(axis=1), dtype=bool)
        actions = np.full(self.slots, -1, dtype=np.int64)  # -1: the idle slots, and worlds that have ended
        recorded: list[np.ndarray] = []
        while True:
            active = live & (steps < limit)
            if not active.any():
                break
            actions[:k] = np.where(active, pick(active), -1)
            reward, terminated, _ = engine.step(actions)
            returns[active] += reward[:k][active]
            steps[active] += 1
            live &= ~terminated[:k]
            if record:
                recorded.append(actions[:k].astype(self._action_dtype))
        moves = None
        if record:
            moves = np.stack(recorded, axis=1) if recorded else np.empty((k, 0), dtype=self._action_dtype)
        return RolloutResult(
            scores=np.array(engine.scores()[:k], dtype=np.float64),
            won=np.array(engine.won()[:k], dtype=bool),
            returns=returns,
            steps=steps,
            truncated=live,
            actions=moves,
        )

    def run_determinized(
        self,
        state: Any,
        k: int,
        rng: np.random.Generator | int | None,
        policy: str | Policy = "random",
        *,
        max_steps: int | None = None,
        record: bool = False,
    ) -> RolloutResult:
        """Play ``k`` determinizations of ``state`` (:func:`determinized`) with ``policy``: the worlds and the
        random policy's moves are drawn from one generator, ``np.random.default_rng(rng)``.
        ``k`` must be 1..``slots``; see :meth:`run` for the rest::

            result = rollouts.run_determinized(state, 200, np.random.default_rng(0))
            value = result.returns.mean()
        """
        _check_count(k, "k")
        if k > self.slots:
            raise ValueError(f"k={k} worlds, but this WorldRollouts has {self.slots} slots")
        self._check_state(state, "state")
        generator = np.random.default_rng(rng)
        worlds = determinized(self.game, state, k, generator)
        return self.run(worlds, policy, seed=generator, max_steps=max_steps, record=record)

    # --- internals ---------------------------------------------------------------------------------
    def _random_moves(self, rng: np.random.Generator, active: np.ndarray) -> np.ndarray:
        """A uniformly random legal move for each active world (0 for the others), vectorised."""
        k = len(active)
        rows = np.flatnonzero(active)
        masks = self.engine.legal()[:k]
        if len(rows) < k:
            masks = masks[rows]  # the rows in play (a copy: the engine's array is read-only)
        width = masks.shape[1]
        legal = np.flatnonzero(masks)  # row by row, in action order
        counts = np.bincount(legal // width, minlength=len(rows))
        draw = rng.integers(counts)  # the draw-th legal move of each row, counted from 0
        chosen = np.zeros(k, dtype=np.int64)
        chosen[rows] = legal[np.cumsum(counts) - counts + draw] % width
        return chosen

    def _greedy_moves(self, active: np.ndarray) -> np.ndarray:
        """The engine's greedy move for each active world (0 for the others; idle slots are not searched)."""
        which = np.zeros(self.slots, dtype=bool)
        which[: len(active)] = active
        return self.engine.greedy_moves(which)[: len(active)]

    def _policy_moves(self, policy: Policy, active: np.ndarray) -> np.ndarray:
        """The callable ``policy``'s moves, checked: shape and dtype (ValueError), legal where active."""
        k = len(active)
        masks = self.engine.masks()[:k].copy()
        observations = self.engine.observe()[:k].copy()
        given = np.asarray(policy(masks, observations, active.copy()))
        if given.shape != (k,):
            raise ValueError(f"the policy must return one action per world, shape ({k},); got shape {given.shape}")
        if given.dtype == np.bool_ or given.dtype.kind not in "iu":
            raise ValueError(f"the policy must return integer actions; got dtype {given.dtype}")
        num_actions = self.engine.num_actions
        in_range = (given >= 0) & (given < num_actions)
        chosen = np.where(in_range, given, 0).astype(np.int64)
        legal = self.engine.legal()[:k]
        ok = in_range & legal[np.arange(k), chosen]
        bad = np.flatnonzero(active & ~ok)
        if bad.size:
            i = int(bad[0])
            a = int(given[i])
            shown = self.game.describe_action(a) if in_range[i] else f"outside 0..{num_actions - 1}"
            moves = [f"{m} ({self.game.describe_action(int(m))})" for m in np.flatnonzero(legal[i])]
            listed = ", ".join(moves[:_SHOWN_MOVES]) + (", ..." if len(moves) > _SHOWN_MOVES else "")
            raise IllegalActionError(
                f"the policy chose illegal action {a} ({shown}) in world {i} of {self.env_id}; legal there: {listed}"
            )
        return chosen

    def _check_states(self, states: Sequence[Any]) -> int:
        """How many states ``states`` holds; ValueError or TypeError naming what is wrong with them."""
        if isinstance(states, (str, bytes)) or not isinstance(states, Sequence):
            raise TypeError(
                f"states must be a sequence (list or tuple) of {self.state_type.__name__}s, got {type(states).__name__}"
            )
        if not states:
            raise ValueError("states is empty: give at least one state to play out")
        if len(states) > self.slots:
            raise ValueError(f"{len(states)} states, but this WorldRollouts has {self.slots} slots")
        for j, state in enumerate(states):
            self._check_state(state, f"states[{j}]")
        return len(states)

    def _check_state(self, state: Any, what: str) -> None:
        if not isinstance(state, self.state_type):
            raise TypeError(
                f"{what} is a {type(state).__name__}, not a {self.state_type.__name__} of {self.env_id} "
                f"(give the rules' states of this game: game.init, game.from_dict, game.determinize)"
            )
        try:
            self.game.check_state(state)
        except ForeignStateError as exc:
            raise ForeignStateError(f"{what} of {self.env_id}: {exc}") from None


def _check_count(value: Any, name: str) -> int:
    """``value`` as a positive int; ValueError naming ``name`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)
