"""Static equilibrium (Haug 1989, "Statics": accelerations and velocities zero, so
Q(q) - J(q)^T lambda = 0 and Phi(q) = 0).

Newton on (q, lambda) from the assembled start.  The tangent matrix
    [ dQ/dq - d(J^T lambda)/dq   -J^T ]
    [ J                            0  ]
has its first block by finite differences (it holds the springs' stiffness and the
geometric stiffness that makes a hanging pendulum stable); steps that do not reduce the
residual are halved.  With no equilibrium near (a part free to move under load) the
matrix is singular or the iteration stalls, and the error names the parts that move.
"""
from __future__ import annotations

import numpy as np

from ..algebra.blas import single_thread
from ..algebra.newton import NewtonOptions, newton, scaled_jacobian, scales
from ..base.errors import ExpressionError, SolverError
from ..base.rotations import rotate_world
from ..kernels.constraints import body_arrays, evaluate, global_jacobian, motion_values, residual
from ..kernels.forces import inertia_world, stop_forces, total_forces
from ..model.compile import Model
from ..model.results import Result
from ..model.state import State
from ..vocabulary.joints import ANGLE
from .assembly import assemble_pose
from .dynamics.friction import Slip, limit as friction_limit, loads, needed
from .dynamics.stops import check_start, describe, gaps, tolerance
from .statics_newton import Equilibrium
from .structure import Structure, least_norm, self_stresses, structure


