"""Where does the Miss Milligan family's greedy lose: while the stock lasts, or after?

Once the stock is out nothing is hidden (every card is face up in the
columns, on the foundations or in the reserve), so the rest of the game is a
puzzle with full information. The greedy (``agents.greedy_milligan``) plays it
with its position score and a three-move search, and resigns when that search
finds nothing. This plays, on the same seeded deals:

* ``greedy``: the baseline;
* ``greedy, ending by rollouts`` (``greedy:endgame=1``,
  :class:`agents.greedy_milligan.MilliganGreedy`): the greedy until the stock
  is out, then at every move with a choice each legal move followed by a
  full greedy game to the end, the move whose game ends with the most cards
  on the foundations kept (ties: the greedy's own move). It reads nothing
  hidden. The outcomes are remembered at progress events
  (:mod:`patience_gym.heuristics.milligan_endgame`; the same values as replaying
  each game afresh, which cost about 7 s a pocket game).

Writes ``benchmarks/results/<game>_endgame.json`` and ``.md``.

Usage: ``python -m benchmarks.milligan_endgame [--env patience_gym/MissMilliganPocket-v0] [--episodes 100] [--seed 0]``
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.evaluate import mean_ci95, play_episodes
from agents.greedy_milligan import MilliganGreedy
from agents.report import machine_description
from benchmarks import RESULTS, agents_table, write_results


def measure(env_id: str, episodes: int, seed: int) -> dict:
    seeds = list(range(seed, seed + episodes))
    results = {}
    baseline, ending = MilliganGreedy(), MilliganGreedy(endgame=1)
    for agent in (baseline, ending):
        summary = play_episodes(env_id, agent, seeds)
        results[agent.name] = summary
        print(f"{agent.name:28s} {summary.mean_score:6.2f}  win {100 * summary.win_rate:5.1f}%", flush=True)
    greedy, rollouts = results[baseline.name], results[ending.name]
    diff, ci = mean_ci95([r - g for r, g in zip(rollouts.scores, greedy.scores, strict=True)])
    return {
        "env": env_id,
        "episodes": episodes,
        "seed": seed,
        "machine": machine_description(),
        "rows": [s.row() for s in results.values()],
        "paired_difference": {"mean": diff, "ci95": ci},
    }


def to_markdown(data: dict) -> str:
    name = data["env"].split("/")[-1]
    lines = [
        f"{name}, the same {data['episodes']} seeded deals "
        f"(seeds {data['seed']}..{data['seed'] + data['episodes'] - 1}); ± is the 95% CI half-width, "
        f"win-rate intervals are Wilson 95%; {data['machine']}.",
        "",
    ] + agents_table(data["rows"])
    diff = data["paired_difference"]
    lines += ["", f"Rollouts minus greedy, paired by deal: {diff['mean']:+.2f} ± {diff['ci95']:.2f} cards."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="patience_gym/MissMilliganPocket-v0")
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    data = measure(args.env, args.episodes, args.seed)
    stem = {"MissMilliganPocket-v0": "pocket", "MissMilligan-v0": "miss_milligan", "Giant-v0": "giant"}
    write_results(f"{stem[args.env.split('/')[-1]]}_endgame", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
