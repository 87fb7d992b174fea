"""A design study's outcome: every variant's Result (or why it failed) and the summary table,
one row per variant, NaN where a variant failed.

Columns, in this order:
  variant                      the variant's index
  <parameter>                  each varied parameter's value ("crank.mass", ...)
  peak reaction <joint>        largest size of the joint's reaction force over the frames, N
  rms reaction <joint>         root mean square of that size over the frames, N
  peak effort <motion>         largest |effort| of the motion over the frames, N m or N
  min <joint> angle|slide      smallest and largest coordinate of each revolute, prismatic
  max <joint> angle|slide      or cylindrical joint (rad, unwrapped over the frames from the
                               first frame's value in (-pi, pi]; or m)
  peak contact force <contact> largest size of the contact's force on part a over the
                               frames, N
  <metric>                     each user function of the Result (a float; one that raises
                               gives NaN and a note in StudyResult.notes)
"""
from __future__ import annotations

import csv
import math
from typing import Any, Callable

import numpy as np

from ..analyses.checks.joint_angles import joint_coordinate
from ..analyses.checks.shared_reactions import study_note
from ..base.errors import SolverError, StudyError
from ..model.results import Result
from ..vocabulary.builder import Builder
from ..vocabulary.joints import JOINT_COORDINATES
from .engine import Outcome
from .samples import Samples


def column_units(base: Builder) -> dict[str, str]:
    """{built-in column: its SI unit}, in the table's order: "N" for reactions, "N m" or "N"
    for a motion's effort (an angle's or a slide's), "rad" or "m" for a joint coordinate's
    extremes, "N" for a contact's peak force (the module docstring's list); what a plot
    labels its axis with."""
    units = {}
    for j in base.joints:
        units[f"peak reaction {j}"] = units[f"rms reaction {j}"] = "N"
    for m, motion in base.motions.items():
        units[f"peak effort {m}"] = "N m" if motion.coordinate == "angle" else "N"
    for j, joint in base.joints.items():
        for c in JOINT_COORDINATES.get(joint.kind, ()):
            units[f"min {j} {c}"] = units[f"max {j} {c}"] = "rad" if c == "angle" else "m"
    for c in base.contacts:
        units[f"peak contact force {c}"] = "N"
    return units


def result_columns(base: Builder) -> list[str]:
    """The built-in columns a study of ``base`` has (after variant and the parameters)."""
    return list(column_units(base))


def columns(base: Builder, samples: Samples, metrics: dict[str, Callable]) -> list[str]:
    """Every column of the study's table; StudyError if two would share a name (the CSV's
    last column, "failure", among them: a metric of that name could not be read back)."""
    cols = ["variant", *samples.names, *result_columns(base), *metrics]
    seen = set()
    for c in cols + ["failure"]:
        if c in seen:
            raise StudyError(f"two columns of the study's table would be named {c!r} (a metric "
                             "or parameter named like a built-in column): rename the metric")
        seen.add(c)
    return cols


def result_row(result: Result, base: Builder) -> list[float]:
    """The built-in columns' values for one Result (result_columns' order)."""
    row = []
    for j in base.joints:
        size = np.linalg.norm(result.reaction(j)[0], axis=1)
        row += [float(size.max()), float(np.sqrt(np.mean(size * size)))]
    row += [float(np.abs(result.effort(m)).max()) for m in base.motions]
    for j, joint in base.joints.items():
        for c in JOINT_COORDINATES.get(joint.kind, ()):
            q = joint_coordinate(result, j, c)
            row += [float(q.min()), float(q.max())]
    row += [float(np.linalg.norm(result.contact(c)["force"], axis=1).max()) for c in base.contacts]
    return row


