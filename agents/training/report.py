"""The final report of a training run: PPO against the baselines on the same deals.

``train.py`` writes it at the end of a run. ``python -m agents.training.report RUN_DIR`` writes it again for a
finished run (its ``config.yaml``, ``training.json`` and ``model.zip``), for example when the
evaluation was stopped.
"""

from __future__ import annotations

import dataclasses
import json
import platform
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agents.evaluation.evaluate import Summary, evaluate, format_table, paired_ci95, run_episode
from agents.evaluation.writer_lock import DirectoryInUseError, hold_directory
from agents.registry import make_agent
from agents.training.callbacks import BEST_RECORD, EVAL_TIMES, read_eval_times, read_evaluations
from agents.training.config import TRAIN_SEED_BASE, ConfigError, TrainConfig, load_config
from agents.training.run_directory import WARM_START

#: The warm start's row in the report: the policy right after behaviour cloning (``warm_start.zip``).
WARM_START_LABEL = "warm start"


def write_report(run_dir: Path, config: TrainConfig, model: Path | None = None) -> str:
    """Evaluate, then write ``results.json``, ``report.md`` and the PNG plots; return the table.

    ``model``: the PPO model to evaluate (default: the one ``config.report.model`` names,
    the run's own ``model.zip`` or the held-out evaluation's best).
    """
    env = gym.make(config.env_id, **config.env_kwargs)
    lower = bool(env.unwrapped.game.lower_score_is_better)  # type: ignore[attr-defined]
    chosen: dict[str, Any] = {"model": "given" if model else config.report.model}
    if model is None and config.report.model == "best":
        model, step, mean_return = best_checkpoint(run_dir)
        chosen.update(best_step=step, best_eval_return=mean_return, eval_episodes=config.eval.episodes)
    # The clone before PPO, when the run had a warm start: the same deals show what PPO added to it.
    warm = [f"ppo:{run_dir / WARM_START}"] if (run_dir / WARM_START).is_file() else []
    specs = [*config.report.agents, *warm, f"ppo:{model or run_dir / 'model.zip'}"]
    results = evaluate(
        config.env_id, specs, config.report.episodes, config.report.seed, config.env_kwargs, config.report.jobs
    )
    results[-1] = dataclasses.replace(results[-1], agent="ppo")  # two models are labelled by their file names
    if warm:
        results[-2] = dataclasses.replace(results[-2], agent=WARM_START_LABEL)
    table = format_table(config.env_id, results, lower)
    training = json.loads((run_dir / "training.json").read_text())
    payload: dict[str, Any] = {
        "env": config.env_id,
        "env_kwargs": config.env_kwargs,
        "episodes": config.report.episodes,
        "seed": config.report.seed,
        "lower_score_is_better": lower,
        "timesteps": training["timesteps"],
        "train_seconds": training["train_seconds"],
        "machine": machine_description(),
        "ppo_model": chosen,
        "time_to_beat_greedy": time_to_beat(run_dir, config),
        "results": [r.row() for r in results],
        "paired": paired_rows(results, lower),
        "scores": {r.agent: r.scores for r in results},
    }
    (run_dir / "results.json").write_text(json.dumps(payload, indent=2))
    paired = _paired_lines(payload["paired"], lower)
    curve = _plot_learning_curve(run_dir, lower)
    _plot_scores(run_dir, results, lower)
    lines = [
        f"# {config.env_id}: PPO against the baselines",
        "",
        f"Trained {training['timesteps']} steps in {training['train_seconds'] / 60:.1f} min on {payload['machine']}.",
        *_learner_lines(config),
        f"All agents played the same {config.report.episodes} deals (seeds {config.report.seed}.."
        f"{config.report.seed + config.report.episodes - 1}), none of them dealt in training (seeds from "
        f"{TRAIN_SEED_BASE:,} on), in the held-out evaluations or in a warm start.",
        *_pretrain_lines(run_dir),
        *_model_lines(chosen, config),
        *_time_to_beat_lines(payload["time_to_beat_greedy"], config),
        "",
        table,
        "",
        *paired,
        "",
        "![scores](scores.png)",
    ]
    if curve:
        lines += ["", "![learning curve](learning_curve.png)"]
    (run_dir / "report.md").write_text("\n".join(lines) + "\n")
    return "\n".join([table, "", *paired])


def paired_rows(results: list[Summary], lower: bool) -> list[dict[str, Any]]:
    """PPO (the last result) minus each baseline, deal by deal: mean, 95% half-width, and whether PPO is
    better outside that interval."""
    ppo = results[-1]
    rows = []
    for base in results[:-1]:
        mean, half = paired_ci95(ppo.scores, base.scores)
        gain = -mean if lower else mean
        rows.append({"baseline": base.agent, "mean": mean, "ci95": half, "ppo_better": bool(gain - half > 0)})
    return rows


