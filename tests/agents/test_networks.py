"""Card-embedding feature extractor and the config's policy_kwargs resolution."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from torch import nn

from agents.training.config import ConfigError, resolve_policy, resolve_policy_kwargs
from agents.training.networks import CardEmbedding, GolfColumns, GolfMoves, MoveScorer, _LinkChains
from patience_gym.features import observe


def test_card_embedding_shapes_and_rank_sharing():
    env = gym.make("patience_gym/Golf-v0")
    extractor = CardEmbedding(env.observation_space, card_slots=36, embed_dim=8, attention=False)
    obs, _ = env.reset(seed=0)
    batch = torch.as_tensor(np.stack([obs, obs]), dtype=torch.float32)
    features = extractor(batch)
    assert features.shape == (2, 36 * 8 + 1) == (2, extractor.features_dim)
    # Same card in the same slot => same features; the stock count is scaled into [0, 1].
    assert torch.equal(features[0], features[1])
    assert 0 <= features[0, -1] <= 1


def test_card_embedding_trains_with_maskable_ppo():
    from sb3_contrib import MaskablePPO

    env = gym.make("patience_gym/Golf-v0")
    kwargs = resolve_policy_kwargs(
        {
            "features_extractor_class": "agents.training.networks.CardEmbedding",
            "features_extractor_kwargs": {"card_slots": 36},
        }
    )
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=kwargs, n_steps=64, batch_size=32, n_epochs=1)
    model.learn(64)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks())
    assert env.unwrapped.action_masks()[int(action)]


def test_bad_policy_kwargs_are_named():
    with pytest.raises(ConfigError, match="cannot import 'agents.training.networks.Nope'"):
        resolve_policy_kwargs({"features_extractor_class": "agents.training.networks.Nope"})
    with pytest.raises(ConfigError, match="torch.nn has no 'Relu'"):
        resolve_policy_kwargs({"activation_fn": "Relu"})
    assert resolve_policy_kwargs({"activation_fn": "ReLU"})["activation_fn"] is torch.nn.ReLU
    with pytest.raises(ValueError, match="card_slots must be in 1..37"):
        CardEmbedding(gym.make("patience_gym/Golf-v0").observation_space, card_slots=40)


def _swap_columns(obs: np.ndarray, a: int, b: int) -> np.ndarray:
    out = obs.copy()
    links = out[:35].reshape(5, 7).copy()
    links[:, [a, b]] = links[:, [b, a]]
    out[:35] = links.reshape(-1)
    return out


def test_golf_columns_scores_each_column_with_shared_weights():
    env = gym.make("patience_gym/Golf-v0")
    net = GolfColumns(env.observation_space, embed_dim=16, layers=1)
    obs, _ = env.reset(seed=2)
    out = net(torch.as_tensor(np.stack([obs, _swap_columns(obs, 0, 3)]), dtype=torch.float32))
    assert out.shape == (2, 8 + 16) == (2, net.features_dim)
    # Moving a column moves its logit with it; the deal logit and the value features stay.
    torch.testing.assert_close(out[0, [3, 1, 2, 0, 4, 5, 6, 7]], out[1, :8])
    torch.testing.assert_close(out[0, 8:], out[1, 8:])
    with pytest.raises(ValueError, match="'ids' observation"):
        GolfColumns(gym.make("patience_gym/Golf-v0", obs_encoding="planes").observation_space)


def test_logits_policy_trains_saves_and_reloads(tmp_path):
    from sb3_contrib import MaskablePPO

    env = gym.make("patience_gym/Golf-v0")
    kwargs = resolve_policy_kwargs(
        {
            "features_extractor_class": "agents.training.networks.GolfColumns",
            "features_extractor_kwargs": {"embed_dim": 16},
        }
    )
    model = MaskablePPO(
        resolve_policy("agents.training.networks.LogitsPolicy"), env, policy_kwargs=kwargs, n_steps=64, batch_size=32
    )
    model.learn(64)
    obs, _ = env.reset(seed=1)
    with torch.no_grad():
        features = model.policy.extract_features(torch.as_tensor(obs[None], dtype=torch.float32))
        logits = model.policy.get_distribution(torch.as_tensor(obs[None], dtype=torch.float32)).distribution.logits
    # The action logits are the extractor's first eight outputs (normalised by the distribution).
    torch.testing.assert_close(logits - logits.logsumexp(-1, keepdim=True), features[:, :8].log_softmax(-1))
    model.save(tmp_path / "m.zip")
    again = MaskablePPO.load(tmp_path / "m.zip")
    mask = env.unwrapped.action_masks()
    assert (
        model.predict(obs, action_masks=mask, deterministic=True)[0]
        == again.predict(obs, action_masks=mask, deterministic=True)[0]
    )
    with pytest.raises(ConfigError, match="cannot import 'agents.training.networks.Nope'"):
        resolve_policy("agents.training.networks.Nope")
    assert resolve_policy("MlpPolicy") == "MlpPolicy"


def _golf_runs_obs(env_id: str, seed: int, swap: tuple[int, int] | None = None, encoding: str = "runs") -> np.ndarray:
    """The ``runs`` (or ``encoding``) observation after reset, optionally with two columns of the hole swapped."""
    from patience_gym.games.golf import hole_in_play

    env = gym.make(env_id, obs_encoding=encoding)
    obs, _ = env.reset(seed=seed)
    if swap is None:
        return obs
    game, hole = hole_in_play(env.unwrapped.game, env.unwrapped.state)
    a, b = swap
    hole.columns[a], hole.columns[b] = hole.columns[b], hole.columns[a]
    return observe(env.unwrapped.game, env.unwrapped.state, encoding)


@pytest.mark.parametrize(("encoding", "chain_rounds"), [("runs", 0), ("rules_moves", 0), ("rules_moves", 2)])
@pytest.mark.parametrize("env_id", ["patience_gym/Golf-v0", "patience_gym/GolfRound-v0"])
def test_golf_moves_scores_each_column_with_shared_weights(env_id, encoding, chain_rounds):
    torch.manual_seed(0)
    seed = 5 if encoding == "runs" else 18  # (columns 2 and 5 can both play: both have move rows)
    obs = _golf_runs_obs(env_id, seed=seed, encoding=encoding)
    swapped = _golf_runs_obs(env_id, seed=seed, swap=(1, 4), encoding=encoding)
    assert not np.array_equal(obs, swapped)
    space = gym.make(env_id, obs_encoding=encoding).observation_space
    net = GolfMoves(space, hidden=16, encoding=encoding, chain_rounds=chain_rounds, chain_width=8)
    out = net(torch.as_tensor(np.stack([obs, swapped]), dtype=torch.float32))
    assert out.shape == (2, 8 + 32) == (2, net.features_dim)
    # Swapping two columns swaps their logits; the deal logit and the value features stay.
    torch.testing.assert_close(out[0, [0, 4, 2, 3, 1, 5, 6, 7]], out[1, :8])
    torch.testing.assert_close(out[0, 8:], out[1, 8:])


def _golf_moves_by_einsum(net: GolfMoves, obs: torch.Tensor) -> torch.Tensor:
    """GolfMoves' forward written out plainly (the formulation before it was made fast): the reference."""
    from patience_gym.features.golf import RUNS_SIZE
    from patience_gym.games.golf import PLANE_WIDTH

    card_rank = torch.zeros(52, 13)
    card_rank[torch.arange(52), torch.arange(52) % 13] = 1.0
    planes = obs[:, : 52 * PLANE_WIDTH].view(-1, 52, PLANE_WIDTH)
    column, row = planes[:, :, :7], planes[:, :, 7:12]
    exposed, waste_top, in_waste = planes[:, :, 12], planes[:, :, 13], planes[:, :, 14]
    grid = torch.einsum("bkc,bkr,kq->bcrq", column, row, card_rank)
    exposed_rank = torch.einsum("bkc,bk,kq->bcq", column, exposed, card_rank)
    runs = obs[:, 52 * PLANE_WIDTH + 1 : RUNS_SIZE].view(-1, 7, 3) * net.run_scale
    unseen = (4.0 - column.sum(dim=2) @ card_rank - in_waste @ card_rank) / 4.0
    padded = torch.nn.functional.pad(unseen, (1, 1))
    neighbours = torch.stack([padded[:, :-2], padded[:, 2:]], dim=2)
    chances = torch.einsum("bcrq,bqk->bcrk", grid, neighbours).flatten(2)
    stock = obs[:, 52 * PLANE_WIDTH : 52 * PLANE_WIDTH + 1]
    g = net.glob(torch.cat([waste_top @ card_rank, unseen, stock, obs[:, RUNS_SIZE:]], dim=1))
    tokens = net.column(
        torch.cat([grid.flatten(2), chances, exposed_rank, runs, g.unsqueeze(1).expand(-1, 7, -1)], dim=2)
    )
    pooled = tokens.mean(dim=1, keepdim=True).expand(-1, 7, -1)
    tokens = net.mix(torch.cat([tokens, pooled], dim=2))
    state = torch.cat([tokens.mean(dim=1), g], dim=1)
    logits = torch.cat([net.play(tokens).squeeze(-1), net.deal(state)], dim=1)
    return torch.cat([logits, state], dim=1)


