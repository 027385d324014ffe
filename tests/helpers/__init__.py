"""Plain helpers the tests share, exposed as fixtures by tests/conftest.py.

Tests take them as fixtures; a module imports one from here only where a fixture cannot reach
(``pytest.mark.parametrize`` arguments, module-level helper functions). Per game: ``golf``, ``puss``, ``milligan``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable

import numpy as np

#: The ``run_benchmark`` fixture's type (tests/benchmarks/conftest.py): ``python -m <module> <args>`` from the root.
RunBenchmark = Callable[..., subprocess.CompletedProcess[str]]


def masked_random_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    assert len(legal) > 0, "mask is all-False while the game is live"
    return int(legal[rng.integers(len(legal))])
