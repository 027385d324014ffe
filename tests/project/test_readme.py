"""The README says what the code does: quick start, commands, env table, results table."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import pytest

import patience_gym  # noqa: F401 - registers the envs

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAIN_JOB = 'pip install torch==2.13.0 && pip install -e ".[train]" && python train.py'
TESTS = 'pip install torch==2.13.0 && pip install -e ".[dev]" && python -m pytest -q -n auto'


def env_rows() -> dict[str, str]:
    """The README env table: env id -> its row."""
    section = README.read_text().split("## Environments", 1)[1].split("\n## ", 1)[0]
    return {m.group(1): line for line in section.splitlines() if (m := re.match(r"\| `(patience_gym/[^`]+)` \|", line))}


def test_readme_is_short():
    assert len(README.read_text().splitlines()) <= 250


def test_quick_start_runs():
    text = README.read_text()
    block = re.search(r"## Quick start\s+```python\n(.*?)```", text, re.S)
    assert block, "README has no quick start block"
    code = block.group(1).replace("learn(5_000)", "learn(256)")  # the same code, a shorter fit
    code = code.replace(
        'MaskablePPO("MlpPolicy", env, verbose=0)', 'MaskablePPO("MlpPolicy", env, verbose=0, n_steps=128)'
    )
    namespace: dict = {}
    exec(compile(code, "README quick start", "exec"), namespace)
    assert namespace["action"] is not None


def test_readme_commands_pin_torch_before_the_project():
    text = README.read_text()
    assert MAIN_JOB in text and TESTS in text
    ci = (ROOT / ".ci" / "run").read_text()
    assert TESTS in ci, ".ci/run must run the README's test command"
    install_page = (ROOT / "docs" / "pages" / "installation.md").read_text()
    assert MAIN_JOB in install_page and TESTS in install_page, "the installation page must give the README's commands"


def test_every_registered_env_has_a_row_and_nothing_else_does():
    registered = {env_id for env_id in gym.registry if env_id.startswith("patience_gym/")}
    assert set(env_rows()) == registered


@pytest.mark.parametrize("env_id", sorted(env_id for env_id in gym.registry if env_id.startswith("patience_gym/")))
def test_env_row_actions_and_encodings_match_the_env(env_id):
    rows = env_rows()
    row = rows[env_id]
    encodings_cell = row.split(" | ")[3]
    if encodings_cell.startswith("as "):  # "as Miss Milligan": the row of the env it names
        named = encodings_cell[3:]
        encodings_cell = next(r for r in rows.values() if f" | {named} " in r).split(" | ")[3]
    listed = dict(re.findall(r"`(\w+)` \((\d+),\)", encodings_cell))
    env = gym.make(env_id)
    assert f"`Discrete({env.action_space.n})" in row  # type: ignore[attr-defined]
    for encoding, size in listed.items():
        space = gym.make(env_id, obs_encoding=encoding).observation_space
        assert space.shape == (int(size),), f"{env_id} {encoding}: README says ({size},), the env {space.shape}"
    known = getattr(env.unwrapped, "obs_encodings", None) or getattr(env.unwrapped.game, "obs_encodings", None)
    if known is not None:
        assert set(listed) == set(known), f"{env_id}: README lists {sorted(listed)}, the env has {sorted(known)}"
    for option in re.findall(r"`(\w+)=", row.split(" | ")[4]):
        gym.make(env_id, **{option: True})  # every rule option named is accepted


def test_results_table_names_only_committed_configs_and_models():
    table = (ROOT / "benchmarks" / "results" / "summary.md").read_text()
    for path in re.findall(r"(configs/\w+\.yaml|models/\w+\.zip)", table):
        assert (ROOT / path).is_file(), path
    for model in re.findall(r"models/(\w+)\.zip", table):
        assert (ROOT / "models" / f"{model}.md").is_file(), f"models/{model}.zip has no model card"


def test_readme_links_to_files_that_exist():
    for target in re.findall(r"\]\(((?:docs|models|configs)/[^)#]+)\)", README.read_text()):
        assert (ROOT / target).exists(), target
