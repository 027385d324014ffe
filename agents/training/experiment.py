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
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Literal

import gymnasium as gym
import yaml
from pydantic import Field, TypeAdapter, ValidationError

from agents.training.config import (
    ConfigError,
    TrainConfig,
    config_to_dict,
    describe,
    load_config,
    resolve_policy,
    resolve_policy_kwargs,
    resolve_ppo_kwargs,
    validate,
)
from agents.training.envs import SEED_STRIDE, make_envs, segment_seed, select_vec
from agents.training.run_directory import (
    SegmentClock,
    clear_run,
    config_changes,
    load_checkpoint,
    read_monitor_file,
    read_record,
    resume_point,
    save_atomically,
    set_aside_monitor_rows,
    spec_stamp,
)

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "golf.yaml"  # the README's main job
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
    from agents.training.callbacks import read_evaluations

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
    from agents.training.callbacks import set_aside_evaluations

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

    from agents.training.report import write_report

    table = write_report(run_dir, config)
    from agents.load import save_model_spec

    save_model_spec(run_dir / "model.zip", config.env_id, config.env_kwargs, card=(run_dir / "report.md").read_text())
    print(table)
    print(f"\nrun written to {run_dir}")
    return run_dir


def new_model(config: TrainConfig, envs: Any, run_dir: Path | None, seed: int) -> Any:
    """A fresh MaskablePPO for ``config`` on ``envs``, logging to TensorBoard under ``run_dir/tb`` (None: no log);
    a policy_kwargs or ppo setting it does not take is a ConfigError."""
    from sb3_contrib import MaskablePPO

    from agents.training.networks import complete_extractor_kwargs

    layout = gym.make(config.env_id, **config.env_kwargs).unwrapped.observer.layout  # type: ignore[attr-defined]
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
            **resolve_ppo_kwargs(config.ppo, config.env_id),
        )
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{config.env_id}.policy_kwargs or .ppo: {exc}") from None


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
    from agents.training.imitation import collect, dagger, fit, round_seeds

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
