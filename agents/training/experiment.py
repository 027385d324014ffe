"""Train a MaskablePPO agent on a patience_gym env, then compare it with the baselines.

    python train.py                      # configs/golf.yaml, the README's main job
    python train.py --config configs/puss.yaml --total-timesteps 200000 --run-dir runs/puss
    python train.py --resume runs/puss   # continue a stopped run from its newest intact checkpoint

A run directory holds ``config.yaml`` (the config used), ``tb/`` (TensorBoard logs), ``monitor/``
(training episodes), ``checkpoints/`` (every ``checkpoint_freq`` steps), ``eval/`` (held-out
evaluations during training and their best policy), ``model.zip`` (the final policy),
``training.json`` (steps and wall time of every segment; the run's seed, vec and config), and the
final report: ``report.md``, ``results.json``, ``learning_curve.png`` and ``scores.png`` (PPO against
random and greedy on deals it never trained on, with paired intervals). ``--resume`` continues the run, its timestep
count, optimiser state, episode log and evaluation history included, with its own seed and vec; what
a killed run recorded past the checkpoint it goes on from is set aside (``*.abandoned.*``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import gymnasium as gym
import yaml
from pydantic import Field, TypeAdapter, ValidationError

from agents.config import (
    MAX_ENVS,
    TRAIN_SEED_BASE,
    ConfigError,
    TrainConfig,
    config_to_dict,
    describe,
    load_config,
    ppo_settings,
    resolve_policy,
    resolve_policy_kwargs,
    resolve_ppo_kwargs,
    validate,
)

CHECKPOINT_RE = re.compile(r"model_(\d+)_steps\.zip$")
DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "golf.yaml"  # the README's main job
#: What a run directory holds; ``--overwrite`` removes these (and nothing else).
RUN_FILES = (
    "config.yaml",
    "tb",
    "monitor",
    "checkpoints",
    "eval",
    "model.zip",
    "training.json",
    "pretrain.json",
    "report.md",
    "results.json",
    "learning_curve.png",
    "scores.png",
)
#: Seeds of one training segment: TRAIN_SEED_BASE + SEED_STRIDE * (seed * MAX_SEGMENTS + segment) + env index.
SEED_STRIDE = MAX_ENVS
MAX_SEGMENTS = 100
#: ``--seed`` seeds numpy's global generator too (through SB3), which takes seeds below 2**32.
MAX_SEED = 2**32


@dataclasses.dataclass
class Args:
    """Train MaskablePPO on a patience_gym env (flags override the config)."""

    config: str | None = None
    """YAML config keyed by env id; None: configs/golf.yaml (with --resume: the run's, which a given one must match)"""
    env_id: str | None = None
    """which env of the config to train; None: its only one"""
    total_timesteps: Annotated[int | None, Field(ge=1)] = None
    """env steps to train for; None: the config's"""
    seed: Annotated[int | None, Field(ge=0, lt=MAX_SEED)] = None
    """seed of the training deals and the network; None: 0 (with --resume: the run's)"""
    n_envs: Annotated[int | None, Field(ge=1, le=SEED_STRIDE)] = None
    """parallel envs; None: the config's"""
    vec: Literal["batched", "dummy", "subproc"] | None = None
    """vector env: batched (numba, where it has the encoding), dummy (one process) or subproc; None: the config's"""
    run_dir: str | None = None
    """where to write the run, new or empty; None: runs/<env>-<time>"""
    resume: str | None = None
    """run directory to continue from its newest intact checkpoint"""
    overwrite: bool = False
    """replace the run found in --run-dir instead of refusing"""
    report_episodes: Annotated[int | None, Field(ge=1)] = None
    """deals for the final comparison; None: the config's"""
    pretrain_episodes: Annotated[int | None, Field(ge=0)] = None
    """teacher games for behaviour cloning before PPO; None: the config's pretrain.episodes"""
    progress_bar: bool = True
    """show a progress bar while training"""


#: Config keys the flags override, and the flag to name in an error.
OVERRIDES = {
    "total_timesteps": "--total-timesteps",
    "n_envs": "--n-envs",
    "vec": "--vec",
    "report.episodes": "--report-episodes",
    "pretrain.episodes": "--pretrain-episodes",
}


def parse_args(argv: list[str] | None = None) -> Args:
    """Parse the command line into :class:`Args` (tyro: flags are the fields, dashed; --help from the docstrings).

    A command line tyro refuses is a ConfigError of one line (tyro draws a box of several); ``--help`` prints
    the help and exits as usual.
    """
    import tyro

    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            args = tyro.cli(Args, args=argv, prog="train.py", description=__doc__)
    except SystemExit as exc:
        if exc.code in (0, None):
            sys.stderr.write(captured.getvalue())
            raise
        raise ConfigError(one_line_usage_error(captured.getvalue())) from None
    sys.stderr.write(captured.getvalue())  # tyro's warnings, if any
    return args


def one_line_usage_error(box: str) -> str:
    """tyro's error box as one line: its message (the first paragraph after the title), a guessed flag, the help."""
    rows = [ln.strip().strip("\u2502|").strip() for ln in box.strip().splitlines()]
    rows = [ln for ln in rows[1:] if not ln.startswith("\u2570")]  # the title (a line, or the top border), the bottom
    sections: list[list[str]] = [[]]
    for row in rows:
        if row and set(row) <= set("\u2500-"):
            sections.append([])
        else:
            sections[-1].append(row)
    sections = [s for s in sections if any(s)]
    first = sections[0] if sections else ["cannot parse the command line"]
    paragraph = " ".join(first[: first.index("")] if "" in first else first).strip()
    guess = next((s for s in sections if s[0].startswith("Perhaps you meant")), None)
    if guess and len(guess) > 1 and guess[1]:
        paragraph = f"{paragraph.rstrip('.')} (perhaps you meant {guess[1].split()[0]})"
    return f"{paragraph.rstrip('.')}. See train.py --help"


def check_args(args: Args) -> None:
    """Ranges and combinations of the flags: a ConfigError naming the flag."""
    try:
        TypeAdapter(Args).validate_python(dataclasses.asdict(args))
    except ValidationError as exc:
        names = {f.name: "--" + f.name.replace("_", "-") for f in dataclasses.fields(Args)}
        raise ConfigError(describe(exc, names=names)) from None
    if args.resume:
        if args.run_dir is not None:
            raise ConfigError("--run-dir cannot be combined with --resume: a run goes on in its own directory")
        if args.overwrite:
            raise ConfigError("--overwrite cannot be combined with --resume: choose one")


def override(config: TrainConfig, args: Args) -> TrainConfig:
    """``config`` with the flags' values, checked as the config file is (errors name the flag)."""
    data = dataclasses.asdict(config)
    changed = False
    for key, flag in OVERRIDES.items():
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is None:
            continue
        *parents, leaf = key.split(".")
        target = data
        for part in parents:
            target = target[part]
        target[leaf] = value
        changed = True
    if args.pretrain_episodes == 0:  # no warm start, so no DAgger rounds after it either
        data["pretrain"]["dagger_rounds"] = 0
    return validate(data, config.env_id, OVERRIDES) if changed else config


# --- the run directory --------------------------------------------------------------------------


def prepare_run_dir(args: Args, env_id: str) -> Path:
    """The new run's directory: refused when it holds anything, unless ``--overwrite`` (which clears the run)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(args.run_dir or f"runs/{env_id.split('/')[-1]}-{stamp}")
    if run_dir.exists() and not run_dir.is_dir():
        raise ConfigError(f"--run-dir {run_dir} is a file, not a directory")
    held = sorted(p.name for p in run_dir.iterdir()) if run_dir.is_dir() else []
    if held and not args.overwrite:
        shown = ", ".join(held[:4]) + (", ..." if len(held) > 4 else "")
        raise ConfigError(
            f"run directory {run_dir} is not empty ({shown}): continue that run with --resume {run_dir}, "
            f"replace it with --overwrite, or choose another --run-dir"
        )
    clear_run(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    return run_dir


def clear_run(run_dir: Path) -> None:
    """Remove what a run wrote in ``run_dir`` (:data:`RUN_FILES`), and nothing else."""
    for name in RUN_FILES:
        path = run_dir / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def checkpoints(run_dir: Path) -> list[Path]:
    """The run's checkpoints, newest first."""
    found = [
        (int(m.group(1)), p)
        for p in (run_dir / "checkpoints").glob("model_*_steps.zip")
        if (m := CHECKPOINT_RE.search(p.name))
    ]
    return [p for _, p in sorted(found, reverse=True)]


def resume_point(run_dir: Path, config: TrainConfig) -> tuple[Path, int]:
    """The newest checkpoint that loads, and its step count; a corrupt one is named and the one before tried.

    A checkpoint whose observations or actions do not fit ``config``'s env is a changed config, not a corrupt file.
    """
    import zipfile

    from sb3_contrib import MaskablePPO

    found = checkpoints(run_dir)
    if not found:
        raise ConfigError(
            f"cannot resume: no checkpoint in {run_dir / 'checkpoints'}; start the run again with "
            f"--run-dir {run_dir} --overwrite"
        )
    env = gym.make(config.env_id, **config.env_kwargs)
    fits = (env.observation_space.shape, int(env.action_space.n))  # type: ignore[attr-defined]
    for path in found:
        try:
            with zipfile.ZipFile(path) as archive:
                whole = archive.testzip() is None and {"data", "policy.pth"} <= set(archive.namelist())
            model = MaskablePPO.load(path, device="cpu") if whole else None
        except Exception as exc:  # an unreadable archive raises anything from zip, json, pickle or torch
            warn(f"checkpoint {path} is corrupt ({type(exc).__name__}: {exc}); trying an older one")
            continue
        if model is None:
            warn(f"checkpoint {path} is corrupt; trying an older one")
            continue
        held = (model.observation_space.shape, int(model.action_space.n))  # type: ignore[attr-defined]
        if held != fits:
            raise ConfigError(
                f"cannot resume: checkpoint {path} (observations {held[0]}, {held[1]} actions) does not fit the env "
                f"of {run_dir / 'config.yaml'} ({config.env_id}: {fits[0]}, {fits[1]} actions): was config.yaml edited?"
            )
        return path, int(model.num_timesteps)
    raise ConfigError(f"cannot resume: every checkpoint in {run_dir / 'checkpoints'} is corrupt")


def load_checkpoint(path: Path, envs: Any) -> Any:
    """The checkpoint :func:`resume_point` chose, with the training envs."""
    from sb3_contrib import MaskablePPO

    try:
        return MaskablePPO.load(path, env=envs, device="cpu")
    except Exception as exc:  # it loaded on its own: what fails here is the envs it is given
        raise ConfigError(f"cannot resume: checkpoint {path} does not take the training envs ({exc})") from None


#: Settings a resumed run may change; the rest are held by its checkpoints (the network, PPO's settings,
#: the env) or by its history (the held-out deals).
RESUME_FREE = ("total_timesteps", "n_envs", "checkpoint_freq", "report", "pretrain", "vec")


def config_changes(trained: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The settings (dotted keys) of ``now`` that differ from ``trained`` and a resume cannot change, in words."""
    before, after = flat_settings(trained), flat_settings(now)
    missing = object()
    changes = []
    for key in [*before, *(k for k in after if k not in before)]:
        old, new = before.get(key, missing), after.get(key, missing)
        if key.split(".")[0] not in RESUME_FREE and old != new:
            shown = ["unset" if v is missing else repr(v) for v in (old, new)]
            changes.append(f"{key} (trained with {shown[0]}, now {shown[1]})")
    return changes


def flat_settings(config: dict[str, Any]) -> dict[str, Any]:
    """A config (``dataclasses.asdict``) as dotted keys, ppo's defaults filled in."""
    flat: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value:
            for key, item in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), item)
        else:
            flat[prefix] = value

    walk("", {**config, "ppo": ppo_settings(config.get("ppo", {}))})
    return flat


