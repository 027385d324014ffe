"""Warm-start a MaskablePPO policy by imitating a teacher agent (behaviour cloning).

The teacher (``greedy``, ``planner`` or ``solver`` from :mod:`agents.registry`)
plays ``episodes`` deals; every decision it takes is recorded as
(observation, mask, action, return-to-go). The policy is then fitted to the
teacher's actions (cross-entropy over the legal actions) and its value head to
the returns, so that PPO fine-tuning starts from the teacher's play with a
critic that already knows what that play is worth.

A teacher's games can be kept on disk (``state_dir``): one ``.npz`` file per
shard of ``shard_size`` deals, written as each shard finishes. Recording
again into the same folder plays only the shards not kept there (an
interrupted recording loses no finished shard and never holds a deal twice),
and several runs can share one recording of a slow teacher (the planner).

With DAgger (:func:`dagger`; Ross, Gordon and Bagnell, 2011) the fitted
student then plays deals of its own and the teacher labels every position
the student reaches; the policy is fitted again on everything recorded so
far. Cloning alone only shows the student the teacher's own positions, so
one early slip leads it where it has never been shown a move; DAgger shows
it the positions its own slips lead to.

The student sees only the observation. A perfect-knowledge teacher (``solver``)
reads the hidden cards to *choose* its moves, but nothing hidden enters the
student's inputs; this is learning from a privileged expert, and the run's
config names the teacher so readers know.
"""

from __future__ import annotations

import dataclasses
import json
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym  # noqa: F401 - registers the envs
from agents.base import Agent
from agents.evaluation.evaluate import run_episode
from agents.evaluation.sharding import holding, run_sharded, write_atomically
from agents.registry import make_agent
from patience_gym.env import PatienceEnv

#: Decisions sampled (per epoch) to measure how often the policy agrees with the teacher.
ACCURACY_SAMPLE = 4096
#: Deals per kept shard of a teacher's recording (``collect(state_dir=...)``).
SHARD_SIZE = 50


