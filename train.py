"""Train a MaskablePPO agent on a patience_gym env, then compare it with the baselines.

    python train.py --config configs/golf.yaml [--total-timesteps N] [--seed S] [--n-envs K]
                    [--vec dummy|subproc] [--run-dir D] [--resume D]

A run directory holds ``config.yaml`` (the config used), ``tb/`` (TensorBoard
logs), ``checkpoints/`` (every ``checkpoint_freq`` steps), ``eval/`` (held-out
evaluations during training), ``model.zip`` (the final policy), and the final
report: ``report.md``, ``results.json``, ``learning_curve.png`` and
``scores.png`` (PPO against random and greedy on the same seeded deals).
``--resume D`` continues a stopped run from its newest checkpoint, timestep
count and optimiser state included.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import re
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import gymnasium as gym
import yaml

from agents.config import (
    ConfigError,
    TrainConfig,
    config_to_dict,
    load_config,
    resolve_policy,
    resolve_policy_kwargs,
    resolve_ppo_kwargs,
)

CHECKPOINT_RE = re.compile(r"model_(\d+)_steps\.zip$")


@dataclasses.dataclass
class Args:
    """Command-line arguments (each overrides the config where both set it)."""

    config: str = "configs/golf.yaml"
    """YAML config keyed by env id"""
    env_id: str | None = None
    """which env of the config to train (default: its only one)"""
    total_timesteps: int | None = None
    """env steps to train for (default: the config's)"""
    seed: int = 0
    """seed of the training envs and the network"""
    n_envs: int | None = None
    """parallel envs (default: the config's)"""
    vec: str = "dummy"
    """vector env: dummy (one process) or subproc (one process per env)"""
    run_dir: str | None = None
    """where to write the run (default: runs/<env>-<time>)"""
    resume: str | None = None
    """run directory to continue from its newest checkpoint"""
    report_episodes: int | None = None
    """deals for the final comparison (default: the config's)"""
    pretrain_episodes: int | None = None
    """teacher games for behaviour cloning before PPO (default: the config's pretrain.episodes)"""
    progress_bar: bool = True
    """show a progress bar while training"""


def parse_args(argv: list[str] | None = None) -> Args:
    """Parse the command line into :class:`Args` (flags are the fields, dashed)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    docs = _field_docs()
    for field in dataclasses.fields(Args):
        flag = "--" + field.name.replace("_", "-")
        if field.type in ("bool", bool):
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=field.default, help=docs[field.name]
            )
        else:
            kind = int if "int" in str(field.type) else str
            parser.add_argument(flag, type=kind, default=field.default, help=docs[field.name])
    args = Args(**vars(parser.parse_args(argv)))
    if args.vec not in ("dummy", "subproc"):
        parser.error(f"--vec must be dummy or subproc, got {args.vec!r}")
    return args


def _field_docs() -> dict[str, str]:
    """The string literal under each Args field, as its --help text."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(Args))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, nxt in itertools.pairwise(body):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
            docs[node.target.id] = str(nxt.value.value)  # type: ignore[union-attr]
    return docs


def latest_checkpoint(run_dir: Path) -> Path:
    """The newest checkpoint of a run; a clear error when there is none or it is unreadable."""
    folder = run_dir / "checkpoints"
    found = sorted(
        ((int(m.group(1)), p) for p in folder.glob("model_*_steps.zip") if (m := CHECKPOINT_RE.search(p.name))),
    )
    if not found:
        raise FileNotFoundError(f"cannot resume: no checkpoint in {folder}")
    path = found[-1][1]
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise ValueError(f"cannot resume: checkpoint {path} is corrupt ({exc})") from exc
    if bad is not None or not {"data", "policy.pth", "policy.optimizer.pth"} <= names:
        raise ValueError(f"cannot resume: checkpoint {path} is corrupt or incomplete")
    return path


def make_envs(
    config: TrainConfig,
    n_envs: int,
    seed: int,
    vec: str,
    monitor_dir: Path | None = None,
    cycle: int | None = None,
) -> Any:
    """The vectorised training envs (Monitor-wrapped, masks reachable through the wrappers).

    With ``cycle`` (one env) the deals are seeds ``seed .. seed + cycle - 1`` over and over
    (:class:`CycledDeals`): what the held-out evaluations need.
    """
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    import patience_gym  # noqa: F401 - registers the envs

    vec_cls = SubprocVecEnv if vec == "subproc" else DummyVecEnv
    if cycle is not None and n_envs != 1:
        raise ValueError("cycled deals need a single env")
    return make_vec_env(
        config.env_id,
        n_envs=n_envs,
        seed=seed,
        env_kwargs={"render_mode": None, **config.env_kwargs},  # SB3 would ask for rgb_array
        vec_env_cls=vec_cls,
        monitor_dir=str(monitor_dir) if monitor_dir else None,
        monitor_kwargs={"info_keywords": ("score",)},
        wrapper_class=None if cycle is None else CycledDeals,  # type: ignore[arg-type]
        wrapper_kwargs=None if cycle is None else {"first": seed, "count": cycle},
    )


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


def train(args: Args) -> Path:
    """Train (or resume), save the model, write the report; return the run directory."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.callbacks import CheckpointCallback

    if args.resume:
        run_dir = Path(args.resume)
        saved = run_dir / "config.yaml"
        if not saved.is_file():
            raise FileNotFoundError(f"cannot resume: {saved} is missing")
        config = load_config(saved)
        checkpoint: Path | None = latest_checkpoint(run_dir)
    else:
        config = load_config(args.config, args.env_id)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        run_dir = Path(args.run_dir or f"runs/{config.env_id.split('/')[-1]}-{stamp}")
        checkpoint = None
    if args.total_timesteps is not None:
        config.total_timesteps = args.total_timesteps
    if args.n_envs is not None:
        config.n_envs = args.n_envs
    if args.report_episodes is not None:
        config.report.episodes = args.report_episodes
    if args.pretrain_episodes is not None:
        config.pretrain.episodes = args.pretrain_episodes
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config_to_dict(config), sort_keys=False))

    # A resumed segment gets its own seed offset so it does not replay the first segment's deals.
    segment = len(list((run_dir / "monitor").glob("*.monitor.csv"))) // config.n_envs
    envs = make_envs(config, config.n_envs, args.seed + 1000 * segment, args.vec, run_dir / "monitor")
    if checkpoint is not None:
        model = MaskablePPO.load(checkpoint, env=envs, device="cpu")
        print(f"resuming {run_dir} from {checkpoint.name} at {model.num_timesteps} steps")
    else:
        model = MaskablePPO(
            resolve_policy(config.policy),
            envs,
            policy_kwargs=resolve_policy_kwargs(config.policy_kwargs) or None,
            tensorboard_log=str(run_dir / "tb"),
            seed=args.seed,
            device="cpu",
            verbose=0,
            **resolve_ppo_kwargs(config.ppo),
        )
    callbacks: list[Any] = [
        CheckpointCallback(
            save_freq=max(config.checkpoint_freq // config.n_envs, 1),
            save_path=str(run_dir / "checkpoints"),
            name_prefix="model",
        )
    ]
    if config.eval.freq > 0:
        eval_env = make_envs(config, 1, config.eval.seed, "dummy", cycle=config.eval.episodes)
        callbacks.append(
            MaskableEvalCallback(
                eval_env,
                n_eval_episodes=config.eval.episodes,
                eval_freq=max(config.eval.freq // config.n_envs, 1),
                log_path=str(run_dir / "eval"),
                best_model_save_path=str(run_dir / "eval"),
                deterministic=True,
                verbose=0,
            )
        )
    start = time.perf_counter()
    if checkpoint is None and config.pretrain.episodes > 0:
        _pretrain(model, config, run_dir, args.seed)
    remaining = config.total_timesteps - model.num_timesteps
    if remaining > 0:
        model.learn(
            total_timesteps=remaining,
            callback=callbacks,
            progress_bar=args.progress_bar,
            reset_num_timesteps=checkpoint is None,
            tb_log_name="ppo",
        )
    train_seconds = time.perf_counter() - start
    model.save(run_dir / "model.zip")
    envs.close()
    _record_timing(run_dir, model.num_timesteps, train_seconds)

    from agents.report import write_report

    table = write_report(run_dir, config)
    print(table)
    print(f"\nrun written to {run_dir}")
    return run_dir


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


def _record_timing(run_dir: Path, timesteps: int, seconds: float) -> None:
    """Accumulate wall time over resumed segments in ``training.json``."""
    path = run_dir / "training.json"
    previous = json.loads(path.read_text()) if path.is_file() else {"segments": []}
    previous["segments"].append({"seconds": seconds, "timesteps_at_end": timesteps})
    previous["timesteps"] = timesteps
    previous["train_seconds"] = sum(s["seconds"] for s in previous["segments"])
    path.write_text(json.dumps(previous, indent=2))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        train(args)
    except (ConfigError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
