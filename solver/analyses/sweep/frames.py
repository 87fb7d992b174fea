"""What the sweep evaluates at a block of frames besides its constraints: the motions'
table, the force elements (each torsion spring's angle handed on from frame to frame),
joint friction with its load the reaction, and the smoothness test that keeps a block on
its assembly branch."""
from __future__ import annotations

import numpy as np

from ...base.errors import ExpressionError
from ...base.rotations import quat_angle, rotate_world
from ...kernels.forces import evaluate_forces, torsion_angles
from ...model.compile import Model
from ..dynamics.friction import body_forces, magnitudes, rates, with_slip

SMOOTH = 0.1          # largest distance from the predictor, as a share of the frame's motion


def motion_table(model: Model, times: np.ndarray) -> tuple[np.ndarray, int, ExpressionError | None]:
    """(frames, motions, 3) values and first two time derivatives of every motion; the
    number of leading frames where all are defined, and the error at the first frame
    where one is not (None if all are)."""
    n = len(times)
    table = np.zeros((n, len(model.motion_functions), 3))
    first, error = n, None
    for i, fn in enumerate(model.motion_functions):
        try:
            table[:, i] = fn.table(times)
        except ExpressionError:
            for k, t in enumerate(times[:first]):
                try:
                    table[k, i] = fn.derivatives(t)
                except ExpressionError as exc:
                    first, error = k, exc
                    break
    return table, first, error


def _frame_forces(fm, t: float, r, A, v, w, ref):
    """One frame's force elements; a force with no direction there (a spring-damper whose
    markers meet: kernels/forces.py's FloatingPointError) as bad input at that time, as an
    expression that cannot be evaluated is, so that the sweep names the frame."""
    try:
        return evaluate_forces(fm, t, r, A, v, w, ref)
    except FloatingPointError as exc:
        raise ExpressionError(f"{exc} at t = {t:.6g} s", time=t) from None


def block_forces(model: Model, times: np.ndarray, rg, A, vg, wg, turn: np.ndarray,
                 t_before: float):
    """The force elements at every frame of a block (times (F,), body arrays (V, F, ...),
    ``turn`` (V, 2, nts) each torsion spring's angle (rad) and its rate (rad/s) at the
    frame before the block, at ``t_before`` (s; the first frame's own time for the first
    block)): (Q (V, F, nb+1, 6), spring potential (V, F), non-conservative power (V, F),
    the springs' angles and rates at the block's last frame (V, 2, nts)).  Each frame's
    angle is on the branch nearest the one before plus its predicted change
    (``frame_turns``), so a joint that turns half a turn or more between frames keeps its
    spring's turns.  One mechanism: every frame in one evaluation; where some function
    cannot be evaluated, the frames one by one up to the first that fails, so that its
    error names that frame's time and element.  Variants: a frame at a time for all of them
    (a variant's own function, study/stack.py _PerVariant, takes one time for all)."""
    shape, fm = rg.shape[:2], model.forces
    h = np.diff(times, prepend=t_before)
    if shape[0] == 1:
        rg, A, vg, wg = rg[0], A[0], vg[0], wg[0]
        refs, rates = frame_turns(model, A, wg, h, turn[0])
        try:
            fe = evaluate_forces(fm, times, rg, A, vg, wg, refs)
        except (ExpressionError, FloatingPointError):
            for k in range(len(times)):
                _frame_forces(fm, float(times[k]), rg[k], A[k], vg[k], wg[k], refs[k])
            raise
        last = np.stack([fe.ts_angle[-1], rates[-1]])[None] if len(fm.ts_names) else turn
        return (fe.Q[None], np.broadcast_to(fe.potential, shape),
                np.broadcast_to(fe.power_nc, shape), last)
    Q, pot, pnc = [], [], []
    ts, rate = turn[:, 0, None], turn[:, 1, None]
    for j in range(shape[1]):
        at = slice(j, j + 1)
        ref = ts
        if ts.shape[-1]:          # the angle before plus its change by the mean rate
            now = torsion_angles(fm, A[:, at], ts, wg[:, at])[1]
            ref, rate = ts + 0.5 * h[j] * (rate + now), now
        fe = evaluate_forces(fm, float(times[j]), rg[:, at], A[:, at], vg[:, at], wg[:, at], ref)
        Q.append(fe.Q)
        pot.append(np.broadcast_to(fe.potential, (shape[0], 1)))
        pnc.append(np.broadcast_to(fe.power_nc, (shape[0], 1)))
        if ts.shape[-1]:          # (no torsion spring: ts_angle has no variant axis)
            ts = fe.ts_angle
    return (np.concatenate(Q, axis=1), np.concatenate(pot, axis=1),
            np.concatenate(pnc, axis=1), np.stack([ts[:, 0], rate[:, 0]], axis=1))


