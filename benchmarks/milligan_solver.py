"""Perfect knowledge in the Miss Milligan family: the share of deals won, proved lost and undecided.

Deal ``i`` of a game is ``reset(seed=seed + i)`` of its env, the deals the evaluation tool plays. The
solver (:mod:`agents.solvers.milligan`) searches each deal with its stock known, within a per-deal
budget of positions (``--max-nodes``: the same verdicts on any machine) and, if given, seconds;
``--beam W`` has it run its beam over the deals first (W positions kept; it only finds wins). Every
winning line is replayed in a fresh env under the rules (the progress rule included) to a won game, and
with ``--records DIR`` kept as a game record (``patience_gym.records``). The greedy baseline plays the
same deals: a deal it wins can never be proved lost (checked). Shares carry Wilson 95% intervals.

The deals are cut into shards (``--shard-size``) run on a backend (``--backend process`` or ``ray``,
``--workers N``); with ``--state-dir`` each finished shard is kept there as one JSON file (written
atomically) and a rerun of the same command reads them back instead of solving them again, so an
interrupted run loses no finished shard and never counts a deal twice. Every kept shard is checked
before any deal is solved (each of its deals once, in seed order, with one of the solver's verdicts) and
a bad one is named, never counted; one run at a time writes a state dir. The figures do not depend on
the backend, the shard size or the resuming (given a node budget only).

Writes ``benchmarks/results/milligan_solver.json`` and ``.md``. The games not measured this time keep
their rows from the results already in ``--out`` when those were taken with the same seed and budget
(positions, seconds, beam and the beam's version, ``--beam-version``, which kept shards also carry in
their names from version 2 on), so the games can be measured one at a time; rows taken otherwise
are dropped, and the run says so before it starts.

The defaults are the published table's: 1,000 deals a game, 250,000 positions a deal (about 60 s on one
core of the machine the results name) and a beam 30 wide (``--beam 0`` runs the search without it).

Usage: ``python -m benchmarks.milligan_solver [--games miss_milligan giant=300 miss_milligan_pocket] [--deals 1000]
[--seed 0] [--max-nodes 250000|none] [--max-seconds S] [--beam 30] [--shard-size 10]
[--backend serial|process|ray] [--workers N] [--address ADDR] [--state-dir DIR] [--records DIR] [--out DIR]``
(``--max-nodes none``: no position limit, with ``--max-seconds``; a zero budget is refused; each game once)
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym

import patience_gym  # noqa: F401 - registers the envs
from agents.baselines.greedy_milligan import greedy_line
from agents.evaluation.evaluate import format_share, wilson_ci95
from agents.evaluation.sharding import (
    BACKENDS,
    FLAG,
    KeptForm,
    list_of,
    number,
    one_of,
    run_resumable,
    whole,
)
from agents.solvers import check_budget_option
from agents.solvers.milligan import BEAM_VERSION, BEAM_WIDTH, BEAMS, ENV_IDS, MilliganSolution, solution_record, solve
from agents.training.report import machine_description
from benchmarks import (
    RESULTS,
    check_folders,
    check_shared_options,
    named_counts,
    resuming,
    whole_or_none,
    write_results,
)
from patience_gym.records import save_record

VERDICTS = ("won", "lost", "undecided")
#: What must match for a kept row to join a new table.
SETTINGS = ("seed", "max_nodes", "max_seconds", "beam", "beam_version")


def beam_version_of(beam: int, version: int | None) -> int:
    """The beam version a shard or table records: ``version`` with a beam, 0 without one (the version
    means nothing then); ``None`` (a table from before versions were written) is version 1."""
    if not beam:
        return 0
    return 1 if version is None else version


@dataclass(frozen=True)
class Shard:
    """Deals ``start .. start+count-1`` (seeds ``seed + start ..``) of one game under one budget: one task."""

    game: str
    seed: int
    start: int
    count: int
    max_nodes: int | None
    max_seconds: float | None
    beam: int = 0
    beam_version: int = BEAM_VERSION

    def __post_init__(self) -> None:
        # no beam, no version: a run without one resumes whatever the default version
        object.__setattr__(self, "beam_version", beam_version_of(self.beam, self.beam_version))

    @property
    def seeds(self) -> range:
        return range(self.seed + self.start, self.seed + self.start + self.count)

    @property
    def filename(self) -> str:
        budget = f"nodes{self.max_nodes}" + (f"-s{self.max_seconds:g}" if self.max_seconds else "")
        if self.beam:
            budget += f"-beam{self.beam}" + (f"v{self.beam_version}" if self.beam_version > 1 else "")
        return f"{self.game}-seed{self.seed}-{self.start:06d}+{self.count}-{budget}.json"


def greedy_result(game: Any, state: Any) -> tuple[int, bool]:
    """The greedy baseline's cards on the foundations and win on a deal (played on a copy)."""
    _, end = greedy_line(game, state)
    return int(game.score(end)), game.is_won(end)


