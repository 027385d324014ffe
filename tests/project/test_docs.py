"""The documentation site covers what the code has (the build itself: ``mkdocs build --strict -f docs/mkdocs.yml``)."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import yaml

import patience_gym  # noqa: F401 - registers the envs

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = DOCS / "pages"


def nav_files(node: object) -> list[str]:
    """Every page named in the mkdocs nav."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [f for value in node.values() for f in nav_files(value)]
    if isinstance(node, list):
        return [f for item in node for f in nav_files(item)]
    return []


def test_every_nav_page_exists_and_every_page_is_in_the_nav():
    config = yaml.safe_load((DOCS / "mkdocs.yml").read_text())
    assert config["docs_dir"] == "pages"
    listed = nav_files(config["nav"])
    assert len(listed) == len(set(listed))
    on_disk = sorted(p.relative_to(PAGES).as_posix() for p in PAGES.rglob("*.md"))
    assert sorted(listed) == on_disk


def test_every_registered_env_has_a_page_generated_from_its_class_docstring():
    documented = set()
    for page in (PAGES / "envs").glob("*.md"):
        documented |= set(re.findall(r"^::: ([\w.]+)$", page.read_text(), re.M))
    for env_id in (e for e in gym.registry if e.startswith("patience_gym/")):
        cls = type(gym.make(env_id).unwrapped)
        assert f"{cls.__module__}.{cls.__qualname__}" in documented, env_id
        assert cls.__doc__ and "## Observation Space" in cls.__doc__, env_id


def test_results_page_includes_only_committed_results_files():
    root = DOCS.parent
    for path in re.findall(r'^--8<-- "([^"]+)"$', (PAGES / "results.md").read_text(), re.M):
        assert (root / path).is_file(), path


def test_every_documented_python_m_command_names_a_module_of_the_checkout():
    """``python -m agents.evaluation.evaluate ...`` in the README, the docs, the model cards and the docstrings:
    each module is there (agents/ was laid out by role; a stale path would fail only when someone runs it)."""
    import importlib.util

    root = DOCS.parent
    sources = [root / "README.md", *PAGES.rglob("*.md"), *(root / "models").glob("*.md")]
    sources += [p for folder in ("agents", "benchmarks", "patience_gym") for p in (root / folder).rglob("*.py")]
    named = {
        (module, source.relative_to(root).as_posix())
        for source in sources
        for module in re.findall(r"python -m ((?:agents|benchmarks|patience_gym)(?:\.\w+)*)", source.read_text())
    }
    assert len(named) > 10
    missing = sorted((module, where) for module, where in named if importlib.util.find_spec(module) is None)
    assert not missing


def test_the_search_page_examples_run():
    """The determinization and rollout examples of docs/pages/search.md run as written, in order."""
    blocks = re.findall(r"```python\n(.*?)```", (PAGES / "search.md").read_text(), re.S)
    assert blocks
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, "search.md", "exec"), namespace)