@pytest.mark.parametrize("env_id", ["patience_gym/Golf-v0", "patience_gym/GolfRound-v0"])
def test_golf_moves_matches_its_plain_formulation_on_played_positions(env_id):
    env = gym.make(env_id, obs_encoding="runs")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=11)
    rows = []
    while len(rows) < 300:  # random play: early, middle and late positions, holes and resets
        rows.append(obs)
        obs, _, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        if terminated or truncated:
            obs, _ = env.reset()
    batch = torch.as_tensor(np.stack(rows), dtype=torch.float32)
    torch.manual_seed(1)
    net = GolfMoves(env.observation_space, hidden=16)
    torch.testing.assert_close(net(batch), _golf_moves_by_einsum(net, batch))


def _link_grid(columns: list[list[int]]) -> torch.Tensor:
    """One-hot ranks of Golf's link slots ``column * 5 + row``, (35, 13)."""
    grid = torch.zeros(35, 13)
    for c, col in enumerate(columns):
        for r, card in enumerate(col):
            grid[c * 5 + r, card % 13] = 1.0
    return grid


def _dense_message(chains: _LinkChains, columns: list[list[int]], h: torch.Tensor) -> torch.Tensor:
    """The message written plainly: each card's successors one by one (the reference)."""
    fit = torch.sigmoid(chains.fit)
    message = torch.zeros_like(h)
    for c, col in enumerate(columns):
        for r, card in enumerate(col):
            successors = [(d, len(other) - 1) for d, other in enumerate(columns) if d != c and other]
            successors += [(c, r - 1)] if r > 0 else []
            for d, s in successors:
                message[c * 5 + r] += fit[card % 13, columns[d][s] % 13] * h[d * 5 + s]
    return message


