"""The batched engine's generic parts: numpy-exact shuffles (vector.rng) and the vector env fronts."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding

from patience_gym.vector import rng as vrng
from tests.helpers.vector import canonical, reached_positions

SEEDS = [*range(300), 2**40 + 7, 123456789012345678901234567890]


@pytest.mark.parametrize("n", [52, 104])
def test_permutations_match_numpy_over_consecutive_draws(n: int) -> None:
    states = vrng.seeded_states(SEEDS)
    gens = [seeding.np_random(s)[0] for s in SEEDS]
    which = np.ones(len(SEEDS), dtype=bool)
    for draw in range(4):
        which[:] = True
        if draw == 2:
            which[::3] = False  # envs that do not reset keep their RNG untouched
        out = vrng.draw_permutations(states, which, n)
        assert out.shape == (which.sum(), n)
        rows = iter(out)
        for i, gen in enumerate(gens):
            if which[i]:
                assert np.array_equal(next(rows), gen.permutation(n)), (draw, SEEDS[i])
            assert np.array_equal(states[i], vrng.state_row(gen)), (draw, SEEDS[i])


def test_odd_sizes_and_mixed_draws_keep_the_stream() -> None:
    """The 32-bit buffer carries across draws of any size, as in numpy."""
    seeds = list(range(20))
    states = vrng.seeded_states(seeds)
    gens = [seeding.np_random(s)[0] for s in seeds]
    which = np.ones(len(seeds), dtype=bool)
    for n in (0, 1, 2, 3, 52, 7, 104, 1000):
        out = vrng.draw_permutations(states, which, n)
        for i, gen in enumerate(gens):
            assert np.array_equal(out[i], gen.permutation(n)), n
            assert np.array_equal(states[i], vrng.state_row(gen))


def test_state_rows_round_trip_through_a_generator() -> None:
    states = vrng.seeded_states([5])
    gen = np.random.Generator(np.random.PCG64())
    vrng.set_generator_state(gen, states[0])
    expected = gen.permutation(52)
    vrng.draw_permutations(states, np.ones(1, dtype=bool), 52)
    fresh = vrng.seeded_states([5])
    assert np.array_equal(vrng.draw_permutations(fresh, np.ones(1, dtype=bool), 52)[0], expected)
    assert np.array_equal(vrng.state_row(gen), fresh[0])


def test_unseeded_rows_differ_and_non_pcg64_is_refused() -> None:
    states = vrng.seeded_states([None, None])
    assert not np.array_equal(states[0], states[1])
    with pytest.raises(TypeError, match="PCG64"):
        vrng.state_row(np.random.Generator(np.random.MT19937(1)))


@pytest.mark.parametrize("env_id", sorted(__import__("patience_gym.vector", fromlist=["x"]).BATCHED_GAMES))
def test_every_batched_game_names_a_wrong_shape_or_dtype_before_its_kernels_run(env_id: str) -> None:
    """The kernels do not check bounds: each engine's own reset/step/step_reset checks their arrays."""
    from patience_gym.vector import batched_game_class

    game = batched_game_class(env_id)(3)
    game.seed([0, 1, 2])
    game.reset(np.ones(3, dtype=bool))
    before = game.observe()
    ok_actions = np.zeros(3, dtype=np.int64)
    calls = [
        (lambda: game.reset(np.ones(4, dtype=bool)), ValueError, r"which must have shape \(3,\)"),
        (lambda: game.reset(np.ones(3, dtype=np.int64)), TypeError, "which must be bool"),
        (lambda: game.step(np.zeros(5, dtype=np.int64)), ValueError, r"actions must have shape \(3,\)"),
        (lambda: game.step(np.zeros(3)), TypeError, "actions must be integers, got dtype float64"),
        (lambda: game.step_reset(ok_actions, np.zeros(9, dtype=bool)), ValueError, "resetting must have shape"),
        (lambda: game.step_reset(ok_actions, np.zeros(3, dtype=np.int8)), TypeError, "resetting must be bool"),
    ]
    resetting = np.array([True, False, False])
    calls += [
        (lambda: game.step_reset(np.zeros(3, dtype=np.float32), resetting), TypeError, "actions must be integers"),
        (lambda: game.step_reset(np.zeros(2, dtype=np.int64), resetting), ValueError, "actions must have shape"),
    ]
    for call, error, message in calls:
        with pytest.raises(error, match=message):
            call()
    assert np.array_equal(game.observe(), before)  # nothing was played or dealt
    with pytest.raises(ValueError, match="read-only"):  # the kernels trust their masks: they cannot be written
        game.legal()[0, 0] = True
    handed = game.masks()  # the caller's own copy: writing into it never reaches the kernels
    handed[:] = ~handed
    assert np.array_equal(game.masks(), ~handed)
    assert game.step_reset(np.zeros(3, dtype=np.uint8), resetting)[0][0] == 0.0  # any integer dtype, reset env


# --- the vector env's fronts: arrays handed out, masks at episode ends, input checks -----------------
BATCHED = sorted(__import__("patience_gym.vector", fromlist=["x"]).BATCHED_GAMES)
MODES = ["NextStep", "SameStep"]
#: A short step limit, so that every game (the Miss Milligan family's too) ends within a few dozen steps.
SHORT = 30


