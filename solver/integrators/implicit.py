"""L-stable implicit integration for stiff springs and dampers: Radau IIA collocation.

Radau IIA with s = 5 stages (Hairer-Wanner, Solving ODEs II, section IV.5, which tabulates
s = 3): order 2s - 1 = 9, stiffly accurate (the step result is the last stage), L-stable.
Why this order: a stiff mechanism usually also moves fast in its slow coordinates (a
governor spins), and in Cartesian coordinates the accuracy of that motion, not the stiff
mode, sets the step of an implicit method.  The order-4 SDIRK4 used before needed h w =
0.02 (w the spin rate) at the default tolerance; order 9 takes steps about ten times
longer for the same accuracy (bench/bench_governor.py: 8294 -> 733 steps for 10 s).

The stage increments Z (s, n) solve ``Z = h (A x I) F(y0 + Z)`` by simplified Newton with
the transformation of IV.8 (simplified Newton iterations, the linear system): A^-1 =
T Lambda T^-1, so an iteration solves one system ``(I - (h / lambda_k) dF/dy) dW_k = ...``
per real eigenvalue and per complex pair of A^-1: one real and two complex solves.  Each
is applied in constrained form: with the force Jacobians K = dQ/dq and C = dQ/dv
(analytic, kernels/forces.py) and hg = h / lambda_k, a velocity correction solves

    [ M - hg C - hg^2 K   J^T ] [dv]   [ -M R_v - hg K R_q ]
    [ J                   0   ] [mu] = [ -J R_v            ]

and dq = hg dv - R_q (R: the residual in the state layout).  This is exact for the stiff
force terms and drops the slowly varying ones (constraint curvature, the constraint forces'
geometric stiffness, quaternion-rate derivatives), which Newton absorbs.  Measured on the
governor at h = 0.01 s: the linear contraction is 0.06, but position errors off the
constraints feed the angular velocities strongly once (a non-normal iteration), so a step
takes about four iterations; adding the geometric stiffness (by finite differences) saved
4% of them, so it is left out.

Reuse (IV.8 and the code RADAU5): the Jacobian is built at the predicted middle of the
step and kept for the next steps while Newton contracts fast (rate <= 0.001: it is still
good), else rebuilt; the factorizations are redone only when h changes (the controller
keeps h when the new one would be within a factor 1.2, as long as the Jacobian is kept).
A turning mechanism's Jacobian in world axes turns with it, so there it is rebuilt about
every step.  Starting values extrapolate the last step's collocation polynomial.  Newton
stops when the predicted remaining error rate / (1 - rate) |dZ| is 1/10 of the tolerance
(algebra.newton with ``rate``).  The error estimate is the embedded formula of order s with
the real eigenvalue's factor, filtered by that system (IV.8, step size selection; RADAU5
does this for s = 3), so that stiff components the step does not resolve do not force
tiny steps.
"""
from __future__ import annotations

import numpy as np

from ..algebra.newton import NewtonOptions, newton
from ..base.errors import FrictionJam
from ..base.rotations import congruence, quat_multiply
from ..kernels.constraints import body_arrays, evaluate, global_jacobian
from ..kernels.forces import force_jacobians
from ..kernels.stop_forces import stop_jacobians
from .radau_newton import RadauStages