def replay_won(env_id: str, seed: int, moves: list[int], env_kwargs: Mapping[str, Any] | None = None) -> None:
    """Play ``moves`` from the deal of ``seed`` (rule options ``env_kwargs``); RuntimeError unless they are
    legal and win the game."""
    try:
        won = solution_record(env_id, moves, seed=seed, env_kwargs=env_kwargs).won
    except ValueError as err:
        raise RuntimeError(f"deal {seed}: the solver's line breaks the rules: {err}") from err
    if not won:
        raise RuntimeError(f"deal {seed}: the solver's line of {len(moves)} moves does not win")


def solved_deals(
    env_id: str,
    seeds: Iterable[int],
    max_nodes: int | None,
    max_seconds: float | None,
    env_kwargs: Mapping[str, Any] | None = None,
    beam: int = 0,
    beam_version: int = BEAM_VERSION,
) -> Iterator[tuple[int, Any, MilliganSolution]]:
    """Each deal's seed, its env reset to it (``unwrapped``) and the solver's verdict (its beam ``beam``
    wide, of version ``beam_version``), a won line replayed."""
    env = gym.make(env_id, **dict(env_kwargs or {}))
    for seed in seeds:
        env.reset(seed=seed)
        unwrapped: Any = env.unwrapped
        found = solve(unwrapped.game, unwrapped.state, max_nodes, max_seconds, beam=beam, beam_version=beam_version)
        if found.verdict == "won":
            replay_won(env_id, seed, found.moves, env_kwargs)
        yield seed, env.unwrapped, found


#: What a kept shard holds (:func:`solve_shard`): one record per deal, in seed order, with its seed and one
#: of the solver's :data:`VERDICTS`.
KEPT_SHARD = KeptForm(
    deals={
        "deals": {
            "seed": whole(0),
            "verdict": one_of(VERDICTS),
            "moves": list_of(whole(0)),
            "nodes": whole(0),
            "seconds": number(0.0),
            "greedy_cards": whole(0),
            "greedy_won": FLAG,
        }
    }
)


def solve_shard(shard: Shard) -> dict[str, Any]:
    """Each deal of the shard: the solver's verdict (a won line replayed), nodes, seconds, and the greedy's game."""
    deals = []
    for seed, env, found in solved_deals(
        ENV_IDS[shard.game],
        shard.seeds,
        shard.max_nodes,
        shard.max_seconds,
        beam=shard.beam,
        beam_version=shard.beam_version or BEAM_VERSION,
    ):
        game, state = env.game, env.state
        greedy_cards, greedy_won = greedy_result(game, state)
        if greedy_won and found.verdict == "lost":
            raise RuntimeError(f"deal {seed} of {shard.game}: the greedy wins it, the solver claims it lost")
        deals.append(
            {
                "seed": seed,
                "verdict": found.verdict,
                "moves": found.moves,
                "nodes": found.nodes,
                "seconds": found.seconds,
                "greedy_cards": greedy_cards,
                "greedy_won": greedy_won,
            }
        )
    return {"shard": asdict(shard), "deals": deals}


def summarise(game: str, deals: list[dict[str, Any]]) -> dict[str, Any]:
    """Shares with Wilson intervals, the greedy's wins on the same deals, and the solver's time per deal."""
    n = len(deals)
    out: dict[str, Any] = {"game": game, "env": ENV_IDS[game], "deals": n}
    for verdict in VERDICTS:
        count = sum(d["verdict"] == verdict for d in deals)
        out[verdict] = count
        out[f"{verdict}_share"] = count / n
        out[f"{verdict}_ci95"] = wilson_ci95(count, n)
    greedy = sum(d["greedy_won"] for d in deals)
    seconds = [d["seconds"] for d in deals]
    nodes = sum(d["nodes"] for d in deals)
    out.update(
        greedy_won=greedy,
        greedy_won_share=greedy / n,
        greedy_won_ci95=wilson_ci95(greedy, n),
        solver_won_greedy_lost=sum(d["verdict"] == "won" and not d["greedy_won"] for d in deals),
        greedy_won_solver_undecided=sum(d["greedy_won"] and d["verdict"] == "undecided" for d in deals),
        seconds_mean=statistics.fmean(seconds),
        seconds_median=statistics.median(seconds),
        seconds_max=max(seconds),
        nodes_per_second=nodes / max(sum(seconds), 1e-9),
        mean_line_moves=statistics.fmean([len(d["moves"]) for d in deals if d["verdict"] == "won"] or [0]),
    )
    return out