def read_record(run_dir: Path) -> dict[str, Any]:
    """The run's ``training.json`` (steps, times, seed, vec, config), empty before its first segment."""
    path = run_dir / "training.json"
    if not path.is_file():
        return {}
    try:
        record = json.loads(path.read_text())
        if not isinstance(record, dict) or not isinstance(record.get("segments"), list):
            raise ValueError("no list of segments")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot resume: {path} is not a training record ({exc})") from None
    return record


def warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def save_atomically(model: Any, path: Path, stamp: Callable[[Path], Any] | None = None) -> None:
    """``model.save(path)`` through a temporary file and a rename: a kill leaves the old file or the new one.

    ``stamp`` writes the model's spec into the temporary file first, so no model is ever there without it.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        model.save(fh)
    if stamp is not None:
        stamp(tmp)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def spec_stamp(config: TrainConfig) -> Callable[[Path], Any]:
    """Writes the run's env id, rule options and encoding into a saved model (``agents.load(path)`` plays it)."""
    from agents.load import save_model_spec

    return functools.partial(save_model_spec, env_id=config.env_id, env_kwargs=config.env_kwargs)


def write_json_atomically(path: Path, data: Any) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2))
    os.replace(tmp, path)


# --- envs -----------------------------------------------------------------------------------------


