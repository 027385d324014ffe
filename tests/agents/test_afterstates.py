"""``MilliganAfterstates``: the positions it rebuilds from the planes, and those it makes for each legal move,
against the game's own state and ``apply`` over random playouts of every Miss Milligan game."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

import patience_gym  # noqa: F401 - registers the envs
from agents.training.afterstates import (
    CARD_PILE,
    DEPTH,
    RESERVE_PILE,
    WORK,
    MilliganAfterstates,
    PositionValue,
    afterstates,
    read_position,
)
from patience_gym.features.rules import layout as L
from patience_gym.games.milligan import MilliganState
from patience_gym.games.milligan_tables import DEAL, MAX_RUN, NUM_COLUMNS

GAMES = [
    ("patience_gym/MissMilligan-v0", {}),
    ("patience_gym/MissMilligan-v0", {"waive_sequences": True}),
    ("patience_gym/Giant-v0", {}),
    ("patience_gym/MissMilliganPocket-v0", {}),
]


def expected(state: MilliganState, deal: bool = False) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """The piles (exposed end first), sorted heights per suit and the reserve size and foundation cards."""
    piles = np.zeros((CARD_PILE + 1, WORK + 1), dtype=np.int64)
    for j, column in enumerate(state.columns):
        top = [c + 1 for c in reversed(column)][:WORK]
        piles[j, : len(top)] = top
    reserve = [c + 1 for c in reversed(state.reserve)]
    piles[RESERVE_PILE, : len(reserve)] = reserve
    found = np.sort(np.asarray(state.found).reshape(4, 2), axis=1)
    return piles, found, [float(deal), len(state.reserve) / MAX_RUN, sum(state.found) / 104]


def play(env_id: str, kwargs: dict[str, Any], seed: int, steps: int) -> list[tuple[np.ndarray, MilliganState, Any]]:
    """Positions of a masked-random playout (the deal held back now and then so that columns grow)."""
    env = gym.make(env_id, obs_encoding="rules_moves", **kwargs)
    core: Any = env.unwrapped
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    seen = []
    for _ in range(steps):
        seen.append((obs, core.state.copy(), core.game))
        legal = np.flatnonzero(info["action_mask"])
        if len(legal) > 1 and rng.random() < 0.8:
            legal = legal[legal != DEAL]
        obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
        if term or trunc:
            obs, info = env.reset(seed=int(rng.integers(1 << 30)))
    return seen


@pytest.mark.parametrize(("env_id", "kwargs"), GAMES)
def test_afterstates_are_the_games_own_moves(env_id, kwargs):
    seen = play(env_id, kwargs, seed=7, steps=400)
    obs = torch.as_tensor(np.stack([o for o, _, _ in seen]))
    position = read_position(obs)
    moves = 0
    for i, (o, state, game) in enumerate(seen):
        piles, found, glob = expected(state)
        assert np.array_equal(position.piles[i].numpy()[: RESERVE_PILE + 1], piles[: RESERVE_PILE + 1])
        assert np.array_equal(position.found[i].numpy(), found)
        legal = game.legal_actions(state)
        rows = o[len(o) - 128 * L.ROW :].reshape(128, L.ROW)
        actions = np.round(rows[: len(legal), L.ACTION] * 1010).astype(int) - 1
        assert list(actions) == legal[:128]
        after = afterstates(
            position,
            torch.full((len(actions),), i),
            torch.as_tensor(actions),
            torch.as_tensor(rows[: len(actions), L.MOVED]),
        )
        for m, action in enumerate(actions):
            if action == DEAL:
                want_piles, want_found, want_glob = expected(state, deal=True)
            else:
                child = state.copy()
                game.apply(child, int(action))
                want_piles, want_found, want_glob = expected(child)
            # Cards deeper than WORK - MAX_RUN may be missing after a move that takes cards: tokens read DEPTH.
            got = after.piles[m].numpy()
            assert np.array_equal(got[:NUM_COLUMNS, : DEPTH + 1], want_piles[:NUM_COLUMNS, : DEPTH + 1]), action
            assert np.array_equal(got[RESERVE_PILE, : MAX_RUN + 1], want_piles[RESERVE_PILE, : MAX_RUN + 1])
            assert np.array_equal(after.found[m].numpy(), want_found), action
            assert after.glob[m, 2:].tolist() == pytest.approx(want_glob)
            moves += 1
    assert moves > 1000


@pytest.mark.parametrize(("env_id", "kwargs"), GAMES)
def test_afterstate_values_reembed_only_what_a_move_changes_and_equal_the_full_embedding(env_id, kwargs):
    seen = play(env_id, kwargs, seed=11, steps=300)
    obs = torch.as_tensor(np.stack([o for o, _, _ in seen]))
    rows = obs[:, obs.shape[1] - 128 * L.ROW :].reshape(len(seen), 128, L.ROW)
    owner, slot = torch.nonzero(rows[:, :, L.ACTION] > 0, as_tuple=True)
    actions = torch.round(rows[owner, slot, L.ACTION] * 1010).long() - 1
    moved = rows[owner, slot, L.MOVED]
    torch.manual_seed(0)
    value = PositionValue(width=32)
    for p in value.parameters():  # weights large enough that every token and pooled entry matters
        torch.nn.init.normal_(p, std=0.5)
    position = read_position(obs)
    with torch.no_grad():
        full = value(afterstates(position, owner, actions, moved))
        fast = value.afterstate_values(position, value.cells(position), owner, actions, moved)
    assert len(actions) > 1000 and full.std() > 1.0
    assert torch.allclose(fast, full, rtol=1e-5, atol=1e-4 * float(full.abs().max()))


def test_extractor_scores_each_listed_move_by_its_afterstate():
    env = gym.make("patience_gym/MissMilligan-v0", obs_encoding="rules_moves")
    layout = env.unwrapped.observer.layout  # type: ignore[attr-defined]
    net = MilliganAfterstates(env.observation_space, **layout, width=16).eval()
    obs, info = env.reset(seed=3)
    x = torch.as_tensor(np.stack([obs, obs]))
    with torch.no_grad():
        out = net(x)
    mask = info["action_mask"].astype(bool)
    logits = out[:, : len(mask)].numpy()
    assert np.array_equal(logits[0], logits[1])
    assert (logits[0][~mask] == -10.0).all()
    legal = np.flatnonzero(mask)
    rows = torch.as_tensor(obs[len(obs) - net.slots * L.ROW :].reshape(net.slots, L.ROW)[: len(legal)])
    owner = torch.zeros(len(legal), dtype=torch.long)
    with torch.no_grad():
        values = net.value(afterstates(read_position(x[:1]), owner, torch.as_tensor(legal), rows[:, L.MOVED]))
    assert np.allclose(logits[0][legal], values.numpy(), atol=1e-5)
    assert out.shape[1] == net.features_dim


def test_extractor_refuses_other_encodings():
    env = gym.make("patience_gym/PussInTheCorner-v0", obs_encoding="rules_moves")
    layout = env.unwrapped.observer.layout  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="Miss Milligan family's 'rules_moves'"):
        MilliganAfterstates(env.observation_space, **layout)


def test_separate_critic_skips_the_afterstates_and_the_model_reloads(tmp_path):
    from sb3_contrib import MaskablePPO

    from agents.training.networks import LogitsPolicy, complete_extractor_kwargs

    env = gym.make("patience_gym/Giant-v0", obs_encoding="rules_moves")
    kwargs = complete_extractor_kwargs(
        {
            "features_extractor_class": MilliganAfterstates,
            "features_extractor_kwargs": {"width": 16},
            "share_features_extractor": False,
            "critic_reads_logits": False,
        },
        env.unwrapped.observer.layout,  # type: ignore[attr-defined]
    )
    model = MaskablePPO(LogitsPolicy, env, n_steps=32, batch_size=16, n_epochs=1, policy_kwargs=kwargs, seed=0)
    assert model.policy.vf_features_extractor.critic_only
    assert not model.policy.pi_features_extractor.critic_only
    model.learn(32)
    obs, info = env.reset(seed=5)
    with torch.no_grad():
        critic = model.policy.vf_features_extractor(torch.as_tensor(obs[None]))
    assert (critic[0, :1010] == -10.0).all()
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip")
    assert loaded.policy.vf_features_extractor.critic_only
    mask = info["action_mask"].astype(bool)
    assert (
        loaded.predict(obs, action_masks=mask, deterministic=True)[0]
        == model.predict(obs, action_masks=mask, deterministic=True)[0]
    )
