"""Fixtures of the benchmark tools' tests: the tools run as users run them, ``python -m benchmarks.<tool>``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers import AssertRefused, RunBenchmark

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


@pytest.fixture
def assert_refused(capsys: pytest.CaptureFixture[str]) -> AssertRefused:
    """``assert_refused(main, [(argv, message), ...])``: ``main(argv)`` exits with a usage error naming ``message``."""

    def check(main: Callable[[list[str]], None], cases: list[tuple[list[str], str]]) -> None:
        for argv, message in cases:
            with pytest.raises(SystemExit):
                main(argv)
            assert message in capsys.readouterr().err, argv

    return check
