"""Build hook: the Golf solver's C core (``agents.solvers._golf_solver``, declared in pyproject.toml) is built in
place only.

``pip install -e .`` builds it beside ``agents/solvers/golf.py`` in the checkout, where ``agents/`` runs from;
a wheel (``pip install .``) holds ``patience_gym`` alone, so the extension is left out of it.
"""

from setuptools import setup
from setuptools.command.build_ext import build_ext


class InPlaceOnly(build_ext):
    """build_ext that skips the checkout-only ``agents.*`` extensions unless it builds in place."""

    def run(self) -> None:
        if not (self.inplace or getattr(self, "editable_mode", False)):
            self.extensions = [ext for ext in self.extensions if not ext.name.startswith("agents.")]
        super().run()


setup(cmdclass={"build_ext": InPlaceOnly})
