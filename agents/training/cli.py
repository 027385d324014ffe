"""``train.py``'s command line: one training run (:mod:`agents.training.experiment`), a sweep of seeds and
config keys on Ray Tune (:mod:`agents.training.sweep`) when a sweep flag is given (``--seeds``,
``--seed-list``, ``--search``, ``--resume-sweep``), or expert iteration (:mod:`agents.training.expert_iteration`)
for a config that asks for it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.training import experiment, expert_iteration, sweep
from agents.training.arguments import flag_value


def main(argv: Sequence[str] | None = None) -> int:
    """Train one run, sweep, or train by expert iteration (a config whose env says ``algorithm:
    expert_iteration``, or a resumed run of one); the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a == flag or a.startswith(f"{flag}=") for a in args for flag in sweep.SWEEP_FLAGS):
        return sweep.main(args)
    given = flag_value(args, "--config") or (flag_value(args, "--resume") or "") + "/config.yaml"
    if given and expert_iteration.is_expert_iteration(Path(given)):
        return expert_iteration.main(args)
    return experiment.main(args)
