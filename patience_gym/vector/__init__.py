"""Batched engines: N games in numpy arrays stepped by numba kernels (issue 26).

Importing this package imports numba; ``import patience_gym`` does not.
"""
