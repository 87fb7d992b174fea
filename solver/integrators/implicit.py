"""L-stable implicit integration for stiff springs and dampers.

SDIRK4 (Hairer-Wanner, Solving ODEs II, section IV.6, Table 6.5): five stages with
gamma = 1/4, order 4, stiffly accurate (the step result is the last stage), embedded order
3 for error control.  Each stage Y solves ``Y - z - h gamma F(Y) = 0`` by simplified Newton.
Its iteration matrix ``I - h gamma dF/dy`` is applied in constrained form: with Q's force
Jacobians K = dQ/dq and C = dQ/dv (finite differences over the parts the force elements
touch), a velocity correction solves

    [ M - h g C - (h g)^2 K   J^T ] [dv]   [ -M R_v - h g K R_q ]
    [ J                       0   ] [mu] = [ -J R_v             ]

and the position correction follows as dq = h g dv - R_q (R: the stage residual).  This is
exact for the stiff force terms and drops only the slowly varying ones (constraint
curvature, gyroscopic and quaternion-rate derivatives), which Newton absorbs.  The error
estimate is filtered by the same matrix (Hairer-Wanner IV.8, eq. 8.19) so that stiff
components the step does not resolve do not force tiny steps.
"""
from __future__ import annotations

import numpy as np

from ..algebra.newton import newton
from ..base.rotations import congruence, quat_multiply, rotate_world
from ..kernels.constraints import body_arrays, evaluate, global_jacobian
from ..kernels.forces import total_forces

_G = 0.25
_A = np.array([[1 / 4, 0, 0, 0, 0],
               [1 / 2, 1 / 4, 0, 0, 0],
               [17 / 50, -1 / 25, 1 / 4, 0, 0],
               [371 / 1360, -137 / 2720, 15 / 544, 1 / 4, 0],
               [25 / 24, -49 / 48, 125 / 16, -85 / 12, 1 / 4]])
_C = _A.sum(axis=1)
_E = _A[-1] - np.array([59 / 48, -17 / 96, 225 / 32, -85 / 12, 0.0])   # b - b_hat


def force_jacobians(sysm, t: float, r, p, v, w) -> tuple[np.ndarray, np.ndarray]:
    """K = dQ/dq and C = dQ/dv (6nb, 6nb) by forward differences over the parts that
    force elements touch (rotations as small world-axes turns)."""
    m, nb = sysm.m, sysm.nb
    fm = m.forces
    touched = sorted({int(b) for b in np.concatenate([fm.sd_bi, fm.sd_bj, fm.ts_bi, fm.ts_bj,
                                                      fm.ld_body])} - {nb})
    K = np.zeros((6 * nb, 6 * nb))
    C = np.zeros((6 * nb, 6 * nb))

    def Q(r_, p_, v_, w_):
        return total_forces(m, t, *body_arrays(m, r_, p_, v_, w_), sysm.ts_ref)[0].ravel()

    q0 = Q(r, p, v, w)
    L = m.length_scale
    for b in touched:
        for k in range(3):
            e = np.zeros((nb, 3))
            hr = 1e-7 * L
            e[b, k] = hr
            K[:, 6 * b + k] = (Q(r + e, p, v, w) - q0) / hr
            e[b, k] = 1e-7
            K[:, 6 * b + 3 + k] = (Q(r, rotate_world(p, e), v, w) - q0) / 1e-7
            hv = 1e-7 * (1.0 + float(np.abs(v[b]).max()))
            e[b, k] = hv
            C[:, 6 * b + k] = (Q(r, p, v + e, w) - q0) / hv
            hw = 1e-7 * (1.0 + float(np.abs(w[b]).max()))
            e[b, k] = hw
            C[:, 6 * b + 3 + k] = (Q(r, p, v, w + e) - q0) / hw
    return K, C


def stiffness_rate(sysm, t: float, r, p, v, w, iterations: int = 40) -> float:
    """Fastest rate (1/s) the force elements give the constrained system: sqrt of the largest
    |eigenvalue| of S K and the largest of S C, S = M^-1 - M^-1 J^T (J M^-1 J^T)^-1 J M^-1 the
    constrained inverse mass (power iteration; a cheap estimate for choosing the integrator)."""
    K, C = force_jacobians(sysm, t, r, p, v, w)
    if not (np.any(K) or np.any(C)):
        return 0.0
    rg, A = body_arrays(sysm.m, r, p)[:2]
    J = global_jacobian(sysm.m, evaluate(sysm.m, rg, A).jac)[sysm.keep]
    Mi = sysm.minv(A[: sysm.nb])
    MiJt = sysm._apply_minv(Mi, J.T.copy())
    G = np.linalg.pinv(J @ MiJt) if J.size else np.zeros((0, 0))

    def S(x: np.ndarray) -> np.ndarray:
        y = sysm._apply_minv(Mi, x[:, None])[:, 0]
        return y - MiJt @ (G @ (J @ y)) if J.size else y

    rng = np.random.default_rng(0)
    rates = []
    for X, root in ((K, True), (C, False)):
        x = rng.normal(size=X.shape[0])
        lam = 0.0
        for _ in range(iterations):
            y = S(X @ x)
            n = float(np.linalg.norm(y))
            if n == 0.0:
                break
            lam, x = n / float(np.linalg.norm(x)), y / n
        rates.append(np.sqrt(lam) if root else lam)
    return float(max(rates))


