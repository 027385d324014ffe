"""The README's results table and the docs' PPO run table, from committed results only.

Sources (nothing here plays a game):

* ``benchmarks/results/baselines.json`` (``python -m benchmarks.baselines``): random and greedy;
* ``benchmarks/results/planners.json`` (``python -m benchmarks.planners``): the search planner, and
  the perfect-knowledge solver where a game has one;
* ``benchmarks/results/golf_solver.json`` (``python -m benchmarks.golf_solver``): the exact Golf bound
  on more deals than the planner table;
* ``benchmarks/results/milligan_solver.json`` (``python -m benchmarks.milligan_solver``): the Miss Milligan
  family's perfect-knowledge solver (won, proved lost, undecided within its budget);
* ``benchmarks/sweeps/<config>/report.json``: a recipe across training seeds (``train.py --config
  configs/<config>.yaml --seeds N``: every seed's score on every report deal, the greedy's, and the IQM,
  probability of improvement and seeds past greedy with their intervals);
* ``benchmarks/results/<game>_fresh_deals.json`` (``python -m benchmarks.fresh_deals``): each published model
  on deals none of them was chosen on;
* ``benchmarks/runs/<run>/results.json``: what ``train.py`` wrote for a full run (only ``report.md`` and
  ``results.json`` of the runs behind README rows are committed): a canonical config's one run, where its
  recipe has no sweep yet, and an expert-iteration run's learned search and its network alone.

Writes ``benchmarks/results/summary.md`` (the README table; ``python -m benchmarks.readme`` copies it
into README.md), ``benchmarks/results/ppo.md`` (every committed run with its paired verdict),
``benchmarks/results/solvability.md`` (the games compared under perfect knowledge, for the docs) and
``benchmarks/results/sweeps.md`` (every committed sweep's report, for the docs).

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
from agents.search.exact import MAX_NODES
from benchmarks import RESULTS
from benchmarks.published import GAMES

ROOT = Path(__file__).resolve().parent.parent
RUNS = ROOT / "benchmarks" / "runs"
SWEEPS = ROOT / "benchmarks" / "sweeps"


@dataclass(frozen=True)
class ConfigRun:
    """A config (configs/<config>.yaml) and its one committed run (benchmarks/runs/<run>/), which a README row
    shows until the config has a sweep."""

    config: str
    run: str


@dataclass(frozen=True)
class Recipe:
    """One env's PPO rows in the README table: its canonical config (and any rules-only recipe beside it) across
    training seeds, its learned search, and its published models on fresh deals."""

    env_id: str
    canonical: ConfigRun  #: the canonical config (its sweep: benchmarks/sweeps/<config>/)
    fresh: str  #: benchmarks/results/<fresh>_fresh_deals.json: the published models on fresh deals
    rules: ConfigRun | None = None  #: a rules-only recipe beside the canonical one
    search: ConfigRun | None = None  #: an expert-iteration config: the learned search and its network alone


RECIPES = (
    Recipe(
        "patience_gym/Golf-v0",
        ConfigRun("golf", "Golf-v0"),
        "golf",
        rules=ConfigRun("golf_rules", "Golf-v0-rules"),
        search=ConfigRun("golf_search", "Golf-v0-search"),
    ),
    Recipe("patience_gym/GolfRound-v0", ConfigRun("golf_round", "GolfRound-v0"), "golf_round"),
    Recipe(
        "patience_gym/MissMilligan-v0",
        ConfigRun("miss_milligan", "MissMilligan-v0"),
        "milligan",
        search=ConfigRun("miss_milligan_search", "MissMilligan-v0-search"),
    ),
    Recipe("patience_gym/Giant-v0", ConfigRun("giant", "Giant-v0"), "giant"),
    Recipe("patience_gym/MissMilliganPocket-v0", ConfigRun("miss_milligan_pocket", "MissMilliganPocket-v0"), "pocket"),
    Recipe(
        "patience_gym/PussInTheCorner-v0",
        ConfigRun("puss", "PussInTheCorner-v0"),
        "puss",
        search=ConfigRun("puss_search", "PussInTheCorner-v0-search"),
    ),
)


def load_json(path: Path) -> Any:
    """Read a committed results file; a missing one is an error naming the script that writes it."""
    if not path.is_file():
        raise SystemExit(f"{path} is missing: run the script that writes it (see benchmarks/results.py)")
    return json.loads(path.read_text())


def load_runs(runs: Path = RUNS) -> list[dict[str, Any]]:
    """Every committed PPO run report (``results.json``), named by its folder."""
    out = []
    for path in sorted(runs.glob("*/results.json")):
        data = json.loads(path.read_text())
        if not any(r["agent"] == "ppo" for r in data["results"]):
            continue  # an expert-iteration run: its own rows (_search_lines)
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


def summary(results: Path = RESULTS, runs: Path = RUNS, sweeps: Path = SWEEPS) -> str:
    """The README table: per env random, greedy, planner, perfect-knowledge bound, then each PPO recipe across
    training seeds (its one run where it has no sweep yet), then each published model on fresh deals."""
    baselines = load_json(results / "baselines.json")
    planners = load_json(results / "planners.json")
    golf_solver = load_json(results / "golf_solver.json")
    milligan_solver = load_json(results / "milligan_solver.json")
    lines = [
        "| env | agent | mean score ± 95% CI (recipes: IQM [95% CI]) | won [95% CI] (recipes: P(better than "
        "greedy) [95% CI]) | deals | re-made by |",
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
        for pair, kind in ((recipe.canonical, "canonical config"), (recipe.rules, "rules only")):
            if pair is None:
                continue
            sweep = sweeps / pair.config / "report.json"
            if sweep.is_file():
                lines.append(_sweep_line(env, kind, pair.config, load_json(sweep)))
            else:
                lines.append(_run_line(env, kind, pair.config, load_json(runs / pair.run / "results.json")))
        if recipe.search is not None:  # a missing run is an error naming it, as for any row
            run = load_json(runs / recipe.search.run / "results.json")
            sweep = sweeps / recipe.search.config / "report.json"
            lines += _search_lines(env, recipe.search.config, run, load_json(sweep) if sweep.is_file() else None)
        fresh = load_json(results / f"{recipe.fresh}_fresh_deals.json")
        lines += [_fresh_line(env, recipe.fresh, run, fresh) for run in fresh["runs"]]
    return "\n".join(lines) + "\n"


def _reads(encoding: str) -> str:
    """What an encoding reads, for a row's label."""
    return "" if encoding in PLAIN else ", rules only" if encoding == RULES_ONLY else ", reads greedy's computations"


