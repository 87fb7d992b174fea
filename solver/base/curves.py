"""Smooth curves for the pin-in-slot and cam constraints: a C4 quintic spline through the
user's points, in a chord-length parameter, evaluated with three derivatives for many u at once.

Parameter.  u runs from 0 to ``length`` = the sum of the chords between the knots (closing
chord included for a closed curve), so |dx/du| is close to 1 and tolerances on u are in model
length units (the chord-length parametrization, e.g. E. T. Y. Lee, CAD 21, 1989).  For a
circle sampled n times the speed is theta / (2 sin(theta / 2)), theta = 2 pi / n: 1 + 1.0e-5
for n = 400.

Degree 5, not 3.  A cubic interpolant of a circle errs by h^4 |x''''| / 384 at the midpoints
(h the knot spacing; 1e-9 of R needs n >= 253 samples, which is fine), but its curvature errs by
~h^2 / 12 (5e-5 relative at n = 256) and its x''' jumps at every knot.  A constraint built on it
has a right-hand side whose derivative jumps at each knot a follower crosses; the order 8-9
integrators of this solver (DOP853, Radau IIA) then cut their steps at every knot.  The quintic
is C4 (x''' continuous, only x^(5) jumps), its error for a smooth curve is
~ h^(6-d) |x^(6)| |c_d| for the d-th derivative, where for uniform periodic knots c_0 = 3/64/6!
= 1/15360 at the midpoints (the Bernoulli-polynomial form of the cardinal spline's error,
B_6(1/2) - B_6 = -3/64) and c_2 = |B_4|/4! = 1/720 at the knots; both constants agree with
the measured errors of tests/test_curves.py.  With the default 400 samples a circle's radius
is reproduced to rounding (h^6/15360 = 4e-15 relative), its curvature to ~1e-10.

End conditions of an open curve: not-a-knot (the knots at the 2nd, 3rd and the two matching
ones at the other end are removed, so the first and last three spans are one quintic each:
de Boor ch. IV for cubics, ch. XIII in general; the same spline as scipy's
make_interp_spline(k=5), which the tests check).  Natural conditions would force
x''' = x'''' = 0 at the ends, a false flattening exactly where a pin leaves its slot; not-a-knot
keeps the O(h^6) accuracy up to the ends.  Open curves with fewer than six points are the one
polynomial of degree n - 1 through them.  Outside [0, length] ``evaluate`` returns the end
span's polynomial continued (smooth, so a Newton iteration may step outside and come back);
``inside`` tells the caller whether the pin has left the slot.

Solving.  The interpolation conditions are a B-spline collocation system (de Boor, A Practical
Guide to Splines, ch. IX-XIII), banded with two diagonals either side; a closed curve's system
is cyclic.  It is solved by Gaussian elimination in band storage without pivoting -- safe because
B-spline collocation matrices are totally positive (de Boor and Pinkus 1977) -- with the cyclic
corner entries added back by the Sherman-Morrison-Woodbury formula; tiny systems are solved
densely.  The spline is then stored as Taylor coefficients per span (pp form, de Boor ch. VII),
so evaluation is a search for the span and a polynomial in the local offset.
"""
from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import numpy as np

from .errors import MechanismError, finite_number, shown

DEGREE = 5              # quintic: C4 (module docstring)
DEFAULT_SAMPLES = 400   # from_function's samples: a circle to rounding, curvature to ~1e-10
DUPLICATE_TOL = 1e-12   # points closer than this times the size are one point
FLAT_TOL = 1e-9         # planar / collinear: all points within this times the size
SPAN_SAMPLES = 8        # nearest(): candidates per span of the global search

_ORDER = DEGREE + 1
_D = np.arange(_ORDER)
# derivative d of sum_m a_m s^m is sum_m a_m m!/(m-d)! s^(m-d): weights and exponents (d, m)
_W = np.array([[math.perm(m, d) for m in range(_ORDER)] for d in range(_ORDER)], dtype=float)
_E = np.maximum(_D[None, :] - _D[:, None], 0)


