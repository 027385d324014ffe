"""Plain helpers the tests share, exposed as fixtures by tests/conftest.py.

Tests take them as fixtures; a module imports one from here only where a fixture cannot reach
(``pytest.mark.parametrize`` arguments, module-level helper functions). Per game: ``golf``, ``puss``, ``milligan``.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

#: The ``run_benchmark`` fixture's type (tests/benchmarks/conftest.py): ``python -m <module> <args>`` from the root.
RunBenchmark = Callable[..., subprocess.CompletedProcess[str]]
#: The ``assert_refused`` fixture's type (tests/benchmarks/conftest.py): ``(main, [(argv, message), ...])``.
AssertRefused = Callable[[Callable[[list[str]], None], list[tuple[list[str], str]]], None]


def masked_random_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    assert len(legal) > 0, "mask is all-False while the game is live"
    return int(legal[rng.integers(len(legal))])


def play_line(env_id: str, game: Any, state: Any, moves: list[int]) -> dict[str, Any]:
    """``moves`` played in the registered env from ``state`` (its rule options): each legal, none after
    the end, and the game over after the last; the last step's info (``score``, ``won``)."""
    env = gym.make(env_id, **vars(game.options))
    env.reset(options={"state": game.to_dict(state)})
    terminated = truncated = False
    info: dict[str, Any] = {}
    for action in moves:
        assert not (terminated or truncated), "the line goes on after the game ended"
        _, _, terminated, truncated, info = env.step(action)
        assert not info["illegal_action"]
    assert terminated, "the line stops before the end of the game"
    return info


class Sealed(tuple):  # type: ignore[type-arg]
    """A face-down pile for no-peek tests: its length is visible, reading any card fails the test."""

    def __getitem__(self, index: Any) -> Any:
        raise AssertionError("a hidden card was read")

    def __iter__(self) -> Any:
        raise AssertionError("the hidden cards were read")


def processes_mentioning(text: str) -> list[int]:
    """The pids of the processes (this one aside) whose command line holds ``text`` (Linux: /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in command:
            found.append(int(entry.name))
    return found


def wait_until_gone(text: str, seconds: float = 30.0) -> list[int]:
    """Wait (up to ``seconds``) for every process mentioning ``text`` to end; the pids still there."""
    deadline = time.monotonic() + seconds
    while (left := processes_mentioning(text)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left
