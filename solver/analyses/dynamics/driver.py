"""Forward dynamics: integrate the constrained equations of motion through the output
frames (Haug 1989, "Forward dynamics - dynamically driven").

The equations (the augmented system by its Schur complement, the state's layout, the
projection) are ``equations.py``'s; after every
accepted step the positions and velocities are projected back onto the constraints
(M-weighted least change; Hairer-Wanner VII.2 "projection methods"), so constraints hold to
Newton precision at every frame with no drift, and the multipliers at each output frame give
the reactions and motion efforts as in kinematics.

Singular positions (a parallelogram's links lined up, a bifurcation: the kept constraint
rows dependent for an instant) make J M^-1 J^T singular there, and dividing by its vanishing
eigenvalue turns rounding into steps that shrink without end.  When a step has been cut
below a tenth of a frame at such a position, and no motion is involved (a motion driven into
a limit is a lock-up), the run goes on with least-norm solves (Tikhonov-filtered
eigen-decomposition, Golub-Van Loan 5.5.4) until the Jacobian is well conditioned again:
the motion follows the branch its momentum carries, and the reactions there are the
least-norm ones (a note says where).

Output frames are step ends: a step is cut to end on the next frame, so every frame is an
integrated state. Only where the steps outgrow the frames (a mechanism coming to rest over
thousands of frames, or frames faster than the motion needs, where the step control would
take steps of many frames) does a step run past them, LONG_STEP frames or more, when
nothing needs the steps' ends near it: no stops or friction (events located by
re-stepping), no couplers or curve joints (their tracked values go from frame to frame),
and an open tree of joints or a closed loop at rest (a moving loop's lined-up positions are
found by the cut steps, below). The frames inside a long step are its dense output
(DOP853's of order 7 and Dormand-Prince 5(4)'s of order 4, Shampine's,
Hairer-Norsett-Wanner II.6; Radau IIA's collocation polynomial, Hairer-Wanner IV.5), each
projected onto the constraints like a step end and evaluated for its accelerations and
reactions, all the frames of a step as one stack (``frames_inside``). That costs four
right-hand sides a step (DOP853; none for 5(4), whose seventh stage is at the new point)
and a share of one stacked projection and evaluation a frame, against a full step of twelve
for every frame. And a mechanism at rest that nothing depending on time acts on holds its
pose for the frames after (``at_rest``, Result.hold).

Integrators (error-controlled):
- explicit Runge-Kutta for ordinary mechanisms (``explicit.py``): Dormand-Prince 8(5,3) at
  the default and tighter tolerances (twelve right-hand sides a step, eighth order, so tight
  energy conservation costs few steps and few projections), Dormand-Prince 5(4) at loose ones;
- the L-stable Radau IIA method of order 9 (Hairer-Wanner IV.5 and IV.8, ``implicit.py``)
  when the force elements make the constrained system stiff (``choose_method``): its
  stability does not limit the step, stiff modes that the step does not resolve are damped
  out instead of blowing up, and its order lets the slow motion (a governor's spin) take
  long steps; Gustafsson's predictive step control (``integrators/control.py``).
"""
from __future__ import annotations

import numpy as np

from ...algebra.newton import scaled_jacobian, scales
from ...algebra.rank import best_rows, involved
from ...base.errors import ExpressionError, FrictionJam, SolverError
from ...base.rotations import quat_angle
from ...integrators.control import (ErrorNorm, Goals, PredictiveControl, StandardControl,
                                    error_scale, frame_spacing, initial_step)
from ...integrators.explicit import DoPri5
from ...integrators.implicit import RadauStepper, spectral_radius, stiffness_rate
from ...kernels.constraints import body_arrays, evaluate, global_jacobian, motion_values
from ...kernels.contacts import summary_rows
from ...kernels.forces import inertia_world
from ...model.compile import Model
from ...model.frame_buffer import FrameBuffer
from ...model.results import Result, report_progress
from ...model.state import RunState, State
from .equations import Equations
from .events import crossed_at_end, record_friction, step_events
from .friction import aim, magnitudes, release
from .stops import Stops, check_start
from .touchdown import touch
from .switching import (energy_of, friction_rates, released, rest_at_start, slipping, stick,
                        switched, use_rows)
from ..structure import Structure, open_tree
from ..general_motions import lock_up_cause, reached_singular


