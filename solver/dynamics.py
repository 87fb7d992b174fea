"""Forward dynamics: integrate the constrained equations of motion through the output
frames (seed 003 "Forward dynamics - dynamically driven").

Each right-hand side solves the augmented system (Haug eq. 11.1.4)
    [M  J^T] [a     ]   [Q    ]
    [J  0  ] [lambda] = [gamma]
by the Schur complement (M is block diagonal): (J M^-1 J^T) lambda = J M^-1 Q - gamma.
The state (r, p, v, w) is integrated as an ODE with ``dp/dt = 1/2 [0, w] * p``; after every
accepted step the positions and velocities are projected back onto the constraints
(M-weighted least change; Hairer-Wanner VII.2 "projection methods"), so constraints hold to
Newton precision at every frame with no drift, and the multipliers at each output frame give
the reactions and motion efforts as in kinematics.

Integrator: explicit Dormand-Prince 5(4) with error control; output frames are hit exactly.
"""
from __future__ import annotations

import numpy as np

from .constraints import body_arrays, evaluate, global_jacobian
from .errors import SolverError
from .expressions import ExpressionError
from .forces import total_forces
from .kinematics import NEWTON_TOL, Structure, _involved, _scales, inertia_world, motion_values, residual
from .model import Model
from .results import Result
from .rotations import quat_multiply, rotate_world

