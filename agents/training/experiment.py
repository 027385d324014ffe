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
a killed run recorded past the checkpoint it goes on from is set aside (``*.abandoned.*``). One process
writes a run directory at a time (its lock, ``.writer.lock``): a second is refused, naming the first.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import io
import json
import sys
import time
import typing
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import gymnasium as gym
import tyro
import yaml
from pydantic import Field, ValidationError, model_validator
from pydantic.dataclasses import dataclass as pydantic_dataclass
from tyro.constructors import PrimitiveConstructorSpec

from agents.pydantic_errors import one_line
from agents.training.config import (
    ConfigError,
    Schedule,
    TrainConfig,
    UniqueKeyLoader,
    config_data,
    config_to_dict,
    load_config,
    policy_class,
    read_settings,
    resolve_policy,
    resolve_policy_kwargs,
    yaml_error_line,
)
from agents.training.envs import make_envs, segment_seed, select_vec
from agents.training.run_directory import (
    RESUME_FREE,
    WARM_START,
    SegmentClock,
    clear_run,
    config_changes,
    hold_run,
    load_checkpoint,
    read_monitor_file,
    read_record,
    resume_point,
    run_contents,
    save_atomically,
    set_aside_monitor_rows,
    spec_stamp,
)

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "golf.yaml"  # the README's main job
#: ``--seed`` seeds numpy's global generator too (through SB3), which takes seeds below 2**32.
MAX_SEED = 2**32


@pydantic_dataclass
class Args:
    """Train MaskablePPO on a patience_gym env (flags override the config: every key of it is one)."""

    config: str | None = None
    """YAML config keyed by env id; None: configs/golf.yaml (with --resume: the run's, which a given one must match)"""
    env_id: str | None = None
    """which env of the config to train; None: its only one"""
    seed: Annotated[int | None, Field(ge=0, lt=MAX_SEED)] = None
    """seed of the training deals and the network; None: 0 (with --resume: the run's)"""
    run_dir: str | None = None
    """where to write the run, new or empty; None: runs/<env>-<time>"""
    resume: str | None = None
    """run directory to continue from its newest intact checkpoint"""
    overwrite: bool = False
    """replace the run found in --run-dir instead of refusing"""
    progress_bar: bool = True
    """show a progress bar while training"""
    overrides: Annotated[dict[str, Any], tyro.conf.Suppress] = dataclasses.field(default_factory=dict)
    """the config keys (dotted) the command line sets, merged into the YAML's settings before they are checked"""

    @model_validator(mode="after")
    def _resume_alone(self) -> Args:
        if self.resume and self.run_dir is not None:
            raise ValueError("--run-dir cannot be combined with --resume: a run goes on in its own directory")
        if self.resume and self.overwrite:
            raise ValueError("--overwrite cannot be combined with --resume: choose one")
        return self


def yaml_flag(text: str) -> Any:
    """A mapping flag's YAML; a ValueError of one line where it is not valid YAML or gives a key twice."""
    try:
        return yaml.load(text, Loader=UniqueKeyLoader)
    except yaml.YAMLError as exc:
        raise ValueError(f"not valid YAML: {yaml_error_line(exc)}") from None


#: Older spellings of config flags that the docs use.
ALIASES = {"report.episodes": ("--report-episodes",), "pretrain.episodes": ("--pretrain-episodes",)}
#: A mapping flag (``--env-kwargs "{obs_encoding: planes}"``) is YAML.
YAML_FLAG = PrimitiveConstructorSpec(
    nargs=1,
    metavar="YAML",
    instance_from_str=lambda args: yaml_flag(args[0]),
    is_instance=lambda value: isinstance(value, dict),
    str_from_instance=lambda value: [yaml.safe_dump(value, default_flow_style=True).strip()],
)


