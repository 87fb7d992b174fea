"""Functions of time f(t) with exact first and second derivatives, as motions and applied
loads use them: from a number, a safe expression string (``expressions.parse``), a Python
callable (evaluated on a :class:`base.jet.Jet`) or a table of samples (times, values),
through its not-a-knot C2 cubic spline (``base.time_table``).  Expressions, which have no branches, are
also evaluated over all frame times at once (``TimeFunction.table``).  A TimeFunction pickles as
the recipe it was made from (a number or an expression string with its named constants is plain
data; a callable pickles as itself), so a mechanism can be sent to another process (a design
study's workers, solver/study/)."""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

import numpy as np

from ..base.errors import ExpressionError
from ..base.time_table import TimeTable, is_table
from ..base.jet import STRICT as _STRICT, Jet, jet as _jet, value_of as _val
from .expressions import parse


class TimeFunction:
    """f(t) with exact derivatives, from a number, an expression string or a Python callable."""

    def __init__(self, source: str, name: str, value: Callable[[float], Any],
                 derivs: Callable[[float], tuple[Any, Any, Any]],
                 many: Callable[[np.ndarray], tuple[Any, Any, Any]] | None = None,
                 recipe: tuple | None = None, constants_used: frozenset = frozenset(),
                 start: float = 0.0, breakpoints: tuple[float, ...] = (),
                 plain: Any = None) -> None:
        self.source, self.name, self._value, self._derivs = source, name, value, derivs
        self.start = start        # a time where it is defined (a table's first), to probe at
        self._many = many     # derivs on an array of times (expressions: no branches)
        self._plain = plain   # the value alone on an array of times, or a constant's number
        self._label = f"{name}: {source}" if name else source
        self._recipe = recipe     # time_function's arguments, to pickle by
        self.constants_used = constants_used    # named constants an expression uses
        self.breakpoints = breakpoints  # where its derivatives jump (Expression.breakpoints)

    def __repr__(self) -> str:
        return f"TimeFunction({self.source!r}, name={self.name!r})"

    def __reduce__(self) -> Any:
        if self._recipe is None:
            raise TypeError(f"{self._label}: this TimeFunction was not made by time_function "
                            "and cannot be pickled")
        return (time_function, self._recipe)

    def __deepcopy__(self, memo: dict) -> "TimeFunction":
        return self           # immutable: a copied mechanism shares it

    def _check(self, x: Any, which: str, t: float) -> float:
        try:
            f = float(_val(x))
        except (TypeError, ValueError):
            raise ExpressionError(f"{self._label} must return one number, got "
                                  f"{_returned(x)} at t={t!r}", time=t) from None
        if not math.isfinite(f):
            raise ExpressionError(f"{self._label} gives a non-finite {which} ({f}) at t={t!r}")
        return f

    def value(self, t: float) -> float:
        """f(t)."""
        t = float(t)
        return self._check(self._value(t), "value", t)

    def derivatives(self, t: float) -> tuple[float, float, float]:
        """(f, df/dt, d2f/dt2) at t, exact."""
        t = float(t)
        f, d, dd = self._derivs(t)
        return (self._check(f, "value", t), self._check(d, "first derivative", t),
                self._check(dd, "second derivative", t))

    def table(self, ts: np.ndarray) -> np.ndarray:
        """(len(ts), 3): f, df/dt, d2f/dt2 at many times, in one vectorized pass where the
        function allows it (constants, expressions), else one call per time.  Any failure
        is raised as derivatives() raises it, at the first time that fails."""
        return self._at_times(ts, 3, self.derivatives)

    def values(self, ts: np.ndarray) -> np.ndarray:
        """(len(ts),): f at many times, as ``table``; a failure is raised as value() raises
        it, at the first time that fails (an applied load needs no derivative: one infinite
        where f is finite, sqrt(0.3 - t) at 0.3, is no failure).  Constants and expressions
        are evaluated on the times alone, without the derivatives a Jet carries (a Jet's
        value is that same evaluation on its values, so the numbers are the same bits): an
        applied load's expression is evaluated at a Radau IIA step's five stage times on
        every right-hand side."""
        if self._plain is None:
            return self._at_times(ts, 1, self.value)[:, 0]
        ts = np.asarray(ts, dtype=float).reshape(-1)
        if not callable(self._plain):
            return np.full(ts.shape, self._plain)
        try:
            with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
                out = np.array(np.broadcast_to(np.asarray(self._plain(ts), dtype=float),
                                               ts.shape))
            if np.all(np.isfinite(out)):
                return out
        except (ExpressionError, ArithmeticError, ValueError):   # FloatingPointError too
            pass
        return np.array([self.value(t) for t in ts], dtype=float)

    def _at_times(self, ts: np.ndarray, k: int, one: Callable[[float], Any]) -> np.ndarray:
        """(len(ts), k): the first k of f, df/dt, d2f/dt2 at many times, one vectorized pass
        where it gives finite numbers, else ``one(t)`` a time (its error at the first)."""
        ts = np.asarray(ts, dtype=float).reshape(-1)
        if self._many is not None:
            try:   # numpy raises where a float would (log(0), sqrt(-1), 1/0, overflow): a
                # value that min or max leaves out still fails the pass, as it fails one time
                with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
                    out = np.stack([np.broadcast_to(np.asarray(x, dtype=float), ts.shape)
                                    for x in tuple(self._many(ts))[:k]], axis=1)
                if np.all(np.isfinite(out)):
                    return out
            except (ExpressionError, ArithmeticError, ValueError):   # FloatingPointError too
                pass
        return np.array([one(t) for t in ts], dtype=float).reshape(len(ts), k)

    __call__ = value


