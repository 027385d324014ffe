"""Copy the committed result tables into README.md.

Every measurement script writes ``benchmarks/results/<name>.md``; this puts
each table between the README's ``<!-- SECTION:start -->`` and
``<!-- SECTION:end -->`` markers, so every figure in the README is one a
committed script produced.

Usage: ``python -m benchmarks.readme``
"""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import RESULTS

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

#: README section -> the results file (and the script that writes it).
SECTIONS = {
    "baselines": "baselines.md",  # benchmarks/baselines.py
    "agents": "planners.md",  # benchmarks/planners.py
    "golf-solver": "golf_solver.md",  # benchmarks/golf_solver.py
    "puss-solver": "puss_solver.md",  # benchmarks/puss_solver.py
    "results": "ppo.md",  # benchmarks/results.py, from the run reports in benchmarks/runs/
    "golf-fresh-deals": "golf_fresh_deals.md",  # benchmarks/fresh_deals.py --game golf
    "giant-fresh-deals": "giant_fresh_deals.md",  # benchmarks/fresh_deals.py --game giant
    "pocket-fresh-deals": "pocket_fresh_deals.md",  # benchmarks/fresh_deals.py --game pocket
    "pocket-endgame-fresh-deals": "pocket_endgame_fresh_deals.md",  # fresh_deals.py --game pocket_endgame
    "puss-fresh-deals": "puss_fresh_deals.md",  # benchmarks/fresh_deals.py --game puss
    "puss-second-pass": "puss_second_pass.md",  # benchmarks/puss_second_pass.py
    "pocket-endgame": "pocket_endgame.md",  # benchmarks/milligan_endgame.py
    "miss-milligan-endgame": "miss_milligan_endgame.md",  # benchmarks/milligan_endgame.py --env .../MissMilligan-v0
    "giant-endgame": "giant_endgame.md",  # benchmarks/milligan_endgame.py --env patience_gym/Giant-v0
    "puss-redeal": "puss_redeal.md",  # benchmarks/puss_redeal.py
    "imitation": "imitation.md",  # benchmarks/imitation.py
    "train-speed": "train_speed.md",  # benchmarks/train_speed.py
    "speed": "env_speed.md",  # benchmarks/env_speed.py
}


def update_readme(name: str, table: str, readme: Path = README) -> None:
    """Replace the text between the README's ``name`` markers with ``table``."""
    text = readme.read_text()
    pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(<!-- {name}:end -->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"{readme.name} has no <!-- {name}:start --> ... <!-- {name}:end --> markers")
    readme.write_text(pattern.sub(lambda m: m.group(1) + table + m.group(2), text))


def main() -> None:
    for name, filename in SECTIONS.items():
        path = RESULTS / filename
        if not path.is_file():
            raise SystemExit(f"{path} is missing: run the script that writes it first")
        update_readme(name, path.read_text())
        print(f"README section {name!r} <- {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