def _sweep_line(env: str, kind: str, config: str, sweep: dict[str, Any], what: str = "PPO recipe") -> str:
    """A recipe across training seeds (``what``: PPO's, or a learned search's network alone): its IQM, probability
    of improvement over greedy and seeds past greedy."""
    (found,) = sweep["configs"]
    agg = found["across_seeds"]
    encoding = sweep["env_kwargs"].get("obs_encoding", "ids")
    n = agg["seeds"]
    agent = (
        f"{', '.join(filter(None, (what, kind)))}, `{config}` "
        f"(`{encoding}`{_reads(encoding) if kind != 'rules only' else ''}): "
        f"{n} training seeds, {found['past_greedy']} past greedy"
    )
    lo, hi = agg["iqm_ci95"]
    score = f"IQM {agg['iqm']:.2f} [{lo:.2f}, {hi:.2f}]"
    plo, phi = agg["p_improvement_ci95"]
    won = f"P {agg['p_improvement']:.2f} [{plo:.2f}, {phi:.2f}]"
    first, episodes = sweep["report_seed"], sweep["episodes"]
    deals = f"{episodes:,} a seed (seeds {first}..{first + episodes - 1})"
    seeds = [s["seed"] for s in found["seeds"]]
    chosen = f"--seeds {n}" if seeds == list(range(n)) else "--seed-list " + " ".join(map(str, seeds))
    command = f"`python train.py --config configs/{config}.yaml {chosen}`"
    return _line(env, agent, score, won, deals, command)


