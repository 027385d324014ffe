"""Perfect-knowledge Golf: share of deals cleared and the best scores, per rule set.

Deal ``i`` is ``reset(seed=seed + i)`` of ``Golf-v0`` made with the rule
options, the deals the evaluation tool plays. For the book rules,
``queens_on_kings`` and ``wrap_ranks`` it reports the share cleared (Wilson
95%), the mean minimum score, seconds per 1,000 deals, and the mean nine-hole
score of perfect play: deals grouped nine at a time into rounds (and, with
``--rounds``, real ``GolfRound-v0`` rounds). Solves that hit ``--max-nodes``
are counted with the score found and reported as not proven.

Writes ``benchmarks/results/golf_solver.json`` and ``golf_solver.md`` (with
``--pure-python``, ``golf_solver.pure_python.json`` and ``.md``).

The deals can be cut into shards (``--shard-size``) solved on a backend
(``--backend ray``: a local Ray cluster of ``--workers`` CPUs, or the
cluster at ``--address``); with ``--state-dir`` each finished shard is kept
there as one JSON file (written atomically), and a rerun of the same command
reads them back instead of solving them again. Every kept shard of every rule
set is checked before any deal is solved (a score per deal, each in Golf's
range) and a bad one is named; one run at a time writes a state dir. The
figures do not depend on the backend, the shard size or the resuming.

Usage: ``python -m benchmarks.golf_solver [--deals 10000] [--seed 0] [--rounds 100] [--max-nodes N]
[--pure-python] [--out DIR] [--name STEM] [--rules book ...] [--backend serial|process|ray] [--address ADDR]
[--workers N] [--shard-size 1000] [--state-dir DIR]`` (``--max-nodes`` left out: no limit, every solve exact;
``--workers`` goes with ``--backend process`` or ``ray``)
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym

import patience_gym  # noqa: F401 - registers the envs
from agents.evaluation.evaluate import format_share, mean_ci95, wilson_ci95
from agents.evaluation.sharding import BACKENDS, KeptForm, backend_session, number, run_resumable, whole
from agents.solvers import check_budget, check_budget_option
from agents.solvers.golf import HAVE_FAST, solve
from agents.training.report import machine_description
from benchmarks import RESULTS, check_folders, check_shared_options, resuming, write_results
from patience_gym.cards import codes
from patience_gym.games.golf import NUM_HOLES, NUM_LINKS, STOCK_SIZE, Golf, GolfRound

RULE_SETS: dict[str, dict[str, bool]] = {
    "book": {},
    "queens_on_kings": {"queens_on_kings": True},
    "wrap_ranks": {"wrap_ranks": True},
}


@dataclass(frozen=True)
class Shard:
    """Deals ``start .. start+count-1`` (seeds ``seed + start ..``) of one rule set: one task."""

    rules: str
    seed: int
    start: int
    count: int
    max_nodes: int | None
    fast: bool

    @property
    def seeds(self) -> range:
        return range(self.seed + self.start, self.seed + self.start + self.count)

    @property
    def filename(self) -> str:
        nodes = "exact" if self.max_nodes is None else f"nodes{self.max_nodes}"
        core = "c" if self.fast else "py"
        return f"{self.rules}-seed{self.seed}-{self.start:09d}+{self.count}-{nodes}-{core}.json"


#: What a kept shard holds (:func:`solve_shard`): each deal's best score (the links left, or minus the stock
#: cards left once they are all cleared), the deals not proven, the nodes searched and the seconds taken.
KEPT_SHARD = KeptForm(
    deals={"scores": whole(-(STOCK_SIZE - 1), NUM_LINKS)},
    totals={"not_proven": whole(0), "nodes": whole(0), "seconds": number(0.0)},
)


def solve_shard(shard: Shard) -> dict[str, Any]:
    """Minimum scores of a shard's deals, with its proof count, nodes searched and seconds."""
    env = gym.make("patience_gym/Golf-v0", **RULE_SETS[shard.rules])
    game: Golf = env.unwrapped.game  # type: ignore[attr-defined]
    scores: list[int] = []
    unproven = nodes = 0
    start = time.perf_counter()
    for seed in shard.seeds:
        env.reset(seed=seed)
        solution = solve(game, env.unwrapped.state, shard.max_nodes, shard.fast)  # type: ignore[attr-defined]
        scores.append(solution.score)
        unproven += not solution.exact
        nodes += solution.nodes
    seconds = time.perf_counter() - start
    return {"shard": asdict(shard), "scores": scores, "not_proven": unproven, "nodes": nodes, "seconds": seconds}


