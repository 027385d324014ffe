"""Puss in the Corner invariants over many random playouts, against a plain reference reading of the rules."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from patience_gym.cards import RANK, RED
from patience_gym.core import IllegalActionError
from patience_gym.games.puss import (
    CORNER_TO_FOUNDATION,
    DEAL,
    FOUNDATION_RED,
    MERGE,
    MERGES,
    NUM_ACTIONS,
    TAKE,
    TO_CORNER,
    TO_FOUNDATION,
    PussInTheCorner,
    _build_obs,
)

ENV_ID = "patience_gym/PussInTheCorner-v0"
OPTIONS = [
    {},
    {"forced_foundation": False},
    {"sevens_after_placing": False},
    {"forced_foundation": False, "sevens_after_placing": False},
]
# Moves in a game: at most 96 deals, 96 placements, 48 plays to the foundations, 8 merges, 3 take-ups.
MOVE_BOUND = 96 + 96 + 48 + 8 + 3


def reference_legal(options: dict, d: dict) -> set[int]:
    """Legal actions from a ``state_dict``, written directly from RULES.md (no shared code with the game)."""
    forced = options.get("forced_foundation", True)
    ranks = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}

    def rank(code):
        return ranks.get(code[0]) or int(code[0])

    def red(code):
        return code[1] in "DH"

    def fits(code, f):
        pile = d["foundations"][f]
        return red(code) == red(pile[0]) and rank(code) == rank(pile[-1]) + 1

    corners = d["corners"]
    won = sum(len(p) for p in d["foundations"]) == 52
    top_plays = {
        CORNER_TO_FOUNDATION + 4 * k + f for k in range(4) if corners[k] for f in range(4) if fits(corners[k][-1], f)
    }
    if won or (d["pass"] == 2 and not d["pack"] and d["hand"] is None and not top_plays):
        return set()
    merges = set()
    if d["seven"]:
        merges = {MERGE + i for i, pairs in enumerate(MERGES) if all(corners[x] and corners[y] for x, y in pairs)}
    if d["hand"] is not None:
        to_f = {TO_FOUNDATION + f for f in range(4) if fits(d["hand"], f)}
        to_c = set() if (forced and to_f) else {TO_CORNER + k for k in range(4)}
        return to_f | to_c | merges
    takes = {TAKE + k for k in range(4) if corners[k]}
    if d["redeal"]:
        return takes
    legal = top_plays | merges
    if d["pack"]:
        legal.add(DEAL)
    elif d["pass"] == 1:
        legal |= takes
    return legal


def check_invariants(game: PussInTheCorner, state) -> dict:
    d = game.to_dict(state)
    rebuilt = game.from_dict(d)  # validates: 52 cards once each, colour-built piles, consistent flags
    assert rebuilt == state
    np.testing.assert_array_equal(state.obs, _build_obs(state))
    assert state.score == sum(len(p) for p in state.foundations)
    for f, pile in enumerate(state.foundations):
        assert all(RED[c] == FOUNDATION_RED[f] for c in pile)
        assert [RANK[c] for c in pile] == list(range(1, len(pile) + 1))
    if state.hand >= 0:
        assert state.seven == (RANK[state.hand] == 7) or not state.seven
    return d


@pytest.mark.parametrize("options", OPTIONS)
def test_random_playouts_keep_every_invariant(options, masked_random_action):
    game = PussInTheCorner(**options)
    rng = np.random.default_rng(len(options))
    for episode in range(60):
        state = game.init(np.random.default_rng(episode))
        total = 0.0
        for _ in range(MOVE_BOUND + 1):
            d = check_invariants(game, state)
            mask = game.legal_mask(state)
            legal = set(np.flatnonzero(mask).tolist())
            assert legal == reference_legal(options, d), d
            if game.is_over(state):
                assert not legal
                break
            assert legal, "all-False mask while live"
            before = state.score
            action = masked_random_action(rng, mask)
            dealt_before = state.pack_left
            reward = game.apply(state, action)
            total += reward
            assert reward == state.score - before
            if action == DEAL:
                assert state.pack_left == dealt_before - 1 and state.seven == (RANK[state.hand] == 7)
        else:
            raise AssertionError(f"episode {episode} did not end within {MOVE_BOUND} moves")
        assert total == game.score(state) - 4
        assert game.is_won(state) == (game.score(state) == 52)
        assert state.pass_no == 2 or game.is_won(state)


def test_strict_env_masked_out_actions_raise_and_masked_in_are_accepted(masked_random_action):
    env = gym.make(ENV_ID, illegal_action="raise")
    probe = gym.make(ENV_ID, illegal_action="raise")
    rng = np.random.default_rng(1)
    for seed in range(4):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            data = env.unwrapped.state_dict()
            mask = info["action_mask"]
            for action in range(NUM_ACTIONS):
                probe.reset(options={"state": data})
                if mask[action]:
                    _, reward, _, _, probe_info = probe.step(action)
                    assert not probe_info["illegal_action"] and reward in (0.0, 1.0)
                else:
                    with pytest.raises(IllegalActionError):
                        probe.step(action)
                    assert probe.unwrapped.state_dict() == data
            _, _, done, truncated, info = env.step(masked_random_action(rng, mask))
            assert not truncated


def test_env_episodes_end_and_return_matches_score(masked_random_action):
    env = gym.make(ENV_ID)
    rng = np.random.default_rng(2)
    for seed in range(40):
        _, info = env.reset(seed=seed)
        total, steps, done = 0.0, 0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(masked_random_action(rng, info["action_mask"]))
            total += reward
            steps += 1
            done = terminated or truncated
            assert not truncated and steps <= MOVE_BOUND
        assert total == info["score"] - 4 and 4 <= info["score"] <= 52
        assert not info["action_mask"].any()