def segment_seed(seed: int, segment: int) -> int:
    """The first training seed of a run segment: apart from every config seed and every other segment."""
    if segment >= MAX_SEGMENTS:
        raise ConfigError(f"a run takes at most {MAX_SEGMENTS} segments (resumes); this one has {segment}")
    return TRAIN_SEED_BASE + SEED_STRIDE * (seed * MAX_SEGMENTS + segment)


def select_vec(requested: str, config: TrainConfig) -> tuple[str, str | None]:
    """The vector env to use and, when it is not the requested one, why.

    ``batched`` needs :mod:`patience_gym.vector` (numba) with an engine for the env and its encoding;
    otherwise the run falls back to ``dummy``.
    """
    if requested != "batched":
        return requested, None
    try:
        from patience_gym import vector
    except ImportError as exc:
        return "dummy", f"the batched engine is not installed ({exc})"
    supported = getattr(vector, "batched_supported", None)
    encoding = config.env_kwargs.get("obs_encoding")
    try:
        batched_maker()
        ok = supported is not None and supported(config.env_id, encoding)
    except ImportError as exc:
        return "dummy", f"the batched engine cannot load ({exc})"
    if not ok:
        return "dummy", f"no batched engine for {config.env_id} with obs_encoding={encoding!r}"
    return "batched", None


