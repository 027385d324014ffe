"""The pocket version's solver against Solvitaire (Blake & Gent), the issue's anchor, on the same deals.

Solvitaire has no Miss Milligan preset; its rule schema (:data:`SOLVITAIRE_RULES`) expresses the pocket
version up to two differences, each of which only gives Solvitaire more lines: its removable foundations
also let a foundation's top card go into the cell, and it has no progress rule. So a deal it proves
unsolvable is lost under our rules too (checked against our solver's replayed wins), while its "solved"
is not proof of a win here.

Deal ``i`` is ``reset(seed=seed + i)`` of ``MissMilliganPocket-v0``. Each deal is given to both solvers
with the same wall-clock budget (``--seconds``) on one core, one after the other: ours
(:mod:`agents.solvers.milligan`, no position limit; its won lines are replayed in the env) and a
Solvitaire binary you build yourself (``--solvitaire PATH``; it is GPL software and not part of this
project). Solvitaire runs as its solvability mode does (``--streamliners smart-solvability``: first a
tenth of the budget with its streamliners, then the whole budget without them when that did not solve
it), so it gets up to 1.1 times the budget. Decided shares carry Wilson 95% intervals.

Shards and resuming work as in :mod:`benchmarks.milligan_solver` (``--state-dir``).

Writes ``benchmarks/results/solvitaire.json`` and ``.md``.

Usage: ``python -m benchmarks.solvitaire --solvitaire PATH [--deals 40] [--seed 0] [--seconds 60]
[--shard-size 5] [--backend serial|process|ray] [--workers N] [--state-dir DIR] [--out DIR]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import patience_gym  # noqa: F401 - registers the envs
from agents.evaluation.evaluate import format_share, wilson_ci95
from agents.evaluation.sharding import BACKENDS, run_resumable
from agents.solvers.milligan import ENV_IDS
from agents.training.report import machine_description
from benchmarks import RESULTS, write_results
from benchmarks.milligan_solver import solved_deals

ENV_ID = ENV_IDS["miss_milligan_pocket"]
VERDICTS = ("won", "lost", "undecided")
#: Solvitaire's words for its verdicts, in ours.
SOLVITAIRE_VERDICTS = {"solved": "won", "unsolvable": "lost", "timed-out": "undecided"}

#: The pocket version in Solvitaire's rule schema: 8 red-black columns dealt one card each, kings (or
#: sequences headed by one) into spaces, built sequences movable whole or in part, one cell (the pocket),
#: foundations whose top card may come back, two packs, and 96 stock cards dealt one to each column.
SOLVITAIRE_RULES: dict[str, Any] = {
    "tableau piles": {
        "count": 8,
        "build policy": "red-black",
        "spaces policy": "kings",
        "move built group": "yes",
        "move built group policy": "same-as-build",
        "face up cards": "all",
    },
    "foundations": {"present": True, "initial cards": "none", "base card": "A", "removable": True},
    "cells": {"count": 1},
    "stock": {"size": 96, "deal type": "tableau piles"},
    "two decks": True,
}


def solvitaire_card(code: str) -> str:
    """Our card code (``"TH"``) in Solvitaire's spelling (``"10H"``)."""
    return "10" + code[1:] if code.startswith("T") else code


def solvitaire_deal(deal: dict[str, Any]) -> dict[str, Any]:
    """A starting position of the pocket version (``env.state_dict()``) as a Solvitaire deal.

    Solvitaire deals from the end of its stock list (column 1 first), so the stock is reversed.
    """
    if deal.get("game") != "miss_milligan_pocket":
        raise ValueError(f"a Solvitaire deal is made from a pocket-version deal, got game {deal.get('game')!r}")
    if any(deal["foundations"]) or deal.get("pocket") or len(deal["stock"]) != 96:
        raise ValueError("a Solvitaire deal is made from the starting position: empty foundations, 96 stock cards")
    return {
        "tableau piles": [[solvitaire_card(c) for c in column] for column in deal["tableau"]],
        "stock": [solvitaire_card(c) for c in reversed(deal["stock"])],
    }


def parse_classify(output: str) -> str:
    """Our verdict from the last line Solvitaire prints with ``--classify`` (its last field is the verdict)."""
    lines = [line for line in output.splitlines() if line.strip()]
    word = lines[-1].rsplit(",", 1)[-1].strip() if lines else ""
    if word not in SOLVITAIRE_VERDICTS:
        raise RuntimeError(f"Solvitaire printed no verdict (expected one of {list(SOLVITAIRE_VERDICTS)}): {output!r}")
    return SOLVITAIRE_VERDICTS[word]


def run_solvitaire(binary: str, deal: dict[str, Any], seconds: float) -> tuple[str, float]:
    """Solvitaire's verdict on ``deal`` (a Solvitaire deal) within ``seconds``, and the wall time it took."""
    with tempfile.TemporaryDirectory() as folder:
        rules_path, deal_path = Path(folder, "rules.json"), Path(folder, "deal.json")
        rules_path.write_text(json.dumps(SOLVITAIRE_RULES))
        deal_path.write_text(json.dumps(deal))
        command = [binary, "--custom-rules", str(rules_path), "--timeout", str(int(seconds * 1000)), "--classify"]
        command += ["--streamliners", "smart-solvability", str(deal_path)]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=1.1 * seconds + 60, check=False)
        took = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"Solvitaire exited with {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")
    return parse_classify(done.stdout), took


