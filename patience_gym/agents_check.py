"""Whether ``import agents`` gives patience_gym's agents, or another top-level ``agents`` package shadows them.

patience_gym ships two top-level packages: ``patience_gym`` and ``agents`` (baselines, planners,
solvers, evaluation, training). ``agents`` is also the import name of other distributions (the
OpenAI Agents SDK, ``openai-agents``, installs one), and a folder named ``agents`` in the folder a
script runs from comes first too. :func:`check_agents` finds the package Python would import,
without importing it, and says in one line what to do when it is not ours.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path

#: patience_gym's own ``agents/__init__.py``: beside this package, in the checkout (editable install)
#: or in site-packages (a wheel).
OURS = Path(__file__).resolve().parent.parent / "agents" / "__init__.py"

_OWN_DISTRIBUTION = "patience-gym"
_SEPARATE = 'give patience_gym a virtual environment of its own (python -m venv, then pip install -e ".[train]")'


class AgentsShadowedError(ImportError):
    """``import agents`` would not give patience_gym's agents (the message says why and what to do)."""


def agents_problem(found: Path | None, namespace: bool, ours: Path, others: Mapping[str, Path | None]) -> str | None:
    """Why ``import agents`` would not give patience_gym's agents, in one line, or None when it would.

    ``found``: the file ``import agents`` would run (None: no ``agents`` at all, or a ``namespace``
    package); ``ours``: patience_gym's ``agents/__init__.py``; ``others``: the other installed
    distributions with a top-level ``agents`` package, and where their ``agents/__init__.py`` lies
    (None: their file list does not say).
    """
    reinstall = 'run pip install -e ".[train]" in the checkout'
    if found is None and not namespace:
        return f"No module named 'agents': patience_gym's agents are not installed; {reinstall}"
    if found is None:
        return (
            f"`import agents` finds a namespace package (a folder named agents without __init__.py, or an install "
            f"of patience_gym older than its agents), not patience_gym's agents ({ours}); {reinstall}"
        )
    if found != ours:
        by = [name for name, init in sorted(others.items()) if init == found]
        if by:
            cause = f"{', '.join(by)} installs that package: pip uninstall {by[0]}, or {_SEPARATE}"
        else:
            where = "it comes first on sys.path (a file or folder named agents beside the script?)"
            cause = f"{where}: rename it, or {_SEPARATE}"
        return f"`import agents` finds {found}, not patience_gym's agents ({ours}); {cause}"
    sharing = [name for name, init in sorted(others.items()) if init == ours]
    if sharing:
        return (
            f"patience_gym and {', '.join(sharing)} both install {ours.parent}: their files overwrite each other "
            f"(the last install's agents/__init__.py wins; uninstalling one breaks the other); {_SEPARATE}"
        )
    return None


def _other_distributions() -> dict[str, Path | None]:
    """The installed distributions other than patience_gym with a top-level ``agents`` package, and where
    their ``agents/__init__.py`` lies (None when their file list does not say)."""
    import importlib.metadata as metadata

    others: dict[str, Path | None] = {}
    for name in metadata.packages_distributions().get("agents", []):
        if name.lower().replace("_", "-") == _OWN_DISTRIBUTION or name in others:
            continue
        dist = metadata.distribution(name)
        init = next((f for f in dist.files or () if f.parts == ("agents", "__init__.py")), None)
        others[name] = Path(str(dist.locate_file(init))).resolve() if init is not None else None
    return others


def check_agents() -> Path:
    """patience_gym's ``agents/__init__.py`` when ``import agents`` gives it (imports nothing); else an
    :class:`AgentsShadowedError` whose one line names what comes first and what to do.

    Research code calls it before ``from agents... import ...``; see docs/pages/installation.md.
    """
    spec = importlib.util.find_spec("agents")
    namespace = spec is not None and spec.origin in (None, "namespace")
    found = Path(spec.origin).resolve() if spec is not None and not namespace and spec.origin else None
    problem = agents_problem(found, namespace, OURS, _other_distributions())
    if problem is not None:
        raise AgentsShadowedError(problem)
    return OURS
