"""The README's quick start runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


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
    assert "pip install torch==2.13.0 && pip install -e . && python train.py --config configs/golf.yaml" in text
    test_command = 'pip install torch==2.13.0 && pip install -e ".[dev]" && python -m pytest -q'
    assert test_command in text
    ci = (README.parent / ".ci" / "run").read_text()
    assert test_command in ci, ".ci/run must run the README's test command"


def test_readme_tables_are_the_committed_results_files():
    """Every generated README table is exactly the results file a committed script wrote."""
    from benchmarks.readme import RESULTS, SECTIONS

    text = README.read_text()
    for name, filename in SECTIONS.items():
        block = re.search(rf"<!-- {name}:start -->\n(.*?)<!-- {name}:end -->", text, re.S)
        assert block, f"README has no {name} section"
        assert block.group(1) == (RESULTS / filename).read_text(), f"README {name} table differs from {filename}"
