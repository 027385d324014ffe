"""95% intervals of a mean, a paired difference and a proportion, and a proportion as a table cell."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

#: The two-sided 95% quantile of the normal distribution (1.959963984540054).
Z95 = float(stats.norm.ppf(0.975))


def mean_ci95(values: Sequence[float] | np.ndarray, method: str = "normal") -> tuple[float, float]:
    """Mean and the half-width of its 95% interval: ``normal`` (z times the standard error) or Student's ``t``."""
    arr = np.asarray(values, dtype=float)
    if len(arr) < 2:
        return float(arr.mean()) if len(arr) else math.nan, math.nan
    if method not in ("normal", "t"):
        raise ValueError(f"interval method must be normal or t, got {method!r}")
    quantile = Z95 if method == "normal" else float(stats.t.ppf(0.975, len(arr) - 1))
    return float(arr.mean()), float(quantile * stats.sem(arr))


def paired_ci95(a: Sequence[float], b: Sequence[float], method: str = "normal") -> tuple[float, float]:
    """Mean of ``a - b`` deal by deal and the half-width of its 95% interval (see :func:`mean_ci95`)."""
    if len(a) != len(b):
        raise ValueError(f"paired scores need the same deals: {len(a)} against {len(b)}")
    return mean_ci95(np.subtract(a, b, dtype=float), method)


def wilson_ci95(successes: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval of a proportion (sound near 0 and 1): statsmodels' when installed, else scipy's."""
    if n == 0:
        return math.nan, math.nan
    try:
        from statsmodels.stats.proportion import proportion_confint
    except ImportError:
        interval = stats.binomtest(int(successes), int(n)).proportion_ci(confidence_level=0.95, method="wilson")
        lo, hi = interval.low, interval.high
    else:
        lo, hi = proportion_confint(int(successes), int(n), alpha=0.05, method="wilson")
    return max(0.0, float(lo)), min(1.0, float(hi))


def format_share(share: float, ci: Sequence[float]) -> str:
    """A proportion and its 95% interval as a table cell: ``12.3% [10.1, 14.8]``."""
    lo, hi = ci
    return f"{100 * share:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
