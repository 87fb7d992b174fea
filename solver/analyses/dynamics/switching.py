"""The rows a dynamic run switches on and off (stops resting, joints sticking) and the
run-state helpers around them: the structure with them held, friction's zero-speed test,
the energy a position correction moves (booked as work).  Used by analyses/dynamics/driver.py;
``sysm`` is its Equations (analyses/dynamics/equations.py: the equations of one run)."""
from __future__ import annotations

import numpy as np

from ...algebra.newton import scaled_jacobian
from ...base.rotations import unit_quaternions
from ...kernels.constraints import body_arrays, evaluate, global_jacobian, row_rates
from ...kernels.forces import total_forces
from .friction import (STILL, aim, held_rows, hold, limit as friction_limit, loads, magnitudes,
                       needed, rates, release)
from .stops import Stops, kinetic
from ..structure import Structure
from ...model.compile import Model
from ...model.state import RunState, SlipState


def switched(base: Structure, stops: Stops | None, model: Model, run: RunState) -> Structure:
    """The run's rows with the stops' bounds resting (RunState.resting) in resting contact
    and the sticking joints (RunState.slip) held."""
    rows = np.concatenate([stops.active_rows(run.resting) if stops is not None else np.zeros(0, int),
                           held_rows(model, run.slip) if run.slip is not None
                           else np.zeros(0, int)]).astype(int)
    return Structure(np.concatenate([base.keep, rows]), base.redundant, base.dof,
                     base.driven_dof - len(rows), base.bad_motions)


def use_rows(sysm, st: Structure):
    """Solve with the kept rows of ``st`` from now on: a change of rows ends least-norm
    solves at a singular position (exact again: the new rows are another system).
    Returns the run state with ``robust`` off, which the equations are told."""
    sysm.use(st)
    run = sysm.run.solving(False)
    sysm.tell(run)
    return run


def slipping(sysm, slip: SlipState) -> RunState:
    """The equations' told run state with the friction elements' state ``slip``, which
    they are told."""
    run = sysm.run.slipping(slip)
    sysm.tell(run)
    return run



def energy_of(sysm, t: float, r, p, v, w) -> float:
    """Kinetic + potential energy (gravity and springs) of a state, J."""
    m = sysm.m
    rg, A, vg, wg = body_arrays(m, r, p, v, w)
    gravity = -float(np.sum(m.body_mass * (r @ m.gravity)))
    springs = total_forces(m, t, rg, A, vg, wg, sysm.run.ts_ref)[1].potential
    return kinetic(m, A[: sysm.nb], np.concatenate([v, w], axis=1)) + gravity + springs


def kinetic_of(sysm, r, p, v, w) -> float:
    """Kinetic energy of a state, J."""
    A = body_arrays(sysm.m, r, p, v, w)[1]
    return kinetic(sysm.m, A[: sysm.nb], np.concatenate([v, w], axis=1))


def friction_rates(sysm, y: np.ndarray) -> np.ndarray:
    """The friction coordinates' rates at a packed state."""
    m = sysm.m
    r, p, v, w, _ = sysm.unpack(y)
    rg, A, _, _, velg = sysm.pose_bodies(r, unit_quaternions(p), np.concatenate([v, w], axis=-1))
    return rates(m, sysm.rows_at(rg, A, sysm.friction_groups).jac, velg)


