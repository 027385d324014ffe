"""Seed and hyperparameter sweeps of one config, as Ray Tune trials.

    python train.py --config configs/golf.yaml --seeds 5                    # seeds 0..4, two at a time here
    python train.py --config configs/puss.yaml --seed-list 3 4 5 --sweep-dir runs/sweeps/puss
    python train.py --config configs/golf.yaml --seeds 2 --search grid.yaml  # every grid point at both seeds
    python train.py --config configs/golf.yaml --seeds 5 --address ray://head:10001   # on a cluster
    python train.py --resume-sweep runs/sweeps/puss                          # go on after a stop
    python train.py --config configs/puss_search.yaml --seeds 3             # expert iteration at 3 seeds

Each trial is the usual training run (:mod:`agents.training.experiment`): its own run directory under
``<sweep>/trials/<name>/`` with its atomic checkpoints, TensorBoard log and report, and its lock (an
expert-iteration config's trial is its run: :func:`agents.training.expert_iteration.train_trial`). A trial
keeps to its own cores: Ray gives it ``--cpus-per-trial`` CPUs (default 1), and torch, numba and OpenMP are
told to use that many threads, so ``--trials-at-once`` trials (default: the cluster's CPUs per trial) never
fight. Tune's fault tolerance (``FailureConfig``, ``--max-failures``) restarts a trial that fails (its worker
killed, say) and the trial goes on from its run directory's newest checkpoint. Running the same command
again, or ``--resume-sweep DIR``, restores the sweep with ``Tuner.restore``: finished trials are neither
trained again nor counted twice; a sweep directory made by another config is refused. When every trial has
finished, the sweep's report (:mod:`agents.training.sweep_report`) is written to the sweep directory.

Run directories live in the sweep directory, which every node of a cluster must reach (shared storage; see
the scale-out page). ``tensorboard --logdir <sweep>`` shows every trial.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from agents.evaluation.sharding import check_ray_address
from agents.training.arguments import flag_value, without_flag
from agents.training.config import ConfigError, config_data, load_config
from agents.training.run_directory import checkpoints, flat_settings, hold_run
from agents.training.sweep_space import Grid, OptunaSpace, SearchSpace, check_space, read_space

#: The sweep's own record: what it trains (checked when it is run again), written before the first trial.
SWEEP_FILE = "sweep.json"
#: The flags that make ``train.py`` a sweep.
SWEEP_FLAGS = ("--seeds", "--seed-list", "--search", "--resume-sweep")


@dataclasses.dataclass(frozen=True)
class TrialSpec:
    """One trial of a grid: its run directory's name, its training seed and the config keys it sets."""

    name: str
    seed: int
    overrides: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Sweep:
    """What a sweep trains, as ``sweep.json`` keeps it: the config (its settings, command line included), the
    seeds, the search space, and the trials of a grid."""

    env_id: str
    settings: dict[str, Any]
    seeds: tuple[int, ...]
    search: dict[str, Any] | None

    def space(self) -> SearchSpace | None:
        if self.search is None:
            return None
        kind, body = next(iter(self.search.items()))
        if kind == "grid":
            return Grid(body)
        return OptunaSpace(body["samples"], {k: (v[0], v[1]) for k, v in body["ranges"].items()})

    def trials(self) -> list[TrialSpec]:
        """A grid's trials: every point at every seed (a plain seed sweep: one point, no keys)."""
        space = self.space()
        points = space.points() if isinstance(space, Grid) else [{}]
        return [
            TrialSpec(f"{f'point{i}-' if len(points) > 1 else ''}seed{seed}", seed, point)
            for i, point in enumerate(points)
            for seed in self.seeds
        ]


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one-line ConfigErrors (not a usage block and exit)."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise ConfigError(f"{message}. See train.py --help")


