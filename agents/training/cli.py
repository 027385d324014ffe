"""``train.py``'s command line: one training run (:mod:`agents.training.experiment`), a sweep of seeds and
config keys on Ray Tune (:mod:`agents.training.sweep`) when a sweep flag is given (``--seeds``,
``--seed-list``, ``--search``, ``--resume-sweep``), or expert iteration (:mod:`agents.training.expert_iteration`)
for a config that asks for it."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from agents.training import experiment, expert_iteration, sweep


def main(argv: Sequence[str] | None = None) -> int:
    """Train one run, sweep, or train by expert iteration (a config whose env says ``algorithm:
    expert_iteration``, or a resumed run of one); the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if any(a == flag or a.startswith(f"{flag}=") for a in args for flag in sweep.SWEEP_FLAGS):
        return sweep.main(args)
    given = _value(args, "--config") or (_value(args, "--resume") or "") + "/config.yaml"
    if given and expert_iteration.is_expert_iteration(Path(given)):
        return expert_iteration.main(args)
    return experiment.main(args)


def _value(args: list[str], flag: str) -> str | None:
    """The value given to ``flag`` (``--flag V`` or ``--flag=V``), or None."""
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(f"{flag}="):
            return arg.split("=", 1)[1]
    return None
