"""Kinematic sweep of a fully driven mechanism: positions by Newton, then velocities,
accelerations, multipliers and joint reactions at every output frame (Haug 1989:
"Inverse dynamics - kinematically driven", "Lagrange multipliers for specific
constraints").

Frames are solved in blocks, with the frames as a leading array axis: each frame of a
block starts from a Taylor prediction off the last solved frame (r + v h + a h^2/2 +
j h^3/6, j from the accelerations of the last two frames, and the same for rotations), and
Newton, the velocity and acceleration solves and the reactions run on the whole block at
once.  That replaces a Python loop of small-array
work per frame (what a sweep costs in numpy) by a few array passes per block.

A frame of a block is kept only if it continues the frame before it smoothly: its
distance from the second-order prediction off that frame is small next to the
frame-to-frame motion.  A frame on another assembly branch (a four-bar flipped) is far
from that prediction, so the block is cut there and the sweep goes on from the last good
frame with smaller blocks, down to one frame at a time, which is the frame-by-frame
sweep.  Blocks grow while Newton converges in a few iterations.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..algebra.banded import MIN_BANDED
from ..algebra.newton import COND_LIMIT, converged, scales, step_pose, step_size
from ..algebra.rank import involved
from ..algebra.schur import Schur, inverse_mass
from ..base.errors import ExpressionError, FrictionJam, SolverError
from ..base.rotations import quat_angle, rotate_world
from ..kernels.constraints import body_arrays, evaluate, global_jacobian, residual
from ..kernels.forces import body_loads, evaluate_forces, torsion_angles
from ..kernels.stop_forces import stop_forces
from ..model.compile import Model
from ..model.results import Result, report_progress
from ..model.state import State
from .dynamics.friction import body_forces, magnitudes, rates, with_slip
from .dynamics.stops import check_start, sweep_check
from .structure import Structure, least_norm, self_stresses

BLOCK_FIRST = 4       # frames in the first block after frame 0
BLOCK_MAX = 64        # largest block
BLOCK_FLOATS = 2e6    # and at most this many numbers in a block's Jacobians (16 MB)
QUICK = 6             # Newton iterations up to which a block counts as easy: it may grow
GROWTH = 2            # by this factor
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


@dataclass(frozen=True)
class _Factors:
    """The square (kept) Jacobian factored at each pose of a block of frames: dense
    inverses (F, n, n), or per frame the banded pieces (J blocks, M^-1 blocks, S entries,
    M^-1 J^T blocks); ``ok`` (F,) is False where J is (nearly) singular."""
    ok: np.ndarray
    Jinv: np.ndarray | None = None
    frames: tuple | None = None

    def take(self, m: int) -> "_Factors":
        """The first m frames."""
        return _Factors(self.ok[:m], None if self.Jinv is None else self.Jinv[:m],
                        None if self.frames is None else self.frames[:m])


class _Algebra:
    """The sweep's workspace: J^-1 and J^-T of the square (kept) Jacobian of a fully
    driven mechanism at a block of poses (leading axis: frames), from factors made by
    ``factor`` and passed to ``solve``/``solve_t`` (no state kept between calls).

    Small systems: stacked dense inverses, with a 1-norm condition check that catches a
    nearly singular pose.  Large ones whose J M^-1 J^T is banded: J^-1 b = M^-1 J^T S^-1 b
    and J^-T f = S^-1 J M^-1 f with S = J M^-1 J^T (schur.py), O(rows) per frame; a
    singular pose shows as S not positive definite."""

    def __init__(self, model: Model, keep: np.ndarray) -> None:
        self.model, self.keep = model, keep
        # a small mechanism is solved densely: no need to lay out its J M^-1 J^T
        self.schur = Schur(model, keep) if len(keep) > MIN_BANDED else None
        self.sparse = self.schur is not None and self.schur.band.banded
        self.rs, self.cw = scales(model)
        # the square J's scaling (rows in residual units, rotation columns in body lengths:
        # algebra.newton.scaled_jacobian) and its inverse's, made once
        self._js, self._jsinv = condition_scales(self.rs[keep], self.cw)

    def newton_step(self, jac: np.ndarray, A: np.ndarray, res: np.ndarray) -> np.ndarray:
        """-J^-1 res (F, 6 nb) per frame (no condition check: Newton only); NaN rows where
        J is singular."""
        if self.sparse:
            out = np.full((len(jac), 6 * self.model.nb), np.nan)
            for f in range(len(jac)):
                fr = self._prepare_one(jac[f], A[f])
                if fr is not None:
                    out[f] = -self._solve_one(fr, res[f]).reshape(-1)
            return out
        return _solve_stack(global_jacobian(self.model, jac)[:, self.keep], -res)

    def factor(self, jac: np.ndarray, A: np.ndarray) -> _Factors:
        """Factor J at each pose of the block; ok False where it is (nearly) singular."""
        if self.sparse:
            frames = tuple(self._prepare_one(j, a) for j, a in zip(jac, A))
            return _Factors(np.array([fr is not None for fr in frames], dtype=bool), frames=frames)
        Jk = global_jacobian(self.model, jac)[:, self.keep]
        Jinv = _inverse(Jk)
        with np.errstate(invalid="ignore"):
            cond = scaled_condition(Jk, Jinv, self._js, self._jsinv)
            return _Factors(np.isfinite(cond) & (cond < COND_LIMIT), Jinv=Jinv)

    def solve(self, fac: _Factors, b: np.ndarray) -> np.ndarray:
        """J^-1 b as (F, nb, 6) body vectors (b (F, kept rows))."""
        if self.sparse:
            return np.stack([self._solve_one(fr, x) for fr, x in zip(fac.frames, b)])
        return np.einsum("fij,fj->fi", fac.Jinv, b).reshape(len(b), -1, 6)

    def solve_t(self, fac: _Factors, f: np.ndarray) -> np.ndarray:
        """J^-T f for body vectors f (..., F, nb, 6): the kept rows' multipliers (..., F,
        kept rows); leading axes: several sets of forces (joint friction's responses)."""
        if self.sparse:
            sc = self.schur
            fg = np.concatenate([f, np.zeros(f.shape[:-2] + (1, 6))], axis=-2)
            out = []
            for k, (Jb, Mi, vals, W) in enumerate(fac.frames):
                mf = np.einsum("bij,...bj->...bi", Mi, fg[..., k, :, :])
                out.append(sc.solve(vals, sc.times(Jb, mf)))
            return np.stack(out, axis=-2)
        return np.einsum("fji,...fj->...fi", fac.Jinv, f.reshape(f.shape[:-2] + (-1,)))

    # banded path, one frame at a time
    def _prepare_one(self, jac: np.ndarray, A: np.ndarray) -> tuple | None:
        """(J blocks, M^-1 blocks, S entries, M^-1 J^T blocks) at one pose, or None."""
        sc = self.schur
        Jb = sc.blocks(jac)
        Mi = inverse_mass(self.model, A)
        try:
            vals, W = sc.matrix(Jb, Mi)
            fr = (Jb, Mi, vals, W)
            probe = self._solve_one(fr, np.ones(len(self.keep)))
        except np.linalg.LinAlgError:
            return None
        return fr if np.all(np.isfinite(probe)) else None

    def _solve_one(self, fr: tuple, b: np.ndarray) -> np.ndarray:
        sc = self.schur
        _, _, vals, W = fr
        return sc.apply(W, sc.solve(vals, b))


def condition_scales(rs: np.ndarray, cw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(J's scaling, J^-1's) for the condition check of a square Jacobian of kept rows: row
    scales rs (..., nk) and column weights cw (..., 6 nb) as algebra.newton.scales gives
    them (rows in residual units, rotation columns in body lengths: scaled_jacobian)."""
    js = rs[..., :, None] / cw[..., None, :]
    return js, 1.0 / np.swapaxes(js, -1, -2)


def scaled_condition(J: np.ndarray, Jinv: np.ndarray, js: np.ndarray, jsinv: np.ndarray
                     ) -> np.ndarray:
    """The 1-norm condition of the scaled J (condition_scales) from J and its inverse (any
    leading axes); a lock-up or singular pose shows as a value above COND_LIMIT (or NaN)."""
    def norm1(M: np.ndarray) -> np.ndarray:
        return np.abs(M).sum(axis=-2).max(axis=-1, initial=0.0)
    return norm1(J * js) * norm1(Jinv * jsinv)


def _per_frame(fn, shape: tuple, *stacks: np.ndarray) -> np.ndarray:
    """fn on stacks of matrices (leading axis: frames) in one call; if a frame's matrix is
    singular, frame by frame, with NaN for the singular frames (shape: the result's)."""
    try:
        return fn(*stacks)
    except np.linalg.LinAlgError:
        out = np.full(shape, np.nan)
        for f in range(len(stacks[0])):
            try:
                out[f] = fn(*(x[f] for x in stacks))
            except np.linalg.LinAlgError:
                pass
        return out


def _solve_stack(M: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with M_f x_f = b_f for each frame f; NaN for a frame whose M is singular."""
    return _per_frame(lambda M_, b_: np.linalg.solve(M_, b_[..., None])[..., 0], b.shape, M, b)


def _inverse(M: np.ndarray) -> np.ndarray:
    """Inverses of a stack of matrices; NaN for a singular one."""
    return _per_frame(np.linalg.inv, M.shape, M)


def next_block(k0: int, solved: int, tried: int, iters: int, size: int, biggest: int) -> int:
    """The next block's frames, after a block that solved ``solved`` of ``tried`` frames in
    ``iters`` Newton iterations and ends before frame k0: BLOCK_FIRST after frame 0, the
    frames solved after a cut, GROWTH times more after an easy block (up to ``biggest``)."""
    if k0 == 1:
        return min(BLOCK_FIRST, biggest)
    if solved < tried:
        return max(1, solved)
    return min(GROWTH * size, biggest) if iters <= QUICK else size


def _newton(model: Model, alg: _Algebra, R: np.ndarray, P: np.ndarray, fv: np.ndarray,
            ref: np.ndarray | None = None):
    """Newton on every frame of a block from its predicted pose, each frame stopping by
    the one rule (algebra.newton.converged); each iteration evaluates only the frames not
    yet converged; ``ref`` (F, ntrack): the tracked values predicted for each frame (the
    couplers' turns, the curve contacts' start), every iteration's contact searched from
    there (not from the last iteration's: from a poorly predicted first pose a contact's
    Newton may jump to another branch, which the pose's Newton would then follow).  Returns
    the poses, the Jacobian blocks and rotation matrices at them, a (F,) converged mask, the
    iterations used and the tracked values each frame's last evaluation found (None
    without): the velocities' evaluation at the same pose starts from them."""
    rs, cw = scales(model)
    found = None if ref is None else np.array(ref, dtype=float)
    keep = alg.keep
    F = len(R)
    jac = np.zeros((F, model.nc, model.row_width))
    A = np.zeros((F, model.nb + 1, 3, 3))
    done = np.zeros(F, dtype=bool)
    size = np.full(F, np.inf)              # last step, relative to the length scale
    live = np.arange(F)
    for it in range(25):
        rg, Al = body_arrays(model, R[live], P[live])[:2]
        ev = evaluate(model, rg, Al, ref=None if ref is None else ref[live])
        jac[live], A[live] = ev.jac, Al
        if found is not None:
            found[live] = ev.track
        res = residual(model, ev.phi, fv[live])
        with np.errstate(invalid="ignore"):
            err = np.abs(res[..., keep] * rs[keep]).max(axis=-1, initial=0.0)
            sl = size[live]
            conv = converged(err, sl)
            alive = np.isfinite(err) & np.isfinite(ev.jac).all(axis=(-2, -1)) & ~conv
        done[live[conv]] = True
        live, res = live[alive], res[alive]
        if not live.size:
            break
        dq = alg.newton_step(jac[live], A[live], res[:, keep])
        good = np.isfinite(dq).all(axis=1)
        live, dq = live[good], dq[good]
        if not live.size:                  # every frame left diverged: not done, the caller cuts
            break
        size[live] = step_size(model, dq)
        R[live], P[live] = step_pose(R[live], P[live], dq)
    return R, P, jac, A, done, it, found


def _block_forces(model: Model, times: np.ndarray, rg, A, vg, wg, ts_ref: np.ndarray):
    """The force elements at every frame of a block (times (F,), body arrays (F, ...)) in
    one evaluation, each torsion spring's angle handed on from the frame before
    (``frame_turns``); where some function cannot be evaluated, the frames one by one up
    to the first that fails, so that its error names that frame's time and element as a
    frame-by-frame sweep does."""
    try:
        return evaluate_forces(model.forces, times, rg, A, vg, wg, frame_turns(model, A, ts_ref))
    except ExpressionError:
        for k in range(len(times)):
            fe = evaluate_forces(model.forces, float(times[k]), rg[k], A[k], vg[k], wg[k], ts_ref)
            ts_ref = fe.ts_angle
        raise


def frame_turns(model: Model, A: np.ndarray, ts_ref: np.ndarray) -> np.ndarray:
    """(F, nts): for each frame of a block (rotation matrices A (F, nb+1, 3, 3)) the
    torsion springs' angles of the frame before it (``ts_ref`` before the first), as a
    frame-by-frame evaluation hands them on, so that every frame's forces are one
    evaluation: each angle on atan2's branch nearest the one before.  Frame k's turn is
    the turn before plus the nearest whole turns of the raw angles' change (as frame by
    frame; the two can differ only where an angle moves exactly half a turn)."""
    fm = model.forces
    F, nts = len(A), len(fm.ts_names)
    refs = np.broadcast_to(np.asarray(ts_ref, dtype=float), (F, nts))
    if not nts or F == 1:
        return refs
    two_pi = 2.0 * np.pi
    raw = torsion_angles(fm, A, np.zeros(nts))                       # atan2's own branch
    turns = np.empty((F, nts))
    turns[0] = np.round((refs[0] - raw[0]) / two_pi)
    turns[1:] = np.round((raw[:-1] - raw[1:]) / two_pi)
    th = raw + two_pi * np.cumsum(turns, axis=0)
    return np.concatenate([refs[:1], th[:-1]])


def with_friction(model: Model, keep: np.ndarray, solve_t, lam, jac, A, vg, wg, report=None):
    """The multipliers with each joint's friction: every coordinate moves as the motions
    make it, so each element slips the way it moves (none where it stands still: a static
    friction force is not determined there), its load the reaction with the friction
    (friction.with_slip).  ``solve_t(f)``: J^-T f for body vectors f (..., nb, 6), the kept
    rows' multipliers; ``report``: with redundant rows, the map to the reported (least-norm)
    multipliers (structure.least_norm), which lam already are, applied to the friction's
    responses too, so that the load is the reported reaction's; leading axes (frames; a
    study's variants and frames) carried through.  Returns (lam, Q_q (..., m));
    FrictionJam where the motions cannot drive a joint."""
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


@dataclass
class _Last:
    """The last solved frame: its state (with accelerations), the rates of change of its
    accelerations (for the third-order predictor) and its Jacobian blocks."""
    state: State
    jerk: np.ndarray          # (nb, 3) d a / dt
    djerk: np.ndarray         # (nb, 3) d alpha / dt
    jac: np.ndarray           # (nc, 6 E)
    q: np.ndarray | None      # (ntrack,) the tracked values (evaluate's ref) and their rates
    qd: np.ndarray | None


def smooth_prefix(prev: tuple, h: np.ndarray, R, P, V, W, Ac, Al, body_length,
                  length_scale) -> int:
    """How many leading frames of a block each continue the frame before smoothly: the
    distance (m; rotations times the part's length) from the second-order prediction off
    the frame before is at most SMOOTH times the motion between the two frames.  The block's
    arrays are (..., F, nb, k) (leading axes: a design study's variants, all of which must
    pass), ``prev`` the frame before as (r, p, v, w, a, alpha), each (..., nb, k);
    ``body_length`` (..., nb) and ``length_scale`` (...) broadcast against them."""
    def before(x, first):
        return np.concatenate([first[..., None, :, :], x[..., :-1, :, :]], axis=-3)
    r0, p0, v0, w0, a0, al0 = (before(x, f) for x, f in zip((R, P, V, W, Ac, Al), prev))
    hh = h[:, None, None]
    rp = r0 + v0 * hh + 0.5 * a0 * hh * hh
    pp = rotate_world(p0, w0 * hh + 0.5 * al0 * hh * hh)
    L = np.asarray(body_length)[..., None, :]
    dm, dv = R - rp, R - r0
    miss = (np.sqrt((dm * dm).sum(axis=-1)) + L * quat_angle(P, pp)).max(axis=-1, initial=0.0)
    move = (np.sqrt((dv * dv).sum(axis=-1)) + L * quat_angle(P, p0)).max(axis=-1, initial=0.0)
    ok = miss <= SMOOTH * move + 1e-8 * np.asarray(length_scale)[..., None]
    ok = ok.reshape(-1, ok.shape[-1]).all(axis=0)
    return int(np.argmin(ok)) if not ok.all() else len(ok)


def kinematic_sweep(model: Model, st: Structure, start: State, times: np.ndarray,
                    progress=None) -> Result:
    """Positions, velocities, accelerations, multipliers and reactions at every frame,
    from the assembled start state at times[0]."""
    r, p = start.r, start.p
    check_start(model, r, p, float(times[0]))
    nb, nc, n = model.nb, model.nc, len(times)
    keep = st.keep
    out = Result.empty(model, times)
    mrows = np.flatnonzero(model.row_motion >= 0)
    mix = model.row_motion[mrows]
    fv, n_ok, bad = motion_table(model, times)
    alg = _Algebra(model, keep)
    per_frame = max(nc, 1) * (12 + (0 if alg.sparse else 6 * nb))
    biggest = int(max(1, min(BLOCK_MAX, BLOCK_FLOATS // per_frame)))
    prev: _Last | None = None              # the last solved frame
    ts_ref = np.zeros(len(model.forces.ts_names))
    cpl = model.ntrack > 0
    q0 = evaluate(model, *body_arrays(model, r, p)[:2], ref=start.track).track
    k0, size = 0, 1
    while k0 < n_ok:
        ks = np.arange(k0, min(k0 + size, n_ok))
        tried = len(ks)
        if prev is None:
            R, P = r[None].copy(), p[None].copy()
        else:  # third-order predictor off the last solved frame (jerk from two frames)
            s = prev.state
            h = (times[ks] - s.t)[:, None, None]
            R = s.r + h * (s.v + h * (0.5 * s.a + h / 6.0 * prev.jerk))
            P = rotate_world(s.p, h * (s.w + h * (0.5 * s.alpha + h / 6.0 * prev.djerk)))
        ref = None
        if cpl:     # each tracked value predicted from the last frame's rate
            ref = q0[None] if prev is None else prev.q + prev.qd * (times[ks] - prev.state.t)[:, None]
        R, P, jac, A, ok, iters, ref = _newton(model, alg, R, P, fv[ks], ref)
        m = int(np.argmin(ok)) if not ok.all() else len(ok)
        if m:
            fac = alg.factor(jac[:m], A[:m])
            m = int(np.argmin(fac.ok)) if not fac.ok.all() else m
            fac = fac.take(m)
        if m == 0:
            if len(ks) > 1:
                size = 1
                continue
            jl = prev.jac if prev is not None else jac[0]
            who = involved(model, global_jacobian(model, jl), keep)
            t = float(times[k0])
            raise SolverError(
                f"lock-up at t = {t:.6g} s (frame {k0}): the mechanism cannot follow its "
                f"motions (singular or unreachable position); joints involved: {', '.join(who)}",
                t, who, out.truncated(k0))
        ks, R, P, f, jac = ks[:m], R[:m], P[:m], fv[ks[:m]], jac[:m]
        # velocities J v = nu and accelerations J a = gamma (nu, gamma: df/dt, d2f/dt2 on
        # the motion rows; gamma also -quad)
        nu = np.zeros((m, nc))
        nu[:, mrows] = f[:, mix, 1]
        vel = alg.solve(fac, nu[:, keep])
        V, W = vel[..., :3], vel[..., 3:]
        rg, A, vg, wg = body_arrays(model, R, P, V, W)
        evq = evaluate(model, rg, A, vg, wg, need_jac=False, ref=None if ref is None else ref[:m])
        gamma = -evq.quad                                               # J: Newton's, same pose
        gamma[:, mrows] += f[:, mix, 2]
        accel = alg.solve(fac, gamma[:, keep])
        Ac, Al = accel[..., :3], accel[..., 3:]
        if prev is not None and len(ks) > 1:
            ps = prev.state
            m = smooth_prefix((ps.r, ps.p, ps.v, ps.w, ps.a, ps.alpha), np.diff(times[np.r_[ks[0] - 1, ks]]),
                              R, P, V, W, Ac, Al, model.body_length, model.length_scale)
            if m == 0:
                size = 1
                continue
            fac = fac.take(m)
            ks, R, P, V, W, Ac, Al, f = ks[:m], R[:m], P[:m], V[:m], W[:m], Ac[:m], Al[:m], f[:m]
            rg, A, vg, wg, jac = rg[:m], A[:m], vg[:m], wg[:m], jac[:m]
        # inverse dynamics: J^T lambda = Q - M a
        Q, Iw = body_loads(model, A, wg)
        pot, pnc = np.zeros(m), np.zeros(m)
        ts_next = ts_ref                  # (handed on once the block is kept)
        if not model.forces.empty:
            fe = _block_forces(model, times[ks], rg, A, vg, wg, ts_ref)
            Q += fe.Q[:, :nb]
            pot, pnc = fe.potential, fe.power_nc
            if len(model.forces.ts_names):
                ts_next = fe.ts_angle[-1]
        stop = stop_forces(model, evq.phi[:m], jac, np.concatenate([vg, wg], axis=-1))
        if stop is not None:              # compliant stops the motions push into: their force
            Q = Q + stop.Q[:, :nb]
            pnc = pnc + stop.power
        Ma = np.concatenate([model.body_mass[:, None] * Ac,
                             np.einsum("fbij,fbj->fbi", Iw, Al)], axis=-1)
        lam = np.zeros((m, nc))
        lam[:, keep] = alg.solve_t(fac, Q - Ma)
        report = None             # redundant rows: the least-norm joint multipliers, reported
        if st.redundant.size:     # and friction's load (structure.least_norm)
            report = least_norm(self_stresses(model, keep, st.redundant, jac,
                                              lambda F: alg.solve_t(fac, F)))
            lam = report(lam)
        if stop is not None:              # read as the limit's force (Result.limit)
            lam[:, model.limits.rows[stop.bounds]] = -stop.Qq
        if model.frictions is not None:   # joint friction: its load is the reaction (friction.py)
            try:
                lam, Qq = with_friction(model, keep, lambda f: alg.solve_t(fac, f), lam, jac,
                                        A, vg, wg, report)
            except FrictionJam as exc:    # the motions cannot drive it
                j = exc.index[0]
                if j:                     # the block's frames before it first, then it alone
                    size = j
                    continue
                tj = float(times[ks[0]])
                raise SolverError(exc.at(tj), tj, exc.names, out.truncated(int(ks[0]))) from None
            pnc = pnc + np.sum(Qq * rates(model, jac, np.concatenate([vg, wg], axis=-1)), axis=-1)
            out._friction[ks[0]: ks[-1] + 1] = Qq
        block = slice(ks[0], ks[-1] + 1)
        out.store(block, State(times[ks], R, P, V, W, Ac, Al), lam, jac,
                  evq.track[:m] if evq.track is not None else None)
        out.store_energy(block, Iw, pot, pnc - np.einsum("fm,fm->f", lam[:, mrows], f[:, mix, 1]))
        if model.limits is not None:      # a motion driven through a rigid stop stops the sweep
            sweep_check(model, evq.phi[:m], times[ks], int(ks[0]), out)
        if m > 1:
            dt, a0, al0 = times[ks[-1]] - times[ks[-2]], Ac[-2], Al[-2]
        elif prev is not None:
            dt, a0, al0 = times[ks[-1]] - prev.state.t, prev.state.a, prev.state.alpha
        else:
            dt, a0, al0 = 1.0, Ac[-1], Al[-1]
        q = qd = None
        if cpl:
            q, qd = evq.track[m - 1], evq.rate[m - 1]
        ts_ref = ts_next
        prev = _Last(State(times[ks[-1]], R[-1], P[-1], V[-1], W[-1], Ac[-1], Al[-1]),
                     (Ac[-1] - a0) / dt, (Al[-1] - al0) / dt, jac[-1], q, qd)
        for k in ks:             # once per frame, as the frame-by-frame sweep did
            report_progress(progress, int(k), n, out)
        k0 = int(ks[-1]) + 1
        size = next_block(k0, m, tried, iters, size, biggest)
    if bad is not None:
        raise SolverError(str(bad), float(times[n_ok]), (), out.truncated(n_ok))
    return out
