"""The agents ship with patience_gym: after the README's install, research code in any folder evaluates
against the baselines; another top-level ``agents`` package that shadows ours is named in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from patience_gym.agents_check import agents_problem

ROOT = Path(__file__).resolve().parents[2]
OURS = ROOT / "agents" / "__init__.py"


def run_outside_the_checkout(
    code: str, folder: Path, pythonpath: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -c code`` in ``folder`` with the installed packages only (and ``pythonpath``, when given)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True)


def test_research_code_outside_the_checkout_evaluates_against_the_baselines(tmp_path: Path) -> None:
    code = """
import json
import patience_gym
found = patience_gym.check_agents()
import agents
from agents.evaluation.evaluate import evaluate
from agents.load import load
from agents.registry import GREEDY, make_agent
greedy = make_agent("greedy", "golf")
results = evaluate("patience_gym/Golf-v0", ["random", "greedy"], episodes=2)
print(json.dumps({"found": str(found), "agents": agents.__file__, "load": load is agents.load,
                  "greedy": [type(greedy).__name__, GREEDY["golf"].split(":")[1]],
                  "rows": [[r.agent, r.episodes] for r in results]}))
"""
    done = run_outside_the_checkout(code, tmp_path)
    assert done.returncode == 0, (
        f"the installed agents do not work outside the checkout (rerun pip install -e .): {done.stderr[-2000:]}"
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["found"] == report["agents"]
    assert report["load"]
    made, named = report["greedy"]
    assert made == named
    assert report["rows"] == [["random", 2], ["greedy", 2]]


def fake_distribution(site: Path, name: str) -> Path:
    """A distribution ``name`` in ``site`` that installs a top-level ``agents`` package (as openai-agents does),
    whose ``__init__.py`` fails if imported."""
    package = site / "agents"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('the other agents package was imported')\n")
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "RECORD").write_text(f"agents/__init__.py,,\n{info.name}/METADATA,,\n{info.name}/RECORD,,\n")
    return package / "__init__.py"


def test_another_distributions_agents_package_first_on_the_path_is_named_in_one_line(tmp_path: Path) -> None:
    site = tmp_path / "site"
    theirs = fake_distribution(site, "other-agents-sdk")
    done = run_outside_the_checkout("import patience_gym; patience_gym.check_agents()", tmp_path, str(site))
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("patience_gym.agents_check.AgentsShadowedError: `import agents` finds ")
    assert str(theirs.resolve()) in last and "pip uninstall other-agents-sdk" in last
    assert "virtual environment of its own" in last
    assert "the other agents package was imported" not in done.stderr  # the check imports neither package


def test_the_agents_problem_says_what_comes_first_and_what_to_do(tmp_path: Path) -> None:
    theirs = tmp_path / "site-packages" / "agents" / "__init__.py"
    stray = tmp_path / "project" / "agents" / "__init__.py"
    assert agents_problem(OURS, False, OURS, {}) is None
    assert agents_problem(OURS, False, OURS, {"openai-agents": theirs}) is None  # ours comes first here

    shadowed = agents_problem(theirs, False, OURS, {"openai-agents": theirs})
    assert shadowed is not None and "pip uninstall openai-agents" in shadowed and str(theirs) in shadowed
    folder = agents_problem(stray, False, OURS, {"openai-agents": theirs})
    assert folder is not None and "comes first on sys.path" in folder and "uninstall" not in folder
    shared = agents_problem(OURS, False, OURS, {"openai-agents": OURS})
    assert shared is not None and "both install" in shared and "overwrite each other" in shared
    namespace = agents_problem(None, True, OURS, {})
    assert namespace is not None and "namespace package" in namespace and 'pip install -e ".[train]"' in namespace
    missing = agents_problem(None, False, OURS, {})
    assert missing is not None and missing.startswith("No module named 'agents'")
    for line in (shadowed, folder, shared, namespace, missing):
        assert "\n" not in line
