"""How much of Puss in the Corner is the redeal order? Greedy and PPO with and without the greedy's redeal.

The greedy baseline (``agents.greedy_puss``) chooses the order in which the
packets are taken up for the second pass by dealing that pass through in its
head for every order (the packets are in view, so the new pack is known).
This measures what that search is worth, on the same seeded deals:

* ``greedy``: the baseline;
* ``greedy, first packet first``: the same play, packets taken up A, B, C, D
  (of those left), no replay;
* for each ``--model PATH`` (a Puss in the Corner MaskablePPO model, such as
  ``models/puss_moves.zip`` or the one ``train.py --config
  configs/puss_in_the_corner.yaml`` writes): ``ppo`` as it is, and ``ppo +
  greedy redeal``, the model's play except from the end of the first pass to
  the start of the second, where the greedy chooses (the take-up order, and
  any packet tops it plays first). Each model is played on the encoding it
  was trained on (``--obs-encoding``, one per model, in the same order).

Writes ``benchmarks/results/puss_redeal.json`` and ``puss_redeal.md``.

Usage: ``python -m benchmarks.puss_redeal [--episodes 1000] [--seed 0]
[--model PATH --obs-encoding ENCODING ...]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.evaluate import Summary, format_share, play_episodes
from agents.greedy_puss import PussGreedy, choose_move
from agents.report import machine_description
from benchmarks import RESULTS, write_results
from patience_gym.env import PatienceEnv
from patience_gym.games.puss import NUM_CORNERS, TAKE, PussInTheCorner

ENV_ID = "patience_gym/PussInTheCorner-v0"


class GreedyRedeal(Agent):
    """Another agent's play, except that the greedy chooses whenever a packet may be taken up."""

    def __init__(self, inner: Agent, name: str) -> None:
        self.inner = inner
        self.name = name

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        game, state = env.game, env.state
        assert isinstance(game, PussInTheCorner)
        if mask[TAKE : TAKE + NUM_CORNERS].any():  # the first pass is out, or the take-up has begun
            return choose_move(game, state)
        return self.inner.act(env, obs, mask)


def compared_agents(models: Sequence[tuple[str, str]]) -> list[tuple[Agent, str]]:
    """The agents compared, each with the encoding it plays on (a PPO pair per ``(model, encoding)``)."""
    plain = PussGreedy(plan_redeal=False)
    plain.name = "greedy, first packet first"
    chosen: list[tuple[Agent, str]] = [(PussGreedy(), "ids"), (plain, "ids")]
    for model, encoding in models:
        from agents.ppo import PPOAgent

        label = f"ppo ({Path(model).stem}, {encoding})" if len(models) > 1 else "ppo"
        ppo = PPOAgent(model)
        ppo.name = label
        chosen += [(ppo, encoding), (GreedyRedeal(PPOAgent(model), f"{label} + greedy redeal"), encoding)]
    return chosen


def play_rows(agents: Sequence[tuple[Agent, str]], seeds: list[int]) -> list[dict]:
    """Each agent on the same deals, on its own encoding: one summary row each (printed as it comes)."""
    rows = []
    for agent, encoding in agents:
        summary: Summary = play_episodes(ENV_ID, agent, seeds, {"obs_encoding": encoding})
        rows.append(summary.row())
        print(f"{agent.name:40s} {summary.mean_score:6.2f}  win {100 * summary.win_rate:5.1f}%", flush=True)
    return rows


def measure(episodes: int, seed: int, models: Sequence[tuple[str, str]] = ()) -> dict:
    rows = play_rows(compared_agents(models), list(range(seed, seed + episodes)))
    return {
        "episodes": episodes,
        "seed": seed,
        "models": [list(m) for m in models],
        "machine": machine_description(),
        "rows": rows,
    }


def to_markdown(data: dict) -> str:
    lines = [
        f"PussInTheCorner-v0, the same {data['episodes']} seeded deals "
        f"(seeds {data['seed']}..{data['seed'] + data['episodes'] - 1}); ± is the 95% CI half-width, "
        "win-rate intervals are Wilson 95%."
        + "".join(f" PPO model: `{m}` ({encoding} encoding)." for m, encoding in data["models"]),
        "",
        "| agent | mean cards on foundations | win rate [95% CI] |",
        "|---|---:|---:|",
    ]
    for r in data["rows"]:
        lines.append(
            f"| {r['agent']} | {r['mean_score']:.2f} ± {r['score_ci95']:.2f} | "
            f"{format_share(r['win_rate'], r['win_ci95'])} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    args, models = parse_args("puss_redeal", argv)
    data = measure(args.episodes, args.seed, models)
    write_results("puss_redeal", data, to_markdown(data), args.out)


def parse_args(name: str, argv: list[str] | None) -> tuple[argparse.Namespace, list[tuple[str, str]]]:
    """The Puss comparison scripts' arguments: deals, and ``(model, encoding)`` pairs (one encoding per model)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--model", action="append", default=[], help="a Puss in the Corner MaskablePPO model (.zip); repeatable"
    )
    parser.add_argument(
        "--obs-encoding", action="append", default=[], help="the encoding each model was trained on, in order"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"folder for {name}.{{json,md}}")
    args = parser.parse_args(argv)
    if len(args.obs_encoding) != len(args.model):
        parser.error(f"give one --obs-encoding per --model, got {len(args.model)} and {len(args.obs_encoding)}")
    return args, list(zip(args.model, args.obs_encoding, strict=True))


if __name__ == "__main__":
    main()
