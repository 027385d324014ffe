"""Study (issue 34, items 3-5; research notes section 35): rules-only Golf with a critic that sees the stock.

An asymmetric actor-critic (Pinto et al. 2018; PerfectDou's "perfect-training, imperfect-execution"):
the actor is ``configs/golf_rules.yaml``'s network (``GolfMoves`` on ``rules_moves``, three graph rounds)
and reads only what the player sees; the critic, used only in training to judge the actor's moves, also
reads the stock's order. In Golf most of a hole's score is the stock's luck, which a critic that does
not see it cannot separate from the moves' merit; one that sees it might give advantages with less
noise. The played policy is unchanged: the logits never read the stock, and the evaluation plays the
actor's weights in the plain network on the plain env.

The stock as the critic sees it: for each of the (up to 16) cards left, in order, its rank, and how
many link cards and exposed cards lie one rank from it. The control is the same script without it
(the canonical network and PPO settings, the same steps and seed).

    python -m benchmarks.golf_privileged_critic_study train --critic stock --steps 1500000 --out A.zip
    python -m benchmarks.golf_privileged_critic_study train --critic plain --steps 1500000 --out B.zip
    python -m benchmarks.golf_privileged_critic_study evaluate A.zip B.zip --episodes 1000

``train`` also keeps a checkpoint every 500,000 steps (``A_steps/model_<steps>_steps.zip``).

``evaluate`` plays greedy and each model on seeds 0..N-1 (the report's deals) and prints every pair's
difference, paired deal by deal, with its 95% interval.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import CheckpointCallback
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from agents.baselines.greedy_golf import GolfGreedy
from agents.evaluation.evaluate import paired_ci95, play_episodes
from agents.ppo import PPOAgent
from agents.training.networks import GolfMoves, LogitsPolicy
from agents.training.sb3_vec_env import make_sb3_vec_env
from patience_gym.cards import RANK
from patience_gym.games.golf import STOCK_SIZE

ENV_ID = "patience_gym/Golf-v0"
ENV_KWARGS: dict[str, Any] = {"obs_encoding": "rules_moves"}
SLOTS = STOCK_SIZE - 1  # cards the stock can still hold once the first is turned
SLOT_VALUES = 16  # rank one-hot (13), present, links one rank away, exposed cards one rank away
STOCK_VALUES = SLOTS * SLOT_VALUES
_RANK = np.array(RANK, dtype=np.int64)
GOLF_KWARGS = {"hidden": 64, "encoding": "rules_moves", "chain_rounds": 3}
PPO_KWARGS: dict[str, Any] = {
    "n_steps": 32,
    "batch_size": 2048,
    "n_epochs": 4,
    "clip_range": 0.2,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "ent_coef": 0.003,
}


def stock_values(game: Any) -> np.ndarray:
    """What the critic reads of each env's stock: ``(n, SLOTS * SLOT_VALUES)`` (see the module docstring)."""
    n = game.num_envs
    rows = np.arange(n)[:, None]
    index = game.pos[:, None] + np.arange(SLOTS)[None, :]
    present = index < STOCK_SIZE
    rank = np.where(present, _RANK[game.stock[rows, np.minimum(index, STOCK_SIZE - 1)]], 0)  # 1..13, 0: none
    on_links = np.arange(5)[None, None, :] < game.heights[:, :, None]
    link_ranks = np.where(on_links, _RANK[game.cols.astype(np.int64)], 0).reshape(n, -1)
    exposed = np.where(
        game.heights > 0, _RANK[game.cols[rows, np.arange(7)[None, :], np.maximum(game.heights - 1, 0)]], 0
    )
    counts = np.zeros((n, 15))  # by rank 0..14, rank 0 for "none"
    np.add.at(counts, (np.repeat(np.arange(n), link_ranks.shape[1]), link_ranks.ravel()), 1.0)
    exposed_counts = np.zeros((n, 15))
    np.add.at(exposed_counts, (np.repeat(np.arange(n), 7), exposed.ravel()), 1.0)
    counts[:, 0] = exposed_counts[:, 0] = 0.0
    below, above = np.maximum(rank - 1, 0), np.minimum(rank + 1, 14)
    near_links = np.where(present, counts[rows, below] + counts[rows, above], 0.0) / 8.0
    near_exposed = np.where(present, exposed_counts[rows, below] + exposed_counts[rows, above], 0.0) / 7.0
    one_hot = np.zeros((n, SLOTS, 13), dtype=np.float32)
    r, s = np.nonzero(present)
    one_hot[r, s, rank[r, s] - 1] = 1.0
    out = np.concatenate([one_hot, present[..., None], near_links[..., None], near_exposed[..., None]], axis=2)
    return out.reshape(n, STOCK_VALUES).astype(np.float32)