class StudyResult:
    """What a study's run gives back (module docstring: the table's columns).

    ``parameters`` the varied names; ``variants`` one dict per variant (name -> value) and
    ``values`` the same as an (n, k) array; ``result(i)`` variant i's Result; ``failures``
    {index: reason}; ``summary`` {column: (n,) array}; ``best(column)``, ``to_csv(path)``;
    ``seconds`` (n,) each variant's solve time (NaN where it did not run); ``notes``."""

    def __init__(self, samples: Samples, outcomes: list[Outcome], base: Builder,
                 metrics: dict[str, Callable[[Result], Any]], times: np.ndarray) -> None:
        n = len(samples)
        self.parameters: tuple[str, ...] = samples.names
        self.values: np.ndarray = samples.values
        self.variants: list[dict[str, float]] = samples.rows()
        self.times = times
        self.notes: list[str] = []
        self._results: list[Result | None] = [None] * n
        self.failures: dict[int, str] = {}
        self.seconds = np.full(n, np.nan)
        for o in outcomes:
            self._results[o.index] = o.result
            self.seconds[o.index] = o.seconds
            if o.failure is not None:
                self.failures[o.index] = o.failure
            if o.note is not None and o.note not in self.notes:
                self.notes.append(o.note)
        shared = study_note(list(dict.fromkeys(
            name for o in outcomes if o.result is not None for name in o.result.shared_reactions)))
        self.notes += [shared] if shared else []
        cols = columns(base, samples, metrics)
        table = np.full((n, len(cols)), np.nan)
        table[:, 0] = np.arange(n)
        table[:, 1:1 + len(self.parameters)] = self.values
        first = 1 + len(self.parameters)
        builtin = len(cols) - first - len(metrics)
        for i, res in enumerate(self._results):
            if res is None:
                continue
            table[i, first:first + builtin] = result_row(res, base)
            for c, (name, fn) in enumerate(metrics.items()):
                try:
                    table[i, first + builtin + c] = float(fn(res))
                except Exception as exc:     # noqa: BLE001 - the user's function, reported
                    self.notes.append(f"metric {name!r} failed on variant {i}: "
                                      f"{type(exc).__name__}: {exc}")
        self.summary: dict[str, np.ndarray] = {c: table[:, k].copy() for k, c in enumerate(cols)}
        self.summary["variant"] = np.arange(n)

    def __len__(self) -> int:
        return len(self.variants)

    def __repr__(self) -> str:
        return (f"StudyResult({len(self)} variants of {', '.join(self.parameters)}; "
                f"{len(self.failures)} failed)")

    @property
    def results(self) -> list[Result | None]:
        """Each variant's Result, None where it failed."""
        return list(self._results)

    def result(self, i: int) -> Result:
        """Variant i's Result; SolverError with its reason if it failed."""
        i = variant_index(i, len(self))
        if i in self.failures:
            raise SolverError(f"variant {i} ({_describe(self.variants[i])}) failed: "
                              f"{self.failures[i]}")
        return self._results[i]

    def best(self, column: str, minimize: bool = True) -> int:
        """The index of the variant with the smallest (or largest) value in ``column``,
        failed variants and NaN left out."""
        if column not in self.summary:
            raise StudyError(f"no column {column!r}; the columns are: {', '.join(self.summary)}")
        col = np.asarray(self.summary[column], dtype=float)
        if np.all(np.isnan(col)):
            raise StudyError(f"column {column!r} has no value in any variant")
        return int(np.nanargmin(col) if minimize else np.nanargmax(col))

    def to_csv(self, path: Any) -> None:
        """Write the summary table (one row per variant, a last column "failure" with the
        reason, empty for the variants that ran) as CSV."""
        names = list(self.summary)
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(names + ["failure"])
            for i in range(len(self)):
                w.writerow([_cell(self.summary[c][i]) for c in names] + [self.failures.get(i, "")])


def variant_index(i: Any, n: int) -> int:
    """``i`` as the index of one of a study's ``n`` variants (0 to n - 1); StudyError for
    anything else (a negative index counts from no end here, a bool or float is no index)."""
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
        raise StudyError(f"no variant {i!r}: the study has variants 0 to {n - 1}")
    return int(i)


def _cell(x: Any) -> str:
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    x = float(x)
    return "nan" if math.isnan(x) else repr(x)


def _describe(row: dict[str, float]) -> str:
    return ", ".join(f"{k} = {v:g}" for k, v in row.items())