def test_link_chains_messages_reach_the_other_exposed_cards_and_the_card_beneath():
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    chains = _LinkChains(rounds=1, width=4)
    with torch.no_grad():
        chains.fit.normal_()  # every (rank, next rank) pair weighs differently
    positions = []
    for _ in range(20):  # random Golf links: 0..5 cards left in each column
        cards = rng.permutation(52)[:35].tolist()
        positions.append([cards[c * 5 : c * 5 + int(rng.integers(0, 6))] for c in range(7)])
    grid = torch.stack([_link_grid(p) for p in positions])
    h = torch.randn(len(positions), 35, 4)
    message = chains.message(h, chains.links(grid))
    expected = torch.stack([_dense_message(chains, p, h[i]) for i, p in enumerate(positions)])
    torch.testing.assert_close(message, expected)


def test_link_chains_rounds_read_the_first_states_and_the_messages():
    torch.manual_seed(1)
    chains = _LinkChains(rounds=2, width=4)
    rng = np.random.default_rng(1)
    positions = []
    for _ in range(8):
        cards = rng.permutation(52)[:35].tolist()
        positions.append([cards[c * 5 : c * 5 + int(rng.integers(0, 6))] for c in range(7)])
    grid = torch.stack([_link_grid(p) for p in positions])
    chances = torch.rand(len(positions), 35, 2)
    links = chains.links(grid)
    row = nn.functional.one_hot(torch.arange(35) % 5, 5).float().expand(len(positions), -1, -1)
    first = torch.relu(chains.embed(torch.cat([grid, row, chances, links.exposed.view(-1, 35, 1)], dim=2)))
    h = first
    for layer in chains.rounds:  # each round written plainly: layer([first, message])
        h = torch.relu(layer(torch.cat([first, _LinkChains.message(h, links)], dim=2)))
    expected = (h.view(-1, 7, 5, 4) * links.exposed.unsqueeze(-1)).sum(dim=2)
    torch.testing.assert_close(chains(grid, chances), expected)