def batched_maker() -> Any:
    """``make_sb3_vec_env`` of :mod:`patience_gym.vector` (or of its ``sb3`` module); ImportError without it."""
    from patience_gym import vector

    maker = getattr(vector, "make_sb3_vec_env", None)
    if maker is None:
        from patience_gym.vector import sb3  # type: ignore[attr-defined]

        maker = sb3.make_sb3_vec_env
    return maker


def make_envs(
    config: TrainConfig,
    n_envs: int,
    seed: int,
    vec: str,
    monitor_dir: Path | None = None,
    cycle: int | None = None,
) -> Any:
    """The vectorised training envs (episodes logged to ``monitor_dir``, masks reachable through the wrappers).

    Env ``i`` deals from seed ``seed + i``. A monitor file already there is continued, not replaced.
    With ``cycle`` (one env) the deals are seeds ``seed .. seed + cycle - 1`` over and over
    (:class:`CycledDeals`): what the held-out evaluations need.
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    import patience_gym  # noqa: F401 - registers the envs

    if cycle is not None and n_envs != 1:
        raise ValueError("cycled deals need a single env")
    if vec == "batched":
        venv = batched_maker()(config.env_id, n_envs, seed, {"render_mode": None, **config.env_kwargs})
        if monitor_dir is None:
            return venv
        monitored = VecMonitor(venv, info_keywords=("score",))  # no file yet: appending_writer opens it
        monitored.results_writer = appending_writer(monitor_dir / "batched", monitored, config.env_id)
        return monitored

    def factory(rank: int) -> Any:
        def make() -> gym.Env:  # type: ignore[type-arg]
            from stable_baselines3.common.monitor import Monitor

            env = gym.make(config.env_id, **{"render_mode": None, **config.env_kwargs})
            env.action_space.seed(seed + rank)
            monitor = Monitor(env, info_keywords=("score",))  # no file yet: appending_writer opens it
            if monitor_dir is not None:
                monitor.results_writer = appending_writer(monitor_dir / str(rank), monitor, config.env_id)
            return monitor if cycle is None else CycledDeals(monitor, first=seed, count=cycle)

        return make

    vec_cls = SubprocVecEnv if vec == "subproc" else DummyVecEnv
    venv = vec_cls([factory(i) for i in range(n_envs)])
    venv.seed(seed)
    return venv


def appending_writer(stem: Path, monitor: Any, env_id: str) -> Any:
    """A monitor's ResultsWriter that continues ``<stem>.monitor.csv`` when it exists.

    The monitor's clock is set to the file's own start, so times stay one timeline across resumes;
    a row cut short by a kill is dropped.
    """
    from stable_baselines3.common.monitor import ResultsWriter

    path = stem.with_name(stem.name + ".monitor.csv")
    keys = tuple(getattr(monitor, "reset_keywords", ())) + tuple(monitor.info_keywords)
    if path.is_file() and path.stat().st_size > 0:
        text = path.read_text()
        header = json.loads(text.splitlines()[0][1:])
        if not text.endswith("\n"):
            path.write_text(text[: text.rfind("\n") + 1])
        monitor.t_start = float(header["t_start"])
        return ResultsWriter(str(path), extra_keys=keys, override_existing=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"t_start": monitor.t_start, "env_id": env_id}
    return ResultsWriter(str(path), header=header, extra_keys=keys, override_existing=True)


def read_monitor_file(path: Path) -> tuple[dict[str, Any], list[str], list[str]]:
    """A monitor file's header (``t_start``, ...), its two header lines and its whole rows (a row cut by a
    kill is left out); a ConfigError naming the file when it is cut inside its header."""
    lines = path.read_text().split("\n")[:-1]  # the last piece: "" or a row cut short
    try:
        header = json.loads(lines[0][1:]) if lines and lines[0].startswith("#") else None
        columns = lines[1].split(",") if len(lines) > 1 else []
        if not isinstance(header, dict) or not {"l", "t"} <= set(columns):
            raise ValueError
        float(header["t_start"])
    except (ValueError, KeyError, TypeError):
        raise ConfigError(
            f"cannot resume: monitor file {path} is cut inside its header (no episodes are in it): "
            f"delete it and resume again"
        ) from None
    return header, lines[:2], lines[2:]


def set_aside_monitor_rows(folder: Path, steps: int, before: float) -> int:
    """Move the training episodes a resume goes back on to ``<name>.monitor.abandoned.csv``; returns how many.

    Episodes are taken in the order they ended (as the learning curve takes them); those from the first whose
    summed lengths pass ``steps`` on, or that ended after ``before`` (the checkpoint's time), are set aside.
    """
    files = [(p, *read_monitor_file(p)) for p in sorted(folder.glob("*.monitor.csv")) if p.stat().st_size > 0]
    ends = []  # (when it ended, its length, file, row)
    for f, (path, header, head, rows) in enumerate(files):
        columns = head[1].split(",")
        at_t, at_l = columns.index("t"), columns.index("l")
        for i, row in enumerate(rows):
            cells = row.split(",")
            try:
                ends.append((float(header["t_start"]) + float(cells[at_t]), float(cells[at_l]), f, i))
            except (ValueError, IndexError):
                raise ConfigError(f"cannot resume: line {i + 3} of monitor file {path} is not a row: {row!r}") from None
    late: set[tuple[int, int]] = set()
    total = 0.0
    for end, length, f, i in sorted(ends):
        total += length
        if late or total > steps or end > before:
            late.add((f, i))
    for f, (path, header, head, rows) in enumerate(files):
        kept = [row for i, row in enumerate(rows) if (f, i) not in late]
        if len(kept) == len(rows):
            continue
        aside = path.with_name(path.name.removesuffix(".monitor.csv") + ".monitor.abandoned.csv")
        if aside.is_file():  # an earlier resume's rows, then this one's under a line saying where it went back to
            lead = aside.read_text() + f"#{json.dumps({'resumed_from': steps})}\n"
        else:
            lead = f"#{json.dumps({**header, 'resumed_from': steps})}\n{head[1]}\n"
        dropped = [row for i, row in enumerate(rows) if (f, i) in late]
        write_text_atomically(aside, lead + "".join(row + "\n" for row in dropped))  # first: no row is ever lost
        write_text_atomically(path, "".join(line + "\n" for line in [*head, *kept]))
    return len(late)


def write_text_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


class CycledDeals(gym.Wrapper):  # type: ignore[type-arg]
    """Deals seeds ``first .. first + count - 1`` in turn, then again from ``first``.

    A vectorised env is seeded once, at its first reset; after that each deal comes from
    the env's random stream. So without this, every held-out evaluation would play new
    deals, and evaluations (and ``report: {model: best}``, which picks among them) would
    compare policies on different deals.
    """

    def __init__(self, env: gym.Env, first: int, count: int) -> None:  # type: ignore[type-arg]
        super().__init__(env)
        self.first, self.count, self._next = first, count, 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        deal = self.first + self._next % self.count
        self._next += 1
        return self.env.reset(seed=deal, options=options)


# --- training -------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Plan:
    """What :func:`setup` checked: the config, the run directory, the seed, the vector env (and why, when it
    is not the one asked for), and for a resumed run the checkpoint to go on from and its step count."""

    config: TrainConfig
    run_dir: Path
    seed: int
    vec: str
    why: str | None = None
    checkpoint: Path | None = None
    steps: int = 0


def setup(args: Args) -> Plan:
    """Every user check before any long work: the config, the flags, the run directory (and what it holds)."""
    check_args(args)
    if args.resume:
        return plan_resume(args)
    config = override(load_config(args.config or DEFAULT_CONFIG, args.env_id), args)
    vec, why = select_vec(args.vec or config.vec, config)
    return Plan(config, prepare_run_dir(args, config.env_id), args.seed or 0, vec, why)


def plan_resume(args: Args) -> Plan:
    """A resumed run's plan: its config (``--config``, when given, must match it), seed and vector env as on
    record in ``training.json``, and its newest intact checkpoint; its monitor and evaluation files readable."""
    from agents.callbacks import read_evaluations

    run_dir = Path(args.resume or "")
    saved = run_dir / "config.yaml"
    if not saved.is_file():
        raise ConfigError(f"cannot resume: {saved} is missing (is {run_dir} a run directory?)")
    record = read_record(run_dir)
    run_config = load_config(saved)
    config = load_config(args.config, args.env_id or run_config.env_id) if args.config else run_config
    changes = config_changes(record.get("config") or dataclasses.asdict(run_config), dataclasses.asdict(config))
    if changes:
        raise ConfigError(
            f"cannot resume: {args.config or saved} differs from the config the run trained with: "
            f"{'; '.join(changes)}; its checkpoints hold those settings: put them back, or start a new run"
        )
    config = override(config, args)
    seed = record.get("seed", args.seed or 0)
    if args.seed is not None and args.seed != seed:
        raise ConfigError(f"--seed {args.seed} differs from the run's seed {seed}: leave --seed out to go on with it")
    vec, why = select_vec(args.vec or config.vec, config)
    if record.get("vec", vec) != vec:
        asked = f"--vec {args.vec}" if args.vec else f"vec {vec}" + (f" ({why})" if why else "")
        raise ConfigError(f"{asked} differs from the run's vec {record['vec']}: resume with --vec {record['vec']}")
    for path in sorted((run_dir / "monitor").glob("*.monitor.csv")):
        if path.stat().st_size > 0:
            read_monitor_file(path)
    history = run_dir / "eval" / "evaluations.npz"
    if history.is_file():
        try:
            read_evaluations(history)
        except ValueError as exc:
            raise ConfigError(f"cannot resume: {exc}") from None
    checkpoint, steps = resume_point(run_dir, config)
    return Plan(config, run_dir, seed, vec, why, checkpoint, steps)


def set_aside_abandoned(run_dir: Path, steps: int, checkpoint: Path) -> None:
    """The evaluations and training episodes past the checkpoint a resume goes on from, set aside (a killed
    run's last stretch, trained again now): the history stays in step order and sums to the steps trained."""
    from agents.callbacks import set_aside_evaluations

    evaluations = set_aside_evaluations(run_dir / "eval", steps)
    episodes = set_aside_monitor_rows(run_dir / "monitor", steps, checkpoint.stat().st_mtime)
    if evaluations or episodes:
        print(
            f"set aside {evaluations} evaluations and {episodes} training episodes past step {steps:,}, "
            f"where {checkpoint.name} left off (eval/evaluations.abandoned.npz, monitor/*.monitor.abandoned.csv)"
        )


def train(args: Args) -> Path:
    """Train (or resume), save the model, write the report; return the run directory."""
    plan = setup(args)
    config, run_dir = plan.config, plan.run_dir
    clock = SegmentClock(run_dir / "training.json")
    first_seed = segment_seed(plan.seed, clock.segment)
    if plan.why:
        print(f"vec: {plan.vec} ({plan.why})")
    if plan.checkpoint is not None:
        set_aside_abandoned(run_dir, plan.steps, plan.checkpoint)
    try:
        envs = make_envs(config, config.n_envs, first_seed, plan.vec, run_dir / "monitor")
        if plan.checkpoint is not None:
            model = load_checkpoint(plan.checkpoint, envs)
            print(f"resuming {run_dir} from {plan.checkpoint.name} at {model.num_timesteps} steps")
        else:
            model = new_model(config, envs, run_dir, plan.seed)
    except ConfigError:
        if plan.checkpoint is None:  # leave the directory as empty as it was, so the same command works once fixed
            clear_run(run_dir)
        raise
    resuming = plan.checkpoint is not None
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config_to_dict(config), sort_keys=False))
    clock.start(model.num_timesteps, seed=plan.seed, vec=plan.vec, config=dataclasses.asdict(config))
    callbacks = make_callbacks(config, run_dir, clock)
    if not resuming and config.pretrain.episodes > 0:
        _pretrain(model, config, run_dir, plan.seed)
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(
            total_timesteps=remaining,
            callback=callbacks,
            progress_bar=args.progress_bar,
            reset_num_timesteps=not resuming,
            tb_log_name="ppo",
        )
    save_atomically(model, run_dir / "model.zip", spec_stamp(config))
    envs.close()
    clock.update(model.num_timesteps, finished=True)

    from agents.report import write_report

    table = write_report(run_dir, config)
    from agents.load import save_model_spec

    save_model_spec(run_dir / "model.zip", config.env_id, config.env_kwargs, card=(run_dir / "report.md").read_text())
    print(table)
    print(f"\nrun written to {run_dir}")
    return run_dir


