"""Game records: a played game as JSON, saved, loaded, checked and replayed step by step.

A record holds what is needed to replay a game exactly and to read it:

.. code-block:: json

    {"format": "patience_gym.record", "format_version": 1, "library_version": "0.1.0",
     "env_id": "patience_gym/Golf-v0", "env_kwargs": {}, "max_episode_steps": 500,
     "seed": 3, "initial_state": {...}, "agent": "greedy",
     "moves": ["c3>w", "deal", ...], "rewards": [1.0, 0.0, ...],
     "final_score": 12.0, "won": false, "terminated": true, "truncated": false}

``initial_state`` is ``env.unwrapped.state_dict()`` right after the reset, so a
record replays without the seed (which is kept for reference); ``moves`` are
written as ``env.unwrapped.describe_action`` writes them. Illegal attempts
(``illegal_action="penalize"``) change nothing and are not recorded.

* :class:`RecordEpisodes` wraps an env and records every episode played
  through it (optionally writing one file per episode to a directory, never
  over a file already there: :func:`check_record_files` checks a whole run first);
* :func:`record_episode` plays one agent on one seed and returns the record;
* :func:`save_record` / :func:`load_record` write and read (and check) files;
* :func:`replay` steps a record through a fresh env (or one given, which must have
  the record's env id and rule options: :func:`check_rules`), checking every reward.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import patience_gym
from patience_gym.core import make_options
from patience_gym.specs import by_env_id

FORMAT = "patience_gym.record"
FORMAT_VERSION = 1

_REQUIRED = ("format", "format_version", "env_id", "initial_state", "moves", "rewards")
_ORDER = ("library_version", "env_id", "env_kwargs", "max_episode_steps", "seed", "agent", "final_score", "won")
#: gym.make's own arguments: a record's env kwargs are the env's, its step limit is ``max_episode_steps``.
_NOT_ENV_KWARGS = ("max_episode_steps", "disable_env_checker", "autoreset", "apply_api_compatibility", "render_mode")


class RecordError(ValueError):
    """A game record that cannot be read or does not replay; the message names the problem."""


@dataclasses.dataclass
class GameRecord:
    """One game: where it started, the moves in notation, and what they scored."""

    env_id: str
    initial_state: dict[str, Any]
    env_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    max_episode_steps: int | None = None
    seed: int | None = None
    agent: str | None = None
    moves: list[str] = dataclasses.field(default_factory=list)
    rewards: list[float] = dataclasses.field(default_factory=list)
    final_score: float | None = None
    won: bool = False
    terminated: bool = False
    truncated: bool = False
    library_version: str = patience_gym.__version__

    def to_dict(self) -> dict[str, Any]:
        """The record as the JSON-able dict written to files."""
        fields = dataclasses.asdict(self)
        data: dict[str, Any] = {"format": FORMAT, "format_version": FORMAT_VERSION}
        for key in _ORDER:  # the summary first, the long lists last
            data[key] = fields.pop(key)
        data.update(fields)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """A record from :meth:`to_dict` output; :class:`RecordError` naming any problem (moves not checked)."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a game record must be a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise RecordError(f"not a patience_gym game record: 'format' is {data.get('format')!r}, not {FORMAT!r}")
        version = data.get("format_version")
        if not _is_int(version):
            raise RecordError(f"format_version must be the integer {FORMAT_VERSION}, got {_shown(version)}")
        if version != FORMAT_VERSION:
            raise RecordError(
                f"record format version {version!r} is not readable by patience_gym {patience_gym.__version__}, "
                f"which reads format version {FORMAT_VERSION}"
            )
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - fields - {"format", "format_version"}
        if unknown:
            raise RecordError(f"unknown key(s) in game record: {', '.join(sorted(map(str, unknown)))}")
        missing = [k for k in _REQUIRED if k not in data]
        if missing:
            raise RecordError(f"game record lacks {', '.join(missing)}")
        values = {k: v for k, v in data.items() if k in fields}
        _check_types(values)
        values["rewards"] = [float(r) for r in values["rewards"]]
        if values.get("final_score") is not None:
            values["final_score"] = float(values["final_score"])
        return cls(**values)


