"""Exact-derivative numbers: a Jet is a truncated second-order Taylor number (value, first
and second derivative with respect to one parameter, usually time), and the functions of
the expression language (sin ... ramp) work on floats, numpy arrays and Jets alike.

Derivative rules used (forward-mode automatic differentiation, 2nd order):
  sum:      (u + w)'' = u'' + w''
  product:  (u w)'  = u' w + u w',   (u w)'' = u'' w + 2 u' w' + u w''
  quotient: q = u / w  =>  q' = (u' - q w') / w,  q'' = (u'' - 2 q' w' - q w'') / w
  chain:    phi(u) -> (phi(u), phi'(u) u', phi''(u) u'^2 + phi'(u) u'')
  power:    u**c -> phi' = c u^(c-1), phi'' = c (c-1) u^(c-2);  u**w = exp(w log u)

Domain policy: on plain floats (and Jets of floats) sqrt/log/asin/acos outside their domain,
0**negative and negative**non-integer raise ExpressionError; on numpy arrays they follow numpy
(nan/inf, with numpy's RuntimeWarning). step/step5/ramp reject x1 <= x0. A function given a
Jet returns a Jet, except min/max, which return the argument they pick.
"""
from __future__ import annotations

import contextvars
import math
import operator
from typing import Any, Callable

import numpy as np

from . import elementary as el
from .errors import ExpressionError

__all__ = ["Jet", "STRICT", "jet", "value_of", "fpow", "sin", "cos", "tan", "asin", "acos", "atan",
           "atan2", "sqrt", "exp", "log", "abs", "min", "max", "step", "step5", "ramp"]

# While a user callable is probed with a Jet, float(jet) must fail so math.sin(t) is detected.
_STRICT: contextvars.ContextVar[bool] = contextvars.ContextVar("jet_strict", default=False)
_PLAIN = (float, int, np.floating, np.integer, np.ndarray)


def _num(x: Any) -> Any:
    return np.asarray(x, dtype=float) if isinstance(x, (np.ndarray, list, tuple)) else float(x)


def _jet(v: Any, d: Any, dd: Any) -> "Jet":
    """Fast internal constructor (no conversion)."""
    j = object.__new__(Jet)
    j.v, j.d, j.dd = v, d, dd
    return j


def _val(x: Any) -> Any:
    return x.v if isinstance(x, Jet) else x


def _as_jet(x: Any) -> "Jet":
    return x if isinstance(x, Jet) else _jet(x, 0.0, 0.0)


def _chain(u: "Jet", f0: Any, f1: Any, f2: Any) -> "Jet":
    """Chain rule: phi(u) with phi' = f1, phi'' = f2 at u.v."""
    return _jet(f0, f1 * u.d, f2 * u.d * u.d + f1 * u.dd)


