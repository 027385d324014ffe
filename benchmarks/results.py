"""The README's results table and the docs' PPO run table, from committed results only.

Sources (nothing here plays a game):

* ``benchmarks/results/baselines.json`` (``python -m benchmarks.baselines``): random and greedy;
* ``benchmarks/results/planners.json`` (``python -m benchmarks.planners``): the search planner, and
  the perfect-knowledge solver where a game has one;
* ``benchmarks/results/golf_solver.json`` (``python -m benchmarks.golf_solver``): the exact Golf bound
  on more deals than the planner table;
* ``benchmarks/results/milligan_solver.json`` (``python -m benchmarks.milligan_solver``): the Miss Milligan
  family's perfect-knowledge solver (won, proved lost, undecided within its budget);
* ``benchmarks/runs/<run>/results.json``: what ``train.py`` wrote for a full run (only ``report.md`` and
  ``results.json`` of the runs behind README rows are committed).

Writes ``benchmarks/results/summary.md`` (the README table; ``python -m benchmarks.readme`` copies it
into README.md), ``benchmarks/results/ppo.md`` (every committed run with its paired verdict) and
``benchmarks/results/solvability.md`` (the games compared under perfect knowledge, for the docs).

Usage: ``python -m benchmarks.results``
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.evaluation.evaluate import format_share, mean_ci95
from benchmarks import RESULTS

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "benchmarks" / "runs"


@dataclass(frozen=True)
class Recipe:
    """One env's rows in the README table: its canonical config's run and its best committed model."""

    env_id: str
    config: str  #: the canonical config (Golf's on ``runs``, Miss Milligan's and pocket's on ``rules_moves``)
    plain_run: str  #: benchmarks/runs/<name> that config wrote
    best_run: str  #: benchmarks/runs/<name> behind the best PPO row
    best_model: str  #: the committed model of that run (models/<name>.zip)
    best_encoding: str  #: the observation encoding the model reads
    rules_run: str | None = None  #: benchmarks/runs/<name> of a committed rules-only model beside the canonical run
    rules_model: str | None = None  #: that model (models/<name>.zip), read on ``rules_moves``
    plain_model: str | None = None  #: the canonical run's own model (models/<name>.zip), when it is committed


RECIPES = (
    Recipe(
        "patience_gym/Golf-v0",
        "golf",
        "Golf-v0",
        "Golf-v0-moves-decay2",
        "golf_moves_decay2",
        "runs",
        rules_run="Golf-v0-rules",
        rules_model="golf_rules",
    ),
    Recipe(
        "patience_gym/GolfRound-v0",
        "golf_round",
        "GolfRound-v0",
        "GolfRound-v0-moves-decay2",
        "golf_moves_decay2",
        "runs",
    ),
    Recipe(
        "patience_gym/MissMilligan-v0",
        "miss_milligan",
        "MissMilligan-v0",
        "MissMilligan-v0-moves-critic",
        "miss_milligan_moves_critic",
        "moves",
    ),
    Recipe(
        "patience_gym/Giant-v0",
        "giant",
        "Giant-v0",
        "Giant-v0-moves-critic-lr3e4-1m",
        "giant_moves_critic_lr3e4_1m",
        "moves",
        plain_model="giant_rules",
    ),
    Recipe(
        "patience_gym/MissMilliganPocket-v0",
        "miss_milligan_pocket",
        "MissMilliganPocket-v0",
        "MissMilliganPocket-v0-moves-endgame",
        "miss_milligan_pocket_moves_endgame",
        "moves_endgame",
    ),
    Recipe(
        "patience_gym/PussInTheCorner-v0",
        "puss",
        "PussInTheCorner-v0",
        "PussInTheCorner-v0-moves-replay-all",
        "puss_moves_replay_all",
        "moves_replay_all",
    ),
)


def load_json(path: Path) -> Any:
    """Read a committed results file; a missing one is an error naming the script that writes it."""
    if not path.is_file():
        raise SystemExit(f"{path} is missing: run the script that writes it (see benchmarks/results.py)")
    return json.loads(path.read_text())


def load_runs(runs: Path = RUNS) -> list[dict[str, Any]]:
    """Every committed run report (``results.json``), named by its folder."""
    out = []
    for path in sorted(runs.glob("*/results.json")):
        data = json.loads(path.read_text())
        data["name"] = path.parent.name
        out.append(data)
    return out


def _cell(row: dict[str, Any]) -> str:
    return f"{row['mean_score']:.2f} ± {row['score_ci95']:.2f}"


def _line(env: str, agent: str, score: str, won: str, deals: str, command: str) -> str:
    return f"| {env} | {agent} | {score} | {won} | {deals} | {command} |"


def _ppo(run: dict[str, Any]) -> dict[str, Any]:
    return next(r for r in run["results"] if r["agent"] == "ppo")


def family_budget(table: dict[str, Any]) -> str:
    """The Miss Milligan family solver table's budget a deal, in words (its beam, where it ran one)."""
    budget = f"{table['max_nodes']:,} positions"
    return budget + (f", a beam {table['beam']} wide" if table.get("beam") else "")


