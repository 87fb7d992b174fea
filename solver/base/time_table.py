"""A function of time given as a table of samples: the C2 cubic spline through them with
not-a-knot ends, and its exact first and second derivatives (a motion's position, velocity
and acceleration).  Not-a-knot: the third derivative is continuous at the second and the
last-but-one times as well, so the first and last two pieces are one cubic each and no end
value of a derivative is assumed (a natural spline's zero second derivative at the ends
would be a wrong acceleration there); de Boor 1978, ch. IV, eqs. (8)-(9) and the
not-a-knot end conditions.  Its error for a smooth f with samples h apart is O(h^4) in the
value, O(h^3) in the first derivative and O(h^2) in the second."""
from __future__ import annotations

from typing import Any

import numpy as np

from .errors import ExpressionError


class TimeTable:
    """The not-a-knot cubic spline through (times, values): ``at(t)`` gives f, df/dt and
    d2f/dt2 (scalars, or arrays for an array of times); a time outside [times[0],
    times[-1]] raises ExpressionError naming the table (no extrapolation)."""

    def __init__(self, times: Any, values: Any, name: str = "") -> None:
        self.name = name
        self.times, self.values = _checked(times, values, name)
        self.slopes = not_a_knot_slopes(self.times, self.values)

    @property
    def slack(self) -> float:
        """How far past its ends (s) a time is still taken as the end: 16 units of
        rounding of the largest time (|t| or the span), the error a few additions of
        step sizes leave in a step's end."""
        return 16.0 * float(np.finfo(float).eps) * float(max(abs(self.times[0]),
                                                            abs(self.times[-1]),
                                                            self.times[-1] - self.times[0]))

    @property
    def start(self) -> float:
        """The first time of the table (s)."""
        return float(self.times[0])

    def at(self, t: Any) -> tuple[Any, Any, Any]:
        """(f, df/dt, d2f/dt2) at t (s; a number or an array): on each interval the cubic
        Hermite polynomial of the values and spline slopes at its ends.  A time past an end
        by no more than rounding (``slack``: an integrator's step end t + h that lands an
        ulp past the last frame, which is the table's last time) takes the end cubic."""
        ts = np.asarray(t, dtype=float)
        lo, hi = self.times[0], self.times[-1]
        slack = self.slack
        outside = ~((ts >= lo - slack) & (ts <= hi + slack))
        if np.any(outside):
            bad = float(ts.reshape(-1)[np.argmax(outside.reshape(-1))])
            raise ExpressionError(f"{self.name}: t = {bad:.6g} s is outside the table's times "
                                  f"[{lo:.6g}, {hi:.6g}] s (a table is not extended past its "
                                  "ends)", time=bad)
        i = np.clip(np.searchsorted(self.times, ts, side="right") - 1, 0, len(self.times) - 2)
        h = self.times[i + 1] - self.times[i]
        y0, y1, s0, s1 = self.values[i], self.values[i + 1], self.slopes[i], self.slopes[i + 1]
        delta = (y1 - y0) / h
        c2 = (3.0 * delta - 2.0 * s0 - s1) / h
        c3 = (s0 + s1 - 2.0 * delta) / (h * h)
        d = ts - self.times[i]
        f = y0 + d * (s0 + d * (c2 + d * c3))
        df = s0 + d * (2.0 * c2 + 3.0 * c3 * d)
        ddf = 2.0 * c2 + 6.0 * c3 * d
        if ts.ndim == 0:
            return float(f), float(df), float(ddf)
        return f, df, ddf


def is_table(spec: Any) -> bool:
    """Whether a motion's spec is a table: a pair (times, values) of sequences."""
    return (isinstance(spec, (tuple, list)) and len(spec) == 2
            and all(np.ndim(part) == 1 for part in spec))


def _checked(times: Any, values: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The table as float arrays, or ExpressionError naming it: two or more times, as many
    values, all finite, the times strictly increasing."""
    try:
        t = np.array(times, dtype=float).reshape(-1)
        y = np.array(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ExpressionError(f"{name}: a table's times and values must be numbers") from None
    if len(t) != len(y):
        raise ExpressionError(f"{name}: the table has {len(t)} times but {len(y)} values")
    if len(t) < 2:
        raise ExpressionError(f"{name}: a table needs at least two times")
    for what, a in (("times", t), ("values", y)):
        if not np.all(np.isfinite(a)):
            k = int(np.argmax(~np.isfinite(a)))
            raise ExpressionError(f"{name}: the table's {what}[{k}] is {a[k]} (not finite)")
    if np.any(np.diff(t) <= 0.0):
        k = int(np.argmax(np.diff(t) <= 0.0)) + 1
        raise ExpressionError(f"{name}: the table's times must increase strictly: times[{k}] "
                              f"= {t[k]:.6g} s follows {t[k - 1]:.6g} s")
    return t, y


def not_a_knot_slopes(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The slopes at the times t (n,) of the not-a-knot C2 cubic through y (n,), or of one
    such cubic per column of y (n, k) (a sampled path's coordinates): de Boor's tridiagonal
    system in the slopes (continuity of the second derivative at each inner time; the
    third's at the second and last-but-one), solved by elimination without pivoting.  Two
    times give the line, three the parabola through them."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    h, n = np.diff(t), len(t)
    h = h.reshape((-1,) + (1,) * (y.ndim - 1))       # against each column of y
    delta = np.diff(y, axis=0) / h
    if n == 2:
        return np.stack([delta[0], delta[0]])
    if n == 3:
        c = (delta[1] - delta[0]) / (h[0] + h[1])
        return np.stack([delta[0] - c * h[0], delta[0] + c * h[0], delta[1] + c * h[1]])
    lower = np.zeros((n,) + h.shape[1:])
    diag, upper, rhs = np.zeros_like(lower), np.zeros_like(lower), np.zeros(y.shape)
    lower[1:-1], diag[1:-1], upper[1:-1] = h[1:], 2.0 * (h[:-1] + h[1:]), h[:-1]
    rhs[1:-1] = 3.0 * (h[1:] * delta[:-1] + h[:-1] * delta[1:])
    s = h[0] + h[1]
    diag[0], upper[0] = h[1], s
    rhs[0] = ((h[0] + 2.0 * s) * h[1] * delta[0] + h[0] ** 2 * delta[1]) / s
    s = h[-1] + h[-2]
    lower[-1], diag[-1] = s, h[-2]
    rhs[-1] = (h[-1] ** 2 * delta[-2] + (2.0 * s + h[-1]) * h[-2] * delta[-1]) / s
    return _tridiagonal(lower, diag, upper, rhs)


def _tridiagonal(lower: np.ndarray, diag: np.ndarray, upper: np.ndarray,
                 rhs: np.ndarray) -> np.ndarray:
    """x with lower[i] x[i-1] + diag[i] x[i] + upper[i] x[i+1] = rhs[i] (Thomas' forward
    elimination and back substitution; once per table, when the motion is added)."""
    n = len(diag)
    c, d = np.zeros(diag.shape), np.zeros(rhs.shape)
    c[0], d[0] = upper[0] / diag[0], rhs[0] / diag[0]
    for i in range(1, n):
        m = diag[i] - lower[i] * c[i - 1]
        c[i] = upper[i] / m
        d[i] = (rhs[i] - lower[i] * d[i - 1]) / m
    x = np.zeros(rhs.shape)
    x[-1] = d[-1]
    for i in range(n - 2, -1, -1):
        x[i] = d[i] - c[i] * x[i + 1]
    return x
