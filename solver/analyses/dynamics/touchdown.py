"""Contact touchdowns in a dynamic run: the instant a contact point that was apart reaches
the other side's surface is an event (``events.py`` locates it by re-stepping, as a stop's
bound), and the approach speed there is the point's delta'_0, the run state of the
Hunt-Crossley force with Flores et al. 2011's damping (kernels/contacts.py), kept in
the run state (RunState.onset) until the point leaves the surface again."""
from __future__ import annotations

import numpy as np

from ...base.rotations import quat_rate, unit_quaternions
from ...kernels.constraints import body_arrays
from ...kernels.contacts import ONSET_FLOOR, contact_forces, gaps
from ...model.contact_model import LAW
from ..checks.curve_ends import hermite

GAP_TOL = 1e-9     # a touching point inside by no more than this times the model's size
#                    is not armed to leave (its lift-off is taken at a step's end)


def touchdown_event(sysm, t: float, y: np.ndarray):
    """(event function (t, y) -> each contact point's gap, or minus it, which are armed,
    its value at the step's start): the points apart at the start (gap > 0), however
    little, of the contacts none of whose points touch then (touchdowns: a point that a
    frame left 1e-12 m above a floor, unarmed, took its impact speed at the end of the step
    it touched down in, 0.45 m/s for 1 m/s), and the one point of a contact touching at a
    single point, inside by more than GAP_TOL times the model's size (its separation, the
    function minus its gap).  A contact's first touchdown is located;
    the points of a contact already touching (a face settling, an edge rolling onto the
    next points of a mesh) take their approach speed at the end of the step they touch in,
    as one more located instant for each would cost a few steps (thousands of a finely
    sampled mesh).  A single point's separation is located too: its force, K delta^n, is
    not smooth at delta = 0, and a step across that instant fails its error goal several
    times over (a ball leaving a floor: three to six rejected trials, half the steps of a
    bouncing ball's run)."""
    cp = sysm.m.forces.contacts
    tol = GAP_TOL * sysm.m.size_of(np.stack([cp.sb, cp.fb], axis=-1))   # (np,) each its own

    def gap(_, yy):
        r, p = sysm.split(yy)[:2]
        rg, A = body_arrays(sysm.m, r, p)[:2]
        return gaps(cp, rg, A)
    start = gap(t, y)
    inside = start <= 0.0
    touching = cp.summed @ inside                        # (nct,) points touching
    leaving = (touching[cp.contact] == 1.0) & (start < -tol)
    sign = np.where(leaving, -1.0, 1.0)
    armed = ((start > 0.0) & (touching[cp.contact] == 0.0)) | leaving

    def measure(tt, yy):
        return sign * gap(tt, yy)
    return measure, armed, sign * start


def touch(sysm, r: np.ndarray, p: np.ndarray, v: np.ndarray, w: np.ndarray):
    """After an accepted step: a point penetrating with no touchdown speed yet takes its
    approach speed now (at a located touchdown, the speed of the impact; found deep inside,
    at least ContactEval.impact_speed); a point apart
    forgets its own.  (True if any point touched down, the run state with those speeds:
    the equations' told RunState with its ``onset`` replaced)."""
    cp = sysm.m.forces.contacts
    rg, A, vg, wg = body_arrays(sysm.m, r, p, v, w)
    ce = contact_forces(cp, rg, A, vg, wg)        # the points within reach; the rest apart
    known = sysm.run.onset[ce.near]
    new = (ce.gap <= 0.0) & np.isnan(known)
    onset = np.full(cp.n, np.nan)
    # a point found inside with no touchdown (a run started with the parts overlapping)
    # takes at least the speed whose energy its elastic energy holds (impact_speed), as
    # if an impact had pressed it there; a real touchdown's approach is above it
    speed = np.maximum(np.abs(ce.approach), ce.impact_speed)
    onset[ce.near] = np.where(ce.gap > 0.0, np.nan, np.where(new, speed, known))
    return bool(new.any()), sysm.run.touched(onset)


def contact_time(cp, before: np.ndarray, after: np.ndarray) -> float:
    """The time scale (s) of the contacts of the points that touched down at a step's end
    (touchdown speed v: NaN in ``before``, the run state's onset before ``touch``, finite
    in ``after``): the shortest peak depth over v, the peak d from m v^2 / 2 = K d^(n+1) /
    (n+1) (the Hunt-Crossley law's elastic energy, the reduced mass m, no damping);
    inf with none; v at least ONSET_FLOOR, as the damping takes it.  A Hertz contact (n
    1.5) lasts 2.94 of it (Johnson 1985, sec. 11.4), so a step from the touchdown that
    ends by then ends inside with the force seen: one of natural size can span the whole
    contact, both ends apart and no force in its stages (a ball reaching a floor at 0.02
    m/s, 12 um deep at most for 1.8 ms, inside a 7.1 ms step from its located touchdown,
    left at the speed it came instead of 0.70 of it; at 0.05 m/s, the step from its
    touchdown ended inside, the force unseen, and the next one past its lift-off)."""
    new = np.isnan(before) & np.isfinite(after)
    if not new.any():
        return np.inf
    law = cp.law[..., new, :]
    K, n, m = (law[..., LAW.index(k)] for k in ("stiffness", "exponent", "mass"))
    v = np.maximum(after[new], ONSET_FLOOR)
    depth = ((n + 1.0) * m * v * v / (2.0 * K)) ** (1.0 / (n + 1.0))
    return float(np.min(depth / v))