def _fpow(a: Any, b: Any) -> Any:
    """a**b on plain values: floats via math.pow (never complex, never a huge int)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return el.power(a, b)
    try:
        return math.pow(a, b)
    except ValueError:
        if a == 0:
            raise ExpressionError(f"0 cannot be raised to a negative power ({b:g})") from None
        raise ExpressionError(f"a negative number ({a:g}) cannot be raised to a non-integer "
                              f"power ({b:g})") from None


class Jet:
    """Truncated 2nd-order Taylor number: value v, first derivative d, second derivative dd
    with respect to one scalar parameter (usually time). Components are floats or arrays."""
    __slots__ = ("v", "d", "dd")
    __array_ufunc__ = None  # numpy defers to our reflected operators; np.sin(jet) raises TypeError

    def __init__(self, v: Any, d: Any = 0.0, dd: Any = 0.0) -> None:
        self.v, self.d, self.dd = _num(v), _num(d), _num(dd)

    def __repr__(self) -> str:
        return f"Jet({self.v!r}, {self.d!r}, {self.dd!r})"

    def __float__(self) -> float:
        if _STRICT.get() and (np.any(self.d != 0) or np.any(self.dd != 0)):
            raise TypeError("a Jet was converted to a plain float (e.g. by math.sin or numpy), "
                            "which loses its derivatives")
        return float(self.v)

    def __add__(self, o: Any) -> "Jet":
        if isinstance(o, Jet):
            return _jet(self.v + o.v, self.d + o.d, self.dd + o.dd)
        return _jet(self.v + o, self.d, self.dd) if isinstance(o, _PLAIN) else NotImplemented

    __radd__ = __add__

    def __sub__(self, o: Any) -> "Jet":
        if isinstance(o, Jet):
            return _jet(self.v - o.v, self.d - o.d, self.dd - o.dd)
        return _jet(self.v - o, self.d, self.dd) if isinstance(o, _PLAIN) else NotImplemented

    def __rsub__(self, o: Any) -> "Jet":
        return _jet(o - self.v, -self.d, -self.dd) if isinstance(o, _PLAIN) else NotImplemented

    def __mul__(self, o: Any) -> "Jet":
        if isinstance(o, Jet):  # product rule
            return _jet(self.v * o.v, self.d * o.v + self.v * o.d,
                        self.dd * o.v + 2.0 * self.d * o.d + self.v * o.dd)
        return _jet(self.v * o, self.d * o, self.dd * o) if isinstance(o, _PLAIN) else NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, o: Any) -> "Jet":
        if isinstance(o, Jet):  # quotient rule written on q = u / w
            q = self.v / o.v
            q1 = (self.d - q * o.d) / o.v
            return _jet(q, q1, (self.dd - 2.0 * q1 * o.d - q * o.dd) / o.v)
        return _jet(self.v / o, self.d / o, self.dd / o) if isinstance(o, _PLAIN) else NotImplemented

    def __rtruediv__(self, o: Any) -> "Jet":
        return _as_jet(o) / self if isinstance(o, _PLAIN) else NotImplemented

    def __pow__(self, o: Any) -> "Jet":
        if isinstance(o, Jet):
            return _pow_jets(self, o)
        if not isinstance(o, _PLAIN):
            return NotImplemented
        u, c = self.v, o
        f = _fpow(u, c)
        if np.ndim(c) == 0 and c == 0:
            return _jet(f, 0.0 * self.d, 0.0 * self.dd)
        f1 = None
        try:  # c u^(c-1) and c (c-1) u^(c-2); the latter is 0 for c == 1 (also at u == 0)
            f1 = c * _fpow(u, c - 1.0)
            f2 = 0.0 if np.ndim(c) == 0 and c == 1 else c * (c - 1.0) * _fpow(u, c - 2.0)
        except ExpressionError:     # (x**1.5 at 0 has a first derivative but no second)
            which = "derivative" if f1 is None else "second derivative"
            raise ExpressionError(f"the {which} of x**{c:g} is infinite at x={u:g}") from None
        return _chain(self, f, f1, f2)

    def __rpow__(self, o: Any) -> "Jet":
        return _pow_jets(_as_jet(o), self) if isinstance(o, _PLAIN) else NotImplemented

    def __neg__(self) -> "Jet":
        return _jet(-self.v, -self.d, -self.dd)

    def __pos__(self) -> "Jet":
        return self

    def __abs__(self) -> "Jet":
        v = self.v  # |u| = sign(u) u, so the derivative at u == 0 is taken as 0
        s = np.sign(v) if isinstance(v, np.ndarray) else (math.copysign(1.0, v) if v != 0 else 0.0)
        return _jet(s * v, s * self.d, s * self.dd)


for _n, _op in (("__lt__", operator.lt), ("__le__", operator.le), ("__gt__", operator.gt),
                ("__ge__", operator.ge)):  # comparisons look at values only
    setattr(Jet, _n, lambda self, o, _op=_op: _op(self.v, _val(o)))
del _n, _op


def _pow_jets(u: Jet, w: Jet) -> Jet:
    """u**w with a Jet exponent: f = u^w, g = w log u, f' = f g', f'' = f (g'' + g'^2)."""
    if not isinstance(w.v, np.ndarray) and not isinstance(w.d, np.ndarray) and w.d == 0 and w.dd == 0:
        return u ** w.v  # exponent is a constant after all (works for negative u)
    if not isinstance(u.v, np.ndarray) and not u.v > 0:
        raise ExpressionError(f"the base of a power with a variable exponent must be positive "
                              f"(got {u.v:g})")
    f = _fpow(u.v, w.v)
    g = w * log(u)
    return _jet(f, f * g.d, f * (g.dd + g.d * g.d))


def _lift(name: str, mf: Callable, nf: Callable, der: Callable,
          ok: Callable[[float], bool] | None = None, why: str = "") -> Callable[[Any], Any]:
    """Build a function working on floats (math), arrays (numpy) and Jets (chain rule).
    der(m, u, f) returns (phi'(u), phi''(u)) using module m (math or numpy)."""
    def plain(u: Any) -> Any:
        if isinstance(u, np.ndarray):
            return nf(u)
        if ok is not None and not ok(u):
            raise ExpressionError(f"{name}({u:g}) is undefined: {why}")
        return mf(u)

    def fn(x: Any) -> Any:
        if not isinstance(x, Jet):
            return plain(x)
        u = x.v
        f = plain(u)
        try:
            f1, f2 = der(np if isinstance(u, np.ndarray) else math, u, f)
        except ZeroDivisionError:
            raise ExpressionError(f"the derivative of {name} is infinite at {u:g}") from None
        return _chain(x, f, f1, f2)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}(x) on floats, numpy arrays and Jets (exact derivatives)."
    return fn