def derivatives_of(fns: Sequence[Any], t: Any) -> np.ndarray:
    """(n, 3): f, df/dt, d2f/dt2 of each function at t; for times t (S,) (S, n, 3), each
    function evaluated once on all of them.  Each user function is its own expression,
    evaluated on its own: the one loop over items a right-hand side keeps (so
    tests/test_fixed_calls.py leaves this module out of its count)."""
    if np.ndim(t):
        return np.stack([fn.table(t) for fn in fns], axis=1) if fns else np.zeros((len(t), 0, 3))
    if not fns:
        return np.zeros((0, 3))
    return np.array([fn.derivatives(t) for fn in fns], dtype=float)


def values_of(rows: Sequence[Sequence[Any]], t: Any) -> np.ndarray:
    """(rows, columns): the values of rows of functions at t (an applied load's six
    components a row); for times t (S,) (S, rows, columns), each function on all of them;
    a design study's per-variant function gives one value per variant: (V, rows, columns).
    One expression at a time, as ``derivatives_of``."""
    if np.ndim(t):
        return np.stack([np.stack([f.values(t) for f in funcs], -1) for funcs in rows], -2)
    vals = [[f.value(t) for f in funcs] for funcs in rows]
    if any(np.ndim(x) for fs in vals for x in fs):
        return np.stack([np.stack(np.broadcast_arrays(*fs), -1) for fs in vals], -2)
    return np.array(vals)


def time_function(spec: Any, name: str = "", derivatives: Any = None,
                  constants: dict[str, float] | None = None,
                  breakpoints: Any = None) -> TimeFunction:
    """Build a TimeFunction from a number, an expression string (variable t; ``constants``:
    named numbers it may use, expressions.parse), a callable f(t) or a table (times,
    values): two sequences of numbers, the times strictly increasing, through their
    not-a-knot C2 cubic spline (base/time_table.py; defined from the first time to the last).
    A callable is evaluated on Jet(t, 1, 0) unless derivatives=(df, ddf) callables are given;
    it is probed once at t = 0 so one using math/numpy functions is reported right away.
    ``breakpoints``: times (s) where the function's rate or acceleration may jump (a
    callable's kinks, which only an expression's own parse finds): a dynamic run's steps
    end on them, as on an expression's."""
    fn = _made(spec, name, derivatives, constants)
    if breakpoints is None:
        return fn
    given = _times(breakpoints, f"{name}: " if name else "")
    return TimeFunction(fn.source, fn.name, fn._value, fn._derivs, fn._many,
                        None if fn._recipe is None else fn._recipe[:4] + (given,),
                        fn.constants_used, fn.start,
                        tuple(sorted(set(fn.breakpoints) | set(given))), fn._plain)


def _times(values: Any, prefix: str) -> tuple[float, ...]:
    """``breakpoints`` as a tuple of finite times (s), refused by name otherwise."""
    try:
        out = tuple(float(x) for x in np.ravel(np.asarray(values, dtype=float)))
    except (TypeError, ValueError):
        raise ExpressionError(f"{prefix}breakpoints must be numbers (times in s), got "
                              f"{values!r}") from None
    if not all(map(math.isfinite, out)):
        raise ExpressionError(f"{prefix}breakpoints must be finite times (s), got {out}")
    return out