def config_flags(cls: type, given: dict[str, Any], prefix: str = "") -> Any:
    """A plain dataclass with a field for every setting of the config class ``cls`` (nested classes in turn), typed
    as tyro parses it and holding ``given``'s value or the default: tyro's defaults, unchecked (the settings with
    the command line's changes merged in are checked once, by the config)."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields, values = [], {}
    for f in dataclasses.fields(cls):
        if f.name == "env_id":
            continue
        hint = _flag_type(hints[f.name])
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[operator]
        value = given.get(f.name, default)
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            value = config_flags(hint, value if isinstance(value, dict) else {}, f"{prefix}{f.name}.")
            hint = type(value)
        aliases = ALIASES.get(prefix + f.name)
        fields.append((f.name, Annotated[hint, tyro.conf.arg(aliases=aliases)] if aliases else hint))
        values[f.name] = value.text if isinstance(value, Schedule) else value
    flags = dataclasses.make_dataclass(cls.__name__, fields)
    flags.__module__, flags.__qualname__ = cls.__module__, cls.__qualname__  # tyro's help: the config's field comments
    return flags(**values)


def _flag_type(hint: Any) -> Any:
    """A config field's type as a flag takes it: no pydantic constraints, a schedule a number or text, a mapping
    YAML."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        return _flag_type(args[0])
    if hint is Schedule:
        return float | str
    if origin is dict:
        return Annotated[dict[str, Any], YAML_FLAG]
    if origin is list:
        return list[_flag_type(args[0])]  # type: ignore[misc]
    if origin in (typing.Union, type(int | None)):
        return functools.reduce(lambda a, b: a | b, map(_flag_type, args))
    return hint


def changes(parsed: Any, default: Any, prefix: str = "") -> dict[str, Any]:
    """The leaves (dotted keys) where tyro's ``parsed`` flags differ from their ``default``: the command line's."""
    found: dict[str, Any] = {}
    for f in dataclasses.fields(parsed):
        new, old = getattr(parsed, f.name), getattr(default, f.name)
        if dataclasses.is_dataclass(new):
            found |= changes(new, old, f"{prefix}{f.name}.")
        elif new is not old and new != old:
            found[prefix + f.name] = new
    return found