def _solver_line(
    env: str, env_id: str, planners: dict[str, Any], golf_solver: dict[str, Any], milligan_solver: dict[str, Any]
) -> str:
    """The perfect-knowledge bound: the Golf solver's large table where it has the env, the Miss Milligan
    family's solver table (the deals proved won: a lower bound on what perfect play wins), else the planner
    table."""
    family = [g for g in milligan_solver["games"] if g["env"] == env_id]
    if family:
        (game,) = family
        budget = f"{game['undecided_share']:.1%} undecided within {family_budget(milligan_solver)}"
        won = format_share(game["won_share"], game["won_ci95"])
        deals = f"{game['deals']:,} (seeds 0..{game['deals'] - 1})"
        agent = f"solver (sees the hidden cards; {budget})"
        return _line(env, agent, "—", won, deals, "`python -m benchmarks.milligan_solver`")
    book = next(r for r in golf_solver["rows"] if r["rules"] == "book")
    if env_id == "patience_gym/Golf-v0":
        won = format_share(book["cleared_share"], book["cleared_ci95"])
        deals = f"{book['deals']:,} (seeds 0..{book['deals'] - 1})"
        return _line(
            env, "solver (sees the hidden cards)", _cell(book), won, deals, "`python -m benchmarks.golf_solver`"
        )
    if env_id == "patience_gym/GolfRound-v0":
        rounds = book["golf_round"]
        score = f"{rounds['mean']:.2f} ± {rounds['ci95']:.2f}"
        deals = f"{rounds['rounds']} (seeds 0..{rounds['rounds'] - 1})"
        return _line(env, "solver (sees the hidden cards)", score, "—", deals, "`python -m benchmarks.golf_solver`")
    rows = [r for r in planners["rows"] if r["env"] == env_id and r["agent"] == "solver"]
    if not rows:
        return _line(env, "solver (sees the hidden cards)", "—", "—", "—", "no solver for this game")
    (row,) = rows
    deals = f"{row['episodes']} (seeds 0..{row['episodes'] - 1})"
    won = format_share(row["win_rate"], row["win_ci95"])
    return _line(
        env, "solver (sees the hidden cards)", _cell(row), won, deals, "`python -m benchmarks.planners --jobs 2`"
    )


#: The encoding of the models that learn from what the player sees and the rules alone.
RULES_ONLY = "rules_moves"
#: The rules modules' own encodings; every other one but RULES_ONLY reads a heuristic's computations.
PLAIN = ("ids", "planes")


def _better(a: float, b: float, lower: bool) -> bool:
    return a < b if lower else a > b


def summary(results: Path = RESULTS, runs: Path = RUNS) -> str:
    """The README table: per env random, greedy, planner, perfect-knowledge bound, the committed rules-only
    model (if any), canonical PPO, and the best model that reads greedy's computations (heuristic features)
    unless a rules-only one beats it."""
    baselines = load_json(results / "baselines.json")
    planners = load_json(results / "planners.json")
    golf_solver = load_json(results / "golf_solver.json")
    milligan_solver = load_json(results / "milligan_solver.json")
    lines = [
        "| env | agent | mean score ± 95% CI | won [95% CI] | deals | re-made by |",
        "|---|---|---:|---:|---|---|",
    ]
    for recipe in RECIPES:
        env = recipe.env_id.split("/")[-1]
        for row in baselines["rows"]:
            if row["env"] == recipe.env_id:
                deals = f"{row['episodes']:,} (seeds 0..{row['episodes'] - 1})"
                won = format_share(row["win_rate"], row["win_ci95"])
                lines.append(_line(env, row["agent"], _cell(row), won, deals, "`python -m benchmarks.baselines`"))
        (planner,) = [r for r in planners["rows"] if r["env"] == recipe.env_id and r["agent"] == "planner"]
        deals = f"{planner['episodes']} (seeds 0..{planner['episodes'] - 1})"
        won = format_share(planner["win_rate"], planner["win_ci95"])
        command = "`python -m benchmarks.planners --jobs 2`"
        lines.append(_line(env, "planner (hidden cards unseen)", _cell(planner), won, deals, command))
        lines.append(_solver_line(env, recipe.env_id, planners, golf_solver, milligan_solver))
        rules_best: dict[str, Any] | None = None
        if recipe.rules_run and recipe.rules_model:
            rules = load_json(runs / recipe.rules_run / "results.json")
            rules_best = _ppo(rules)
            agent = f"PPO, rules only, `{recipe.rules_model}` (`{RULES_ONLY}`)"
            lines.append(_model_line(env, agent, rules, recipe.env_id, recipe.rules_model, RULES_ONLY))
        plain = load_json(runs / recipe.plain_run / "results.json")
        lower = bool(plain["lower_score_is_better"])
        ppo = _ppo(plain)
        deals = f"{plain['episodes']:,} (seeds {plain['seed']}..{plain['seed'] + plain['episodes'] - 1})"
        encoding = plain["env_kwargs"].get("obs_encoding", "ids")
        command = f"`python train.py --config configs/{recipe.config}.yaml`"
        won = format_share(ppo["win_rate"], ppo["win_ci95"])
        reads = (
            "" if encoding in PLAIN else ", rules only" if encoding == RULES_ONLY else ", reads greedy's computations"
        )
        published = f", `{recipe.plain_model}`" if recipe.plain_model else ""
        agent = f"PPO, canonical config{published} (`{encoding}`{reads})"
        lines.append(_line(env, agent, _cell(ppo), won, deals, command))
        if encoding == RULES_ONLY and (
            rules_best is None or _better(ppo["mean_score"], rules_best["mean_score"], lower)
        ):
            rules_best = ppo
        best = load_json(runs / recipe.best_run / "results.json")
        if rules_best is not None and not _better(_ppo(best)["mean_score"], rules_best["mean_score"], lower):
            continue  # the heuristic-feature model stays only where it still beats the rules-only ones
        agent = f"PPO reading greedy's computations, `{recipe.best_model}` (`{recipe.best_encoding}`)"
        lines.append(_model_line(env, agent, best, recipe.env_id, recipe.best_model, recipe.best_encoding))
    return "\n".join(lines) + "\n"