@single_thread
def statics(model: Model, state: State, max_iter: int = 100) -> tuple[Result, State]:
    """Equilibrium under gravity, springs and loads (motions held at their value at the
    state's time) from the state's pose.

    Returns a one-frame Result (velocities and accelerations zero) whose reactions and
    efforts are the equilibrium loads, and the equilibrium state.
    """
    time = float(state.t)
    asm = assemble_pose(model, state.r, state.p, time)
    r, p = asm.r, asm.p
    st = asm.structure or structure(model, r, p)
    check_start(model, r, p, time)
    keep, nb = st.keep, model.nb
    rs, cw = scales(model)
    try:
        f = motion_values(model, time)
    except ExpressionError as exc:
        raise SolverError(str(exc), time) from None
    zero = np.zeros((nb, 3))
    ts_ref = np.zeros(len(model.forces.ts_names))
    # the couplers' angles stay on the start's turns, the curve contacts start from its
    track = evaluate(model, *body_arrays(model, r, p)[:2]).track
    # friction: every joint whose coordinate no motion drives is held where it starts; one
    # whose friction cannot hold it (needed force above mu_s L + preload) is let go (a note)
    fp = model.frictions
    slip = Slip(model) if fp is not None else None
    if slip is not None:
        rg, A = body_arrays(model, r, p)[:2]
        slip.hold(np.flatnonzero(~fp.held), evaluate(model, rg, A, need_jac=False, ref=track).phi, A)
    slipped: list[str] = []
    lm = model.limits
    shift = np.zeros(len(lm.rows) if lm is not None else 0)   # see the stops' active set

    def parts(r_, p_):
        rg, A = body_arrays(model, r_, p_)[:2]
        ev = evaluate(model, rg, A, ref=track)
        Q, fe = total_forces(model, time, *body_arrays(model, r_, p_, zero, zero), ts_ref)
        stop = stop_forces(model, ev.phi, ev.jac, np.zeros((nb + 1, 6)))
        if stop is not None:          # compliant stops (a spring past their bounds)
            Q = Q + stop.Q[:nb]
        res = residual(model, ev.phi, f)
        if shift.size:               # compliant stops approached: held at a penetration
            res[model.limits.rows] += shift
        if slip is not None:         # joints friction holds, where they start
            slip.lock_residual(res, A)
        return Q.ravel(), global_jacobian(model, ev.jac), res, fe

    def resid(r_, p_, lam_):
        Q, J, phi, _ = parts(r_, p_)
        return np.concatenate([Q - J[keep].T @ lam_, phi[keep] * rs[keep]]), Q, J

    Q0, J0, _, fe = parts(r, p)
    ts_ref = fe.ts_angle
    # load scale: gravity and the force elements' present loads
    fscale = max(float(np.max(np.abs(Q0), initial=0.0)),
                 float(np.max(model.body_mass, initial=0.0)) * float(np.linalg.norm(model.gravity)), 1e-9)
    n = 6 * nb

    def merit(R_: np.ndarray) -> float:
        return max(float(np.max(np.abs(R_[:n]), initial=0.0)) / fscale,
                   float(np.max(np.abs(R_[n:]), initial=0.0)))

    def tangent(r_, p_, lam_, R_):
        """d(Q - J^T lambda)/dq (n, n) by forward differences in (r, world rotation)."""
        T = np.zeros((n, n))
        for c in range(n):
            b, k = divmod(c, 6)
            e = np.zeros((nb, 3))
            hstep = 1e-7 * cw[c] if k < 3 else 1e-7
            e[b, k % 3] = hstep
            r1, p1 = (r_ + e, p_) if k < 3 else (r_, rotate_world(p_, e))
            T[:, c] = (resid(r1, p1, lam_)[0][:n] - R_[:n]) / hstep
        return T

    def follow(r_, p_):             # the torsion angles' branch follows the accepted pose
        nonlocal ts_ref
        ts_ref = parts(r_, p_)[3].ts_angle

    eqm = Equilibrium(model, resid, tangent, merit, follow,
                      lambda big, R_, why: _no_equilibrium(model, big, R_, n, time, why), keep, rs)

    # the stops: an active set (stops.py) -- bounds the equilibrium would pass are held,
    # stops that would pull are let go, until neither changes
    # A load on a free coordinate with no stiffness (Newton's tangent singular along it) that
    # pushes it toward a stop: the stop is held, and the equilibrium found on it.  A
    # compliant stop is held at the penetration where its law carries the load the held stop
    # took (delta = (F / k)^(1/n)), then let go: Newton finishes from there.
    def settle(r, p, held):
        """The active set from the pose (r, p) with the bounds ``held`` (rows) held:
        Newton, then stops let go or held and friction let go, until nothing changes.
        Returns (r, p, lambda, the residual, J); ``keep`` is left at its rows."""
        nonlocal keep
        rounds = 4 * ((len(lm.rows) if lm is not None else 0)
                      + (len(fp.rows) if fp is not None else 0)) + 1
        for _ in range(rounds):
            keep = np.concatenate([st.keep, held, slip.rows() if slip else np.zeros(0, int)]).astype(int)
            J0 = parts(r, p)[1]
            lam = np.linalg.lstsq(J0[keep].T, Q0, rcond=None)[0]    # best multipliers here
            eqm.keep = keep
            sol = newton(eqm, (r, p, lam), NewtonOptions(max_iter, line_search=True))
            (r, p, lam), (R, J) = sol.x, sol.data
            if not sol.ok and lm is not None:
                toward = _pushed_toward(model, R, J, keep, n, r, p, track)
                toward = toward[~np.isin(lm.rows[toward], held)]
                if toward.size:
                    held = np.union1d(held, lm.rows[toward])
                    continue
            if not sol.ok:
                why = (f"no convergence in {max_iter} iterations" if sol.iterations >= max_iter else
                       f"the force balance is off by {sol.err:.3g} of the loads and no step reduces it")
                _no_equilibrium(model, eqm.big, R, n, time, why)
            if slip is not None and slip.stuck.any():    # friction that cannot hold lets go
                full = np.zeros(model.nc)
                full[keep] = lam
                rg, A = body_arrays(model, r, p)[:2]
                jac = evaluate(model, rg, A, ref=track).jac
                limit = friction_limit(model, loads(model, _reported(model, st, keep, J, jac, full), jac, A))
                over = np.flatnonzero(slip.stuck & (needed(model, full) > limit))
                if over.size:
                    slipped.extend(fp.names[k] for k in over)
                    slip.stuck[over] = False
                    continue
            if lm is None:
                break
            if lm.compliant.any():                # compliant stops held: at their penetration, then let go
                full = np.zeros(model.nc)
                full[keep] = lam
                on = np.flatnonzero(lm.compliant & np.isin(lm.rows, held))
                placed = on[shift[on] != 0.0]
                if placed.size:
                    held = np.setdiff1d(held, lm.rows[placed])
                    shift[placed] = 0.0
                    continue
                if on.size:
                    F = np.maximum(-lm.sgn[on] * full[lm.rows[on]], 0.0)
                    shift[on] = lm.sgn[on] * (F / lm.stiffness[on]) ** (1.0 / lm.exponent[on])
                    continue
            g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).phi)
            lam_rows = dict(zip(keep.tolist(), lam))
            push = np.array([-lm.sgn[b] * lam_rows.get(int(row), 0.0) for b, row in enumerate(lm.rows)])
            holding = np.isin(lm.rows, held) & ~lm.compliant
            new = lm.rows[(holding & (push >= 0.0))
                          | (~holding & ~lm.compliant & (g < -tolerance(model)))]
            if set(new.tolist()) == set(held.tolist()):
                break
            held = new
        return r, p, lam, R, J

    # An equilibrium past a rigid stop is never the answer, and an unstable one (Newton finds
    # any, an arm balanced upright as well as hanging) is not where a stable one on a stop
    # is near: the stop the start's load pushes toward (the way the mechanism would move
    # from rest) is held from the start, and the equilibrium on it taken when it is stable,
    # its stops push and it lies within every stop.
    r0, p0, ts0 = r, p, ts_ref
    r, p, lam, R, J = settle(r0, p0, np.zeros(0, dtype=int))
    stable = _stable(tangent(r, p, lam, R), scaled_jacobian(model, J, keep), cw)
    if lm is not None and (not stable or _past_a_stop(model, r, p, track) is not None):
        first = (r, p, lam, R, J, keep, shift.copy(), ts_ref, len(slipped),
                 slip.stuck.copy() if slip is not None else None)
        keep = np.concatenate([st.keep, slip.rows() if slip else np.zeros(0, int)]).astype(int)
        J0 = parts(r0, p0)[1]
        R0 = resid(r0, p0, np.linalg.lstsq(J0[keep].T, Q0, rcond=None)[0])[0]
        toward = _pushed_toward(model, R0, J0, keep, n, r0, p0, track)
        found = None
        if toward.size:
            shift[:], ts_ref = 0.0, ts0
            try:
                x = settle(r0, p0, lm.rows[toward])
                if (_past_a_stop(model, x[0], x[1], track) is None
                        and _stable(tangent(*x[:4]), scaled_jacobian(model, x[4], keep), cw)):
                    found = x
            except SolverError:          # no equilibrium that way: the first one stands
                pass
        if found is not None:
            (r, p, lam, R, J), stable = found, True
        else:
            r, p, lam, R, J, keep, shift[:], ts_ref, nslip, stuck = first
            del slipped[nslip:]
            if slip is not None:
                slip.stuck[:] = stuck
    past = _past_a_stop(model, r, p, track) if lm is not None else None
    if past is not None:
        _refuse_past(model, past, r, p, track, time)

    out = Result.empty(model, np.array([float(time)]), "static")
    out.notes += list(asm.notes)
    if slipped:
        out.notes.append(f"friction {', '.join(map(repr, slipped))} cannot hold the start (the needed "
                         "force exceeds the static limit): the equilibrium shown is without it")
    out.method = "static equilibrium (Newton)"
    out.stable = stable
    if not out.stable:
        out.notes.append("the equilibrium is unstable (a small push moves the mechanism away "
                         "from it, like an inverted pendulum); start nearer the stable one")
    rg, A, vg, wg = body_arrays(model, r, p, zero, zero)
    ev = evaluate(model, rg, A, vg, wg)
    lam_full = np.zeros(model.nc)
    lam_full[keep] = lam
    lam_full = _reported(model, st, keep, J, ev.jac, lam_full)
    if slip is not None:              # what friction holds (its multiplier), or nothing
        held_parts = slip.stuck[fp.element]
        out._friction[0, held_parts] = -lam_full[fp.rows[held_parts]]
    stop = stop_forces(model, ev.phi, ev.jac, np.zeros((nb + 1, 6)))
    if stop is not None:              # a compliant stop's push, read as its limit's force
        lam_full[model.limits.rows[stop.bounds]] = -stop.Qq
    rest = State(time, r, p, zero, zero, zero, zero)
    out.store(0, rest, lam_full, ev.jac, ev.track)
    _, fe = total_forces(model, time, rg, A, vg, wg, ts_ref)
    out.store_energy(0, inertia_world(model, A[:nb]), fe.potential, 0.0, 0.0)
    return out, rest


