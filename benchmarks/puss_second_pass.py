"""Where does the Puss in the Corner greedy lose: the first pass, or the second?

After the first pass nothing is face down: the packets are taken up in view,
so the second pass's whole pack is known to the player. The greedy
(``agents.greedy_puss``) chooses its take-up order by replaying the second
pass in its head, but plays the second pass itself by its first-pass rules.
This plays, on the same seeded deals:

* ``greedy``: the baseline;
* ``greedy, second pass by its replay``: greedy's first pass, then in the second
  pass each move chosen by one greedy replay of the rest of the game per legal
  move (``planner:first_pass=0``; the values the ``moves_replay_all`` encoding
  shows a policy);
* ``greedy, second pass solved``: greedy's first pass, then the solver
  (``agents.puss_solver``) from the first take-up on, with the budget below;
  it sees nothing the player does not, since nothing is hidden by then;
* for each ``--model PATH`` (with its ``--obs-encoding``): the PPO policy.

Writes ``benchmarks/results/puss_second_pass.json`` and ``.md``.

Usage: ``python -m benchmarks.puss_second_pass [--episodes 1000] [--seed 0] [--model PATH --obs-encoding ENC ...]``
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.greedy_puss import PussGreedy
from agents.puss_solver import PussSolverAgent
from agents.registry import make_agent
from agents.report import machine_description
from benchmarks import agents_table, write_results
from benchmarks.puss_redeal import parse_args, play_rows
from patience_gym.env import PatienceEnv
from patience_gym.games.puss import NUM_CORNERS, TAKE

SOLVER_NODES = 200_000
SOLVER_SECONDS = 20.0


class SecondPassBy(Agent):
    """The greedy until the first pass is out; ``second`` from the first take-up to the end."""

    def __init__(self, second: Agent, name: str) -> None:
        self.first = PussGreedy()
        self.second = second
        self.name = name
        self._switched = False

    def reset(self, seed: int | None = None) -> None:
        self.first.reset(seed)
        self.second.reset(seed)
        self._switched = False

    def act(self, env: PatienceEnv, obs: np.ndarray, mask: np.ndarray) -> int:
        self._switched = self._switched or bool(mask[TAKE : TAKE + NUM_CORNERS].any())
        return (self.second if self._switched else self.first).act(env, obs, mask)


def compared_agents(models: Sequence[tuple[str, str]]) -> list[tuple[Agent, str]]:
    """The agents compared, each with the encoding it plays on."""
    replay = make_agent("planner:first_pass=0", "puss_in_the_corner")
    replay.name = "greedy, second pass by its replay"
    solved = SecondPassBy(
        PussSolverAgent(max_nodes=SOLVER_NODES, max_seconds=SOLVER_SECONDS), "greedy, second pass solved"
    )
    chosen: list[tuple[Agent, str]] = [(PussGreedy(), "ids"), (replay, "ids"), (solved, "ids")]
    for model, encoding in models:
        from agents.ppo import PPOAgent

        ppo = PPOAgent(model)
        ppo.name = f"ppo ({Path(model).stem}, {encoding})"
        chosen.append((ppo, encoding))
    return chosen


def measure(episodes: int, seed: int, models: Sequence[tuple[str, str]] = ()) -> dict:
    rows = play_rows(compared_agents(models), list(range(seed, seed + episodes)))
    return {
        "episodes": episodes,
        "seed": seed,
        "solver_budget": {"max_nodes": SOLVER_NODES, "max_seconds": SOLVER_SECONDS},
        "models": [list(m) for m in models],
        "machine": machine_description(),
        "rows": rows,
    }


def to_markdown(data: dict) -> str:
    budget = data["solver_budget"]
    lines = [
        f"PussInTheCorner-v0, the same {data['episodes']} seeded deals "
        f"(seeds {data['seed']}..{data['seed'] + data['episodes'] - 1}); ± is the 95% CI half-width, "
        f"win-rate intervals are Wilson 95%. Solver budget from the take-up: {budget['max_nodes']:,} nodes "
        f"or {budget['max_seconds']:g} s per search; {data['machine']}.",
        "",
    ] + agents_table(data["rows"])
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    args, models = parse_args("puss_second_pass", argv)
    data = measure(args.episodes, args.seed, models)
    write_results("puss_second_pass", data, to_markdown(data), args.out)


if __name__ == "__main__":
    main()
