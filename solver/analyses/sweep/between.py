"""What a sweep's motion does between two output frames: a coordinate driven past a rigid
stop and back, or a pin run off the end of its open curve and back, inside one frame
interval, with both frames in range.  Each watched quantity g (a rigid bound's gap, a pin's
distance from each end of its open curve: g >= 0 inside) is known at every frame with its
rate; between two frames the cubic Hermite interpolant of g and g' (as a dynamic step's
gaps, dynamics/stops.py ``Stops.turned_back``) is looked at for a dip below the crossing
tolerance.  Only a dip is checked on the motion itself: the mechanism is solved at the
interpolant's least value (a pose by the sweep's Newton, from the Taylor prediction off the
frame before), and where it is past, the instant it got there is located by regula falsi
(Illinois) on poses solved between the frame before and that time.  An interval without a
dip costs a few array passes a block (no pose is solved).  The interpolant errs by
h^4 max|g''''| / 384; a dip shallower than that may go unseen, as in a dynamic step."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...base.errors import SolverError
from ...base.rotations import rotate_world
from ...kernels.constraints import body_arrays, evaluate
from ..dynamics.stops import describe, gaps, sweep_check
from ..checks.curve_ends import END_TOL, between_message, end_gaps, hermite, open_ends
from ..checks.curve_ends import off_curve_error
from .frames import motion_table

SAMPLES = 64           # points of an interval at which its interpolant is looked at
LOCATED = 1e-9         # of a frame interval: the instant of a crossing located to this
TRIALS = 60            # regula falsi trials at most (Illinois: ~10 from a dip's bracket)


def watched(sweep: Any, phi: np.ndarray | None, turns: np.ndarray | None,
            turn_rate: np.ndarray | None, evq: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """(g, g') (V, F, n) of a block's frames: the rigid bounds' gaps (rad or m) and rates
    (from their coordinates on turns ``turns`` and rates ``turn_rate`` (V, F, nbound)),
    then each open curve contact's distance along its curve from its start and from its
    end (m, checks/curve_ends.py ``end_gaps``); None when nothing is watched."""
    model, g, d = sweep.model, [], []
    if model.limits is not None and phi is not None:
        rigid = ~model.limits.compliant
        g.append(gaps(model, phi, turns)[..., rigid])
        d.append((model.limits.sgn * turn_rate)[..., rigid])
    ends = sweep.ends
    if ends and evq is not None and evq.track is not None:
        gc, dc = end_gaps(ends, evq.track[:, :phi.shape[1]], evq.rate[:, :phi.shape[1]])
        g.append(gc)
        d.append(dc)
    if not g:
        return None
    return np.concatenate(g, axis=-1), np.concatenate(d, axis=-1)


def tolerances(sweep: Any) -> np.ndarray:
    """(V, 1, n) the crossing tolerance of each watched quantity (``watched``'s order): a
    bound's (dynamics/stops.py ``tolerance``), and a curve end's (checks/curve_ends.py
    END_TOL of its mechanism's size, the sweep's ``end_size``)."""
    model, parts = sweep.model, []
    if model.limits is not None:
        parts.append(sweep.tol[..., ~model.limits.compliant])
    n = 2 * len(sweep.ends)
    if n:
        parts.append(END_TOL * sweep.end_size[sweep.alive][:, None, :])
    return np.concatenate(parts, axis=-1)


def dips(g: np.ndarray, d: np.ndarray, h: np.ndarray, tol: np.ndarray):
    """For frames (V, F+1, n) with the frame before the block first and their spacings h
    (F,) s: (dip (V, F, n) True where both ends are in range and the interpolant goes below
    -tol between them, share (V, F, n) of the interval where it is least)."""
    g0, d0, g1, d1 = g[:, :-1], d[:, :-1], g[:, 1:], d[:, 1:]
    dip = np.zeros(g0.shape, dtype=bool)
    share = np.zeros(g0.shape)
    # the interpolant is at least min(g0, g1) - 4/27 h (|d0| + |d1|) (its rate terms' basis
    # functions are at most 4/27): only the intervals where that is below -tol are sampled
    hh = h[:, None]
    may = (g0 >= -tol) & (g1 >= -tol) & (
        np.minimum(g0, g1) - 4.0 / 27.0 * hh * (np.abs(d0) + np.abs(d1)) < -tol)
    if not may.any():
        return dip, share
    v, f, n = np.nonzero(may)
    s = np.linspace(0.0, 1.0, SAMPLES + 1)[1:-1, None]
    cubic = hermite(g0[v, f, n], d0[v, f, n], g1[v, f, n], d1[v, f, n], h[f], s)  # (S, k)
    dip[v, f, n] = cubic.min(axis=0) < -np.broadcast_to(tol, g0.shape)[v, f, n]
    share[v, f, n] = s[np.argmin(cubic, axis=0), 0]
    return dip, share


class Interval:
    """The frame before an interval of variant ``i`` of a sweep (its state ``last``, a
    ``State`` of one variant, its tracked values and their rates ``q``, ``qd``), from which
    poses between it and the next frame are solved by ``newton`` (the sweep's)."""

    def __init__(self, sweep: Any, i: int, last, q, qd, newton: Callable) -> None:
        self.last, self.q, self.qd, self.newton = last, q, qd, newton
        self._solved: dict[float, tuple | None] = {}
        self.own = sweep.models[sweep.alive[i]]
        if len(sweep.alive) == 1:
            self.model, self.alg = sweep.model, sweep.alg
        else:
            idx = np.array([i])
            self.model = sweep.alg.take(sweep.model, idx)
            self.alg = sweep.alg.only(idx, self.model, sweep.alg.take)

    def pose_at(self, t: float):
        """(R, P (1, 1, nb, k), Jacobian blocks (1, 1, nc, 12), tracked values) of the pose
        solved at time t (s), or None where Newton does not reach one; each time's solved
        once (a locate's first trial is the note's instant too)."""
        if t not in self._solved:
            self._solved[t] = self._solve(t)
        return self._solved[t]

    def _solve(self, t: float):
        s, h = self.last, t - float(self.last.t)
        table, n_ok, _ = motion_table(self.own, np.array([t]))
        if not n_ok:
            return None
        R = (s.r + h * s.v + 0.5 * h * h * s.a)[None, None]
        P = rotate_world(s.p, h * s.w + 0.5 * h * h * s.alpha)[None, None]
        ref = None if self.q is None else (self.q + h * self.qd)[None, None]
        R, P, jac, _, ok, _, found = self.newton(self.model, self.alg, R, P, table[None], ref)
        return (R, P, jac, found) if ok[0, 0] else None

    def solved(self, t: float) -> np.ndarray | None:
        """The Jacobian blocks (1, 1, nc, 12) at the pose solved at time t (s), or None."""
        got = self.pose_at(t)
        return None if got is None else got[2]

    def poses(self, t: float):
        """(phi (nc,), tracked values (ntrack,) or None) of the pose solved at time t (s),
        or None where Newton does not reach one (a lock-up between the frames)."""
        got = self.pose_at(t)
        if got is None:
            return None
        R, P, _, found = got
        ev = evaluate(self.model, *body_arrays(self.model, R, P)[:2], need_jac=False,
                      ref=found)
        return ev.phi[0, 0], None if ev.track is None else ev.track[0, 0]


def values_at(span: Interval, t: float, turn0: np.ndarray | None,
              turn_rate: np.ndarray | None, item: int) -> float | None:
    """The watched quantity ``item`` (``watched``'s order) at time t of the interval, on a
    pose solved there; a bound's angle read on the turn nearest its coordinate ``turn0``
    at the frame before carried by its rate (the interval turns a joint by less than half
    a turn: limit_turns.py).  None where no pose is found."""
    got = span.poses(t)
    if got is None:
        return None
    phi, track = got
    model = span.own
    nrig = 0
    if model.limits is not None:
        rigid = ~model.limits.compliant
        nrig = int(np.count_nonzero(rigid))
        if item < nrig:
            near = turn0 + (t - float(span.last.t)) * turn_rate
            return float(gaps(model, phi, near)[rigid][item])
    ends = open_ends(model)
    e, far = (item - nrig) % len(ends), (item - nrig) >= len(ends)
    u = float(track[ends[e][1]])
    return ends[e][2].length - u if far else u


def locate(value: Callable[[float], float | None], t0: float, t1: float, g0: float,
           share: float, tol: float) -> float | None:
    """The first instant (s) in (t0, t1) where ``value(t)`` (g >= 0 in range; g0 at t0)
    goes below -tol, bracketed by the interpolant's least point t0 + share (t1 - t0): None
    when the motion there is not past (the interpolant's dip is not the motion's).  Regula
    falsi with the Illinois modification to LOCATED of the interval."""
    b = t0 + share * (t1 - t0)
    fb = value(b)
    if fb is None or fb >= -tol:
        return None
    a, fa, fb = t0, g0 + tol, fb + tol
    width, side = LOCATED * (t1 - t0), 0
    for _ in range(TRIALS):
        if b - a <= width:
            break
        c = b - fb * (b - a) / (fb - fa)
        c = min(max(c, a + 0.01 * (b - a)), b - 0.01 * (b - a))
        fc = value(c)
        if fc is None:
            break
        fc += tol
        if fc < 0.0:
            b, fb = c, fc
            fa, side = (0.5 * fa, -1) if side == -1 else (fa, -1)
        else:
            a, fa = c, fc
            fb, side = (0.5 * fb, 1) if side == 1 else (fb, 1)
    return b


def crossed_error(sweep: Any, i: int, item: int, t: float, k: int, result) -> SolverError:
    """The SolverError of variant ``i`` whose watched quantity ``item`` went past between
    frames k - 1 and k, at t (s), and came back by frame k; with the frames before."""
    model = sweep.models[sweep.alive[i]]
    nrig = 0 if model.limits is None else int(np.count_nonzero(~model.limits.compliant))
    where = f"at t = {t:.6g} s (between frames {k - 1} and {k})"
    if item < nrig:
        b = int(np.flatnonzero(~model.limits.compliant)[item])
        lm = model.limits
        return SolverError(f"{describe(model, b)} {where}: the motion drives it through its "
                           "stop and back between the two frames, both in range; change the "
                           "motion or the limit", t, (lm.names[b], lm.joints[b]),
                           result.truncated(k))
    msg, name = between_message(open_ends(model), item - nrig, t, k, True)
    return SolverError(msg, t, (name,), result.truncated(k))


def first_crossings(sweep: Any, ks: np.ndarray, gd: tuple[np.ndarray, np.ndarray],
                    block, evq: Any, phi, turns, turn_rate, newton: Callable) -> None:
    """Each variant of ``sweep`` whose watched quantities ``gd`` ((g, g') (V, F, n) at the
    block's frames ``ks``, ``watched``) went past at a frame or between two (its motion
    solved there: ``locate``) leaves at the first (``sweep._fail``): a rigid stop's
    (dynamics/stops.py ``sweep_check``) or a curve's end.  ``block``: the block's states (a
    ``State`` (V, F, ...)), ``evq`` its rows' evaluation (tracked values and rates), ``phi``
    (V, F, nc), ``turns``, ``turn_rate`` its bounds' coordinates and rates."""
    g, d = gd
    tol = tolerances(sweep)
    last = sweep.watch_last
    past = g < -tol
    if last is not None:
        h = np.diff(sweep.times[np.r_[ks[0] - 1, ks]])
        dip, share = dips(np.concatenate([last[:, :1], g], 1),
                          np.concatenate([last[:, 1:], d], 1), h, tol)
    else:                                  # (the first frame has none before it)
        dip = share = np.zeros(g.shape, dtype=bool)
    for i in np.flatnonzero(past.any(axis=(1, 2)) | dip.any(axis=(1, 2))):
        event = _first(sweep, int(i), ks, g, dip, share, past, tol, block, evq, phi, turns,
                       turn_rate, newton)
        if event is not None:
            sweep._fail(int(i), event)


def frame_before(sweep: Any, i: int, j: int, block, evq: Any) -> tuple:
    """(state, tracked values, their rates) of variant i at the frame before the block's
    frame j: the sweep's last kept frame (j = 0), else the block's frame j - 1 (``block``
    its states, ``evq`` its evaluation, None on a tree)."""
    if j == 0:
        s, q, qd = sweep.prev.state, sweep.prev.q, sweep.prev.qd
        last = type(s)(s.t, *(x[i] for x in (s.r, s.p, s.v, s.w, s.a, s.alpha)))
        return last, None if q is None else q[i], None if qd is None else qd[i]
    b = block
    last = type(b)(b.t[j - 1], *(x[i, j - 1] for x in (b.r, b.p, b.v, b.w, b.a, b.alpha)))
    q = None if evq is None or evq.track is None else evq.track[i, j - 1]
    return last, q, None if q is None else evq.rate[i, j - 1]


def _first(sweep, i, ks, g, dip, share, past, tol, block, evq, phi, turns, turn_rate,
           newton):
    """Variant i's first crossing in the block (``first_crossings``) as its SolverError, or
    None where every dip the interpolant showed is not the motion's."""
    v = sweep.alive[i]
    result = sweep.results[v]
    at = past[i].any(axis=-1)
    fa = int(np.argmax(at)) if at.any() else len(ks)
    for j in range(min(fa + 1, len(ks))):
        items = np.flatnonzero(dip[i, j])
        if not items.size:
            continue
        last, q, qd = frame_before(sweep, i, j, block, evq)
        if j == 0:
            g0 = sweep.watch_last[i, 0]
            turn0 = None if sweep.lim is None else sweep.lim[i, 0]
            rate0 = None if sweep.lim is None else sweep.lim[i, 1]
        else:
            g0 = g[i, j - 1]
            turn0 = None if turns is None else turns[i, j - 1]
            rate0 = None if turns is None else turn_rate[i, j - 1]
        span = Interval(sweep, i, last, q, qd, newton)
        t0, t1 = float(last.t), float(sweep.times[ks[j]])
        for item in items:
            found = locate(lambda t: values_at(span, t, turn0, rate0, int(item)),
                           t0, t1, float(g0[item]), float(share[i, j, item]),
                           float(tol[i, 0, item]))
            if found is not None:
                return crossed_error(sweep, i, int(item), found, int(ks[j]), result)
    if fa == len(ks):
        return None
    model = sweep.models[v]
    nrig = 0 if model.limits is None else int(np.count_nonzero(~model.limits.compliant))
    item = int(np.argmax(past[i, fa]))
    t = float(sweep.times[ks[fa]])
    if item < nrig:
        try:
            sweep_check(model, phi[i], sweep.times[ks], int(ks[0]), result, turns[i])
        except SolverError as exc:
            return exc
    ends = open_ends(model)
    name, _, curve = ends[(item - nrig) % len(ends)]
    return off_curve_error(name, curve, t, int(ks[fa]), result)
