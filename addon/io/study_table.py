"""The Study panel's logic that needs no Blender: the values a parameter's Start, Stop and
Count give, the summary table as it is kept in the scene (JSON in a string property, so the
panel's table, Export and Bake Variant survive save and reload), its sort order, its CSV
(the same text as ``StudyResult.to_csv``) and the lines a plot draws.

A stored table holds the varied parameters, every summary column in the StudyResult's
order (variant, the parameters, the built-in columns), one row of numbers per variant (NaN
where a variant failed), the failures' reasons, and what the study ran over (frames, fps,
analysis, tolerance) so a later Bake Variant can say when the scene no longer matches.
"""
from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...solver import StudyError, shared_constants
from .csv_table import write_rows
from .timeline import with_scene_frame


def level_values(start: float, stop: float, count: int) -> tuple[float, ...]:
    """``count`` values evenly from ``start`` to ``stop`` (the last exactly ``stop``); one
    value: ``start``; a count below 1 gives no values, which the solver's grid refuses by
    name ("has no values (an empty range)")."""
    count = int(count)
    if count < 1:
        return ()
    if count == 1:
        return (float(start),)
    step = (stop - start) / (count - 1)
    return tuple(float(start + k * step) for k in range(count - 1)) + (float(stop),)


def study_levels(specs: list[tuple[str, float, float, int]]) -> dict[str, tuple[float, ...]]:
    """{parameter: values} for the solver's ``grid`` from the panel's (name, start, stop,
    count) rows; StudyError when a parameter is not picked or picked twice (the names
    themselves and the values are checked by the solver's Study and grid)."""
    levels: dict[str, tuple[float, ...]] = {}
    for k, (name, start, stop, count) in enumerate(specs):
        if not name:
            raise StudyError(f"pick parameter {k + 1} (a property of the mechanism's "
                             "items) first")
        if name in levels:
            raise StudyError(f"{name!r} is picked twice: vary two different parameters")
        if int(count) > 1 and start == stop:
            raise StudyError(f"{name} from {start:g} to {stop:g} is an empty range: "
                             f"{int(count)} equal values; set Stop, or Count 1")
        levels[name] = level_values(start, stop, count)
    return levels


def _num(x: Any) -> float | None:
    x = float(x)
    return None if math.isnan(x) else x


def scene_failures(failures: dict, frames: Any = None) -> dict[int, str]:
    """Variant -> its failure's reason, an output frame the solver names by its index from
    0 ("(frame k)") named as the scene's frame ``frames[0] + k`` (``frames``: the first and
    last scene frame the study ran over; None: the reasons as given)."""
    if frames is None:
        return {int(i): str(w) for i, w in failures.items()}
    scene = np.arange(int(frames[0]), int(frames[1]) + 1, dtype=float)
    return {int(i): with_scene_frame(str(w), scene) for i, w in failures.items()}


