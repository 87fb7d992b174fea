"""Contacts a sweep's motions drive through each other between two output frames, both
frames apart.  A kinematic sweep follows its motions whatever the contacts push, and each
frame's least gap (Result.interference) shows the frames where parts overlap; a part driven
right through another inside one frame interval (a thin plate passed between two frames)
showed nothing.

Each contact point's gap g and its rate g' (the relative velocity of the two parts at the
point along the other side's normal: kernels/contacts.py, minus its approach rate) are
known at every frame; between two frames their cubic Hermite interpolant is looked at for
a dip below the overlap tolerance (between.py ``dips``), and so is the meeting of the two
frames' tangents, g0 + g0' s and g1 - g1' (h - s), where the point comes on and goes away
(g0' < 0 < g1'): a part passed right through a thin one has a gap like |z| - c, a kink no
cubic follows (a ball at 3 m/s through a 1 cm plate at 7 fps: the cubic's least gap
+0.08 m, the tangents' -0.025 m, the motion's), while the tangents meet at its very bottom
(below a convex gap's, so no pass is missed there; a near miss costs a solve).  A few
array passes, no pose solved where nothing dips.  Only a dip is checked on the motion itself: the mechanism is solved at
the interpolant's least value, and where the parts overlap there, the instant they met is
located by regula falsi (between.py ``locate``).  The result then has a note naming the
contact, its parts, that instant between the two frames and the depth the solve found; once
per contact (the first).  As for a stop, a dip shallower than the interpolant's error
h^4 max|g''''| / 384 may go unseen."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...kernels.constraints import body_arrays
from ...base.rotations import cross
from ...kernels.contacts import geometry
from ...model.state import State
from ..contact_check import overlap_tolerance
from .between import Interval, dips, frame_before, locate


def passed_through(sweep: Any, ks: np.ndarray, block: State, newton: Callable,
                   evq: Any) -> None:
    """Note on each variant's result the contacts whose parts its motions drive through each
    other between the frame before the block (``sweep.touch_last``) and the block's frames
    ``ks`` (states ``block`` (V, F, ...), ``evq`` their evaluation: tracked values), both
    frames of the interval apart; keep the last frame's gaps and rates."""
    cp = sweep.model.forces.contacts
    rg, A, vg, wg = body_arrays(sweep.model, block.r, block.p, block.v, block.w)
    g, d = gaps_and_rates(cp, rg, A, vg, wg)                     # (V, F, np) m, m/s
    last, sweep.touch_last = sweep.touch_last, np.stack([g[:, -1], d[:, -1]], axis=1)
    if last is None:                         # (the first frame has none before it)
        return
    models = [sweep.models[v] for v in sweep.alive]
    tol = np.stack([overlap_tolerance(m)[cp.contact] for m in models])[:, None]   # (V, 1, np)
    h = np.diff(sweep.times[np.r_[ks[0] - 1, ks]])
    dip, share = kinks(np.concatenate([last[:, :1], g], 1),
                       np.concatenate([last[:, 1:], d], 1), h, tol)
    for i in np.flatnonzero(dip.any(axis=(1, 2)) & ~sweep.gone):
        _first_pass(sweep, int(i), ks, block, evq, newton, g, dip[i], share[i],
                    tol[i, 0], last[i, 0])


def gaps_and_rates(cp: Any, r: np.ndarray, A: np.ndarray, v: np.ndarray, w: np.ndarray):
    """(gap (..., np) m, its rate (..., np) m/s) of every contact point at COM positions r,
    rotation matrices A, velocities v, w (..., nb+1, ...; ground last): the rate is the
    distance's gradient (Geometry.slope) along the velocity of the point's part less the
    other side's part at the point's centre P, v + w x (P - r) of each (kernels/contacts.py
    ``contact_forces``' depth rate, negated)."""
    geo = geometry(cp, r, A, cull=False)
    ends = cp.side_ends[cp.side]                                 # (np, 2): its part, the other

    def moving(k: int) -> np.ndarray:
        b = ends[:, k]
        return v[..., b, :] + cross(w[..., b, :], geo.P - r[..., b, :])
    return geo.gap, np.sum(geo.slope * (moving(0) - moving(1)), axis=-1)


def kinks(g: np.ndarray, d: np.ndarray, h: np.ndarray, tol: np.ndarray):
    """between.py ``dips`` of gaps g and rates d (V, F+1, n) at frames h (F,) s apart, and
    where both frames are apart and the point comes on and goes away (g0' < 0 < g1'), also
    where the frames' tangents meet below -tol: (dip (V, F, n), share (V, F, n) of the
    interval where the cubic is least or else where the tangents meet)."""
    dip, share = dips(g, d, h, tol)
    g0, d0, g1, d1 = g[:, :-1], d[:, :-1], g[:, 1:], d[:, 1:]
    hh = h[:, None]
    turn = (d0 < 0.0) & (d1 > 0.0) & (g0 >= -tol) & (g1 >= -tol)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.clip((g1 - g0 - d1 * hh) / np.where(turn, d0 - d1, -1.0), 0.0, hh)
    meet = turn & (g0 + d0 * s < -tol) & ~dip
    return dip | meet, np.where(meet, s / hh, share)


def _first_pass(sweep, i, ks, block, evq, newton, g, dip, share, tol, g_before) -> None:
    """Variant i's note of each contact whose parts pass through each other in one of the
    block's intervals where a point's interpolant dips (``dip``, ``share`` (F, np)): the
    first such interval of each contact, found on poses solved there."""
    model = sweep.models[sweep.alive[i]]
    cp = model.forces.contacts
    result = sweep.results[sweep.alive[i]]
    for j, point in zip(*np.nonzero(dip)):
        c = int(cp.contact[point])
        said = f"contact {cp.names[c]!r}: parts "
        if any(n.startswith(said) and "pass through" in n for n in result.notes):
            continue
        last, q, qd = frame_before(sweep, i, int(j), block, evq)
        span = Interval(sweep, i, last, q, qd, newton)

        def gap(t: float, span=span, point=int(point)) -> float | None:
            got = span.pose_at(t)
            if got is None:
                return None
            rg, A = body_arrays(model, got[0][0, 0], got[1][0, 0])[:2]
            return float(geometry(cp, rg, A, cull=False).gap[point])
        t0, t1 = float(last.t), float(sweep.times[ks[j]])
        g0 = float(g_before[point] if j == 0 else g[i, j - 1, point])
        met = locate(gap, t0, t1, g0, float(share[j, point]), float(tol[point]))
        if met is None:                      # (the interpolant's dip, not the motion's)
            continue
        tb = t0 + float(share[j, point]) * (t1 - t0)
        k = int(ks[j])
        result.notes.append(
            f"{said}{cp.part_a[c]!r} and {cp.part_b[c]!r} pass through each other at t = "
            f"{met:.6g} s (between frames {k - 1} and {k}), overlapping by {-gap(tb):.3g} m "
            f"at t = {tb:.6g} s, both frames apart: the motions drive them through each "
            "other between the frames; solve at more frames to see it frame by frame")