def new_model(config: TrainConfig, envs: Any, run_dir: Path, seed: int) -> Any:
    """A fresh MaskablePPO; a policy_kwargs or ppo setting it does not take is a ConfigError."""
    from sb3_contrib import MaskablePPO

    from agents.networks import complete_extractor_kwargs

    layout = gym.make(config.env_id, **config.env_kwargs).unwrapped.observer.layout  # type: ignore[attr-defined]
    try:
        policy_kwargs = complete_extractor_kwargs(resolve_policy_kwargs(config.policy_kwargs), layout)
        return MaskablePPO(
            resolve_policy(config.policy),
            envs,
            policy_kwargs=policy_kwargs or None,
            tensorboard_log=str(run_dir / "tb"),
            seed=seed,
            device="cpu",
            verbose=0,
            **resolve_ppo_kwargs(config.ppo, config.env_id),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{config.env_id}.policy_kwargs or .ppo: {exc}") from None


class SegmentClock:
    """Steps and wall time of each run segment in ``training.json``, kept up to date while training.

    A segment killed mid-way keeps the time and steps of its last update; ``segment`` (the number of
    segments before this one) gives each segment its own deal seeds.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.record: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {"segments": []}
        self.segment = len(self.record["segments"])
        self.began = time.perf_counter()

    def start(self, timesteps: int, **run: Any) -> None:
        """A new segment from ``timesteps``; ``run``: what the run is (seed, vec, config) to keep on record."""
        self.record.update(run)
        self.record["segments"].append({"seconds": 0.0, "timesteps_at_start": timesteps, "finished": False})
        self.update(timesteps)

    def update(self, timesteps: int, finished: bool = False) -> None:
        current = self.record["segments"][-1]
        current.update(seconds=time.perf_counter() - self.began, timesteps_at_end=timesteps, finished=finished)
        self.record["timesteps"] = timesteps
        self.record["train_seconds"] = sum(s["seconds"] for s in self.record["segments"])
        write_json_atomically(self.path, self.record)


def make_callbacks(config: TrainConfig, run_dir: Path, clock: SegmentClock) -> list[Any]:
    """Checkpoints, the clock, and the held-out evaluations (continuing any earlier ones)."""
    from agents.callbacks import AtomicCheckpoint, ClockCallback, ResumableEvalCallback

    stamp = spec_stamp(config)
    callbacks: list[Any] = [
        AtomicCheckpoint(
            config.checkpoint_freq, run_dir / "checkpoints", functools.partial(save_atomically, stamp=stamp)
        ),
        ClockCallback(clock),
    ]
    if config.eval.freq > 0:
        eval_env = make_envs(config, 1, config.eval.seed, "dummy", cycle=config.eval.episodes)
        callbacks.append(
            ResumableEvalCallback(
                eval_env,
                folder=run_dir / "eval",
                n_eval_episodes=config.eval.episodes,
                eval_freq=max(config.eval.freq // config.n_envs, 1),
                stamp=stamp,
            )
        )
    return callbacks


def _pretrain(model: Any, config: TrainConfig, run_dir: Path, seed: int) -> None:
    """Behaviour-clone the configured teacher into ``model`` and log it to ``pretrain.json``."""
    from agents.imitation import collect, dagger, fit, round_seeds

    spec = config.pretrain
    seeds = range(spec.seed, spec.seed + spec.episodes)
    gamma = float(config.ppo.get("gamma", 0.99))
    print(f"pretraining: recording {spec.episodes} games of the {spec.teacher} teacher")
    demos = collect(config.env_id, config.env_kwargs, spec.teacher, seeds, gamma, jobs=spec.jobs)
    fit_kwargs: dict[str, Any] = {
        "batch_size": spec.batch_size,
        "learning_rate": spec.learning_rate,
        "value_coef": spec.value_coef,
        "seed": seed,
    }
    start = time.perf_counter()
    history = fit(model, demos, epochs=spec.epochs, **fit_kwargs)
    record: dict[str, Any] = {
        "teacher": spec.teacher,
        "episodes": spec.episodes,
        "decisions": len(demos),
        "teacher_mean_score": float(sum(demos.episode_scores) / len(demos.episode_scores)),
        "record_seconds": demos.seconds,
        "fit_seconds": time.perf_counter() - start,
        "epochs": history,
    }
    last = history[-1]
    print(f"pretrained on {len(demos)} decisions: accuracy {last['accuracy']:.3f}, value loss {last['value_loss']:.3f}")
    if spec.dagger_rounds:
        rounds = round_seeds(spec.seed + spec.episodes, spec.dagger_rounds, spec.dagger_episodes)
        print(f"DAgger: {spec.dagger_rounds} rounds of {spec.dagger_episodes} student games")
        demos, record["dagger"] = dagger(
            model,
            demos,
            config.env_id,
            config.env_kwargs,
            spec.teacher,
            rounds,
            gamma,
            spec.jobs,
            epochs=spec.dagger_epochs,
            **fit_kwargs,
        )
        for r in record["dagger"]:
            print(
                f"DAgger round {r['round']}: the student scored {r['student_mean_score']:.2f} and played the "
                f"teacher's move {100 * r['agreement']:.1f}% of the time; refitted on {r['rows']} decisions, "
                f"accuracy {r['epochs'][-1]['accuracy']:.3f}"
            )
    (run_dir / "pretrain.json").write_text(json.dumps(record, indent=2))


def main(argv: list[str] | None = None) -> int:
    """Train; a user error is one line on stderr and exit status 2."""
    try:
        train(parse_args(argv))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
