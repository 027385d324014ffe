"""Warm-start a MaskablePPO policy by imitating a teacher agent (behaviour cloning).

The teacher (``greedy``, ``planner`` or ``solver`` from :mod:`agents.registry`)
plays ``episodes`` deals; every decision it takes is recorded as
(observation, mask, action, return-to-go). The policy is then fitted to the
teacher's actions (cross-entropy over the legal actions) and its value head to
the returns, so that PPO fine-tuning starts from the teacher's play with a
critic that already knows what that play is worth.

The student sees only the observation. A perfect-knowledge teacher (``solver``)
reads the hidden cards to *choose* its moves, but nothing hidden enters the
student's inputs; this is learning from a privileged expert, and the run's
config names the teacher so readers know.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.evaluate import run_episode
from agents.registry import make_agent

#: Decisions sampled (per epoch) to measure how often the policy agrees with the teacher.
ACCURACY_SAMPLE = 4096


@dataclasses.dataclass
class Demonstrations:
    """A teacher's decisions: one row per step."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    episode_scores: list[float]
    seconds: float

    def __len__(self) -> int:
        return len(self.actions)


def collect(
    env_id: str,
    env_kwargs: dict[str, Any],
    teacher: str,
    seeds: Sequence[int],
    gamma: float = 1.0,
    jobs: int = 1,
) -> Demonstrations:
    """Play the teacher on one deal per seed and record every decision.

    ``jobs > 1`` splits the seeds into that many contiguous blocks, each played
    in its own process; the rows come back in seed order, the same as with one job.
    Each process hands its observations over in a temporary ``.npy`` file: pickling
    gigabytes through the pool's pipe took several copies of them at once, and a
    2,000-game two-pack recording was killed for memory that way.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    start = time.perf_counter()
    seeds = list(seeds)
    if jobs == 1 or len(seeds) < 2:
        parts = [_record(env_id, env_kwargs, teacher, seeds, gamma)]
    else:
        import tempfile
        from multiprocessing import get_context

        size = -(-len(seeds) // jobs)
        blocks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
        with tempfile.TemporaryDirectory(prefix="patience_gym_record_") as folder:
            files = [str(Path(folder) / f"obs{i}.npy") for i in range(len(blocks))]
            with get_context("spawn").Pool(len(blocks)) as pool:
                parts = pool.starmap(
                    _record_to_file,
                    [(env_id, env_kwargs, teacher, block, gamma, f) for block, f in zip(blocks, files, strict=True)],
                )
            for part, f in zip(parts, files, strict=True):
                part.obs = np.load(f, mmap_mode="r")
            return _join(parts, start)
    return _join(parts, start)


def _join(parts: list[Demonstrations], start: float) -> Demonstrations:
    """The processes' shares of :func:`collect`, in order, as one set of demonstrations."""
    obs_parts = [p.obs for p in parts]
    for p in parts:
        p.obs = np.empty((0, *p.obs.shape[1:]), np.float32)  # the rows live on in obs_parts only; _stack frees them
    return Demonstrations(
        obs=_stack(obs_parts),
        masks=np.concatenate([p.masks for p in parts]),
        actions=np.concatenate([p.actions for p in parts]),
        returns=np.concatenate([p.returns for p in parts]),
        episode_scores=[score for p in parts for score in p.episode_scores],
        seconds=time.perf_counter() - start,
    )


def _record(
    env_id: str, env_kwargs: dict[str, Any], teacher: str, seeds: Sequence[int], gamma: float
) -> Demonstrations:
    """One process's share of :func:`collect`."""
    env = gym.make(env_id, **env_kwargs)
    agent = make_agent(teacher, env.unwrapped.game.name)  # type: ignore[attr-defined]
    obs_chunks: list[np.ndarray] = []  # one array per episode: no per-row object overhead
    mask_chunks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    scores: list[float] = []
    start = time.perf_counter()
    for seed in seeds:
        moves = list(run_episode(env, agent, seed))
        running = 0.0
        episode_returns = []
        for move in reversed(moves):
            running = move.reward + gamma * running
            episode_returns.append(running)
        returns.extend(reversed(episode_returns))
        obs_chunks.append(np.asarray([m.obs for m in moves], dtype=np.float32))
        mask_chunks.append(np.asarray([m.mask for m in moves], dtype=bool))
        actions.extend(m.action for m in moves)
        scores.append(float(moves[-1].info["score"]))
    env.close()
    return Demonstrations(
        obs=_stack(obs_chunks),
        masks=np.concatenate(mask_chunks),
        actions=np.asarray(actions, dtype=np.int64),
        returns=np.asarray(returns, dtype=np.float32),
        episode_scores=scores,
        seconds=time.perf_counter() - start,
    )


def _record_to_file(
    env_id: str, env_kwargs: dict[str, Any], teacher: str, seeds: Sequence[int], gamma: float, obs_file: str
) -> Demonstrations:
    """:func:`_record`, with the observations saved to ``obs_file`` (``.npy``) instead of returned."""
    part = _record(env_id, env_kwargs, teacher, seeds, gamma)
    np.save(obs_file, part.obs)
    part.obs = part.obs[:0]
    return part


def _stack(chunks: list[np.ndarray]) -> np.ndarray:
    """``np.concatenate(chunks)``, emptying ``chunks`` as it copies, so the memory peak is one copy, not two.

    The observations of a few thousand two-pack games run to gigabytes.
    """
    if len(chunks) == 1:
        return chunks.pop()
    out = np.empty((sum(len(c) for c in chunks), *chunks[0].shape[1:]), dtype=chunks[0].dtype)
    at = 0
    while chunks:
        chunk = chunks.pop(0)
        out[at : at + len(chunk)] = chunk
        at += len(chunk)
    return out


def fit(
    model: Any,
    demos: Demonstrations,
    epochs: int = 10,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
) -> list[dict[str, float]]:
    """Fit ``model.policy`` to the demonstrations; returns per-epoch losses and accuracy.

    Uses a fresh Adam optimiser, so PPO's own optimiser state is untouched.
    """
    import torch as th

    policy = model.policy
    optimizer = th.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    obs = th.as_tensor(demos.obs)
    masks = th.as_tensor(demos.masks)
    actions = th.as_tensor(demos.actions)
    returns = th.as_tensor(demos.returns)
    history = []
    for epoch in range(epochs):
        policy.set_training_mode(True)
        order = th.as_tensor(rng.permutation(len(demos)))
        totals = {"policy_loss": 0.0, "value_loss": 0.0}
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            policy_loss = -log_prob.mean()
            value_loss = th.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = policy_loss + value_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            totals["policy_loss"] += float(policy_loss.detach()) * len(idx)
            totals["value_loss"] += float(value_loss.detach()) * len(idx)
        policy.set_training_mode(False)
        history.append(
            {
                "epoch": epoch + 1,
                **{k: v / len(demos) for k, v in totals.items()},
                "accuracy": _accuracy(policy, obs, masks, actions, order[:ACCURACY_SAMPLE]),
            }
        )
    return history


def _accuracy(policy: Any, obs: Any, masks: Any, actions: Any, idx: Any) -> float:
    """Share of the sampled decisions where the policy's most likely legal action is the teacher's."""
    import torch as th

    with th.no_grad():
        dist = policy.get_distribution(obs[idx], action_masks=masks[idx])
        best = dist.distribution.probs.argmax(dim=1)
    return float((best == actions[idx]).float().mean())
