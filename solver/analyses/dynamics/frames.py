"""A dynamic run's output frames: a step's end projected and stored, the frames inside a
long step from its dense output (``frames_inside``), and rest: a mechanism that nothing
depending on time acts on, at rest, holds its pose for the frames after (``at_rest``,
``hold_after``); and the equations' fastest rate, which bounds the steps past the frames
(``motion_rate``).  Used by analyses/dynamics/driver.py (and through it the study's
lockstep run)."""
from __future__ import annotations

import numpy as np

from ...algebra.newton import scales
from ...base.rotations import quat_angle
from ...integrators.implicit import spectral_radii, spectral_radius
from ...kernels.constraints import body_arrays
from ...kernels.forces import inertia_world
from ...model.compile import Model
from ...model.results import Result, report_progress
from ...model.state import RunState, State
from .equations import Equations

REST = 1e-9          # a closed loop rests when a step moves no point more than this x its size
FRAMES_AT_ONCE = 256  # frames within a long step projected and evaluated together, at most
REST_SPEED = 1e-4    # at rest: no point faster than this x Goals.rest x the model's size
REST_ACCEL = 1e-3    # per second, and none accelerating faster than this x ... per second^2
ON_FRAME = 1e-14     # a time within this x max(1, |t|) s of an output frame's stands on it


def on_frame_within(t_out):
    """How near (s) a time must come to the output time ``t_out`` (s; or an array of them:
    a study's variants) to stand on that frame: rounding's share of the time."""
    return ON_FRAME * np.maximum(1.0, np.abs(t_out))


def rests(body_length, body_size, r0, p0, r1, p1):
    """Did a step from (r0, p0) to (r1, p1) leave every part where it was: its ``travel``
    within REST of its island's size (``body_size`` (..., nb), Model.body_size: a part
    large beside it does not widen a mechanism's rest; a closed loop at rest takes long
    steps, having no lined-up position to find)?  A bool, or one per state (a study's
    variants)."""
    return travel(body_length, r0, p0, r1, p1, body_size) <= REST


def motion_power(lam: np.ndarray, f: np.ndarray, rows: np.ndarray,
                 row_motion: np.ndarray) -> float:
    """The motions' power (W) at a frame: -lambda . the rates they prescribe, over the
    kept motion ``rows`` (multipliers ``lam`` (nc,), motion values ``f`` (nmotion, 3))."""
    return float(np.dot(-lam[rows], f[row_motion[rows], 1]))


def at_rest(model: Model, v, w, a, rest: float) -> bool:
    """No part moves or accelerates (centres of mass, and rotations times the part's length)
    beyond REST_SPEED and REST_ACCEL times ``rest`` (Goals.rest) and its island's size
    (Model.body_size): the residue of a settled run (a pendulum settled on a damped spring,
    its frames from long steps: 3e-11 rad/s, 2e-10 rad/s^2 at the default 1e-6), which held
    for 10,000 frames moves nothing by as much as the tolerance."""
    if float(np.abs(v).max(initial=0.0)) > REST_SPEED * model.length_scale * rest:
        return False          # a centre of mass moves past the largest island's: one reduction
    return bool(at_rest_many(model.body_size, model.body_length, v, w, a, rest))


def settled(body_size, body_length, v, w, a, rest: float) -> np.ndarray:
    """at_rest of many states at once (a design study's variants: body_size and
    body_length (V, nb), v, w (V, nb, 3), a (V, nb, 6)), each as at_rest answers it."""
    return at_rest_many(body_size, body_length, v, w, a, rest)


def at_rest_many(body_size, body_length, v, w, a, rest: float):
    """at_rest of many states at once: v, w (..., nb, 3), a (..., nb, 6), body_size and
    body_length (..., nb) of each (a design study's variants); a bool per state.  Each
    part's speeds and accelerations are over its island's size, so a mechanism's rest is
    its own whatever stands beside it."""
    size = np.asarray(body_size)[..., None] * rest
    lw = np.asarray(body_length)[..., None] / size
    most = (-2, -1)
    speed = ((np.abs(v) / size).max(axis=most, initial=0.0)
             + (np.abs(w) * lw).max(axis=most, initial=0.0))
    accel = ((np.abs(a[..., :3]) / size).max(axis=most, initial=0.0)
             + (np.abs(a[..., 3:]) * lw).max(axis=most, initial=0.0))
    return (speed <= REST_SPEED) & (accel <= REST_ACCEL)


def hold_after(out: Result, k: int, progress) -> None:
    """The frames after frame k hold its pose (a mechanism at rest that nothing depending on
    time acts on); ``Result.rest_from`` = k says from where (not a note: nothing is wrong)."""
    out.hold(k)
    for j in range(k + 1, len(out.times)):     # frame by frame, as a run reports (and cancels)
        report_progress(progress, j, len(out.times), out)

