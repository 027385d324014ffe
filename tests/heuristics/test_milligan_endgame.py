"""Endgame replays (:mod:`patience_gym.heuristics.milligan_endgame`), the ``moves_endgame`` encoding and the
``greedy:endgame=1`` teacher of the Miss Milligan family."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest

from agents.baselines.greedy_milligan import MilliganGreedy
from agents.registry import make_agent
from patience_gym.features import observe
from patience_gym.features.milligan import MOVES_ENDGAME_SIZE, MOVES_GLOBAL
from patience_gym.games.milligan import MilliganGame, MilliganState
from patience_gym.heuristics.milligan_endgame import EndgameReplay
from patience_gym.heuristics.milligan_greedy import GreedyRules
from patience_gym.heuristics.milligan_moves import ENDGAME_ROW, MOVE_SLOTS, SEARCH_ROW

IDS = ["patience_gym/MissMilligan-v0", "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0"]


def fresh_outcome(game: MilliganGame, state: MilliganState) -> int:
    """Cards on the foundations when a fresh greedy plays ``state`` to the end, nothing remembered."""
    trial = state.copy()
    rules = GreedyRules()
    while not game.is_over(trial):
        trial_move = rules.choose(game, trial, game.legal_mask(trial))
        game.apply(trial, trial_move)
    return trial.total


def teacher_positions(env: gym.Env, seed: int, eps: float) -> Iterator[tuple[np.ndarray, dict]]:
    """The ``greedy:endgame=1`` teacher's game on ``seed``'s deal, a random legal move instead of its own
    with probability ``eps`` (so that positions off its line are met too); before each move yield the
    observation and info. ``env.unwrapped.state`` is the position meanwhile."""
    teacher = MilliganGreedy(endgame=1)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        yield obs, info
        mask = info["action_mask"]
        action = teacher.act(env.unwrapped, obs, mask)
        if rng.random() < eps:
            action = int(rng.choice(np.flatnonzero(mask)))
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated


@pytest.mark.parametrize("env_id", IDS)
def test_remembered_outcomes_equal_fresh_replays(env_id):
    """At stock-out positions on and off the teacher's line, every legal move's remembered outcome is the
    outcome of a fresh greedy game after it; also right after the memo is emptied mid-game."""
    env = gym.make(env_id, obs_encoding="moves_endgame")
    game = env.unwrapped.game
    checked = 0
    for _obs, _ in teacher_positions(env, seed=1, eps=0.1):
        state = env.unwrapped.state
        if state.stock_left or checked >= 6:
            continue
        if checked == 3:
            env.unwrapped.observer.replay.outcomes.clear()
        values = env.unwrapped.observer.replay.move_values(game, state)
        assert sorted(values) == game.legal_actions(state)
        for action, value in values.items():
            child = state.copy()
            game.apply(child, action)
            assert value == fresh_outcome(game, child), game.describe_action(action)
        checked += 1
    assert checked == 6


@pytest.mark.parametrize("env_id", IDS)
def test_moves_endgame_is_moves_search_plus_the_replays(env_id):
    """The same planes, position values and rows as ``moves_search``; the two replay values are 0 while the
    stock lasts (they would read face-down cards) and afterwards each listed move's outcome (/104) and its
    shortfall from the best (/10, capped), the best having 0."""
    env = gym.make(env_id, obs_encoding="moves_endgame")
    game = env.unwrapped.game
    before = after = 0
    positions = (position for seed in (2, 5) for position in teacher_positions(env, seed, eps=0.05))
    for obs, _ in positions:
        state = env.unwrapped.state
        assert obs.shape == (MOVES_ENDGAME_SIZE,) and obs.min() >= -1 and obs.max() <= 1
        search = observe(game, state, "moves_search")
        assert np.array_equal(obs[:MOVES_GLOBAL], search[:MOVES_GLOBAL])
        rows = obs[MOVES_GLOBAL:].reshape(MOVE_SLOTS, ENDGAME_ROW)
        assert np.array_equal(rows[:, :SEARCH_ROW], search[MOVES_GLOBAL:].reshape(MOVE_SLOTS, SEARCH_ROW))
        replay = rows[:, SEARCH_ROW:]
        if state.stock_left:
            assert not replay.any()
            before += 1
            continue
        values = env.unwrapped.observer.replay.move_values(game, state)
        legal = game.legal_actions(state)
        top = max(values.values())
        for slot, action in enumerate(legal[:MOVE_SLOTS]):
            assert replay[slot, 0] == pytest.approx(values[action] / 104)
            assert replay[slot, 1] == pytest.approx(max(-1.0, (values[action] - top) / 10))
        assert not replay[len(legal) :].any()
        assert replay[: len(legal), 1].max() == 0
        after += 1
    assert before > 20 and after > 3


def test_the_teacher_is_the_greedy_until_the_stock_is_out_then_plays_the_best_replay():
    """``greedy:endgame=1`` moves as the greedy while the stock lasts; afterwards it plays a move whose
    replay is the best, the greedy's own move whenever that is among the best."""
    env = gym.make("patience_gym/MissMilliganPocket-v0", obs_encoding="moves_endgame")
    game = env.unwrapped.game
    teacher = make_agent("greedy:endgame=1", game.name)
    assert isinstance(teacher, MilliganGreedy) and teacher.endgame
    greedy = MilliganGreedy()
    ending = 0
    for seed in (3, 4):
        obs, info = env.reset(seed=seed)
        teacher.reset(seed)
        greedy.reset(seed)
        done = False
        while not done:
            state = env.unwrapped.state
            own = greedy.act(env.unwrapped, obs, info["action_mask"])
            rules = copy.deepcopy(teacher.rules)  # its mark as the teacher consults it
            action = teacher.act(env.unwrapped, obs, info["action_mask"])
            if state.stock_left:
                assert action == own
            else:
                values = env.unwrapped.observer.replay.move_values(game, state)
                top = max(values.values())
                assert values[action] == top
                greedys = rules.choose(game, state, info["action_mask"])
                if values[greedys] == top:
                    assert action == greedys
                ending += 1
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    assert ending > 20


def test_replays_refuse_a_position_with_stock_and_values_are_empty_then():
    env = gym.make("patience_gym/MissMilliganPocket-v0", obs_encoding="moves_endgame")
    env.reset(seed=0)
    state = env.unwrapped.state
    assert state.stock_left > 0
    with pytest.raises(ValueError, match="stock"):
        EndgameReplay().outcome(env.unwrapped.game, state)
    assert env.unwrapped.observer.replay.move_values(env.unwrapped.game, state) == {}


def test_a_memo_key_is_the_position_and_its_high_water_mark():
    """Two positions just after a progress event with the same cards but another high-water mark are
    remembered apart."""
    env = gym.make("patience_gym/MissMilliganPocket-v0")
    env.reset(seed=0)
    state = env.unwrapped.state
    other = state.copy()
    other.best += 1
    assert EndgameReplay.key(state) != EndgameReplay.key(other)
    assert EndgameReplay.key(state) & (2**64 - 1) == state.hash