def choose_method(sysm: Equations, t: float, r, p, v, w, method: str) -> str:
    """"explicit" unless the force elements make the constrained system stiff: its fastest
    rate under their stiffness and damping (the largest |lambda| of the linearized
    constrained motion, ``stiffness_rate``: sqrt(k/m) for a spring, c/m for a heavy damper
    even on a soft spring) exceeds STIFF_RATE 1/s.  Dormand-Prince 8(5,3) is stable for
    h |lambda| up to about 6 on the negative real axis, so above 300 1/s its step would be
    held under 0.02 s, about the accuracy step of an ordinary mechanism at the default
    tolerance (the benchmark chain: 0.013 s): stability, not accuracy, would set it."""
    if method != "auto":
        return method
    if sysm.m.forces.empty:
        return "explicit"
    return "implicit" if stiffness_rate(sysm, t, r, p, v, w) > STIFF_RATE else "explicit"


def _near_jam(sysm: Equations) -> tuple[str, ...]:
    """The friction elements whose headroom from a jam (friction.with_slip: 1 - dg/ds) was
    below JAM_HEADROOM at the last right-hand side, any of its stages: where a step size
    collapses, the friction that grows without bound there (a crosshead nearing its
    friction angle) is named."""
    room = sysm.headroom
    if room is None:
        return ()
    close = np.min(np.reshape(room, (-1, room.shape[-1])), axis=0) < JAM_HEADROOM
    return tuple(sysm.m.frictions.names[i] for i in np.flatnonzero(close))


JAM_HEADROOM = 1e-2
STIFF_RATE = 300.0
SINGULAR_STEP = 0.1     # a step cut to below this share of a frame: is it a singular position?