def parse_args(argv: list[str] | None = None) -> Args:
    """The command line as :class:`Args`: tyro's flags from its fields and from every key of the config (their
    defaults the config's values; --help from the docstrings), what it changes in :attr:`Args.overrides`.

    A command line tyro refuses is a ConfigError of one line (tyro draws a box of several); ``--help`` prints
    the help and exits as usual.
    """
    argv = sys.argv[1:] if argv is None else argv
    first = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    for flag in ("--config", "--env-id", "--resume"):
        first.add_argument(flag)
    known = first.parse_known_args(argv)[0]
    try:
        given = read_settings(*config_source(known.config, known.env_id, known.resume))
    except ConfigError:  # named by setup, which reads it again
        given = {}
    defaults = config_flags(TrainConfig, given)
    flat = tyro.conf.arg(name="")
    flags = dataclasses.make_dataclass(
        "Flags", [("args", Annotated[Args, flat]), ("config", Annotated[type(defaults), flat])]
    )
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a default of the wrong type (the config's, checked later)
            parsed = tyro.cli(flags, args=argv, prog="train.py", description=__doc__, default=flags(Args(), defaults))
    except SystemExit as exc:
        if exc.code in (0, None):
            sys.stderr.write(captured.getvalue())
            raise
        raise ConfigError(one_line_usage_error(captured.getvalue())) from None
    except ValidationError as exc:
        raise ConfigError(one_line(exc, flags=[f.name for f in dataclasses.fields(Args)])) from None
    sys.stderr.write(captured.getvalue())  # tyro's warnings, if any
    args: Args = parsed.args
    args.overrides = changes(parsed.config, defaults)
    if args.overrides.get("pretrain.episodes") == 0:  # no warm start, so no DAgger rounds after it either
        args.overrides.setdefault("pretrain.dagger_rounds", 0)
    return args


def config_source(config: str | None, env_id: str | None, resume: str | None) -> tuple[Path, str | None]:
    """The YAML file a run's settings come from, and the env id to take from it (None: the file's only one)."""
    if not resume:
        return Path(config or DEFAULT_CONFIG), env_id
    saved = Path(resume) / "config.yaml"
    return (Path(config), env_id or read_settings(saved)["env_id"]) if config else (saved, None)


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


def new_run_dir(args: Args, env_id: str) -> Path:
    """The new run's directory, checked (:func:`check_run_dir`) and not yet made."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(args.run_dir or f"runs/{env_id.split('/')[-1]}-{stamp}")
    check_run_dir(run_dir, args.overwrite)
    return run_dir


def check_run_dir(run_dir: Path, overwrite: bool) -> None:
    """A new run's directory is a directory, missing or empty (its writer lock aside), unless ``--overwrite``."""
    if run_dir.exists() and not run_dir.is_dir():
        raise ConfigError(f"--run-dir {run_dir} is a file, not a directory")
    held = run_contents(run_dir)
    if held and not overwrite:
        shown = ", ".join(held[:4]) + (", ..." if len(held) > 4 else "")
        raise ConfigError(
            f"run directory {run_dir} is not empty ({shown}): continue that run with --resume {run_dir}, "
            f"replace it with --overwrite, or choose another --run-dir"
        )


def prepare_run_dir(run_dir: Path, overwrite: bool) -> None:
    """The held new run's directory checked again (another writer may have been there since) and, with
    ``--overwrite``, cleared of the run it held."""
    check_run_dir(run_dir, overwrite)
    clear_run(run_dir)


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
    """Every user check before any long work: the config, the flags, the policy, the run directory (and what it
    holds). A new run's directory is not made yet; a resumed run's is read, which :func:`train` does holding it."""
    if args.resume:
        return plan_resume(args)
    source = config_source(args.config, args.env_id, None)
    config = load_config(*source, args.overrides)
    vec, why = select_vec(config.vec, config)
    key = "--policy-kwargs" if "policy_kwargs" in args.overrides else f"{config.env_id}.policy_kwargs"
    check_policy(config, f"{source[0]}: {key}")
    run_dir = new_run_dir(args, config.env_id)
    if config.pretrain is not None and config.pretrain.teacher_dir is not None:
        from agents.evaluation.sharding import prepare_state_dir

        try:
            prepare_state_dir(Path(config.pretrain.teacher_dir), "pretrain.teacher_dir")
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    return Plan(config, run_dir, args.seed or 0, vec, why)


def check_policy(config: TrainConfig, where: str) -> None:
    """Build the config's policy once on its env's spaces, before any folder is made: what it refuses in
    ``policy_kwargs`` (a keyword it does not take, an extractor's argument) is a ConfigError named by ``where``."""
    from agents.training.networks import complete_extractor_kwargs

    env = gym.make(config.learner_env_id, **config.env_kwargs)
    layout = env.unwrapped.observer.layout  # type: ignore[attr-defined]
    try:
        kwargs = complete_extractor_kwargs(resolve_policy_kwargs(config.policy_kwargs), layout)
        policy_class(config.policy)(env.observation_space, env.action_space, lambda _: 1e-3, **kwargs)
    except (TypeError, ValueError, RuntimeError, AssertionError, KeyError) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise ConfigError(f"{where}: building the {config.policy} policy failed: {detail}") from None
    finally:
        env.close()


def resumable(run_dir: Path) -> Path:
    """A run directory's ``config.yaml``; a ConfigError where it has none (not a run directory)."""
    saved = run_dir / "config.yaml"
    if not saved.is_file():
        raise ConfigError(f"cannot resume: {saved} is missing (is {run_dir} a run directory?)")
    return saved


def plan_resume(args: Args) -> Plan:
    """A resumed run's plan: its config (``--config``, when given, must match it), seed and vector env as on
    record in ``training.json``, and its newest intact checkpoint; its monitor and evaluation files readable."""
    from agents.training.callbacks import read_evaluations

    run_dir = Path(args.resume or "")
    saved = resumable(run_dir)
    record = read_record(run_dir)
    config = load_config(*config_source(args.config, args.env_id, args.resume), args.overrides)
    changed = config_changes(record.get("config") or config_data(load_config(saved)), config_data(config))
    if changed:
        flagged = any(key.split(".")[0] not in RESUME_FREE for key in args.overrides)
        source = f"{args.config or saved}{' with the flags' if flagged else ''}"
        raise ConfigError(
            f"cannot resume: {source} differs from the config the run trained with: "
            f"{'; '.join(changed)}; its checkpoints hold those settings: put them back, or start a new run"
        )
    seed = record.get("seed", args.seed or 0)
    if args.seed is not None and args.seed != seed:
        raise ConfigError(f"--seed {args.seed} differs from the run's seed {seed}: leave --seed out to go on with it")
    vec, why = select_vec(config.vec, config)
    if record.get("vec", vec) != vec:
        asked = f"--vec {config.vec}" if "vec" in args.overrides else f"vec {vec}" + (f" ({why})" if why else "")
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
    from agents.training.callbacks import set_aside_evaluations

    evaluations = set_aside_evaluations(run_dir / "eval", steps)
    episodes = set_aside_monitor_rows(run_dir / "monitor", steps, checkpoint.stat().st_mtime)
    if evaluations or episodes:
        print(
            f"set aside {evaluations} evaluations and {episodes} training episodes past step {steps:,}, "
            f"where {checkpoint.name} left off (eval/evaluations.abandoned.npz, monitor/*.monitor.abandoned.csv)"
        )


def train(args: Args, callbacks: Sequence[Any] = ()) -> Path:
    """Train (or resume) as the run directory's one writer, save the model, write the report; return the run
    directory. Its lock is taken before a resume reads the run or a new run writes there, and kept to the end."""
    taken: list[str] = []  # whose lock was taken over (a killed run's): said once the run goes ahead
    if args.resume:
        resumable(Path(args.resume))
        with hold_run(Path(args.resume), report=taken.append):
            plan = plan_resume(args)
            return run(plan, args.progress_bar, taken, callbacks)
    plan = setup(args)
    with hold_run(plan.run_dir, report=taken.append):
        prepare_run_dir(plan.run_dir, args.overwrite)
        return run(plan, args.progress_bar, taken, callbacks)


def run(plan: Plan, progress_bar: bool, taken: list[str], extra: Sequence[Any] = ()) -> Path:
    """Train the checked ``plan`` in its held run directory, save the model, write the report; ``extra``: more
    SB3 callbacks (a sweep's trial reports its progress to Ray Tune with one)."""
    for line in taken:
        print(line, file=sys.stderr)
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
    clock.start(model.num_timesteps, seed=plan.seed, vec=plan.vec, config=config_data(config))
    callbacks = [*make_callbacks(config, run_dir, clock), *extra]
    if not resuming and config.pretrain.episodes > 0:
        _pretrain(model, config, run_dir, plan.seed)
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(
            total_timesteps=remaining,
            callback=callbacks,
            progress_bar=progress_bar,
            reset_num_timesteps=not resuming,
            tb_log_name="ppo",
        )
    save_atomically(model, run_dir / "model.zip", spec_stamp(config))
    envs.close()
    clock.update(model.num_timesteps, finished=True)

    from agents.training.report import write_report

    table = write_report(run_dir, config)
    from agents.load import save_model_spec

    save_model_spec(
        run_dir / "model.zip", config.learner_env_id, config.env_kwargs, card=(run_dir / "report.md").read_text()
    )
    print(table)
    print(f"\nrun written to {run_dir}")
    return run_dir


def new_model(config: TrainConfig, envs: Any, run_dir: Path | None, seed: int) -> Any:
    """A fresh MaskablePPO for ``config`` on ``envs``, logging to TensorBoard under ``run_dir/tb`` (None: no log);
    a policy_kwargs or ppo setting it does not take is a ConfigError."""
    from sb3_contrib import MaskablePPO

    from agents.training.networks import complete_extractor_kwargs

    layout = gym.make(config.learner_env_id, **config.env_kwargs).unwrapped.observer.layout  # type: ignore[attr-defined]
    try:
        policy_kwargs = complete_extractor_kwargs(resolve_policy_kwargs(config.policy_kwargs), layout)
        return MaskablePPO(
            resolve_policy(config.policy),
            envs,
            policy_kwargs=policy_kwargs or None,
            tensorboard_log=None if run_dir is None else str(run_dir / "tb"),
            seed=seed,
            device="cpu",
            verbose=0,
            **config.ppo.sb3_kwargs(),
        )
    except (TypeError, ValueError, RuntimeError, AssertionError) as exc:
        raise ConfigError(f"{config.env_id}.policy_kwargs or .ppo: {' '.join(str(exc).split())}") from None


def make_callbacks(config: TrainConfig, run_dir: Path, clock: SegmentClock) -> list[Any]:
    """Checkpoints, the clock, and the held-out evaluations (continuing any earlier ones)."""
    from agents.training.callbacks import AtomicCheckpoint, ClockCallback, ResumableEvalCallback

    stamp = spec_stamp(config)
    callbacks: list[Any] = [
        AtomicCheckpoint(
            config.checkpoint_freq, run_dir / "checkpoints", functools.partial(save_atomically, stamp=stamp)
        ),
        ClockCallback(clock),
    ]
    if config.eval.freq > 0:
        # one env a deal: each evaluation plays its deals side by side, one batched pass of the policy a move
        eval_env = make_envs(config, config.eval.episodes, config.eval.seed, "dummy", cycle=config.eval.episodes)
        callbacks.append(
            ResumableEvalCallback(
                eval_env,
                folder=run_dir / "eval",
                n_eval_episodes=config.eval.episodes,
                eval_freq=max(config.eval.freq // config.n_envs, 1),
                stamp=stamp,
                clock=clock,
            )
        )
    return callbacks


def _print_epoch(record: dict[str, float]) -> None:
    """One line a cloning epoch, so a long fit shows its progress."""
    print(
        f"  epoch {record['epoch']}: policy loss {record['policy_loss']:.3f}, "
        f"accuracy {record['accuracy']:.3f}, {record['seconds']:.0f} s"
    )


def _pretrain(model: Any, config: TrainConfig, run_dir: Path, seed: int) -> None:
    """Behaviour-clone the configured teacher into ``model`` and log it to ``pretrain.json``."""
    from agents.training.imitation import collect, dagger, fit, round_seeds

    spec = config.pretrain
    seeds = range(spec.seed, spec.seed + spec.episodes)
    gamma = float(config.ppo.gamma)
    print(f"pretraining: recording {spec.episodes} games of the {spec.teacher} teacher")
    demos = collect(
        config.learner_env_id, config.env_kwargs, spec.teacher, seeds, gamma, spec.jobs, state_dir=spec.teacher_dir
    )
    fit_kwargs: dict[str, Any] = {
        "batch_size": spec.batch_size,
        "learning_rate": spec.learning_rate,
        "value_coef": spec.value_coef,
        "seed": seed,
        "on_epoch": _print_epoch,
    }
    print(f"pretraining: fitting {len(demos)} decisions for {spec.epochs} epochs")
    history = fit(model, demos, epochs=spec.epochs, **fit_kwargs)
    record: dict[str, Any] = {
        "teacher": spec.teacher,
        "episodes": spec.episodes,
        "decisions": len(demos),
        "teacher_mean_score": float(sum(demos.episode_scores) / len(demos.episode_scores)),
        "record_seconds": demos.seconds,
        "fit_seconds": history[-1]["seconds"],  # load_config makes a warm start fit at least one epoch
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
            config.learner_env_id,
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
    save_atomically(model, run_dir / WARM_START, spec_stamp(config))  # the report plays it beside PPO
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
