"""Train a MaskablePPO agent on a patience_gym env, then compare it with the baselines.

    python train.py --help

The experiment (config, run directory, resume, report) is :mod:`agents.training.experiment`.
"""

import sys

from agents.training.experiment import main

if __name__ == "__main__":
    sys.exit(main())