@dataclass(frozen=True)
class Shard:
    """Deals ``start .. start+count-1`` (seeds ``seed + start ..``), each solver given ``seconds``: one task."""

    binary: str
    seed: int
    start: int
    count: int
    seconds: float

    @property
    def filename(self) -> str:
        return f"pocket-seed{self.seed}-{self.start:06d}+{self.count}-s{self.seconds:g}.json"


def solve_shard(shard: Shard) -> dict[str, Any]:
    """Each deal of the shard: our solver's verdict (a won line replayed) and Solvitaire's, with their times."""
    deals = []
    seeds = range(shard.seed + shard.start, shard.seed + shard.start + shard.count)
    for seed, env, ours in solved_deals(ENV_ID, seeds, None, shard.seconds):
        theirs, took = run_solvitaire(shard.binary, solvitaire_deal(env.state_dict()), shard.seconds)
        if theirs == "lost" and ours.verdict == "won":
            raise RuntimeError(
                f"deal {seed}: Solvitaire proves it unsolvable, but our solver's line wins it under the rules; "
                "the rules or the deal given to Solvitaire do not match the pocket version"
            )
        deals.append(
            {
                "seed": seed,
                "ours": ours.verdict,
                "ours_seconds": ours.seconds,
                "solvitaire": theirs,
                "solvitaire_seconds": took,
            }
        )
    return {"shard": asdict(shard), "deals": deals}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Both solvers' shares of each verdict and of decided deals, with Wilson intervals and mean seconds."""
    n = len(rows)
    out: dict[str, Any] = {"deals": n}
    for solver in ("ours", "solvitaire"):
        for verdict in VERDICTS:
            count = sum(r[solver] == verdict for r in rows)
            out[f"{solver}_{verdict}"] = count
            out[f"{solver}_{verdict}_ci95"] = wilson_ci95(count, n)
        decided = n - out[f"{solver}_undecided"]
        out[f"{solver}_decided"] = decided
        out[f"{solver}_decided_ci95"] = wilson_ci95(decided, n)
        out[f"{solver}_seconds_mean"] = sum(r[f"{solver}_seconds"] for r in rows) / n
    out["solvitaire_won_ours_not"] = sum(r["solvitaire"] == "won" and r["ours"] != "won" for r in rows)
    return out


def to_markdown(data: dict[str, Any]) -> str:
    s, n = data["summary"], data["summary"]["deals"]
    lines = [
        f"`MissMilliganPocket-v0`, {n} deals (seeds {data['seed']}..), {data['seconds']:g} s a deal for each solver"
        f" on one core (Solvitaire up to 1.1 times that, its solvability mode); Wilson 95% intervals; "
        f"{data['machine']}.",
        "",
        "| solver | won | proved lost | undecided | decided | s per deal (mean) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for solver, name in (("ours", "agents.solvers.milligan"), ("solvitaire", "Solvitaire")):
        cells = [format_share(s[f"{solver}_{v}"] / n, s[f"{solver}_{v}_ci95"]) for v in (*VERDICTS, "decided")]
        lines.append(f"| {name} | {' | '.join(cells)} | {s[f'{solver}_seconds_mean']:.1f} |")
    lines += [
        "",
        f'Solvitaire\'s rules give it more lines than ours (see the script), so its "won" is not a win here: '
        f"{s['solvitaire_won_ours_not']} of its wins are deals our solver did not win within the budget.",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--solvitaire", required=True, help="path of a Solvitaire binary")
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=60.0, help="wall-clock budget per deal for each solver")
    parser.add_argument("--shard-size", type=int, default=5)
    parser.add_argument("--backend", choices=BACKENDS, default="serial")
    parser.add_argument("--workers", type=int)
    parser.add_argument("--address")
    parser.add_argument("--state-dir", type=Path, help="keep finished shards here and resume from them")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for solvitaire.json and .md")
    args = parser.parse_args(argv)
    for name, value in [("--shard-size", args.shard_size), ("--deals", args.deals)]:
        if value < 1:
            parser.error(f"{name} must be at least 1, got {value}")
    if not args.seconds > 0:
        parser.error(f"--seconds must be positive, got {args.seconds}")
    binary = shutil.which(args.solvitaire)
    if binary is None:
        parser.error(f"--solvitaire {args.solvitaire!r}: no such executable file")
    if args.address and args.backend != "ray":
        parser.error("--address needs --backend ray")
    shards = [
        Shard(str(Path(binary).resolve()), args.seed, start, min(args.shard_size, args.deals - start), args.seconds)
        for start in range(0, args.deals, args.shard_size)
    ]
    parts, solved = run_resumable(
        solve_shard, shards, args.state_dir, "deals", args.backend, args.address, args.workers
    )
    rows = [d for part in parts for d in part["deals"]]
    data = {
        "seed": args.seed,
        "seconds": args.seconds,
        "machine": machine_description(),
        "shards": len(shards),
        "shards_solved": solved,
        "summary": summarise(rows),
        "rows": rows,
    }
    write_results("solvitaire", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