def dynamic_run(model: Model, st: Structure, start: State, times: np.ndarray,
                tolerance: float = 1e-6, method: str = "auto", progress=None) -> Result:
    """Integrate from the assembled start state at times[0] through every output frame;
    returns a Result.

    method: "explicit" (Dormand-Prince 8(5,3), 5(4) at loose tolerances), "implicit"
    (L-stable Radau IIA of order 9, for stiff springs and dampers) or "auto" (implicit only
    when the force elements make the system stiff, ``choose_method``)."""
    goals = Goals(tolerance)           # the jobs of the tolerance (integrators/control.py)
    sysm = Equations(model, st, singular=goals.singular)
    run = RunState.start(model, start.track)   # tracked values as the assembly found them
    sysm.tell(run)
    t = float(times[0])
    r, p, v, w = start.r, start.p, start.v, start.w
    check_start(model, r, p, t)
    stops = Stops(model) if model.limits is not None else None
    base = st                  # the structure without stops in contact or joints sticking
    try:
        (r, p, v, w), run = project_run(sysm, run, t, r, p, v, w)   # consistent velocities
    except np.linalg.LinAlgError:
        raise SolverError(f"the initial position is singular: the constraints cannot be "
                          f"met at t = {t:.6g} s", t) from None
    except ExpressionError as exc:
        raise SolverError(str(exc), t) from None
    if stops is not None:             # coordinates that start on a rigid stop rest on it
        (r, p, v, w), st, run = rest_at_start(sysm, stops, base, t, r, p, v, w)
    if run.slip is not None:          # joints at rest stick if they can, moving ones slip
        vq = friction_rates(sysm, sysm.pack(r, p, v, w, 0.0))
        run = slipping(sysm, aim(model, run.slip, vq))
        still = np.flatnonzero(magnitudes(model, vq) <= 1e-9 * model.frictions.speed)
        if still.size:
            (r, p, v, w), st, run = stick(sysm, t, r, p, v, w, still, base, stops)
    try:
        method = choose_method(sysm, t, r, p, v, w, method)
    except ExpressionError as exc:            # a load that cannot be evaluated at the start
        raise SolverError(str(exc), t) from None
    rtol = goals.local(method)
    stepper = RadauStepper(sysm) if method == "implicit" else goals.explicit_pair()(sysm.rhs)
    control = (PredictiveControl if method == "implicit" else StandardControl)(stepper.order)
    out = Result.empty(model, times, "dynamic")
    if run.slip is not None:           # the joints held at the start
        record_friction(out, t, np.zeros_like(run.slip.stuck), model.frictions.names, run.slip)
    out.method = stepper.name
    L = model.length_scale
    scale = error_scale(sysm.pack, L, model.nb)     # the error goal (integrators/control.py)
    norm = ErrorNorm(scale, rtol)

    work = 0.0
    h = f_end = None
    # long steps with dense output (module docstring): every stepper has one; no events to
    # locate; in a closed loop only while it rests (no lined-up position to find then)
    # and no tracked values (a coupler's turns, a cam's contact) to carry frame by frame
    contacts = run.onset is not None           # contact points touching down (touchdown.py)
    dense = stops is None and run.slip is None and model.ntrack == 0 and not contacts
    locating = stops is not None or run.slip is not None or contacts   # events in the steps
    tree = open_tree(model)
    resting = False            # the last accepted step left every part where it was
    t_end = float(times[-1])
    t_last = t                 # where the last accepted step began (its dense output's start)
    explicit = isinstance(stepper, DoPri5)     # both Dormand-Prince pairs
    rate, rate_age, rate_wait = 0.0, RATE_EVERY, RATE_EVERY   # the equations' fastest rate,
    #                                                             steps since, steps to the next
    grow = 0.0                 # the step the control proposed after the last accepted one
    passed: list[tuple[float, tuple[str, ...]]] = []   # singular positions passed: (t, joints)
    rechosen: list[float] = []                          # times the kept rows were chosen anew
    frame = frame_spacing(times)

    frames = FrameBuffer(out)    # the frames at step ends, stored a block at a time

    def fail(msg: str, k: int, tt: float, who=()):
        frames.flush()
        raise SolverError(msg, tt, who, out.truncated(k))

    stored = 0                 # frames stored ahead (those inside a long step, together)
    # nothing depends on time (no motion, applied load or actuator): once at rest, at rest
    fm = model.forces
    autonomous = (not model.motion_functions and not fm.ld_names
                  and all(a is None for a in list(fm.sd_act) + list(fm.ts_act)))
    for k, t_out in enumerate(times):
        if k < stored:
            continue
        # integrate up to the frame time
        while t < t_out - 1e-14 * max(1.0, abs(t_out)):
            try:
                y = sysm.pack(r, p, v, w, work)
                # first stage: the last stage of the step before (first same as last), taken
                # before the projection moved y by the size of the local error, or anew
                f0 = sysm.rhs(t, y) if f_end is None else f_end
                if h is None:
                    h = initial_step(f0, y, scale, rtol, times)
                # a step cut to the next frame, or past it when the steps outgrow the frames
                long = (dense and (tree or resting) and grow >= LONG_STEP * frame
                        and grow > t_out - t)
                if long and explicit:      # within the explicit method's stability
                    if rate_age >= rate_wait:
                        rate, rate_age = motion_rate(sysm, t, y), 0
                        # a rate that keeps the steps short is looked at again later and later
                        short = stepper.stable / max(rate, 1e-300) < LONG_STEP * frame
                        rate_wait = min(2 * rate_wait, 64 * RATE_EVERY) if short else RATE_EVERY
                    long = min(grow, stepper.stable / max(rate, 1e-300)) >= LONG_STEP * frame
                bound = stepper.stable / max(rate, 1e-300) if explicit else np.inf
                hs = min(grow, t_end - t, bound) if long else control.trial(h, t_out - t)
                rate_age += 1
                at_start = run             # the run state a step's stages use
                while True:
                    ynew, err = stepper.step(t, y, f0, hs, norm)
                    # a step over its goal past an event ends on the event (step_events)
                    if err <= 1.0 or (locating and err < np.inf and
                                      crossed_at_end(sysm, stops, t, y, hs, ynew)):
                        h_next = control.accepted(hs, err, stepper)
                        break
                    hs = control.rejected(hs, err, stepper)
                    who = (free_singular(model, st, r, p) if hs < SINGULAR_STEP * frame
                           and not run.robust else ())
                    if who:
                        better = _rechosen(model, st, r, p)
                        if better is not None:
                            # redundant equations whose independent subset changed as the
                            # mechanism moved (a spatial overconstrained loop): exact again
                            # with the rows that are independent here
                            st = better
                            run = use_rows(sysm, st)
                            rechosen.append(t)
                        else:
                            # a singular position the motion may pass (constraints dependent
                            # for an instant): least-norm solves until it is passed
                            run = run.solving(True)
                            sysm.tell(run)
                            passed.append((t, who))
                        hs = control.trial(h, t_out - t)
                        long = False
                        f0 = sysm.rhs(t, y)
                        continue
                    if hs < 1e-12 * max(1.0, abs(t)):
                        who = _near_singular(model, st, r, p)
                        why = (f"the mechanism is at a singular position (joints involved: "
                               f"{', '.join(who)})" if who else
                               "a discontinuity or an extremely stiff element")
                        jam = _near_jam(sysm)
                        if jam and not who:
                            who = jam
                            why = (f"joint friction {', '.join(map(repr, jam))} nears a jam: "
                                   "slipping, it raises its own load nearly as fast as itself "
                                   "and grows without bound; its coefficient is too large for "
                                   "the joint's pin radius, thrust arm or bearing length")
                        reach = lock_up_cause(model, who, st.keep, r, p, t, t_out, run.track,
                                              f" at t = {t_out:.6g} s (frame {k})") if who else ""
                        fail(f"integration failed at t = {t:.6g} s: the step size fell below "
                             f"{hs:.1e} s ({why})" + (f"; {reach}" if reach else ""), k, t, who)
                # keep the natural step for the next one unless this step was cut to the frame;
                # the implicit method's grows after cut steps too (held below a frame it took
                # two steps a frame at rest); the explicit one's growth past the frames is
                # ``grow``, which the study's lockstep run follows step for step
                if long or hs == h or h_next < h or (method == "implicit" and h_next > h):
                    h = h_next
                grow = long_proposal(hs, err, control.expo)
                # the step's first event (a stop, a slip reversal, a joint breaking loose, a
                # dry coefficient's breakpoint), located by re-stepping, its error in the goal
                ended = step_events(sysm, stepper, control, stops, t, y, f0, hs, ynew, err, norm)
                hs, ynew, hit, slid, broke = ended.hs, ended.y1, ended.hit, ended.slid, ended.broke
                if ended.err > 1.0:              # cut to MIN_STEP, still over the goal
                    fail(f"integration failed at t = {t:.6g} s: a step ending on an event "
                         f"stays over the error goal at {hs:.1e} s (a discontinuity or an "
                         "extremely stiff element)", k, t)
                if ended.cut:                    # cut short for its error: so is the next
                    h = min(h, control.accepted(hs, ended.err, stepper))
                # the last stage at the new point, unless the end is a located instant
                f_end = None if ended.located else getattr(stepper, "k_end", None)
                r1, p1, v1, w1, work1 = sysm.unpack(ynew)
                r0, p0 = r, p
                (r, p, v, w), run = project_run(sysm, run, t + hs, r1.copy(), p1.copy(),
                                                v1.copy(), w1.copy())
                resting = not tree and moved(model, r0, p0, r, p) <= REST * L
                t_last, t, work = t, t + hs, work1
                out.steps += 1
                held = None if run.slip is None else run.slip.stuck
                if hit.size:                     # Newton's impact law; slow rebounds rest
                    v, w, lost, struck, run = stops.impact(sysm, t, r, p, v, w, hit,
                                                           motion_values(model, t))
                    sysm.tell(run)
                    work += lost
                    out.impacts.append(struck)
                    # on the bound exactly (a rebound starts from a gap of zero, not -tol/2)
                    run = use_rows(sysm, Structure(
                        np.union1d(switched(base, stops, model, run).keep,
                                   model.limits.rows[hit]), base.redundant, base.dof,
                        base.driven_dof, base.bad_motions))
                    e0 = energy_of(sysm, t, r, p, v, w)
                    # positions only: the rebound stays
                    (r, p, _, _), run = project_run(sysm, run, t, r, p, v, w)
                    st = switched(base, stops, model, run)
                    run = use_rows(sysm, st)
                    (r, p, v, w), run = project_run(sysm, run, t, r, p, v, w)
                    work += energy_of(sysm, t, r, p, v, w) - e0   # that move's energy, booked
                    if run.resting.any():
                        let_go, run = released(sysm, t, r, p, v, w, stops)
                        if let_go:                  # come to rest, pulled away at once
                            st = switched(base, stops, model, run)
                            run = use_rows(sysm, st)
                    f_end = None
                    if run.slip is not None:     # a rebound reverses the joints' slip
                        vq = friction_rates(sysm, sysm.pack(r, p, v, w, 0.0))
                        run = slipping(sysm, aim(model, run.slip, vq))
                elif slid.size:                  # stick if the static limit holds the joint
                    (r, p, v, w), st, run = stick(sysm, t, r, p, v, w, slid, base, stops)
                    f_end = None
                elif broke.size:                 # the located instant a stuck joint breaks loose
                    lam = sysm.accelerations(t, r, p, v, w)[1]
                    run = slipping(sysm, release(model, run.slip, broke, lam))
                    st = switched(base, stops, model, run)
                    run = use_rows(sysm, st)
                    f_end = None
                elif ((stops is not None and run.resting.any())
                      or (run.slip is not None and run.slip.stuck.any())):
                    let_go, run = released(sysm, t, r, p, v, w, stops)
                    if let_go:                   # a pulling stop, a slipping joint
                        st = switched(base, stops, model, run)
                        run = use_rows(sysm, st)
                        f_end = None
                if held is not None:             # friction's stick, slip and reversal instants
                    record_friction(out, t, held, model.frictions.names, run.slip, slid)
                if run.robust and not _near_singular(model, st, r, p):
                    run, f_end = run.solving(False), None     # past it: exact solves again
                    sysm.tell(run)
                if len(run.ts_ref):          # the springs' turns at the step's end
                    run = run.turned(sysm.turns(r, p))
                    sysm.tell(run)
                if contacts:
                    touched, run = touch(sysm, r, p, v, w)
                    sysm.tell(run)
                    if touched:                  # a touchdown speed taken: the forces' run state
                        f_end = None
            except ExpressionError as exc:
                fail(str(exc), k, t)
            except FrictionJam as exc:
                fail(exc.at(t), k, t, exc.names)
            except np.linalg.LinAlgError:
                run = sysm.run               # as told when it failed (an event's part-way)
                who = () if run.robust else free_singular(model, st, r, p)
                if who:                      # S not positive definite at a free singular position
                    run, f_end = run.solving(True), None
                    sysm.tell(run)
                    passed.append((t, who))
                    continue
                rg, A = body_arrays(model, r, p)[:2]
                J = global_jacobian(model, evaluate(model, rg, A).jac)
                who = involved(model, J, st.keep)
                why = reached_singular(model, who, p, t)
                fail(f"lock-up at t = {t:.6g} s: the constraint equations became singular "
                     f"(joints involved: {', '.join(who)})" + (f"; {why}" if why else ""),
                     k, t, who)
        # output frame: projected state, accelerations and multipliers
        if t > t_out + 1e-14 * max(1.0, abs(t_out)):     # within a long step: it and the
            frames.flush()                               # frames after it in that step
            try:
                stored, last = frames_inside(sysm, stepper, out, times, k, (t_last, t),
                                              at_start, progress)
                if autonomous and stored < len(times) and at_rest(model, *last, goals.rest):
                    _hold(out, stored - 1, progress)     # the chunk's last frame is at rest
                    break
            except ExpressionError as exc:
                fail(str(exc), k, t_out)
            except FrictionJam as exc:
                fail(exc.at(t_out), k, t_out, exc.names)
            except np.linalg.LinAlgError:
                fail(f"lock-up at t = {t_out:.6g} s: the constraint equations are singular",
                     k, t_out)
            continue
        try:   # the next step starts here: its first stage is this evaluation
            dy, (a, lam, fe, J, f) = sysm.rhs_parts(t, sysm.pack(r, p, v, w, work))
            if f_end is None:
                f_end = dy
        except ExpressionError as exc:
            fail(str(exc), k, t)
        except FrictionJam as exc:
            fail(exc.at(t), k, t, exc.names)
        except np.linalg.LinAlgError:
            fail(f"lock-up at t = {t:.6g} s: the constraint equations are singular", k, t)
        run = run.turned(fe.ts_angle)
        sysm.tell(run)
        mr = sysm.mrows
        power = fe.power_nc + float(np.dot(-lam[mr], f[model.row_motion[mr], 1]))
        frames.add(k, State(t, r, p, v, w, a[:, :3], a[:, 3:]), lam, J, run.track,
                   fe.potential, power, work, sysm.friction if sysm.dry else None,
                   None if fe.contact is None else
                   summary_rows(model.forces.contacts, fe.contact, body_arrays(model, r, p)[0]))
        report_progress(progress, k, len(times), out, frames.flush)
        if autonomous and k + 1 < len(times) and at_rest(model, v, w, a, goals.rest):
            frames.flush()
            _hold(out, k, progress)    # nothing will move it again
            break
    frames.flush()
    if passed:
        t0, who = passed[0]
        more = f" and {len(passed) - 1} more" if len(passed) > 1 else ""
        out.notes.append(f"the mechanism passed a singular position at t = {t0:.6g} s{more} "
                         f"(joints {', '.join(who)} dependent for an instant, e.g. links lined "
                         "up); near it the reactions of those joints are the least-norm ones")
    return out


