"""The sizes of Golf's feature encodings (``ranks``, ``runs``), from the rules' constants alone.

:mod:`patience_gym.features.golf` fills these encodings (``runs`` with the heuristics'
run search); the networks that read them take their layout from here, so that they import
no heuristic.
"""

from __future__ import annotations

from typing import Final

from patience_gym.games.golf import NUM_COLUMNS, NUM_LINKS, PLANES_SIZE

#: "ranks": every link slot's rank, each column's exposed rank, the waste rank
#: (one-hots of 13), unseen cards per rank / 4, stock count / 16.
RANKS_SIZE: Final = (NUM_LINKS + NUM_COLUMNS + 1) * 13 + 13 + 1
#: "runs": the planes, then per column (run length / 35, openness / 52, height / 5).
RUNS_SIZE: Final = PLANES_SIZE + 3 * NUM_COLUMNS