def _reported(model: Model, st: Structure, keep: np.ndarray, J: np.ndarray, jac: np.ndarray,
              lam: np.ndarray) -> np.ndarray:
    """The multipliers lam (nc,) of the kept rows as reported, and as friction's load takes
    them: with redundant rows, the least-norm joint multipliers with the same forces on the
    parts (structure.least_norm, as the sweep and dynamics report them).  J: the global
    Jacobian (nc, 6 nb) and jac its rows' blocks, at the pose."""
    if not st.redundant.size:
        return lam

    def solve_kept(F: np.ndarray) -> np.ndarray:     # J_k^T x = F for each F (k, nb, 6)
        return np.linalg.lstsq(J[keep].T, F.reshape(len(F), -1).T, rcond=None)[0].T
    return least_norm(self_stresses(model, keep, st.redundant, jac, solve_kept))(lam)


def _pushed_toward(model: Model, R: np.ndarray, J: np.ndarray, keep: np.ndarray, n: int,
                   r, p, track) -> np.ndarray:
    """The limit bounds (LimitPlan index) that an unbalanced load on the free motions pushes
    their coordinate toward: the load R[:n] projected on the motions the kept rows allow
    (null space of J[keep]) moves each bound's gap at the rate sgn J_row x; negative: toward
    it.  Bounds already past, or far, count alike: the nearest is the one Newton reaches."""
    lm = model.limits
    Jk = J[keep]
    if Jk.size:
        _, s, vt = np.linalg.svd(Jk)
        N = vt[np.sum(s > 1e-9 * s.max()):].T
    else:
        N = np.eye(n)
    x = N @ (N.T @ R[:n])
    rate = lm.sgn * (J[lm.rows] @ x)
    g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).phi)
    toward = np.flatnonzero(rate < -1e-9 * max(float(np.abs(R[:n]).max()), 1e-300)
                            * np.linalg.norm(J[lm.rows], axis=1))
    if toward.size > 1:            # the nearest stop along the way is the one reached
        toward = toward[[int(np.argmin(g[toward] / -rate[toward]))]]
    return toward