LONG_STEP = 2.0      # steps of at least this many frames run past the frames (dense output)
LONG_ERR = 1e-3      # ... sized for this share of the step's error goal: the dense output
RATE_EVERY = 16      # steps between estimates of that rate (each costs 31 right-hand sides)
REST = 1e-9          # a closed loop rests when a step moves no point more than this x its size
FRAMES_AT_ONCE = 256  # frames within a long step projected and evaluated together, at most
REST_SPEED = 1e-4    # at rest: no point faster than this x Goals.rest x the model's size
REST_ACCEL = 1e-3    # per second, and none accelerating faster than this x ... per second^2


def at_rest(model: Model, v, w, a, rest: float) -> bool:
    """No part moves or accelerates (centres of mass, and rotations times the part's length)
    beyond REST_SPEED and REST_ACCEL times ``rest`` (Goals.rest) and the model's size: the
    residue of a settled run (a pendulum settled on a damped spring, its frames from long
    steps: 3e-11 rad/s, 2e-10 rad/s^2 at the default 1e-6), which held for 10,000 frames
    moves nothing by as much as the tolerance."""
    if float(np.abs(v).max(initial=0.0)) > REST_SPEED * model.length_scale * rest:
        return False          # a centre of mass moves: the usual answer, in one reduction
    return bool(at_rest_many(model.length_scale, model.body_length, v, w, a, rest))