def stick(sysm, t: float, r, p, v, w, which: np.ndarray, base: Structure,
           stops: Stops | None):
    """Try holding the friction elements ``which`` (their q' . d is zero now, or a ball's
    speed reached STILL times its transition speed): those whose needed force |lambda| is
    within mu_s L + preload stick, the others slip the way the force pushes; a ball still
    turning (q' . d zero at a speed above that: its slip turned by 90 degrees) slips on the
    way it turns now.  Returns the (projected) state, the structure and the run state
    (RunState) at the projected pose, which the equations are told."""
    m = sysm.m
    fp = m.frictions
    rg, A, vg, wg = body_arrays(m, r, p, v, w)
    ev = evaluate(m, rg, A, ref=sysm.run.track)
    vq = rates(m, ev.jac, np.concatenate([vg, wg], axis=-1))
    turning = fp.is_ball & (magnitudes(m, vq) > STILL * fp.speed * (1.0 + 1e-9))
    slipping(sysm, aim(m, sysm.run.slip, vq, np.intersect1d(which, np.flatnonzero(turning))))
    # a coordinate a motion drives, or a stop holds, is held already: no second row for it
    free = [k for k in which if not fp.held[k] and not turning[k]
            and not sysm.frozen[k]]
    which = np.array(free, dtype=int)
    dead = _dead_centres(sysm, which, ev.jac)
    if dead.size:          # a dead centre: the others' motion, not friction, stopped it
        slipping(sysm, reverse(sysm, t, r, p, v, w, dead))
        which = np.setdiff1d(which, dead)
    if not which.size:
        return (r, p, v, w), switched(base, stops, m, sysm.run), sysm.run
    run = slipping(sysm, hold(m, sysm.run.slip, which, ev.phi, A))
    st = switched(base, stops, m, run)
    use_rows(sysm, st)
    r, p, v, w, track = sysm.project(t, r, p, v, w)
    run = sysm.run.tracked(track)
    sysm.tell(run)
    _, lam, _, jac, _ = sysm.accelerations(t, r, p, v, w)
    A = body_arrays(m, r, p)[1]
    go = which[needed(m, lam)[which] > friction_limit(m, loads(m, lam, jac, A))[which]]
    if go.size:
        run = slipping(sysm, release(m, run.slip, go, lam))
        st = switched(base, stops, m, run)
        run = use_rows(sysm, st)
    return (r, p, v, w), st, run


DEAD_CENTRE = 1e-4   # smallest over largest singular value: the held coordinate is dependent


def _dead_centres(sysm, which: np.ndarray, jac: np.ndarray) -> np.ndarray:
    """The elements of ``which`` (angles and slides) whose coordinate, at this pose, depends
    on the kept rows (a scaled smallest singular value under DEAD_CENTRE times the largest,
    the rule of singular.near_singular, or more rows than coordinates: the motions leave
    the mechanism no freedom, so every coordinate is theirs): a crank's slider at its dead
    centre, whose rate is zero because the crank's motion makes it so.  Holding it would
    take an unbounded force (no static limit holds it), and its row, nearly dependent,
    turns the projection's rounding into a velocity change (a flywheel lost 0.3% of its
    speed at each reversal); with the crank driven, exactly dependent, it made the
    projection singular."""
    m = sysm.m
    fp = m.frictions
    cand = [k for k in which if not fp.is_ball[k]]
    if not cand or not m.nb:
        return np.zeros(0, dtype=int)
    J = global_jacobian(m, jac)
    out = []
    for k in cand:
        rows = np.concatenate([sysm.keep, fp.rows[fp.element == k]])
        s = np.linalg.svd(scaled_jacobian(m, J, rows), compute_uv=False)
        # more rows than coordinates (the motions leave no freedom): the row is dependent
        if len(rows) > s.size or s[-1] < DEAD_CENTRE * s[0]:
            out.append(k)
    return np.array(out, dtype=int)


def reverse(sysm, t: float, r, p, v, w, which: np.ndarray) -> SlipState:
    """The friction state (the equations' told RunState.slip) with the elements ``which``
    slipping on the way their coordinate accelerates now, q'' = J_q a + quad_q (Haug
    1989's gamma convention) from the accelerations without them held: at a dead centre the
    coordinate turns back."""
    m, slip = sysm.m, sysm.run.slip
    fp = m.frictions
    a = sysm.accelerations(t, r, p, v, w)[0]
    rg, A, vg, wg = body_arrays(m, r, p, v, w)
    ev = evaluate(m, rg, A, vg, wg, ref=sysm.run.track)
    acc = np.vstack([a, np.zeros((1, 6))])
    qdd = row_rates(m, fp.rows, ev.jac, acc) + ev.quad[fp.rows]
    c = np.flatnonzero(np.isin(fp.element, which) & (qdd != 0.0))
    direction = slip.direction.copy()
    direction[c] = np.sign(qdd[c])
    return slip.aimed(direction)


def released(sysm, t: float, r, p, v, w, stops: Stops | None):
    """Let go of resting stops that would pull and sticking joints whose needed friction
    exceeds the static limit (slipping the way the force pushes): (True if any changed,
    the run state with the stops let go, which the equations are told)."""
    m, run = sysm.m, sysm.run
    _, lam, _, jac, _ = sysm.accelerations(t, r, p, v, w)
    changed = False
    if stops is not None:
        resting, changed = stops.release(lam, run.resting)
        run = run.rests(resting)
        sysm.tell(run)
    if run.slip is not None and run.slip.stuck.any():
        A = body_arrays(m, r, p)[1]
        over = np.flatnonzero(run.slip.stuck
                              & (needed(m, lam) > friction_limit(m, loads(m, lam, jac, A))))
        if over.size:
            run = slipping(sysm, release(m, run.slip, over, lam))
            changed = True
    return changed, run


