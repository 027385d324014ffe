"""Shipped models against greedy on deals none of them was chosen on.

Several configs were trained per env and compared on the report deals (seeds
0..999); picking the best of them on those deals flatters it. This plays
greedy and each shipped model (``models/``) of one game on a second,
independent set of deals (seeds from 100,000 by default) and applies the same
verdict as ``benchmarks/results.py``.

Games (``--game``), their shipped models (``models/<name>.md`` is each one's card), each read with
its own observation encoding (greedy reads the position itself):

* ``golf``: ``golf_rules`` on Golf-v0's ``rules_moves`` encoding (rules only);
* ``golf_round``: the same Golf model on nine-hole rounds (GolfRound-v0), played hole by hole;
* ``milligan``: ``miss_milligan_moves_critic`` on MissMilligan-v0's ``moves`` encoding;
* ``giant``: ``giant_rules`` on Giant-v0's ``rules_moves`` encoding (rules only), and
  ``giant_moves_critic_lr3e4_1m`` on its ``moves`` encoding;
* ``pocket``: ``miss_milligan_pocket_moves_endgame`` on MissMilliganPocket-v0's ``moves_endgame`` encoding;
* ``puss``: ``puss_moves_replay_all`` on PussInTheCorner-v0's ``moves_replay_all`` encoding.

Writes ``benchmarks/results/<game>_fresh_deals.json`` and ``.md``.

Usage: ``python -m benchmarks.fresh_deals --game golf|golf_round|milligan|giant|pocket|puss [--episodes 1000]
[--seed 100000] [--models ...] [--jobs 1]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.evaluation.evaluate import evaluate, format_share
from agents.training.report import machine_description
from benchmarks import RESULTS, write_results
from benchmarks.published import GAMES, Game
from benchmarks.results import verdicts

ROOT = Path(__file__).resolve().parent.parent


def measure(game: Game, models: list[tuple[str, str]], episodes: int, seed: int, jobs: int = 1) -> dict:
    """Greedy and each (model, encoding) on the same deals (greedy reads the position, not the encoding)."""
    (greedy,) = evaluate(game.env_id, ["greedy"], episodes, seed, None, jobs)
    runs = []
    for model, encoding in models:
        (summary,) = evaluate(game.env_id, [f"ppo:{ROOT / model}"], episodes, seed, {"obs_encoding": encoding}, jobs)
        row = {**summary.row(), "agent": "ppo"}
        runs.append(
            {
                "name": model,
                "obs_encoding": encoding,
                "lower_score_is_better": game.lower_score_is_better,
                "results": [greedy.row(), row],
                "scores": {"greedy": greedy.scores, "ppo": summary.scores},
            }
        )
    return {
        "env": game.env_id,
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
        f"{env}, {data['episodes']} deals from seed {first} to {last}, "
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
            f"| `{run['name']}` (`{run['obs_encoding']}`) | {ppo['mean_score']:.2f} ± {ppo['score_ci95']:.2f} | "
            f"{format_share(ppo['win_rate'], ppo['win_ci95'])} |"
        )
    return "\n".join([*lines, "", *verdicts(data["runs"])]) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(GAMES), required=True)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument(
        "--models", nargs="+", metavar="PATH:ENCODING", help="models of that game (default: its shipped models)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--jobs", type=int, default=1, help="processes playing each agent's deals (same results)")
    args = parser.parse_args(argv)
    game = GAMES[args.game]
    models = list(game.models)
    if args.models:
        if not all(":" in m for m in args.models):
            parser.error("--models takes PATH:ENCODING, e.g. models/golf_rules.zip:rules_moves")
        models = [tuple(m.rsplit(":", 1)) for m in args.models]  # type: ignore[misc]
    data = measure(game, models, args.episodes, args.seed, args.jobs)
    write_results(f"{args.game}_fresh_deals", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