def at_rest_many(length_scale, body_length, v, w, a, rest: float):
    """at_rest of many states at once: v, w (..., nb, 3), a (..., nb, 6), length_scale (...)
    and body_length (..., nb) of each (a design study's variants); a bool per state."""
    L, lw = np.asarray(length_scale) * rest, np.asarray(body_length)[..., None]
    most = (-2, -1)
    speed = (np.abs(v).max(axis=most, initial=0.0)
             + (np.abs(w) * lw).max(axis=most, initial=0.0))
    accel = (np.abs(a[..., :3]).max(axis=most, initial=0.0)
             + (np.abs(a[..., 3:]) * lw).max(axis=most, initial=0.0))
    return (speed <= REST_SPEED * L) & (accel <= REST_ACCEL * L)


def _hold(out: Result, k: int, progress) -> None:
    """The frames after frame k hold its pose (a mechanism at rest that nothing depending on
    time acts on); ``Result.rest_from`` = k says from where (not a note: nothing is wrong)."""
    out.hold(k)
    for j in range(k + 1, len(out.times)):     # frame by frame, as a run reports (and cancels)
        report_progress(progress, j, len(out.times), out)


def long_proposal(hs: float, err: float, expo: float) -> float:
    """The next step past the frames after an accepted step hs with error norm err (floats:
    a study's lockstep runs call it for one variant at a time, so that each gets its
    separate run's bits; numpy's array power differs in the last bit): the standard
    proposal, hs min(5, 0.9 (err / LONG_ERR)^-|expo|)
    (expo: the control's exponent, -1/(q+1) or 1/(q+1)), for an error goal LONG_ERR times
    the step's.  The dense output between step ends is of lower order than the step's end
    (DOP853: 7 against 8; Dormand-Prince 5(4): 4 against 5; Radau IIA: 5 against 9): on
    long steps its error reaches some 40 times the step's (a tumbling body at the default
    tolerance: 4e-6 against 1e-7), so a long step is held to about 0.4 (DOP853), 0.25
    (5(4)) or 0.3 (Radau IIA, whose error estimate is of order 5 as its polynomial) of
    what the step's own goal would allow, which keeps the
    frames within it to the tolerance; a mechanism at rest (err ~ 0) still takes steps of
    many frames."""
    fac = 0.9 * (max(err, 1e-300) / LONG_ERR) ** -abs(expo) if err > 0 else 5.0
    return hs * min(5.0, fac)