def _is_int(value: Any) -> bool:
    """True for an int that is not a bool (JSON ``true`` is not a number)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_finite(value: Any) -> bool:
    """True for an int or float (not a bool) that is a finite float: no NaN, no inf, no 401-digit integer."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _shown(value: Any) -> str:
    """``repr(value)``, but a huge integer by its length rather than its digits."""
    if _is_int(value) and abs(value) >= 10**20:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_types(values: Mapping[str, Any]) -> None:
    """:class:`RecordError` naming the first field (and move) of the wrong type or out of range."""
    expect: dict[str, tuple[type, ...]] = {
        "env_id": (str,),
        "initial_state": (dict,),
        "env_kwargs": (dict,),
        "moves": (list,),
        "rewards": (list,),
        "won": (bool,),
        "terminated": (bool,),
        "truncated": (bool,),
        "library_version": (str,),
        "agent": (str,),
    }
    for key, types in expect.items():
        if key not in values or (key == "agent" and values[key] is None):
            continue
        value = values[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            names = " or ".join(t.__name__ for t in types)
            raise RecordError(f"game record key {key!r} must be {names}, got {_shown(value)}")
    numbers = [
        ("max_episode_steps", lambda v: _is_int(v) and v > 0, "a positive int"),
        ("seed", lambda v: _is_int(v) and v >= 0, "int (non-negative)"),
        ("final_score", _is_finite, "a finite number"),
    ]
    for key, valid, what in numbers:
        value = values.get(key)
        if value is not None and not valid(value):
            raise RecordError(f"game record key {key!r} must be {what}, got {_shown(value)}")
    for key in _NOT_ENV_KWARGS:
        if key in values.get("env_kwargs", {}):
            raise RecordError(
                f"game record env_kwargs may not hold {key!r}, an argument of gym.make rather than of the env "
                "(the record's own max_episode_steps sets the step limit)"
            )
    moves, rewards = values["moves"], values["rewards"]
    if not all(isinstance(m, str) for m in moves):
        raise RecordError("game record 'moves' must be a list of move texts")
    if len(rewards) != len(moves):
        raise RecordError(f"game record has {len(moves)} moves but {len(rewards)} rewards")
    for n, (move, reward) in enumerate(zip(moves, rewards), 1):
        if not _is_finite(reward):
            raise RecordError(
                f"game record 'rewards': the reward of move {n} {move!r} must be a finite number, got {_shown(reward)}"
            )


# --- files ---------------------------------------------------------------------------
def save_record(record: GameRecord, path: str | Path, overwrite: bool = True) -> Path:
    """Write ``record`` as JSON to ``path`` (folders are made as needed); without ``overwrite``, a file
    already at ``path`` is a FileExistsError naming it, and is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = record.to_dict()
    # One line per key: the record stays short to read, and each value stays plain JSON.
    lines = [f" {json.dumps(key)}: {json.dumps(value)}" for key, value in data.items()]
    try:
        with path.open("w" if overwrite else "x") as fh:
            fh.write("{\n" + ",\n".join(lines) + "\n}\n")
    except FileExistsError:
        raise FileExistsError(f"{path} already exists; a game record is not written over it") from None
    return path


def record_file_name(env_id: str, agent: str | None, seed: int | None, episode: int = 1) -> str:
    """The file :class:`RecordEpisodes` writes a game to: ``<Env>-<agent>-seed<seed>.json``, or
    ``<Env>-<agent>-episode<n>.json`` for the ``episode``-th reset of the wrapper where the reset had no seed."""
    env = env_id.rsplit("/", 1)[-1]
    name = re.sub(r"[^A-Za-z0-9_.=-]+", "-", agent or "agent").strip("-")
    tail = f"seed{int(seed)}" if seed is not None else f"episode{episode}"
    return f"{env}-{name}-{tail}.json"


def check_record_files(directory: str | Path, env_id: str, agents: Sequence[str | None], seeds: Sequence[int]) -> None:
    """Check, before any game is played, that a run of each of ``agents`` (by name) on every one of ``seeds``
    can write its records to ``directory`` without losing one.

    A seed given twice, or two agents whose names read the same in a file name (``ppo:a b`` and ``ppo:a-b``),
    would write one file twice: a ValueError naming it. A record file of the run already in ``directory``
    is a FileExistsError naming it (and how many more there are): nothing is overwritten.
    """
    directory = Path(directory)
    if not isinstance(seeds, range):  # a range repeats no seed
        seen: set[int] = set()
        for seed in seeds:
            if int(seed) in seen:
                name = record_file_name(env_id, agents[0] if agents else None, seed)
                raise ValueError(
                    f"seed {seed} is given twice: both its games would write the record {directory / name}"
                )
            seen.add(int(seed))
    by_name: dict[str, str | None] = {}  # one seed's file name -> the agent that writes it
    for agent in agents:
        name = record_file_name(env_id, agent, seeds[0] if len(seeds) else 0)
        if name in by_name:
            raise ValueError(
                f"agents {by_name[name]!r} and {agent!r} would write the same record files ({directory / name}, "
                "...): give them names that differ in letters or digits"
            )
        by_name[name] = agent
    if not directory.is_dir():
        return
    paths = (directory / record_file_name(env_id, agent, seed) for agent in agents for seed in seeds)
    taken = [path for path in paths if path.exists()]
    if taken:
        more = f" (and {len(taken) - 1} more of this run's record files)" if len(taken) > 1 else ""
        raise FileExistsError(
            f"{taken[0]} already exists{more}: game records are never written over; "
            "move them away or give another directory"
        )


def load_record(path: str | Path, env_id: str | None = None, check: bool = True) -> GameRecord:
    """Read a record; with ``check`` (default) replay it to prove every move legal and every reward right.

    ``env_id``, if given, is the env the record must be for. Any problem is a :class:`RecordError`
    naming the file and the problem (a move by its number and text).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise RecordError(f"no game record at {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path} is not a valid JSON game record: {exc}") from None
    try:
        record = GameRecord.from_dict(data)
        check_env(record, env_id)
        if check:
            for _ in replay(record):
                pass
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    return record


def check_env(record: GameRecord, env_id: str | None = None) -> None:
    """:class:`RecordError` unless the record's env is in :data:`patience_gym.ENVS` (and is ``env_id`` if given)."""
    if env_id is not None and record.env_id != env_id:
        raise RecordError(f"record is for env {record.env_id}, not {env_id}")
    if record.env_id in patience_gym.ENVS:
        return
    known = ", ".join(patience_gym.ENVS)
    if record.env_id in gym.registry:
        raise RecordError(f"record is for env {record.env_id}, which is not a patience_gym env; ours: {known}")
    base = record.env_id.rsplit("-v", 1)[0]
    others = sorted(e for e in patience_gym.ENVS if e.rsplit("-v", 1)[0] == base)
    if others:
        raise RecordError(
            f"record is for env {record.env_id}, but patience_gym {patience_gym.__version__} has only "
            f"{', '.join(others)}: another version of that env, whose rules or observations may differ"
        )
    raise RecordError(f"record is for env {record.env_id}, which is not registered; known: {known}")


# --- replay ----------------------------------------------------------------------------
def make_env(record: GameRecord, **extra: Any) -> gym.Env[Any, Any]:
    """A fresh env as the record's game was played in (``extra`` kwargs such as ``render_mode`` added)."""
    check_env(record)
    kwargs = dict(record.env_kwargs)
    kwargs.update(extra)
    if record.max_episode_steps is not None:
        kwargs["max_episode_steps"] = record.max_episode_steps
    try:
        return gym.make(record.env_id, **kwargs)
    except (TypeError, ValueError) as exc:
        raise RecordError(f"cannot make {record.env_id} with env_kwargs {record.env_kwargs}: {exc}") from None


def check_rules(record: GameRecord, env: gym.Env[Any, Any]) -> None:
    """:class:`RecordError` unless ``env`` is the record's env id with the record's rule options (defaults
    included), naming the env or each option that differs; its observation encoding, render mode and
    illegal-action mode are not rules and may differ."""
    check_env(record)
    unwrapped: Any = env.unwrapped
    game: Any = getattr(unwrapped, "game", None)
    given = env.spec.id if env.spec is not None else None
    if game is None or game.name != by_env_id(record.env_id).game or given not in (None, record.env_id):
        what = given or (f"an env of the game {game.name!r}" if game is not None else type(unwrapped).__name__)
        raise RecordError(f"record is for env {record.env_id}, but the env given is {what}")
    options_type = type(game.options)
    rule_names = [f.name for f in dataclasses.fields(options_type)]
    params = inspect.signature(type(unwrapped)).parameters.values()
    env_args = {p.name for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD}
    unknown = sorted(set(record.env_kwargs) - set(rule_names) - env_args)
    if unknown:
        known = ", ".join(rule_names) or "none"
        raise RecordError(
            f"record env_kwargs {', '.join(map(repr, unknown))} is neither an argument of {record.env_id} "
            f"nor one of its rule options ({known})"
        )
    try:
        wanted = make_options(options_type, {k: v for k, v in record.env_kwargs.items() if k in rule_names}, game.name)
    except TypeError as exc:
        raise RecordError(f"record env_kwargs: {exc}") from None
    differ = [
        f"{name}={getattr(wanted, name)!r} in the record, {getattr(game.options, name)!r} in the env"
        for name in rule_names
        if getattr(wanted, name) != getattr(game.options, name)
    ]
    if differ:
        raise RecordError(f"the env given plays {record.env_id} by other rules than the record's: {'; '.join(differ)}")


def replay(
    record: GameRecord, env: gym.Env[Any, Any] | None = None
) -> Iterator[tuple[np.ndarray, float, bool, bool, dict[str, Any]]]:
    """Replay ``record``, yielding ``(obs, reward, terminated, truncated, info)`` after each move.

    ``env`` (by default a fresh one from :func:`make_env`) is reset to the record's initial state; its
    position after each move can be read while iterating. An ``env`` given must be the record's env id with
    its rule options (:func:`check_rules`; other observations are fine). A move that is unknown or illegal,
    a reward other than the record's, or an end (terminated, truncated, final score, won) other than the
    record's is a :class:`RecordError` naming the move or the field.
    """
    if env is None:
        env = make_env(record)
    else:
        check_rules(record, env)
    game_env: Any = env.unwrapped
    try:
        obs, info = env.reset(options={"state": record.initial_state})
    except (ValueError, TypeError) as exc:
        raise RecordError(f"the record's initial_state is not a position of {record.env_id}: {exc}") from None
    done = False
    terminated = truncated = False
    for n, (text, expected) in enumerate(zip(record.moves, record.rewards), 1):
        if done:
            raise RecordError(f"the game ended at move {n - 1}, but the record goes on with move {n} {text!r}")
        try:
            action = game_env.action_from_description(text)
        except ValueError as exc:
            raise RecordError(f"move {n} {text!r} is unknown: {exc}") from None
        if not info["action_mask"][action]:
            legal = ", ".join(game_env.describe_action(a) for a in np.flatnonzero(info["action_mask"])) or "none"
            raise RecordError(f"move {n} {text!r} is illegal in that position; the legal moves were: {legal}")
        obs, reward, terminated, truncated, info = env.step(action)
        if float(reward) != expected:
            raise RecordError(f"move {n} {text!r} gives reward {float(reward)}, but the record says {expected}")
        done = terminated or truncated
        yield obs, float(reward), terminated, truncated, info
    if (terminated, truncated) != (record.terminated, record.truncated):
        raise RecordError(
            f"after its {len(record.moves)} moves the record says terminated={record.terminated}, "
            f"truncated={record.truncated}, but the replay gives terminated={terminated}, truncated={truncated}"
        )
    score = float(game_env.game.score(game_env.state))
    if record.final_score is not None and score != record.final_score:
        raise RecordError(f"the replay ends with score {score}, but the record says {record.final_score}")
    won = bool(game_env.game.is_won(game_env.state))
    if won != record.won:
        raise RecordError(
            f"after its {len(record.moves)} moves the record says won={record.won}, but the replay gives won={won}"
        )


# --- recording --------------------------------------------------------------------------
class RecordEpisodes(gym.Wrapper[Any, Any, Any, Any]):
    """Records every episode played through it; with ``directory``, writes each to a file when it ends.

    The env id and kwargs are read from ``env.spec`` (``gym.make`` sets it) unless given. Files are named
    ``<env>-<agent>-seed<seed>.json`` (``-episode<n>`` when the reset had no seed: :func:`record_file_name`).
    No record is ever written over: a reset whose file already exists is a FileExistsError naming it, before
    the episode is played.
    """

    def __init__(
        self,
        env: gym.Env[Any, Any],
        agent: str | None = None,
        directory: str | Path | None = None,
        env_id: str | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(env)
        spec = env.spec
        if env_id is None and spec is None:
            raise ValueError("RecordEpisodes needs env_id for an env not made by gym.make")
        self.env_id: str = env_id if env_id is not None else spec.id  # type: ignore[union-attr]
        given = dict(env_kwargs) if env_kwargs is not None else dict(spec.kwargs if spec else {})
        given.pop("render_mode", None)
        self.env_kwargs = given
        self.max_episode_steps = spec.max_episode_steps if spec else None
        self.agent = agent
        self.directory = None if directory is None else Path(directory)
        self.record: GameRecord | None = None
        self.paths: list[Path] = []
        self._episodes = 0
        self._path: Path | None = None  # where the episode under way is written when it ends

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        path = None
        if self.directory is not None:
            path = self.directory / record_file_name(self.env_id, self.agent, seed, self._episodes + 1)
            if path.exists():
                raise FileExistsError(
                    f"{path} already exists: RecordEpisodes does not write a game record over another; "
                    "move it away or record into another directory"
                )
        obs, info = self.env.reset(seed=seed, options=options)
        self._episodes += 1
        self._path = path
        self.record = GameRecord(
            env_id=self.env_id,
            initial_state=self.env.unwrapped.state_dict(),  # type: ignore[attr-defined]
            env_kwargs=dict(self.env_kwargs),
            max_episode_steps=self.max_episode_steps,
            seed=None if seed is None else int(seed),
            agent=self.agent,
        )
        self._finish()
        return obs, info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        record = self.record
        if record is None:
            return obs, reward, terminated, truncated, info
        if not info.get("illegal_action", False):
            record.moves.append(self.env.unwrapped.describe_action(int(action)))  # type: ignore[attr-defined]
            record.rewards.append(float(reward))
        record.terminated, record.truncated = bool(terminated), bool(truncated)
        self._finish()
        if (terminated or truncated) and self._path is not None:
            path, self._path = self._path, None  # one file per episode, even if stepped on after its end
            self.paths.append(save_record(record, path, overwrite=False))
        return obs, reward, terminated, truncated, info

    def _finish(self) -> None:
        """Bring the score and outcome up to date with the position."""
        unwrapped: Any = self.env.unwrapped
        assert self.record is not None
        self.record.final_score = float(unwrapped.game.score(unwrapped.state))
        self.record.won = bool(unwrapped.game.is_won(unwrapped.state))


def record_episode(
    env_id: str,
    agent: Any,
    seed: int,
    env_kwargs: Mapping[str, Any] | None = None,
    agent_name: str | None = None,
) -> GameRecord:
    """Play ``agent`` (an ``agents.Agent``: ``act(env, obs, mask)``) on the deal of ``seed``; its record."""
    env = RecordEpisodes(gym.make(env_id, **dict(env_kwargs or {})), agent=agent_name or getattr(agent, "name", None))
    obs, info = env.reset(seed=int(seed))
    if hasattr(agent, "reset"):
        agent.reset(int(seed))
    done = False
    while not done:
        action = agent.act(env.unwrapped, obs, info["action_mask"].astype(bool))
        obs, _, terminated, truncated, info = env.step(action)
        if info["illegal_action"]:
            raise RuntimeError(f"agent chose illegal action {action} on seed {seed}")
        done = terminated or truncated
    env.close()
    assert env.record is not None
    return env.record
