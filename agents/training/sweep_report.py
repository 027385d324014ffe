"""A sweep's report: every seed's model against the greedy (and the planner) on the same report deals.

    python -m agents.training.sweep_report runs/sweeps/Golf-v0-... [--planner-from benchmarks/results/planners.json]

Each finished trial's report (its ``results.json``) played its model (the final one, or the best held-out
checkpoint where the config's ``report.model`` is ``best``) and the greedy on the config's
report deals (the same for every seed); the sweep's report reads them, checks they are the same deals, and
gives, per seed, PPO's paired difference from the greedy with its interval, and across seeds the mean and
the IQM with stratified-bootstrap 95% intervals, the probability of improvement over the greedy with its
interval, and how many seeds are past the greedy (:mod:`agents.evaluation.across_seeds`). The planner, where
it exists, is read from a JSON of its games on the same deals (``--planner-from``: ``evaluate --json``'s, or
``benchmarks.planners``'), over the deals that file holds. Written to the sweep directory: ``report.md``,
``report.json`` (every seed's score on every deal: the figures can be made again from it alone) and
``profile.png`` (the share of games better than each score: the performance profile).

``--from-report`` remakes the report from the directory's own ``report.json`` instead of its trials' run
folders (a committed report, whose run folders are not kept): the same figures, and its planner unless
``--planner-from`` gives one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.across_seeds import aggregate, profile, seed_profiles, seed_rows, thresholds
from agents.evaluation.intervals import paired_ci95
from agents.training.config import ConfigError

#: The sweep's report files, in its directory.
REPORT_FILES = ("report.md", "report.json", "profile.png")


def finished_trials(sweep_dir: Path) -> list[dict[str, Any]]:
    """Every trial with a report: its name, seed, config keys, and its ``results.json``, in name order."""
    found = []
    for run_dir in sorted((sweep_dir / "trials").glob("*")):
        results, trial = run_dir / "results.json", run_dir / "trial.json"
        if results.is_file() and trial.is_file():
            found.append({**json.loads(trial.read_text()), "results": json.loads(results.read_text())})
    return found


def trials_from_report(report_path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The trials a sweep's ``report.json`` was made from (each seed's scores, steps and minutes, the greedy on
    the same deals), and its sweep settings and planner, so that the report can be made again without the run
    folders; a ConfigError where the file is not such a report."""
    try:
        report = json.loads(report_path.read_text())
        model = "network alone" if (report.get("settings") or {}).get("algorithm") == "expert_iteration" else "ppo"
        deals = {
            "env": report["env"],
            "env_kwargs": report["env_kwargs"],
            "seed": report["report_seed"],
            "episodes": report["episodes"],
            "lower_score_is_better": report["lower_score_is_better"],
        }
        trials = [
            {
                "name": row["trial"],
                "seed": row["seed"],
                "overrides": config["overrides"],
                "results": deals
                | {
                    "model": model,
                    "scores": {model: row["scores"], "greedy": report["greedy"]["scores"]},
                    "timesteps": row["timesteps"],
                    "train_seconds": row["train_seconds"],
                },
            }
            for config in report["configs"]
            for row in config["seeds"]
        ]
    except FileNotFoundError:
        raise ConfigError(f"{report_path} does not exist: there is no report to make again") from None
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ConfigError(f"{report_path} is not a sweep's report ({type(exc).__name__}: {exc})") from None
    if not trials:
        raise ConfigError(f"{report_path} holds no seed")
    planner = report["configs"][0].get("planner") if report["configs"] else None
    kept = {k: planner[k] for k in ("source", "deals", "scores")} if planner else None
    return trials, {"settings": report.get("settings"), "seeds": report.get("seeds_asked"), "planner": kept}


def check_same_deals(trials: list[dict[str, Any]]) -> dict[str, Any]:
    """The report deals every trial played (env, options, seed, count), and the greedy's scores on them; a
    ConfigError naming a trial whose deals or greedy differ."""
    first = trials[0]["results"]
    keys = ("env", "env_kwargs", "seed", "episodes", "lower_score_is_better")
    for trial in trials[1:]:
        other = trial["results"]
        changed = [k for k in keys if other[k] != first[k]]
        if changed:
            raise ConfigError(f"trial {trial['name']} played other report deals ({', '.join(changed)} differ)")
        if other["scores"].get("greedy") != first["scores"].get("greedy"):
            raise ConfigError(f"trial {trial['name']}'s greedy scored otherwise on the same deals")
    if "greedy" not in first["scores"]:
        raise ConfigError("the trials' reports hold no greedy to compare with: keep greedy in report.agents")
    return {k: first[k] for k in keys} | {"greedy": first["scores"]["greedy"]}