def travel(body_length, r0, p0, r1, p1, body_size=1.0):
    """How far the parts moved between two poses (r (..., nb, 3), p (..., nb, 4); leading
    axes: a design study's variants): the largest move of a centre of mass plus the part's
    length (body_length (..., nb)) times its rotation (a small angle's first-order size),
    each over ``body_size`` (..., nb) m (1: in metres)."""
    return np.max((np.linalg.norm(r1 - r0, axis=-1) + body_length * quat_angle(p1, p0))
                  / body_size, axis=-1, initial=0.0)


def frames_inside(sysm: Equations, stepper, out: Result, times: np.ndarray, k: int,
                   step: tuple[float, float], at_start: RunState, progress
                   ) -> tuple[int, tuple]:
    """Store frames k, k+1, ... that lie within the last step (t0, t1) (at most
    FRAMES_AT_ONCE): the step's dense output there, projected onto the constraints and
    evaluated for accelerations and multipliers as a step's end is, all frames as one
    stack (a leading frame axis through the projection's Newton and the equations);
    ``at_start``: the run state (tracked values, torsion springs' turns) the step's stages
    used.  Returns the index of the first frame not stored and the last stored frame's
    (v, w, a) (for ``at_rest``)."""
    model, (t0, t1) = sysm.m, step
    end = int(np.searchsorted(times, t1 - on_frame_within(t1), side="left"))
    end = min(end, k + FRAMES_AT_ONCE)
    ts = times[k:end]
    kept = sysm.run
    # turns taken as the step's stages took them; solved as the run solves at the step's end
    sysm.tell(at_start.solving(kept.robust, kept.rounded))
    try:
        R, P, V, W, work = sysm.unpack(stepper.dense((ts - t0) / (t1 - t0)))
        if kept.robust:                       # near a singular position: one at a time
            run, each = sysm.run, []
            for i, tt in enumerate(ts):
                x, run = project_run(sysm, run, tt, R[i].copy(), P[i].copy(), V[i].copy(),
                                     W[i].copy())
                each.append(x)
            R, P, V, W = (np.stack(x) for x in zip(*each))
        else:
            R, P, V, W, track = sysm.project_many(ts, R, P, V, W, np.ones(len(ts), dtype=bool),
                                                  1.0 / model.row_length, scales(model)[1],
                                                  model.body_size)
            sysm.tell(sysm.run.tracked(track))
        a, lam, fe, J, f = sysm.rhs_parts(ts, sysm.pack(R, P, V, W, work))[1]
    finally:
        sysm.tell(kept)                       # the run goes on from the step's end
    block = slice(k, end)
    out.store(block, State(ts, R, P, V, W, a[..., :3], a[..., 3:]), lam, J, None)
    mr = sysm.mrows
    power = fe.power_nc + (np.sum(-lam[:, mr] * f[:, model.row_motion[mr], 1], axis=-1)
                           if mr.size else 0.0)
    A = body_arrays(model, R, P)[1]
    out.store_energy(block, inertia_world(model, A[:, : model.nb]), fe.potential, power, work)
    for j in range(k, end):
        report_progress(progress, j, len(times), out)
    return end, (V[-1], W[-1], a[-1])

def project_run(sysm: Equations, run: RunState, t: float, r, p, v, w
                ) -> tuple[tuple, RunState]:
    """Equations.project of the state (r, p, v, w) at time t (s) with the run state ``run``:
    ((r, p, v, w) on the constraints, the run state with the tracked values found there),
    which the equations are told for what follows."""
    sysm.tell(run)
    r, p, v, w, track = sysm.project(t, r, p, v, w)
    run = run.tracked(track)
    sysm.tell(run)
    return (r, p, v, w), run


def motion_rate(sysm: Equations, t, y: np.ndarray, iterations: int = 30):
    """The fastest rate (1/s) of the run's equations linearized at (t, y): the spectral
    radius of d(dy/dt)/dy by power iteration, each product a finite difference (one
    right-hand side).  At rest the explicit method's error estimate vanishes and nothing
    but stability bounds its step: past h |lambda| ~ 3 (DOP853) rounding grows into motion
    (a pendulum hanging at rest, steps of 40 s: 8e-5 rad/s), so long steps are held to
    the stepper's ``stable`` over the rate (explicit.py: 1.5 for DOP853, 0.9 for 5(4)).
    One state (a float), or a study's variants' t (V,), y (V, n) on their stacked
    equations (V,), each with its own run's bits."""
    f0 = sysm.rhs(t, y)
    eps = 1e-7 * np.maximum(1.0, np.max(np.abs(y[..., :-1]), axis=-1))[..., None]
    apply = lambda x: (sysm.rhs(t, y + eps * x) - f0) / eps   # noqa: E731
    return (spectral_radius(apply, len(y), iterations) if y.ndim == 1
            else spectral_radii(apply, len(y), y.shape[-1], iterations))
