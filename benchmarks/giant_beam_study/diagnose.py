"""Study (issue 35, research notes section 23): where the beam of version 1 (the greedy's evaluation, to
80% of the budget) spends a Giant deal's budget. Per deal: positions before the beam; per layer (after
each deal) the stock's place, the distinct positions reached, positions spent so far and the most cards
on the foundations among those kept; then each kept ending's cards up, the exact search's verdict within
its budget and its positions.

    PYTHONPATH=. python benchmarks/giant_beam_study/diagnose.py 16,26,57,84
"""

import json
import sys
from typing import Any

from agents.solvers import milligan as M
from patience_gym.heuristics.milligan_moves import W_BREAK


def diagnose(seed: int, width: int = M.BEAM_WIDTH, max_nodes: int = 250_000) -> dict:
    game, root = M.deal(M.ENV_IDS["giant"], seed)
    out: dict = {"seed": seed}

    def beam(self: M._Search, width: int, version: int) -> list[int] | None:
        out["before_beam"] = self.nodes
        stock = len(self.root.stock)
        layer: list[Any] = [(M.beam_value(self.root, W_BREAK), self.root, [])]
        out["layers"] = []
        while layer[0][1].pos < stock:
            after: dict = {}
            for _, state, line in layer:
                if self.spent(M.BEAMS[1][0][1]):
                    return None
                won, dealt = self.gap(state, line, W_BREAK)
                if won is not None:
                    return won
                for kept in dealt:
                    key = self.key(kept[1], False)
                    if key not in after or after[key][0] < kept[0]:
                        after[key] = kept
            layer = sorted(after.values(), key=lambda k: -k[0])[:width]
            out["layers"].append([layer[0][1].pos, len(after), self.nodes, max(k[1].total for k in layer)])
        out["endings"] = []
        for _, state, _line in layer:
            if self.spent(M.BEAMS[1][0][1]):
                break
            ending = M._Search(self.game, state, M.BEAM_END_NODES, self.deadline, self.prune)
            try:
                verdict = "lost" if ending.dfs() is None else "won"
            except M._OutOfBudget:
                verdict = "undecided"
            self.nodes += ending.nodes
            out["endings"].append([state.total, verdict, ending.nodes])
            if verdict == "won":
                break
        return None

    M._Search.beam = beam  # type: ignore[method-assign]
    out["verdict"] = M.solve(game, root, max_nodes, beam=width).verdict
    return out


if __name__ == "__main__":
    for s in map(int, sys.argv[1].split(",")):
        print(json.dumps(diagnose(s)), flush=True)