_DOM_ASIN = "the argument must be between -1 and 1"
sin = _lift("sin", math.sin, np.sin, lambda m, u, f: (m.cos(u), -f))
cos = _lift("cos", math.cos, np.cos, lambda m, u, f: (-m.sin(u), -f))
tan = _lift("tan", math.tan, el.tan, lambda m, u, f: (1.0 + f * f, 2.0 * f * (1.0 + f * f)))
asin = _lift("asin", math.asin, el.arcsin, lambda m, u, f: (
    1.0 / m.sqrt(1.0 - u * u), u / (1.0 - u * u) ** 1.5), lambda u: -1.0 <= u <= 1.0, _DOM_ASIN)
acos = _lift("acos", math.acos, el.arccos, lambda m, u, f: (
    -1.0 / m.sqrt(1.0 - u * u), -u / (1.0 - u * u) ** 1.5), lambda u: -1.0 <= u <= 1.0, _DOM_ASIN)
atan = _lift("atan", math.atan, el.arctan, lambda m, u, f: (
    1.0 / (1.0 + u * u), -2.0 * u / (1.0 + u * u) ** 2))
sqrt = _lift("sqrt", math.sqrt, np.sqrt, lambda m, u, f: (0.5 / f, -0.25 / (u * f)),
             lambda u: u >= 0.0, "the argument must not be negative")
exp = _lift("exp", math.exp, el.exp, lambda m, u, f: (f, f))
log = _lift("log", math.log, el.log, lambda m, u, f: (1.0 / u, -1.0 / (u * u)),
            lambda u: u > 0.0, "the argument must be positive")


def atan2(y: Any, x: Any) -> Any:
    """Angle of (x, y); d = (x y' - y x') / r, r = x^2 + y^2, differentiated once more for dd."""
    if not isinstance(y, Jet) and not isinstance(x, Jet):
        if isinstance(y, np.ndarray) or isinstance(x, np.ndarray):
            return el.arctan2(y, x)
        return math.atan2(y, x)
    y, x = _as_jet(y), _as_jet(x)
    f = atan2(y.v, x.v)
    try:
        r = x.v * x.v + y.v * y.v
        d = (x.v * y.d - y.v * x.d) / r
        dd = (x.v * y.dd - y.v * x.dd - d * 2.0 * (x.v * x.d + y.v * y.d)) / r
    except ZeroDivisionError:
        raise ExpressionError("the derivative of atan2 is undefined at (0, 0)") from None
    return _jet(f, d, dd)