class StockForCritic(VecEnvWrapper):
    """The batched Golf envs' observations with :func:`stock_values` appended (training only)."""

    def __init__(self, venv: VecEnv) -> None:
        public = venv.observation_space
        assert isinstance(public, gym.spaces.Box)
        low = np.concatenate([public.low, np.zeros(STOCK_VALUES, np.float32)])
        high = np.concatenate([public.high, np.ones(STOCK_VALUES, np.float32)])
        space = gym.spaces.Box(low, high, dtype=np.float32)
        super().__init__(venv, observation_space=space)
        self.game = venv.env.game  # type: ignore[attr-defined]

    def reset(self) -> np.ndarray:
        return self._join(self.venv.reset())

    def step_wait(self) -> Any:
        obs, reward, done, infos = self.venv.step_wait()
        for info in infos:  # the finished game's stock is gone: zeros (the critic's bootstrap on a cut only)
            if "terminal_observation" in info:
                info["terminal_observation"] = np.concatenate(
                    [info["terminal_observation"], np.zeros(STOCK_VALUES, np.float32)]
                )
        return self._join(obs), reward, done, infos

    def _join(self, obs: Any) -> np.ndarray:
        return np.concatenate([obs, stock_values(self.game)], axis=1)


class GolfMovesStockCritic(BaseFeaturesExtractor):
    """``GolfMoves`` on the plain part, and a stock embedding the critic alone reads (after the logits)."""

    def __init__(self, observation_space: gym.spaces.Box, width: int = 64, **golf_kwargs: Any) -> None:
        public = observation_space.shape[0] - STOCK_VALUES
        golf = GolfMoves(gym.spaces.Box(-1.0, 1.0, (public,), np.float32), **golf_kwargs)
        super().__init__(observation_space, features_dim=golf.features_dim + width)
        self.public = public
        self.golf = golf
        self.stock = torch.nn.Sequential(
            torch.nn.Linear(STOCK_VALUES, width), torch.nn.ReLU(), torch.nn.Linear(width, width), torch.nn.ReLU()
        )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.golf(obs[:, : self.public]), self.stock(obs[:, self.public :])], dim=1)


def train(critic: str, steps: int, seed: int, out: str, checkpoint: int) -> None:
    torch.set_num_threads(1)
    envs: VecEnv = make_sb3_vec_env(ENV_ID, 256, seed=seed, env_kwargs=ENV_KWARGS)
    if critic == "stock":
        # by the module's name, not __main__'s, so that the saved model refers to the class (cloudpickle
        # would copy a __main__ class by value)
        from benchmarks import golf_privileged_critic_study as study

        envs = study.StockForCritic(envs)
        policy_kwargs: dict[str, Any] = {
            "features_extractor_class": study.GolfMovesStockCritic,
            "features_extractor_kwargs": GOLF_KWARGS,
        }
    else:
        policy_kwargs = {"features_extractor_class": GolfMoves, "features_extractor_kwargs": GOLF_KWARGS}
    model = MaskablePPO(
        LogitsPolicy,
        envs,
        policy_kwargs=policy_kwargs,
        learning_rate=LinearSchedule(1e-3, 0.0, 1.0),
        seed=seed,
        device="cpu",
        verbose=0,
        **PPO_KWARGS,
    )
    start = time.perf_counter()
    every = max(checkpoint // envs.num_envs, 1) if checkpoint else steps
    model.learn(steps, callback=CheckpointCallback(every, str(Path(out).with_suffix("")) + "_steps", "model"))
    print(f"{critic}: {model.num_timesteps} steps in {(time.perf_counter() - start) / 60:.1f} min")
    model.save(out)


def actor(path: str) -> PPOAgent:
    """The saved model's actor in the plain network on the plain env (the stock critic's model: its
    ``GolfMoves`` weights, which alone give the logits)."""
    trained = MaskablePPO.load(path, device="cpu")
    extractor: Any = trained.policy.features_extractor
    if type(extractor).__name__ != GolfMovesStockCritic.__name__:
        return PPOAgent(trained)
    plain = MaskablePPO(
        LogitsPolicy,
        gym.make(ENV_ID, **ENV_KWARGS),
        policy_kwargs={"features_extractor_class": GolfMoves, "features_extractor_kwargs": GOLF_KWARGS},
        device="cpu",
    )
    plain.policy.features_extractor.load_state_dict(extractor.golf.state_dict())
    return PPOAgent(plain)


def evaluate(paths: list[str], episodes: int) -> None:
    torch.set_num_threads(1)
    seeds = list(range(episodes))
    scores = {"greedy": play_episodes(ENV_ID, GolfGreedy(), seeds, ENV_KWARGS).scores}
    for path in paths:
        scores[path] = play_episodes(ENV_ID, actor(path), seeds, ENV_KWARGS).scores
    for name, values in scores.items():
        print(f"{name}: {np.mean(values):.2f}")
    for a, b in itertools.combinations(scores, 2):
        diff, ci = paired_ci95(scores[a], scores[b])
        print(f"{a} - {b}: {diff:+.2f} ± {ci:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train")
    t.add_argument("--critic", choices=("stock", "plain"), required=True)
    t.add_argument("--steps", type=int, default=1_500_000)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--out", required=True)
    t.add_argument("--checkpoint", type=int, default=500_000, help="steps between saved checkpoints (0: none)")
    e = sub.add_parser("evaluate")
    e.add_argument("models", nargs="+")
    e.add_argument("--episodes", type=int, default=1000)
    args = parser.parse_args(argv)
    if args.command == "train":
        train(args.critic, args.steps, args.seed, args.out, args.checkpoint)
    else:
        evaluate(args.models, args.episodes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
