"""A design study's variants: parameter names and one row of values per variant, from a full
factorial grid, a Latin hypercube (reproducible by its seed) or a list of dicts."""
from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ..base.errors import StudyError


# The most variants a study takes: each is a whole run (a million at 10 ms each is nearly
# three hours on one core) and keeps its Result, so a larger count is a slip (10**13 for
# 10**3), refused by name before numpy tries to allocate it.
MAX_VARIANTS = 1_000_000


def _not_too_many(count: int, what: str) -> None:
    """StudyError naming ``what`` if ``count`` variants exceed MAX_VARIANTS."""
    if count > MAX_VARIANTS:
        raise StudyError(f"{what}: {count} variants is more than a study takes (at most "
                         f"{MAX_VARIANTS}: each variant is a whole run)")


class Samples:
    """Parameter ``names`` (k,) and ``values`` (n, k): variant i sets names[j] to values[i, j]."""

    def __init__(self, names: Any, values: Any) -> None:
        names = tuple(names)
        if not names:
            raise StudyError("a study needs at least one parameter to vary")
        for n in names:
            if not isinstance(n, str) or not n:
                raise StudyError(f"a parameter name must be a non-empty string, got {n!r}")
        if len(set(names)) != len(names):
            raise StudyError(f"a parameter is named twice: {', '.join(names)}")
        try:
            v = np.array(values, dtype=float)
        except (TypeError, ValueError):
            raise StudyError(f"sample values must be numbers, {len(names)} per variant") from None
        v = _rows(v, names)
        if len(v) == 0:
            raise StudyError("no variants: give at least one sample")
        _not_too_many(len(v), "samples")
        bad = np.argwhere(~np.isfinite(v))
        if len(bad):
            i, j = bad[0]
            raise StudyError(f"variant {i}: {names[j]} = {v[i, j]} is not a finite number")
        v.setflags(write=False)
        self.names, self.values = names, v

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"Samples({len(self)} variants of {', '.join(self.names)})"

    def rows(self) -> list[dict[str, float]]:
        """One dict per variant: parameter name -> value."""
        return [dict(zip(self.names, map(float, row))) for row in self.values]

    @classmethod
    def from_rows(cls, rows: Any) -> "Samples":
        """From a list of dicts (name -> value), each with the same names."""
        rows = list(rows)
        if not rows:
            raise StudyError("no variants: the list of samples is empty")
        for i, r in enumerate(rows):
            if not isinstance(r, dict):
                raise StudyError(f"variant {i}: a sample must be a dict of parameter -> value, "
                                 f"got {type(r).__name__}")
        names = tuple(rows[0])
        for i, r in enumerate(rows):
            if set(r) != set(names):
                diff = sorted(set(r) ^ set(names))
                raise StudyError(f"variant {i}: every sample needs the same parameters as "
                                 f"variant 0 ({', '.join(names)}); differs in {', '.join(diff)}")
        values = []
        for i, r in enumerate(rows):
            row = []
            for n in names:
                try:
                    row.append(float(r[n]))
                except (TypeError, ValueError):
                    raise StudyError(f"variant {i}: {n} = {r[n]!r} is not a number") from None
            values.append(row)
        return cls(names, np.array(values).reshape(len(rows), len(names)))


def _rows(v: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """Sample values as (variants, parameters): a table with one column per name, or one
    parameter's values as a flat sequence; StudyError for any other shape (a table of
    another width is never re-cut into rows, which would pair values wrongly)."""
    k = len(names)
    if v.ndim == 2 and v.shape[1] == k:
        return v
    if v.ndim <= 1 and (k == 1 or v.size == 0):
        return v.reshape(-1, k)
    raise StudyError(f"sample values must be a table of one row per variant and one column "
                     f"per parameter ({k}: {', '.join(names)}), got an array of shape "
                     f"{v.shape}")


def grid(levels: dict[str, Any]) -> Samples:
    """Full factorial: every combination of each parameter's values (a sequence, or one
    number), the last parameter varying fastest."""
    if not isinstance(levels, dict) or not levels:
        raise StudyError("grid needs a dict of parameter -> values with at least one parameter")
    axes = []
    for name, vals in levels.items():
        try:
            a = np.array(vals, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise StudyError(f"grid: {name} must be numbers, got {vals!r}") from None
        if a.size == 0:
            raise StudyError(f"grid: {name} has no values (an empty range)")
        if not np.all(np.isfinite(a)):
            raise StudyError(f"grid: {name} has a NaN or infinite value")
        axes.append(a)
    _not_too_many(math.prod(a.size for a in axes), "grid")
    return Samples(tuple(levels), np.array(list(itertools.product(*axes))))


def latin_hypercube(ranges: dict[str, Any], n: int, seed: Any = None) -> Samples:
    """``n`` variants spread over each parameter's range (lo, hi): every range cut into n equal
    strata, each stratum holding one variant's value (uniform inside it), the strata paired
    at random across parameters; reproducible by ``seed`` (numpy's default Generator)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise StudyError(f"latin_hypercube: the count must be a whole number, got {n!r}")
    if n < 1:
        raise StudyError(f"latin_hypercube: the count must be at least 1, got {n}")
    _not_too_many(int(n), "latin_hypercube")
    if not isinstance(ranges, dict) or not ranges:
        raise StudyError("latin_hypercube needs a dict of parameter -> (low, high)")
    bounds = []
    for name, r in ranges.items():
        try:
            lo, hi = (float(x) for x in r)
        except (TypeError, ValueError):
            raise StudyError(f"latin_hypercube: {name} needs a range (low, high), got {r!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise StudyError(f"latin_hypercube: {name}'s range ({lo}, {hi}) is not finite")
        if not lo < hi:
            raise StudyError(f"latin_hypercube: {name}'s range ({lo:g}, {hi:g}) is empty: "
                             "low must be below high")
        bounds.append((lo, hi))
    try:
        rng = np.random.default_rng(seed)
    except (TypeError, ValueError):
        raise StudyError(f"latin_hypercube: the seed must be a whole number >= 0 (or None: "
                         f"a new draw each time), got {seed!r}") from None
    cols = []
    for lo, hi in bounds:
        u = (rng.permutation(n) + rng.random(n)) / n
        cols.append(lo + u * (hi - lo))
    return Samples(tuple(ranges), np.stack(cols, axis=1))


def as_samples(spec: Any) -> Samples:
    """Samples from Samples, a dict (a grid) or a list of dicts (one per variant)."""
    if isinstance(spec, Samples):
        return spec
    if isinstance(spec, dict):
        return grid(spec)
    if isinstance(spec, (list, tuple)):
        return Samples.from_rows(spec)
    raise StudyError("a study's samples are grid(...), latin_hypercube(...), a dict of "
                     "parameter -> values (a grid) or a list of dicts, got "
                     f"{type(spec).__name__}")