@dataclasses.dataclass
class Demonstrations:
    """A teacher's decisions: one row per step."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    episode_scores: list[float]
    seconds: float
    #: The action actually played at each row: the teacher's own (``actions``), or the student's under DAgger.
    played: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.actions)

    def agreement(self) -> float:
        """Share of rows where the action played is the teacher's label (1.0 for the teacher's own games)."""
        if self.played is None or not len(self):
            return 1.0
        return float(np.mean(self.played == self.actions))


def collect(
    env_id: str,
    env_kwargs: dict[str, Any],
    teacher: str,
    seeds: Sequence[int],
    gamma: float = 1.0,
    jobs: int = 1,
    student: str | None = None,
    state_dir: str | Path | None = None,
    shard_size: int = SHARD_SIZE,
) -> Demonstrations:
    """Play the teacher on one deal per seed and record every decision.

    With ``state_dir`` the recording is kept there in shards of ``shard_size`` seeds (see the module
    docstring): kept shards are read back, not played again, and the others are played (in ``jobs``
    processes) and kept as each finishes. A kept file of other deals, another env, teacher or ``gamma``, or
    one that does not read, is refused by name before anything is played.

    With ``student`` (a saved MaskablePPO model) the student plays instead and
    each row is the teacher's choice at the student's position (DAgger); the
    returns are then those of the student's play, and ``played`` holds its moves.

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
    if not seeds:
        raise ValueError("no seeds: a recording needs at least one deal")
    if state_dir is not None:
        if student is not None:
            raise ValueError("a student's games (DAgger) are not kept: its labels change every round")
        return _collect_kept(env_id, env_kwargs, teacher, seeds, gamma, jobs, Path(state_dir), shard_size, start)
    if jobs == 1 or len(seeds) < 2:
        parts = [_record(env_id, env_kwargs, teacher, seeds, gamma, student)]
    else:
        import tempfile

        size = -(-len(seeds) // jobs)
        blocks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
        with tempfile.TemporaryDirectory(prefix="patience_gym_record_") as folder:
            files = [str(Path(folder) / f"obs{i}.npy") for i in range(len(blocks))]
            tasks = [
                (env_id, env_kwargs, teacher, block, gamma, f, student) for block, f in zip(blocks, files, strict=True)
            ]
            parts = run_sharded(_record_task, tasks, "process", workers=len(blocks))
            for part, f in zip(parts, files, strict=True):
                part.obs = np.load(f, mmap_mode="r")
            return _join(parts, start)
    return _join(parts, start)


@dataclasses.dataclass(frozen=True)
class TeacherShard:
    """One kept shard of a teacher's recording: whose games, on which deals."""

    env_id: str
    env_kwargs: str  # JSON, keys sorted
    teacher: str
    seeds: tuple[int, ...]
    gamma: float

    @property
    def filename(self) -> str:
        return f"teacher_{self.seeds[0]:09d}_{len(self.seeds)}.npz"

    def describe(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)


_ARRAYS = ("obs", "masks", "actions", "returns", "played")


def keep_shard(path: Path, shard: TeacherShard, demos: Demonstrations) -> None:
    """Write a finished shard atomically (a run killed mid-write leaves no half file)."""
    arrays = {name: getattr(demos, name) for name in _ARRAYS}
    scores = np.asarray(demos.episode_scores)
    write_atomically(
        path, lambda file: np.savez_compressed(file, shard=np.asarray(shard.describe()), scores=scores, **arrays)
    )


def load_shard(path: Path, shard: TeacherShard) -> Demonstrations | None:
    """The kept ``shard`` at ``path``, or None when there is none; ValueError naming the file where it does
    not read or holds other games."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            held = str(data["shard"])
            arrays = {name: data[name] for name in (*_ARRAYS, "scores")}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"kept teacher shard {path} does not read ({exc}): delete it to record it again") from exc
    if held != shard.describe():
        raise ValueError(f"kept teacher shard {path} holds other games ({held}), not {shard.describe()}")
    if len(arrays["scores"]) != len(shard.seeds) or len({len(arrays[n]) for n in _ARRAYS}) != 1:
        raise ValueError(f"kept teacher shard {path} is incomplete: delete it to record it again")
    scores = arrays.pop("scores")
    return Demonstrations(**arrays, episode_scores=[float(x) for x in scores], seconds=0.0)


def _record_shard(task: tuple[TeacherShard, Path]) -> None:
    """One shard of :func:`_collect_kept`, kept at its path (in a worker process or this one: the rows go
    through the file, not through the pool's pipe)."""
    shard, path = task
    env_kwargs = json.loads(shard.env_kwargs)
    keep_shard(path, shard, _record(shard.env_id, env_kwargs, shard.teacher, shard.seeds, shard.gamma))


def _collect_kept(
    env_id: str,
    env_kwargs: dict[str, Any],
    teacher: str,
    seeds: list[int],
    gamma: float,
    jobs: int,
    state_dir: Path,
    shard_size: int,
    start: float,
) -> Demonstrations:
    """:func:`collect` with ``state_dir``: kept shards read back, the others played and kept."""
    if shard_size < 1:
        raise ValueError(f"shard_size must be at least 1, got {shard_size}")
    described = json.dumps(env_kwargs, sort_keys=True)
    shards = [
        TeacherShard(env_id, described, teacher, tuple(seeds[i : i + shard_size]), float(gamma))
        for i in range(0, len(seeds), shard_size)
    ]
    if state_dir.is_dir():  # every game kept already: read them, nothing to write (runs may share a teacher dir)
        kept = [load_shard(state_dir / s.filename, s) for s in shards]
        if all(part is not None for part in kept):
            return _join([p for p in kept if p is not None], start)
    # one writer (made and checked before any game: a file in the way, no permission, another run recording)
    with holding(state_dir, "teacher dir"):
        parts = [load_shard(state_dir / s.filename, s) for s in shards]  # every kept file checked before any game
        todo = [i for i, part in enumerate(parts) if part is None]
        backend = "process" if jobs > 1 and len(todo) > 1 else "serial"
        tasks = [(shards[i], state_dir / shards[i].filename) for i in todo]
        run_sharded(_record_shard, tasks, backend, workers=jobs if backend == "process" else None)
        for i in todo:
            parts[i] = load_shard(state_dir / shards[i].filename, shards[i])
    return _join([p for p in parts if p is not None], start)


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
        played=np.concatenate([p.actions if p.played is None else p.played for p in parts]),
    )


class _LabelledStudent(Agent):
    """Plays the student's move and keeps the teacher's choice at every position (DAgger's labels).

    The teacher is told each move the student makes (:meth:`Agent.observe`), so one that
    remembers what it has seen (the Puss planner remembers the packets taken up) remembers
    the student's game, not the one it would have played.
    """

    name = "dagger"

    def __init__(self, student: Agent, teacher: Agent) -> None:
        self.student = student
        self.teacher = teacher
        self.labels: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        self.student.reset(seed)
        self.teacher.reset(seed)

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        self.labels.append(self.teacher.label(env, obs, mask))
        action = self.student.act(env, obs, mask)
        self.teacher.observe(env, action)
        return action


def _record(
    env_id: str,
    env_kwargs: dict[str, Any],
    teacher: str,
    seeds: Sequence[int],
    gamma: float,
    student: str | None = None,
) -> Demonstrations:
    """One process's share of :func:`collect`."""
    env = gym.make(env_id, **env_kwargs)
    agent: Agent = make_agent(teacher, env.unwrapped.game.name)  # type: ignore[attr-defined]
    labelled = None
    if student is not None:
        from agents.ppo import PPOAgent

        agent = labelled = _LabelledStudent(PPOAgent(student), agent)
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
    played = np.asarray(actions, dtype=np.int64)
    return Demonstrations(
        obs=_stack(obs_chunks),
        masks=np.concatenate(mask_chunks),
        actions=played if labelled is None else np.asarray(labelled.labels, dtype=np.int64),
        returns=np.asarray(returns, dtype=np.float32),
        episode_scores=scores,
        seconds=time.perf_counter() - start,
        played=played,
    )


def _record_task(task: tuple[Any, ...]) -> Demonstrations:
    """:func:`_record_to_file` of one block of seeds (a shard of :func:`collect`, in a worker process)."""
    return _record_to_file(*task)


def _record_to_file(
    env_id: str,
    env_kwargs: dict[str, Any],
    teacher: str,
    seeds: Sequence[int],
    gamma: float,
    obs_file: str,
    student: str | None = None,
) -> Demonstrations:
    """:func:`_record`, with the observations saved to ``obs_file`` (``.npy``) instead of returned."""
    if student is not None:
        import torch as th

        th.set_num_threads(1)  # one process per core already
    part = _record(env_id, env_kwargs, teacher, seeds, gamma, student)
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


def round_seeds(first: int, rounds: int, episodes: int) -> list[range]:
    """The deal seeds of each DAgger round: ``episodes`` consecutive seeds a round, from ``first``."""
    return [range(first + r * episodes, first + (r + 1) * episodes) for r in range(rounds)]


def dagger(
    model: Any,
    demos: Demonstrations,
    env_id: str,
    env_kwargs: dict[str, Any],
    teacher: str,
    rounds: Sequence[Sequence[int]],
    gamma: float = 1.0,
    jobs: int = 1,
    **fit_kwargs: Any,
) -> tuple[Demonstrations, list[dict[str, Any]]]:
    """DAgger after cloning: per round, the student plays one deal per seed of ``rounds[i]``,
    the teacher labels its positions, and ``model`` is fitted (:func:`fit`) on all rows so far.

    Returns the grown demonstrations (``demos`` itself is emptied: its rows move
    into them) and one record per round: the student's own games (mean score) and
    how often its move was the teacher's on them, measured before that round's fit.
    """
    import tempfile

    records = []
    for number, seeds in enumerate(rounds, start=1):
        with tempfile.TemporaryDirectory(prefix="patience_gym_dagger_") as folder:
            path = str(Path(folder) / "student.zip")
            model.save(path)
            played = collect(env_id, env_kwargs, teacher, seeds, gamma, jobs, student=path)
        record: dict[str, Any] = {
            "round": number,
            "episodes": len(played.episode_scores),
            "decisions": len(played),
            "student_mean_score": float(np.mean(played.episode_scores)),
            "agreement": played.agreement(),
            "record_seconds": played.seconds,
        }
        start = time.perf_counter()
        demos = _join([demos, played], start)
        record["rows"] = len(demos)
        record["epochs"] = fit(model, demos, **fit_kwargs)
        record["fit_seconds"] = time.perf_counter() - start
        records.append(record)
    return demos, records


def fit(
    model: Any,
    demos: Demonstrations,
    epochs: int = 10,
    batch_size: int = 256,
    learning_rate: float = 1e-3,
    value_coef: float = 0.5,
    seed: int = 0,
    on_epoch: Callable[[dict[str, float]], None] | None = None,
) -> list[dict[str, float]]:
    """Fit ``model.policy`` to the demonstrations; returns per-epoch losses and accuracy.

    Uses a fresh Adam optimiser, so PPO's own optimiser state is untouched. ``on_epoch`` is called with
    each epoch's record as it ends (a long fit reports its progress).
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
    start_time = time.perf_counter()
    for epoch in range(epochs):
        policy.set_training_mode(True)
        order = th.as_tensor(rng.permutation(len(demos)))
        totals = {"policy_loss": 0.0, "value_loss": 0.0}
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(obs[idx], actions[idx], action_masks=masks[idx])
            policy_loss = -log_prob.mean()
            value_loss = th.nn.functional.mse_loss(values.flatten(), returns[idx])
            gradient_step(optimizer, policy, policy_loss + value_coef * value_loss, 0.5)
            totals["policy_loss"] += float(policy_loss.detach()) * len(idx)
            totals["value_loss"] += float(value_loss.detach()) * len(idx)
        policy.set_training_mode(False)
        history.append(
            {
                "epoch": epoch + 1,
                **{k: v / len(demos) for k, v in totals.items()},
                "accuracy": _accuracy(policy, obs, masks, actions, order[:ACCURACY_SAMPLE]),
                "seconds": time.perf_counter() - start_time,
            }
        )
        if on_epoch is not None:
            on_epoch(history[-1])
    return history


def gradient_step(optimizer: Any, policy: Any, loss: Any, max_grad_norm: float) -> None:
    """One step of ``optimizer`` on ``loss``, the policy's gradient clipped to ``max_grad_norm``."""
    import torch as th

    optimizer.zero_grad()
    loss.backward()
    th.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
    optimizer.step()


def _accuracy(policy: Any, obs: Any, masks: Any, actions: Any, idx: Any) -> float:
    """Share of the sampled decisions where the policy's most likely legal action is the teacher's."""
    import torch as th

    with th.no_grad():
        dist = policy.get_distribution(obs[idx], action_masks=masks[idx])
        best = dist.distribution.probs.argmax(dim=1)
    return float((best == actions[idx]).float().mean())