def reach_time(sysm, r: np.ndarray, p: np.ndarray, v: np.ndarray, w: np.ndarray) -> float:
    """The longest step (s) in which no contact's two sides can pass through each other
    unseen: a step ends with a contact's sides inside each other where they meet (its
    touchdown then located, ``touchdown_event``) only if they move by no more than about
    their thickness in it (a ball through a plate 2 mm thick in a frame's step at 2 m/s).
    Half the two sides' least extents (Shape.thickness) plus the gap of their bounding
    spheres, over the speed bound of their relative motion: the spheres' centres' relative
    speed and each side's spin times its sphere's radius; inf with no such contact (a
    half-space or a bowl on one side)."""
    cp = sysm.m.forces.contacts
    zone = 0.5 * cp.thickness.sum(axis=1)                 # (nct,)
    if not np.isfinite(zone).any():
        return np.inf
    rg, A, vg, wg = body_arrays(sysm.m, r, p, v, w)
    b = cp.bound_body
    arm = (A[b] @ cp.bound_centre[..., None])[..., 0]      # (nct, 2, 3) COM to centre
    c, vc = rg[b] + arm, vg[b] + np.cross(wg[b], arm)
    apart = c[:, 1] - c[:, 0]
    gap = np.sqrt(np.sum(apart * apart, axis=-1)) - cp.bound_radius.sum(axis=1)
    with np.errstate(invalid="ignore"):                   # (inf radii: inf zones, left out)
        speed = (np.linalg.norm(vc[:, 1] - vc[:, 0], axis=-1)
                 + np.sum(np.linalg.norm(wg[b], axis=-1) * cp.bound_radius, axis=1))
    finite = np.isfinite(zone) & (speed > 0.0)
    if not finite.any():
        return np.inf
    return float(np.min((np.maximum(gap[finite], 0.0) + zone[finite]) / speed[finite]))


def skimmed(sysm, y: np.ndarray, y1: np.ndarray, hs: float) -> float | None:
    """A step (y -> y1, hs s) that carried a contact point armed for its touchdown (apart
    at the start, its contact touching nowhere) into the other side and out again, both
    ends apart (a ball grazing a floor at 0.02 m/s inside one frame's step, unseen: no
    force acted, it came back at the speed it came): the share of the step (0, 1) where
    the cubic Hermite interpolant of the gaps (gaps and rates at both ends) dips deepest,
    if below zero there; else None.  A step cut there ends inside, and the touchdown is
    located as any other (as Stops.turned_back does for a stop).  Each rate is a
    difference of the gaps along the state's motion over 1e-6 of the step (its error,
    the gap's curvature times that, far below the rate; rounding's, 1e-16 of the
    positions over it)."""
    cp = sysm.m.forces.contacts
    dt = 1e-6 * hs
    states = []
    for yy in (y, y1):
        r, p, vel, _ = sysm.split(yy)
        q = unit_quaternions(p)
        states.append(((r, q), (r + dt * vel[:, :3],
                                unit_quaternions(q + dt * quat_rate(q, vel[:, 3:])))))

    def gap(at):
        return gaps(cp, *body_arrays(sysm.m, *at)[:2])
    g0 = gap(states[0][0])        # (each next one only where the ones before leave a dip)
    dip = ((cp.summed @ (g0 <= 0.0))[cp.contact] == 0.0) & (g0 > 0.0)
    if not dip.any():
        return None
    g1 = gap(states[1][0])
    dip &= g1 > 0.0
    if not dip.any():
        return None
    d0 = (gap(states[0][1]) - g0) / dt
    d1 = (gap(states[1][1]) - g1) / dt
    dip &= (d0 < 0.0) & (d1 > 0.0)
    if not dip.any():
        return None
    s = np.linspace(0.0, 1.0, 33)[1:-1, None]
    cubic = hermite(g0[dip], d0[dip], g1[dip], d1[dip], hs, s)
    if not (cubic.min(axis=0) < 0.0).any():
        return None
    return float(s[int(np.argmin(cubic.min(axis=1))), 0])
