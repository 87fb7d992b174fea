"""Rows of the joints on curves (vocabulary/curve_joints.py), with the contact parameter
eliminated: it is the nearest point (point on curve) or the common normal (cam), found by a
few Newton steps from the tracked value of a nearby pose (evaluate's ``ref``), so the state
stays the bodies' alone.

Point on curve (Adams PTCV).  The curve c(u) is fixed in marker J's frame R (world axes),
origin O; P is marker I's origin.  u* makes d = R^T (P - O) - c(u) normal to the tangent
c'(u).  Rows: n . d and b . d, b the unit part of z_J normal to the tangent (the binormal
of a curve in J's xy plane; x_J's where the tangent runs along z_J), n = b x t.  On the
curve (d = 0) their derivatives do not involve du*/dq (d is zero, and n, b are normal to
the tangent), so the Jacobian is that of a dot-2 row with axis n (or b) between P and the
curve's material point under it; quad, from d2/dt2 of n . d at d = 0, d' = 0 (Haug's
gamma with the point sliding along the curve):

    n . [w_i x (w_i x s_i) - w_j x (w_j x s_j) - 2 w_j x T u' - K u'^2],
    u' = T . (v_P - v_X) / |T|^2,

s_i = P - r_i, s_j = X - r_j, T = R c'(u), K = R c''(u), v_X the velocity of the body-J
point at X = O + R c(u).  Off the curve (Newton's iterates) these are the first-order
terms: the iteration converges quadratically all the same.

Cam (Adams CVCV, planar).  Curve I (marker I's frame, on body i) and curve J (marker J's
frame) in their markers' xy planes, the z axes parallel.  (u*, v*): the common normal,
t_J . (x_i(u) - x_j(v)) = 0 and n_J . T_i(u) = 0 (x, T in J's frame), a 2x2 Newton whose
matrix is regular unless the curvatures match at the contact (a pin in a hole of its own
radius).  Row: n_J . (x_i - x_j), n_J = z x t_J.  Its derivative at fixed (u, v) is exact
wherever those two conditions hold (the parameters' terms are n_J . T_i = 0 and n_J' . d,
n_J' parallel to t_J, t_J . d = 0); quad, with both points sliding,

    n . [w_i x (w_i x s_i) + 2 w_i x T_i u' + K_i u'^2 - w_j x (w_j x s_j) - 2 w_j x T_j v' - K_j v'^2],

(u', v') from the tangential part of d' = 0 and d/dt (n_J . T_i) = 0.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..base.curve_table import CurveTable, curve_table
from ..base.rotations import cross

_X = np.array([1.0, 0.0, 0.0])
_Z = np.array([0.0, 0.0, 1.0])
ALONG_Z = 1e-6     # rad: a tangent this close to z_J takes its binormal from x_J (_binormal)
NEWTON_STEPS = 30


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...i,...i->...", a, b)


def _mv(M: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.einsum("...ij,...j->...i", M, x)


def _mtv(M: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.einsum("...ji,...j->...i", M, x)


def _body(r, A, v, w, b: np.ndarray, off: np.ndarray, C: np.ndarray):
    """Marker frames on bodies b (one a joint): (body origin r_b, frame origin O, axes R,
    v_b, w_b), each (..., n, 3) or (..., n, 3, 3)."""
    Ab, rb = A.take(b, axis=-3), r.take(b, axis=-2)
    vb = None if v is None else v.take(b, axis=-2)
    wb = None if w is None else w.take(b, axis=-2)
    return rb, rb + _mv(Ab, off), Ab @ C, vb, wb


def _rows(jac, quad, rows, a, s_i, rj_rel, base) -> None:
    """Dot-2-like rows with world axes a (..., n, 3): Jacobian [a, s_i x a, -a, a x (P -
    r_j)] and quad a . base."""
    if jac is not None:
        jac[..., rows, 0:3] = a
        jac[..., rows, 3:6] = cross(s_i, a)
        jac[..., rows, 6:9] = -a
        jac[..., rows, 9:12] = cross(a, rj_rel)
    if quad is not None:
        quad[..., rows] = _dot(a, base)


def point_on_curve(model: Any, r, A, v, w, phi, jac, quad, ref, track, rate) -> None:
    """The point-on-curve rows (two per joint: normal, binormal), module docstring; every
    joint at once (its curve by its place in the table of the joints' curves)."""
    cp = model.curves
    n = len(cp.pc_curve)
    tab = curve_table(cp.pc_curve)
    k = slice(cp.first, cp.first + n)
    ri = r.take(cp.pc_bi, axis=-2)
    s_i = _mv(A.take(cp.pc_bi, axis=-3), cp.pc_ui)
    P = ri + s_i
    rj, O, R, vj, wj = _body(r, A, v, w, cp.pc_bj, cp.pc_off, cp.pc_C)
    p = _mtv(R, P - O)
    u, (c, c1, c2) = _nearest(tab, p, None if ref is None else ref[..., k])
    d = p - c
    speed2 = _dot(c1, c1)
    t = c1 / np.sqrt(speed2)[..., None]
    b = _binormal(t)
    nrm = cross(b, t)
    phi[..., 0:2 * n:2] = _dot(nrm, d)
    phi[..., 1:2 * n:2] = _dot(b, d)
    track[..., k] = u
    nw, bw = _mv(R, nrm), _mv(R, b)
    base = None
    if v is not None:
        T, K = _mv(R, c1), _mv(R, c2)
        s_j = O + _mv(R, c) - rj
        wi = w.take(cp.pc_bi, axis=-2)
        vP = v.take(cp.pc_bi, axis=-2) + cross(wi, s_i)
        vX = vj + cross(wj, s_j)
        ud = _dot(T, vP - vX) / speed2
        if rate is not None:
            rate[..., k] = ud
        base = (cross(wi, cross(wi, s_i)) - cross(wj, cross(wj, s_j))
                - 2.0 * cross(wj, T) * ud[..., None] - K * (ud * ud)[..., None])
    _rows(jac, quad, slice(0, 2 * n, 2), nw, s_i, P - rj, base)
    _rows(jac, quad, slice(1, 2 * n, 2), bw, s_i, P - rj, base)


def _binormal(t: np.ndarray) -> np.ndarray:
    """(..., 3) the unit part of z_J across the unit tangent t (J's axes); where t runs
    along z_J (within ALONG_Z rad: a slot drawn along the marker's z axis), x_J's part
    instead, which is then across it (any direction across the tangent makes the same two
    rows: they hold d = 0 in the normal plane)."""
    along = np.abs(t[..., 2]) > math.cos(ALONG_Z)
    a = np.where(along[..., None], _X, _Z)
    b = a - _dot(a, t)[..., None] * t
    return b / np.linalg.norm(b, axis=-1, keepdims=True)


def _nearest(tab: CurveTable, p: np.ndarray, guess: np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray]:
    """(u, the curves evaluated at u with 2 derivatives): u of the point of each joint's
    curve (the table's curve e for p[..., e, :]) nearest p, local from the tracked guess,
    global where that local search ends off the true foot (the guess more than two spans
    away; joint by joint: a run's rare event).  Past an open curve's end, u continues
    along the end tangent (outside [0, length]: the run's check stops there, naming the
    joint).  The curves are evaluated once at the u returned, the checks and the rows
    taking their numbers from that one evaluation (a lower derivative's rows are not
    always the bits an evaluation of that order alone gives: numpy 2 and some BLAS kernels
    round the orders' products apart, so they are not mixed)."""
    c = tab.index
    X = None
    if guess is None:
        u = _global(tab, p, np.ones(p.shape[:-1], dtype=bool), np.zeros(p.shape[:-1]))
    else:
        u = tab.nearest(c, p, guess)
        X = tab.rows(c, u, 2)
        x, x1 = X[0], X[1]
        off = np.abs(_dot(x1, p - x)) > 1e-9 * tab.size[c] * np.sqrt(_dot(x1, x1))
        if off.any():               # (a global search's u lies on the curve's first turn:
            u, X = _global(tab, p, off, u), None          # back on the tracked value's)
            u = np.where(off, tab.same_turn(c, u, guess), u)
    if not tab.all_closed:   # nearest() stops at the ends: past one, u goes on along the tangent
        if X is None:
            X = tab.rows(c, u, 2)
        x, x1 = X[0], X[1]
        past = _dot(x1, p - x) / _dot(x1, x1)
        beyond = ~tab.closed[c] & (((u <= 0.0) & (past < 0.0))
                                   | ((u >= tab.length[c]) & (past > 0.0)))
        if beyond.any():
            u, X = np.where(beyond, u + past, u), None
    return u, (tab.rows(c, u, 2) if X is None else X)


def _global(tab: CurveTable, p: np.ndarray, where: np.ndarray, u: np.ndarray) -> np.ndarray:
    """u with, where ``where`` (..., n), the global nearest point of joint e's curve
    (Curve.nearest without a guess), joint by joint."""
    u = np.array(u, dtype=float)
    for e in np.flatnonzero(where.reshape(-1, where.shape[-1]).any(axis=0)):
        found = np.asarray(tab.curves[e].nearest(p[..., e, :]), dtype=float)
        u[..., e] = np.where(where[..., e], found, u[..., e])
    return u


def _cross2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """z . (a x b) of vectors in the xy plane."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


START_CELL = 8          # _cam_start: curve I's candidates per coarse cell, curve J's per coarse sample


class _Start(NamedTuple):
    """A cam's start search, curve by curve, made once (``_start_plan``): curve I's
    candidates (knots and midpoints) in their fixed order and positions, the coarse cells
    they fall in (START_CELL consecutive candidates along u), each cell's representative
    and radius (the farthest of its candidates from it); curve J's coarse samples (every
    START_CELL-th of its global-search candidates) and how far any point of curve J can lie
    from the nearest of them."""
    us: np.ndarray          # (K,) curve I's candidates, the order of the exhaustive search
    x: np.ndarray           # (K, 3) their points
    cell: np.ndarray        # (K,) their coarse cell
    rep: np.ndarray         # (C,) each cell's representative (an index into us)
    radius: np.ndarray      # (C,)
    coarse: np.ndarray      # (S, 3) curve J's coarse samples, about their centre
    centre: np.ndarray      # (3,) that centre (the ranking's products stay exact far away)
    reach: float            # every point of curve J lies within reach of a coarse sample


@lru_cache(maxsize=16)       # (a cam joint needs one; it keeps its two curves alive)
def _start_plan(ci: Any, cj: Any) -> _Start:
    """The start search's fixed part for the curve pair (ci, cj) (curves are read-only)."""
    us = np.concatenate([ci.parameters, 0.5 * (ci.parameters[:-1] + ci.parameters[1:])])
    x = ci.evaluate(us, 0)[0]
    order = np.argsort(us, kind="stable")
    cell = np.empty(len(us), dtype=int)
    cell[order] = np.arange(len(us)) // START_CELL
    ncell = int(cell.max()) + 1
    rep = order[np.minimum(np.arange(ncell) * START_CELL + START_CELL // 2, len(us) - 1)]
    radius = np.zeros(ncell)
    np.maximum.at(radius, cell, np.linalg.norm(x - x[rep[cell]], axis=-1))
    # curve J: its candidates (cj.nearest's), every START_CELL-th kept, the last too; a point
    # of the curve between two candidates lies within half their arc of one, the arc taken
    # as at most 1.5 times the largest chord (8 candidates a span; measured on random
    # splines: at most 1.03), and each candidate within reach of the kept ones beside it
    sx = cj.candidates()[1]
    keep = np.unique(np.append(np.arange(0, len(sx), START_CELL), len(sx) - 1))
    at = np.searchsorted(keep, np.arange(len(sx)), side="right") - 1
    after = keep[np.minimum(at + 1, len(keep) - 1)]      # (the last candidate is kept)
    near = np.minimum(np.linalg.norm(sx - sx[keep[at]], axis=-1), np.linalg.norm(sx - sx[after], axis=-1))
    ring = np.roll(sx, -1, axis=0) if cj.closed else sx[1:]
    chord = np.linalg.norm(ring - sx[: len(ring)], axis=-1).max(initial=0.0)
    reach = float(near.max() + 0.75 * chord)
    centre = sx[keep].mean(axis=0)
    return _Start(us, x, cell, rep, radius, np.ascontiguousarray(sx[keep] - centre), centre, reach)


def _cam_start(ci: Any, cj: Any, M: np.ndarray, o: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(u, v) near the contact without a tracked value: of curve I's knots (and midpoints),
    the one nearest curve J, with its foot on J (leading axes of M, o carried).

    Coarse to fine, with the exhaustive search's answer: a cell of curve I's candidates
    whose representative lies g from curve J's coarse samples holds no candidate nearer
    curve J than g - (cell radius) - (J's reach); the representatives' own distances bound
    the nearest from above.  Only the cells that may hold it are searched exactly (their
    candidates in the exhaustive order, so that ties go the same way)."""
    sp = _start_plan(ci, cj)
    rep = (o - sp.centre)[..., None, :] + np.einsum("...ij,kj->...ki", M, sp.x[sp.rep])
    cen = sp.coarse
    d2 = (rep * rep).sum(-1)[..., None] - 2.0 * rep @ cen.T + (cen * cen).sum(-1)
    g = np.sqrt(np.maximum(d2.min(axis=-1), 0.0))        # (..., C)
    slack = 1e-6 * (ci.size + cj.size)                    # the product's rounding, and more
    maybe = g - sp.radius - sp.reach <= g.min(axis=-1, keepdims=True) + slack
    chosen = maybe[..., sp.cell]                          # (..., K)
    # at least two: a lone row's product with J's candidates (Curve.nearest) rounds apart
    # from the same row among others; and a pose not finite keeps none
    n = max(2, int(chosen.sum(axis=-1).max(initial=0)))
    # the chosen candidates first, in the exhaustive order (the rest cannot be nearest)
    pick = np.argsort(~chosen, axis=-1, kind="stable")[..., :n]
    us = sp.us[pick]
    xi = o[..., None, :] + np.einsum("...ij,...kj->...ki", M, sp.x[pick])
    vs = np.asarray(cj.nearest(xi), dtype=float)
    gap = np.linalg.norm(xi - cj.evaluate(vs, 0)[0], axis=-1)
    best = np.argmin(gap, axis=-1)
    return (np.take_along_axis(us, best[..., None], -1)[..., 0],
            np.take_along_axis(vs, best[..., None], -1)[..., 0])


def _side(sigma: np.ndarray, M: np.ndarray, ti: np.ndarray, zt: np.ndarray) -> np.ndarray:
    """+-1 (..., n): the sign that turns zt = z x t_J (unit) into the normal pointing into
    curve I's inside (a closed curve I: roller, follower disc), else out of curve J's inside
    (closed J: the cam disc), else +1; so the contact force -lambda is positive when the
    curves push.  ``sigma`` (..., n, 2): each cam's turns of its closed curves (0 open)."""
    si, sj = sigma[..., 0], sigma[..., 1]
    closed_i = si != 0.0
    if closed_i.all():
        by_j = None
    else:
        by_j = np.where(sj != 0.0, -sj, 1.0)
        if not closed_i.any():
            return np.broadcast_to(by_j, zt.shape[:-1])
    # curve I's inward normal, in J's frame: sigma_i (M z) x (M t_i)
    inward = si[..., None] * cross(M[..., :, 2], _mv(M, ti))
    into_i = np.where(_dot(zt, inward) >= 0.0, 1.0, -1.0)
    return into_i if by_j is None else np.where(closed_i, into_i, by_j)


def _pair(x: np.ndarray, n: int, inner: int) -> tuple[np.ndarray, np.ndarray]:
    """x (..., 2n, ...) of cams' ends I, J in turn (``inner`` axes after them) as the views
    (x_I, x_J), each (..., n, ...)."""
    k = x.ndim - inner - 1
    y = x.reshape(x.shape[:k] + (n, 2) + x.shape[k + 1:])
    sel = (slice(None),) * (k + 1)
    return y[sel + (0,)], y[sel + (1,)]


class _Cams(NamedTuple):
    """What the cam rows read of their plan, made once (``_cams``)."""
    tab: CurveTable         # cam e's curve I is its curve 2e, curve J 2e + 1
    ku: slice               # u's places in the tracked values
    kv: slice               # v's
    size: np.ndarray        # (n,) both curves' sizes (the common normal's tolerance)


@lru_cache(maxsize=16)       # (a mechanism's cams; the table keeps their curves alive)
def _cams(pairs: tuple[tuple[Any, Any], ...], first: int) -> _Cams:
    tab = curve_table(tuple(c for pair in pairs for c in pair))
    n = len(pairs)
    return _Cams(tab, slice(first, first + 2 * n, 2), slice(first + 1, first + 2 * n, 2),
                 tab.size[0::2] + tab.size[1::2])


def cam(model: Any, r, A, v, w, phi, jac, quad, ref, track, rate) -> None:
    """The cam rows (one per joint), module docstring; every cam at once (curve I of cam e
    is the table's curve 2e, its curve J 2e + 1)."""
    cp = model.curves
    n = len(cp.cam_curve)
    tab, ku, kv, size = _cams(cp.cam_curve, cp.first + len(cp.pc_curve))
    # both markers of every cam by one gather: (..., n, 2, ...) split into I and J (a
    # study's stacked plan may give the offsets and the axes leading axes of their own)
    off, C = cp.cam_off, cp.cam_C
    ends = _body(r, A, v, w, cp.cam_ends, off.reshape(off.shape[:-3] + (2 * n, 3)),
                 C.reshape(C.shape[:-4] + (2 * n, 3, 3)))
    (ri, rj), (Oi, Oj), (Ri, Rj) = _pair(ends[0], n, 1), _pair(ends[1], n, 1), _pair(ends[2], n, 2)
    (vi, vj), (wi, wj) = ((None, None), (None, None)) if v is None else (_pair(ends[3], n, 1),
                                                                          _pair(ends[4], n, 1))
    M = np.swapaxes(Rj, -1, -2) @ Ri            # curve I's axes in J's frame
    o = _mtv(Rj, Oi - Oj)
    if ref is None:                             # a run's start: each cam's own search
        u, vv = np.empty(o.shape[:-1]), np.empty(o.shape[:-1])
        for e, (ci, cj) in enumerate(cp.cam_curve):
            u[..., e], vv[..., e] = _cam_start(ci, cj, M[..., e, :, :], o[..., e, :])
    else:
        u, vv = ref[..., ku], ref[..., kv]
    pair = tab.pairs                            # curves I, J of each cam
    uv = np.empty(o.shape[:-1] + (2,))
    uv[..., 0], uv[..., 1] = u, vv
    start = None if ref is None else uv.copy()
    # the common normal (module docstring), each cam of each state of a stack (variants,
    # an implicit step's stages) stopping on its own step, as it would alone
    live = np.ones(o.shape[:-1], dtype=bool) if u.size > 1 or vv.size > 1 or o.size > 3 else None
    for _ in range(NEWTON_STEPS):
        X = tab.rows(pair, uv, 2)                   # (3, ..., n, 2, 3)
        Xi = _mv(M, X[:, ..., 0, :])                # curve I's x, T, K in J's frame
        xj, tj, kj = X[0, ..., 1, :], X[1, ..., 1, :], X[2, ..., 1, :]
        Ti = Xi[1]
        d = (o + Xi[0]) - xj
        g1, (g2, a21) = _dot(tj, d), _cross2(tj, Xi[1:])
        a11, a12 = _dot(tj, Ti), _dot(kj, d) - _dot(tj, tj)
        a22 = _cross2(kj, Ti)
        det = a11 * a22 - a12 * a21
        du = (g1 * a22 - g2 * a12) / det
        dv = (a11 * g2 - a21 * g1) / det
        small = np.abs(du) + np.abs(dv) <= 1e-13 * size
        if live is None:                           # one cam of one state: none to hold back
            uv[..., 0] -= du
            uv[..., 1] -= dv
            if small.all():
                break
            continue
        uv[..., 0] = np.where(live, uv[..., 0] - du, uv[..., 0])
        uv[..., 1] = np.where(live, uv[..., 1] - dv, uv[..., 1])
        live &= ~small
        if not live.any():
            break
    if start is not None:       # on the tracked values' turns (the Newton may land a turn away)
        uv = tab.same_turn(pair, uv, start)
    X = tab.rows(pair, uv, 2)
    (xi0, ti, ki), (xj, tj, kj) = X[:, ..., 0, :], X[:, ..., 1, :]
    u, vv = uv[..., 0], uv[..., 1]
    xi = o + _mv(M, xi0)
    sj2 = _dot(tj, tj)
    tu = tj / np.sqrt(sj2)[..., None]
    zt = cross(_Z, tu)
    side = _side(cp.cam_sigma, M, ti, zt)[..., None]
    nrm = zt * side
    phi[..., :n] = _dot(nrm, xi - xj)
    track[..., ku], track[..., kv] = u, vv
    nw = _mv(Rj, nrm)
    Xw = Oj + _mv(Rj, xi)                       # the contact point on curve I, world
    s_i = Xw - ri
    base = None
    if v is not None:
        Ti, Ki = _mv(Ri, ti), _mv(Ri, ki)
        Tj, Kj = _mv(Rj, tj), _mv(Rj, kj)
        s_j = Oj + _mv(Rj, xj) - rj
        tw = _mv(Rj, tu)
        dn = _mv(Rj, cross(_Z, (kj - _dot(tu, kj)[..., None] * tu) / np.sqrt(sj2)[..., None])) * side
        wsi, wsj, wTi = cross(wi, s_i), cross(wj, s_j), cross(wi, Ti)
        rel = vi + wsi - vj - wsj
        # [t . T_i, -t . T_j; n . K_i, n' . T_i] (u', v') = (-t . rel, -(w_j x n) . T_i - n . (w_i x T_i))
        m11, m12 = _dot(tw, Ti), -_dot(tw, Tj)
        m21, m22 = _dot(nw, Ki), _dot(dn, Ti)
        b1 = -_dot(tw, rel)
        b2 = -_dot(cross(wj, nw), Ti) - _dot(nw, wTi)
        det = m11 * m22 - m12 * m21
        ud, vd = (b1 * m22 - b2 * m12) / det, (m11 * b2 - m21 * b1) / det
        if rate is not None:
            rate[..., ku], rate[..., kv] = ud, vd
        base = (cross(wi, wsi) + 2.0 * wTi * ud[..., None] + Ki * (ud * ud)[..., None]
                - cross(wj, wsj) - 2.0 * cross(wj, Tj) * vd[..., None] - Kj * (vd * vd)[..., None])
    _rows(jac, quad, slice(0, n), nw, s_i, Xw - rj, base)
