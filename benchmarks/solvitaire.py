"""The Miss Milligan family's solver against Solvitaire (Blake & Gent), the strongest general patience
solver, on the same deals and the same wall-clock budget.

Solvitaire has no preset for the family; its rule schema (:data:`GAMES`) expresses two of our games up to
differences that only give Solvitaire more lines:

* ``pocket`` (``MissMilliganPocket-v0``): its removable foundations also let a foundation's top card go
  into the cell (the pocket), and it has no progress rule;
* ``giant_anytime`` (``Giant-v0`` with ``worry_back_anytime=True``, Aisleriot's rule): it has no progress
  rule. (Giant's book rule, worrying back only once the stock is out, has no Solvitaire spelling.)

So a deal it proves unsolvable is lost under our rules too (checked against our solver's replayed wins:
a contradiction is named as a rule mismatch), while its "solved" is not proof of a win here.

Deal ``i`` is ``reset(seed=seed + i)`` of the env. Each deal is given to both solvers with the same
wall-clock budget (``--seconds``) on one core, one after the other: ours (:mod:`agents.solvers.milligan`,
no position limit; its won lines are replayed in the env) and a Solvitaire binary you build yourself
(``--solvitaire PATH``; it is GPL software and not part of this project: in a checkout of its
repository, with Boost.Program_options installed (Debian: ``libboost-program-options-dev``),
``g++ -O3 -std=c++14 -DNDEBUG -Ilib/rapidjson -Ilib $(find src/main -name '*.cpp') -o solvitaire
-lboost_program_options -pthread`` builds it without the test framework its CMake file downloads).
Solvitaire runs as its solvability mode does (``--streamliners smart-solvability``: first a tenth of the
budget with its streamliners, then the whole budget without them when that did not solve it), so it gets
up to 1.1 times the budget. Shares carry Wilson 95% intervals.

Shards and resuming work as in :mod:`benchmarks.milligan_solver` (``--state-dir``: every kept shard
checked before any deal is solved, each deal once with a verdict of each solver; one run at a time).

Writes ``benchmarks/results/solvitaire.json`` and ``.md``.

Usage: ``python -m benchmarks.solvitaire --solvitaire PATH [--games pocket giant_anytime=20] [--deals 40]
[--seed 0] [--seconds 60] [--shard-size 5] [--backend serial|process|ray] [--workers N] [--state-dir DIR]
[--out DIR]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agents.evaluation.evaluate import format_share, wilson_ci95
from agents.evaluation.sharding import BACKENDS, KeptForm, number, one_of, run_resumable, whole
from agents.solvers import check_budget_option
from agents.training.report import machine_description
from benchmarks import RESULTS, check_folders, check_shared_options, named_counts, resuming, write_results
from benchmarks.milligan_solver import VERDICTS, solved_deals

#: Solvitaire's words for its verdicts, in ours.
SOLVITAIRE_VERDICTS = {"solved": "won", "unsolvable": "lost", "timed-out": "undecided"}


@dataclass(frozen=True)
class Variant:
    """One of our games (an env and its rule options) and its spelling in Solvitaire's rule schema."""

    env_id: str
    env_kwargs: dict[str, Any]
    game: str  #: the rules' name in a state dict
    rules: dict[str, Any] = field(repr=False)


def _rules(spaces: str, cells: int) -> dict[str, Any]:
    """8 red-black columns dealt one card each, built sequences movable whole or in part, foundations
    whose top card may come back, two packs, and 96 stock cards dealt one to each column at any time."""
    return {
        "tableau piles": {
            "count": 8,
            "build policy": "red-black",
            "spaces policy": spaces,
            "move built group": "yes",
            "move built group policy": "same-as-build",
            "face up cards": "all",
        },
        "foundations": {"present": True, "initial cards": "none", "base card": "A", "removable": True},
        "cells": {"count": cells},
        "stock": {"size": 96, "deal type": "tableau piles"},
        "two decks": True,
    }


#: Our games that Solvitaire's schema can express: the pocket version (kings, or sequences headed by
#: one, into spaces; one cell, the pocket) and Giant worrying back at any time (anything into spaces).
GAMES = {
    "pocket": Variant("patience_gym/MissMilliganPocket-v0", {}, "miss_milligan_pocket", _rules("kings", 1)),
    "giant_anytime": Variant("patience_gym/Giant-v0", {"worry_back_anytime": True}, "giant", _rules("any", 0)),
}