# Dormand-Prince 5(4) tableau (Hairer, Norsett, Wanner I, Table II.5.2)
_C = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
_A = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
      [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
      [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
      [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
_B = np.array([35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0])
_E = _B - np.array([5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])


class _System:
    """The constrained equations of one model: state packing, right-hand side, projection."""

    def __init__(self, model: Model, st: Structure) -> None:
        self.m, self.keep = model, st.keep
        self.nb = model.nb
        self.mrows = np.flatnonzero(model.row_motion >= 0)
        self.kept_motion = np.intersect1d(st.keep, self.mrows)
        self.ts_ref = np.zeros(len(model.forces.ts_names))

    # y = [r (3nb), p (4nb), v (3nb), w (3nb), work]
    def pack(self, r, p, v, w, work: float) -> np.ndarray:
        return np.concatenate([r.ravel(), p.ravel(), v.ravel(), w.ravel(), [work]])

    def unpack(self, y: np.ndarray):
        nb = self.nb
        r = y[: 3 * nb].reshape(nb, 3)
        p = y[3 * nb: 7 * nb].reshape(nb, 4)
        v = y[7 * nb: 10 * nb].reshape(nb, 3)
        w = y[10 * nb: 13 * nb].reshape(nb, 3)
        return r, p, v, w, y[-1]

    def minv(self, A: np.ndarray) -> np.ndarray:
        """(nb, 6, 6) inverse mass blocks, world axes: 1/m I and A I^-1 A^T."""
        Mi = np.zeros((self.nb, 6, 6))
        Mi[:, :3, :3] = np.eye(3)[None] / self.m.body_mass[:, None, None]
        Mi[:, 3:, 3:] = np.einsum("bij,bjk,blk->bil", A, np.linalg.inv(self.m.body_inertia), A)
        return Mi

    def _apply_minv(self, Mi: np.ndarray, X: np.ndarray) -> np.ndarray:
        """M^-1 X for X (6nb, k)."""
        k = X.shape[1]
        return np.einsum("bij,bjk->bik", Mi, X.reshape(self.nb, 6, k)).reshape(6 * self.nb, k)

    def accelerations(self, t: float, r, p, v, w):
        """(a (nb,6), lambda (nc,), ForceEval, J, Iw): the augmented system at one state."""
        m = self.m
        f = motion_values(m, t)
        rg, A, vg, wg = body_arrays(m, r, p, v, w)
        ev = evaluate(m, rg, A, vg, wg)
        J = global_jacobian(m, ev.jac)
        Q, fe = total_forces(m, t, rg, A, vg, wg, self.ts_ref)
        gamma = -ev.quad
        gamma[self.mrows] += f[m.row_motion[self.mrows], 2]
        Mi = self.minv(A[: self.nb])
        Jk = J[self.keep]
        MiJt = self._apply_minv(Mi, Jk.T.copy())
        S = Jk @ MiJt
        MiQ = self._apply_minv(Mi, Q.reshape(-1, 1))[:, 0]
        lam_k = np.linalg.solve(S, Jk @ MiQ - gamma[self.keep])
        a = MiQ - MiJt @ lam_k
        lam = np.zeros(m.nc)
        lam[self.keep] = lam_k
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(lam))):
            raise np.linalg.LinAlgError("non-finite accelerations")
        return a.reshape(self.nb, 6), lam, fe, J, f

    def rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        r, p, v, w, _ = self.unpack(y)
        pn = p / np.linalg.norm(p, axis=1, keepdims=True)
        a, lam, fe, _, f = self.accelerations(t, r, pn, v, w)
        pdot = 0.5 * quat_multiply(np.concatenate([np.zeros((self.nb, 1)), w], 1), pn)
        power = fe.power_nc + float(np.dot(-lam[self.mrows], f[self.m.row_motion[self.mrows], 1]))
        return np.concatenate([v.ravel(), pdot.ravel(), a[:, :3].ravel(), a[:, 3:].ravel(), [power]])

    def project(self, t: float, r, p, v, w):
        """Positions onto Phi = 0 (M-weighted least-change Newton), then velocities onto
        J v = nu.  Raises LinAlgError when the constraints cannot be met."""
        m = self.m
        f = motion_values(m, t)
        rs, _ = _scales(m)
        p = p / np.linalg.norm(p, axis=1, keepdims=True)
        for it in range(20):
            rg, A = body_arrays(m, r, p)[:2]
            ev = evaluate(m, rg, A)
            res = residual(m, ev.phi, f)
            if np.max(np.abs(res * rs), initial=0.0) <= NEWTON_TOL:
                break
            J = global_jacobian(m, ev.jac)[self.keep]
            Mi = self.minv(A[: self.nb])
            MiJt = self._apply_minv(Mi, J.T.copy())
            dq = -MiJt @ np.linalg.solve(J @ MiJt, res[self.keep])
            d = dq.reshape(-1, 6)
            r, p = r + d[:, :3], rotate_world(p, d[:, 3:])
        else:
            raise np.linalg.LinAlgError("position projection did not converge")
        J = global_jacobian(m, ev.jac)[self.keep]
        Mi = self.minv(A[: self.nb])
        nu = np.zeros(m.nc)
        nu[self.mrows] = f[m.row_motion[self.mrows], 1]
        vel = np.concatenate([v, w], 1).reshape(-1)
        MiJt = self._apply_minv(Mi, J.T.copy())
        vel = vel - MiJt @ np.linalg.solve(J @ MiJt, J @ vel - nu[self.keep])
        vel = vel.reshape(-1, 6)
        return r, p, vel[:, :3], vel[:, 3:]


def dynamic_run(model: Model, st: Structure, r: np.ndarray, p: np.ndarray, v: np.ndarray,
                w: np.ndarray, times: np.ndarray, tolerance: float = 1e-6) -> Result:
    """Integrate from times[0] through every output frame; returns a Result."""
    sysm = _System(model, st)
    out = Result.empty(model, times, "dynamic")
    L = model.length_scale
    nb = model.nb
    # error weights: |e_i| <= tol (scale_i + |y_i|), blocks r [m], p [-], v [m/s], w [rad/s]
    scale = np.concatenate([np.full(3 * nb, L), np.ones(4 * nb), np.full(3 * nb, L),
                            np.ones(3 * nb), [np.inf]])
    rtol = tolerance * 1e-2
    t = float(times[0])
    work = 0.0
    h = None

    def fail(msg: str, k: int, tt: float, who=()):
        raise SolverError(msg, tt, who, out.truncated(k))

    for k, t_out in enumerate(times):
        # integrate up to the frame time
        while t < t_out - 1e-14 * max(1.0, abs(t_out)):
            try:
                y = sysm.pack(r, p, v, w, work)
                k1 = sysm.rhs(t, y)
                if h is None:
                    h = _initial_step(k1, y, scale, rtol, times)
                hs = min(h, t_out - t)
                while True:
                    ks = [k1]
                    for i in range(1, 7):
                        yi = y + hs * sum(_A[i][j] * ks[j] for j in range(i) if _A[i][j] != 0.0)
                        ks.append(sysm.rhs(t + _C[i] * hs, yi))
                    ynew = y + hs * sum(_B[j] * ks[j] for j in range(7) if _B[j] != 0.0)
                    err_vec = hs * sum(_E[j] * ks[j] for j in range(7))
                    sc = rtol * (scale + np.maximum(np.abs(y), np.abs(ynew)))
                    err = float(np.sqrt(np.mean((err_vec[:-1] / sc[:-1]) ** 2)))
                    if not np.isfinite(err):
                        err = 1e10
                    fac = 0.9 * err ** -0.2 if err > 0 else 5.0
                    if err <= 1.0:
                        h_next = hs * min(5.0, max(0.2, fac))
                        break
                    hs *= max(0.1, min(0.9, fac))
                    if hs < 1e-12 * max(1.0, abs(t)):
                        fail(f"integration failed at t = {t:.6g} s: the step size fell below "
                             f"{hs:.1e} s (a discontinuity or an extremely stiff element)", k, t)
                # keep the natural step for the next one unless this step was cut to the frame
                if hs == h or h_next < h:
                    h = h_next
                t = t + hs
                r1, p1, v1, w1, work = sysm.unpack(ynew)
                r, p, v, w = sysm.project(t, r1.copy(), p1.copy(), v1.copy(), w1.copy())
                if len(sysm.ts_ref):
                    sysm.ts_ref = sysm.accelerations(t, r, p, v, w)[2].ts_angle
            except ExpressionError as exc:
                fail(str(exc), k, t)
            except np.linalg.LinAlgError:
                rg, A = body_arrays(model, r, p)[:2]
                J = global_jacobian(model, evaluate(model, rg, A).jac)
                who = _involved(model, J, st.keep)
                fail(f"lock-up at t = {t:.6g} s: the constraint equations became singular "
                     f"(joints involved: {', '.join(who)})", k, t, who)
        # output frame: projected state, accelerations and multipliers
        try:
            if k == 0:
                r, p, v, w = sysm.project(t, r, p, v, w)
            a, lam, fe, J, f = sysm.accelerations(t, r, p, v, w)
        except ExpressionError as exc:
            fail(str(exc), k, t)
        except np.linalg.LinAlgError:
            fail(f"lock-up at t = {t:.6g} s: the constraint equations are singular", k, t)
        sysm.ts_ref = fe.ts_angle
        rg, A, vg, wg = body_arrays(model, r, p, v, w)
        ev = evaluate(model, rg, A, vg, wg)
        out.store(k, r, p, v, w, a[:, :3], a[:, 3:], lam, ev, model, rg)
        mr = sysm.mrows
        power = fe.power_nc + float(np.dot(-lam[mr], f[model.row_motion[mr], 1]))
        out.store_energy(k, inertia_world(model, A[:nb]), fe.potential, power, work)
    return out


def _initial_step(k1: np.ndarray, y: np.ndarray, scale: np.ndarray, rtol: float,
                  times: np.ndarray) -> float:
    """Starting step from the first derivative's size (Hairer-Norsett-Wanner II.4)."""
    sc = rtol * (scale + np.abs(y))
    d1 = float(np.sqrt(np.mean((k1[:-1] / sc[:-1]) ** 2)))
    h = 0.01 / d1 if d1 > 1e-10 else 1e-3
    frame = float(times[1] - times[0]) if len(times) > 1 else 1.0
    return min(h, frame, 1e-2)
