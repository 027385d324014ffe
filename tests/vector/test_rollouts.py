"""Determinized rollouts in the batched engine (``patience_gym.vector.rollouts``), against the single env.

Worlds of positions met in seeded random games (``game.determinize``) are played out in one engine,
then each world's recorded moves are replayed in ``gym.make(env_id)`` reset with
``options={"state": game.to_dict(world)}``: the returns, move counts, scores, wins, truncations and
final positions must be equal, bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from patience_gym import ENVS
from patience_gym.core import IllegalActionError
from patience_gym.vector.rollouts import RolloutResult, WorldRollouts, determinized
from tests.helpers.vector import canonical, reached_positions

ENV_IDS = sorted(ENVS)
GOLF, ROUND, MILLIGAN = "patience_gym/Golf-v0", "patience_gym/GolfRound-v0", "patience_gym/MissMilligan-v0"
PUSS = "patience_gym/PussInTheCorner-v0"
FAMILY = [MILLIGAN, "patience_gym/Giant-v0", "patience_gym/MissMilliganPocket-v0"]
PUSS_TAKES = slice(49, 53)  # take up packet A..D: the redeal, chosen by replaying the second pass
K = 8
FIELDS = ("scores", "won", "returns", "steps", "truncated", "actions")


def _short(env_id: str) -> str:
    return env_id.split("/")[1].removesuffix("-v0")


@cache
def rollouts(env_id: str, encoding: str | None = None) -> WorldRollouts:
    """One engine per env id and encoding for the module (its reuse across runs is part of what is tested)."""
    return WorldRollouts(env_id, K, obs_encoding=encoding)


def positions(env_id: str) -> list[Any]:
    """Rules states met in seeded masked-random games of the single env, at random depths (some ended)."""
    game = rollouts(env_id).game
    return [game.from_dict(d) for d in reached_positions(env_id, 6, seed=1)]


def replay(env_id: str, world: Any, moves: np.ndarray, max_steps: int, **kwargs: Any) -> dict[str, Any]:
    """``moves`` (padded with -1) played in the single env from ``world``: what a rollout result holds."""
    env: Any = gym.make(env_id, max_episode_steps=max_steps, **kwargs)
    obs, info = env.reset(options={"state": env.unwrapped.game.to_dict(world)})
    total, steps, terminated, truncated, observations = 0.0, 0, False, False, [obs]
    for move in moves[moves >= 0].tolist():
        assert not (terminated or truncated), "a move after the end"
        obs, reward, terminated, truncated, info = env.step(move)
        assert not info["illegal_action"], move
        total += reward
        steps += 1
        observations.append(obs)
    return {
        "returns": total,
        "steps": steps,
        "scores": info["score"],
        "won": info["won"],
        "truncated": truncated and not terminated,
        "state": canonical(env.unwrapped.state_dict()),
        "observations": observations,
        "over": not info["action_mask"].any(),
    }


def assert_plays_as_the_single_env(ro: WorldRollouts, worlds: list[Any], result: RolloutResult, max_steps: int) -> None:
    assert result.actions is not None
    assert all(len(getattr(result, name)) == len(worlds) for name in FIELDS)
    for i, world in enumerate(worlds):
        single = replay(ro.env_id, world, result.actions[i], max_steps)
        got = {name: getattr(result, name)[i] for name in ("returns", "steps", "scores", "won", "truncated")}
        assert got == {name: single[name] for name in got}, i
        assert ro.engine.get_state(i) == single["state"], i
        assert single["over"] or single["truncated"], i  # every world played to its end or to the limit


def test_the_positions_cover_live_and_ended_games() -> None:
    """The positions include ended games and live ones with hidden cards; a round's include a first hole."""
    for env_id in ENV_IDS:
        game = rollouts(env_id).game
        states = positions(env_id)
        live = [s for s in states if not game.is_over(s)]
        assert sum(len(game.unseen_cards(s)) > 1 for s in live) >= 2, env_id
        assert env_id == ROUND or len(live) < len(states), env_id
        if env_id == ROUND:
            assert any(s.hole == 0 for s in states) and any(s.hole > 0 for s in states)


