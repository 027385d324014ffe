"""Strength against time per move: the learned search at several budgets, the planner at several, the network
alone and the greedy, every agent on the same deals, paired with the planner at its default budget.

    python -m benchmarks.search_curve --game puss --model models/puss_search.zip \\
        [--episodes 200] [--seed 100000] [--seconds 0.01 0.05 0.2] [--sims 16] [--flat] [--exact-from 11] \\
        [--exact-nodes 1000000] [--planner-from benchmarks/results/planners.json] [--jobs 1]

Both searches get the same time a move: ``search:MODEL,seconds=S`` and ``planner:max_seconds=S`` for each
``S`` of ``--seconds``; the planner also plays at its own default budget, the one the results table shows.
``--flat`` adds the same network in determinized Monte Carlo at the same times (``root=flat``: every legal move
valued alike, the best mean played), the root search that Gumbel's sequential halving is measured against;
``--exact-from N`` (Golf) the learned search with its exact ending once at most N stock cards are left.
``--sims N`` adds the learned search at N leaf evaluations a move (its time a move is what it took).
``--exact-nodes N`` gives every learned search N positions for its exact line where nothing is hidden.
``--planner-from FILE`` reads the planner at its default budget from a table of :mod:`benchmarks.planners`
that played the same env's deals from the same seed, instead of playing it again (nine-hole Golf's planner
takes 50 seconds a round); its per-deal scores pair as if played here.
Time a move is each agent's own play time (every process one core, one torch thread) over its moves. Deals
from seed 100,000 on are fresh: no run, report or selection set used them. Writes
``benchmarks/results/search_curve_<game>.json``, ``.md`` and ``.png``.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.evaluation.episodes import Summary
from agents.evaluation.intervals import mean_ci95, paired_ci95
from benchmarks import RESULTS, write_results
from benchmarks.published import GAMES


def agent_specs(
    model: str,
    seconds: Sequence[float],
    flat: bool = False,
    exact_from: int | None = None,
    sims: Sequence[int] = (),
    exact_nodes: int | None = None,
) -> list[tuple[str, str, float | None]]:
    """(kind, spec, budget) of every agent the curve plays; budget None where the agent has none to give."""
    specs: list[tuple[str, str, float | None]] = [("greedy", "greedy", None), ("network alone", f"ppo:{model}", None)]
    specs.append(("planner", "planner", None))
    if exact_nodes is not None:  # every search's budget for its exact line: the same model path, then the option
        model = f"{model},exact_nodes={exact_nodes}"
    for n in sims:
        specs.append(("learned search", f"search:{model},sims={n}", None))
        if exact_from is not None:
            kind = f"learned search, exact from {exact_from}"
            specs.append((kind, f"search:{model},sims={n},exact_from={exact_from}", None))
    for s in seconds:
        specs.append(("planner", f"planner:max_seconds={s:g}", s))
        specs.append(("learned search", f"search:{model},seconds={s:g}", s))
        if flat:
            specs.append(("flat Monte Carlo", f"search:{model},seconds={s:g},root=flat", s))
        if exact_from is not None:
            kind = f"learned search, exact from {exact_from}"
            specs.append((kind, f"search:{model},seconds={s:g},exact_from={exact_from}", s))
    return specs


def planner_from(path: Path, env_id: str, episodes: int, seed: int) -> Summary:
    """The planner at its default budget as the table at ``path`` (:mod:`benchmarks.planners`) played it; a
    ValueError naming what does not match where it did not play the same ``episodes`` deals from ``seed``."""
    data = json.loads(path.read_text())
    row = next((r for r in data.get("rows", []) if r.get("env") == env_id and r.get("agent") == "planner"), None)
    if row is None:
        raise ValueError(f"{path} has no planner row for {env_id}")
    if data.get("seed") != seed or row.get("episodes") != episodes or len(row.get("scores", [])) != episodes:
        raise ValueError(
            f"{path}: the planner played {row.get('episodes')} deals of {env_id} from seed {data.get('seed')}, "
            f"not {episodes} from {seed}"
        )
    scores = [float(x) for x in row["scores"]]
    mean, half = mean_ci95(scores)
    lo, hi = row["win_ci95"]
    # The table keeps the win rate, not each deal's win: the curve reads only the rate.
    return Summary("planner", episodes, mean, half, row["win_rate"], (lo, hi), row["mean_moves"], row["seconds"],
                   scores, won=[])  # fmt: skip


def seconds_a_move(summary: Summary) -> float:
    """The agent's own play time over its moves."""
    moves = summary.mean_moves * summary.episodes
    return summary.seconds / moves if moves else math.nan


