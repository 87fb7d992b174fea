"""Blender curve splines as solver curves (``solver.base.curves.Curve``), exactly: a Bezier
spline is the piecewise cubic of its control points and handles, a NURBS spline the rational
B-spline of its weighted points, a poly spline the smooth curve through its points (a
polyline's corners are not smooth, and a slot with a corner cannot carry a pin through it
at a finite force).  The parametric shapes are sampled and fitted once by
``Curve.from_function``, which measures the fitting error (reported to the user).

Input: the spline's numbers as read from Blender, in the coordinates the caller wants the
curve in (the caller maps the curve object's local coordinates through its world matrix
into the joint marker's frame and applies the unit scale, ``to_frame``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ...solver import Curve, MechanismError

SAMPLES_PER_SEGMENT = 64    # Bezier segments / NURBS spans sampled for the fit


def to_frame(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (n, 3) through a 4x4 affine matrix."""
    m = np.asarray(matrix, dtype=float)
    return np.asarray(points, dtype=float) @ m[:3, :3].T + m[:3, 3]


def bezier_function(co: np.ndarray, left: np.ndarray, right: np.ndarray,
                    cyclic: bool) -> tuple[Callable[[np.ndarray], np.ndarray], int]:
    """(f, segments): f(s), s in [0, segments], the spline's point; segment k runs from
    co[k] with control points right[k], left[k + 1] to co[k + 1] (and from the last point
    back to the first when cyclic): the cubic Bernstein form."""
    co, left, right = (np.asarray(x, dtype=float) for x in (co, left, right))
    n = len(co)
    nxt = np.arange(1, n + 1) % n
    seg = n if cyclic else n - 1
    if seg < 1:
        raise MechanismError("a Bezier spline needs at least two points")
    P = np.stack([co[:seg], right[:seg], left[nxt[:seg]], co[nxt[:seg]]], axis=1)   # (seg, 4, 3)

    def f(s: np.ndarray) -> np.ndarray:
        s = np.asarray(s, dtype=float)
        k = np.clip(np.floor(s).astype(int), 0, seg - 1)
        t = (s - k)[..., None]
        b = np.stack([(1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3], axis=-2)
        return (b * P[k]).sum(axis=-2)
    return f, seg


def nurbs_function(points: np.ndarray, weights: np.ndarray, order: int, cyclic: bool,
                   endpoint: bool) -> tuple[Callable[[np.ndarray], np.ndarray], float, float]:
    """(f, u0, u1): the rational B-spline of ``points`` (n, 3) with ``weights`` (n,) and
    ``order`` (degree + 1) on a uniform knot vector: periodic when cyclic (the first
    order - 1 points wrap round), clamped at both ends with ``endpoint`` (the curve starts
    and ends on its end points, as Blender's Endpoint option), else uniform (the curve
    spans the middle knots only).  Evaluated by de Boor's recurrence on homogeneous
    coordinates (Piegl and Tiller, The NURBS Book, A4.1)."""
    P = np.asarray(points, dtype=float)
    w = np.asarray(weights, dtype=float)
    p = int(order) - 1
    if p < 1 or len(P) < order:
        raise MechanismError(f"a NURBS spline of order {order} needs at least {order} points")
    if np.any(w <= 0.0) or not np.all(np.isfinite(w)):
        raise MechanismError("a NURBS spline's weights must be positive")
    if cyclic:
        P, w = np.concatenate([P, P[:p]]), np.concatenate([w, w[:p]])
    n = len(P)
    if endpoint and not cyclic:
        inner = np.arange(1, n - p) / (n - p)
        knots = np.concatenate([np.zeros(p + 1), inner, np.ones(p + 1)])
    else:
        knots = np.arange(n + p + 1) / (n + p + 1.0 - 1.0)
    Hw = np.concatenate([P * w[:, None], w[:, None]], axis=1)       # homogeneous (n, 4)
    u0, u1 = knots[p], knots[n]

    def f(u: np.ndarray) -> np.ndarray:
        u = np.clip(np.asarray(u, dtype=float), u0, u1)
        span = np.clip(np.searchsorted(knots, u, side="right") - 1, p, n - 1)
        d = Hw[span[..., None] - p + np.arange(p + 1)]               # (..., p + 1, 4)
        for r in range(1, p + 1):
            for j in range(p, r - 1, -1):
                i = span - p + j
                a = ((u - knots[i]) / (knots[i + p - r + 1] - knots[i]))[..., None]
                d[..., j, :] = (1.0 - a) * d[..., j - 1, :] + a * d[..., j, :]
        return d[..., p, :3] / d[..., p, 3:]
    return f, float(u0), float(u1)


def spline_curve(kind: str, name: str, matrix: np.ndarray, co: np.ndarray, cyclic: bool,
                 left: np.ndarray | None = None, right: np.ndarray | None = None,
                 weights: np.ndarray | None = None, order: int = 4, endpoint: bool = True) -> Curve:
    """A Curve (in the coordinates ``matrix`` maps the spline's into) of a Blender spline
    of type "BEZIER", "NURBS" or "POLY", its fitting error in ``fit_error``."""
    co = to_frame(matrix, co)
    if kind == "POLY":
        return Curve.from_points(co, bool(cyclic), name)
    if kind == "BEZIER":
        f, seg = bezier_function(co, to_frame(matrix, left), to_frame(matrix, right), cyclic)
        return Curve.from_function(f, 0.0, float(seg), bool(cyclic),
                                   samples=max(SAMPLES_PER_SEGMENT * seg, 16), name=name)
    if kind == "NURBS":
        f, u0, u1 = nurbs_function(co, np.ones(len(co)) if weights is None else weights, order,
                                   cyclic, endpoint)
        spans = len(co) if cyclic else len(co) - order + 1
        return Curve.from_function(f, u0, u1, bool(cyclic),
                                   samples=max(SAMPLES_PER_SEGMENT * spans, 16), name=name)
    raise MechanismError(f"curve {name!r}: spline type {kind!r} is not supported")
