"""Run independent shards of work serially or as Ray tasks, with results in shard order.

``serial`` runs every shard in this process. ``ray`` (the optional extra ``patience_gym[ray]``) runs each
shard as a Ray task: on a local cluster started here with ``workers`` CPUs (default: every core), or on an
existing cluster at ``address`` (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``), whose nodes must be
able to import ``patience_gym`` and ``agents`` (install the package there, or pass a ``runtime_env``).
Ray is imported only on the ``ray`` path.

Both backends return the same results: a shard's result depends only on the shard, and the results are
handed back in shard order whatever order they finish in. :func:`evaluate_sharded` plays the evaluation
tool's agents this way, deal block by deal block.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

S = TypeVar("S")
R = TypeVar("R")

BACKENDS = ("serial", "ray")
LOCAL_OBJECT_STORE_BYTES = 256 * 1024**2  # shard results are small; keep a local cluster's shared memory modest


def _check(backend: str, address: str | None, workers: int | None) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {list(BACKENDS)}")
    if address is not None and backend != "ray":
        raise ValueError(f"address {address!r} is for the ray backend, not {backend!r}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ImportError("the ray backend needs Ray: pip install 'patience_gym[ray]' (or pip install ray)") from exc
    return ray


@contextmanager
def backend_session(
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    runtime_env: dict[str, Any] | None = None,
) -> Iterator[int]:
    """Make the backend ready and yield how many shards it runs at once.

    ``serial``: 1. ``ray``: connects to the cluster at ``address``, or starts a local one with ``workers``
    CPUs (default: every core), unless Ray is already initialised; yields the cluster's CPU count
    (``workers`` when given, for an existing cluster) and shuts down only a connection it made.
    """
    _check(backend, address, workers)
    if backend == "serial":
        yield 1
        return
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        if address is None:
            ray.init(
                num_cpus=workers or os.cpu_count() or 1,
                include_dashboard=False,
                object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                runtime_env=runtime_env,
            )
        else:
            ray.init(address=address, runtime_env=runtime_env)
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        yield min(workers, cpus) if workers else cpus
    finally:
        if started:
            ray.shutdown()


def run_sharded(
    task_fn: Callable[[S], R],
    shards: Sequence[S],
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    *,
    on_result: Callable[[int, R], None] | None = None,
    runtime_env: dict[str, Any] | None = None,
) -> list[R]:
    """``[task_fn(shard) for shard in shards]``, on ``backend``; results in shard order.

    ``task_fn`` must be a module-level function (Ray sends it to the workers by name) and each shard
    picklable. ``on_result(index, result)`` is called in this process as each shard finishes (in finishing
    order under Ray), e.g. to keep it on disk. Under Ray each shard is a task of one CPU; at most
    ``workers`` run at once (default: as many as the cluster has CPUs). A task's error is raised here.
    """
    _check(backend, address, workers)
    shards = list(shards)
    if backend == "serial":
        results = []
        for i, shard in enumerate(shards):
            results.append(task_fn(shard))
            if on_result is not None:
                on_result(i, results[-1])
        return results
    with backend_session(backend, address, workers, runtime_env) as slots:
        # ``workers`` caps the tasks in flight; else keep two per CPU queued so no worker waits on this loop
        return _run_ray(task_fn, shards, slots if workers else 2 * slots, on_result)


def _run_ray(
    task_fn: Callable[[S], R], shards: list[S], window: int, on_result: Callable[[int, R], None] | None
) -> list[R]:
    ray = _import_ray()
    remote = ray.remote(num_cpus=1)(task_fn)
    results: list[Any] = [None] * len(shards)
    pending: dict[Any, int] = {}
    queue = iter(enumerate(shards))
    for i, shard in queue:
        pending[remote.remote(shard)] = i
        if len(pending) >= window:
            break
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            i = pending.pop(ref)
            results[i] = ray.get(ref)
            if on_result is not None:
                on_result(i, results[i])
            nxt = next(queue, None)
            if nxt is not None:
                pending[remote.remote(nxt[1])] = nxt[0]
    return results


# --- the evaluation tool's agents, deal block by deal block ---


def agent_names(agent_specs: Sequence[str]) -> list[str | None]:
    """The name each spec plays under in :func:`agents.evaluate.evaluate` (None: the agent's own name)."""
    from pathlib import Path

    several_models = sum(spec.startswith("ppo:") for spec in agent_specs) > 1
    names: list[str | None] = []
    for spec in agent_specs:
        if spec.startswith("ppo:"):
            names.append(f"ppo:{Path(spec[4:]).stem}" if several_models else "ppo")
        elif ":" in spec:
            names.append(spec)  # a table agent with options, e.g. planner:margin=1
        else:
            names.append(None)
    return names


def _evaluate_block(task: tuple[str, dict[str, Any], str, str | None, str, list[int]]) -> Any:
    """One agent's :func:`agents.evaluate.play_episodes` on one block of seeds (a fresh agent)."""
    import torch as th

    from agents.evaluate import play_episodes
    from agents.registry import make_agent

    env_id, env_kwargs, spec, name, game_name, seeds = task
    th.set_num_threads(1)  # one task per core already
    agent = make_agent(spec, game_name, seed=seeds[0])
    if name:
        agent.name = name
    return play_episodes(env_id, agent, seeds, env_kwargs)


def join_summaries(parts: Sequence[Any]) -> Any:
    """One :class:`agents.evaluate.Summary` from the summaries of consecutive blocks of deals, in order."""
    from agents.evaluate import join_summaries as join

    return join(parts)


def evaluate_sharded(
    env_id: str,
    env_kwargs: dict[str, Any] | None,
    agent_specs: Sequence[str],
    seeds: Sequence[int],
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    shard_size: int | None = None,
) -> list[Any]:
    """:func:`agents.evaluate.evaluate` with every agent's deals cut into blocks run on ``backend``.

    Returns one :class:`agents.evaluate.Summary` per spec, in spec order, whose ``scores`` are per deal in
    ``seeds`` order: the same as a serial evaluation of those seeds. ``shard_size`` deals per task
    (default: about four blocks per worker for each agent). Each block makes a fresh agent, as ``--jobs``
    does: the agents reset per deal, so the split does not change a game.
    """
    import gymnasium as gym

    import patience_gym  # noqa: F401 - registers the envs

    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("evaluate_sharded needs at least one seed")
    if not agent_specs:
        raise ValueError("evaluate_sharded needs at least one agent spec")
    if shard_size is not None and shard_size < 1:
        raise ValueError(f"shard_size must be at least 1, got {shard_size}")
    kwargs = dict(env_kwargs or {})
    game_name = gym.make(env_id, **kwargs).unwrapped.game.name  # type: ignore[attr-defined]
    with backend_session(backend, address, workers) as slots:
        size = shard_size or max(1, math.ceil(len(seeds) / (4 * slots)))
        blocks = [seeds[i : i + size] for i in range(0, len(seeds), size)]
        names = agent_names(agent_specs)
        tasks = [
            (env_id, kwargs, spec, name, game_name, block) for spec, name in zip(agent_specs, names) for block in blocks
        ]
        parts = run_sharded(_evaluate_block, tasks, backend, address, workers)
    return [join_summaries(parts[k * len(blocks) : (k + 1) * len(blocks)]) for k in range(len(agent_specs))]
