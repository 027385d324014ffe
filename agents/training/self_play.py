"""Expert iteration's self-play: games played by the learned search, each decision kept with the search's
improved policy and, once the game ends, its final value.

A shard is a block of deal seeds played with one network (a generation's). Shards run on any backend of
:func:`agents.evaluation.sharding.run_sharded` (here, in processes, or on Ray), and each finished shard is
kept in the generation's folder as one ``.npz`` file, written atomically: a run killed in the middle plays
again only the shards it had not finished, and counts none twice (a kept file names its generation, network
and seeds, and is checked on reading).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.evaluation.sharding import write_atomically
from agents.search.exact import MAX_NODES


@dataclasses.dataclass(frozen=True)
class SelfPlayShard:
    """One block of self-play: the env, the network (its file and digest), the search's budget, the seeds."""

    env_id: str
    env_kwargs: str  # JSON, keys sorted
    network: str
    digest: str
    sims: int
    considered: int
    generation: int
    seeds: tuple[int, ...]
    exact_from: int | None = None  # Golf's exact ending (SearchConfig.exact_from)
    exact_nodes: int = MAX_NODES  # the solver's budget where nothing is hidden (SearchConfig.exact_nodes)

    @property
    def filename(self) -> str:
        return f"selfplay_{self.seeds[0]:09d}_{len(self.seeds)}.npz"

    def describe(self) -> str:
        """What the shard is, as its kept file names it (the network's path left out: its digest says which)."""
        data = dataclasses.asdict(self)
        del data["network"]
        if data["exact_from"] is None:
            del data["exact_from"]  # as shards were named before the option
        if data["exact_nodes"] == MAX_NODES:
            del data["exact_nodes"]  # likewise
        return json.dumps(data, sort_keys=True)


@dataclasses.dataclass
class Games:
    """Decisions of self-play games: observations, masks, the search's improved policies, the final values,
    and each game's final score."""

    obs: np.ndarray
    masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def join(cls, parts: Sequence[Games]) -> Games:
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in dataclasses.fields(cls)))


_ARRAYS = tuple(f.name for f in dataclasses.fields(Games))


def digest(path: str | Path) -> str:
    """A network file's SHA-256 (its first 16 hex digits): which network played a kept shard."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def play_shard(shard: SelfPlayShard) -> Games:
    """Play the shard's deals with the search (Gumbel noise on: self-play explores), keeping every decision
    (a position with more than one legal move) with the search's improved policy, or, where nothing is hidden,
    the solver's proven move: so the network alone learns the open ending too."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one core a shard, and the same games on every backend
    try:
        return play_games(shard)
    finally:
        torch.set_num_threads(threads)


def play_games(shard: SelfPlayShard) -> Games:
    """:func:`play_shard`'s games, in the threads it set."""
    import gymnasium as gym

    from agents.search.gumbel import GumbelSearch, SearchConfig
    from agents.search.network import PolicyValue, value_of
    from patience_gym.features import make_observer

    kwargs = json.loads(shard.env_kwargs)
    env = gym.make(shard.env_id, **kwargs)
    game = env.unwrapped.game  # type: ignore[attr-defined]
    observer = make_observer(game, env.unwrapped.obs_encoding)  # type: ignore[attr-defined]
    net = PolicyValue.load(shard.network, shard.env_id, kwargs)
    search = GumbelSearch(
        game,
        observer.observe,
        net,
        SearchConfig(
            sims=shard.sims,
            considered=shard.considered,
            exact_from=shard.exact_from,
            exact_nodes=shard.exact_nodes,
        ),
    )
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    policies: list[np.ndarray] = []
    values: list[float] = []
    scores: list[float] = []
    for seed in shard.seeds:
        env.reset(seed=seed)
        search.new_game()
        rng = np.random.default_rng(seed)
        state = env.unwrapped.state  # type: ignore[attr-defined]
        first = len(values)
        while not game.is_over(state):
            mask = np.asarray(game.legal_mask(state), dtype=bool)
            seen = observer.observe(state)
            result = search.run(state, rng, gumbel=True)
            if mask.sum() > 1:  # a decision (not a forced move): searched, or the proven line's where all is open
                obs.append(seen)
                masks.append(mask)
                policies.append(result.policy.astype(np.float32))
                values.append(0.0)
            env.step(result.action)
            state = env.unwrapped.state  # type: ignore[attr-defined]
        final = value_of(game.name, game.score(state))
        values[first:] = [final] * (len(values) - first)
        scores.append(float(game.score(state)))
    size = observer.spec.shape[0]
    return Games(
        np.asarray(obs, dtype=np.float32).reshape(-1, size),
        np.asarray(masks, dtype=bool).reshape(-1, game.num_actions),
        np.asarray(policies, dtype=np.float32).reshape(-1, game.num_actions),
        np.asarray(values, dtype=np.float32),
        np.asarray(scores, dtype=np.float64),
    )


def keep(path: Path, shard: SelfPlayShard, games: Games) -> None:
    """Write a finished shard atomically."""
    arrays = {name: getattr(games, name) for name in _ARRAYS}
    write_atomically(path, lambda file: np.savez_compressed(file, shard=np.asarray(shard.describe()), **arrays))


def read(path: Path, shard: SelfPlayShard) -> Games | None:
    """The kept ``shard`` at ``path`` (None where there is none); a ValueError naming the file where it does
    not read, holds another shard (another generation, network, budget or deals) or is incomplete."""
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            held = str(data["shard"])
            arrays = {name: data[name] for name in _ARRAYS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"kept self-play shard {path} does not read ({exc}): delete it to play it again") from exc
    if held != shard.describe():
        raise ValueError(f"kept self-play shard {path} holds other games ({held}), not {shard.describe()}")
    if len(arrays["scores"]) != len(shard.seeds) or len({len(arrays[n]) for n in _ARRAYS if n != "scores"}) != 1:
        raise ValueError(f"kept self-play shard {path} is incomplete: delete it to play it again")
    return Games(**arrays)


def play_and_keep(task: tuple[SelfPlayShard, str]) -> float:
    """One shard played and kept at its path (in a worker: the rows go through the file); its mean score."""
    shard, path = task
    games = play_shard(shard)
    keep(Path(path), shard, games)
    return float(games.scores.mean())


def self_play(
    shards: Sequence[SelfPlayShard],
    folder: Path,
    backend: str = "serial",
    workers: int | None = None,
    address: str | None = None,
) -> tuple[Games, int]:
    """Every shard's games, in seed order: kept ones read back (each checked before any game is played), the
    others played on ``backend`` and kept as each finishes; and how many were played now."""
    from agents.evaluation.sharding import holding, run_sharded

    with holding(folder, "self-play folder"):
        parts = [read(folder / s.filename, s) for s in shards]
        todo = [i for i, part in enumerate(parts) if part is None]
        tasks = [(shards[i], str(folder / shards[i].filename)) for i in todo]
        run_sharded(play_and_keep, tasks, backend if len(tasks) > 1 else "serial", address, workers)
        for i in todo:
            parts[i] = read(folder / shards[i].filename, shards[i])
    return Games.join([p for p in parts if p is not None]), len(todo)
