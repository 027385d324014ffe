"""A sweep's search space over config keys (``--search FILE``), read and checked before any training.

Two kinds, in a YAML file of dotted config keys (the keys ``train.py`` takes as flags)::

    grid:                      # every combination, each trained at every seed of the sweep
      ppo.learning_rate: [0.0003, 0.001]
      ppo.ent_coef: [0.0, 0.01]

    optuna:                    # Optuna's TPE through Ray Tune: `samples` configs, each at the sweep's first seed
      samples: 12
      space:
        ppo.learning_rate: {loguniform: [1.0e-4, 1.0e-2]}
        ppo.n_epochs: {randint: [3, 11]}        # 3..10
        ppo.ent_coef: {uniform: [0.0, 0.02]}
        ppo.batch_size: {choice: [64, 128, 256]}

Optuna maximises the held-out evaluation's last mean return (``eval_return``), never the report deals, so the
config needs ``eval.freq > 0``; confirm its pick with a seed sweep at the chosen values. Every value of a grid,
and both ends (or every choice) of an Optuna range, is checked by the config's own validation first.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from agents.training.config import ConfigError, UniqueKeyLoader, load_config

#: Optuna's range kinds and how many bounds each takes (randint's upper bound is exclusive, as Tune's).
RANGES = {"uniform": 2, "loguniform": 2, "randint": 2, "choice": None}


@dataclasses.dataclass(frozen=True)
class Grid:
    """Every combination of ``values`` (dotted key -> its values)."""

    values: dict[str, list[Any]]

    def points(self) -> list[dict[str, Any]]:
        """The combinations, in the file's key order."""
        keys = list(self.values)
        return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*self.values.values())]


@dataclasses.dataclass(frozen=True)
class OptunaSpace:
    """``samples`` configs drawn by Optuna from ``ranges`` (dotted key -> (kind, bounds or choices))."""

    samples: int
    ranges: dict[str, tuple[str, list[Any]]]

    def tune_space(self) -> dict[str, Any]:
        """The ranges as Ray Tune's sampling objects."""
        from ray import tune

        makers: dict[str, Callable[..., Any]] = {
            "uniform": tune.uniform,
            "loguniform": tune.loguniform,
            "randint": tune.randint,
        }
        return {
            key: tune.choice(args) if kind == "choice" else makers[kind](*args)
            for key, (kind, args) in self.ranges.items()
        }

    def corners(self) -> list[dict[str, Any]]:
        """Each range's ends (or each choice), one key at a time: what the config's validation checks."""
        found = []
        for key, (kind, args) in self.ranges.items():
            values = args if kind == "choice" else [args[0], args[1] - 1 if kind == "randint" else args[1]]
            found += [{key: value} for value in values]
        return found


SearchSpace = Grid | OptunaSpace


def read_space(path: Path) -> SearchSpace:
    """The search space in ``path``; a ConfigError naming the file and what is wrong."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=UniqueKeyLoader)
    except OSError as exc:
        raise ConfigError(f"--search {path}: {exc.strerror or exc}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"--search {path} is not a YAML file: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict) or len(data) != 1 or next(iter(data)) not in ("grid", "optuna"):
        raise ConfigError(f"--search {path} must hold one mapping, grid: or optuna: (see agents.training.sweep_space)")
    kind, body = next(iter(data.items()))
    return _grid(path, body) if kind == "grid" else _optuna(path, body)


def _grid(path: Path, body: Any) -> Grid:
    if not isinstance(body, dict) or not body:
        raise ConfigError(f"--search {path}: grid must map config keys to lists of values")
    for key, values in body.items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"--search {path}: grid key {key} must list at least one value, got {values!r}")
        if len({yaml.safe_dump(v) for v in values}) != len(values):
            raise ConfigError(f"--search {path}: grid key {key} lists a value twice: {values!r}")
    return Grid({str(k): list(v) for k, v in body.items()})


def _optuna(path: Path, body: Any) -> OptunaSpace:
    if not isinstance(body, dict) or set(body) != {"samples", "space"}:
        raise ConfigError(f"--search {path}: optuna needs samples: N and space: {{key: {{kind: args}}}}")
    samples, space = body["samples"], body["space"]
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise ConfigError(f"--search {path}: optuna samples must be a positive integer, got {samples!r}")
    if not isinstance(space, dict) or not space:
        raise ConfigError(f"--search {path}: optuna space must map config keys to ranges")
    ranges: dict[str, tuple[str, list[Any]]] = {}
    for key, spec in space.items():
        if not isinstance(spec, dict) or len(spec) != 1 or next(iter(spec)) not in RANGES:
            raise ConfigError(f"--search {path}: {key} must be one of {{{', '.join(RANGES)}: ...}}, got {spec!r}")
        kind, args = next(iter(spec.items()))
        if not isinstance(args, list) or not args or (RANGES[kind] and len(args) != RANGES[kind]):
            raise ConfigError(f"--search {path}: {key}'s {kind} takes a list of {RANGES[kind] or 'choices'}")
        if kind != "choice" and not (_number(args[0]) and _number(args[1]) and args[0] < args[1]):
            raise ConfigError(f"--search {path}: {key}'s {kind} bounds must be numbers, low < high, got {args!r}")
        if kind == "loguniform" and args[0] <= 0:
            raise ConfigError(f"--search {path}: {key}'s loguniform bounds must be positive, got {args!r}")
        ranges[str(key)] = (kind, list(args))
    return OptunaSpace(samples, ranges)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_space(space: SearchSpace, config_path: Path, env_id: str, base: Mapping[str, Any]) -> None:
    """Each value the space can give, checked by the config's validation with ``base`` (the command line's
    settings): a key the config does not have, or a value it refuses, is a ConfigError naming it."""
    points = space.points() if isinstance(space, Grid) else space.corners()
    for point in points:
        clash = sorted(set(point) & {"seed", "env_id"})
        if clash:
            raise ConfigError(f"search space: {clash[0]} is not a config setting to search (seeds: --seeds)")
        try:
            load_config(config_path, env_id, {**base, **point})
        except ConfigError as exc:
            raise ConfigError(f"search space {point}: {exc}") from None