def solvitaire_card(code: str) -> str:
    """Our card code (``"TH"``) in Solvitaire's spelling (``"10H"``)."""
    return "10" + code[1:] if code.startswith("T") else code


def solvitaire_deal(deal: dict[str, Any], game: str) -> dict[str, Any]:
    """A starting position of ``game`` (``env.state_dict()``) as a Solvitaire deal.

    Solvitaire deals from the end of its stock list (column 1 first), so the stock is reversed.
    """
    if deal.get("game") != game:
        raise ValueError(f"a Solvitaire deal of {game} is made from a deal of {game}, got {deal.get('game')!r}")
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


def run_solvitaire(binary: str, rules: dict[str, Any], deal: dict[str, Any], seconds: float) -> tuple[str, float]:
    """Solvitaire's verdict on ``deal`` (a Solvitaire deal) under ``rules`` within ``seconds``, and the wall
    time it took."""
    with tempfile.TemporaryDirectory() as folder:
        rules_path, deal_path = Path(folder, "rules.json"), Path(folder, "deal.json")
        rules_path.write_text(json.dumps(rules))
        deal_path.write_text(json.dumps(deal))
        command = [binary, "--custom-rules", str(rules_path), "--timeout", str(int(seconds * 1000)), "--classify"]
        command += ["--streamliners", "smart-solvability", str(deal_path)]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=1.1 * seconds + 60, check=False)
        took = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"Solvitaire exited with {done.returncode}: {done.stderr.strip() or done.stdout.strip()}")
    return parse_classify(done.stdout), took


def speaks_solvitaire(binary: str) -> bool:
    """Whether ``binary --help`` describes Solvitaire's ``--custom-rules`` option (checked before any deal)."""
    try:
        done = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--custom-rules" in done.stdout + done.stderr


@dataclass(frozen=True)
class Shard:
    """Deals ``start .. start+count-1`` (seeds ``seed + start ..``) of one game (a key of :data:`GAMES`), each
    solver given ``seconds``: one task."""

    game: str
    binary: str
    seed: int
    start: int
    count: int
    seconds: float

    @property
    def seeds(self) -> range:
        return range(self.seed + self.start, self.seed + self.start + self.count)

    @property
    def filename(self) -> str:
        return f"{self.game}-seed{self.seed}-{self.start:06d}+{self.count}-s{self.seconds:g}.json"


#: What a kept shard holds (:func:`solve_shard`): one record per deal, in seed order, with its seed and both
#: solvers' verdicts (of :data:`~benchmarks.milligan_solver.VERDICTS`) and seconds.
KEPT_SHARD = KeptForm(
    deals={
        "deals": {
            "seed": whole(0),
            "ours": one_of(VERDICTS),
            "ours_seconds": number(0.0),
            "solvitaire": one_of(VERDICTS),
            "solvitaire_seconds": number(0.0),
        }
    }
)