def read_planner(path: Path, env_id: str, seed: int, episodes: int, label: str = "planner") -> dict[str, Any] | None:
    """The planner's scores on the report deals it played (the first ``n`` of them), from an ``evaluate --json``
    file or ``benchmarks.planners``' JSON; None where the file has none of this env; a ConfigError where its
    deals are not the report's."""
    data = json.loads(path.read_text())
    scores = None
    if isinstance(data.get("scores"), dict) and data.get("env") == env_id:
        scores = data["scores"].get(label)
    for row in data.get("rows", []):
        if row.get("env") == env_id and row.get("agent") == label:
            scores = row.get("scores")
    if scores is None:
        return None
    if data.get("seed") != seed:
        raise ConfigError(f"--planner-from {path}: its deals start at seed {data.get('seed')}, the report's at {seed}")
    n = min(len(scores), episodes)
    return {"source": str(path), "deals": n, "scores": [float(s) for s in scores[:n]]}


def model_label(results: dict[str, Any]) -> str:
    """The key of a trial's own model in its report's scores: ``ppo``, or expert iteration's ``network alone``."""
    return str(results.get("model", "ppo"))


def summarise(trials: list[dict[str, Any]], deals: dict[str, Any], planner: dict[str, Any] | None) -> dict[str, Any]:
    """The report's figures for the trials of one config: per seed, across seeds, the planner."""
    lower = deals["lower_score_is_better"]
    greedy = deals["greedy"]
    ordered = sorted(trials, key=lambda t: t["seed"])
    seeds = [t["seed"] for t in ordered]
    scores = [t["results"]["scores"][model_label(t["results"])] for t in ordered]
    rows = seed_rows(seeds, scores, greedy, lower)
    summary: dict[str, Any] = {
        "overrides": ordered[0].get("overrides", {}),
        "seeds": [
            {
                "seed": r.seed,
                "trial": t["name"],
                "mean": r.score,
                "minus_greedy": r.minus_baseline,
                "ci95": r.ci95,
                "past_greedy": r.past,
                "timesteps": t["results"]["timesteps"],
                "train_seconds": t["results"]["train_seconds"],
                "scores": score,
            }
            for r, t, score in zip(rows, ordered, scores, strict=True)
        ],
        "across_seeds": aggregate(scores, greedy, lower),
        "past_greedy": sum(r.past for r in rows),
    }
    if planner is not None:
        n = planner["deals"]
        diff, half = paired_ci95(planner["scores"], greedy[:n])
        summary["planner"] = {**planner, "mean": float(np.mean(planner["scores"])), "minus_greedy": diff, "ci95": half}
    return summary


def write_sweep_report(sweep_dir: Path, planner_from: Path | None = None, from_report: bool = False) -> str:
    """Write the sweep's report files (:data:`REPORT_FILES`) and return its Markdown; ``from_report`` reads the
    seeds from the directory's ``report.json`` (:func:`trials_from_report`) instead of its trials."""
    if planner_from is not None and not planner_from.is_file():
        raise ConfigError(f"--planner-from {planner_from}: no such file")
    if from_report:
        trials, sweep = trials_from_report(sweep_dir / "report.json")
    else:
        trials = finished_trials(sweep_dir)
        sweep = json.loads((sweep_dir / "sweep.json").read_text()) if (sweep_dir / "sweep.json").is_file() else {}
    if not trials:
        hint = " (a committed report? add --from-report)" if (sweep_dir / "report.json").is_file() else ""
        raise ConfigError(f"no trial of {sweep_dir} has finished: nothing to report yet{hint}")
    deals = check_same_deals(trials)
    planner = read_planner(planner_from, deals["env"], deals["seed"], deals["episodes"]) if planner_from else None
    if planner_from is None and from_report:
        planner = sweep.get("planner")  # the report's own, kept
    groups: dict[str, list[dict[str, Any]]] = {}
    for trial in trials:
        groups.setdefault(json.dumps(trial.get("overrides", {}), sort_keys=True), []).append(trial)
    payload = {
        "env": deals["env"],
        "env_kwargs": deals["env_kwargs"],
        "report_seed": deals["seed"],
        "episodes": deals["episodes"],
        "lower_score_is_better": deals["lower_score_is_better"],
        "settings": sweep.get("settings"),
        "seeds_asked": sweep.get("seeds"),
        "greedy": {"mean": float(np.mean(deals["greedy"])), "scores": deals["greedy"]},
        "configs": [summarise(group, deals, planner) for group in groups.values()],
    }
    (sweep_dir / "report.json").write_text(json.dumps(payload, indent=1))
    plot_profile(payload, sweep_dir / "profile.png")
    text = report_markdown(payload)
    (sweep_dir / "report.md").write_text(text + "\n")
    return text