def rows_of(specs: list[tuple[str, str, float | None]], results: list[Summary]) -> list[dict[str, Any]]:
    """One row per agent: its score, wins and time a move, and the paired difference from the default planner."""
    planner = next(r for (kind, _, budget), r in zip(specs, results, strict=True) if kind == "planner" and not budget)
    rows = []
    for (kind, spec, budget), r in zip(specs, results, strict=True):
        diff, half = paired_ci95(r.scores, planner.scores)
        rows.append({"kind": kind, "spec": spec, "budget_seconds": budget, "mean_score": r.mean_score,
                     "score_ci95": r.score_ci95, "win_rate": r.win_rate, "win_ci95": list(r.win_ci95),
                     "seconds_a_move": seconds_a_move(r), "minus_planner": diff,
                     "minus_planner_ci95": half})  # fmt: skip
    return rows


def table(game: str, env_id: str, episodes: int, seed: int, rows: list[dict[str, Any]]) -> str:
    lines = [
        f"# {env_id}: strength against time a move",
        "",
        f"Every agent on the same {episodes:,} deals (seeds {seed:,}..{seed + episodes - 1:,}), one core each; "
        "paired differences from the planner at its default budget, 95% intervals.",
        "",
        "| agent | time a move | mean score ± 95% CI | won | minus the planner, paired |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        lo, hi = row["win_ci95"]
        lines.append(
            f"| `{row['spec']}` | {row['seconds_a_move'] * 1000:.1f} ms | {row['mean_score']:.2f} ± "
            f"{row['score_ci95']:.2f} | {row['win_rate']:.1%} [{lo:.1%}, {hi:.1%}] | "
            f"{row['minus_planner']:+.2f} ± {row['minus_planner_ci95']:.2f} |"
        )
    lines += ["", f"![strength against time a move](search_curve_{game}.png)", ""]
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], env_id: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    styles = [("learned search", "o-"), ("flat Monte Carlo", "d:"), ("planner", "s--"), ("network alone", "^"),
              ("greedy", "v")]  # fmt: skip
    styles += [(kind, "P-") for kind in sorted({r["kind"] for r in rows} - {k for k, _ in styles})]
    for kind, style in styles:
        mine = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["seconds_a_move"])
        if not mine:
            continue
        x = [r["seconds_a_move"] for r in mine]
        y = [r["mean_score"] for r in mine]
        ax.errorbar(x, y, yerr=[r["score_ci95"] for r in mine], fmt=style, label=kind, capsize=3)
    ax.set_xscale("log")
    ax.set_xlabel("seconds a move (one core)")
    ax.set_ylabel("mean score")
    ax.set_title(env_id)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    import gymnasium as gym

    from agents.evaluation.evaluate import evaluate
    from agents.registry import make_agent

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--model", required=True, help="the learned search's network (an expert-iteration model)")
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, nargs="*", default=[0.01, 0.05, 0.2])
    parser.add_argument("--sims", type=int, nargs="*", default=[], help="also the search at N leaf evaluations a move")
    parser.add_argument("--flat", action="store_true", help="also the network in flat determinized Monte Carlo")
    parser.add_argument("--exact-from", type=int, help="Golf: also the search with its exact ending from N stock cards")
    parser.add_argument("--exact-nodes", type=int, help="the search's positions for its exact line (default 50,000)")
    parser.add_argument("--planner-from", type=Path, help="the planner's default row from this planners table")
    parser.add_argument("--jobs", type=int, default=1, help="processes, each one core")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.episodes < 2 or args.jobs < 1 or min(args.seconds, default=1) <= 0 or min(args.sims, default=1) < 1:
        parser.error("--episodes must be at least 2, --jobs and every --sims at least 1, every --seconds positive")
    if not args.seconds and not args.sims:
        parser.error("give the search's budgets: --seconds, --sims or both")
    env_id = GAMES[args.game].env_id
    env_kwargs: dict[str, Any] = {"obs_encoding": "rules_moves"}
    specs = agent_specs(args.model, args.seconds, args.flat, args.exact_from, args.sims, args.exact_nodes)
    planner = None
    if args.planner_from is not None:
        try:
            planner = planner_from(args.planner_from, env_id, args.episodes, args.seed)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            parser.error(f"--planner-from: {exc}")
    game_name = gym.make(env_id, **env_kwargs).unwrapped.game.name  # type: ignore[attr-defined]
    for _, spec, _ in specs:  # a model of another game, encoding or rules is refused before any deal
        try:
            make_agent(spec, game_name, seed=args.seed, env_id=env_id, env_kwargs=env_kwargs)
        except (ValueError, OSError) as exc:
            parser.error(str(exc))
    played = [s for kind, s, budget in specs if planner is None or (kind, budget) != ("planner", None)]
    results = iter(evaluate(env_id, played, args.episodes, args.seed, env_kwargs, args.jobs))
    rows = rows_of(specs, [next(results) if spec in played or planner is None else planner for _, spec, _ in specs])
    name = f"search_curve_{args.game}"
    data = {"env": env_id, "model": args.model, "episodes": args.episodes, "seed": args.seed, "rows": rows}
    if args.planner_from is not None:
        data["planner_from"] = str(args.planner_from)
    write_results(name, data, table(args.game, env_id, args.episodes, args.seed, rows), args.out)
    plot(rows, env_id, args.out / f"{name}.png")


if __name__ == "__main__":
    main()