def measure(
    game: str,
    deals: int,
    seed: int,
    max_nodes: int | None,
    max_seconds: float | None,
    *,
    shard_size: int = 10,
    backend: str = "serial",
    address: str | None = None,
    workers: int | None = None,
    state_dir: Path | None = None,
    beam: int = 0,
    beam_version: int = BEAM_VERSION,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The summary of ``deals`` deals of ``game`` and the per-deal rows (in deal order); ``beam``: the
    solver's beam width (0: none), ``beam_version`` its version."""
    shards = shards_of(game, deals, seed, max_nodes, max_seconds, shard_size, beam, beam_version)
    parts, solved = run_resumable(solve_shard, shards, state_dir, KEPT_SHARD, backend, address, workers)
    rows = [d for part in parts for d in part["deals"]]
    summary = summarise(game, rows)
    summary["shards"], summary["shards_solved"] = len(shards), solved
    return summary, rows


def shards_of(
    game: str,
    deals: int,
    seed: int,
    max_nodes: int | None,
    max_seconds: float | None,
    shard_size: int,
    beam: int = 0,
    beam_version: int = BEAM_VERSION,
) -> list[Shard]:
    """The shards of ``shard_size`` deals (the last one shorter) that ``deals`` deals of ``game`` are cut into."""
    return [
        Shard(game, seed, start, min(shard_size, deals - start), max_nodes, max_seconds, beam, beam_version)
        for start in range(0, deals, shard_size)
    ]


def to_markdown(data: dict[str, Any]) -> str:
    budget = f"{data['max_nodes']:,} positions" if data["max_nodes"] else "no position limit"
    if data["max_seconds"]:
        budget += f" or {data['max_seconds']:g} s"
    version = beam_version_of(data.get("beam", 0), data.get("beam_version"))
    beam = f" (a beam {data['beam']} wide over the deals first, version {version})" if data.get("beam") else ""
    lines = [
        f"The perfect-knowledge solver (it sees the stock: an upper bound, not a fair agent) on seeded deals "
        f"(seeds {data['seed']}..), {budget} per deal{beam}, one core; won lines replayed in the env; "
        f"Wilson 95% intervals; {data['machine']}.",
        "",
        "| env | deals | solver won | proved lost | undecided | greedy won (same deals) | s per deal: mean, median, max"
        " |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in data["games"]:
        cells = [format_share(r[f"{v}_share"], r[f"{v}_ci95"]) for v in VERDICTS]
        greedy = format_share(r["greedy_won_share"], r["greedy_won_ci95"])
        times = f"{r['seconds_mean']:.2f}, {r['seconds_median']:.2f}, {r['seconds_max']:.1f}"
        env = r["env"].split("/")[-1]
        lines.append(f"| {env} | {r['deals']} | {' | '.join(cells)} | {greedy} | {times} |")
    lines.append("")
    for r in data["games"]:
        lines.append(
            f"- {r['env'].split('/')[-1]}: the solver won {r['solver_won_greedy_lost']} deals the greedy lost; "
            f"{r['greedy_won_solver_undecided']} deals the greedy won were undecided within the budget; "
            f"{r['nodes_per_second']:,.0f} positions per second; winning lines of {r['mean_line_moves']:.0f} moves."
        )
    return "\n".join(lines) + "\n"


def kept_rows(path: Path, settings: Mapping[str, Any], measured: Iterable[str]) -> list[dict[str, Any]]:
    """The rows of ``path`` (earlier results) for the games not ``measured`` now, when taken with the same
    :data:`SETTINGS`; none otherwise (said on stdout). A file that is not such results is refused by name."""
    if not path.exists():
        return []
    try:
        old = json.loads(path.read_text())
        rows = [r for r in old["games"] if r["env"] not in {ENV_IDS[g] for g in measured}]
        # a table from before these were written
        defaults = {"beam": 0, "beam_version": beam_version_of(old.get("beam", 0), None)}
        same = all(old.get(k, defaults.get(k)) == settings[k] for k in SETTINGS)
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        message = f"{path} is not a results file of this benchmark ({error!r}); move it or choose --out"
        raise SystemExit(message) from error
    if rows and not same:
        old_settings = ", ".join(f"{k} {old.get(k, defaults.get(k))}" for k in SETTINGS)
        print(f"{path}: its rows for {[r['env'] for r in rows]} were taken with {old_settings}; not kept")
        return []
    return rows


def write_records(rows: list[dict[str, Any]], game: str, folder: Path) -> int:
    """Each winning line as a game record ``<Env>-solver-seed<seed>.json`` in ``folder``; how many."""
    folder.mkdir(parents=True, exist_ok=True)
    env_id = ENV_IDS[game]
    written = 0
    for row in rows:
        if row["verdict"] == "won":
            record = solution_record(env_id, row["moves"], seed=row["seed"])
            save_record(record, folder / f"{env_id.split('/')[-1]}-solver-seed{row['seed']}.json")
            written += 1
    return written


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--games",
        nargs="+",
        default=list(ENV_IDS),
        metavar="GAME[=N]",
        help=f"of {list(ENV_IDS)}, each once; N deals overrides --deals",
    )
    parser.add_argument("--deals", type=int, default=1000, help="deals per game")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed (0 or more)")
    parser.add_argument(
        "--max-nodes",
        type=whole_or_none,
        default=250_000,
        metavar="N|none",
        help="positions per deal (none: no limit, with --max-seconds)",
    )
    parser.add_argument("--max-seconds", type=float, help="seconds per deal (the verdicts then depend on the machine)")
    parser.add_argument("--beam", type=int, default=BEAM_WIDTH, help="the solver's beam width over the deals (0: none)")
    parser.add_argument(
        "--beam-version", type=int, choices=sorted(BEAMS), default=BEAM_VERSION, help="the solver's beams"
    )
    parser.add_argument("--shard-size", type=int, default=10)
    parser.add_argument("--backend", choices=BACKENDS, default="serial")
    parser.add_argument("--workers", type=int, help="processes, or CPUs of the local Ray cluster (default: all)")
    parser.add_argument("--address")
    parser.add_argument(
        "--state-dir", type=Path, help="keep finished shards here and resume from them (one run at a time)"
    )
    parser.add_argument("--records", type=Path, help="write each winning line as a game record here")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for milligan_solver.json and .md")
    return parser


def _checked(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[tuple[str, int]]:
    """Every check of the command line, before any deal is solved: each game and its deals."""
    check_shared_options(parser, args)
    check_folders(parser, ("--out", args.out), ("--records", args.records))
    if args.beam < 0:
        parser.error(f"--beam must be 0 (no beam) or a width, got {args.beam}")
    games = list(named_counts(parser, args.games, ENV_IDS, lambda game: args.deals, "--games", "game").items())
    check_budget_option(parser, "--max-nodes", args.max_nodes, integer=True, unlimited="none: no limit")
    check_budget_option(parser, "--max-seconds", args.max_seconds, integer=False)
    if args.max_nodes is None and args.max_seconds is None:
        parser.error("give a budget: --max-nodes none needs --max-seconds S")
    return games


def main(argv: list[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    games = _checked(parser, args)
    data: dict[str, Any] = {
        "seed": args.seed,
        "max_nodes": args.max_nodes,
        "max_seconds": args.max_seconds,
        "beam": args.beam,
        "beam_version": beam_version_of(args.beam, args.beam_version),
        "machine": machine_description(),
        "games": [],
    }
    kept = kept_rows(args.out / "milligan_solver.json", data, [game for game, _ in games])
    budget = (args.max_nodes, args.max_seconds, args.shard_size, args.beam, args.beam_version)
    shards = [s for game, deals in games for s in shards_of(game, deals, args.seed, *budget)]
    with resuming(parser, args.state_dir, shards, KEPT_SHARD):
        for game, deals in games:
            summary, rows = measure(
                game,
                deals,
                args.seed,
                args.max_nodes,
                args.max_seconds,
                shard_size=args.shard_size,
                backend=args.backend,
                address=args.address,
                workers=args.workers,
                state_dir=args.state_dir,
                beam=args.beam,
                beam_version=args.beam_version,
            )
            summary["rows"] = [{k: v for k, v in r.items() if k != "moves"} for r in rows]
            data["games"].append(summary)
            if args.records:
                print(f"{game}: {write_records(rows, game, args.records)} winning lines kept in {args.records}")
    order = list(ENV_IDS.values())
    data["games"] = sorted([*data["games"], *kept], key=lambda r: order.index(r["env"]))
    write_results("milligan_solver", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