def _past_a_stop(model: Model, r, p, track) -> int | None:
    """The first rigid bound (LimitPlan index) the pose lies past, beyond the tolerance of
    stops.tolerance, or None."""
    lm = model.limits
    g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).phi)
    past = np.flatnonzero(~lm.compliant & (g < -tolerance(model)))
    return int(past[0]) if past.size else None


def _refuse_past(model: Model, b: int, r, p, track, time: float) -> None:
    """SolverError naming the limit and joint whose rigid bound b the only equilibrium
    found lies past (never returned as an answer)."""
    lm = model.limits
    g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).phi)
    unit = "rad" if model.row_kind[lm.rows[b]] == ANGLE else "m"
    raise SolverError(f"no static equilibrium within the stops: the one found has "
                      f"{describe(model, b)} by {-g[b]:.3g} {unit} (t = {time:.6g} s), and none "
                      "was found on the stop the load pushes toward; start the mechanism nearer "
                      "the pose it should rest in", time, (lm.names[b], lm.joints[b]))


def _stable(T: np.ndarray, Js: np.ndarray, cw: np.ndarray) -> bool:
    """Stable when the stiffness -T is positive semi-definite on the motions the constraints
    allow (the null space of J; coordinates scaled by cw so lengths and angles compare)."""
    K = -(T * cw[None, :]) / cw[:, None]          # stiffness in scaled coordinates
    if Js.size:
        _, s, vt = np.linalg.svd(Js)
        N = vt[np.sum(s > 1e-9 * s.max()):].T
    else:
        N = np.eye(K.shape[0])
    if N.size == 0:
        return True
    H = N.T @ (0.5 * (K + K.T)) @ N
    lam = np.linalg.eigvalsh(H)
    return bool(lam[0] >= -1e-7 * max(1.0, float(np.abs(lam).max())))


def _no_equilibrium(model, big: np.ndarray, R: np.ndarray, n: int, time: float, why: str) -> None:
    """Raise naming the parts whose unbalanced load lies in the tangent matrix's null space
    (directions with no stiffness to hold the load)."""
    try:
        U, s, _ = np.linalg.svd(big)
        null = U[:, s <= 1e-9 * s.max()] if s.size and s.max() > 0 else U
        x = null @ (null.T @ R) if null.size else U[:, -1]
        v = np.abs(x[:n]).reshape(-1, 6).max(axis=1)
        if not v.max() > 0:
            v = np.abs(U[:n, -1]).reshape(-1, 6).max(axis=1)
        names = [model.body_part[b] for b in np.flatnonzero(v > 0.2 * v.max())]
    except np.linalg.LinAlgError:
        names = list(model.body_part)
    raise SolverError(f"no static equilibrium near the start ({why}): parts "
                      f"{', '.join(map(repr, names))} are free to move under the loads "
                      "(an unrestrained degree of freedom)", time, tuple(names))