def solve_shard(shard: Shard) -> dict[str, Any]:
    """Each deal of the shard: our solver's verdict (a won line replayed) and Solvitaire's, with their times."""
    variant = GAMES[shard.game]
    deals = []
    for seed, env, ours in solved_deals(variant.env_id, shard.seeds, None, shard.seconds, variant.env_kwargs):
        deal = solvitaire_deal(env.state_dict(), variant.game)
        theirs, took = run_solvitaire(shard.binary, variant.rules, deal, shard.seconds)
        if theirs == "lost" and ours.verdict == "won":
            raise RuntimeError(
                f"deal {seed} of {shard.game}: Solvitaire proves it unsolvable, but our solver's line wins it "
                "under the rules; the rules or the deal given to Solvitaire do not match the game"
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


def summarise(game: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Both solvers' shares of each verdict and of decided deals, with Wilson intervals and mean seconds."""
    n = len(rows)
    out: dict[str, Any] = {"game": game, "env": GAMES[game].env_id, "env_kwargs": GAMES[game].env_kwargs, "deals": n}
    for solver in ("ours", "solvitaire"):
        for verdict in (*VERDICTS, "decided"):
            count = n - out[f"{solver}_undecided"] if verdict == "decided" else sum(r[solver] == verdict for r in rows)
            out[f"{solver}_{verdict}"] = count
            out[f"{solver}_{verdict}_ci95"] = wilson_ci95(count, n)
        out[f"{solver}_seconds_mean"] = sum(r[f"{solver}_seconds"] for r in rows) / n
    out["solvitaire_won_ours_not"] = sum(r["solvitaire"] == "won" and r["ours"] != "won" for r in rows)
    return out


def to_markdown(data: dict[str, Any]) -> str:
    lines = [
        f"Seeded deals (seeds {data['seed']}..), {data['seconds']:g} s a deal for each solver on one core (Solvitaire"
        f" up to 1.1 times that, its solvability mode); Wilson 95% intervals; {data['machine']}.",
        "",
        "| game | deals | solver | won | proved lost | undecided | decided | s per deal (mean) |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for g in data["games"]:
        n = g["deals"]
        for solver, name in (("ours", "agents.solvers.milligan"), ("solvitaire", "Solvitaire")):
            cells = [format_share(g[f"{solver}_{v}"] / n, g[f"{solver}_{v}_ci95"]) for v in (*VERDICTS, "decided")]
            lines.append(f"| {g['game']} | {n} | {name} | {' | '.join(cells)} | {g[f'{solver}_seconds_mean']:.1f} |")
    lines.append("")
    for g in data["games"]:
        lines.append(
            f"- {g['game']}: {g['solvitaire_won_ours_not']} of Solvitaire's wins are deals our solver did not win "
            'within the budget (its rules give it more lines, so its "won" is not a win here).'
        )
    return "\n".join(lines) + "\n"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--solvitaire", required=True, help="path of a Solvitaire binary")
    parser.add_argument(
        "--games",
        nargs="+",
        default=list(GAMES),
        metavar="GAME[=N]",
        help=f"of {list(GAMES)}, each once; N overrides --deals",
    )
    parser.add_argument("--deals", type=int, default=40, help="deals per game")
    parser.add_argument("--seed", type=int, default=0, help="first deal seed (0 or more)")
    parser.add_argument("--seconds", type=float, default=60.0, help="wall-clock budget per deal for each solver")
    parser.add_argument("--shard-size", type=int, default=5)
    parser.add_argument("--backend", choices=BACKENDS, default="serial")
    parser.add_argument("--workers", type=int, help="processes, or CPUs of the local Ray cluster (default: all)")
    parser.add_argument("--address")
    parser.add_argument(
        "--state-dir", type=Path, help="keep finished shards here and resume from them (one run at a time)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for solvitaire.json and .md")
    return parser


def _checked(parser: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[dict[str, int], str]:
    """Every check of the command line, before any deal is solved: each game's deals, and the binary's path."""
    check_shared_options(parser, args)
    check_folders(parser, ("--out", args.out))
    games = named_counts(parser, args.games, GAMES, lambda game: args.deals, "--games", "game")
    check_budget_option(parser, "--seconds", args.seconds, integer=False, unlimited=None)
    binary = shutil.which(args.solvitaire)
    if binary is None:
        parser.error(f"--solvitaire {args.solvitaire!r}: no such executable file")
    binary = str(Path(binary).resolve())
    if not speaks_solvitaire(binary):
        parser.error(f"--solvitaire {args.solvitaire!r} is not a Solvitaire binary: its --help names no --custom-rules")
    return games, binary


def main(argv: list[str] | None = None) -> None:
    parser = _parser()
    args = parser.parse_args(argv)
    games, binary = _checked(parser, args)
    data: dict[str, Any] = {"seed": args.seed, "seconds": args.seconds, "machine": machine_description(), "games": []}
    shards = {
        game: [
            Shard(game, binary, args.seed, start, min(args.shard_size, deals - start), args.seconds)
            for start in range(0, deals, args.shard_size)
        ]
        for game, deals in games.items()
    }
    with resuming(parser, args.state_dir, [s for part in shards.values() for s in part], KEPT_SHARD):
        for game, part in shards.items():
            parts, solved = run_resumable(
                solve_shard, part, args.state_dir, KEPT_SHARD, args.backend, args.address, args.workers
            )
            rows = [d for done in parts for d in done["deals"]]
            summary = summarise(game, rows)
            summary.update(shards=len(part), shards_solved=solved, rows=rows)
            data["games"].append(summary)
    write_results("solvitaire", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
