"""The batched engine's generic parts: numpy-exact shuffles (vector.rng) and the vector env fronts."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding

from patience_gym.vector import rng as vrng

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
    with pytest.raises(ValueError, match="read-only"):  # the kernels trust the masks: they cannot be written
        game.masks()[0, 0] = True
    assert game.step_reset(np.zeros(3, dtype=np.uint8), resetting)[0][0] == 0.0  # any integer dtype, reset env


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