def motion_rate(sysm: Equations, t: float, y: np.ndarray, iterations: int = 30) -> float:
    """The fastest rate (1/s) of the run's equations linearized at (t, y): the spectral
    radius of d(dy/dt)/dy by power iteration, each product a finite difference (one
    right-hand side).  At rest the explicit method's error estimate vanishes and nothing
    but stability bounds its step: past h |lambda| ~ 3 (DOP853) rounding grows into motion
    (a pendulum hanging at rest, steps of 40 s: 8e-5 rad/s), so long steps are held to
    the stepper's ``stable`` over the rate (explicit.py: 1.5 for DOP853, 0.9 for 5(4))."""
    f0 = sysm.rhs(t, y)
    eps = 1e-7 * max(1.0, float(np.max(np.abs(y[:-1]))))
    return spectral_radius(lambda x: (sysm.rhs(t, y + eps * x) - f0) / eps, len(y), iterations)


def moved(model: Model, r0, p0, r1, p1) -> float:
    """How far (m) the parts moved between two poses: the largest move of a centre of mass
    plus the part's length times its rotation (a small angle's first-order size)."""
    return float(travel(model.body_length, r0, p0, r1, p1))


def travel(body_length, r0, p0, r1, p1):
    """moved() of poses with leading axes (..., nb, 3 or 4) (a design study's variants);
    body_length (..., nb)."""
    return np.max(np.linalg.norm(r1 - r0, axis=-1) + body_length * quat_angle(p1, p0),
                  axis=-1, initial=0.0)


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
    end = int(np.searchsorted(times, t1 - 1e-14 * max(1.0, abs(t1)), side="left"))
    end = min(end, k + FRAMES_AT_ONCE)
    ts = times[k:end]
    kept = sysm.run
    # turns taken as the step's stages took them; solved as the run solves at the step's end
    sysm.tell(at_start.solving(kept.robust))
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
                                                  model.length_scale)
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