def test_golf_moves_reads_the_hole_number_of_a_round_and_rejects_other_encodings():
    net = GolfMoves(gym.make("patience_gym/GolfRound-v0", obs_encoding="runs").observation_space, hidden=16)
    obs = torch.as_tensor(_golf_runs_obs("patience_gym/GolfRound-v0", seed=3)[None], dtype=torch.float32)
    later = obs.clone()
    later[0, -1] = 1.0  # the last hole instead of the first
    assert not torch.equal(net(obs), net(later))
    with pytest.raises(ValueError, match="'runs' or 'rules_moves' encoding"):
        GolfMoves(gym.make("patience_gym/Golf-v0", obs_encoding="planes").observation_space)
    rules = gym.make("patience_gym/Golf-v0", obs_encoding="rules_moves").observation_space
    with pytest.raises(ValueError, match="chain_rounds must be >= 0 and chain_width >= 1, got 2 and 0"):
        GolfMoves(rules, encoding="rules_moves", chain_rounds=2, chain_width=0)


def test_move_scorer_scores_each_action_from_its_own_features():

    from patience_gym.features.puss import MOVES_GLOBAL
    from patience_gym.heuristics.puss_moves import MOVE_FEATURES

    env = gym.make("patience_gym/PussInTheCorner-v0", obs_encoding="moves")
    torch.manual_seed(0)
    net = MoveScorer(env.observation_space, global_size=MOVES_GLOBAL, move_features=MOVE_FEATURES, hidden=16)
    obs, _ = env.reset(seed=1)
    x = torch.as_tensor(obs[None], dtype=torch.float32)
    out = net(x)
    assert out.shape == (1, 53 + 16) == (1, net.features_dim)
    # Changing one action's features moves that action's logit only; the value features stay.
    changed = x.clone()
    changed[0, MOVES_GLOBAL + 7 * MOVE_FEATURES + 3] += 0.5
    diff = (net(changed) - out).abs()[0]
    assert diff[7] > 0 and diff[:7].sum() == 0 and diff[8:].sum() == 0
    with pytest.raises(ValueError, match="whole rows of 29 move features"):
        MoveScorer(env.observation_space, global_size=MOVES_GLOBAL + 1, move_features=MOVE_FEATURES)
    ppo_smoke_run(env, obs, "MoveScorer", {"global_size": MOVES_GLOBAL, "move_features": MOVE_FEATURES, "hidden": 16})


def ppo_smoke_run(env: gym.Env, obs: np.ndarray, extractor: str, extractor_kwargs: dict) -> None:
    """A few MaskablePPO steps with ``extractor`` under LogitsPolicy (separate critic); a legal prediction."""
    from sb3_contrib import MaskablePPO

    kwargs = resolve_policy_kwargs(
        {
            "features_extractor_class": f"agents.training.networks.{extractor}",
            "features_extractor_kwargs": extractor_kwargs,
            "share_features_extractor": False,
        }
    )
    model = MaskablePPO(
        resolve_policy("agents.training.networks.LogitsPolicy"), env, policy_kwargs=kwargs, n_steps=64, batch_size=32
    )
    model.learn(64)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action)]


