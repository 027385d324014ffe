"""Train a MaskablePPO agent on a patience_gym env, then compare it with the baselines; or sweep a config's
training seeds (and config keys) on Ray Tune with ``--seeds N``.

    python train.py --help

The experiment (config, run directory, resume, report) is :mod:`agents.training.experiment`; the sweep is
:mod:`agents.training.sweep`.
"""

import sys

from agents.training.cli import main

if __name__ == "__main__":
    sys.exit(main())