def frame_turns(model: Model, A: np.ndarray, W: np.ndarray, h: np.ndarray,
                turn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(angles (F, nts), rates (F, nts)): for each frame of a block (rotation matrices A
    (F, nb+1, 3, 3), angular velocities W (F, nb+1, 3), each frame h (F,) s after the one
    before) the torsion springs' angles on their turns, and their rates (rad/s); ``turn``
    (2, nts) the angle and rate at the frame before the block.  Frame k's angle is atan2's
    on the branch nearest the angle before plus the change the trapezoidal rule gives from
    the two frames' rates, h (rate_before + rate) / 2: a joint driven round by more than
    half a turn between frames stays on its turn (the frame-to-frame change alone would
    take a turn of 1.25 revolutions as a quarter), as long as that prediction errs by less
    than half a turn.  Frame by frame, cumulated, so that every frame's forces are one
    evaluation."""
    fm = model.forces
    nts = len(fm.ts_names)
    if not nts:
        return np.zeros((len(A), 0)), np.zeros((len(A), 0))
    two_pi = 2.0 * np.pi
    raw, rates = torsion_angles(fm, A, np.zeros(nts), W)             # atan2's own branch
    before = np.concatenate([turn[1:2], rates[:-1]])
    change = 0.5 * h[:, None] * (before + rates)
    start = np.concatenate([turn[:1], raw[:-1]])
    turns = np.round((start + change - raw) / two_pi)
    return raw + two_pi * np.cumsum(turns, axis=0), rates


def with_friction(model: Model, keep: np.ndarray, solve_t, lam, jac, A, vg, wg, report=None):
    """The multipliers with each joint's friction: every coordinate moves as the motions
    make it, so each element slips the way it moves (none where it stands still: a static
    friction force is not determined there), its load the reaction with the friction
    (friction.with_slip).  ``solve_t(f)``: J^-T f for body vectors f (..., nb, 6), the kept
    rows' multipliers; ``report``: with redundant rows, the map to the reported (least-norm)
    multipliers (structure.least_norm), which lam already are, applied to the friction's
    responses too, so that the load is the reported reaction's; leading axes (variants,
    frames) carried through.  Returns (lam, Q_q (..., m)); FrictionJam where the motions
    cannot drive a joint."""
    vq = rates(model, jac, np.concatenate([vg, wg], axis=-1))
    e = model.frictions.element
    speed = magnitudes(model, vq)
    moving = (speed > 0.0)[..., e]
    d = np.where(moving, vq / np.where(speed > 0.0, speed, 1.0)[..., e], 0.0)

    def respond(Qq):                # (Q_q (..., m), or (L, ..., m): L at once)
        dlam = np.zeros(Qq.shape[:-1] + lam.shape[-1:])
        dlam[..., keep] = solve_t(body_forces(model, Qq, jac, model.nb + 1)[..., : model.nb, :])
        return (dlam if report is None else report(dlam)), None
    # frames where an element stands still: u = d = 0, so it gets no friction
    Qq, lam, _, _ = with_slip(model, respond, lam, jac, A, vq, d, np.ones(len(e), dtype=bool))
    return lam, Qq


def smooth_prefix(prev: tuple, h: np.ndarray, R, P, V, W, Ac, Al, body_length,
                  body_size) -> int:
    """How many leading frames of a block each continue the frame before smoothly: each
    part's distance (m; rotations times the part's length) from the second-order prediction
    off the frame before is at most SMOOTH times its own motion between the two frames.
    Part by part: a part that leaves its branch (a knuckle flipped) moves about as far as it
    misses, whatever the other parts do; measured against the largest motion of any part,
    it passed beside a part whose rotation weighs much (a pinion whose markers are at its
    centre weighs the mechanism's whole size: with a copy of the mechanism 50 m aside, 50
    m a radian).  The block's arrays are (..., F, nb, k) (leading axes: a design study's
    variants, all of which must pass), ``prev`` the frame before as (r, p, v, w, a, alpha),
    each (..., nb, k); ``body_length`` and ``body_size`` (..., nb) (each part's island's
    size, Model.body_size, of which 1e-8 is rounding's slack) broadcast against them."""
    def before(x, first):
        return np.concatenate([first[..., None, :, :], x[..., :-1, :, :]], axis=-3)
    r0, p0, v0, w0, a0, al0 = (before(x, f) for x, f in zip((R, P, V, W, Ac, Al), prev))
    hh = h[:, None, None]
    rp = r0 + v0 * hh + 0.5 * a0 * hh * hh
    pp = rotate_world(p0, w0 * hh + 0.5 * al0 * hh * hh)
    L = np.asarray(body_length)[..., None, :]
    dm, dv = R - rp, R - r0
    # (sums and all() by the ufuncs' reduce, as the ndarray methods do, without their wrapper)
    miss = np.sqrt(np.add.reduce(dm * dm, axis=-1)) + L * quat_angle(P, pp)   # (..., F, nb)
    move = np.sqrt(np.add.reduce(dv * dv, axis=-1)) + L * quat_angle(P, p0)
    ok = np.logical_and.reduce(miss <= SMOOTH * move + 1e-8 * np.asarray(body_size)[..., None, :],
                               axis=-1)
    ok = np.logical_and.reduce(ok.reshape(-1, ok.shape[-1]), axis=0)
    return int(np.argmin(ok)) if np.count_nonzero(ok) < len(ok) else len(ok)


def wrong_turns(model: Model, prev, times: np.ndarray, ks: np.ndarray, track: np.ndarray,
                rate: np.ndarray) -> tuple[int, np.ndarray | None]:
    """The first frame of a block (tracked values and their rates (V, m, ntrack))
    where a coupler's angle lies half a turn or more from where its rates carry the
    frame before's (by the trapezoidal rule), and the tracked values to solve it from
    again: those angles there.  A coupler's angle is taken on the turn nearest its
    prediction, first order off the last solved frame: a drive that turns fast and
    unevenly between frames (3 turns each way at 20 rad/s, 24 fps) had its prediction a
    turn off, and the gear it drives turned by 2 pi r_1/r_2 from its right pose.  (m,
    None) where every frame is on its turns.  ``prev``: the sweep's last solved frame
    before the block (its ``_Last``), ``times`` the sweep's."""
    cp = model.couplers
    ang = np.flatnonzero(cp.is_angle) if cp is not None else np.zeros(0, dtype=int)
    if not ang.size or prev.q is None:
        return len(ks), None
    h = np.diff(np.concatenate([[float(prev.state.t)], times[ks]]))
    q = np.concatenate([prev.q[:, None], track], axis=1)[..., ang]
    qd = np.concatenate([prev.qd[:, None], rate], axis=1)[..., ang]
    carried = q[:, :-1] + 0.5 * h[None, :, None] * (qd[:, :-1] + qd[:, 1:])
    off = (np.abs(q[:, 1:] - carried) >= np.pi).any(axis=(0, 2))
    if not off.any():
        return len(ks), None
    j = int(np.argmax(off))
    turns = track[:, j:j + 1].copy()
    turns[..., ang] = carried[:, j:j + 1]
    return j, turns
