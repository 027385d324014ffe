"""Bad input to the env is a clear error naming the problem; the feature registry serves every encoding."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from patience_gym import ENVS
from patience_gym.core import IllegalActionError
from patience_gym.env import env_kwargs_from_json
from patience_gym.envs.golf import GolfEnv
from patience_gym.features import encodings, make_observer

ENV_IDS = list(ENVS)


@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize("action", [7.9, "7", True, np.bool_(True), [1], np.array([1, 2]), np.float32(2.0), None])
@pytest.mark.parametrize("mode", ["penalize", "raise"])
def test_non_integer_actions_are_type_errors_in_every_mode(env_id, action, mode):
    env = gym.make(env_id, illegal_action=mode)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="action must be an integer"):
        env.step(action)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_integer_actions_of_every_kind_are_taken(env_id):
    env = gym.make(env_id, illegal_action="raise")
    _, info = env.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    for action in (legal, np.int64(legal), np.array(legal)):
        env.reset(seed=0)
        env.step(action)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_out_of_range_and_masked_actions_follow_illegal_action(env_id):
    env = gym.make(env_id)
    obs, info = env.reset(seed=0)
    n = env.action_space.n
    for action in (-1, n, n + 5):
        after, reward, terminated, truncated, step_info = env.step(action)
        assert reward == -1.0 and step_info["illegal_action"] and np.array_equal(after, obs)
    strict = gym.make(env_id, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="out of range"):
        strict.step(n)


def test_bad_reset_options_are_clear_errors():
    env = gym.make("patience_gym/Golf-v0")
    env.reset(seed=0)
    for options in (5, [1], "deal"):
        with pytest.raises(TypeError, match=rf"reset options must be a dict \(or None\), got {type(options).__name__}"):
            env.reset(options=options)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="got NoneType"):
        env.reset(options={"deal": None})
    with pytest.raises(ValueError, match="hash order"):
        env.reset(options={"deal": set(["AS", "2S"])})
    with pytest.raises(TypeError, match="'board' must be board text"):
        env.reset(options={"board": 5})
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"dael": []})


def test_a_game_without_board_text_says_what_to_give_instead():
    env = gym.make("patience_gym/PussInTheCorner-v0")
    with pytest.raises(ValueError, match="no board text format; give a 'deal' or a 'state'"):
        env.reset(options={"board": "x"})


def test_bad_constructor_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="unknown obs_encoding ''"):
        gym.make("patience_gym/Giant-v0", obs_encoding="")
    with pytest.raises(TypeError, match="obs_encoding must be a string"):
        gym.make("patience_gym/Giant-v0", obs_encoding=3)
    with pytest.raises(ValueError, match="unknown render_mode 5"):
        GolfEnv(render_mode=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="plays 'giant'; make the env of 'golf' by its own id"):
        gym.make("patience_gym/Giant-v0", game="golf")
    with pytest.raises(TypeError, match="plays 'giant'; make the env of 'golf' by its own id"):
        gym.make("patience_gym/Giant-v0", game=GolfEnv().game)
    with pytest.raises(TypeError, match=r"plays 'golf' and makes its own Game: give rule options as keyword"):
        gym.make("patience_gym/Golf-v0", game=GolfEnv(wrap_ranks=True).game)
    with pytest.raises(TypeError, match="unknown option 'queens_on_king'"):
        gym.make("patience_gym/Golf-v0", queens_on_king=True)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_action_from_description_refuses_non_text(env_id):
    env = gym.make(env_id).unwrapped
    with pytest.raises((TypeError, ValueError), match="move"):
        env.action_from_description(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_encoding_has_an_observer_whose_space_holds_its_observations(env_id):
    game = gym.make(env_id).unwrapped.game
    names = encodings(game)
    assert names[: len(game.obs_encodings)] == tuple(game.obs_encodings)
    for encoding in names:
        env = gym.make(env_id, obs_encoding=encoding)
        observer = env.unwrapped.observer
        assert observer.encoding == encoding and observer.spec.shape == env.observation_space.shape
        obs, _ = env.reset(seed=3)
        assert env.observation_space.contains(obs)
        np.testing.assert_array_equal(make_observer(game, encoding).observe(env.unwrapped.state), obs)


def test_rules_modules_offer_only_the_plain_encodings():
    for env_id in ENV_IDS:
        assert gym.make(env_id).unwrapped.game.obs_encodings == ("ids", "planes")


def _finished_hole(seed: int) -> dict:
    env = gym.make("patience_gym/Golf-v0")
    _, info = env.reset(seed=seed)
    done = False
    while not done:
        _, _, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
    return env.unwrapped.state_dict()


def test_golf_round_state_loader_is_strict():
    env = gym.make("patience_gym/GolfRound-v0")
    env.reset(seed=0)
    good = env.unwrapped.state_dict()
    game = env.unwrapped.game
    assert game.from_dict(good) == env.unwrapped.state
    mutations = {
        "finished hole in play": {"hole_state": _finished_hole(1)},
        "unknown key": {"par": 36},
        "another game": {"game": "golf"},
        "bool hole": {"hole": True},
        "absurd score": {"hole": 1, "hole_scores": [400], "next_deals": good["next_deals"][1:]},
    }
    for what, change in mutations.items():
        with pytest.raises(ValueError, match="GolfRound|game"):
            game.from_dict({**good, **change})
            pytest.fail(f"accepted a state with {what}")


def test_puss_state_pass_must_be_an_integer():
    env = gym.make("patience_gym/PussInTheCorner-v0")
    env.reset(seed=0)
    data = env.unwrapped.state_dict()
    with pytest.raises(ValueError, match="'pass' must be 1 or 2"):
        env.unwrapped.game.from_dict({**data, "pass": 1.0})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{waive: 1}", "--env-kwargs is not valid JSON"),
        ("[1]", r"--env-kwargs must be a JSON object, got '\[1\]'"),
        ('"planes"', "--env-kwargs must be a JSON object"),
    ],
)
def test_command_line_env_kwargs_must_be_a_json_object(text, message):
    with pytest.raises(ValueError, match=message):
        env_kwargs_from_json(text)
    assert env_kwargs_from_json('{"obs_encoding": "ids"}') == {"obs_encoding": "ids"}


@pytest.mark.parametrize(
    ("module", "encoding", "message"),
    [
        ("golf", "runs", "Golf features need a Golf or GolfRound game, got puss_in_the_corner"),
        ("milligan", "moves", "Miss Milligan features need a game of that family, got puss_in_the_corner"),
        ("puss", "moves", "Puss in the Corner features need that game, got golf"),
    ],
)
def test_a_feature_encoding_refuses_another_games_rules(module, encoding, message):
    import importlib

    from patience_gym.games.golf import Golf, GolfRound
    from patience_gym.games.puss import PussInTheCorner

    factory = importlib.import_module(f"patience_gym.features.{module}").ENCODINGS[encoding]
    other = Golf() if module == "puss" else PussInTheCorner()
    with pytest.raises(TypeError, match=message):
        factory(other)
    if module == "golf":  # a nine-hole round is served by the hole's observer
        assert factory(GolfRound()).spec.shape[0] == factory(Golf()).spec.shape[0] + 1
