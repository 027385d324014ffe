"""The batched engines against the single env, bit for bit: one generic check over every batched game.

As envpool runs one ``run_align_check`` over every engine: for every batched game
(``patience_gym.vector.BATCHED_GAMES``), each of its batched encodings, its rule options and both
autoreset modes, ``gym.make_vec(..., vectorization_mode="vector_entry_point")`` and ``gym.make`` envs
seeded alike (``reset(seed=s)`` once, then ``reset()`` after each game) play the same actions, from one
picker: masked-random, greedy (``patience_gym.heuristics.greedy_move``) or holding back the last action
(Miss Milligan's deal: the progress rule's idle limit and repeated positions), with a share of masked-out
and out-of-range actions. Observations, rewards, terminations, truncations (short step limits in some
cases), every info entry with its ``_key`` mask and, in same-step mode, ``final_obs``/``final_info`` must
be equal at every step. Puss in the Corner's given packs (``BatchedPuss.deal``) play as the single env's
``reset(options={"deal": ...})``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import patience_gym  # noqa: F401 - registers the envs
from patience_gym.cards import codes
from patience_gym.heuristics import greedy_move
from patience_gym.vector import BATCHED_GAMES, batched_game_class
from patience_gym.vector.base import BatchedVectorEnv
from patience_gym.vector.puss import BatchedPuss

GOLF, ROUND, PUSS = "patience_gym/Golf-v0", "patience_gym/GolfRound-v0", "patience_gym/PussInTheCorner-v0"
MILLIGAN, GIANT, POCKET = "patience_gym/MissMilligan-v0", "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0"
MODES = [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP]
COUNTS = ("steps", "episodes", "won", "truncated", "illegal", "idle_limit", "masked_repeat")


@dataclass(frozen=True)
class Case:
    """One agreement run: a game, an encoding, rule options, a policy and what the run must reach."""

    env_id: str
    encoding: str
    options: dict[str, bool] = field(default_factory=dict)
    #: "random" (masked-random), "greedy" (the library's greedy move) or "hold" (masked-random, the last
    #: action only when it is the only legal one, or rarely)
    policy: str = "random"
    #: the share of masked-out or out-of-range actions
    illegal: float = 0.0
    #: max_episode_steps (None: the registered limit)
    limit: int | None = None
    envs: int = 16
    steps: int = 200
    seed: int = 0
    #: Puss in the Corner's given packs (BatchedPuss.deal) instead of seeded deals, many of them won
    given_deals: bool = False
    #: the least count of each kind the run must reach (see COUNTS)
    expect: dict[str, int] = field(default_factory=dict)

    def __str__(self) -> str:
        game = self.env_id.split("/")[1].removesuffix("-v0")
        parts = [game, self.encoding, *sorted(self.options), self.policy]
        parts += [f"illegal{self.illegal}"] * bool(self.illegal) + [f"limit{self.limit}"] * bool(self.limit)
        return "-".join(parts + ["given_deals"] * self.given_deals)


CASES = [
    # Golf: every encoding, each option and both, greedy clearing the links (the bonus reward, negative scores)
    Case(GOLF, "ids", illegal=0.05, envs=32, steps=400, seed=1, expect={"episodes": 350, "illegal": 500}),
    Case(GOLF, "ids", {"queens_on_kings": True}, "greedy", steps=150, seed=2, expect={"episodes": 40, "won": 1}),
    Case(GOLF, "planes", {"wrap_ranks": True}, "greedy", steps=150, seed=3, expect={"episodes": 40, "won": 1}),
    Case(
        GOLF,
        "runs",
        {"queens_on_kings": True, "wrap_ranks": True},
        "greedy",
        steps=150,
        seed=4,
        expect={"episodes": 40, "won": 1},
    ),
    Case(GOLF, "runs", illegal=0.3, limit=25, envs=24, steps=150, seed=5, expect={"truncated": 80, "illegal": 800}),
    Case(GOLF, "rules_moves", {"wrap_ranks": True}, "greedy", steps=150, seed=41, expect={"episodes": 40, "won": 1}),
    Case(GOLF, "rules_moves", illegal=0.2, envs=24, steps=200, seed=42, expect={"episodes": 100, "illegal": 500}),
    # Golf rounds: nine holes, hole_scores and hole in the infos
    Case(ROUND, "ids", illegal=0.2, limit=60, steps=200, seed=6, expect={"truncated": 40, "illegal": 500}),
    Case(ROUND, "planes", {"queens_on_kings": True}, illegal=0.05, steps=400, seed=7, expect={"episodes": 12}),
    Case(ROUND, "runs", {"wrap_ranks": True}, "greedy", envs=8, steps=500, seed=8, expect={"episodes": 4, "won": 1}),
    Case(ROUND, "rules_moves", policy="greedy", envs=8, steps=500, seed=43, expect={"episodes": 4}),
    # Puss in the Corner: each option and both, seeded and given deals, wins
    Case(PUSS, "ids", illegal=0.04, envs=32, steps=600, seed=9, expect={"episodes": 70, "illegal": 500}),
    Case(
        PUSS, "planes", {"forced_foundation": False}, "greedy", steps=300, seed=10, expect={"episodes": 12, "won": 10}
    ),
    Case(PUSS, "ids", {"sevens_after_placing": True}, "greedy", steps=300, seed=11, expect={"episodes": 12, "won": 10}),
    Case(
        PUSS,
        "planes",
        {"forced_foundation": False, "sevens_after_placing": True},
        illegal=0.1,
        limit=60,
        steps=200,
        seed=12,
        expect={"truncated": 40, "illegal": 250},
    ),
    Case(PUSS, "planes", given_deals=True, steps=300, seed=13, expect={"episodes": 25, "won": 8}),
    # the rules-only move rows: the default rules (random, some illegal) and both options (greedy, given deals)
    Case(PUSS, "rules_moves", illegal=0.05, steps=250, seed=15, expect={"episodes": 12, "illegal": 100}),
    Case(
        PUSS,
        "rules_moves",
        {"forced_foundation": False, "sevens_after_placing": True},
        "greedy",
        given_deals=True,
        steps=200,
        seed=16,
        expect={"episodes": 12, "won": 8},
    ),
    Case(
        PUSS,
        "ids",
        {"forced_foundation": False},
        "greedy",
        given_deals=True,
        steps=200,
        seed=14,
        expect={"episodes": 12, "won": 12},
    ),
    # The Miss Milligan family: the progress rule's idle limit and repeated positions, each option, wins
    Case(
        MILLIGAN,
        "ids",
        policy="hold",
        illegal=0.04,
        envs=24,
        steps=400,
        seed=15,
        expect={"episodes": 15, "idle_limit": 15, "masked_repeat": 300, "illegal": 300},
    ),
    Case(MILLIGAN, "planes", {"waive_sequences": True}, "greedy", envs=4, steps=200, seed=16, expect={"won": 1}),
    Case(
        MILLIGAN,
        "ids",
        {"waive_sequences": True},
        "hold",
        illegal=0.04,
        limit=150,
        steps=300,
        seed=17,
        expect={"truncated": 10, "idle_limit": 3},
    ),
    Case(
        GIANT,
        "ids",
        {"worry_back_anytime": True},
        "hold",
        illegal=0.04,
        envs=24,
        steps=400,
        seed=18,
        expect={"episodes": 15, "idle_limit": 30, "masked_repeat": 400},
    ),
    Case(GIANT, "planes", illegal=0.04, steps=300, seed=19, expect={"episodes": 50}),
    Case(POCKET, "ids", policy="hold", illegal=0.04, steps=300, seed=20, expect={"episodes": 3, "idle_limit": 10}),
    Case(POCKET, "planes", illegal=0.1, limit=40, steps=200, seed=22, expect={"truncated": 40}),
    # rules_moves: the rows' after-move legal counts read the progress rule's repeats and idle limit
    Case(
        MILLIGAN,
        "rules_moves",
        {"waive_sequences": True},
        "hold",
        illegal=0.04,
        steps=300,
        seed=23,
        expect={"episodes": 3, "idle_limit": 3, "masked_repeat": 100},
    ),
    Case(GIANT, "rules_moves", {"worry_back_anytime": True}, "hold", steps=300, seed=24, expect={"episodes": 3}),
    Case(POCKET, "rules_moves", illegal=0.05, steps=200, seed=25, expect={"episodes": 10}),
]


# --- the one picker ------------------------------------------------------------------------------------
def pick(rng: np.random.Generator, masks: np.ndarray, case: Case, singles: list[Any], live: np.ndarray) -> np.ndarray:
    """One action per env from the vector env's masks (the single envs' positions for ``greedy``); a share
    ``case.illegal`` masked-out or out of range. Rows not ``live`` (awaiting their reset) take any action."""
    n, width = masks.shape
    out_of_range = [-1, -3, width, width + 2, 2**40, -(2**40)]
    actions = np.empty(n, dtype=np.int64)
    for i, mask in enumerate(masks.astype(bool)):
        legal = np.flatnonzero(mask)
        assert len(legal), f"env {i}: an all-False mask row"
        if rng.random() < case.illegal:
            masked_out = np.flatnonzero(~mask)
            use_masked = len(masked_out) and rng.random() < 0.5
            actions[i] = rng.choice(masked_out) if use_masked else rng.choice(out_of_range)
        elif case.policy == "greedy" and live[i]:
            env = singles[i].unwrapped
            actions[i] = greedy_move(env.game, env.state, mask)
        elif case.policy == "hold" and len(legal) > 1 and legal[-1] == width - 1 and rng.random() > 0.02:
            actions[i] = rng.choice(legal[:-1])
        else:
            actions[i] = rng.choice(legal)
    return actions


# --- comparisons -------------------------------------------------------------------------------------------
def _stacked(values: list[Any], like: np.ndarray) -> np.ndarray:
    """The single envs' values of one info key as the vector env's array (lists padded with zeros)."""
    if isinstance(values[0], (list, tuple)):
        width = like.shape[1]
        return np.array([list(v) + [0] * (width - len(v)) for v in values])
    return np.array(values)


def assert_same(obs: np.ndarray, infos: dict[str, Any], expected: list[tuple[Any, dict[str, Any]]], rows: np.ndarray,
                awaiting: np.ndarray, what: str) -> None:  # fmt: skip
    """The vector env's ``obs`` and ``infos`` equal the single envs' ``expected`` (obs, info) in ``rows``:
    every info key the single env reports (and no other), its ``_key`` mask; an env ``awaiting`` its
    reset has an all-True mask row."""
    want_obs = np.stack([o for o, _ in expected])
    assert obs.dtype == want_obs.dtype, what
    assert np.array_equal(obs[rows], want_obs[rows]), what
    keys = set(expected[0][1])
    assert {k for k in infos if not k.startswith(("_", "final_"))} == keys, what
    for key in keys:
        want = _stacked([info[key] for _, info in expected], infos[key])
        if key == "action_mask":
            want[awaiting] = 1  # a game awaiting its reset: any action, it is ignored
        assert np.array_equal(infos[key][rows], want[rows]), (what, key)
        assert np.array_equal(infos["_" + key], rows), (what, key)


def _repeats_masked(singles: list[Any]) -> int:
    """Envs where the rules mask a move only because it repeats a position (the Miss Milligan family's
    progress rule, not its idle limit); 0 for the other games."""
    count = 0
    for env in singles:
        state = env.unwrapped.state
        if getattr(state, "seen", None) and len(state.seen) > 1 and state.idle < 50 and state.mask is not None:
            fresh = state.copy()
            fresh.seen = {state.hash}
            fresh.mask = fresh.acts = None
            count += int(env.unwrapped.game.legal_mask(fresh).sum() > state.mask.sum())
    return count


# --- given deals -------------------------------------------------------------------------------------------
def rank_ordered_deals(rng: np.random.Generator, shape: tuple[int, int], swaps: int) -> np.ndarray:
    """Puss in the Corner packs dealt by rank (2s first, suits shuffled) with ``swaps`` random transpositions:
    often won; the last pack of each env is shuffled."""
    out = np.empty((*shape, 48), dtype=np.int64)
    for index in np.ndindex(*shape):
        pack = np.array([rank - 1 + 13 * suit for rank in range(2, 14) for suit in rng.permutation(4)])
        for _ in range(swaps):
            i, j = rng.integers(48, size=2)
            pack[[i, j]] = pack[[j, i]]
        out[index] = pack
    out[:, -1] = [rng.permutation(out[0, 0]) for _ in range(shape[0])]
    return out


class GivenDeals(BatchedPuss):
    """``BatchedPuss`` whose every reset deals the next given pack of each env (``deal``), not a seeded one."""

    def __init__(self, num_envs: int, packs: np.ndarray, **kwargs: Any) -> None:
        super().__init__(num_envs, **kwargs)
        self.packs = packs
        self.dealt = np.zeros(num_envs, dtype=np.int64)

    def reset(self, which: np.ndarray) -> None:
        rows = np.flatnonzero(which)
        self.deal(which, self.packs[rows, self.dealt[rows] % self.packs.shape[1]])
        self.dealt[rows] += 1


# --- the check -------------------------------------------------------------------------------------------
def play_both(case: Case, mode: AutoresetMode) -> dict[str, int]:
    """Play ``case`` through both engines in autoreset ``mode``, asserting every output equal; the counts."""
    kwargs: dict[str, Any] = {"obs_encoding": case.encoding, "max_episode_steps": case.limit, **case.options}
    rng = np.random.default_rng(case.seed)
    packs = rank_ordered_deals(rng, (case.envs, 5), swaps=3) if case.given_deals else None
    if packs is None:
        venv: Any = gym.make_vec(
            case.env_id, num_envs=case.envs, vectorization_mode="vector_entry_point", autoreset_mode=mode, **kwargs
        )
        assert isinstance(venv, BatchedVectorEnv)
    else:
        game = GivenDeals(case.envs, packs, obs_encoding=case.encoding, **case.options)
        venv = BatchedVectorEnv(game, max_episode_steps=case.limit, autoreset_mode=mode)
    singles = [gym.make(case.env_id, **kwargs) for _ in range(case.envs)]
    games = np.zeros(case.envs, dtype=np.int64)  # games begun per env

    def reset_single(i: int, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        """Env ``i``'s next game in the single env: seeded, or its next given pack."""
        options = None if packs is None else {"deal": codes(packs[i, games[i] % packs.shape[1]])}
        games[i] += 1
        return singles[i].reset(seed=seed, options=options)  # type: ignore[no-any-return]

    seeds = [case.seed * 1000 + i for i in range(case.envs)]
    obs, infos = venv.reset(seed=seeds)
    expected = [reset_single(i, s) for i, s in enumerate(seeds)]
    everyone = np.ones(case.envs, dtype=bool)
    awaiting = np.zeros(case.envs, dtype=bool)  # next-step mode: ended in the last step, reset by the next
    counts = dict.fromkeys(COUNTS, 0)
    for step in range(case.steps):
        assert_same(obs, infos, expected, everyone, awaiting, f"step {step}")
        assert np.array_equal(venv.action_masks(), infos["action_mask"].astype(bool))
        counts["masked_repeat"] += _repeats_masked(singles[:3])
        actions = pick(rng, infos["action_mask"], case, singles, ~awaiting)
        obs, reward, terminated, truncated, infos = venv.step(actions)
        results: list[tuple[float, bool, bool]] = []
        finals = list(expected)  # same-step mode: where a game ended, its last (obs, info)
        for i, env in enumerate(singles):
            if awaiting[i]:  # next-step autoreset: this step resets the env, ignoring its action
                expected[i] = reset_single(i)
                results.append((0.0, False, False))
                continue
            single_obs, r, term, trunc, info = env.step(actions[i])
            results.append((float(r), term, trunc))
            counts["illegal"] += info["illegal_action"]
            counts["idle_limit"] += info.get("idle_moves_left") == 0
            expected[i] = finals[i] = single_obs, info
            if term or trunc:
                counts["episodes"] += 1
                counts["won"] += bool(info["won"])
                counts["truncated"] += bool(trunc)
                if mode is AutoresetMode.SAME_STEP:  # reset at once; the ended game goes to final_obs/final_info
                    expected[i] = reset_single(i)
        counts["steps"] += case.envs
        assert list(zip(reward.tolist(), terminated.tolist(), truncated.tolist())) == results, f"step {step}"
        ended = terminated | truncated
        if mode is AutoresetMode.NEXT_STEP:
            assert not any(k.startswith("final_") for k in infos), f"step {step}"
            awaiting = ended
        elif ended.any():
            assert np.array_equal(infos["_final_obs"], ended) and np.array_equal(infos["_final_info"], ended)
            assert_same(infos["final_obs"], infos["final_info"], finals, ended, ~everyone, f"final, step {step}")
        else:
            assert not any(k.startswith("final_") for k in infos), f"step {step}"
    return counts


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.value)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_batched_engine_plays_as_the_single_env(case: Case, mode: AutoresetMode) -> None:
    counts = play_both(case, mode)
    reached = {kind: counts[kind] for kind in case.expect}
    assert all(counts[kind] >= least for kind, least in case.expect.items()), (reached, case.expect)