def test_move_list_scorer_scores_each_listed_move_from_its_own_row():
    from agents.training.networks import MoveListScorer
    from patience_gym.features.milligan import MOVES_GLOBAL
    from patience_gym.heuristics.milligan_moves import MOVE_FEATURES, ROW

    env = gym.make("patience_gym/MissMilligan-v0", obs_encoding="moves")
    torch.manual_seed(0)
    net = MoveListScorer(env.observation_space, MOVES_GLOBAL, MOVE_FEATURES, 1010, hidden=16)
    obs, info = env.reset(seed=1)
    legal = np.flatnonzero(info["action_mask"])
    assert len(legal) >= 2
    x = torch.as_tensor(obs[None], dtype=torch.float32)
    out = net(x)
    assert out.shape == (1, 1010 + 16) == (1, net.features_dim)
    listed = torch.nonzero(out[0, :1010] != net.unlisted).flatten().tolist()
    assert listed == legal.tolist()
    # Changing the second move's features moves its logit only; the value features stay.
    changed = x.clone()
    changed[0, MOVES_GLOBAL + ROW + 5] += 0.5
    diff = (net(changed) - out).abs()[0]
    assert diff[legal[1]] > 0 and diff.sum() == diff[legal[1]]
    with pytest.raises(ValueError, match="whole rows of 1 \\+ 25 values"):
        MoveListScorer(env.observation_space, MOVES_GLOBAL + 1, MOVE_FEATURES, 1010)
    ppo_smoke_run(
        env,
        obs,
        "MoveListScorer",
        {"global_size": MOVES_GLOBAL, "move_features": MOVE_FEATURES, "num_actions": 1010, "hidden": 16},
    )


def test_move_list_scorer_batches_like_single_observations():
    """Only the listed rows are scored: a batch gives each observation what it gets alone."""
    from agents.training.networks import MoveListScorer
    from patience_gym.features.milligan import MOVES_GLOBAL
    from patience_gym.heuristics.milligan_moves import MOVE_FEATURES

    env = gym.make("patience_gym/Giant-v0", obs_encoding="moves")
    torch.manual_seed(0)
    net = MoveListScorer(env.observation_space, MOVES_GLOBAL, MOVE_FEATURES, 1010, hidden=16)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    batch = [obs]
    for _ in range(5):
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert not (terminated or truncated)
        batch.append(obs)
    x = torch.as_tensor(np.array(batch), dtype=torch.float32)
    together = net(x)
    alone = torch.cat([net(x[i : i + 1]) for i in range(len(batch))])
    torch.testing.assert_close(together, alone)
    # Gradients reach the move net through the scattered scores.
    together[:, :1010].clamp(min=-5).sum().backward()
    assert net.score[0].weight.grad is not None and net.score[0].weight.grad.abs().sum() > 0


@pytest.mark.parametrize(
    "model",
    [
        "models/puss_moves_replay_all.zip",
        "models/miss_milligan_moves_critic.zip",
        "models/miss_milligan_pocket_moves_endgame.zip",
        "models/giant_moves_critic_lr3e4_1m.zip",
    ],
)
def test_shipped_move_scorer_models_keep_their_optimizer_state_aligned(model):
    """The shipped models carry no Adam moments (``agents.load slim``); training goes on from them: the
    loaded optimizer covers every parameter of the policy, and a step gives each its moments."""
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(model, device="cpu").policy
    params = policy.optimizer.param_groups[0]["params"]
    assert len(params) == len(list(policy.parameters()))
    assert all(p is q for p, q in zip(params, policy.parameters()))
    assert policy.optimizer.state_dict()["state"] == {}
    policy.optimizer.zero_grad()
    sum(p.square().sum() for p in policy.parameters()).backward()
    policy.optimizer.step()
    for param in params:
        state = policy.optimizer.state[param]
        assert state["exp_avg"].shape == param.shape