def _paired_lines(rows: list[dict[str, Any]], lower: bool) -> list[str]:
    """The paired differences as a table, then one sentence on whether PPO beats greedy."""
    lines = [
        "| PPO minus | mean difference, paired by deal ± 95% CI | PPO better outside the interval? |",
        "|---|---:|:---:|",
    ]
    for r in rows:
        lines.append(f"| {r['baseline']} | {r['mean']:+.2f} ± {r['ci95']:.2f} | {'yes' if r['ppo_better'] else 'no'} |")
    greedy = next((r for r in rows if r["baseline"] == "greedy"), None)
    if greedy is not None:
        side = "below" if lower else "above"
        verdict = (
            f"PPO beats greedy on these deals: the paired difference {greedy['mean']:+.2f} ± {greedy['ci95']:.2f} "
            f"lies {side} zero, outside its 95% interval."
            if greedy["ppo_better"]
            else f"PPO does not beat greedy on these deals: the paired difference {greedy['mean']:+.2f} ± "
            f"{greedy['ci95']:.2f} does not lie {side} zero outside its 95% interval."
        )
        lines += ["", verdict]
    return lines


def best_checkpoint(run_dir: Path) -> tuple[Path, int, float]:
    """The held-out evaluation's best policy: its file, the step it was saved at, its mean return.

    Read from ``eval/best_model.json``, written with each new best model (after a resume that set
    the best model aside, it is the best since the resume). A run from before that record: the first
    evaluation with the highest mean return, when ``MaskableEvalCallback`` saved it.
    """
    path = run_dir / "eval" / "best_model.zip"
    log = run_dir / "eval" / "evaluations.npz"
    if not path.is_file() or not log.is_file():
        raise FileNotFoundError(f"{run_dir} has no held-out evaluations (eval/best_model.zip, eval/evaluations.npz)")
    record = run_dir / "eval" / BEST_RECORD
    if record.is_file():
        try:
            saved = json.loads(record.read_text())
            return path, int(saved["step"]), float(saved["mean_return"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{record} is not a best-model record ({type(exc).__name__}: {exc})") from None
    with np.load(log) as data:
        means = data["results"].mean(axis=1)
        best = int(np.argmax(means))
        return path, int(data["timesteps"][best]), float(means[best])


def _learner_lines(config: TrainConfig) -> list[str]:
    if config.learn_on is None:
        return []
    return [
        f"The model learned on {config.learn_on} (its warm start, training and held-out evaluations) and plays "
        f"{config.env_id} part by part, as {config.learn_on} shows each part."
    ]


def time_to_beat(run_dir: Path, config: TrainConfig, teacher: str = "greedy") -> dict[str, Any] | None:
    """When the run first beat ``teacher`` on its held-out evaluation deals (None: no evaluations kept).

    The teacher plays the same deals the evaluations cycle through (seeds ``eval.seed`` ..
    ``eval.seed + eval.episodes - 1``); the first evaluation whose mean return is above the teacher's
    gives the step and the training time then (warm start included; ``eval_times.json``). ``step`` is
    None when no evaluation got there. A mean over a hundred deals is not a paired test: the report's
    table, on 1,000 other deals, is.
    """
    history = run_dir / "eval" / "evaluations.npz"
    if config.eval.freq <= 0 or not history.is_file():
        return None
    data = read_evaluations(history)
    times = {t["step"]: t["train_seconds"] for t in read_eval_times(run_dir / "eval" / EVAL_TIMES)}
    env_id = config.learner_env_id  # the held-out evaluations play the env the model learns on
    env = gym.make(env_id, **config.env_kwargs)
    agent = make_agent(teacher, env.unwrapped.game.name, env_id=env_id, env_kwargs=config.env_kwargs)  # type: ignore[attr-defined]
    seeds = range(config.eval.seed, config.eval.seed + config.eval.episodes)
    target = float(np.mean([sum(m.reward for m in run_episode(env, agent, seed)) for seed in seeds]))
    found: dict[str, Any] = {"teacher": teacher, "teacher_mean_return": target, "step": None, "train_seconds": None}
    for step, returns in zip(data["timesteps"].tolist(), data["results"], strict=True):
        if float(np.mean(returns)) > target:
            found.update(step=int(step), mean_return=float(np.mean(returns)), train_seconds=times.get(int(step)))
            break
    return found


def _time_to_beat_lines(found: dict[str, Any] | None, config: TrainConfig) -> list[str]:
    if found is None:
        return []
    where = f"on the {config.eval.episodes} held-out evaluation deals (mean return {found['teacher_mean_return']:.2f})"
    if found["step"] is None:
        return [f"No held-out evaluation beat {found['teacher']} {where}."]
    when = "" if found["train_seconds"] is None else f" after {found['train_seconds'] / 60:.1f} min of training"
    return [
        f"Time to beat {found['teacher']}: the evaluation at step {found['step']:,}{when} was the first above it "
        f"{where}: mean return {found['mean_return']:.2f}."
    ]


def _model_lines(chosen: dict[str, Any], config: TrainConfig) -> list[str]:
    if chosen["model"] != "best":
        return []
    return [
        f"PPO plays the policy saved at step {chosen['best_step']:,}, the best of the held-out evaluations "
        f"during training (mean return {chosen['best_eval_return']:.2f} on {config.eval.episodes} deals from "
        f"seed {config.eval.seed}; none of them is a report deal)."
    ]


def _pretrain_lines(run_dir: Path) -> list[str]:
    """A line on the warm start, when the run had one (``pretrain.json``)."""
    path = run_dir / "pretrain.json"
    if not path.is_file():
        return []
    record = json.loads(path.read_text())
    last = record["epochs"][-1]  # load_config makes a warm start fit at least one epoch
    lines = [
        f"Warm start (included in that time): behaviour cloning of {record['episodes']} {record['teacher']} games "
        f"({record['decisions']} decisions, teacher mean score {record['teacher_mean_score']:.2f}); the policy "
        f"picked the teacher's move on {100 * last['accuracy']:.1f}% of sampled decisions after cloning."
    ]
    if (run_dir / WARM_START).is_file():
        lines[0] += f" That policy, before any PPO step ({WARM_START}), plays as `{WARM_START_LABEL}` below."
    for r in record.get("dagger", []):
        lines.append(
            f"DAgger round {r['round']}: on {r['episodes']} games of its own the student scored "
            f"{r['student_mean_score']:.2f} and played the {record['teacher']}'s move at "
            f"{100 * r['agreement']:.1f}% of its positions; refitted on those positions with the teacher's "
            f"labels added ({100 * r['epochs'][-1]['accuracy']:.1f}% of sampled decisions then agreed)."
        )
    return lines


def machine_description() -> str:
    """This machine in a table cell: architecture, CPU count, Python version."""
    import os

    return f"{platform.machine()}, {os.cpu_count() or 1} CPUs, Python {platform.python_version()}"


def _read_monitor(run_dir: Path) -> tuple[np.ndarray, np.ndarray]:
    """Training episodes in the order they ended (SB3's monitor loader): end timesteps (approximate,
    summed lengths) and scores (the reward sum where no score was logged)."""
    from stable_baselines3.common.monitor import LoadMonitorResultsError, load_results

    try:
        frame = load_results(str(run_dir / "monitor"))
    except LoadMonitorResultsError:
        return np.zeros(0), np.zeros(0)
    if frame.empty:
        return np.zeros(0), np.zeros(0)
    scores = frame["score"] if "score" in frame else frame["r"]
    return np.cumsum(frame["l"].to_numpy(dtype=float)), scores.to_numpy(dtype=float)


def _plot_learning_curve(run_dir: Path, lower: bool) -> bool:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps, scores = _read_monitor(run_dir)
    evals = run_dir / "eval" / "evaluations.npz"
    if len(scores) == 0 and not evals.is_file():
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    if len(scores):
        window = max(1, min(200, len(scores) // 10))
        smooth = np.convolve(scores, np.ones(window) / window, mode="valid")
        ax.plot(steps[window - 1 :], smooth, label=f"training episodes (score, mean of {window})")
    if evals.is_file():
        with np.load(evals) as data:
            order = np.argsort(data["timesteps"], kind="stable")  # a resumed run may evaluate a step again
            steps_at, means = data["timesteps"][order], data["results"].mean(axis=1)[order]
        ax2 = ax.twinx()
        ax2.plot(steps_at, means, "o-", color="tab:orange", label="held-out return")
        ax2.set_ylabel("held-out mean return")
        ax2.legend(loc="lower right")
    ax.set_xlabel("env steps")
    ax.set_ylabel("score (" + ("lower" if lower else "higher") + " is better)")
    if len(scores):  # no training episode finished in a short run: only the held-out curve has a label
        ax.legend(loc="upper left")
    ax.set_title(f"Learning curve: {run_dir.name}")
    fig.tight_layout()
    fig.savefig(run_dir / "learning_curve.png", dpi=100)
    plt.close(fig)
    return True


def _plot_scores(run_dir: Path, results: list[Summary], lower: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    low = min(min(r.scores) for r in results)
    high = max(max(r.scores) for r in results)
    bins = np.arange(np.floor(low), np.ceil(high) + 2) - 0.5
    if len(bins) > 60:
        bins = np.linspace(low, high, 50)
    for r in results:
        ax.hist(r.scores, bins=bins.tolist(), alpha=0.5, label=f"{r.agent} (mean {r.mean_score:.2f})")
    ax.set_xlabel("score (" + ("lower" if lower else "higher") + " is better)")
    ax.set_ylabel("episodes")
    ax.legend()
    ax.set_title("Score distribution on the same deals")
    fig.tight_layout()
    fig.savefig(run_dir / "scores.png", dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir", type=Path, help="a finished run's directory")
    args = parser.parse_args(argv)
    for name in ("config.yaml", "training.json", "model.zip"):
        if not (args.run_dir / name).is_file():
            parser.error(f"{args.run_dir / name} is missing: not a finished run")
    try:
        config = load_config(args.run_dir / "config.yaml")
        with hold_directory(args.run_dir, "run directory"):  # not while train.py still writes the run
            print(write_report(args.run_dir, config))
    except (ConfigError, DirectoryInUseError) as exc:
        parser.exit(2, f"error: {exc}\n")


if __name__ == "__main__":
    main()