def test_the_cases_cover_every_batched_game_encoding_and_option() -> None:
    """Every batched game, each of its batched encodings and each of its rule options (on and off) is played."""
    played = {(c.env_id, c.encoding) for c in CASES}
    for env_id in BATCHED_GAMES:
        cls = batched_game_class(env_id)
        assert {(env_id, enc) for enc in cls.encodings} <= played, env_id
        single: Any = gym.make(env_id).unwrapped
        for option in dataclasses.fields(single.game.options):
            values = {c.options.get(option.name, option.default) for c in CASES if c.env_id == env_id}
            assert values == {True, False}, (env_id, option.name)
    assert any(c.given_deals for c in CASES)


@pytest.mark.parametrize("env_id", sorted(BATCHED_GAMES))
def test_a_finished_game_refuses_every_action_as_the_single_env(env_id: str) -> None:
    """The engine without autoreset (``BatchedGame.step``): an action on a finished game is illegal, reward -1,
    the game unchanged and still over, as the single env stepped after its end."""
    n = 6
    game = batched_game_class(env_id)(n)
    singles = [gym.make(env_id) for _ in range(n)]
    game.seed(list(range(n)))
    game.reset(np.ones(n, dtype=bool))
    masks = [env.reset(seed=i)[1]["action_mask"].astype(bool) for i, env in enumerate(singles)]
    rng = np.random.default_rng(0)
    over = np.zeros(n, dtype=bool)
    after_end = 0
    while not over.all():
        actions = pick(rng, np.where(over[:, None], True, np.stack(masks)), Case(env_id, "ids"), singles, ~over)
        reward, terminated, illegal = game.step(actions)
        after_end += int(over.sum())
        for i, env in enumerate(singles):
            obs, r, term, _, info = env.step(actions[i])
            assert (r, term, info["illegal_action"]) == (reward[i], terminated[i], illegal[i]), i
            assert (info["score"], info["won"]) == (game.scores()[i], game.won()[i]), i
            assert np.array_equal(obs, game.observe()[i]), i
            masks[i] = info["action_mask"].astype(bool)
        assert np.array_equal(game.masks(), np.stack(masks))
        assert illegal[over].all() and terminated[over].all() and (reward[over] == -1).all()
        over |= terminated
    assert after_end > 0