def radau_iia(s: int):
    """Radau IIA coefficients for s stages: nodes c (the zeros of P_s(2x-1) - P_{s-1}(2x-1),
    c_s = 1), the collocation matrix A (a_ij = integral from 0 to c_i of the j-th Lagrange
    polynomial on c), the eigenvalues lam and eigenvectors T of A^-1, and the weights d of
    the error estimate: e = gamma0 h f(y0) + sum_i d_i Z_i, gamma0 = 1 / (real eigenvalue),
    is y_hat - y1 for the order-s quadrature y_hat = y0 + h (gamma0 f0 + sum b_hat_i F_i)
    (conditions sum b_hat_i c_i^(k-1) = 1/k - gamma0 [k = 1], k = 1..s), with F = A^-1 Z / h."""
    leg = np.polynomial.legendre
    coef = np.zeros(s + 1)
    coef[s], coef[s - 1] = 1.0, -1.0
    c = np.sort((leg.legroots(coef).real + 1.0) / 2.0)
    A = np.empty((s, s))
    for j in range(s):
        others = np.delete(c, j)
        prim = np.polyint(np.poly(others) / np.prod(c[j] - others))
        A[:, j] = np.polyval(prim, c) - np.polyval(prim, 0.0)
    Ainv = np.linalg.inv(A)
    lam, T = np.linalg.eig(Ainv)
    real = int(np.argmin(np.abs(lam.imag)))
    gamma0 = 1.0 / lam[real].real
    V = np.vander(c, s, increasing=True).T              # V[k, i] = c_i^k
    rhs = 1.0 / np.arange(1, s + 1)
    rhs[0] -= gamma0
    b_hat = np.linalg.solve(V, rhs)
    d = (b_hat - A[-1]) @ Ainv
    return c, A, lam, T, gamma0, d