def test_critic_that_skips_the_logits_values_the_position_not_the_move_list(tmp_path):
    """``critic_reads_logits=False``: the value MLP reads the value features only, and the option survives save/load."""
    from sb3_contrib import MaskablePPO

    from agents.training.networks import ValueFromFeatures
    from patience_gym.features.milligan import MOVES_GLOBAL
    from patience_gym.heuristics.milligan_moves import MOVE_FEATURES

    env = gym.make("patience_gym/MissMilligan-v0", obs_encoding="moves")
    extractor = {"global_size": MOVES_GLOBAL, "move_features": MOVE_FEATURES, "num_actions": 1010, "hidden": 16}
    kwargs = resolve_policy_kwargs(
        {
            "features_extractor_class": "agents.training.networks.MoveListScorer",
            "features_extractor_kwargs": extractor,
            "share_features_extractor": False,
            "critic_reads_logits": False,
        }
    )
    policy_class = resolve_policy("agents.training.networks.LogitsPolicy")
    model = MaskablePPO(policy_class, env, policy_kwargs=kwargs, n_steps=64, batch_size=32, seed=0)
    assert isinstance(model.policy.mlp_extractor, ValueFromFeatures)
    assert model.policy.mlp_extractor.value_net[0].in_features == 16
    obs, _ = env.reset(seed=1)
    x = torch.as_tensor(obs[None], dtype=torch.float32)
    changed = x.clone()
    changed[0, MOVES_GLOBAL + 5] += 0.5  # the first move's features: its logit changes, the value does not
    with torch.no_grad():
        assert not torch.equal(model.policy.extract_features(x)[0], model.policy.extract_features(changed)[0])
        assert torch.equal(model.policy.predict_values(x), model.policy.predict_values(changed))
    model.learn(64)
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert loaded.policy.critic_reads_logits is False
    with torch.no_grad():
        torch.testing.assert_close(loaded.policy.predict_values(x), model.policy.predict_values(x))
    with pytest.raises(ValueError, match="critic_reads_logits=False\\) takes net_arch"):
        MaskablePPO(policy_class, env, policy_kwargs={**kwargs, "net_arch": [64]}, n_steps=64, batch_size=32)


def _rules_moves_batch(env_id: str, n: int = 64) -> tuple[gym.Env, torch.Tensor]:
    env = gym.make(env_id, obs_encoding="rules_moves")
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=0)
    out = []
    while len(out) < n:
        out.append(obs)
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            obs, info = env.reset()
    return env, torch.as_tensor(np.array(out))


def test_move_rows_scores_listed_moves_with_shared_weights():
    """Each listed move's logit comes from its row; reordering the rows moves the logits with them."""
    from agents.training.networks import MoveRows
    from patience_gym.features.rules import layout as L

    env, obs = _rules_moves_batch("patience_gym/Golf-v0")
    layout = env.unwrapped.observer.layout
    torch.manual_seed(0)
    net = MoveRows(env.observation_space, **layout, hidden=32).eval()
    out = net(obs)
    assert out.shape == (obs.shape[0], 8 + 64)
    g = layout["global_size"]
    rows = obs[:, g:].view(obs.shape[0], -1, L.ROW)
    listed = rows[:, :, L.ACTION] > 0
    logits = out[:, :8]
    for i in range(obs.shape[0]):
        acts = (torch.round(rows[i, listed[i], L.ACTION] * 8).long() - 1).tolist()
        unlisted = [a for a in range(8) if a not in acts]
        assert torch.all(logits[i, unlisted] == -10.0)
    swapped = obs.clone()
    two = listed.sum(dim=1) >= 2
    assert two.any()
    view = swapped[:, g:].view(obs.shape[0], -1, L.ROW)
    view[two, 0], view[two, 1] = rows[two, 1].clone(), rows[two, 0].clone()
    torch.testing.assert_close(net(swapped)[:, :8], logits, rtol=1e-5, atol=1e-5)
    # One position alone scores as it does in a batch (only the longest list in a batch is read).
    torch.testing.assert_close(net(obs[:1]), out[:1], rtol=1e-5, atol=1e-5)


def test_move_rows_refuses_other_encodings():
    from agents.training.networks import MoveRows

    env = gym.make("patience_gym/Golf-v0", obs_encoding="runs")
    with pytest.raises(ValueError, match="rules_moves"):
        MoveRows(env.observation_space, global_size=500, move_features=20, num_actions=8)
