"""Invariants of the Miss Milligan family over random playouts, checked against a reference.

The reference below is a slow, independent statement of the rules (RULES.md)
and of the progress rule: it enumerates every action of the flat layout with
plain lists and tuples (no caches, packing tables or fingerprints), so the
fast rules module is compared with it move by move: the legal set, the
position each move leads to, the rewards and the progress bookkeeping.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np
import pytest

import patience_gym
from patience_gym.cards import RANK, RED, SUIT
from patience_gym.core import IllegalActionError
from patience_gym.games.milligan import (
    IDLE_LIMIT,
    MAX_EPISODE_MOVES,
    Giant,
    MilliganGame,
    MilliganState,
    MissMilligan,
    MissMilliganPocket,
    foot_run,
)
from patience_gym.games.milligan_tables import CC, CF, CR, DEAL, FC, MAX_RUN, NUM_COLUMNS, RC, RF

Key = tuple


def fits(lower: int, upper: int) -> bool:
    return RANK[lower] == RANK[upper] - 1 and RED[lower] != RED[upper]


def is_run(cards: list[int]) -> bool:
    return all(fits(cards[t + 1], cards[t]) for t in range(len(cards) - 1))


@dataclass
class RefPosition:
    cols: list[list[int]]
    found: list[int]
    stock: list[int]
    reserve: list[int]
    origin: int

    def copy(self) -> RefPosition:
        return RefPosition([c[:] for c in self.cols], self.found[:], self.stock[:], self.reserve[:], self.origin)

    def key(self) -> Key:
        return (tuple(map(tuple, self.cols)), tuple(self.found), tuple(self.reserve), self.origin)


@dataclass
class Reference:
    """Reference game: the position plus the progress-rule bookkeeping."""

    game: MilliganGame
    pos: RefPosition
    best: int = 0
    idle: int = 0
    seen: set[Key] = field(default_factory=set)

    @classmethod
    def of(cls, game: MilliganGame, state: MilliganState, seen_keys: set[Key] | None = None) -> Reference:
        pos = RefPosition(
            [c[:] for c in state.columns],
            state.found[:],
            list(state.stock[state.pos :]),
            state.reserve[:],
            state.origin,
        )
        return cls(game, pos, state.best, state.idle, seen_keys if seen_keys is not None else {pos.key()})

    # --- rules only --------------------------------------------------------
    def _accepts(self, column: list[int], head: int) -> bool:
        if column:
            return fits(head, column[-1])
        return self.game.vacancy_any or RANK[head] == 13

    @staticmethod
    def _to_foundation(p: RefPosition, card: int) -> bool:
        s = 2 * SUIT[card]
        r = RANK[card] - 1
        if p.found[s] == r:
            p.found[s] += 1
        elif p.found[s + 1] == r:
            p.found[s + 1] += 1
        else:
            return False
        return True

    def rule_moves(self) -> dict[int, RefPosition]:
        """Every move the rules allow (progress rule not applied): action -> next position."""
        g = self.game
        p = self.pos
        if sum(p.found) == 104:
            return {}
        out: dict[int, RefPosition] = {}
        for i in range(NUM_COLUMNS):
            for j in range(NUM_COLUMNS):
                if i == j:
                    continue
                for k in range(1, MAX_RUN + 1):
                    src = p.cols[i]
                    if k > len(src) or not is_run(src[-k:]) or not self._accepts(p.cols[j], src[-k]):
                        continue
                    q = p.copy()
                    q.cols[j] += q.cols[i][-k:]
                    del q.cols[i][-k:]
                    out[CC + (i * 7 + (j if j < i else j - 1)) * MAX_RUN + k - 1] = q
        for i in range(NUM_COLUMNS):
            if p.cols[i]:
                q = p.copy()
                if self._to_foundation(q, q.cols[i].pop()):
                    out[CF + i] = q
        if p.stock:
            q = p.copy()
            for j in range(NUM_COLUMNS):
                q.cols[j].append(q.stock.pop(0))
            out[DEAL] = q
        kind = g.reserve_kind
        if kind and p.reserve:
            q = p.copy()
            if self._to_foundation(q, q.reserve.pop()):
                if not q.reserve:
                    q.origin = -1
                out[RF] = q
            for j in range(NUM_COLUMNS):
                for k in range(1, len(p.reserve) + 1):
                    head = p.reserve[-k]
                    restore = kind == "waiver" and j == p.origin and k == len(p.reserve)
                    if restore or self._accepts(p.cols[j], head):
                        q = p.copy()
                        q.cols[j] += q.reserve[-k:]
                        del q.reserve[-k:]
                        if not q.reserve:
                            q.origin = -1
                        out[RC + j * MAX_RUN + k - 1] = q
        elif kind == "pocket" or (kind == "waiver" and not p.stock):
            most = 1 if kind == "pocket" or not getattr(g.options, "waive_sequences", False) else MAX_RUN
            for i in range(NUM_COLUMNS):
                for k in range(1, most + 1):
                    src = p.cols[i]
                    if k <= len(src) and is_run(src[-k:]):
                        q = p.copy()
                        q.reserve = q.cols[i][-k:]
                        del q.cols[i][-k:]
                        q.origin = i if kind == "waiver" else -1
                        out[CR + i * MAX_RUN + k - 1] = q
        down = {"giant": "stock_out", "miss_milligan_pocket": "anytime"}.get(g.name, "never")
        if getattr(g.options, "worry_back_anytime", False):
            down = "anytime"
        if down == "anytime" or (down == "stock_out" and not p.stock):
            for s in range(8):
                h = p.found[s]
                if not h or (s % 2 == 0 and p.found[s + 1] == h):
                    continue  # equal piles: the card comes from the even slot (canonical)
                card = (s // 2) * 13 + h - 1
                for j in range(NUM_COLUMNS):
                    if self._accepts(p.cols[j], card):
                        q = p.copy()
                        q.found[s] -= 1
                        q.cols[j].append(card)
                        out[FC + s * NUM_COLUMNS + j] = q
        return out

    # --- with the progress rule --------------------------------------------
    def legal(self) -> dict[int, RefPosition]:
        best = self.best
        out = {}
        for action, q in self.rule_moves().items():
            if action == DEAL or sum(q.found) > best or (self.idle < IDLE_LIMIT and q.key() not in self.seen):
                out[action] = q
        return out

    def play(self, action: int) -> None:
        q = self.legal()[action]
        self.pos = q
        if action == DEAL or sum(q.found) > self.best:
            self.best = max(self.best, sum(q.found))
            self.idle = 0
            self.seen = {q.key()}
        else:
            self.idle += 1
            self.seen.add(q.key())


def same_position(state: MilliganState, p: RefPosition) -> bool:
    return (
        state.columns == p.cols
        and state.found == p.found
        and list(state.stock[state.pos :]) == p.stock
        and state.reserve == p.reserve
        and state.origin == p.origin
    )


# --- the tests ----------------------------------------------------------------

VARIANTS = [
    (MissMilligan, {}),
    (MissMilligan, {"waive_sequences": True}),
    (Giant, {}),
    (Giant, {"worry_back_anytime": True}),
    (MissMilliganPocket, {}),
]
VARIANT_IDS = ["miss_milligan", "miss_milligan-waive_sequences", "giant", "giant-worry_back_anytime", "pocket"]


def check_state(game: MilliganGame, state: MilliganState) -> None:
    """Cards conserved (each identity twice), foot sequences valid, caches equal to a rebuild."""
    cards = [c for col in state.columns for c in col] + state.reserve + list(state.stock[state.pos :])
    cards += [(s // 2) * 13 + r for s, h in enumerate(state.found) for r in range(h)]
    counts = Counter(cards)
    assert len(cards) == 104 and set(counts.values()) == {2} and len(counts) == 52
    for col, run in zip(state.columns, state.runs, strict=True):
        assert run == foot_run(col)
        assert is_run(col[len(col) - run :])
        assert len(col) == run or not fits(col[-run], col[-run - 1])  # the foot sequence is maximal
    assert is_run(state.reserve) and len(state.reserve) <= game.max_reserve
    assert all(state.found[s] >= state.found[s + 1] for s in range(0, 8, 2))  # canonical slots
    assert state.total == sum(state.found) <= state.best
    fresh = state.copy()
    game.refresh(fresh)
    assert fresh.hash == state.hash == game.fingerprint(state)
    np.testing.assert_array_equal(fresh.obs, state.obs)
    assert state.hash in state.seen and state.idle <= IDLE_LIMIT


@pytest.mark.parametrize(("cls", "options"), VARIANTS, ids=VARIANT_IDS)
def test_random_playouts_match_the_reference(cls, options):
    game = cls(**options)
    rng = np.random.default_rng(11)
    moves = 0
    for _ in range(12):
        state = game.init(rng)
        ref = Reference.of(game, state)
        while True:
            check_state(game, state)
            legal = ref.legal()
            assert game.legal_actions(state) == sorted(legal), ref.pos
            assert game.is_over(state) == (not legal)
            if not legal:
                break
            # Favour the rarer moves (reserve, foundations down) so they are exercised too.
            special = [a for a in legal if a >= RC and a != DEAL]
            pool = special if special and rng.random() < 0.5 else list(legal)
            action = int(pool[rng.integers(len(pool))])
            before = state.total
            reward = game.apply(state, action)
            ref.play(action)
            moves += 1
            assert same_position(state, ref.pos)
            assert reward == state.total - before
            assert (state.best, state.idle) == (ref.best, ref.idle)
    assert moves > 500


@pytest.mark.parametrize(("cls", "options"), VARIANTS, ids=VARIANT_IDS)
def test_random_policy_ends_by_termination(cls, options):
    """A masked random policy ends by termination in 1,000 of 1,000 games (well under the safety net)."""
    game = cls(**options)
    limit = patience_gym.ENVS[
        {"miss_milligan": "patience_gym/MissMilligan-v0", "giant": "patience_gym/Giant-v0"}.get(
            game.name, "patience_gym/MissMilliganPocket-v0"
        )
    ][1]
    assert limit > MAX_EPISODE_MOVES
    rng = np.random.default_rng(2024)
    lengths = []
    for _ in range(1000):
        state = game.init(rng)
        n = 0
        while True:
            acts = game.legal_actions(state)
            if not acts:
                break
            game.apply(state, acts[int(rng.integers(len(acts)))])
            n += 1
            assert n <= MAX_EPISODE_MOVES
        assert game.is_over(state)
        lengths.append(n)
    assert sum(n < limit for n in lengths) >= 990


@pytest.mark.parametrize(
    "env_id", ["patience_gym/MissMilligan-v0", "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0"]
)
def test_env_accepts_exactly_the_masked_actions(env_id):
    """Under illegal_action="raise", every masked-out action raises and every masked-in one is accepted."""
    env = gym.make(env_id, illegal_action="raise")
    probe = gym.make(env_id, illegal_action="raise")
    rng = np.random.default_rng(5)
    checked = 0
    for seed in range(3):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            mask = info["action_mask"].astype(bool)
            if checked % 4 == 0:
                for action in np.flatnonzero(~mask):
                    with pytest.raises(IllegalActionError):
                        env.step(int(action))
                data = env.unwrapped.state_dict()
                for action in np.flatnonzero(mask):
                    probe.reset(options={"state": data})
                    probe.step(int(action))
            checked += 1
            _, _, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated
        assert not info["action_mask"].any()
    assert checked > 50


def test_progress_rule_limits_idle_moves_and_resets_on_progress():
    """Idle moves stop at IDLE_LIMIT; a deal or a new foundation high restores the budget."""
    game = Giant()
    rng = np.random.default_rng(1)
    exhausted = 0
    for _ in range(200):
        state = game.init(rng)
        while not game.is_over(state):
            acts = game.legal_actions(state)
            idle = [a for a in acts if not game.is_progress(state, a)]
            if state.idle == IDLE_LIMIT:
                exhausted += 1
                assert not idle  # only progress moves remain
            action = idle[int(rng.integers(len(idle)))] if idle else acts[0]
            progress = game.is_progress(state, action)
            game.apply(state, action)
            if progress:
                assert state.idle == 0 and state.seen == {state.hash}
    assert exhausted > 0