class PlaneFit(NamedTuple):
    """Least-squares plane of a curve's knots (the spline lies in it whenever the knots do:
    its coordinate along the normal interpolates a constant, and splines reproduce constants)."""
    origin: np.ndarray      # (3,) centroid of the knots
    normal: np.ndarray      # (3,) unit normal; a closed curve runs counter-clockwise about it
    is_planar: bool         # every knot within FLAT_TOL * size of the plane
    deviation: float        # largest distance of a knot from the plane (model units)


# ---------------------------------------------------------------- B-splines and the solve

def _basis(T: np.ndarray, mu: np.ndarray, x: np.ndarray, p: int) -> np.ndarray:
    """(m, p + 1): the B-splines N_{mu-p+r, p}(x), r = 0..p, nonzero on [T[mu], T[mu+1]].

    Cox-de Boor recursion N_{j,q} = (x - t_j)/(t_{j+q} - t_j) N_{j,q-1}
    + (t_{j+q+1} - x)/(t_{j+q+1} - t_{j+1}) N_{j+1,q-1} (de Boor ch. IX); every
    denominator used spans [T[mu], T[mu+1]], which is never empty."""
    N = np.ones((len(x), 1))
    for q in range(1, p + 1):
        new = np.zeros((len(x), q + 1))
        for r in range(q + 1):
            j = mu - q + r
            if r >= 1:
                new[:, r] += (x - T[j]) / (T[j + q] - T[j]) * N[:, r - 1]
            if r < q:
                new[:, r] += (T[j + q + 1] - x) / (T[j + q + 1] - T[j + 1]) * N[:, r]
        N = new
    return N


def _band_solve(band: np.ndarray, lo: int, up: int, rhs: np.ndarray) -> np.ndarray:
    """Solve a banded system without pivoting; ``band[i, lo + j - i]`` holds A[i, j].
    Fine for totally positive matrices (de Boor and Pinkus 1977).  O(n (lo + up)) work."""
    band, b = band.copy(), rhs.copy()
    n = len(b)
    for k in range(n - 1):
        piv = band[k, lo]
        if piv == 0.0:
            raise np.linalg.LinAlgError("zero pivot")
        for i in range(k + 1, min(k + lo + 1, n)):
            f = band[i, lo + k - i] / piv
            if f != 0.0:
                band[i, lo + k - i: lo + k - i + up + 1] -= f * band[k, lo: lo + up + 1]
                b[i] -= f * b[k]
    if band[n - 1, lo] == 0.0:
        raise np.linalg.LinAlgError("zero pivot")
    x = np.empty_like(b)
    for k in range(n - 1, -1, -1):
        m = min(up, n - 1 - k)
        x[k] = (b[k] - band[k, lo + 1: lo + 1 + m] @ x[k + 1: k + 1 + m]) / band[k, lo]
    return x


def _solve(n: int, rows: np.ndarray, offs: np.ndarray, vals: np.ndarray,
           rhs: np.ndarray) -> np.ndarray:
    """Solve A z = rhs, A given as entries (row, row + offset, value); column indices outside
    [0, n) wrap round (a cyclic system).  The band is eliminated by ``_band_solve`` and the
    wrapped corner entries, A = B + U V^T, restored by Sherman-Morrison-Woodbury:
    A^-1 = B^-1 - B^-1 U (I + V^T B^-1 U)^-1 V^T B^-1 (Golub and Van Loan, Matrix
    Computations, sec. 2.1)."""
    keep = vals != 0.0
    rows, offs, vals = rows[keep], offs[keep], vals[keep]
    cols = rows + offs
    lo, up = max(0, -int(offs.min())), max(0, int(offs.max()))
    if n <= 2 * (lo + up) + 2:              # the band would wrap onto itself: dense
        A = np.zeros((n, n))
        np.add.at(A, (rows, cols % n), vals)
        return np.linalg.solve(A, rhs)
    inband = (cols >= 0) & (cols < n)
    band = np.zeros((n, lo + up + 1))
    np.add.at(band, (rows[inband], offs[inband] + lo), vals[inband])
    if inband.all():
        return _band_solve(band, lo, up, rhs)
    R, a = np.unique(rows[~inband], return_inverse=True)
    Vt = np.zeros((len(R), n))
    np.add.at(Vt, (a, cols[~inband] % n), vals[~inband])
    U = np.zeros((n, len(R)))
    U[R, np.arange(len(R))] = 1.0
    sol = _band_solve(band, lo, up, np.hstack([rhs, U]))
    Z, W = sol[:, :rhs.shape[1]], sol[:, rhs.shape[1]:]
    return Z - W @ np.linalg.solve(np.eye(len(R)) + Vt @ W, Vt @ Z)