@dataclass
class StudyTable:
    """A study's summary table as the scene keeps it (module docstring)."""
    parameters: tuple[str, ...]
    columns: list[str]
    data: np.ndarray                     # (n, len(columns)) float, NaN where failed
    failures: dict[int, str] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    run_id: str = ""

    @classmethod
    def from_result(cls, res: Any, settings: dict[str, Any] | None = None) -> "StudyTable":
        """From a StudyResult (``settings``: what it ran over, kept as given).  A failure's
        reason that names an output frame by the solver's count from 0 ("(frame 2)") names
        the scene's frame instead (``scene_failures``), as a Bake's messages do."""
        cols = list(res.summary)
        data = np.array([np.asarray(res.summary[c], dtype=float) for c in cols]).T
        settings = dict(settings or {})
        return cls(tuple(res.parameters), cols, data.reshape(len(res), len(cols)),
                   scene_failures(res.failures, settings.get("frames")), settings,
                   uuid.uuid4().hex)

    def __len__(self) -> int:
        return len(self.data)

    # ------------------------------------------------------------------ storage
    def to_json(self) -> str:
        return json.dumps({"version": 1, "parameters": list(self.parameters),
                           "columns": self.columns,
                           "rows": [[_num(x) for x in row] for row in self.data],
                           "failures": {str(i): w for i, w in self.failures.items()},
                           "settings": self.settings, "run_id": self.run_id},
                          allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> "StudyTable | None":
        """The table kept in ``text``; None for an empty string (no study run yet)."""
        if not text:
            return None
        d = json.loads(text)
        cols = list(d["columns"])
        rows = [[math.nan if x is None else float(x) for x in r] for r in d["rows"]]
        data = np.array(rows, dtype=float).reshape(len(rows), len(cols))
        return cls(tuple(d["parameters"]), cols, data,
                   {int(i): w for i, w in d.get("failures", {}).items()},
                   dict(d.get("settings", {})), d.get("run_id", ""))

    # ------------------------------------------------------------------ reading
    def column(self, name: str) -> np.ndarray:
        if name not in self.columns:
            raise StudyError(f"the study's table has no column {name!r}")
        return self.data[:, self.columns.index(name)]

    def values(self, i: int) -> dict[str, float]:
        """Variant i's parameter values."""
        return {p: float(self.data[i, self.columns.index(p)]) for p in self.parameters}

    def row(self, i: int) -> dict[str, float]:
        return dict(zip(self.columns, map(float, self.data[i])))

    def result_columns(self) -> list[str]:
        """The columns after variant and the parameters (what a variant's run gives)."""
        return self.columns[1 + len(self.parameters):]

    def order(self, column: str, descending: bool = False) -> list[int]:
        """Variant indices sorted by ``column`` (ties by index); variants without a value
        (failed, NaN) last whichever the direction."""
        col = self.column(column)
        have = [i for i in range(len(self)) if not math.isnan(col[i])]
        missing = [i for i in range(len(self)) if math.isnan(col[i])]
        have.sort(key=lambda i: (-col[i] if descending else col[i], i))
        return have + missing

    def csv_rows(self) -> list[list[str]]:
        """Header and rows of ``StudyResult.to_csv``: every column, then "failure"."""
        out = [self.columns + ["failure"]]
        for i in range(len(self)):
            cells = [str(int(x)) if c == "variant" else ("nan" if math.isnan(x) else repr(float(x)))
                     for c, x in zip(self.columns, self.data[i])]
            out.append(cells + [self.failures.get(i, "")])
        return out

    def write_csv(self, path: str) -> None:
        """The table as CSV at ``path`` (csv_table.write_rows: a failed write keeps the file
        there, MechanismError names the file or folder)."""
        write_rows(path, self.csv_rows())

    def series(self, column: str) -> list[tuple[float | None, np.ndarray, np.ndarray]]:
        """The lines of a plot of ``column`` against the first parameter: (value of the
        second parameter or None, x (m,), y (m,)) sorted by x, one per value of the second
        parameter in the order they first appear; y is NaN where a variant failed."""
        x = self.column(self.parameters[0])
        y = self.column(column)
        if len(self.parameters) < 2:
            k = np.argsort(x, kind="stable")
            return [(None, x[k], y[k])]
        z = self.column(self.parameters[1])
        out = []
        for v in dict.fromkeys(z.tolist()):
            sel = np.flatnonzero(z == v)
            sel = sel[np.argsort(x[sel], kind="stable")]
            out.append((float(v), x[sel], y[sel]))
        return out


def describe(values: dict[str, float], units: dict[str, str] | None = None) -> str:
    """"a = 1, b = 0.25": a variant's values for reports, each with its unit from ``units``
    ({name: "m"}, SI) where it has one: "a = 1 m, b = 0.25"."""
    units = units or {}
    return ", ".join(f"{k} = {v:.6g}" + (f" {units[k]}" if units.get(k) else "")
                     for k, v in values.items())


def design_value(builder: Any, param: Any) -> float | None:
    """The value the mechanism as designed has for a resolved study Parameter (None when it
    has none to show, e.g. a spring's free length taken from the pose)."""
    try:
        if param.table == "gravity":
            return float(builder.gravity[param.index])
        if param.table == "constants":          # a named constant shared by its users
            table, name = shared_constants(builder)[param.index][0]
            return float(getattr(builder, table)[name].constants[param.index])
        item = getattr(builder, param.table)[param.item]
        if param.table == "couplers":           # a gear's ratio, a screw's pitch ...
            return float(item.parameter(param.field))
        if param.field == "constant":
            return float(item.constants[param.index])
        v = getattr(item, param.field)
        if v is None:
            return None
        return float(v) if param.index is None else float(np.asarray(v)[param.index])
    except (AttributeError, KeyError, IndexError, TypeError, ValueError):
        return None


def row_differs(stored: dict[str, float], now: dict[str, float], rel: float = 1e-9) -> list[str]:
    """Columns whose value ``now`` (a variant solved again) differs from the ``stored`` row
    by more than ``rel`` of its size (NaN equal to NaN); columns missing from either count."""
    out = []
    for c in sorted(set(stored) | set(now)):
        a, b = stored.get(c), now.get(c)
        if a is None or b is None:
            out.append(c)
        elif math.isnan(a) and math.isnan(b):
            continue
        elif not abs(a - b) <= rel * max(1.0, abs(a), abs(b)):
            out.append(c)
    return out