def solve_sharded(
    rules: str,
    deals: int,
    seed: int,
    max_nodes: int | None,
    fast: bool = True,
    *,
    shard_size: int = 1000,
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    state_dir: Path | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Every shard of ``deals`` deals, in deal order, and how many were solved in this run.

    Shards kept in ``state_dir`` are read back, not solved; the others run on ``backend`` and each is
    kept there as it finishes, so an interrupted run loses no finished shard.
    """
    shards = shards_of(rules, deals, seed, max_nodes, fast, shard_size)
    return run_resumable(solve_shard, shards, state_dir, KEPT_SHARD, backend, address, workers)


def shards_of(rules: str, deals: int, seed: int, max_nodes: int | None, fast: bool, shard_size: int) -> list[Shard]:
    """The shards of ``shard_size`` deals (the last one shorter) that ``deals`` deals of ``rules`` are cut into."""
    if shard_size < 1:
        raise ValueError(f"shard size must be at least 1, got {shard_size}")
    return [
        Shard(rules, seed, start, min(shard_size, deals - start), max_nodes, fast)
        for start in range(0, deals, shard_size)
    ]


def solve_deals(
    options: dict[str, bool],
    deals: int,
    seed: int,
    max_nodes: int | None,
    fast: bool = True,
    *,
    rules: str | None = None,
    shard_size: int | None = None,
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    state_dir: Path | None = None,
) -> dict[str, Any]:
    """Minimum scores of ``deals`` seeded Golf-v0 deals, with timing and proof counts.

    ``options`` must be one of :data:`RULE_SETS` (``rules`` names it). The deals are cut into shards of
    ``shard_size`` (default: all in one) run on ``backend`` (see :func:`solve_sharded`). ``seconds`` adds
    the shards' own times (kept ones included): the cost on one core; ``wall_seconds`` is this run's.
    """
    check_budget("max_nodes", max_nodes, integer=True)
    names = [name for name, opts in RULE_SETS.items() if opts == options]
    if not names or (rules is not None and rules not in names):
        raise ValueError(f"rule options {options} are not one of the rule sets {list(RULE_SETS)}")
    wall = time.perf_counter()
    parts, solved = solve_sharded(
        rules or names[0],
        deals,
        seed,
        max_nodes,
        fast,
        shard_size=shard_size or max(deals, 1),
        backend=backend,
        address=address,
        workers=workers,
        state_dir=state_dir,
    )
    wall = time.perf_counter() - wall
    scores = [s for part in parts for s in part["scores"]]
    unproven = sum(part["not_proven"] for part in parts)
    nodes = sum(part["nodes"] for part in parts)
    seconds = sum(part["seconds"] for part in parts)
    cleared = sum(s <= 0 for s in scores)
    lo, hi = wilson_ci95(cleared, deals)
    mean, half = mean_ci95(scores)
    rounds = [sum(scores[r * NUM_HOLES : (r + 1) * NUM_HOLES]) for r in range(deals // NUM_HOLES)]
    round_mean, round_half = mean_ci95(rounds)
    return {
        "deals": deals,
        "cleared": cleared,
        "cleared_share": cleared / deals,
        "cleared_ci95": [lo, hi],
        "mean_score": mean,
        "score_ci95": half,
        "nine_holes_mean": round_mean,
        "nine_holes_ci95": round_half,
        "nine_holes_rounds": len(rounds),
        "not_proven": unproven,
        "mean_nodes": nodes / deals,
        "seconds": seconds,
        "seconds_per_1000": 1000 * seconds / deals,
        "wall_seconds": wall,
        "shards": len(parts),
        "shards_solved": solved,
        "scores": scores,
    }


def solve_rounds(
    options: dict[str, bool], rounds: int, seed: int, max_nodes: int | None, fast: bool = True
) -> dict[str, Any]:
    """Best nine-hole totals of ``rounds`` seeded GolfRound-v0 deals (each hole solved on its own)."""
    env = gym.make("patience_gym/GolfRound-v0", **options)
    game: GolfRound = env.unwrapped.game  # type: ignore[attr-defined]
    totals: list[int] = []
    unproven = 0
    for r in range(rounds):
        env.reset(seed=seed + r)
        deals = env.unwrapped.state.deals  # type: ignore[attr-defined]
        total = 0
        for deal in deals:
            solution = solve(game.hole_game, game.hole_game.from_deal(codes(deal)), max_nodes, fast)
            total += solution.score
            unproven += not solution.exact
        totals.append(total)
    mean, half = mean_ci95(totals)
    return {"rounds": rounds, "mean": mean, "ci95": half, "not_proven": unproven}


def measure(
    deals: int,
    seed: int,
    rounds: int,
    max_nodes: int | None,
    fast: bool = True,
    *,
    rules: list[str] | None = None,
    shard_size: int | None = None,
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    state_dir: Path | None = None,
) -> dict[str, Any]:
    """:func:`solve_deals` (and :func:`solve_rounds`) for each of ``rules`` (default: every rule set)."""
    check_budget("max_nodes", max_nodes, integer=True)
    rows = []
    with backend_session(backend, address, workers) as slots:
        for name in rules or list(RULE_SETS):
            options = RULE_SETS[name]
            row: dict[str, Any] = {"rules": name, "options": options}
            row.update(
                solve_deals(
                    options,
                    deals,
                    seed,
                    max_nodes,
                    fast,
                    rules=name,
                    shard_size=shard_size,
                    backend=backend,
                    address=address,
                    workers=workers,
                    state_dir=state_dir,
                )
            )
            del row["scores"]  # per deal: in the kept shards, too long for the results file
            if rounds:
                row["golf_round"] = solve_rounds(options, rounds, seed, max_nodes, fast)
            rows.append(row)
            lo, hi = row["cleared_ci95"]
            print(
                f"{name:16s} cleared {100 * row['cleared_share']:5.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]  "
                f"mean {row['mean_score']:.3f} ± {row['score_ci95']:.3f}  "
                f"nine holes {row['nine_holes_mean']:.2f} ± {row['nine_holes_ci95']:.2f}  "
                f"not proven {row['not_proven']}  {row['seconds_per_1000']:.1f} s/1000 deals  "
                f"wall {row['wall_seconds']:.0f} s ({row['shards_solved']}/{row['shards']} shards solved now)",
                flush=True,
            )
    return {
        "deals": deals,
        "seed": seed,
        "rounds": rounds,
        "max_nodes": max_nodes,
        "c_core": HAVE_FAST and fast,
        "machine": machine_description(),
        "backend": backend,
        "address": address,
        "workers": slots,
        "shard_size": shard_size or deals,
        "rows": rows,
    }


def to_markdown(data: dict[str, Any]) -> str:
    core = "C core" if data["c_core"] else "pure Python"
    workers = data.get("workers", 1)
    where = "one process" if workers == 1 else f"{workers} {data.get('backend', 'serial')} workers"
    lines = [
        f"Exact Golf solver (perfect knowledge of the stock), {data['deals']} seeded deals per rule set "
        f"(Golf-v0 seeds {data['seed']}..{data['seed'] + data['deals'] - 1}), {where}, {core}, "
        f"{data['machine']}. Cleared: Wilson 95% interval; ± is the 95% CI half-width. "
        "Nine holes: the deals taken nine at a time as rounds. s / 1,000 deals: one core's time; "
        "wall: the time the run took.",
        "",
        "| rules | cleared [95% CI] | mean best score | nine holes | not proven | s / 1,000 deals | wall |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in data["rows"]:
        wall = r.get("wall_seconds", r["seconds"])
        lines.append(
            f"| {r['rules']} | {format_share(r['cleared_share'], r['cleared_ci95'])} | "
            f"{r['mean_score']:.2f} ± {r['score_ci95']:.2f} | "
            f"{r['nine_holes_mean']:.1f} ± {r['nine_holes_ci95']:.1f} | {r['not_proven']} | "
            f"{r['seconds_per_1000']:.0f} | {format_duration(wall)} |"
        )
    if any(r.get("shards_solved", 0) < r.get("shards", 0) for r in data["rows"]):
        lines += ["", "Some shards were read back from an earlier run: wall counts only this run's."]
    if data["rounds"]:
        lines += [
            "",
            f"GolfRound-v0, {data['rounds']} seeded rounds "
            f"(seeds {data['seed']}..{data['seed'] + data['rounds'] - 1}), every hole solved:",
            "",
            "| rules | nine-hole total | not proven |",
            "|---|---:|---:|",
        ]
        for r in data["rows"]:
            g = r["golf_round"]
            lines.append(f"| {r['rules']} | {g['mean']:.1f} ± {g['ci95']:.1f} | {g['not_proven']} |")
    return "\n".join(lines) + "\n"


def format_duration(seconds: float) -> str:
    """``42 s``, ``12.5 min`` or ``2.3 h``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10_000, help="Golf-v0 deals per rule set")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed")
    parser.add_argument("--rounds", type=int, default=100, help="GolfRound-v0 rounds per rule set (0: none)")
    parser.add_argument("--max-nodes", type=int, help="node budget per hole (default: none, every solve exact)")
    parser.add_argument("--pure-python", action="store_true", help="time the pure-Python search, not the C core")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the .json and .md results")
    parser.add_argument("--name", help="results file stem (default: golf_solver, or golf_solver.pure_python)")
    parser.add_argument("--rules", nargs="+", choices=list(RULE_SETS), help="rule sets to solve (default: all)")
    parser.add_argument("--backend", choices=BACKENDS, default="serial", help="where the shards run")
    parser.add_argument("--address", help="Ray cluster address (default: start a local cluster)")
    parser.add_argument("--workers", type=int, help="CPUs of the local Ray cluster / shards at once (default: all)")
    parser.add_argument("--shard-size", type=int, help="deals per shard (default: all deals in one)")
    parser.add_argument("--state-dir", type=Path, help="keep each finished shard here; a rerun resumes from them")
    args = parser.parse_args(argv)
    check_shared_options(parser, args)
    check_folders(parser, ("--out", args.out))
    check_budget_option(parser, "--max-nodes", args.max_nodes, integer=True)
    rules = args.rules or list(RULE_SETS)
    size = args.shard_size or args.deals
    shards = [s for r in rules for s in shards_of(r, args.deals, args.seed, args.max_nodes, not args.pure_python, size)]
    with resuming(parser, args.state_dir, shards, KEPT_SHARD):
        data = measure(
            args.deals,
            args.seed,
            args.rounds,
            args.max_nodes,
            not args.pure_python,
            rules=rules,
            shard_size=args.shard_size,
            backend=args.backend,
            address=args.address,
            workers=args.workers,
            state_dir=args.state_dir,
        )
    stem = args.name or ("golf_solver.pure_python" if args.pure_python else "golf_solver")
    write_results(stem, data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
