"""A recipe across training seeds, the rliable way (Agarwal et al., "Deep RL at the Edge of the Statistical
Precipice", NeurIPS 2021), computed with :func:`scipy.stats.bootstrap`.

A recipe trained at ``n`` seeds and played on the same report deals gives a matrix of scores
``[n seeds, deals]``. A *run's score* is its mean over the deals (one task: the env). Across seeds:

- the **mean** and the **interquartile mean** (IQM: the mean of the middle half of the run scores,
  ``scipy.stats.trim_mean(x, 0.25)``; with fewer than four seeds nothing is trimmed and it is the mean),
  each with a 95% **stratified-bootstrap** interval: runs resampled with replacement within each task
  (here one task, so a percentile bootstrap over the seeds), as rliable's ``StratifiedBootstrap``;
- the **probability of improvement** over a baseline, P(X > Y) + P(X = Y) / 2 for a run X of the recipe and a
  run Y of the baseline (the Mann-Whitney statistic over n·m pairs), with its bootstrap interval (both
  samples resampled); the greedy is one deterministic run, so this is the share of seeds whose score beats it;
- a **performance profile**: the share of games scoring better than each threshold τ, per seed, their mean
  and a bootstrap band over the seeds.

rliable's own package is archived (since October 2025) and pulls in ``arch`` and ``seaborn``; scipy, already
a dependency, gives the same percentile intervals. The deals are fixed (the same for every seed and
baseline), so these intervals are over training seeds: whether the recipe holds, not how the deals fell.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import stats

from agents.evaluation.intervals import paired_ci95

#: Bootstrap resamples of every interval (rliable's default is 2,000; more is cheap here).
RESAMPLES = 10_000
#: The bootstrap's seed: the same report twice gives the same intervals.
BOOTSTRAP_SEED = 0


def iqm(values: Sequence[float] | np.ndarray) -> float:
    """The interquartile mean: the mean of the middle half (a quarter cut from each end, as rliable)."""
    return float(stats.trim_mean(np.asarray(values, dtype=float), 0.25))


def bootstrap_interval(
    statistic: Callable[..., float], *samples: Sequence[float] | np.ndarray, resamples: int = RESAMPLES
) -> tuple[float, float]:
    """The 95% percentile interval of ``statistic(*samples)``, each sample (a stratum) resampled on its own;
    (nan, nan) where the first has fewer than two runs. A one-run sample (a deterministic baseline) is
    resampled as itself."""
    arrays = [np.asarray(s, dtype=float) for s in samples]
    if len(arrays[0]) < 2:
        return math.nan, math.nan
    if all(np.all(a == a[0]) for a in arrays):  # nothing varies: every resample gives the same value
        value = float(statistic(*arrays))
        return value, value
    result = stats.bootstrap(
        tuple(a if len(a) > 1 else np.repeat(a, 2) for a in arrays),
        statistic,
        n_resamples=resamples,
        method="percentile",
        vectorized=False,
        paired=False,
        random_state=np.random.default_rng(BOOTSTRAP_SEED),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def probability_of_improvement(
    runs: Sequence[float] | np.ndarray, baseline: Sequence[float] | np.ndarray, lower_is_better: bool
) -> float:
    """P(a run of the recipe scores better than a run of the baseline), ties counted half."""
    x, y = np.asarray(runs, dtype=float), np.asarray(baseline, dtype=float)
    if lower_is_better:
        x, y = -x, -y
    diff = x[:, None] - y[None, :]
    return float((diff > 0).mean() + 0.5 * (diff == 0).mean())


@dataclasses.dataclass(frozen=True)
class SeedRow:
    """One training seed against the baseline on the same deals."""

    seed: int
    score: float
    minus_baseline: float
    ci95: float
    #: The paired interval lies wholly on the better side of zero.
    past: bool


def seed_rows(
    seeds: Sequence[int], scores: Sequence[Sequence[float]], baseline: Sequence[float], lower_is_better: bool
) -> list[SeedRow]:
    """Each seed's mean score and its paired difference from the baseline, deal by deal (95% interval)."""
    rows = []
    for seed, runs in zip(seeds, scores, strict=True):
        diff, half = paired_ci95(runs, baseline)
        better = diff + half < 0 if lower_is_better else diff - half > 0
        rows.append(SeedRow(int(seed), float(np.mean(runs)), diff, half, bool(better and half == half)))
    return rows


def aggregate(scores: Sequence[Sequence[float]], baseline: Sequence[float], lower_is_better: bool) -> dict[str, Any]:
    """Mean, IQM and probability of improvement over ``baseline`` (one run: a deterministic player) across the
    seeds' runs, each with its stratified-bootstrap 95% interval."""
    runs = np.array([np.mean(s) for s in scores])
    base = np.array([float(np.mean(baseline))])
    improvement = probability_of_improvement(runs, base, lower_is_better)
    return {
        "seeds": len(runs),
        "mean": float(runs.mean()),
        "mean_ci95": bootstrap_interval(np.mean, runs),
        "iqm": iqm(runs),
        "iqm_ci95": bootstrap_interval(iqm, runs),
        "baseline": float(base[0]),
        "p_improvement": improvement,
        "p_improvement_ci95": bootstrap_interval(
            lambda x, y: probability_of_improvement(x, y, lower_is_better), runs, base
        ),
    }


def thresholds(*scores: Sequence[float], points: int = 101) -> np.ndarray:
    """Evenly spaced thresholds τ over every score given."""
    values = np.concatenate([np.asarray(s, dtype=float).ravel() for s in scores if len(s)])
    return np.linspace(float(values.min()), float(values.max()), points)


def profile(scores: Sequence[float], taus: np.ndarray, lower_is_better: bool) -> np.ndarray:
    """The share of games scoring better than each τ (at most τ where lower is better, else at least τ)."""
    arr = np.asarray(scores, dtype=float)[None, :]
    better = arr <= taus[:, None] if lower_is_better else arr >= taus[:, None]
    return np.asarray(better.mean(axis=1))


def seed_profiles(
    scores: Sequence[Sequence[float]], taus: np.ndarray, lower_is_better: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The seeds' mean profile and its 95% bootstrap band over the seeds (low, high), per τ."""
    curves = np.array([profile(s, taus, lower_is_better) for s in scores])
    mean = curves.mean(axis=0)
    if len(curves) < 2:
        return mean, mean, mean
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(curves), size=(2_000, len(curves)))
    resampled = curves[picks].mean(axis=1)
    return mean, np.quantile(resampled, 0.025, axis=0), np.quantile(resampled, 0.975, axis=0)