def _scribble(value: object) -> None:
    """Write over every array in ``value`` (nested dicts too), as a careless caller might."""
    if isinstance(value, dict):
        for item in value.values():
            _scribble(item)
    elif isinstance(value, np.ndarray) and value.size:
        if not value.flags.writeable:
            value.flags.writeable = True  # raises for a read-only view of a read-only array: the engine is safe
        if value.dtype == np.bool_:
            value[...] = ~value
        else:
            value[...] = 7


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


@pytest.mark.parametrize("encoding", ["ids", "planes"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", BATCHED)
def test_writing_into_every_returned_array_never_changes_the_engine(env_id: str, mode: str, encoding: str) -> None:
    """Issue 32: obs, rewards, flags, masks and every info entry are the caller's; an untouched twin agrees."""
    import gymnasium as gym

    def make() -> gym.vector.VectorEnv:
        return gym.make_vec(
            env_id, num_envs=4, vectorization_mode="vector_entry_point", obs_encoding=encoding,
            max_episode_steps=SHORT, autoreset_mode=mode,
        )  # fmt: skip

    scribbled, twin = make(), make()
    rng = np.random.default_rng(0)
    ends = 0
    for call in range(3 * SHORT + 5):
        if call in (0, 2 * SHORT):  # the second reset is the one `_score` written False used to skip
            kwargs = {"seed": 123 if call else 5}
            got, want = scribbled.reset(**kwargs), twin.reset(**kwargs)
        else:
            masks = twin.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            if call % 7 == 0:
                actions[0] = masks.shape[1] + 3  # an illegal action now and then
            got, want = scribbled.step(actions), twin.step(actions)
            ends += int((want[2] | want[3]).sum())
        got_masks = scribbled.action_masks()
        assert _same(got, want), (call, env_id, mode)
        assert np.array_equal(got_masks, twin.action_masks()), call
        _scribble(dict(enumerate(got)))
        _scribble(got_masks)
    assert ends > 0  # the loop went through episode ends and autoresets


def _masked_softmax_sample(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    logits = np.where(masks, rng.normal(size=masks.shape), -np.inf)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    assert not np.isnan(probs).any(), "an all-False mask row"
    return np.array([rng.choice(len(p), p=p) for p in probs])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", BATCHED)
def test_a_masked_softmax_samples_through_thousands_of_episode_ends(env_id: str, mode: str) -> None:
    """Issue 32: a row awaiting its reset is all True ("any action; it is ignored"), never all-False."""
    import gymnasium as gym

    env = gym.make_vec(
        env_id, num_envs=64, vectorization_mode="vector_entry_point", max_episode_steps=12,
        autoreset_mode=mode,
    )  # fmt: skip
    rng = np.random.default_rng(1)
    _, info = env.reset(seed=0)
    ends = 0
    while ends < 2000:
        masks = env.action_masks()
        assert np.array_equal(info["action_mask"].astype(bool), masks)
        assert masks.any(axis=1).all()
        _, _, terminated, truncated, info = env.step(_masked_softmax_sample(rng, masks))
        done = terminated | truncated
        ends += int(done.sum())
        if mode == "NextStep":
            assert env.action_masks()[done].all()  # awaiting reset: any action
    assert ends >= 2000


@pytest.mark.parametrize("env_id", BATCHED)
def test_the_sb3_adapter_masks_the_new_games_at_episode_ends(env_id: str) -> None:
    from agents.training.sb3_vec_env import make_sb3_vec_env

    venv = make_sb3_vec_env(env_id, 16, seed=3, env_kwargs={"max_episode_steps": 10})
    venv.reset()
    rng = np.random.default_rng(2)
    ends = 0
    for _ in range(40):
        masks = venv.action_masks()
        assert masks.any(axis=1).all()
        _, _, dones, infos = venv.step(_masked_softmax_sample(rng, masks))
        ends += int(dones.sum())
        new_masks = venv.action_masks()
        for i, info in enumerate(infos):  # the mask that goes with the observation returned
            assert np.array_equal(np.asarray(info["action_mask"], dtype=bool), new_masks[i])
    assert ends > 0


def test_the_sync_fallback_has_action_masks_and_the_same_mask_rule() -> None:
    import gymnasium as gym

    with pytest.warns(UserWarning, match="SyncVectorEnv"):
        env = gym.make_vec(
            "patience_gym/Golf-v0", num_envs=4, vectorization_mode="vector_entry_point", obs_encoding="ranks"
        )
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(200):
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and masks.any(axis=1).all()
        assert np.array_equal(info["action_mask"].astype(bool), masks)
        _, _, terminated, truncated, info = env.step(_masked_softmax_sample(rng, masks))
        ends += int((terminated | truncated).sum())
    assert ends > 0


def test_the_vector_env_names_bad_settings_and_inputs() -> None:
    import gymnasium as gym

    from patience_gym.core import IllegalActionError

    def make(**kwargs: object) -> gym.vector.VectorEnv:
        return gym.make_vec("patience_gym/Golf-v0", num_envs=2, vectorization_mode="vector_entry_point", **kwargs)

    with pytest.raises(ValueError, match="batched envs do not render"):
        make(render_mode="bogus")
    for mode in ("next-step", "Disabled", "bogus"):
        with pytest.raises(ValueError, match=r"AutoresetMode.NEXT_STEP \('NextStep'\) or AutoresetMode.SAME_STEP"):
            make(autoreset_mode=mode)
    env = make(illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(TypeError, match=r"reset options must be a dict \(or None\), got list"):
        env.reset(options=[1])  # type: ignore[arg-type]
    with pytest.raises(IllegalActionError, match="illegal action 18446744073709551615 \\(out of range\\) in env 0"):
        env.step(np.array([2**64 - 1, 0], dtype=np.uint64))


def test_make_vec_without_numba_names_the_vector_extra() -> None:
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['numba'] = None\n"
        "import gymnasium as gym, patience_gym\n"
        "try:\n"
        "    gym.make_vec('patience_gym/Golf-v0', num_envs=2, vectorization_mode='vector_entry_point')\n"
        "except ModuleNotFoundError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert "needs numba: pip install 'patience_gym[vector]'" in out.stdout, out.stderr


@pytest.mark.parametrize("options", [[1], "reset_mask", [("reset_mask", np.ones(2, dtype=bool))], [], 0])
def test_batched_reset_options_must_be_a_dict(options: object) -> None:
    """As the single env: reset options are a dict or None; a list of pairs is not read as one, nor [] as {}."""
    from patience_gym.vector.base import BatchedVectorEnv
    from patience_gym.vector.golf import BatchedGolf

    venv = BatchedVectorEnv(BatchedGolf(2))
    before, _ = venv.reset(seed=[1, 2])
    with pytest.raises(TypeError, match=rf"reset options must be a dict \(or None\), got {type(options).__name__}"):
        venv.reset(seed=[3, 4], options=options)  # type: ignore[arg-type]
    again, _ = venv.reset(options=None)
    assert again.shape == before.shape
    assert venv.reset(seed=[1, 2], options={})[0].tolist() == before.tolist()


# --- positions in and out: get_state / set_state ------------------------------------------------------
@pytest.mark.parametrize("env_id", BATCHED)
def test_set_state_plays_as_the_single_env_from_that_position(env_id: str, masked_random_action) -> None:
    """Positions reached by the single env: ``set_state`` then ``get_state`` gives them back; the engine's
    observation and mask then equal the single env's ``reset(options={"state": ...})``'s in every batched
    encoding, and both play on alike (rewards, ends, scores, positions), the progress rule's memory included."""
    import gymnasium as gym

    from patience_gym.vector import batched_game_class

    cls = batched_game_class(env_id)
    n = 12
    positions = reached_positions(env_id, n, seed=len(env_id))
    for encoding in cls.encodings:
        game = cls(n, obs_encoding=encoding)
        singles = [gym.make(env_id, obs_encoding=encoding, max_episode_steps=None) for _ in range(n)]
        obs, masks = [], []
        for i, (env, state) in enumerate(zip(singles, positions)):
            game.set_state(i, state)
            assert game.get_state(i) == canonical(state)
            o, info = env.reset(options={"state": state})
            obs.append(o)
            masks.append(info["action_mask"].astype(bool))
        assert np.array_equal(game.observe(), np.stack(obs))
        assert np.array_equal(game.masks(), np.stack(masks))
        rng = np.random.default_rng(3)
        live = ~np.array([not m.any() for m in masks])
        for _ in range(60):
            actions = np.array([masked_random_action(rng, m) if live[i] else -1 for i, m in enumerate(masks)])
            reward, terminated, _ = game.step(actions)
            scores, won, got = game.scores(), game.won(), game.observe()
            for i in np.flatnonzero(live):
                o, r, term, _, info = singles[i].step(actions[i])
                assert (r, term, info["score"], info["won"]) == (reward[i], terminated[i], scores[i], won[i])
                assert np.array_equal(o, got[i]) and game.get_state(i) == canonical(singles[i].unwrapped.state_dict())
                masks[i] = info["action_mask"].astype(bool)
                live[i] = not term
        assert np.array_equal(game.masks()[live], np.stack(masks)[live])


def test_set_state_refuses_what_the_rules_refuse() -> None:
    from patience_gym.vector.golf import BatchedGolf

    game = BatchedGolf(2)
    with pytest.raises(ValueError, match="Golf state lacks stock"):
        game.set_state(0, {"tableau": [[]] * 7, "waste": ["AS"]})
    with pytest.raises(ValueError, match="env index 2 is outside 0..1"):
        game.set_state(2, {})
    with pytest.raises(TypeError, match="env index must be an int, got str"):
        game.get_state("0")  # type: ignore[arg-type]
    codes = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"]
    too_long = {"tableau": [[]] * 7, "waste": codes[:1], "stock": codes[1:]}
    with pytest.raises(ValueError, match="a Golf stock holds at most 17 cards, got 51"):
        game.set_state(1, too_long)