def _interval(pair: Any, digits: int = 2) -> str:
    lo, hi = pair
    return "—" if lo != lo else f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def played_model(payload: dict[str, Any]) -> str:
    """Which of a seed's models its report played: the final one, the config's ``report.model: best``, or
    expert iteration's last network alone."""
    settings = payload.get("settings") or {}
    if settings.get("algorithm") == "expert_iteration":
        return "last network alone (expert iteration's, one forward pass a move, no search)"
    if settings.get("report", {}).get("model") == "best":
        return "best model (the checkpoint its held-out evaluations scored best: the config's `report.model: best`)"
    return "final model"


def report_markdown(payload: dict[str, Any]) -> str:
    """The report's Markdown: per seed, across seeds, and the planner."""
    lower = payload["lower_score_is_better"]
    first, n = payload["report_seed"], payload["episodes"]
    lines = [
        f"# {payload['env']}: the recipe across training seeds",
        "",
        f"Every seed's {played_model(payload)} and the greedy played the same {n:,} report deals (seeds {first}.."
        f"{first + n - 1}); {'lower is better' if lower else 'higher is better'}. Intervals are 95%: paired by "
        "deal per seed; across seeds, stratified bootstrap over the seeds (percentile, 10,000 resamples), the "
        "deals fixed. The greedy scored "
        f"{payload['greedy']['mean']:.2f}.",
    ]
    for config in payload["configs"]:
        agg = config["across_seeds"]
        if config["overrides"]:
            lines += ["", f"## {', '.join(f'{k}={v}' for k, v in config['overrides'].items())}"]
        lines += [
            "",
            "| seed | mean score | minus greedy, paired ± 95% CI | past greedy | steps | minutes |",
            "|---:|---:|---:|:---:|---:|---:|",
            *(
                f"| {s['seed']} | {s['mean']:.2f} | {s['minus_greedy']:+.2f} ± {s['ci95']:.2f} | "
                f"{'yes' if s['past_greedy'] else 'no'} | {s['timesteps']:,} | {s['train_seconds'] / 60:.1f} |"
                for s in config["seeds"]
            ),
            "",
            "| across seeds | value | 95% CI |",
            "|---|---:|---:|",
            f"| seeds | {agg['seeds']} | |",
            f"| mean | {agg['mean']:.2f} | {_interval(agg['mean_ci95'])} |",
            f"| IQM | {agg['iqm']:.2f} | {_interval(agg['iqm_ci95'])} |",
            f"| P(improvement over greedy) | {agg['p_improvement']:.2f} | {_interval(agg['p_improvement_ci95'])} |",
            f"| seeds past greedy (paired interval) | {config['past_greedy']} of {agg['seeds']} | |",
        ]
        planner = config.get("planner")
        if planner:
            lines += [
                "",
                f"The planner ({planner['source']}) on the first {planner['deals']} of these deals: "
                f"{planner['mean']:.2f}, {planner['minus_greedy']:+.2f} ± {planner['ci95']:.2f} against the greedy.",
            ]
    lines += ["", "![performance profile](profile.png)"]
    return "\n".join(lines)


def plot_profile(payload: dict[str, Any], path: Path) -> None:
    """The performance profile: the share of games better than each score, per config's seeds (their mean and
    bootstrap band), the greedy and the planner."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lower = payload["lower_score_is_better"]
    everything = [payload["greedy"]["scores"]]
    for config in payload["configs"]:
        everything += [s["scores"] for s in config["seeds"]]
    taus = thresholds(*everything)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for config in payload["configs"]:
        mean, low, high = seed_profiles([s["scores"] for s in config["seeds"]], taus, lower)
        kind = "network alone" if (payload.get("settings") or {}).get("algorithm") == "expert_iteration" else "PPO"
        label = f"{kind}, {len(config['seeds'])} seeds" + (f" ({config['overrides']})" if config["overrides"] else "")
        ax.plot(taus, mean, label=label)
        ax.fill_between(taus, low, high, alpha=0.25)
    ax.plot(taus, profile(payload["greedy"]["scores"], taus, lower), "k--", label="greedy")
    planner = payload["configs"][0].get("planner")
    if planner:
        ax.plot(taus, profile(planner["scores"], taus, lower), "k:", label=f"planner ({planner['deals']} deals)")
    ax.set_xlabel("score τ")
    ax.set_ylabel(f"share of games scoring {'at most' if lower else 'at least'} τ")
    ax.set_title(f"{payload['env']}: performance profile")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dir", type=Path)
    parser.add_argument("--planner-from", type=Path, help="the planner's games on the report deals (JSON)")
    parser.add_argument(
        "--from-report", action="store_true", help="make the report again from the directory's report.json"
    )
    args = parser.parse_args(argv)
    try:
        print(write_sweep_report(args.sweep_dir, args.planner_from, args.from_report))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
