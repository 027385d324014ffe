"""Batched Miss Milligan, Giant and Miss Milligan (pocket version): N games stepped by numba kernels.

One class per env id, all over the kernels of :mod:`patience_gym.vector.milligan_kernels`; the
variant and its rule options (``waive_sequences``, ``worry_back_anytime``) become kernel
parameters. Game ``i`` plays bit for bit what ``gym.make(env_id, obs_encoding=..., **options)``
plays after ``reset(seed=seeds[i])`` and then ``reset()`` after each game: the same deals, masks
(the progress rule's idle limit and repeated-position masking included), rewards, observations,
scores and infos.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from patience_gym.features.rules.milligan import RESERVE_KINDS, SLOTS
from patience_gym.games.milligan import IDLE_LIMIT, OBS_SIZE, MilliganGame, MilliganState
from patience_gym.games.milligan_tables import MAX_COLUMN, MAX_RUN, MAX_STOCK, NUM_ACTIONS, NUM_COLUMNS, TOTAL_CARDS
from patience_gym.vector import milligan_kernels as K
from patience_gym.vector.base import BatchedGame, read_only

_DOWN = {"never": 0, "stock_out": 1, "anytime": 2}
_RESERVE = {"": 0, "waiver": 1, "pocket": 2}


class BatchedMilligan(BatchedGame):
    """N games of one Miss Milligan variant in numpy arrays, stepped by numba kernels; no autoreset.

    ``infos()`` gives ``stock_left`` and ``idle_moves_left`` (int64 [N]), as the single env reports them.
    """

    encodings = ("ids", "planes", "rules_moves")

    def __init__(self, num_envs: int, obs_encoding: str | None = None, **rule_options: Any) -> None:
        super().__init__(num_envs, obs_encoding, **rule_options)
        game = self.game
        assert isinstance(game, MilliganGame)
        n = self.num_envs
        self._params = (int(game.vacancy_any), _RESERVE[game.reserve_kind], game.max_reserve, _DOWN[game.down])
        self._tables = (K.ZC, K.ZF, K.ZO)
        self._reserve_kind = RESERVE_KINDS[game.reserve_kind]
        self._rules_scratch = K.rules_scratch()
        self._cols = np.zeros((n, NUM_COLUMNS, MAX_COLUMN), dtype=np.int8)
        self._clen = np.zeros((n, NUM_COLUMNS), dtype=np.int8)
        self._runs = np.zeros((n, NUM_COLUMNS), dtype=np.int8)
        self._tops = np.full((n, NUM_COLUMNS), -1, dtype=np.int8)
        self._found = np.zeros((n, NUM_COLUMNS), dtype=np.int8)
        self._stock = np.zeros((n, MAX_STOCK), dtype=np.int8)
        self._res = np.zeros((n, MAX_RUN), dtype=np.int8)
        self._sc = np.zeros((n, K.NUM_SCALARS), dtype=np.int64)
        self._hash = np.zeros(n, dtype=np.uint64)
        #: The "ids" observation, kept up to date by the kernels (as the single env keeps its own).
        self._ids = np.zeros((n, OBS_SIZE), dtype=np.int8)
        self._seen = np.zeros((n, K.SEEN_CAP + 1), dtype=np.uint64)
        self._masks = np.zeros((n, NUM_ACTIONS), dtype=bool)
        self._masks_view = read_only(self._masks)
        self._acts = np.zeros((n, NUM_ACTIONS), dtype=np.int16)
        #: The kernels' common arguments: the state, the masks, the fingerprint keys, the variant.
        self._args: tuple[Any, ...] = (*self._state(), self._masks, self._acts, *self._tables, *self._params)
        self._no_op = np.full(n, -1, dtype=np.int64)  # the action a game being reset is given
        self._deck = np.empty(K.TOTAL_CARDS, dtype=np.int64)  # the kernel's scratch space for a deal
        #: The greedy's resignation mark per game (best, stock left; -1: none), and its search's rows.
        self._greedy_marks = np.full((n, 2), -1, dtype=np.int64)
        self._greedy_scratch: tuple[np.ndarray, ...] | None = None

    def reset(self, which: np.ndarray) -> None:
        self._advance(self._no_op, self.check_vector(which, "which", np.bool_))

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.step_reset(actions, self._no_reset)

    def step_reset(self, actions: np.ndarray, resetting: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Reset the games in ``resetting`` and step the others, in one kernel call."""
        actions = self.check_vector(actions, "actions", np.int64)
        return self._advance(actions, self.check_vector(resetting, "resetting", np.bool_))

    def _advance(self, actions: np.ndarray, resetting: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = self.num_envs
        reward = np.empty(n, dtype=np.float64)
        terminated = np.empty(n, dtype=bool)
        illegal = np.empty(n, dtype=bool)
        K.step_kernel(actions, resetting, self.rng_states, self._deck, reward, terminated, illegal, *self._args)
        self._greedy_marks[resetting] = -1
        return reward, terminated, illegal

    def legal(self) -> np.ndarray:
        """The engine's legal actions, bool ``[N, 1010]`` (a read-only view of the kernels' array)."""
        return self._masks_view

    def observe(self) -> np.ndarray:
        if self.obs_encoding == "ids":
            return self._ids.copy()
        out = np.empty((self.num_envs, *self.single_observation_space.shape), dtype=np.float32)
        if self.obs_encoding == "rules_moves":
            state = (self._cols, self._clen, self._runs, self._tops, self._found, self._res, self._sc)
            moves = (self._hash, self._seen, self._masks, self._acts)
            rules = (self._reserve_kind, SLOTS, self._rules_scratch)
            K.observe_rules(*state, *moves, *self._tables, *self._params, *rules, out)
        else:
            K.observe_planes(self._cols, self._clen, self._runs, self._found, self._res, self._sc, out)
        return out

    has_greedy = True

    def greedy_moves(self, which: np.ndarray | None = None) -> np.ndarray:
        """The greedy agent's move in every game, as the agent plays it from the game's reset or loaded
        state on: its one memory, rule 5's resignation mark (:mod:`patience_gym.heuristics.milligan_greedy`),
        is kept per game here and forgotten when a game is reset or loaded."""
        from patience_gym.vector.milligan_greedy import greedy_kernel, scratch_rows

        rows = self._greedy_rows(which)
        state = (*self._state(), self._masks, self._acts)
        if self._greedy_scratch is None:
            self._greedy_scratch = scratch_rows(state)
        out = np.zeros(self.num_envs, dtype=np.int64)
        greedy_kernel(rows, state, self._greedy_scratch, self._greedy_marks, *self._tables, self._params, out)
        return out

    def scores(self) -> np.ndarray:
        """Cards on the foundations (``info["score"]``), float64 ``[N]``."""
        return self._sc[:, K.TOTAL].astype(np.float64)

    def won(self) -> np.ndarray:
        """All 104 cards on the foundations (``info["won"]``), bool ``[N]``."""
        return self._sc[:, K.TOTAL] == TOTAL_CARDS

    def infos(self) -> dict[str, np.ndarray]:
        return {"stock_left": MAX_STOCK - self._sc[:, K.POS], "idle_moves_left": IDLE_LIMIT - self._sc[:, K.IDLE]}

    def rules_state(self, i: int) -> MilliganState:
        sc = self._sc[i].tolist()
        game = self.game
        assert isinstance(game, MilliganGame)
        columns = [self._cols[i, j, : self._clen[i, j]].tolist() for j in range(NUM_COLUMNS)]
        seen = set(self._seen[i, : sc[K.NSEEN]].tolist())
        return game._make(
            columns,
            self._found[i].tolist(),
            tuple(self._stock[i, sc[K.POS] :].tolist()),
            self._res[i, : sc[K.NRES]].tolist(),
            sc[K.ORIGIN],
            sc[K.BEST],
            sc[K.IDLE],
            seen,
        )

    def load_state(self, i: int, state: MilliganState) -> None:
        """Env ``i`` takes ``state``, its progress rule's memory included: the fingerprints ``seen`` since
        the last progress event (``Game.from_dict`` adds the current one), in a filter as the kernels keep it."""
        self.game.check_state(state)
        if len(state.seen) > K.SEEN_CAP:
            raise ValueError(f"a state remembers at most {K.SEEN_CAP} positions, got {len(state.seen)} in env {i}'s")
        left = state.stock[state.pos :]
        self._cols[i] = 0
        for j, col in enumerate(state.columns):
            self._cols[i, j, : len(col)] = col
        self._clen[i] = [len(col) for col in state.columns]
        self._runs[i] = state.runs
        self._tops[i] = [col[-1] if col else -1 for col in state.columns]
        self._found[i] = state.found
        pos = MAX_STOCK - len(left)
        self._stock[i] = 0
        self._stock[i, pos:] = left
        self._res[i] = 0
        self._res[i, : len(state.reserve)] = state.reserve
        self._hash[i] = state.hash
        seen = sorted(state.seen)
        self._seen[i] = 0
        self._seen[i, : len(seen)] = seen
        self._seen[i, K.FILTER] = sum({1 << (h >> 58) for h in seen})
        self._ids[i] = state.obs
        mask = np.zeros(NUM_ACTIONS, dtype=bool) if self.game.is_over(state) else self.game.legal_mask(state)
        acts = np.flatnonzero(mask)
        self._masks[i] = mask
        self._acts[i, : len(acts)] = acts
        sc = self._sc[i]
        sc[K.POS], sc[K.NRES], sc[K.ORIGIN], sc[K.BEST] = pos, len(state.reserve), state.origin, state.best
        sc[K.IDLE], sc[K.TOTAL], sc[K.NSEEN], sc[K.NLEGAL] = state.idle, state.total, len(seen), len(acts)
        self._greedy_marks[i] = -1

    def _state(self) -> tuple[np.ndarray, ...]:
        """The state arrays in the kernels' argument order (the mask apart)."""
        return (
            self._cols,
            self._clen,
            self._runs,
            self._tops,
            self._found,
            self._stock,
            self._res,
            self._sc,
            self._hash,
            self._seen,
            self._ids,
        )


class BatchedMissMilligan(BatchedMilligan):
    """Miss Milligan (rule option ``waive_sequences``)."""

    env_id = "patience_gym/MissMilligan-v0"


class BatchedGiant(BatchedMilligan):
    """Giant (rule option ``worry_back_anytime``)."""

    env_id = "patience_gym/Giant-v0"


class BatchedMissMilliganPocket(BatchedMilligan):
    """Miss Milligan, pocket version (no rule options)."""

    env_id = "patience_gym/MissMilliganPocket-v0"