def hold_margin(sysm, t: float, y: np.ndarray) -> np.ndarray:
    """(n,) how far each sticking friction element is from slipping at a packed state: its
    static limit mu_s L + preload minus the force it must hold, |lambda| (+inf for elements
    not sticking); its zero is the instant a stuck joint breaks loose."""
    m = sysm.m
    r, p, v, w, _ = sysm.unpack(y)
    p = p / np.linalg.norm(p, axis=-1, keepdims=True)
    _, lam, _, jac, _ = sysm.accelerations(t, r, p, v, w)
    A = body_arrays(m, r, p)[1]
    margin = friction_limit(m, loads(m, lam, jac, A)) - needed(m, lam)
    return np.where(sysm.run.slip.stuck, margin, np.inf)


def stop_push(sysm, stops: Stops, t: float, y: np.ndarray) -> np.ndarray:
    """(nbound,) the push -sgn lambda (N or N m, >= 0 while it holds) of each resting stop at
    a packed state, +inf for bounds not resting: its zero is the instant a stop holding a
    coordinate would start to pull, where it lets go (located like a sticking joint's
    ``hold_margin``, so a load that turns away frees the coordinate then, not at the step's
    end)."""
    r, p, v, w, _ = sysm.unpack(y)
    p = p / np.linalg.norm(p, axis=-1, keepdims=True)
    lam = sysm.accelerations(t, r, p, v, w)[1]
    push = -stops.lm.sgn * lam[stops.lm.rows]
    return np.where(sysm.run.resting, push, np.inf)


def rest_at_start(sysm, stops: Stops, base: Structure, t: float, r, p, v, w):
    """Rigid bounds a run starts on (gap within the stops' tolerance, the coordinate's rate
    below the stop's rest speed, the rule a slow rebound follows) rest on their stop from
    the start, so the first frame shows the stop's push (a pose from statics on a stop: the
    load it carries, not a fall onto it a moment later counted as an impact); those that
    would pull are let go at once.  Returns the (projected) state, the structure and the
    run state (RunState) at the projected pose, which the equations are told."""
    m, lm = sysm.m, stops.lm
    rg, A, vg, wg = body_arrays(m, r, p, v, w)
    ev = evaluate(m, rg, A, ref=sysm.run.track)
    rate = row_rates(m, lm.rows, ev.jac, np.concatenate([vg, wg], axis=-1))
    g = stops.gaps_at(r, p, sysm.run.track, sysm.run.limit_ref)
    on = ~lm.compliant & (np.abs(g) <= stops.tol) & (np.abs(rate) < lm.rest_speed)
    on[on] = ~_held_already(sysm, lm.rows[on], ev.jac)
    if not on.any():
        return (r, p, v, w), switched(base, stops, m, sysm.run), sysm.run
    run = sysm.run.rests(sysm.run.resting | on)
    sysm.tell(run)
    run = use_rows(sysm, switched(base, stops, m, run))
    r, p, v, w, track = sysm.project(t, r, p, v, w)
    sysm.tell(run.tracked(track))
    run = released(sysm, t, r, p, v, w, stops)[1]
    st = switched(base, stops, m, run)
    run = use_rows(sysm, st)
    return (r, p, v, w), st, run


def _held_already(sysm, rows: np.ndarray, jac: np.ndarray) -> np.ndarray:
    """(len(rows),) True for the rows that depend on the kept rows here (a scaled smallest
    singular value under DEAD_CENTRE times the largest, as ``_dead_centres``): a coordinate
    a motion drives (or a coupler ties to one) is held already, and a second row for it
    would make the projection singular."""
    m = sysm.m
    if not rows.size or not m.nb:
        return np.zeros(len(rows), dtype=bool)
    J = global_jacobian(m, jac)
    out = np.zeros(len(rows), dtype=bool)
    for i, row in enumerate(rows):       # a run's start only, a few bounds
        s = np.linalg.svd(scaled_jacobian(m, J, np.append(sysm.keep, row)), compute_uv=False)
        out[i] = s[-1] < DEAD_CENTRE * s[0]
    return out

