"""An evaluation cut into blocks of deals run on a backend (:mod:`agents.evaluation.sharding`), each finished
block kept in a state dir and read back, checked, by a rerun instead of being played again."""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import gymnasium as gym

from agents.base import Agent
from agents.evaluation.episodes import Summary, agent_labels, join_summaries, labelled_agent, play_episodes, summarise
from agents.evaluation.sharding import FLAG, TEXT, KeptForm, backend_session, number, run_resumable, whole
from agents.load import model_file
from patience_gym.records import check_record_files

#: Deals a block of :func:`evaluate_sharded` with a ``state_dir`` and no ``shard_size``: fixed, so that the
#: kept blocks' names do not depend on the backend or the number of workers a rerun has.
KEPT_SHARD_SIZE = 10

#: What a kept block holds (:func:`_play_shard`): a score (any finite number) and a won flag per deal, the
#: agent's name, the moves made and the seconds taken.
FINITE = number(None)
KEPT_BLOCK = KeptForm(
    deals={"scores": FINITE, "won": FLAG},
    totals={"agent": TEXT, "moves": whole(0), "seconds": number(0.0)},
)


@dataclass(frozen=True)
class EvalShard:
    """One agent's block of deals: a task of :func:`evaluate_sharded`, and the name of its kept result."""

    env_id: str
    env_kwargs: dict[str, Any]
    spec: str
    name: str | None
    game_name: str
    seeds: list[int]
    settings: dict[str, Any]  # what the agent plays by (see agent_settings): a kept block must match it
    records: str | None = None  # write each deal's game record here (never with a state dir)

    @property
    def count(self) -> int:
        return len(self.seeds)

    @property
    def filename(self) -> str:
        """``<Env>-<agent>-<tag>-<first seed>-<deals>.json``; the tag tells apart rules and agent specs."""
        what = json.dumps([self.env_id, self.env_kwargs, self.spec, self.name], sort_keys=True)
        tag = hashlib.sha256(what.encode()).hexdigest()[:8]
        label = re.sub(r"[^A-Za-z0-9]+", "_", self.name or self.spec).strip("_")[:40]
        return f"{self.env_id.split('/')[-1]}-{label}-{tag}-{self.seeds[0]}-{self.count}.json"


def agent_settings(agent: Agent, spec: str) -> dict[str, Any]:
    """What ``agent`` plays by, as JSON values: its plain public attributes (a planner's budget, say) and, for a
    ``ppo:PATH`` spec, the model file's SHA-256, so that a kept result of other settings or of a retrained
    model is never taken for this agent's."""
    settings = {
        k: v
        for k, v in sorted(vars(agent).items())
        if not k.startswith("_") and (v is None or isinstance(v, (bool, str)) or FINITE.test(v))
    }
    if spec.startswith("ppo:"):
        settings["model_sha256"] = hashlib.sha256(model_file(spec[4:]).read_bytes()).hexdigest()
    return settings


def _play_shard(shard: EvalShard) -> dict[str, Any]:
    """One block of deals played by a fresh agent (in a worker process), as the JSON that
    :func:`~agents.evaluation.sharding.run_resumable` keeps (:data:`KEPT_BLOCK`)."""
    import torch as th

    th.set_num_threads(1)  # one process per core already
    kwargs = shard.env_kwargs or None
    agent = labelled_agent(shard.env_id, shard.spec, shard.name, shard.game_name, shard.seeds[0], kwargs)
    summary = play_episodes(shard.env_id, agent, shard.seeds, kwargs, shard.records)
    return {
        "shard": asdict(shard),
        "agent": summary.agent,
        "scores": [float(x) for x in summary.scores],
        "won": [bool(x) for x in summary.won],
        "moves": round(summary.mean_moves * summary.episodes),
        "seconds": summary.seconds,
    }


