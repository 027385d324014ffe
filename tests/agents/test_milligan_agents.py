"""The Miss Milligan family's greedy baseline: legal, deterministic, bounded, honest, better than random."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest

from agents.baselines.greedy_milligan import MilliganGreedy, evaluate
from agents.registry import make_agent
from patience_gym.games.milligan import MAX_EPISODE_MOVES
from patience_gym.heuristics.milligan_moves import W_BREAK

IDS = ["patience_gym/MissMilligan-v0", "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0"]


def play(env: gym.Env, agent, seed: int) -> tuple[float, list[int], bool]:
    unwrapped = env.unwrapped
    obs, info = env.reset(seed=seed)
    agent.reset(seed)
    moves = []
    while True:
        mask = info["action_mask"].astype(bool)
        action = agent.act(unwrapped, obs, mask)
        assert mask[action]
        moves.append(action)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return info["score"], moves, terminated


@pytest.mark.parametrize("env_id", IDS)
def test_greedy_is_registered_legal_deterministic_and_ends_by_termination(env_id):
    env = gym.make(env_id, illegal_action="raise")
    agent = make_agent("greedy", env.unwrapped.game.name)
    assert isinstance(agent, MilliganGreedy)
    for seed in range(4):
        score, moves, terminated = play(env, agent, seed)
        assert terminated and len(moves) <= MAX_EPISODE_MOVES
        again = play(env, make_agent("greedy", env.unwrapped.game.name), seed)
        assert again == (score, moves, terminated)


@pytest.mark.parametrize("env_id", IDS)
def test_greedy_beats_random_on_the_same_deals(env_id):
    env = gym.make(env_id)
    name = env.unwrapped.game.name
    seeds = range(100, 116)
    greedy = [play(env, make_agent("greedy", name), s)[0] for s in seeds]
    random = [play(env, make_agent("random", name, seed=s), s)[0] for s in seeds]
    assert np.mean(greedy) > np.mean(random)
    assert sum(g >= r for g, r in zip(greedy, random, strict=True)) >= 12


@pytest.mark.parametrize("env_id", IDS)
def test_greedy_never_reads_the_stock_order(env_id):
    """Shuffling the face-down stock never changes the greedy's choice."""
    env = gym.make(env_id)
    other = gym.make(env_id)
    unwrapped, probe = env.unwrapped, other.unwrapped
    rng = np.random.default_rng(0)
    agent = MilliganGreedy()
    compared = 0
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        agent.reset(seed)
        done = False
        while not done:
            mask = info["action_mask"].astype(bool)
            if unwrapped.state.stock_left > 8:
                data = unwrapped.state_dict()
                data["stock"] = [data["stock"][i] for i in rng.permutation(len(data["stock"]))]
                other_obs, _ = other.reset(options={"state": data})
                twin = copy.deepcopy(agent)
                np.testing.assert_array_equal(other_obs, obs)
                assert twin.act(probe, other_obs, mask) == copy.deepcopy(agent).act(unwrapped, obs, mask)
                compared += 1
            action = agent.act(unwrapped, obs, mask)
            obs, _, done, _, info = env.step(action)
    assert compared > 30


def test_evaluation_rewards_foundations_and_packing():
    rows = ["KS", "3H", "AC", "2D", "5C", "6D", "7S", "8H"], ["9D", "8C", "QS", "QS", "JD", "JD", "TC", "TC"]
    rest = [r + s for s in "CDHS" for r in "A23456789TJQK"] * 2
    for code in rows[0] + rows[1]:
        rest.remove(code)
    env = gym.make("patience_gym/MissMilligan-v0")
    env.reset(options={"deal": rows[0] + rows[1] + rest})
    game, state = env.unwrapped.game, env.unwrapped.state
    up = state.copy()
    game.apply(up, game.action_from_description("c3>f"))
    assert evaluate(up) > evaluate(state)  # a card up counts most
    game.apply(state, game.action_from_description("deal"))
    packed = state.copy()
    game.apply(packed, game.action_from_description("c2>c1"))  # 8C leaves its break on 3H for the 9D
    assert evaluate(packed) == evaluate(state) + W_BREAK