def lagrange_basis(nodes: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """(tau.shape + (len(nodes),)) the Lagrange polynomials on ``nodes`` at ``tau``: the
    collocation polynomial through values at the nodes is their sum weighted by these."""
    L = np.ones(tau.shape + (len(nodes),))
    for j in range(len(nodes)):
        for m in range(len(nodes)):
            if m != j:
                L[..., j] *= (tau - nodes[m]) / (nodes[j] - nodes[m])
    return L


def all_force_jacobians(m, t, rg, A, vg, wg, ts_ref, ev) -> tuple[np.ndarray, np.ndarray]:
    """K = dQ/dq, C = dQ/dv (6 nb, 6 nb) of the force elements and the compliant stops."""
    K, C = force_jacobians(m, t, rg, A, vg, wg, ts_ref)
    stops = stop_jacobians(m, ev.phi, ev.jac, np.concatenate([vg, wg], axis=-1))
    if stops is not None:
        K, C = K + stops[0], C + stops[1]
    return K, C

class Jacobian:
    """The constrained iteration matrix's ingredients at one state: the kept constraint
    rows J (nk, 6nb), force Jacobians K, C and the mass matrix M (6nb, 6nb, world axes),
    the unit quaternions and E (nb, 3, 4), E R_p = vector part of R_p * conj(p) (so that a
    small world turn dpi moves p by E^T dpi / 2).  factor(hg) gives the inverse of the
    system above for one hg (real or complex); correction applies it."""

    def __init__(self, sysm, t: float, y: np.ndarray) -> None:
        m = sysm.m
        r, p, v, w, _ = sysm.unpack(y)
        pn = p / np.linalg.norm(p, axis=1, keepdims=True)
        rg, A, vg, wg = body_arrays(m, r, pn, v, w)
        ev = evaluate(m, rg, A, ref=sysm.track)
        self.J = global_jacobian(m, ev.jac)[sysm.keep]
        self.K, self.C = all_force_jacobians(m, t, rg, A, vg, wg, sysm.ts_ref, ev)
        nb = sysm.nb
        self.M = np.zeros((nb, 6, nb, 6))
        idx = np.arange(nb)
        self.M[idx, :3, idx, :3] = m.body_mass[:, None, None] * np.eye(3)
        self.M[idx, 3:, idx, 3:] = congruence(A[:nb], m.body_inertia)
        self.M = self.M.reshape(6 * nb, 6 * nb)
        self.pn = pn
        self.E = np.stack([quat_multiply(np.concatenate([[0.0], e]), pn) for e in np.eye(3)], 1)
        self.sysm = sysm

    def factor(self, hg: complex) -> np.ndarray:
        """Inverse of [[M - hg C - hg^2 K, J^T], [J, 0]] (complex when hg is)."""
        n, nk = self.M.shape[0], self.J.shape[0]
        dtype = complex if isinstance(hg, complex) else float
        kkt = np.zeros((n + nk, n + nk), dtype=dtype)
        kkt[:n, :n] = self.M - hg * self.C - hg * hg * self.K
        kkt[:n, n:] = self.J.T
        kkt[n:, :n] = self.J
        return np.linalg.inv(kkt)

    def correction(self, R: np.ndarray, hg: complex, inv: np.ndarray) -> np.ndarray:
        """dY with (I - hg dF/dy) dY = -R in the state layout (see module docstring); R and
        the result complex when hg is."""
        s = self.sysm
        nb = s.nb
        R_r, R_p, R_v, R_w, R_W = s.unpack(R)
        R_phi = 2.0 * np.einsum("bij,bj->bi", self.E, R_p)
        R_par = np.sum(R_p * self.pn, axis=1)
        Rq = np.concatenate([R_r, R_phi], 1).ravel()
        Rv = np.concatenate([R_v, R_w], 1).ravel()
        sol = inv @ np.concatenate([-self.M @ Rv - hg * (self.K @ Rq), -self.J @ Rv])
        dv = sol[: 6 * nb]
        dq = (hg * dv - Rq).reshape(nb, 6)
        dp = 0.5 * np.einsum("bji,bj->bi", self.E, dq[:, 3:]) - R_par[:, None] * self.pn
        dv = dv.reshape(nb, 6)
        return s.pack(dq[:, :3], dp, dv[:, :3], dv[:, 3:], -R_W)


STAGES = 5
NEWTON_KAPPA = 0.1           # stop when the predicted Newton error is this part of the tolerance
NEWTON_MAX = 7               # iterations before the step is retried with h / 2 (RADAU5's NIT)
REFRESH_RATE = 1e-3          # rebuild the Jacobian after a step whose Newton contracted slower
#                              (RADAU5's THET)


class RadauIIA:
    """One step of the L-stable Radau IIA method on the dynamics system of equations.Equations,
    keeping the Jacobian, the factorizations and the last collocation polynomial between
    steps (see the module docstring)."""

    def __init__(self, sysm, stages: int = STAGES) -> None:
        self.sysm = sysm
        self.s = stages
        self.order = stages           # of the error estimate: step factor err^(-1/(s+1))
        self.name = f"implicit Radau IIA order {2 * stages - 1}, L-stable"
        self.c, self.A, lam, T, self.gamma0, self.d = radau_iia(stages)
        # one eigenvalue per real one and per complex pair (imaginary part > 0)
        keep = [k for k in range(stages) if lam[k].imag >= -1e-12 * abs(lam[k])]
        self.lam, self.T, self.Tinv = lam, T, np.linalg.inv(T)
        self.rep = np.array(keep)
        self.real = int(np.argmin(np.abs(lam.imag)))
        self.partner = np.array([int(np.argmin(np.abs(lam - np.conj(lam[k])))) for k in range(stages)])
        self.jac: Jacobian | None = None
        self.fresh = False           # the Jacobian was built at this step's start
        self.h_fact = None
        self.inv: dict[int, np.ndarray] = {}
        self.rate = 1e-2             # Newton's last contraction
        self.newton_iterations = 0
        self.newton_max = NEWTON_MAX
        self.rejected = False
        self.last = None             # (t, h, y0, Z) of the last accepted step
        self.k_end = None            # no first-same-as-last: f(t, y) is taken anew

    @property
    def keeps_matrix(self) -> bool:
        """The next step reuses this Jacobian (so keeping h keeps the factorizations)."""
        return self.jac is not None

    def _factors(self, h: float) -> None:
        if self.h_fact != h:
            self.inv = {int(k): self.jac.factor(self._hg(k, h)) for k in self.rep}
            self.h_fact = h

    def _hg(self, k: int, h: float) -> complex:
        lam = self.lam[k]
        return h / float(lam.real) if k == self.real else complex(h / lam)

    def _start(self, t: float, y: np.ndarray, f0: np.ndarray, h: float) -> np.ndarray:
        """Starting stage increments: the last step's collocation polynomial u (u(0) = 0,
        u(c_i) = Z_i) extrapolated to this step's nodes, relative to this y (after the
        projection); on the first step c_i h f0."""
        if self.last is None:
            return self.c[:, None] * h * f0[None, :]
        t0, h0, y0, Z = self.last
        return self._collocation((t + self.c * h - t0) / h0) - y[None, :]

    def _collocation(self, tau) -> np.ndarray:
        """The last accepted step's collocation polynomial u(tau) (u(0) = y0, u(c_i) = y0 +
        Z_i, tau in units of its h from its start), (len(tau), n)."""
        _, _, y0, Z = self.last
        tau = np.atleast_1d(np.asarray(tau, dtype=float))
        L = lagrange_basis(np.concatenate([[0.0], self.c]), tau)
        return y0[None, :] + L[:, 1:] @ Z

    def dense(self, theta) -> np.ndarray:
        """y at t + theta h within the last accepted step (theta in [0, 1], or an array of
        them: (F, n)): its collocation polynomial, of order s = 5 there (the step's result,
        theta = 1, is of order 2s - 1), exact at both ends (Hairer-Wanner IV.5,
        "continuous output")."""
        out = self._collocation(theta)
        return out if np.ndim(theta) else out[0]

    def _solve(self, F: np.ndarray, Z: np.ndarray, h: float) -> np.ndarray:
        """Simplified Newton step dZ from F(y0 + Z) (s, n), transformed by T."""
        W = self.Tinv @ Z
        TF = self.Tinv @ F
        dW = np.empty(W.shape, dtype=complex)
        for k in self.rep:
            hg = self._hg(int(k), h)
            rho = -(self.lam[k] / h) * W[k] + TF[k]
            dW[k] = self.jac.correction(-hg * rho, hg, self.inv[int(k)])
            if k != self.partner[k]:
                dW[self.partner[k]] = np.conj(dW[k])
        return (self.T @ dW).real

    def step(self, t: float, y: np.ndarray, f0: np.ndarray, h: float, norm) -> tuple[np.ndarray, float]:
        s = self.sysm
        try:
            Z0 = self._start(t, y, f0, h)
            if self.jac is None:
                mid = int(np.argmin(np.abs(self.c - 0.5))) if self.last is not None else None
                at = (t, y) if mid is None else (t + self.c[mid] * h, y + Z0[mid])
                self.jac, self.fresh, self.h_fact = Jacobian(s, *at), True, None
            self._factors(h)
            ts = t + self.c * h

            sol = newton(RadauStages(self, ts, y, h, norm), Z0,
                         NewtonOptions(NEWTON_MAX, step_tol=NEWTON_KAPPA, rate=max(self.rate, 1e-3) ** 0.8))
            self.newton_iterations = sol.iterations
            if not sol.ok:
                return self._failed(t, y)
            self.rate = sol.rate
            Z = sol.x
            ynew = y + Z[-1]
            e = self.gamma0 * h * f0 + self.d @ Z
            hg = self._hg(self.real, h)
            inv = self.inv[self.real]
            err_vec = self.jac.correction(-e, hg, inv)
            err = norm(err_vec, y, ynew)
            if err > 1.0 and (self.last is None or self.rejected):
                # the estimate again from f at y + err (IV.8, RADAU5): robust when y is
                # off the slow manifold (the start, after a rejection)
                e2 = self.gamma0 * h * s.rhs(t, y + err_vec) + self.d @ Z
                err = norm(self.jac.correction(-e2, hg, inv), y, ynew)
        except FrictionJam:          # the friction, not the step: no smaller step helps
            raise
        except np.linalg.LinAlgError:
            return self._failed(t, y)
        self.rejected = err > 1.0
        if not self.rejected:
            self.last = (t, h, y, Z)
            if self.rate > REFRESH_RATE:       # Newton slowed down: a new Jacobian next step
                self.jac = None
            self.fresh = False
        return ynew, err

    def _failed(self, t: float, y: np.ndarray) -> tuple[np.ndarray, float]:
        """Newton did not converge: retry with a new Jacobian (unless it is new) and h / 2."""
        self.rejected = True
        self.rate = 1e-2
        if not self.fresh:
            self.jac = None
        return y, np.inf


def stiffness_rate(sysm, t: float, r, p, v, w, iterations: int = 60) -> float:
    """Fastest rate (1/s) of the constrained system's motion under the force elements'
    stiffness and damping: the spectral radius of the first-order system
        d/dt [x, u] = [[0, I], [S K, S C]] [x, u],
    S = M^-1 - M^-1 J^T (J M^-1 J^T)^-1 J M^-1 the constrained inverse mass and K, C the
    analytic force Jacobians, whose eigenvalues solve det(lambda^2 - lambda S C - S K) = 0
    on the constrained motions: sqrt(k/m) for an undamped spring, c/m for a heavy damper
    (overdamped: the fast root ~ -c/m whatever k is).  Power iteration with the growth
    averaged over the iterations (a complex pair does not settle on one direction; its norm
    grows like |lambda|^n); a cheap estimate for choosing the integrator."""
    m = sysm.m
    rg, A, vg, wg = body_arrays(m, r, p, v, w)
    ev = evaluate(m, rg, A, ref=sysm.track)
    K, C = all_force_jacobians(m, t, rg, A, vg, wg, sysm.ts_ref, ev)
    if not (np.any(K) or np.any(C)):
        return 0.0
    J = global_jacobian(m, ev.jac)[sysm.keep]
    Mi = sysm.minv(A[: sysm.nb])
    MiJt = sysm._apply_minv(Mi, J.T.copy())
    G = np.linalg.pinv(J @ MiJt) if J.size else np.zeros((0, 0))

    def S(x: np.ndarray) -> np.ndarray:
        y = sysm._apply_minv(Mi, x[:, None])[:, 0]
        return y - MiJt @ (G @ (J @ y)) if J.size else y

    def radius(apply, n: int) -> float:
        return spectral_radius(apply, n, iterations)

    n = K.shape[0]
    # balance the companion with sigma ~ its radius: [sigma x, u] turns [[0, I], [SK, SC]]
    # into [[0, sigma I], [SK / sigma, SC]], whose eigenvectors are not skewed by 1/sigma
    sigma = max(np.sqrt(radius(lambda x: S(K @ x), n)), radius(lambda x: S(C @ x), n))
    if sigma == 0.0 or not np.isfinite(sigma):
        return sigma
    return radius(lambda x: np.concatenate([sigma * x[n:], S(K @ x[:n] / sigma + C @ x[n:])]), 2 * n)


def spectral_radius(apply, n: int, iterations: int = 60) -> float:
    """Spectral radius of a linear map (``apply``: x -> A x on R^n) by power iteration from a
    fixed random start, the growth averaged over the last 2/3 of the iterations (a complex
    pair does not settle on one direction; its norm grows like |lambda|^k)."""
    return float(spectral_radii(lambda X: apply(X[0])[None], 1, n, iterations)[0])


def spectral_radii(apply, count: int, n: int, iterations: int = 60) -> np.ndarray:
    """spectral_radius of ``count`` linear maps at once (``apply``: X (count, n) -> each
    row's map applied to that row, e.g. a design study's variants), one per map (count,),
    each from the same start: 0 for a map that gives 0, inf for one that overflows."""
    x = np.random.default_rng(0).normal(size=n)
    X = np.tile(x / np.linalg.norm(x), (count, 1))
    logs = np.zeros((iterations, count))
    zero = np.zeros(count, dtype=bool)
    bad = np.zeros(count, dtype=bool)
    for k in range(iterations):
        Y = apply(X)
        g = np.linalg.norm(Y, axis=-1)
        zero |= ~bad & (g == 0.0)
        bad |= ~zero & ~np.isfinite(g)
        ok = ~zero & ~bad
        logs[k] = np.log(np.where(ok, g, 1.0))
        X = np.where(ok[:, None], Y / np.where(ok, g, 1.0)[:, None], X)
    rate = np.exp(np.mean(logs[iterations // 3:], axis=0))
    return np.where(zero, 0.0, np.where(bad, np.inf, rate))

