"""Fixtures of the benchmark tools' tests: the tools run as users run them, ``python -m benchmarks.<tool>``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import RunBenchmark

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run_benchmark() -> RunBenchmark:
    """``run_benchmark("benchmarks.x", *args)``: the tool's CLI in a fresh process from the checkout's root,
    its output captured (``returncode``, ``stdout``, ``stderr``)."""

    def run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, timeout=600
        )

    return run
