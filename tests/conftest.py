"""Shared test fixtures: the helpers of tests/helpers/, one fixture each."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import patience_gym  # noqa: F401 - registers the envs
from tests import helpers
from tests.helpers import golf, milligan, puss


@pytest.fixture
def masked_random_action() -> Callable[[np.random.Generator, np.ndarray], int]:
    """A uniformly random action among those the mask allows (asserts there is one)."""
    return helpers.masked_random_action


@pytest.fixture
def golf_book_deal() -> list[str]:
    """The Golf deal of the book's worked example (a fresh copy)."""
    return list(golf.BOOK_DEAL)


@pytest.fixture
def puss_book_deal() -> list[str]:
    """The Puss in the Corner pack of the book's worked example (a fresh copy)."""
    return list(puss.BOOK_DEAL)


@pytest.fixture
def puss_make_state() -> Callable[..., tuple[Any, Any]]:
    """``puss.make_state``: a Puss in the Corner game and state from the named cards."""
    return puss.make_state


@pytest.fixture
def puss_end_of_first_pass() -> Callable[..., tuple[Any, Any]]:
    """``puss.end_of_first_pass``: a Puss in the Corner position with the pack out on the first pass."""
    return puss.end_of_first_pass


@pytest.fixture
def milligan_position() -> Callable[..., Any]:
    """``milligan.position``: a Miss Milligan family state from the named columns, heights and reserve."""
    return milligan.position


@pytest.fixture(scope="module")
def ray_temp_dir() -> Iterator[str]:
    """A folder of its own for the module's Ray cluster (short: Ray's socket paths must fit 107 characters);
    after the module's tests, no process whose command line names it (raylet, GCS, workers) is left."""
    folder = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    yield folder
    left = helpers.wait_until_gone(folder)
    shutil.rmtree(folder, ignore_errors=True)
    assert not left, f"Ray processes outlived the tests: {left}"


@pytest.fixture(scope="module")
def ray_module(ray_temp_dir: str) -> Iterator[Any]:
    """Ray, imported (the test skips without the ``[ray]`` extra); shut down after the module's tests."""
    ray = pytest.importorskip("ray")
    yield ray
    if ray.is_initialized():
        ray.shutdown()


@pytest.fixture
def cluster(ray_module: Any, ray_temp_dir: str) -> Any:
    """A local 2-CPU Ray cluster, started if none is running (left running for the module's next tests)."""
    if not ray_module.is_initialized():
        ray_module.init(
            num_cpus=2,
            include_dashboard=False,
            object_store_memory=128 * 1024**2,
            log_to_driver=False,
            _temp_dir=ray_temp_dir,
        )
    return ray_module