class SDIRK4:
    """One step of the L-stable SDIRK4 method on the dynamics system of dynamics._System."""
    order = 3
    name = "implicit SDIRK 4(3), L-stable"

    def __init__(self, sysm) -> None:
        self.sysm = sysm

    def _matrix(self, t: float, y: np.ndarray, hg: float):
        """Inverse of the constrained iteration matrix and what the corrections need."""
        s = self.sysm
        r, p, v, w, _ = s.unpack(y)
        pn = p / np.linalg.norm(p, axis=1, keepdims=True)
        rg, A = body_arrays(s.m, r, pn)[:2]
        J = global_jacobian(s.m, evaluate(s.m, rg, A).jac)[s.keep]
        K, C = force_jacobians(s, t, r, pn, v, w)
        nb, n = s.nb, 6 * s.nb
        M = np.zeros((n, n))
        Iw = congruence(A[:nb], s.m.body_inertia)
        for b in range(nb):
            M[6 * b: 6 * b + 3, 6 * b: 6 * b + 3] = np.eye(3) * s.m.body_mass[b]
            M[6 * b + 3: 6 * b + 6, 6 * b + 3: 6 * b + 6] = Iw[b]
        nk = J.shape[0]
        kkt = np.zeros((n + nk, n + nk))
        kkt[:n, :n] = M - hg * C - hg * hg * K
        kkt[:n, n:] = J.T
        kkt[n:, :n] = J
        return np.linalg.inv(kkt), M, K, J, pn

    def _correction(self, R: np.ndarray, hg: float, mats) -> np.ndarray:
        """dY with (I - h g dF/dy) dY = -R, in the state layout (see module docstring)."""
        s = self.sysm
        inv, M, K, J, pn = mats
        nb = s.nb
        R_r, R_p, R_v, R_w, R_W = s.unpack(R)
        conj = pn * np.array([1.0, -1.0, -1.0, -1.0])
        R_phi = 2.0 * quat_multiply(R_p, conj)[:, 1:]
        R_par = np.sum(R_p * pn, axis=1)
        Rq = np.concatenate([R_r, R_phi], 1).ravel()
        Rv = np.concatenate([R_v, R_w], 1).ravel()
        sol = inv @ np.concatenate([-M @ Rv - hg * (K @ Rq), -J @ Rv])
        dv = sol[: 6 * nb]
        dq = (hg * dv - Rq).reshape(nb, 6)
        dp = 0.5 * quat_multiply(np.concatenate([np.zeros((nb, 1)), dq[:, 3:]], 1), pn) \
            - R_par[:, None] * pn
        dv = dv.reshape(nb, 6)
        return s.pack(dq[:, :3], dp, dv[:, :3], dv[:, 3:], -R_W)

    def step(self, t: float, y: np.ndarray, f0: np.ndarray, h: float, norm) -> tuple[np.ndarray, float]:
        s = self.sysm
        hg = h * _G
        try:
            mats = self._matrix(t, y, hg)
            ks: list[np.ndarray] = []
            for i in range(5):
                z = y + h * sum(_A[i, j] * ks[j] for j in range(i))
                ti = t + _C[i] * h
                # simplified Newton on Y - z - h g f(t_i, Y) = 0 with the step's one matrix;
                # converged when a correction is 1/100 of the error tolerance (the stopping
                # rule of algebra.newton with the residual not measured); a correction not
                # 0.8 times the one before means divergence: the caller cuts h
                sol = newton(z + hg * (ks[-1] if ks else f0),
                             lambda Y: (None, Y - z - hg * s.rhs(ti, Y)),
                             lambda Y, R: self._correction(R, hg, mats),
                             lambda Y, dY, alpha: Y + dY,
                             lambda Y1, dY, alpha: norm(dY, Y1, Y1), 10, step_tol=1e-2,
                             contraction=0.8)
                if not sol.ok:
                    return y, np.inf
                Y = sol.x
                ks.append((Y - z) / hg)
            err = h * sum(_E[j] * ks[j] for j in range(5))
            return Y, norm(self._correction(-err, hg, mats), y, Y)
        except np.linalg.LinAlgError:
            return y, np.inf