def _fit(P: np.ndarray, closed: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Interpolating spline through the knots P (n, 3) in chord length: (knot parameters (n,),
    span breaks (spans + 1,), Taylor coefficients (spans, 6, 3), length)."""
    n = len(P)
    chords = np.linalg.norm(np.diff(np.vstack([P, P[:1]]) if closed else P, axis=0), axis=1)
    u = np.concatenate([[0.0], np.cumsum(chords[:n - 1])])
    L = float(u[-1] + chords[-1]) if closed else float(u[-1])
    if closed:
        # periodic knots t_i = u_(i mod n) + (i div n) L, i = -k..n+k, stored from index 0
        k, shift = DEGREE, (DEGREE + 1) // 2
        i = np.arange(-k, n + k + 1)
        T = u[i % n] + (i // n) * L
        mu = np.arange(n) + k                       # span of knot i in T
        B = _basis(T, mu, u, k)                     # N_{i..i+k}(u_i); the last is 0
        rows = np.repeat(np.arange(n), k + 1)
        # unknown of B-spline j (= index in T minus k) is numbered j + shift: band -2..+3
        offs = np.tile(np.arange(k + 1) - k + shift, n)
        z = _solve(n, rows, offs, B.ravel(), P)
        C = z[(np.arange(n + k) - k + shift) % n]   # coefficient of each B-spline on T
        left, seg_mu = u, mu
        breaks = np.append(u, L)
    else:
        # not-a-knot: end knots (k+1)-fold, interior knots u_3 .. u_(n-4) (none if n <= 6)
        k = min(DEGREE, n - 1)
        T = np.concatenate([np.full(k + 1, u[0]), u[3:n - 3], np.full(k + 1, L)])

        def span(x: np.ndarray) -> np.ndarray:
            return np.clip(np.searchsorted(T, x, side="right") - 1, k, len(T) - k - 2)

        mu = span(u)
        B = _basis(T, mu, u, k)
        rows = np.repeat(np.arange(n), k + 1)
        offs = ((mu - k)[:, None] + np.arange(k + 1) - np.arange(n)[:, None]).ravel()
        C = _solve(n, rows, offs, B.ravel(), P)
        left, seg_mu, breaks = u[:-1], span(u[:-1]), u
    # pp form: Taylor coefficients D^d s(left) / d! from the differenced coefficients
    # c_j^(d) = (k-d+1) (c_j^(d-1) - c_(j-1)^(d-1)) / (t_(j+k-d+1) - t_j) (de Boor ch. X)
    coef = np.zeros((len(left), _ORDER, 3))
    Cd = C
    for d in range(k + 1):
        if d:
            j = np.arange(1, len(Cd))
            den = T[j + k - d + 1] - T[j]
            new = np.zeros_like(Cd)
            ok = den > 0.0
            new[1:][ok] = (k - d + 1) * (Cd[1:] - Cd[:-1])[ok] / den[ok, None]
            Cd = new
        Bd = _basis(T, seg_mu, left, k - d)
        jj = seg_mu[:, None] - (k - d) + np.arange(k - d + 1)
        coef[:, d] = np.einsum("mr,mrj->mj", Bd, Cd[jj]) / math.factorial(d)
    return u, breaks, coef, L


# ---------------------------------------------------------------- input checks

def _number(value: Any, name: str, label: str) -> float:
    """A constructor's argument as a finite float, or MechanismError naming the curve and
    the argument."""
    return finite_number(value, f"curve {name!r}: {label}")


def _prepare(points: Any, closed: bool, name: str) -> tuple[np.ndarray, int, float]:
    """Checked knots (n, 3), the number of consecutive duplicates dropped, and the size.  A
    closed curve's end point repeating its first is dropped too, without being counted."""
    try:
        P = np.array(points, dtype=float)
    except (TypeError, ValueError) as exc:
        raise MechanismError(f"curve {name!r}: points are not an array of numbers ({exc})") from None
    if P.ndim != 2 or P.shape[1] not in (2, 3):
        raise MechanismError(f"curve {name!r}: points must be an (n, 3) or (n, 2) array, "
                             f"got shape {P.shape}")
    bad = ~np.isfinite(P).all(axis=1)
    if bad.any():
        raise MechanismError(f"curve {name!r}: point {int(np.argmax(bad))} is not finite "
                             f"({P[bad][0].tolist()})")
    if P.shape[1] == 2:
        P = np.column_stack([P, np.zeros(len(P))])
    size = float(np.ptp(P, axis=0).max()) if len(P) else 0.0
    if not size > 0.0:
        raise MechanismError(f"curve {name!r}: zero length (its {len(P)} points coincide)")
    tol = DUPLICATE_TOL * size
    keep = np.concatenate([[True], np.linalg.norm(np.diff(P, axis=0), axis=1) > tol])
    Q = P[keep]
    if closed and len(Q) > 1 and np.linalg.norm(Q[-1] - Q[0]) <= tol:
        Q = Q[:-1]
    if len(Q) < 3:
        raise MechanismError(f"curve {name!r}: fewer than three distinct points ({len(P)} given, "
                             f"{len(Q)} distinct)")
    if closed:
        c = Q - Q.mean(axis=0)
        line = np.linalg.svd(c, full_matrices=False)[2][0]
        off = np.linalg.norm(c - np.outer(c @ line, line), axis=1).max()
        if off <= FLAT_TOL * size:
            raise MechanismError(f"curve {name!r}: a closed curve whose points all lie on one "
                                 f"line is degenerate")
    return Q, int((~keep).sum()), size


def _sample(f: Callable[..., Any], u: np.ndarray, name: str) -> np.ndarray:
    """f at every u as (m, 3): one vectorized call if f takes arrays and returns (m, 3),
    (m, 2), (3, m) or (2, m) (m > 3 here), else one call per u, each (3,) or (2,)."""
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(f(u), dtype=float)
        if out.ndim == 2 and out.shape[0] in (2, 3) and out.shape[1] == len(u):
            out = out.T
        vectorized = out.shape in ((len(u), 2), (len(u), 3))
    except Exception:                           # not vectorized: call it per sample
        vectorized = False
    if not vectorized:
        rows = []
        for x in u:
            try:
                r = np.asarray(f(float(x)), dtype=float)
            except Exception as exc:
                raise MechanismError(f"curve {name!r}: the function raised {type(exc).__name__}"
                                     f" at u = {x:.6g}: {exc}") from exc
            if r.shape not in ((2,), (3,)) or (rows and r.shape != rows[0].shape):
                raise MechanismError(f"curve {name!r}: the function returned shape {r.shape} at "
                                     f"u = {x:.6g}; expected (3,) or (2,)")
            rows.append(r)
        out = np.array(rows)
    bad = ~np.isfinite(out).all(axis=1)
    if bad.any():
        raise MechanismError(f"curve {name!r}: the function is not finite at "
                             f"u = {u[np.argmax(bad)]:.6g}")
    return out if out.shape[1] == 3 else np.column_stack([out, np.zeros(len(out))])


# ---------------------------------------------------------------- the curve

class Curve:
    """A C4 quintic spline curve through knots, parameter u = chord length in model units.

    Build it with ``from_points``, ``from_function``, ``circle`` or ``ellipse``.  Read-only
    attributes: ``name``, ``closed``, ``points`` (knots, (n, 3)), ``parameters`` (u of each
    knot, (n,)), ``length`` (parameter range, the period of a closed curve), ``size``
    (largest extent of the knots' bounding box), ``fit_error`` (0 for from_points, else the
    measured distance of the function from the spline, model units) and ``dropped``
    (consecutive duplicate points left out)."""

    def __init__(self, P: np.ndarray, closed: bool, name: str, size: float, dropped: int,
                 fit_error: float = 0.0) -> None:
        """Internal: use the constructors, which check the input (``_prepare``)."""
        try:
            u, breaks, coef, L = _fit(P, closed)
        except np.linalg.LinAlgError:
            raise MechanismError(f"curve {name!r}: the spline through its points cannot be "
                                 f"solved (degenerate point spacing)") from None
        if not (np.isfinite(coef).all() and L > 0.0):
            raise MechanismError(f"curve {name!r}: the spline through its points is not finite")
        h = np.diff(breaks)
        t = (np.arange(SPAN_SAMPLES) / SPAN_SAMPLES)
        su = (breaks[:-1, None] + h[:, None] * t).ravel()
        sdu = np.repeat(h / SPAN_SAMPLES, SPAN_SAMPLES)
        if not closed:
            su, sdu = np.append(su, L), np.append(sdu, h[-1] / SPAN_SAMPLES)
        fields = dict(name=name, closed=bool(closed), points=P, parameters=u, length=L,
                      size=size, dropped=dropped, fit_error=float(fit_error), _breaks=breaks,
                      _coef=coef, _h=h, _su=su, _sdu=sdu)
        for key, value in fields.items():
            if isinstance(value, np.ndarray):
                value = value.copy()
                value.flags.writeable = False
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_sx", self.evaluate(su, 0)[0])
        self._sx.flags.writeable = False
        # |p - x|^2 = |p|^2 - 2 p . x + |x|^2 ranks the candidates by one product with -2 x^T
        # (contiguous) and one sum in place, all about the candidates' centre (far from the
        # origin, |p|^2 and 2 p . x would cancel to the rounding of their size)
        centre = self._sx.mean(axis=0)
        sxc = self._sx - centre
        for key, value in (("_sx_centre", centre), ("_sxx", np.einsum("ij,ij->i", sxc, sxc)),
                           ("_sx_2", np.ascontiguousarray(-2.0 * sxc.T))):
            value.flags.writeable = False
            object.__setattr__(self, key, value)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"curve {self.name!r} is read-only")

    def __repr__(self) -> str:
        return (f"Curve({self.name!r}, {'closed' if self.closed else 'open'}, "
                f"{len(self.points)} knots, length={self.length:.6g})")

    # ------------------------------------------------------------ constructors

    @classmethod
    def from_points(cls, points: Any, closed: bool, name: str = "curve") -> Curve:
        """The spline through ``points`` ((n, 3), or (n, 2) with z = 0), in their order.
        A closed curve may repeat its first point at the end or not."""
        P, dropped, size = _prepare(points, closed, name)
        return cls(P, closed, name, size, dropped)

    @classmethod
    def from_function(cls, f: Callable[..., Any], u0: float, u1: float, closed: bool,
                      samples: int = DEFAULT_SAMPLES, name: str = "curve") -> Curve:
        """The spline through f at ``samples`` equally spaced values of f's own parameter in
        [u0, u1] (u1 excluded when closed: f(u1) must equal f(u0)).  f maps a float to (3,)
        or (2,), or an array of m values to (m, 3) / (m, 2).  ``fit_error`` is the largest
        distance of f at the midpoints between samples from the spline: measured to the
        nearest spline point, because the spline's chord-length parameter is not f's."""
        u0, u1 = _number(u0, name, "u0"), _number(u1, name, "u1")
        if not u1 > u0:
            raise MechanismError(f"curve {name!r}: the parameter range [{u0}, {u1}] is empty")
        n = _number(samples, name, "samples")
        if not n.is_integer() or n < 4:
            raise MechanismError(f"curve {name!r}: samples must be an integer >= 4, got {samples}")
        samples = int(n)
        du = (u1 - u0) / (samples if closed else samples - 1)
        us = u0 + du * np.arange(samples)
        mids = us[:samples if closed else -1] + 0.5 * du
        X = _sample(f, np.concatenate([us, mids, [u1]]), name)
        S, M = X[:samples], X[samples:-1]
        P, dropped, size = _prepare(S, closed, name)
        gap = float(np.linalg.norm(X[-1] - X[0]))
        if closed and gap > FLAT_TOL * size:
            raise MechanismError(f"curve {name!r}: f(u1) is {gap:.3g} from f(u0); a closed "
                                 f"curve's function must return to its start")
        curve = cls(P, closed, name, size, dropped)
        # start each midpoint's projection at the chord-length midpoint of its two samples
        chord = np.linalg.norm(np.diff(S, axis=0), axis=1)
        s = np.concatenate([[0.0], np.cumsum(chord)])
        if closed:
            s = np.append(s, s[-1] + np.linalg.norm(S[0] - S[-1]))
        guess = 0.5 * (s[:-1] + s[1:])
        w = 2.0 * curve._h.max()
        lo, hi = guess - w, guess + w
        if not closed:
            lo, hi = np.maximum(lo, 0.0), np.minimum(hi, curve.length)
        uu = curve._project(M, guess, lo, hi)
        err = float(np.linalg.norm(curve.evaluate(uu, 0)[0] - M, axis=1).max())
        object.__setattr__(curve, "fit_error", err)
        return curve

    @classmethod
    def circle(cls, radius: float, center: Any = (0.0, 0.0, 0.0),
               samples: int = DEFAULT_SAMPLES, name: str = "circle") -> Curve:
        """Circle of ``radius`` about ``center`` in the plane z = center z, counter-clockwise
        about +z from (center + (radius, 0, 0)) at u = 0."""
        radius = _number(radius, name, "the radius")
        if not radius > 0.0:
            raise MechanismError(f"curve {name!r}: the radius must be positive, got {radius}")
        return cls.ellipse(radius, radius, center, samples, name)

    @classmethod
    def ellipse(cls, a: float, b: float, center: Any = (0.0, 0.0, 0.0),
                samples: int = DEFAULT_SAMPLES, name: str = "ellipse") -> Curve:
        """Ellipse with semi-axes ``a`` along x and ``b`` along y about ``center``, in the
        plane z = center z: center + (a cos t, b sin t, 0), t in [0, 2 pi), counter-clockwise."""
        a, b = _number(a, name, "semi-axis a"), _number(b, name, "semi-axis b")
        if not (a > 0.0 and b > 0.0):
            raise MechanismError(f"curve {name!r}: semi-axes must be positive, got {a}, {b}")
        try:
            c = np.asarray(center, dtype=float)
        except (TypeError, ValueError):
            c = np.full(0, np.nan)
        if c.shape != (3,) or not np.isfinite(c).all():
            got = shown(c) if c.size else repr(center)
            raise MechanismError(f"curve {name!r}: center must be 3 finite numbers, got {got}")

        def f(t: np.ndarray) -> np.ndarray:
            t = np.asarray(t, dtype=float)
            return c + np.stack([a * np.cos(t), b * np.sin(t), np.zeros_like(t)], axis=-1)

        return cls.from_function(f, 0.0, 2.0 * np.pi, True, samples, name)

    # ------------------------------------------------------------ evaluation

    def evaluate(self, u: Any, derivatives: int = 3) -> np.ndarray:
        """(derivatives + 1, *u.shape, 3): x(u) and its u-derivatives up to ``derivatives``
        (at most 5; x''' is continuous, x'''' continuous too, x^(5) jumps at knots).  A closed
        curve wraps u modulo ``length``; an open one continues its end spans' polynomials
        outside [0, length] (see ``inside``).  Unpack as ``x, dx, ddx, dddx = evaluate(u)``."""
        return polynomial_rows(self._span, self._coef, derivatives, np.asarray(u, dtype=float))

    def _span(self, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(span index, offset s in it) of each u (a closed curve's wrapped; an open one's
        end spans continued outside [0, length])."""
        if self.closed:
            u = np.mod(u, self.length)
        # (ufuncs rather than np.clip, whose Python wrapper costs as much as the arithmetic
        # at the few points a joint asks for)
        i = np.minimum(np.maximum(np.searchsorted(self._breaks, u, side="right") - 1, 0),
                       len(self._h) - 1)
        return i, u - self._breaks[i]

    def inside(self, u: Any) -> np.ndarray:
        """True where u lies on the curve: every finite u of a closed curve, 0 <= u <= length
        on an open one (a pin whose u leaves this range has left its slot)."""
        u = np.asarray(u, dtype=float)
        if self.closed:
            return np.isfinite(u)
        return (u >= 0.0) & (u <= self.length)

    def _project(self, p: np.ndarray, u: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """project_points on this curve."""
        return project_points(self.evaluate, p, u, lo, hi, self.length)

    def candidates(self) -> tuple[np.ndarray, np.ndarray]:
        """(u, points) of ``nearest``'s global search candidates, SPAN_SAMPLES a span (and
        an open curve's end), in order along the curve; read-only."""
        return self._su, self._sx

    def nearest(self, point: Any, u_guess: Any = None) -> Any:
        """Parameter u of the curve point closest to ``point`` ((3,), (2,), or (..., 3)).

        Without ``u_guess``: global: the best of SPAN_SAMPLES candidates per span, then
        Newton; a closed curve's u is in [0, length).  With ``u_guess``: the local minimum of
        the distance within two spans of it, u not wrapped (for tracking a follower that has
        gone round several times).  An open curve's u stays in [0, length]."""
        p = np.asarray(point, dtype=float)
        if p.ndim == 0 or p.shape[-1] not in (2, 3):
            raise MechanismError(f"curve {self.name!r}: nearest() needs points of 3 (or 2) "
                                 f"coordinates, got shape {p.shape}")
        if p.shape[-1] == 2:
            p = np.concatenate([p, np.zeros(p.shape[:-1] + (1,))], axis=-1)
        shape, p = p.shape[:-1], p.reshape(-1, 3)
        if u_guess is None:
            pc = p - self._sx_centre
            if len(pc) == 1:    # a lone row's product rounds apart from the same row among
                pc = np.repeat(pc, 2, axis=0)      # others: it is ranked as a stack of two
            best = np.empty(len(pc), dtype=int)
            chunk = max(2, 2 ** 22 // len(self._su))
            for a in range(0, len(pc), chunk):   # |p - x|^2 less |p|^2, the same for a row
                d2 = pc[a:a + chunk] @ self._sx_2
                d2 += self._sxx
                best[a:a + chunk] = np.argmin(d2, axis=1)
            best = best[: len(p)]
            u0, w = self._su[best], 2.0 * self._sdu[best]
        else:
            u0 = np.broadcast_to(np.asarray(u_guess, dtype=float), shape).ravel().copy()
            w = np.full(len(p), 2.0 * self._h.max())
        u = nearest_within(self.evaluate, p, u0, w, bool(self.closed), self.length)
        if self.closed and u_guess is None:
            u = np.mod(u, self.length)
            u = np.where(u >= self.length, 0.0, u)
        u = u.reshape(shape)
        return float(u) if u.ndim == 0 else u

    def planar_frame(self) -> PlaneFit:
        """Best-fit plane of the knots (least squares, by SVD) and whether the curve lies in
        it to FLAT_TOL * size (the cam constraint needs planar curves).  Normal: a closed
        curve runs counter-clockwise about it; an open one's has its first nonzero of (z, y,
        x) positive; a straight curve gets the normal of its line nearest to +z."""
        c0 = self.points.mean(axis=0)
        c = self.points - c0
        _, sv, vt = np.linalg.svd(c, full_matrices=False)
        line = vt[0]
        if np.linalg.norm(c - np.outer(c @ line, line), axis=1).max() <= FLAT_TOL * self.size:
            ref = np.array([0.0, 0.0, 1.0]) if abs(line[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
            normal = ref - (ref @ line) * line
        else:
            normal = vt[2]
        normal = normal / np.linalg.norm(normal)
        area = np.cross(c, np.roll(c, -1, axis=0)).sum(axis=0) @ normal if self.closed else 0.0
        if area == 0.0 or abs(area) <= 1e-12 * self.size ** 2:
            nz = normal[np.flatnonzero(np.abs(normal) > 1e-12)[-1]]
            area = nz
        if area < 0.0:
            normal = -normal
        deviation = float(np.abs(c @ normal).max())
        return PlaneFit(c0, normal, deviation <= FLAT_TOL * self.size, deviation)


def _taylor(s: np.ndarray, nd: int) -> np.ndarray:
    """(..., nd, ORDER) the rows that turn a span's Taylor coefficients into x and its first
    nd - 1 u-derivatives at offsets s (1, s, s^2, ... weighted by the derivatives' factors)."""
    powers = np.empty(s.shape + (_ORDER,))
    powers[..., 0] = 1.0
    powers[..., 1:] = s[..., None]
    np.multiply.accumulate(powers, axis=-1, out=powers)                  # 1, s, s^2, ...
    return powers[..., _E[:nd]] * _W[:nd]


def polynomial_rows(span: Callable[..., tuple[np.ndarray, np.ndarray]], coef: np.ndarray,
                    derivatives: int, u: np.ndarray, c: np.ndarray | None = None) -> np.ndarray:
    """(derivatives + 1, *u.shape, 3): x and its u-derivatives at u, ``span(u)`` (or
    ``span(c, u)``: a CurveTable's points, their curves c of u's shape or broadcasting
    against it, e.g. (n,) for (..., n)) -> (span index into ``coef``, offset s in it).
    Curve.evaluate and CurveTable.evaluate both: one polynomial product, so a point's
    numbers are the same bits through either, alone or in any stack."""
    if derivatives not in range(DEGREE + 1):
        raise MechanismError(f"derivatives must be a whole number 0..{DEGREE}, got {derivatives!r}")
    lone = u.shape if u.size == 1 else None
    if lone is not None:
        # a point alone is evaluated as a stack of two: numpy may hand a lone (contiguous)
        # polynomial product to BLAS and a stack of them (laid out by the gather below) to
        # another loop, which round apart (numpy 1.26 does; a sum term by term matches that
        # loop there but not numpy 2's), so this way a point gets the bits it gets in any
        # stack (a study's variants in lockstep equal their separate runs)
        u = np.repeat(u.reshape(1), 2)
        if c is not None:
            c = np.repeat(np.reshape(c, 1), 2)
    i, s = span(u) if c is None else span(c, u)
    nd = int(derivatives) + 1
    x = _taylor(s, nd) @ coef[i]                                         # (..., nd, 3)
    if lone is not None:
        x = x[:1].reshape(lone + (nd, 3))
    n = x.ndim
    return x.transpose((n - 2,) + tuple(range(n - 2)) + (n - 1,))


def project_points(evaluate: Callable[..., np.ndarray], p: np.ndarray, u: np.ndarray,
                   lo: np.ndarray, hi: np.ndarray, length: Any, iterations: int = 60) -> np.ndarray:
    """Newton on g(u) = (x(u) - p) . x'(u) = 0, g' = |x'|^2 + (x - p) . x'' (Gauss-Newton
    g' = |x'|^2 where the curvature term makes g' tiny or negative), u kept in [lo, hi];
    ``evaluate(u, 2)`` the points' curve (curves), ``length`` its (their) length."""
    live = np.ones(np.shape(u), dtype=bool)     # each point stops on its own step, so
    for _ in range(iterations):                  # it ends as it would alone
        x, d1, d2 = evaluate(u, 2)
        r = x - p
        a = np.einsum("...j,...j->...", d1, d1)
        gp = a + np.einsum("...j,...j->...", r, d2)
        gp = np.where(gp > 1e-6 * a, gp, a)
        new = np.clip(u - np.einsum("...j,...j->...", r, d1) / gp, lo, hi)
        tol = np.maximum(1e-14 * length, 4.0 * np.spacing(np.abs(new)))
        small = np.abs(new - u) <= tol
        if live.size == 1:                     # one point: no stack to hold back
            u = new
            if small.all():
                break
            continue
        u = np.where(live, new, u)
        live &= ~small
        if not live.any():
            break
    return u


def nearest_within(evaluate: Callable[..., np.ndarray], p: np.ndarray, u0: np.ndarray,
                   w: Any, closed: Any, length: Any) -> np.ndarray:
    """u of the local minimum of the distance from p within w of u0 (an open curve's u in
    [0, length]), or u0 where that is no nearer: ``Curve.nearest``'s last part; ``closed``
    (True, False, or per point) and ``length`` the points' curves' (a CurveTable's)."""
    lo, hi = u0 - w, u0 + w
    if closed is False:
        u0 = np.clip(u0, 0.0, length)
        lo, hi = np.maximum(lo, 0.0), np.minimum(hi, length)
    elif closed is not True:
        u0 = np.where(closed, u0, np.clip(u0, 0.0, length))
        lo, hi = np.where(closed, lo, np.maximum(lo, 0.0)), np.where(closed, hi, np.minimum(hi, length))
    u = project_points(evaluate, p, u0, lo, hi, length)
    dist = np.linalg.norm(evaluate(np.stack([u, u0]), 0)[0] - p, axis=-1)   # (2, ...)
    return np.where(dist[0] <= dist[1], u, u0)
