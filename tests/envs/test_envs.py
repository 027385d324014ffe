"""API and determinism checks over every registered env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import patience_gym
from patience_gym.core import IllegalActionError

ENV_IDS = sorted(patience_gym.ENVS)


def encodings(env_id: str) -> list[str]:
    return list(gym.make(env_id).unwrapped.obs_encodings)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env_every_encoding(env_id):
    for encoding in encodings(env_id):
        env = gym.make(env_id, obs_encoding=encoding)
        check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env_with_render(env_id):
    check_env(gym.make(env_id, render_mode="ansi").unwrapped)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_same_seed_same_rollout(env_id, masked_random_action):
    a, b = gym.make(env_id), gym.make(env_id)
    obs_a, info_a = a.reset(seed=123)
    obs_b, info_b = b.reset(seed=123)
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    for _ in range(300):
        np.testing.assert_array_equal(obs_a, obs_b)
        np.testing.assert_array_equal(info_a["action_mask"], info_b["action_mask"])
        act_a = masked_random_action(rng_a, info_a["action_mask"])
        act_b = masked_random_action(rng_b, info_b["action_mask"])
        obs_a, r_a, term_a, trunc_a, info_a = a.step(act_a)
        obs_b, r_b, term_b, trunc_b, info_b = b.step(act_b)
        assert (r_a, term_a, trunc_a) == (r_b, term_b, trunc_b)
        if term_a or trunc_a:
            break
    assert a.unwrapped.state_dict() == b.unwrapped.state_dict()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_different_seeds_differ_and_reset_without_seed_continues(env_id):
    env = gym.make(env_id)
    env.reset(seed=1)
    first = env.unwrapped.state_dict()
    env.reset(seed=2)
    assert env.unwrapped.state_dict() != first
    env.reset(seed=1)
    env.reset()
    assert env.unwrapped.state_dict() != first


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_masks_agree_and_step_contract(env_id, masked_random_action):
    env = gym.make(env_id, illegal_action="raise")
    obs, info = env.reset(seed=5)
    unwrapped = env.unwrapped
    rng = np.random.default_rng(0)
    for _ in range(200):
        mask = unwrapped.action_masks()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        np.testing.assert_array_equal(mask.astype(np.int8), info["action_mask"])
        assert mask.any(), "all-False mask while live"
        assert env.observation_space.contains(obs)
        assert isinstance(info["score"], float) and isinstance(info["won"], bool)
        for illegal in np.flatnonzero(~mask)[:3]:
            with pytest.raises(IllegalActionError):
                env.step(int(illegal))
        obs, reward, terminated, truncated, info = env.step(masked_random_action(rng, mask))
        assert isinstance(reward, float)
        if terminated or truncated:
            assert not info["action_mask"].any()
            break


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_state_dict_reset_round_trip(env_id, masked_random_action):
    env = gym.make(env_id)
    _, info = env.reset(seed=9)
    rng = np.random.default_rng(1)
    for _ in range(20):
        _, _, term, trunc, info = env.step(masked_random_action(rng, info["action_mask"]))
        if term or trunc:
            break
    data = env.unwrapped.state_dict()
    other = gym.make(env_id)
    other.reset(options={"state": data})
    assert other.unwrapped.state_dict() == data
    assert other.unwrapped.state == env.unwrapped.state


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_action_descriptions_bijection(env_id):
    unwrapped = gym.make(env_id).unwrapped
    texts = [unwrapped.describe_action(a) for a in range(unwrapped.action_space.n)]
    assert len(set(texts)) == len(texts)
    for a, text in enumerate(texts):
        assert unwrapped.action_from_description(text) == a


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_env_docstring_has_gymnasium_sections(env_id):
    doc = type(gym.make(env_id).unwrapped).__doc__ or ""
    for section in ("Description", "Action Space", "Observation Space", "Rewards", "Episode End", "Arguments"):
        assert f"## {section}" in doc, f"{env_id} docstring lacks '{section}'"
    assert "## Version History" in doc


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_unknown_kwarg_is_named(env_id):
    with pytest.raises(TypeError, match="unknown option 'no_such_rule'"):
        gym.make(env_id, no_such_rule=True)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_works_with_maskable_ppo_vec_env(env_id):
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env(env_id, n_envs=2, seed=0)
    assert is_masking_supported(vec)
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (2, vec.action_space.n) and masks.any(axis=1).all()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_writing_into_returned_arrays_never_changes_the_env(env_id, masked_random_action):
    """Issue 32: what step/reset hand out is the caller's; an untouched twin plays the same (illegal moves too)."""
    for encoding in encodings(env_id):
        scribbled, twin = gym.make(env_id, obs_encoding=encoding), gym.make(env_id, obs_encoding=encoding)
        got, want = scribbled.reset(seed=4), twin.reset(seed=4)
        rng = np.random.default_rng(0)
        for t in range(40):
            np.testing.assert_array_equal(got[0], want[0], err_msg=f"{encoding} step {t}")
            np.testing.assert_array_equal(got[-1]["action_mask"], want[-1]["action_mask"])
            for value in (got[0], got[-1]["action_mask"], scribbled.unwrapped.action_masks()):
                value[...] = 1
            if want[2] if len(want) == 5 else False:
                break
            mask = twin.unwrapped.action_masks()
            action = int(np.flatnonzero(~mask)[0]) if t % 3 == 0 and not mask.all() else masked_random_action(rng, mask)
            got, want = scribbled.step(action), twin.step(action)


