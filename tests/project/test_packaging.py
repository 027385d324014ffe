"""What `pip install .` gives: the envs without torch, a typed package, and patience_gym and agents in the wheel."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib", "pandas", "scipy", "pydantic")


def test_importing_patience_gym_and_making_every_env_imports_no_training_library():
    code = f"""
import json, sys
import gymnasium as gym
import patience_gym
ids = [k for k in gym.registry if k.startswith("patience_gym/")]
for env_id in ids:
    env = gym.make(env_id)
    env.reset(seed=0)
    env.close()
print(json.dumps({{"envs": ids, "loaded": sorted(m for m in {HEAVY!r} if m in sys.modules)}}))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    report = json.loads(out.strip().splitlines()[-1])
    assert len(report["envs"]) >= 6
    assert report["loaded"] == []


def test_the_wheel_holds_patience_gym_and_agents_without_the_c_sources_and_ships_py_typed():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["setuptools"]["packages"]["find"]["include"] == ["patience_gym*", "agents*"]
    assert project["tool"]["setuptools"]["exclude-package-data"]["agents.solvers"] == ["*.c", "*.h"]
    assert {ext["name"] for ext in project["tool"]["setuptools"]["ext-modules"]} == {
        "agents.solvers._golf_solver",
        "agents.solvers._golf_expectimax",
    }
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["patience_gym"]
    assert (ROOT / "patience_gym" / "py.typed").is_file()
    base = {dep.split(">")[0].split("=")[0].strip() for dep in project["project"]["dependencies"]}
    assert base <= {"gymnasium", "numpy", "pillow", "pyyaml"}
    extras = project["project"]["optional-dependencies"]
    assert any(dep.startswith("torch") for dep in extras["train"])
    assert "patience_gym[train,docs,vector,ray]" in extras["dev"]  # the test command installs everything, Ray too
    assert any(dep.startswith("ray[tune]") for dep in extras["ray"])  # seed sweeps run on Ray Tune