@pytest.mark.parametrize("env_id", ENV_IDS, ids=_short)
def test_random_rollouts_of_determinized_worlds_play_as_the_single_env(env_id: str) -> None:
    ro = rollouts(env_id)
    game = ro.game
    rng = np.random.default_rng(11)
    crossed = 0
    for n, state in enumerate(positions(env_id)):
        before = game.to_dict(state)
        worlds = determinized(game, state, K, rng)
        assert game.to_dict(state) == before
        if len(game.unseen_cards(state)) > 1:
            assert len({str(game.to_dict(w)) for w in worlds}) > 1, n  # the worlds differ in their hidden cards
        result = ro.run(worlds, seed=n, record=True)
        assert result.actions is not None and result.actions.dtype == np.int16
        assert result.actions.shape == (K, result.steps.max())
        assert not result.truncated.any()  # random games end well within the registered limit
        assert_plays_as_the_single_env(ro, worlds, result, ro.max_steps)
        if env_id == ROUND and state.hole < 8:
            # The later holes are dealt from each world's own (determinized) deals, and played.
            later = [game.to_dict(w)["next_deals"] for w in worlds]
            assert all(deals != game.to_dict(state)["next_deals"] for deals in later)
            assert len({str(deals) for deals in later}) == K
            assert all(ro.engine.rules_state(i).hole == 8 for i in range(K))
            crossed += 1
    assert env_id != ROUND or crossed >= 2