def _near_singular(model: Model, st: Structure, r: np.ndarray, p: np.ndarray) -> tuple[str, ...]:
    """Joints and motions of a nearly singular constraint Jacobian, else ().  Called when
    the step size collapsed: a scaled 2-norm condition above 1e4 (a sound mechanism's is
    1 to 100; it grows like 1/sqrt(distance) towards a limit position, measured 3e5 one
    nanosecond before one) is taken as the cause."""
    rg, A = body_arrays(model, r, p)[:2]
    J = global_jacobian(model, evaluate(model, rg, A).jac)
    if not st.keep.size or not model.nb:
        return ()
    s = np.linalg.svd(scaled_jacobian(model, J, st.keep), compute_uv=False)
    if s[-1] > 1e-4 * s[0]:
        return ()
    return involved(model, J, st.keep)


def _rechosen(model: Model, st: Structure, r: np.ndarray, p: np.ndarray) -> Structure | None:
    """When the kept rows are nearly dependent here but another subset of the same size
    (motions always kept) is well conditioned, that subset; else None (a true singular
    position, where every subset loses rank)."""
    if not st.redundant.size:
        return None
    J = global_jacobian(model, evaluate(model, *body_arrays(model, r, p)[:2]).jac)
    jrows = model.constraint_rows
    mrows = np.intersect1d(st.keep, np.flatnonzero(model.row_motion >= 0))
    nj = len(st.keep) - len(mrows)
    kj = best_rows(model, J, jrows, nj)
    new = Structure(np.concatenate([kj, mrows]), np.setdiff1d(jrows, kj), st.dof, st.driven_dof,
                    st.bad_motions)
    if set(new.keep) == set(st.keep) or _near_singular(model, new, r, p):
        return None
    return new


def free_singular(model: Model, st: Structure, r: np.ndarray, p: np.ndarray) -> tuple[str, ...]:
    """The joints of a singular position that the motion may pass (their constraints
    dependent for an instant, e.g. a parallelogram lined up), else (): not singular, or a
    motion driven into a position it cannot pass (a motion among the rows: a lock-up)."""
    who = _near_singular(model, st, r, p)
    return () if set(who) & set(model.motion_names) else who
