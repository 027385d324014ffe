"""Property-based tests (hypothesis) over random reachable positions of every game.

A position is drawn as (env, deal seed, number of masked-random moves, move seed): the
state reached by playing that many random legal moves from that deal.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from patience_gym import ENVS
from patience_gym.cards import CODE
from patience_gym.core import IllegalActionError
from patience_gym.games.golf_board import format_board

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reach(env_id: str, seed: int, moves: int, move_seed: int) -> Any:
    """The unwrapped env after ``moves`` masked-random moves (fewer if the game ends first)."""
    env = gym.make(env_id).unwrapped
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(move_seed)
    for _ in range(moves):
        legal = np.flatnonzero(info["action_mask"])
        if not len(legal):
            break
        _, _, terminated, _, info = env.step(int(rng.choice(legal)))
        if terminated:
            break
    return env


positions = st.tuples(
    st.sampled_from(sorted(ENVS)),
    st.integers(0, 2**31 - 1),
    st.integers(0, 300),
    st.integers(0, 2**31 - 1),
)


@SETTINGS
@given(positions)
def test_state_to_json_and_back_is_the_identity(position):
    env = reach(*position)
    game, state = env.game, env.state
    data = env.state_dict()
    again = game.from_dict(json.loads(json.dumps(data)))
    assert again == state
    assert game.to_dict(again) == data
    np.testing.assert_array_equal(game.legal_mask(again), game.legal_mask(state))
    np.testing.assert_array_equal(game.observe(again, "ids"), game.observe(state, "ids"))
    assert game.score(again) == game.score(state) and game.is_over(again) == game.is_over(state)


@SETTINGS
@given(positions)
def test_action_notation_is_a_bijection_on_the_legal_moves(position):
    env = reach(*position)
    legal = env.legal_actions()
    texts = [env.describe_action(a) for a in legal]
    assert len(set(texts)) == len(texts)
    assert [env.action_from_description(t) for t in texts] == legal
    every = [env.describe_action(a) for a in range(env.action_space.n)]
    assert len(set(every)) == len(every)


@SETTINGS
@given(positions, st.integers(0, 2**31 - 1))
def test_play_refuses_an_illegal_action_and_leaves_the_state_unchanged(position, pick):
    """``Game.play`` is ``apply`` checked: an illegal, out-of-range or non-integer action is an IllegalActionError
    naming it and the legal moves, and the state is not touched; a legal one plays as ``apply`` does."""
    env = reach(*position)
    game, state = env.game, env.state
    legal = set(env.legal_actions())
    illegal = [a for a in range(game.num_actions) if a not in legal]
    before = state.copy()
    for action in [illegal[pick % len(illegal)], -1, game.num_actions]:
        with pytest.raises(IllegalActionError, match=rf"illegal action {action} \(.*\) in {game.name}; legal: "):
            game.play(state, action)
        assert state == before
    for junk in (1.0, True, "0", None):
        with pytest.raises(IllegalActionError, match="an action is an int"):
            game.play(state, junk)
    if legal:
        action = min(legal)
        checked, unchecked = state.copy(), state.copy()
        assert game.play(checked, np.int64(action)) == game.apply(unchecked, action)
        assert checked == unchecked


def _card_fields(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """Every place in a state dict that holds a card code."""
    found: list[tuple[tuple[Any, ...], str]] = []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _card_fields(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found += _card_fields(value, (*path, i))
    elif isinstance(data, str) and data in CODE:
        found.append((path, data))
    return found


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


@SETTINGS
@given(positions, st.integers(0, 2**31 - 1))
def test_the_loader_refuses_a_duplicated_card(position, pick):
    env = reach(*position)
    data = env.state_dict()
    fields = _card_fields(data)
    (path_a, card_a), (path_b, card_b) = [fields[i] for i in np.random.default_rng(pick).permutation(len(fields))[:2]]
    if card_a == card_b:  # two packs: the other copy of this card; pick a different card instead
        card_b = next(c for _, c in fields if c != card_a)
    broken = copy.deepcopy(data)
    _set(broken, path_a, card_b)  # card_b now appears once too often, card_a once too few
    with pytest.raises(ValueError):
        env.game.from_dict(broken)


def _same_kind(value: Any, junk: Any) -> bool:
    """Whether ``junk`` is of the kind ``value`` is (then it may be a legal value, not a wrong type)."""
    if isinstance(value, bool) or isinstance(junk, bool):
        return isinstance(value, bool) and isinstance(junk, bool)
    return type(value) is type(junk) or (value is None and junk is None)


@SETTINGS
@given(positions, st.sampled_from([None, 3, "x", 1.5, True, {"a": 1}]))
def test_the_loader_refuses_wrong_types(position, junk):
    env = reach(*position)
    data = env.state_dict()
    for key in data:
        if key == "game" or _same_kind(data[key], junk):
            continue
        broken = {**data, key: junk}
        try:
            again = env.game.from_dict(broken)
        except (ValueError, TypeError):
            continue
        pytest.fail(f"{env.game.name} accepted {key}={junk!r}: {again!r}")


@SETTINGS
@given(st.integers(0, 2**31 - 1))
def test_golf_board_text_round_trips(seed):
    """On dealt positions: the format (PySolFC's, black-hole-solver's) keeps only the waste's top card."""
    env = reach("patience_gym/Golf-v0", seed, 0, 0)
    text = format_board(env.state_dict())
    from_text = env.game.from_text(text)
    np.testing.assert_array_equal(env.game.legal_mask(from_text), env.game.legal_mask(env.state))
    assert from_text == env.state and format_board(env.game.to_dict(from_text)) == text
