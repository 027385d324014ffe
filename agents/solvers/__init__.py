"""Perfect-knowledge solvers: they read the hidden cards, so their scores are upper bounds, not fair agents.

:mod:`agents.solvers.golf` (with its optional C core, ``agents.solvers._golf_solver``, built by
``pip install -e .``) and :mod:`agents.solvers.puss`. This package imports neither.
"""