def abs(x: Any) -> Any:  # noqa: A001  (same name as the expression function)
    """|x|; on Jets sign(x) * x, so the derivative at 0 is 0."""
    if isinstance(x, Jet):
        return x.__abs__()
    return np.abs(x) if isinstance(x, np.ndarray) else math.fabs(x)


def _select(mask: Any, a: Any, b: Any) -> Any:
    """a where mask else b; elementwise for array masks, keeping Jet derivatives."""
    if not isinstance(mask, np.ndarray):
        return a if mask else b
    if isinstance(a, Jet) or isinstance(b, Jet):
        a, b = _as_jet(a), _as_jet(b)
        return _jet(np.where(mask, a.v, b.v), np.where(mask, a.d, b.d), np.where(mask, a.dd, b.dd))
    return np.where(mask, a, b)


def _pick(better: Callable[[Any, Any], Any], args: tuple[Any, ...]) -> Any:
    r = args[0]
    for x in args[1:]:
        r = _select(better(_val(x), _val(r)), x, r)
    return r


def min(a: Any, b: Any, *more: Any) -> Any:  # noqa: A001
    """Smallest argument, picked by value (its derivatives come along)."""
    return _pick(operator.lt, (a, b, *more))


def max(a: Any, b: Any, *more: Any) -> Any:  # noqa: A001
    """Largest argument, picked by value (its derivatives come along)."""
    return _pick(operator.gt, (a, b, *more))


def _unit(x: Any, x0: Any, x1: Any, fname: str) -> Any:
    """s = (x - x0) / (x1 - x0) clipped to [0, 1]; x1 <= x0 is rejected."""
    bad = _val(x1) <= _val(x0)
    if bad.any() if isinstance(bad, np.ndarray) else bad:
        raise ExpressionError(f"{fname}: x1 must be greater than x0 (got x0={_val(x0)}, "
                              f"x1={_val(x1)})")
    s = (x - x0) / (x1 - x0)
    lo, hi = (_jet(0.0, 0.0, 0.0), _jet(1.0, 0.0, 0.0)) if isinstance(s, Jet) else (0.0, 1.0)
    return _select(_val(s) < 0.0, lo, _select(_val(s) > 1.0, hi, s))


def step(x: Any, x0: Any, h0: Any, x1: Any, h1: Any) -> Any:
    """Adams STEP: h0 for x <= x0, h1 for x >= x1, cubic h0 + (h1-h0) s^2 (3-2s) between (C1)."""
    s = _unit(x, x0, x1, "step")
    return h0 + (h1 - h0) * (s * s * (3.0 - 2.0 * s))


def step5(x: Any, x0: Any, h0: Any, x1: Any, h1: Any) -> Any:
    """Adams STEP5: quintic blend s^3 (10 - 15 s + 6 s^2), C2 (continuous acceleration)."""
    s = _unit(x, x0, x1, "step5")
    return h0 + (h1 - h0) * (s * s * s * (10.0 + s * (6.0 * s - 15.0)))


def ramp(x: Any, x0: Any, x1: Any) -> Any:
    """Smooth ramp: 0 for x <= x0, slope step5(x, x0, 0, x1, 1), (x - x1) + (x1 - x0)/2 beyond x1.
    Between: L (5/2 s^4 - 3 s^5 + s^6), the integral of the step5 slope (L = x1 - x0)."""
    s = _unit(x, x0, x1, "ramp")
    length = x1 - x0
    inside = length * (s * s * s * s * (2.5 + s * (s - 3.0)))
    return _select(_val(x) > _val(x1), (x - x1) + 0.5 * length, inside)


# public names for the parser and time functions (spec layer)
STRICT, jet, value_of, fpow = _STRICT, _jet, _val, _fpow
