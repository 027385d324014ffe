"""Study (issue 35, research notes section 23): Giant's solver with other beams, one deal at a time.

``--beams 100:0.95`` runs one beam whose score weighs a break in a column 100 points and which stops
at 95% of the budget (its last layer keyed up to column permutations, as in version 2);
``--beams 3:0.55,100:0.95`` is the solver's ``beam_version=2``. Prints one JSON line per deal: verdict,
positions, seconds.

    PYTHONPATH=. python benchmarks/giant_beam_study/beams.py --seeds 16,19,26 --beams 100:0.95
"""

import argparse
import json
import time

from agents.solvers import milligan as M


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", required=True, help="comma-separated deal seeds")
    parser.add_argument("--beams", required=True, help="break weight:share, comma-separated, run in order")
    parser.add_argument("--width", type=int, default=M.BEAM_WIDTH)
    parser.add_argument("--nodes", type=int, default=250_000)
    args = parser.parse_args()
    beams = [(int(w), float(s)) for w, s in (b.split(":") for b in args.beams.split(","))]

    def beam(self: M._Search, width: int, version: int) -> list[int] | None:
        if self.root.pos >= len(self.root.stock):
            return None
        for weight, share in beams:
            line = self.one_beam(width, weight, share, permuted=True)
            if line is not None:
                return line
        return None

    M._Search.beam = beam  # type: ignore[method-assign]  # (--beam-version is ignored)
    for seed in map(int, args.seeds.split(",")):
        game, state = M.deal(M.ENV_IDS["giant"], seed)
        start = time.perf_counter()
        sol = M.solve(game, state, args.nodes, beam=args.width)
        seconds = round(time.perf_counter() - start, 1)
        print(json.dumps({"seed": seed, "verdict": sol.verdict, "nodes": sol.nodes, "sec": seconds}), flush=True)


if __name__ == "__main__":
    main()