def _made(spec: Any, name: str, derivatives: Any, constants: dict[str, float] | None
          ) -> TimeFunction:
    """time_function without its breakpoints."""
    prefix = f"{name}: " if name else ""
    if isinstance(spec, TimeFunction):
        return spec
    if derivatives is not None and not callable(spec):
        raise ExpressionError(f"{prefix}derivatives=(df, ddf) only applies to a callable")
    if constants and not isinstance(spec, str):
        raise ExpressionError(f"{prefix}named constants apply to an expression string only")
    recipe = (spec, name, derivatives, dict(constants) if constants else None)
    if is_table(spec):
        if derivatives is not None:
            raise ExpressionError(f"{prefix}a table's derivatives are its spline's: give no "
                                  "derivatives=")
        table = TimeTable(spec[0], spec[1], name or "table")
        return TimeFunction(f"table of {len(table.times)} samples", name,
                            lambda t: table.at(t)[0], table.at, table.at,
                            ((table.times, table.values), name, None, None), start=table.start)
    if isinstance(spec, (int, float, np.integer, np.floating)) and not isinstance(spec, bool):
        c = float(spec)
        if not math.isfinite(c):
            raise ExpressionError(f"{prefix}constant {c} is not finite")
        return TimeFunction(repr(c), name, lambda t: c, lambda t: (c, 0.0, 0.0),
                            lambda ts: (c, 0.0, 0.0), recipe, plain=c)
    if isinstance(spec, str):
        expr = parse(spec, ("t",), name, constants)
        return TimeFunction(repr(expr.source), name, lambda t: expr(t=t),
                            lambda t: _parts(expr(t=_jet(t, 1.0, 0.0))),
                            lambda ts: _parts(expr(t=_jet(ts, np.ones_like(ts), np.zeros_like(ts)))),
                            recipe, expr.constants_used, breakpoints=expr.breakpoints,
                            plain=lambda ts: expr(t=ts))
    if not callable(spec):
        raise ExpressionError(f"{prefix}expected a number, an expression string, a callable "
                              f"f(t) or a table (times, values) of two sequences, got "
                              f"{type(spec).__name__}")
    label = getattr(spec, "__name__", "callable")

    def call(fn: Callable[[Any], Any], t: Any) -> Any:
        try:
            return fn(t)
        except (ArithmeticError, ValueError, TypeError) as exc:
            if isinstance(exc, TypeError) and isinstance(t, Jet):
                raise ExpressionError(
                    f"{prefix}the function {label!r} cannot be differentiated exactly ({exc}). It "
                    f"must use + - * / ** and the functions of solver.vocabulary.expressions (from "
                    f"solver.vocabulary.expressions import sin, cos, ...), not math or numpy; or pass "
                    f"derivatives=(df, ddf)") from None
            at = _val(t)
            raise ExpressionError(f"{prefix}the function {getattr(fn, '__name__', label)!r} "
                                  f"failed at t={at!r}: {type(exc).__name__}: {exc}",
                                  time=float(at) if np.ndim(at) == 0 else None) from None

    if derivatives is not None:
        fns = tuple(derivatives) if isinstance(derivatives, (tuple, list)) else ()
        if len(fns) != 2 or not all(callable(g) for g in fns):
            raise ExpressionError(f"{prefix}derivatives must be a pair of callables (df, ddf)")
        return TimeFunction(label, name, lambda t: call(spec, t),
                            lambda t: (call(spec, t), call(fns[0], t), call(fns[1], t)),
                            recipe=(spec, name, fns, None))

    def derivs(t: float) -> tuple[Any, Any, Any]:
        token = _STRICT.set(True)  # float(jet) now raises TypeError
        try:
            return _parts(call(spec, _jet(t, 1.0, 0.0)))
        finally:
            _STRICT.reset(token)

    try:
        derivs(0.0)
    except ExpressionError as exc:
        if "differentiated exactly" in str(exc):
            raise
    return TimeFunction(label, name, lambda t: call(spec, t), derivs, recipe=recipe)


def _returned(x: Any) -> str:
    """What a user's function returned instead of a number, as a message says it: an
    array by its shape (never the exact-derivative numbers it carries), else its repr."""
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape}"
    if isinstance(x, (list, tuple)):
        return f"a {type(x).__name__} of {len(x)} items"
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _parts(r: Any) -> tuple[Any, Any, Any]:
    return (r.v, r.d, r.dd) if isinstance(r, Jet) else (r, 0.0, 0.0)