def parse(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """The sweep's own flags, and the rest (``train.py``'s config flags); a ConfigError for a bad one."""
    parser = _Parser(
        prog="train.py", description=__doc__, allow_abbrev=False, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, help="train at seeds 0..N-1")
    parser.add_argument("--seed-list", type=int, nargs="*", help="train at these seeds")
    parser.add_argument("--search", type=Path, help="a search space over config keys (YAML: grid: or optuna:)")
    parser.add_argument("--sweep-dir", type=Path, help="the sweep's directory (default runs/sweeps/<env>-<time>)")
    parser.add_argument("--resume-sweep", type=Path, help="go on with the sweep in this directory")
    parser.add_argument("--cpus-per-trial", type=int, default=1, help="CPUs (and threads) of each trial")
    parser.add_argument("--trials-at-once", type=int, help="trials run at once (default: CPUs / cpus-per-trial)")
    parser.add_argument("--max-failures", type=int, default=3, help="restarts of a failed trial (Tune)")
    parser.add_argument("--address", help="a Ray cluster to run on (auto, host:6379, ray://host:10001)")
    parser.add_argument("--planner-from", type=Path, help="the planner's games on the report deals (JSON)")
    return parser.parse_known_args(list(argv))


def seeds_of(args: argparse.Namespace) -> tuple[int, ...]:
    """The training seeds asked for; a ConfigError for none, a repeat, or both spellings."""
    if args.seeds is not None and args.seed_list is not None:
        raise ConfigError("give --seeds N or --seed-list S ..., not both")
    if args.seeds is not None:
        if args.seeds < 1:
            raise ConfigError(f"--seeds must be at least 1, got {args.seeds}")
        return tuple(range(args.seeds))
    seeds = list(args.seed_list or [])
    if not seeds:
        raise ConfigError("--seed-list is empty: give at least one training seed")
    repeated = sorted({s for s in seeds if seeds.count(s) > 1})
    if repeated:
        raise ConfigError(f"--seed-list gives seed {repeated[0]} twice: each seed is one trial")
    bad = [s for s in seeds if not 0 <= s < 2**32]
    if bad:
        raise ConfigError(f"--seed-list seed {bad[0]} is outside 0 .. 2**32 - 1")
    return tuple(seeds)


def check_flags(args: argparse.Namespace, rest: list[str]) -> None:
    """The flags a sweep cannot take, and counts out of range."""
    for flag in ("--seed", "--run-dir", "--resume", "--overwrite"):
        if any(a == flag or a.startswith(f"{flag}=") for a in rest):
            raise ConfigError(f"{flag} is a single run's flag: a sweep sets each trial's (use --seeds, --sweep-dir)")
    for name in ("cpus_per_trial", "trials_at_once"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    if args.max_failures < 0:
        raise ConfigError(f"--max-failures must be 0 or more, got {args.max_failures}")
    if args.planner_from is not None and not args.planner_from.is_file():
        raise ConfigError(f"--planner-from {args.planner_from} is not a file")


def new_sweep(args: argparse.Namespace, rest: list[str]) -> tuple[Sweep, Path]:
    """The sweep the command line asks for and its directory; every check before any training."""
    from agents.training.experiment import config_source, parse_args

    seeds = seeds_of(args)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    exit_config = expert_iteration_config(args, rest, seeds)
    if exit_config is not None:
        settings = dataclasses.asdict(exit_config)
        name = exit_config.env_id.split("/")[-1]
        return Sweep(exit_config.env_id, settings, seeds, None), args.sweep_dir or Path(f"runs/sweeps/{name}-{stamp}")
    train_args = parse_args(rest)
    path, env_id = config_source(train_args.config, train_args.env_id, None)
    config = load_config(path, env_id, train_args.overrides)
    space = read_space(args.search) if args.search is not None else None
    if space is not None:
        check_space(space, path, config.env_id, train_args.overrides)
        if isinstance(space, OptunaSpace) and config.eval.freq <= 0:
            raise ConfigError("an optuna search maximises the held-out evaluation: the config needs eval.freq > 0")
    search: dict[str, Any] | None = None
    if isinstance(space, Grid):
        search = {"grid": space.values}
    elif isinstance(space, OptunaSpace):
        search = {"optuna": {"samples": space.samples, "ranges": {k: list(v) for k, v in space.ranges.items()}}}
    sweep = Sweep(config.env_id, config_data(config), seeds, search)
    return sweep, args.sweep_dir or Path(f"runs/sweeps/{config.env_id.split('/')[-1]}-{stamp}")


def expert_iteration_config(args: argparse.Namespace, rest: list[str], seeds: tuple[int, ...]) -> Any:
    """The expert-iteration config a sweep is asked to train (None: a PPO config); a ConfigError for what such
    a sweep cannot take: config flags, a search space, a training seed past expert iteration's 0..99."""
    from agents.training import expert_iteration

    value = flag_value(rest, "--config")
    path = Path(value) if value is not None else None
    given = without_flag(rest, "--config")
    if path is None or not expert_iteration.is_expert_iteration(path):
        return None
    if given:
        raise ConfigError(f"an expert-iteration sweep takes its settings from {path} alone, not {' '.join(given)}")
    if args.search is not None:
        raise ConfigError("--search: a search space over an expert-iteration config is not supported; sweep seeds")
    for seed in seeds:
        expert_iteration.check_seed(seed)
    config = expert_iteration.load_exit_config(path)
    expert_iteration.new_network(config, seeds[0])  # the network builds before any folder is made
    return config


def read_sweep(sweep_dir: Path) -> Sweep:
    """The sweep kept in ``sweep_dir``; a ConfigError where it holds none."""
    path = sweep_dir / SWEEP_FILE
    try:
        data = json.loads(path.read_text())
        return Sweep(data["env_id"], data["settings"], tuple(data["seeds"]), data["search"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"{sweep_dir} holds no sweep to resume ({path}: {exc})") from None


def differences(kept: Sweep, asked: Sweep) -> list[str]:
    """How ``asked`` differs from the sweep ``kept`` in its directory, in words (none: the same sweep)."""
    found = []
    if kept.env_id != asked.env_id:
        found.append(f"env {kept.env_id} there, {asked.env_id} asked")
    before, after = flat_settings(kept.settings), flat_settings(asked.settings)
    found += [
        f"{key}: {before.get(key, '(unset)')!r} there, {after.get(key, '(unset)')!r} asked"
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]
    if kept.seeds != asked.seeds:
        found.append(f"seeds {list(kept.seeds)} there, {list(asked.seeds)} asked")
    if kept.search != asked.search:
        found.append("another search space")
    return found


def prepare(sweep: Sweep, sweep_dir: Path) -> bool:
    """Write the sweep's record and config into ``sweep_dir`` (True), or find the same sweep there (False:
    a resume); a ConfigError where the directory holds another sweep or something else."""
    if (sweep_dir / SWEEP_FILE).is_file():
        changed = differences(read_sweep(sweep_dir), sweep)
        if changed:
            raise ConfigError(
                f"sweep directory {sweep_dir} holds a sweep made by another config ({'; '.join(changed[:4])}): "
                f"go on with it by --resume-sweep {sweep_dir}, or choose another --sweep-dir"
            )
        return False
    held = [p.name for p in sweep_dir.iterdir() if not p.name.startswith(".")] if sweep_dir.is_dir() else []
    if held:
        raise ConfigError(f"--sweep-dir {sweep_dir} holds {', '.join(sorted(held)[:4])} but no sweep: choose another")
    sweep_dir.mkdir(parents=True, exist_ok=True)
    settings = dict(sweep.settings)
    (sweep_dir / "config.yaml").write_text(yaml.safe_dump({settings.pop("env_id"): settings}, sort_keys=False))
    (sweep_dir / SWEEP_FILE).write_text(json.dumps(dataclasses.asdict(sweep), indent=2))
    return True


# --- the trials ----------------------------------------------------------------------------------


def limit_threads(cpus: int) -> None:
    """Keep this process to ``cpus`` threads: OpenMP, MKL, numba and torch."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[name] = str(cpus)
    import torch

    torch.set_num_threads(cpus)
    if "numba" in sys.modules:  # imported already (by an earlier trial in this worker): lower its pool
        import numba

        numba.set_num_threads(min(cpus, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]


def shared_teacher(sweep: Sweep, sweep_dir: Path, jobs: int) -> str | None:
    """Record the warm start's teacher games once, for every trial, in ``<sweep>/teacher`` (in ``jobs``
    processes here), and return that folder; None where the config has no warm start, keeps its own teacher
    dir, or a search space may change the games. The teacher's deals do not depend on the training seed, so
    every seed clones the same games: recorded once, not once a trial."""
    pretrain = sweep.settings.get("pretrain") or {}
    if not pretrain.get("episodes") or pretrain.get("teacher_dir") or sweep.search is not None:
        return None
    from agents.training.imitation import collect

    config = load_config(sweep_dir / "config.yaml")
    folder = sweep_dir / "teacher"
    seeds = range(config.pretrain.seed, config.pretrain.seed + config.pretrain.episodes)
    print(f"recording the {config.pretrain.teacher} teacher's {config.pretrain.episodes} games once for every trial")
    gamma = float(config.ppo.gamma)
    collect(config.learner_env_id, config.env_kwargs, config.pretrain.teacher, seeds, gamma, jobs, state_dir=folder)
    return str(folder.resolve())


def trial_args(
    sweep_dir: Path, env_id: str, run_dir: Path, trial: dict[str, Any], cpus: int, teacher: str | None
) -> Any:
    """The ``train.py`` arguments of a trial: a new run, or its own run resumed where it has a checkpoint."""
    from agents.training.experiment import Args

    seed, overrides = int(trial["seed"]), dict(trial["overrides"])
    capped = {"report.jobs": cpus, "pretrain.jobs": cpus}  # their processes stay within the trial's CPUs
    settings = {**overrides, **capped, **({"pretrain.teacher_dir": teacher} if teacher else {})}
    config = str(sweep_dir / "config.yaml")
    if checkpoints(run_dir):
        return Args(config=config, env_id=env_id, resume=str(run_dir), progress_bar=False, overrides=settings)
    return Args(
        config=config,
        env_id=env_id,
        seed=seed,
        run_dir=str(run_dir),
        overwrite=True,
        progress_bar=False,
        overrides=settings,
    )


def run_trial(params: dict[str, Any]) -> None:
    """One trial in a Ray worker: train (or go on with) its run, reporting progress to Tune, then its result."""
    from ray import tune

    cpus = int(params["cpus"])
    limit_threads(cpus)
    where = params.get("cwd")
    if where and Path(where).is_dir():  # a config's relative paths (a warm start) read as the driver reads them
        os.chdir(where)
    sweep_dir = Path(params["sweep_dir"])
    trial = params.get("trial") or {
        "name": f"optuna-{tune.get_context().get_trial_id()}",
        "seed": params["seed"],
        "overrides": params["set"],
    }
    run_dir = sweep_dir / "trials" / trial["name"]
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "trial.json").write_text(json.dumps(trial, indent=2, default=str))
    finished = run_dir / "results.json"
    if not finished.is_file() and params.get("algorithm") == "expert_iteration":
        from agents.training.expert_iteration import train_trial

        train_trial(sweep_dir / "config.yaml", run_dir, int(trial["seed"]), cpus)
    elif not finished.is_file():  # a trial restarted after its report was written has nothing left to do
        from agents.training.callbacks import ProgressReport
        from agents.training.experiment import train

        args = trial_args(sweep_dir, params["env_id"], run_dir, trial, cpus, params.get("teacher"))
        train(args, [ProgressReport(run_dir, tune.report)])
    tune.report(trial_result(run_dir))


def trial_result(run_dir: Path) -> dict[str, Any]:
    """A finished trial's figures for Tune: its model's (PPO's, or expert iteration's network alone) and greedy's
    mean on the report deals, and their difference; the held-out evaluation's last mean return (``eval_return``,
    what an Optuna search maximises)."""
    from agents.training.sweep_report import model_label

    data = json.loads((run_dir / "results.json").read_text())
    ppo, greedy = data["scores"][model_label(data)], data["scores"].get("greedy")
    found = {"ppo_mean": sum(ppo) / len(ppo), "timesteps": data["timesteps"], "done": True}
    if greedy:
        found["ppo_minus_greedy"] = found["ppo_mean"] - sum(greedy) / len(greedy)
    history = run_dir / "eval" / "evaluations.npz"
    if history.is_file():
        from agents.training.callbacks import read_evaluations

        results = read_evaluations(history)["results"]
        if len(results):
            found["eval_return"] = float(results[-1].mean())
    return found


# --- the sweep -------------------------------------------------------------------------------------


def param_space(sweep: Sweep, sweep_dir: Path, cpus: int, teacher: str | None) -> dict[str, Any]:
    """Tune's param_space: a grid over the trials, or Optuna's ranges at the first seed."""
    from ray import tune

    common = {"sweep_dir": str(sweep_dir.resolve()), "env_id": sweep.env_id, "cpus": cpus, "teacher": teacher,
              "algorithm": sweep.settings.get("algorithm", "ppo"), "cwd": os.getcwd()}  # fmt: skip
    space = sweep.space()
    if isinstance(space, OptunaSpace):
        return {**common, "seed": sweep.seeds[0], "set": space.tune_space()}
    return {**common, "trial": tune.grid_search([dataclasses.asdict(t) for t in sweep.trials()])}


def run_sweep(sweep: Sweep, sweep_dir: Path, args: argparse.Namespace, fresh: bool) -> int:
    """Run (or restore) the sweep's trials on Ray Tune, then write its report; the exit status."""
    import ray
    from ray import tune

    cpus = args.cpus_per_trial
    os.environ["TUNE_DISABLE_STRICT_METRIC_CHECKING"] = "1"  # progress reports come before the first evaluation
    teacher = shared_teacher(sweep, sweep_dir, os.cpu_count() or 1)
    threads = {name: str(cpus) for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}
    started = not ray.is_initialized()
    if started:
        local = None if args.address else os.cpu_count() or 1  # a local Ray of every core; a cluster's own
        ray.init(address=args.address, num_cpus=local, include_dashboard=False, runtime_env={"env_vars": threads})
    try:
        total = int(ray.cluster_resources().get("CPU", 1))
        at_once = args.trials_at_once or max(1, total // cpus)
        trainable = tune.with_resources(run_trial, {"cpu": cpus})
        space = sweep.space()
        storage = str(sweep_dir.resolve())
        tune_dir = sweep_dir / "tune"
        if not fresh and tune.Tuner.can_restore(str(tune_dir.resolve())):
            tuner = tune.Tuner.restore(
                str(tune_dir.resolve()),
                trainable,
                resume_unfinished=True,
                resume_errored=True,
                param_space=param_space(sweep, sweep_dir, cpus, teacher),
            )
        else:
            search_alg = None
            if isinstance(space, OptunaSpace):
                from ray.tune.search.optuna import OptunaSearch

                search_alg = OptunaSearch(metric="eval_return", mode="max", seed=sweep.seeds[0])
            tuner = tune.Tuner(
                trainable,
                param_space=param_space(sweep, sweep_dir, cpus, teacher),
                tune_config=tune.TuneConfig(
                    max_concurrent_trials=at_once,
                    num_samples=space.samples if isinstance(space, OptunaSpace) else 1,
                    search_alg=search_alg,
                ),
                run_config=tune.RunConfig(
                    name="tune",
                    storage_path=storage,
                    failure_config=tune.FailureConfig(max_failures=args.max_failures),
                    verbose=1,
                ),
            )
        results = tuner.fit()
    finally:
        if started:
            ray.shutdown()
    trials = [results[i] for i in range(len(results))]
    failed = [str(r.error).splitlines()[0] for r in trials if r.error is not None]
    unfinished = [r for r in trials if r.error is None and not (r.metrics or {}).get("done")]
    from agents.training.sweep_report import write_sweep_report

    if len(unfinished) < len(trials):
        print(write_sweep_report(sweep_dir, args.planner_from))
    if isinstance(sweep.space(), OptunaSpace) and not failed and not unfinished:
        best = results.get_best_result(metric="eval_return", mode="max")
        metrics, config = best.metrics or {}, best.config or {}
        print(f"Optuna's pick, by the held-out evaluation ({metrics.get('eval_return')}): {config.get('set')}")
    for line in failed:
        print(f"a trial failed after {args.max_failures} restarts: {line}", file=sys.stderr)
    if unfinished:
        print(
            f"the sweep stopped with {len(unfinished)} trials unfinished: run the same command again "
            f"(or --resume-sweep {sweep_dir}) to go on",
            file=sys.stderr,
        )
    return 1 if failed or unfinished else 0


def checked(args: argparse.Namespace, rest: list[str]) -> tuple[Sweep, Path]:
    """The sweep and its directory, every flag, the config, the search space and the address checked."""
    check_flags(args, rest)
    if args.resume_sweep is not None:
        if args.seeds is not None or args.seed_list is not None or args.search is not None or rest:
            raise ConfigError("--resume-sweep goes on with the sweep as it was made: give no other settings")
        sweep_dir, sweep = args.resume_sweep, read_sweep(args.resume_sweep)
    else:
        sweep, sweep_dir = new_sweep(args, rest)
    if args.address is not None:
        try:
            check_ray_address(args.address)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    return sweep, sweep_dir


def main(argv: Sequence[str] | None = None) -> int:
    """Sweep; a user error is one line on stderr and exit status 2, before any training."""
    try:
        args, rest = parse(sys.argv[1:] if argv is None else argv)
        sweep, sweep_dir = checked(args, rest)
        with hold_run(sweep_dir, what="sweep directory"):
            fresh = prepare(sweep, sweep_dir) if args.resume_sweep is None else False
            return run_sweep(sweep, sweep_dir, args, fresh)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