def _search_lines(env: str, config: str, run: dict[str, Any], sweep: dict[str, Any] | None = None) -> list[str]:
    """An expert-iteration run's learned search and its network alone, each paired with greedy on the run's
    report deals (one training seed); where the config was swept, the network alone across its seeds."""
    paired = {row["agent"]: row for row in run["paired"]}
    deals = f"{run['episodes']:,} (seeds {run['seed']}..{run['seed'] + run['episodes'] - 1})"
    command = f"`python train.py --config configs/{config}.yaml`"
    lines = []
    for row in run["results"]:
        if row["agent"] == "network alone" and sweep is not None:
            lines.append(_sweep_line(env, "", config, sweep, "its network alone (one forward pass a move), recipe"))
            continue
        if row["agent"] == "network alone":
            what = f"its network alone (`{config}`, one forward pass a move)"
        elif row["agent"].startswith("search"):
            encoding = run["env_kwargs"].get("obs_encoding", "ids")
            sims = f"{run['search_sims']} sims a move"
            if run.get("search_exact_nodes", MAX_NODES) != MAX_NODES:
                sims += f", exact line within {run['search_exact_nodes']:,} positions"
            what = f"learned search, expert iteration, `{config}` (`{encoding}`, rules only, {sims})"
        else:
            continue
        diff = paired[row["agent"]]
        agent = f"{what}: one training seed, {diff['mean']:+.2f} ± {diff['ci95']:.2f} against greedy, paired"
        lines.append(_line(env, agent, _cell(row), format_share(row["win_rate"], row["win_ci95"]), deals, command))
    return lines


def _run_line(env: str, kind: str, config: str, run: dict[str, Any]) -> str:
    """A recipe's one run, where it has no sweep yet: labelled one training seed."""
    ppo = _ppo(run)
    encoding = run["env_kwargs"].get("obs_encoding", "ids")
    reads = _reads(encoding) if kind != "rules only" else ""
    agent = f"PPO, {kind}, `{config}` (`{encoding}`{reads}): one training seed, no sweep yet"
    deals = f"{run['episodes']:,} (seeds {run['seed']}..{run['seed'] + run['episodes'] - 1})"
    won = format_share(ppo["win_rate"], ppo["win_ci95"])
    return _line(env, agent, _cell(ppo), won, deals, f"`python train.py --config configs/{config}.yaml`")


def sweeps_markdown(sweeps: Path = SWEEPS) -> str:
    """Every committed sweep's report (benchmarks/sweeps/<config>/report.json), per recipe: its seeds against
    the greedy and the figures across them, without the plot (beside each report, ``profile.png``)."""
    from agents.training.sweep_report import report_markdown

    parts = []
    for recipe in RECIPES:
        for config in (pair.config for pair in (recipe.canonical, recipe.rules, recipe.search) if pair is not None):
            path = sweeps / config / "report.json"
            if not path.is_file():
                continue
            body = report_markdown(load_json(path)).splitlines()
            kept = [line for line in body[1:] if not line.startswith("![")]
            parts += [f"### {recipe.env_id.split('/')[-1]}: `configs/{config}.yaml`", *kept, ""]
    return "\n".join(parts).strip() + "\n" if parts else "No sweep is committed yet.\n"


def _fresh_line(env: str, game: str, run: dict[str, Any], table: dict[str, Any]) -> str:
    """A published model on fresh deals (benchmarks.fresh_deals)."""
    ppo = next(r for r in run["results"] if r["agent"] == "ppo")
    encoding = dict(GAMES[game].models)[run["name"]]
    diff, half = mean_ci95(
        (np.asarray(run["scores"]["ppo"], float) - np.asarray(run["scores"]["greedy"], float)).tolist()
    )
    agent = (
        f"PPO, published model `{run['name']}` (`{encoding}`{_reads(encoding)}), fresh deals "
        f"({diff:+.2f} ± {half:.2f} against greedy there, paired)"
    )
    first, episodes = table["seed"], table["episodes"]
    deals = f"{episodes:,} (seeds {first:,}..{first + episodes - 1:,})"
    won = format_share(ppo["win_rate"], ppo["win_ci95"])
    return _line(env, agent, _cell(ppo), won, deals, f"`python -m benchmarks.fresh_deals --game {game}`")


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
    (RESULTS / "sweeps.md").write_text(sweeps_markdown())


if __name__ == "__main__":
    main()