def _model_line(env: str, agent: str, run: dict[str, Any], env_id: str, model: str, encoding: str) -> str:
    """A committed model's row: its run's PPO scores, and the command that replays it on the run's deals."""
    ppo = _ppo(run)
    deals = f"{run['episodes']:,} (seeds {run['seed']}..{run['seed'] + run['episodes'] - 1})"
    command = (
        f"`python -m agents.evaluation.evaluate --env {env_id} --env-kwargs "
        f'\'{{"obs_encoding": "{encoding}"}}\' --agents ppo:models/{model}.zip '
        f"--episodes {run['episodes']} --seed {run['seed']}`"
    )
    return _line(env, agent, _cell(ppo), format_share(ppo["win_rate"], ppo["win_ci95"]), deals, command)


def to_markdown(runs: list[dict[str, Any]]) -> str:
    """Every committed run: its agents, PPO's training, and PPO minus greedy paired by deal."""
    lines = [
        "| run (`benchmarks/runs/`) | env (encoding) | agent | mean score ± 95% CI | win rate [95% CI] "
        "| PPO training |",
        "|---|---|---|---:|---:|---|",
    ]
    for run in runs:
        env = _env_label(run)
        better = "lower" if run["lower_score_is_better"] else "higher"
        for r in run["results"]:
            training = _training(run) if r["agent"] == "ppo" else ""
            lines.append(
                f"| {run['name']} | {env} | {r['agent']} | {_cell(r)} ({better} better) | "
                f"{format_share(r['win_rate'], r['win_ci95'])} | {training} |"
            )
    lines.append("")
    lines.append(
        "All agents of a run played the same seeded deals ("
        + ", ".join(f"{run['name']}: {run['episodes']} from seed {run['seed']}" for run in runs)
        + f"); machine: {', '.join(sorted({str(run['machine']) for run in runs}))}."
    )
    lines += ["", *verdicts(runs)]
    return "\n".join(lines) + "\n"


def _env_label(run: dict[str, Any]) -> str:
    env = str(run["env"]).split("/")[-1]
    encoding = run.get("env_kwargs", {}).get("obs_encoding")
    return f"{env} ({encoding})" if encoding else env


def _training(run: dict[str, Any]) -> str:
    text = f"{run['timesteps']:,} steps, {run['train_seconds'] / 60:.0f} min"
    chosen = run.get("ppo_model", {})
    if chosen.get("model") == "best":
        text += f"; plays the best held-out checkpoint (step {chosen['best_step']:,})"
    return text


def margin(run: dict[str, Any]) -> float | None:
    """How far PPO's 95% interval clears greedy's in the better direction (> 0: PPO beats greedy).

    None when the run has no PPO or no greedy result.
    """
    by_agent = {r["agent"]: r for r in run["results"]}
    if "ppo" not in by_agent or "greedy" not in by_agent:
        return None
    ppo, greedy = by_agent["ppo"], by_agent["greedy"]
    if run["lower_score_is_better"]:
        return float((greedy["mean_score"] - greedy["score_ci95"]) - (ppo["mean_score"] + ppo["score_ci95"]))
    return float((ppo["mean_score"] - ppo["score_ci95"]) - (greedy["mean_score"] + greedy["score_ci95"]))