def test_every_registry_reads_the_one_game_table() -> None:
    """Each game is one GameSpec; the env registry, rules, observers, renderers, batched engines, step
    limits and the greedy heuristic all come from it, and every entry names something that exists."""
    import subprocess
    import sys

    from patience_gym import features, games, render, specs, vector
    from patience_gym.render import image

    assert list(patience_gym.ENVS) == [s.env_id for s in specs.SPECS]
    assert len({s.game for s in specs.SPECS}) == len(specs.SPECS)
    for spec in specs.SPECS:
        assert patience_gym.ENVS[spec.env_id] == (spec.env, spec.max_episode_steps)
        registered = gym.spec(spec.env_id)
        assert (registered.entry_point, registered.max_episode_steps) == (spec.env, spec.max_episode_steps)
        assert registered.vector_entry_point == spec.vector_entry_point
        assert games.GAMES[spec.game] == spec.rules and render.TEXT_RENDERERS[spec.game] == spec.text_renderer
        assert features.FEATURE_MODULES.get(spec.game) == spec.features
        assert image.LAYOUTS[spec.game] == spec.image_layout
        assert vector.BATCHED_GAMES.get(spec.env_id) == spec.batched
        game = games.make_game(spec.game)
        assert game.max_episode_steps == spec.max_episode_steps  # the step limit is stated once
        assert isinstance(game, specs.load(spec.rules)) and game.name == spec.game
        for target in (spec.env, spec.text_renderer, spec.image_layout, spec.features, spec.greedy_move):
            assert target is None or specs.load(target) is not None
        assert specs.by_env_id(spec.env_id) is spec is specs.by_game(spec.game)
    with pytest.raises(ValueError, match="unknown game 'klondike'; known games: "):
        specs.by_game("klondike")
    # The table (loaded on its own, without the package) imports nothing but the standard library.
    probe = (
        "import importlib.util as u, sys; m = u.spec_from_file_location('t', sys.argv[1]); "
        "t = sys.modules['t'] = u.module_from_spec(m); m.loader.exec_module(t); "
        "print(sorted(n for n in sys.modules if n.split('.')[0] in ('numpy', 'gymnasium', 'patience_gym')))"
    )
    path = specs.__file__
    done = subprocess.run([sys.executable, "-c", probe, path], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr
