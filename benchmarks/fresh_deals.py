"""Shipped models against greedy on deals none of them was chosen on.

Several configs were trained per env and compared on the report deals (seeds
0..999); picking the best of them on those deals flatters it. This plays
greedy and each shipped model (``models/``) of one game on a second,
independent set of deals (seeds from 100,000 by default) and applies the same
verdict as ``benchmarks/results.py``.

Games (``--game``), one shipped model each (``models/<name>.md`` is its card):

* ``golf``: ``golf_moves_decay2`` on Golf-v0's ``runs`` encoding;
* ``milligan``: ``miss_milligan_moves_critic`` on MissMilligan-v0's ``moves`` encoding;
* ``giant``: ``giant_moves_critic_lr3e4_1m`` on Giant-v0's ``moves`` encoding;
* ``pocket``: ``miss_milligan_pocket_moves_endgame`` on MissMilliganPocket-v0's ``moves_endgame`` encoding;
* ``puss``: ``puss_moves_replay_all`` on PussInTheCorner-v0's ``moves_replay_all`` encoding.

Writes ``benchmarks/results/<game>_fresh_deals.json`` and ``.md``.

Usage: ``python -m benchmarks.fresh_deals --game golf|milligan|giant|pocket|puss [--episodes 1000] [--seed 100000]
[--models ...] [--jobs 1]``
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from agents.evaluation.evaluate import evaluate, format_share
from agents.training.report import machine_description
from benchmarks import RESULTS, write_results
from benchmarks.results import verdicts

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Game:
    """One game's shipped models and how they are played."""

    env_id: str
    obs_encoding: str
    lower_score_is_better: bool
    models: tuple[str, ...]


GAMES = {
    "golf": Game("patience_gym/Golf-v0", "runs", True, ("models/golf_moves_decay2.zip",)),
    "milligan": Game("patience_gym/MissMilligan-v0", "moves", False, ("models/miss_milligan_moves_critic.zip",)),
    "giant": Game("patience_gym/Giant-v0", "moves", False, ("models/giant_moves_critic_lr3e4_1m.zip",)),
    "pocket": Game(
        "patience_gym/MissMilliganPocket-v0", "moves_endgame", False, ("models/miss_milligan_pocket_moves_endgame.zip",)
    ),
    "puss": Game("patience_gym/PussInTheCorner-v0", "moves_replay_all", False, ("models/puss_moves_replay_all.zip",)),
}


def measure(game: Game, models: list[str], episodes: int, seed: int, jobs: int = 1) -> dict:
    specs = ["greedy", *(f"ppo:{ROOT / m}" for m in models)]
    summaries = evaluate(game.env_id, specs, episodes, seed, {"obs_encoding": game.obs_encoding}, jobs)
    greedy, *ppo = summaries
    runs = []
    for model, summary in zip(models, ppo, strict=True):
        row = {**summary.row(), "agent": "ppo"}
        runs.append(
            {
                "name": model,
                "lower_score_is_better": game.lower_score_is_better,
                "results": [greedy.row(), row],
                "scores": {"greedy": greedy.scores, "ppo": summary.scores},
            }
        )
    return {
        "env": game.env_id,
        "obs_encoding": game.obs_encoding,
        "lower_score_is_better": game.lower_score_is_better,
        "episodes": episodes,
        "seed": seed,
        "machine": machine_description(),
        "runs": runs,
    }


def to_markdown(data: dict) -> str:
    first, last = data["seed"], data["seed"] + data["episodes"] - 1
    env = data["env"].split("/")[-1]
    better = "lower" if data["lower_score_is_better"] else "higher"
    lines = [
        f"{env} (`{data['obs_encoding']}` encoding), {data['episodes']} deals from seed {first} to {last}, "
        f"the same for every agent; ± is the 95% CI half-width ({better} score is better).",
        "",
        "| agent | mean score ± 95% CI | win rate [95% CI] |",
        "|---|---:|---:|",
    ]
    greedy = data["runs"][0]["results"][0]
    lines.append(
        f"| greedy | {greedy['mean_score']:.2f} ± {greedy['score_ci95']:.2f} | "
        f"{format_share(greedy['win_rate'], greedy['win_ci95'])} |"
    )
    for run in data["runs"]:
        ppo = run["results"][1]
        lines.append(
            f"| `{run['name']}` | {ppo['mean_score']:.2f} ± {ppo['score_ci95']:.2f} | "
            f"{format_share(ppo['win_rate'], ppo['win_ci95'])} |"
        )
    return "\n".join([*lines, "", *verdicts(data["runs"])]) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument("--models", nargs="+", help="models of that game (default: its shipped models)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--jobs", type=int, default=1, help="processes playing each agent's deals (same results)")
    args = parser.parse_args(argv)
    game = GAMES[args.game]
    data = measure(game, args.models or list(game.models), args.episodes, args.seed, args.jobs)
    write_results(f"{args.game}_fresh_deals", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