def agent_shards(
    env_id: str,
    env_kwargs: dict[str, Any] | None,
    agent_specs: Sequence[str],
    seeds: Sequence[int],
    records: str | Path | None = None,
) -> list[EvalShard]:
    """One shard per agent over all of ``seeds`` (:func:`cut` makes the blocks): every agent is made here, so
    a PPO model trained for another env, rules or encoding is refused, and with ``records`` every record
    file is checked, before any deal is played."""
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("evaluate_sharded needs at least one seed")
    if not agent_specs:
        raise ValueError("evaluate_sharded needs at least one agent spec")
    kwargs = dict(env_kwargs or {})
    game_name = gym.make(env_id, **kwargs).unwrapped.game.name  # type: ignore[attr-defined]
    names = agent_labels(agent_specs)
    made = [labelled_agent(env_id, spec, name, game_name, seeds[0], kwargs) for spec, name in zip(agent_specs, names)]
    if records is not None:
        check_record_files(records, env_id, [agent.name for agent in made], seeds)
    written = None if records is None else str(records)
    return [
        EvalShard(env_id, kwargs, spec, name, game_name, seeds, agent_settings(agent, spec), written)
        for spec, name, agent in zip(agent_specs, names, made, strict=True)
    ]


def cut(shards: Sequence[EvalShard], size: int) -> list[EvalShard]:
    """Each shard cut into blocks of ``size`` consecutive deals (the last one shorter), shard by shard."""
    if size < 1:
        raise ValueError(f"shard_size must be at least 1, got {size}")
    return [replace(s, seeds=s.seeds[i : i + size]) for s in shards for i in range(0, s.count, size)]


def evaluate_sharded(
    env_id: str,
    env_kwargs: dict[str, Any] | None,
    agent_specs: Sequence[str],
    seeds: Sequence[int],
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    shard_size: int | None = None,
    state_dir: str | Path | None = None,
    records: str | Path | None = None,
) -> list[Summary]:
    """:func:`~agents.evaluation.evaluate.evaluate` with every agent's deals cut into blocks run on ``backend``
    (see :mod:`agents.evaluation.sharding`).

    Returns one :class:`Summary` per spec, in spec order, whose ``scores`` are per deal in ``seeds`` order:
    the same as a serial evaluation of those seeds. ``shard_size`` deals per task (default: about four
    blocks per worker for each agent; with ``state_dir``, :data:`KEPT_SHARD_SIZE`). Each block makes a
    fresh agent, as ``--jobs`` does: the agents reset per deal, so the split does not change a game. Every
    agent is made here first (:func:`agent_shards`), so a PPO model trained for another env, rules or
    encoding is refused before any shard is sent.

    With ``state_dir``, each finished block is kept there (one JSON file) as it finishes, and blocks already
    kept are read back instead of played: an interrupted evaluation resumes where it stopped and never
    plays or counts a deal twice. A kept block is reused only for the same env, rules, agent spec, agent
    settings (:func:`agent_settings`) and seeds (so the same ``shard_size``), holding a score and a won flag
    for each of them (:data:`KEPT_BLOCK`); a file of that name holding anything else is refused by name
    before any block is played (the agent's code is not part of it: after changing that, use a new
    ``state_dir``). The run is the state dir's one writer while it runs
    (:func:`~agents.evaluation.sharding.holding`). ``seconds`` then sums every block's own time, kept
    ones included.

    ``records``: a directory for each deal's game record, as :func:`~agents.evaluation.evaluate.evaluate`
    writes them; not with ``state_dir``, since a block read back would write none.
    """
    if shard_size is not None and shard_size < 1:
        raise ValueError(f"shard_size must be at least 1, got {shard_size}")
    if records is not None and state_dir is not None:
        raise ValueError(
            "records and state_dir do not go together: a block read back from the state dir writes no records"
        )
    whole = agent_shards(env_id, env_kwargs, agent_specs, seeds, records)
    count = whole[0].count
    with backend_session(backend, address, workers) as slots:
        size = shard_size or (KEPT_SHARD_SIZE if state_dir is not None else max(1, math.ceil(count / (4 * slots))))
        shards = cut(whole, size)
        kept = Path(state_dir) if state_dir is not None else None
        parts, played = run_resumable(_play_shard, shards, kept, KEPT_BLOCK, backend, address, workers)
    if kept is not None:
        print(f"{len(shards) - played} of {len(shards)} blocks of deals read back from {kept}", file=sys.stderr)
    summaries = [summarise(p["agent"], p["scores"], p["won"], p["moves"], p["seconds"]) for p in parts]
    blocks = len(shards) // len(whole)
    return [join_summaries(summaries[k * blocks : (k + 1) * blocks]) for k in range(len(whole))]