@pytest.mark.parametrize("env_id", ENV_IDS, ids=_short)
def test_a_callable_policy_plays_as_its_rule_in_the_single_env(env_id: str) -> None:
    """The lowest legal move, picked by a callable that reads the masks; it is shown what the single env
    shows (observations in the ``planes`` encoding, masks), and the live worlds."""
    ro = rollouts(env_id, "planes")
    game = ro.game
    seen: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def lowest(masks: np.ndarray, observations: np.ndarray, live: np.ndarray) -> np.ndarray:
        assert masks.dtype == np.bool_ and masks.shape == (len(live), game.num_actions)
        assert np.array_equal(masks.any(axis=1), live)  # no world meets the registered limit
        seen.append((masks, observations, live))
        return masks.argmax(axis=1)

    states = [s for s in positions(env_id) if not game.is_over(s)][:2]
    worlds = [w for s in states for w in determinized(game, s, K // 2, np.random.default_rng(3))]
    result = ro.run(worlds, lowest, record=True)
    assert result.actions is not None and len(seen) == result.steps.max()
    assert_plays_as_the_single_env(ro, worlds, result, ro.max_steps)
    for i, world in enumerate(worlds):
        single = replay(env_id, world, result.actions[i], ro.max_steps, obs_encoding="planes")
        for t in range(result.steps[i]):
            masks, observations, live = seen[t]
            assert live[i] and result.actions[i, t] == np.flatnonzero(masks[i])[0], (i, t)
            assert np.array_equal(observations[i], single["observations"][t]), (i, t)
        assert (result.actions[i, result.steps[i] :] == -1).all()


@pytest.mark.parametrize("env_id", [GOLF, ROUND, PUSS, *FAMILY], ids=_short)
def test_the_greedy_policy_plays_the_greedy_agents_moves(env_id: str) -> None:
    """``policy="greedy"``: every move of every world is the move the greedy agent, started on the world,
    makes in the single env (Golf's run search, Puss's replay of the redeal, the Miss Milligan family's
    lookahead and resignation included), and the worlds play as the single env."""
    ro = rollouts(env_id)
    game = ro.game
    rng = np.random.default_rng(5)
    for state in [s for s in positions(env_id) if not game.is_over(s)][:3]:
        worlds = determinized(game, state, K, rng)
        result = ro.run(worlds, "greedy", record=True)
        assert result.actions is not None
        assert_plays_as_the_single_env(ro, worlds, result, ro.max_steps)
        for i, world in enumerate(worlds):
            env: Any = gym.make(env_id)
            env.reset(options={"state": game.to_dict(world)})
            player = greedy_player(env_id)
            for move in result.actions[i][result.actions[i] >= 0].tolist():
                assert move == player(game, env.unwrapped.state, env.unwrapped.action_masks()), (i, move)
                env.step(move)


@pytest.mark.parametrize("env_id", [GOLF, PUSS, MILLIGAN], ids=_short)
def test_the_greedy_moves_of_chosen_envs_only(env_id: str) -> None:
    """``greedy_moves(which)`` computes the envs in ``which`` (the others get 0); a bad ``which`` is refused."""
    engine = WorldRollouts(env_id, 6).engine
    engine.seed(list(range(6)))
    engine.reset(np.ones(6, dtype=bool))
    every = engine.greedy_moves()
    which = np.array([True, False, True, False, False, True])
    assert np.array_equal(engine.greedy_moves(which), np.where(which, every, 0))
    with pytest.raises(ValueError, match="which"):
        engine.greedy_moves(np.ones(5, dtype=bool))


def test_an_engine_without_the_greedy_refuses_it_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    ro = rollouts(MILLIGAN)
    monkeypatch.setattr(type(ro.engine), "has_greedy", False)
    with pytest.raises(ValueError, match="policy 'greedy' is not built into patience_gym/MissMilligan-v0's batched"):
        ro.run([ro.game.init(np.random.default_rng(0))], "greedy")


def greedy_player(env_id: str) -> Callable[[Any, Any, np.ndarray], int]:
    """The greedy agent's rule for one game, ``player(game, state, mask) -> move``, with its memory (the
    Miss Milligan family's resignation mark) kept from the first call on."""
    from patience_gym.heuristics import greedy_move
    from patience_gym.heuristics.milligan_greedy import GreedyRules

    return GreedyRules().choose if env_id in FAMILY else greedy_move


@pytest.mark.parametrize("env_id", [GOLF, PUSS, *FAMILY], ids=_short)
def test_the_engines_greedy_moves_are_the_greedy_agents_in_every_position_met(
    env_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``engine.greedy_moves()`` against the greedy agent's rule in every live position of 32 games played
    by the greedy with one random move in ten: every phase, Puss's redeals planned by replay and the
    Miss Milligan family's lookahead lines included."""
    from patience_gym.heuristics import milligan_greedy

    found = []
    lookahead = milligan_greedy.lookahead
    monkeypatch.setattr(milligan_greedy, "lookahead", lambda *a: found.append(lookahead(*a)) or found[-1])
    engine = WorldRollouts(env_id, 32).engine
    game = engine.game
    players = [greedy_player(env_id) for _ in range(32)]
    engine.seed(list(range(32)))
    engine.reset(np.ones(32, dtype=bool))
    rng = np.random.default_rng(0)
    checked = chosen = 0
    for _ in range(250):
        moves, masks = engine.greedy_moves(), engine.masks()
        live = masks.any(axis=1)
        if not live.any():
            break
        for i in np.flatnonzero(live):
            assert moves[i] == players[i](game, engine.rules_state(i), masks[i]), (i, moves[i])
            checked += 1
            if env_id in (GOLF, PUSS):  # a choice among plays (Golf's run search) or take-ups (Puss's replay)
                chosen += int(masks[i][slice(0, 7) if env_id == GOLF else PUSS_TAKES].sum() > 1)
        random_moves = [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks]
        engine.step(np.where(live, np.where(rng.random(32) < 0.1, random_moves, moves), -1))
    if env_id in FAMILY:
        chosen = sum(line is not None for line in found)  # moves the lookahead chose
        assert len(found) > chosen, "the lookahead never failed: the resignation mark is not tested"
    assert checked > 1000 and chosen > 40, (checked, chosen)


def test_the_same_seed_gives_the_same_result_and_another_seed_another() -> None:
    ro = rollouts(MILLIGAN)
    game = ro.game
    state = game.init(np.random.default_rng(4))
    assert len(game.legal_actions(state)) > 1
    worlds = determinized(game, state, K, np.random.default_rng(5))
    assert [game.to_dict(w) for w in worlds] == [
        game.to_dict(w) for w in determinized(game, state, K, np.random.default_rng(5))
    ]
    first = ro.run(worlds, seed=6, record=True)
    ro.run(determinized(game, state, K, np.random.default_rng(7)), seed=8)  # the engine plays other worlds between
    again = ro.run(worlds, seed=6, record=True)
    other = ro.run(worlds, seed=9, record=True)
    for name in FIELDS:
        assert np.array_equal(getattr(first, name), getattr(again, name)), name
    assert first.actions is not None and other.actions is not None
    assert first.actions.shape != other.actions.shape or not np.array_equal(first.actions, other.actions)
    assert not np.array_equal(first.actions[:, 0], other.actions[:, 0])
    # run_determinized: the worlds and the moves from one generator
    one = ro.run_determinized(state, K, np.random.default_rng(10), record=True)
    two = ro.run_determinized(state, K, 10, record=True)
    three = ro.run_determinized(state, K, 11, record=True)
    assert all(np.array_equal(getattr(one, name), getattr(two, name)) for name in FIELDS)
    assert one.actions is not None and three.actions is not None
    assert one.actions.shape != three.actions.shape or not np.array_equal(one.actions, three.actions)


def test_the_random_policy_picks_uniformly_among_the_legal_moves() -> None:
    """The first move of many copies of one position: only legal moves, each about equally often (chi-square)."""
    from scipy.stats import chisquare

    ro = WorldRollouts(MILLIGAN, 600)
    game = ro.game
    state = game.init(np.random.default_rng(22))
    legal = game.legal_actions(state)
    assert len(legal) > 2
    result = ro.run([state] * 600, seed=23, max_steps=1, record=True)
    assert result.actions is not None and result.truncated.all()
    counts = np.bincount(result.actions[:, 0], minlength=game.num_actions)
    assert counts.sum() == 600 and set(np.flatnonzero(counts)) <= set(legal)
    assert chisquare(counts[legal]).pvalue > 1e-4


def test_max_steps_truncates_the_worlds_still_playing() -> None:
    ro = rollouts(ROUND)
    game = ro.game
    state = game.init(np.random.default_rng(12))
    ended = next(s for s in positions(GOLF) if rollouts(GOLF).game.is_over(s))
    golf = rollouts(GOLF)
    worlds = determinized(game, state, 5, np.random.default_rng(13))
    result = ro.run(worlds, seed=14, max_steps=3, record=True)
    assert result.steps.tolist() == [3] * 5 and result.truncated.all() and result.actions is not None
    assert result.actions.shape == (5, 3) and (result.actions >= 0).all()
    assert_plays_as_the_single_env(ro, worlds, result, 3)
    # A world that ends before the limit is not truncated; one that had ended makes no move.
    live = golf.game.init(np.random.default_rng(15))
    mixed = golf.run([ended, live, live], golf_lowest, max_steps=60, record=True)  # a hole has at most 51 moves
    assert mixed.steps[0] == 0 and not mixed.truncated[0] and mixed.actions is not None
    assert 0 < mixed.steps[1] < 60 and not mixed.truncated[1:].any()
    assert_plays_as_the_single_env(golf, [ended, live, live], mixed, 60)
    short = golf.run([ended, live], golf_lowest, max_steps=2)
    assert short.steps.tolist() == [0, 2] and short.truncated.tolist() == [False, True]
    assert short.actions is None


def golf_lowest(masks: np.ndarray, observations: np.ndarray, live: np.ndarray) -> np.ndarray:
    return masks.argmax(axis=1)


def test_bad_input_is_refused_by_name_before_any_work() -> None:
    ro = rollouts(MILLIGAN)
    game = ro.game
    state = game.init(np.random.default_rng(16))
    ro.run([state], seed=0)
    before = [ro.engine.get_state(i) for i in range(K)]
    golf_state = rollouts(GOLF).game.init(np.random.default_rng(0))
    with pytest.raises(ValueError, match="states is empty"):
        ro.run([])
    with pytest.raises(ValueError, match=f"9 states, but this WorldRollouts has {K} slots"):
        ro.run([state] * 9)
    with pytest.raises(TypeError, match=r"states\[1\] is a GolfState, not a MilliganState of patience_gym/MissMill"):
        ro.run([state, golf_state])
    with pytest.raises(TypeError, match="states must be a sequence"):
        ro.run(state)
    with pytest.raises(ValueError, match="unknown policy 'best'; give one of \\['random', 'greedy'\\] or a callable"):
        ro.run([state], "best")
    with pytest.raises(TypeError, match="policy must be one of \\['random', 'greedy'\\] or a callable, got int"):
        ro.run([state], 3)  # type: ignore[arg-type]
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match=f"max_steps must be a positive integer, got {bad!r}"):
            ro.run([state], max_steps=bad)  # type: ignore[arg-type]
    for bad in (0, -2):
        with pytest.raises(ValueError, match=f"k must be a positive integer, got {bad}"):
            determinized(game, state, bad, np.random.default_rng(0))
        with pytest.raises(ValueError, match=f"k must be a positive integer, got {bad}"):
            ro.run_determinized(state, bad, 0)
    with pytest.raises(ValueError, match=f"k=9 worlds, but this WorldRollouts has {K} slots"):
        ro.run_determinized(state, 9, 0)
    with pytest.raises(TypeError, match="state is a GolfState, not a MilliganState"):
        ro.run_determinized(golf_state, 2, 0)
    assert [ro.engine.get_state(i) for i in range(K)] == before  # nothing was loaded
    with pytest.raises(ValueError, match="slots must be a positive integer, got 0"):
        WorldRollouts(GOLF, 0)
    with pytest.raises(ValueError, match="has no batched engine"):
        WorldRollouts("patience_gym/Nope-v0", 2)


def test_a_callable_policy_is_checked_each_step() -> None:
    ro = rollouts(GOLF)
    game = ro.game
    state = game.init(np.random.default_rng(17))
    worlds = determinized(game, state, 3, np.random.default_rng(18))
    with pytest.raises(ValueError, match=r"one action per world, shape \(3,\); got shape \(8,\)"):
        ro.run(worlds, lambda m, o, live: np.zeros(8, dtype=np.int64))
    with pytest.raises(ValueError, match="integer actions; got dtype float64"):
        ro.run(worlds, lambda m, o, live: m.argmax(axis=1).astype(float))
    with pytest.raises(ValueError, match="integer actions; got dtype bool"):
        ro.run(worlds, lambda m, o, live: live)
    masked_out = int(np.flatnonzero(~game.legal_mask(state))[0])
    shown = game.describe_action(masked_out)

    def second_world_errs(masks: np.ndarray, observations: np.ndarray, live: np.ndarray) -> np.ndarray:
        actions = masks.argmax(axis=1)
        actions[1] = masked_out
        return actions

    with pytest.raises(IllegalActionError, match=rf"illegal action {masked_out} \({shown}\) in world 1 of .*Golf"):
        ro.run(worlds, second_world_errs)
    with pytest.raises(IllegalActionError, match=r"illegal action -1 \(outside 0..\d+\) in world 0"):
        ro.run(worlds, lambda m, o, live: np.full(3, -1))
    # The actions of worlds that have ended are ignored.
    ended = next(s for s in positions(GOLF) if game.is_over(s))
    result = ro.run([ended, state], lambda m, o, live: np.where(live, m.argmax(axis=1), -7))
    assert result.steps[0] == 0 and result.steps[1] > 0


def test_the_arrays_handed_out_are_fresh() -> None:
    """Writing into a result, or into what a policy is given, changes neither the engine nor the next run."""
    ro = rollouts(GOLF)
    game = ro.game
    worlds = determinized(game, game.init(np.random.default_rng(19)), K, np.random.default_rng(20))
    first = ro.run(worlds, seed=21, record=True)
    kept = {name: getattr(first, name).copy() for name in FIELDS}
    scores = ro.engine.scores()
    for name in FIELDS:
        array = getattr(first, name)
        array[...] = np.zeros_like(array) if array.dtype != np.int16 else 5
    assert np.array_equal(ro.engine.scores(), scores)
    again = ro.run(worlds, seed=21, record=True)
    assert all(np.array_equal(getattr(again, name), kept[name]) for name in FIELDS)

    def scribbler(masks: np.ndarray, observations: np.ndarray, live: np.ndarray) -> np.ndarray:
        actions = masks.argmax(axis=1)
        masks[...] = True
        observations[...] = 0
        live[...] = False
        return actions

    plain = ro.run(worlds, golf_lowest, record=True)
    scribbled = ro.run(worlds, scribbler, record=True)
    assert all(np.array_equal(getattr(plain, name), getattr(scribbled, name)) for name in FIELDS)