def best_by_env(runs: list[dict[str, Any]]) -> list[str]:
    """For each env, its run whose PPO interval is furthest from greedy's on the better side."""
    lines = [
        "| env | best run | PPO | greedy | margin | PPO beats greedy outside both 95% CIs? |",
        "|---|---|---:|---:|---:|---|",
    ]
    best: dict[str, tuple[float, dict[str, Any]]] = {}
    for run in runs:
        m = margin(run)
        if m is not None and (run["env"] not in best or m > best[run["env"]][0]):
            best[run["env"]] = (m, run)
    for env, (m, run) in sorted(best.items()):
        by_agent = {r["agent"]: r for r in run["results"]}
        ppo, greedy = by_agent["ppo"], by_agent["greedy"]
        lines.append(
            f"| {str(env).split('/')[-1]} | {run['name']} | {_cell(ppo)} | "
            f"{_cell(greedy)} | {m:+.2f} | {'yes' if m > 0 else 'no'} |"
        )
    return lines


def verdicts(runs: list[dict[str, Any]]) -> list[str]:
    """PPO against greedy on each run's deals: paired difference and whether the 95% intervals separate."""
    lines = [
        "| run | PPO - greedy, paired by deal (95% CI) | better score is | PPO beats greedy outside both 95% CIs? |",
        "|---|---:|---|---|",
    ]
    for run in runs:
        m = margin(run)
        if m is None:
            continue
        diff = np.asarray(run["scores"]["ppo"], float) - np.asarray(run["scores"]["greedy"], float)
        mean, ci = mean_ci95(diff.tolist())
        direction = "lower" if run["lower_score_is_better"] else "higher"
        lines.append(f"| {run['name']} | {mean:+.2f} ± {ci:.2f} | {direction} | {'yes' if m > 0 else 'no'} |")
    return lines


def solvability(results: Path = RESULTS) -> str:
    """The games side by side under perfect knowledge: the share of deals won (proved by a line that
    replays), proved lost and undecided within the solver's budget, beside greedy's wins on its 1,000 deals."""
    baselines = load_json(results / "baselines.json")
    golf = next(r for r in load_json(results / "golf_solver.json")["rows"] if r["rules"] == "book")
    puss = load_json(results / "puss_solver.json")
    family = load_json(results / "milligan_solver.json")
    greedy = {r["env"]: r for r in baselines["rows"] if r["agent"] == "greedy"}
    lines = [
        "| env | deals | won with perfect knowledge | proved lost | undecided | solver's budget a deal | greedy won "
        "(its 1,000 deals) | re-made by |",
        "|---|---:|---:|---:|---:|---|---:|---|",
    ]

    def line(env_id: str, deals: int, won: str, lost: str, undecided: str, budget: str, command: str) -> None:
        g = greedy[env_id]
        cells = [env_id.split("/")[-1], f"{deals:,}", won, lost, undecided, budget]
        lines.append(f"| {' | '.join(cells)} | {format_share(g['win_rate'], g['win_ci95'])} | {command} |")

    n, cleared = golf["deals"], golf["cleared"]
    unproven = golf["not_proven"]
    line(
        "patience_gym/Golf-v0",
        n,
        format_share(golf["cleared_share"], golf["cleared_ci95"]),
        f"{(n - cleared - unproven) / n:.1%}",
        f"{unproven / n:.1%}",
        "exhaustive",
        "`python -m benchmarks.golf_solver`",
    )
    for game in family["games"]:
        budget = family_budget(family)
        won = format_share(game["won_share"], game["won_ci95"])
        lost, undecided = f"{game['lost_share']:.1%}", f"{game['undecided_share']:.1%}"
        line(game["env"], game["deals"], won, lost, undecided, budget, "`python -m benchmarks.milligan_solver`")
    run = puss["runs"][0]
    budget = f"{puss['max_nodes']:,} positions or {puss['max_seconds']:g} s"
    won = format_share(run["won_share"], run["won_ci95"])
    lost, undecided = f"{run['lost_share']:.1%}", f"{run['unknown_share']:.1%}"
    line(puss["env"], puss["deals"], won, lost, undecided, budget, "`python -m benchmarks.puss_solver`")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    runs = load_runs()
    if not runs:
        raise SystemExit(f"no run reports under {RUNS}")
    table = summary()
    print(table)
    (RESULTS / "summary.md").write_text(table)
    (RESULTS / "ppo.md").write_text(to_markdown(runs))
    (RESULTS / "solvability.md").write_text(solvability())


if __name__ == "__main__":
    main()
