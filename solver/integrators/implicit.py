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
step and kept for the next steps while Newton contracts fast (rate <= 0.03: it is still
good; RADAU5's THET, 0.001 by default for small systems, "0.1, say" where Jacobians are
costly: this one, analytic, costs about three right-hand sides of five stages; on the
suspension sample, whose Newton contracts at 1e-3 to 1e-2, rebuilding past 0.001 built
257 Jacobians in its 431 steps, 18% of the solve, against 43 in 445 steps, its Newton
iterations 865 -> 929), else rebuilt; the factorizations are redone only when h changes
(the controller keeps h when the new one would be within a factor 1.2, as long as the
Jacobian is kept).  A turning mechanism's Jacobian in world axes turns with it, so there
it is rebuilt about every step.  Starting values extrapolate the last step's collocation
polynomial, never across a jump of the right-hand side (an event: ``restart`` forgets the
steps before).  Newton stops when the predicted remaining error rate / (1 - rate) |dZ| is
3e-4 of the local goal (algebra/newton.py's rule with ``rate``): the error it leaves is not
seen by the error estimate (made from the converged stages) and adds up step by step, so
it is held far under the goal.  At 0.1 of a goal two decades under the tolerance (1e-3 of
the tolerance) it set most of a run's error: the suspension sample's hub reaction 5.8e-9
of its largest in 444 steps, against 1.6e-9 in 324 steps with the goal a decade under the
tolerance and Newton held to 3e-5 of it (control.py ``local_tolerance``); a handwheel
bouncing off a compliant stop (tests/test_limit_turns.py) 3.5e-6 rad off, against 5.7e-7
(1.4e-5 with Newton held to 1e-3 of that goal, 1.2e-5 to 5e-4).  The error estimate is the
embedded formula of order s with the real eigenvalue's factor, filtered by that system
(IV.8, step size selection; RADAU5 does this for s = 3), so that stiff components the step
does not resolve do not force tiny steps.

Over a leading variant axis (``RadauIIA``): every array has one, and each variant keeps its
own time, step size, Jacobian and its reuse, factorizations, Newton iterations (masked: one
that converged or failed stops changing) and rejected steps, so that a design study's stiff
variants in lockstep (study/lockstep.py) take the steps of their separate runs, which are the
same stepper with V = 1 (``RadauStepper``); the iteration matrices are radau_matrix.py's.
"""
from __future__ import annotations

import numpy as np

from typing import Any

from ..algebra.newton import contraction_verdict, powers
from ..base.elementary import exp, log
from ..kernels.constraints import body_arrays, evaluate, global_jacobian
from .radau_matrix import IterationMatrices, all_force_jacobians, hg_of


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
    flat = np.reshape(tau, -1)
    L = np.ones(flat.shape + (len(nodes),))
    for j in range(len(nodes)):
        for m in range(len(nodes)):
            if m != j:
                L[:, j] *= (flat - nodes[m]) / (nodes[j] - nodes[m])
    return L.reshape(np.shape(tau) + (len(nodes),))


def _index(rows: np.ndarray, V: int):
    """``rows`` (sorted, distinct) of V as an index: a slice when they are all of them (a
    view, no copy: the usual case, and a single run's always)."""
    return slice(None) if len(rows) == V else rows


STAGES = 5
NEWTON_KAPPA = 3e-4          # stop when the predicted Newton error is this part of the goal
NEWTON_MAX = 7               # iterations before the step is retried with h / 2 (RADAU5's NIT)
REFRESH_RATE = 3e-2          # rebuild the Jacobian after a step whose Newton contracted slower
#                              (RADAU5's THET; see the module docstring)


def _only(act: np.ndarray, x: np.ndarray) -> np.ndarray:
    """x (V, ...) where ``act``, 0 elsewhere."""
    return x if act.all() else np.where(act.reshape(act.shape + (1,) * (x.ndim - 1)), x, 0.0)


class RadauIIA:
    """Radau IIA steps of V variants at once, each with its own time, step size, Jacobian
    and its reuse, factorizations, Newton iterations and their contraction, rejected steps
    and last collocation polynomial (see the module docstring), each variant's numbers
    those of its separate run: a single run is V = 1 (``RadauStepper``), a design study's
    stiff variants in lockstep V > 1 (study/lockstep.py).

    ``system``: ``eq``, the equations (Equations; a study's stacked over the variants),
    ``stages(ts, Y, act) -> (F, bad)``, the right-hand sides at Y (V, [s,] n), times ts
    (V, [s]), of all variants in one call (those not ``act`` at a state that evaluates),
    ``bad`` (V,) the variants whose own evaluation raised LinAlgError (their steps fail),
    and ``own(i)``: variant i's own equations (its force Jacobians)."""

    def __init__(self, system: Any, V: int, stages: int = STAGES) -> None:
        self.system = system
        self.s = stages
        self.order = stages           # of the error estimate: step factor err^(-1/(s+1))
        self.name = f"implicit Radau IIA order {2 * stages - 1}, L-stable"
        self.c, self.A, lam, T, self.gamma0, self.d = radau_iia(stages)
        # one eigenvalue per real one and per complex pair (imaginary part > 0)
        self.lam, self.T, self.Tinv = lam, T, np.linalg.inv(T)
        self.rep = np.array([k for k in range(stages) if lam[k].imag >= -1e-12 * abs(lam[k])])
        self.real = int(np.argmin(np.abs(lam.imag)))
        self.partner = np.array([int(np.argmin(np.abs(lam - np.conj(lam[k]))))
                                 for k in range(stages)])
        self.jr = int(np.flatnonzero(self.rep == self.real)[0])     # its inverse's index
        self.mid = int(np.argmin(np.abs(self.c - 0.5)))
        self.nodes = np.concatenate([[0.0], self.c])
        self.newton_max = NEWTON_MAX
        self.mat = IterationMatrices(V, [float if k == self.real else complex for k in self.rep])
        n = 13 * system.eq.nb + 1
        self.has_jac = np.zeros(V, dtype=bool)    # a Jacobian kept for the next step
        self.fresh = np.zeros(V, dtype=bool)      # ... built at this step's start
        self.h_fact = np.full(V, np.nan)          # the h its factorizations are for
        self.rate = np.full(V, 1e-2)              # Newton's last contraction
        self.iters = np.zeros(V, dtype=int)       # ... and its iterations
        self.rejected = np.zeros(V, dtype=bool)
        self.has_last = np.zeros(V, dtype=bool)   # the last accepted step (t, h, y0, Z)
        self.last_t, self.last_h = np.zeros(V), np.ones(V)
        self.last_y, self.last_Z = np.zeros((V, n)), np.zeros((V, stages, n))
        self.f_start = None                       # f(t, y) a step took with its stages

    _FIELDS = ("has_jac", "fresh", "h_fact", "rate", "iters", "rejected", "has_last",
               "last_t", "last_h", "last_y", "last_Z")

    def keep(self, mask: np.ndarray) -> None:
        """Go on with the variants ``mask`` (V,) (a study's variant that leaves runs alone)."""
        for name in self._FIELDS:
            setattr(self, name, getattr(self, name)[mask])
        self.mat.keep(mask)

    def keeps_matrix(self, i: int) -> bool:
        """Variant i's next step reuses its Jacobian (so keeping h keeps the factorizations)."""
        return bool(self.has_jac[i])

    def copy_row(self, i: int, other: "RadauIIA", j: int) -> None:
        """Variant i's memory of its steps (Jacobian, factorizations, Newton's rate and
        iterations, the last step's collocation polynomial) taken from ``other``'s variant
        j: a study's variant whose steps go on in another stepper (study/lockstep.py: its
        own for an event's re-steps, the group's on the common path) as in one."""
        for name in self._FIELDS:
            getattr(self, name)[i] = getattr(other, name)[j]
        if other.has_jac[j]:
            self.mat.copy_row(i, other.mat, j)

    def restart(self, i: int) -> None:
        """Variant i's right-hand side jumped where its next step starts (an impact, a slip
        reversal, a breakpoint): the steps before it are forgotten, as at a run's start.  Its
        last collocation polynomial extrapolated across the jump is a wrong starting guess,
        and Newton's last rate, small on the smooth steps before, would stop the first
        iteration on it (a slider's reversal at a dead centre lost 2.2e-6 of its energy in
        one accepted step); its Jacobian and factorizations are of the system before."""
        self.has_last[i] = self.has_jac[i] = self.fresh[i] = self.rejected[i] = False
        self.h_fact[i], self.rate[i] = np.nan, 1e-2

    def dense(self, theta, row: int = 0) -> np.ndarray:
        """Variant ``row``'s y at t + theta h within its last accepted step (theta in [0, 1],
        or an array of them: (F, n)): the step's collocation polynomial u (u(0) = y0, u(c_i)
        = y0 + Z_i), of order s = 5 there (the step's result, theta = 1, is of order
        2s - 1), exact at both ends (Hairer-Wanner IV.5, "continuous output")."""
        tau = np.atleast_1d(np.asarray(theta, dtype=float))
        L = lagrange_basis(self.nodes, tau)
        out = self.last_y[row][None, :] + L[:, 1:] @ self.last_Z[row]
        return out if np.ndim(theta) else out[0]

    def _hg(self, k: int, h: np.ndarray) -> np.ndarray:
        return hg_of(self.lam[k], k == self.real, h)

    def _start(self, t, y, f0, h) -> np.ndarray:
        """Starting stage increments (V, s, n): each variant's last step's collocation
        polynomial extrapolated to this step's nodes, relative to this y (after the
        projection); on its first step c_i h f0."""
        on = self.has_last.nonzero()[0]
        if on.size < len(t):
            Z0 = self.c[None, :, None] * h[:, None, None] * f0[:, None, :]
        else:
            Z0 = np.empty((len(t), self.s, y.shape[-1]))
        if on.size:
            tau = ((t[on, None] + self.c * h[on, None] - self.last_t[on, None])
                   / self.last_h[on, None])
            L = lagrange_basis(self.nodes, tau)
            Z0[on] = (self.last_y[on, None, :] + L[..., 1:] @ self.last_Z[on]) - y[on, None, :]
        return Z0

    def _jacobians(self, rows: np.ndarray, t, y, Z0, h, failed: np.ndarray) -> None:
        """A new Jacobian for the variants ``rows`` (none kept): at the predicted middle of
        the step, or at its start on a variant's first step.  A single variant whose
        evaluation there raises LinAlgError fails its step (several: handed up, which one
        is not known)."""
        if not rows.size:
            return
        ta = np.where(self.has_last, t + self.c[self.mid] * h, t)
        ya = np.where(self.has_last[:, None], y + Z0[:, self.mid], y)
        try:
            self.mat.build(self.system, rows, ta, ya)
        except np.linalg.LinAlgError:
            if len(rows) > 1:
                raise
            failed[rows] = True
            return
        self.has_jac[rows], self.fresh[rows], self.h_fact[rows] = True, True, np.nan

    def _factors(self, rows: np.ndarray, h, scalars, failed: np.ndarray) -> None:
        """The factorizations of the variants ``rows`` for their h (``scalars``: the
        step's ``_scalars``)."""
        ix = _index(rows, len(h))
        ok = self.mat.factor(rows, [hg[ix] for hg, _, _ in scalars])
        failed[rows[~ok]] = True
        self.h_fact[rows[ok]] = h[rows[ok]]

    def _scalars(self, h: np.ndarray) -> list[tuple[np.ndarray, ...]]:
        """hg = h / lambda_k (V,), -hg and -lambda_k / h (V, 1) of every variant for each
        eigenvalue's system (as scalars: radau_matrix.hg_of), once a step."""
        out = []
        for k in self.rep:
            hg = self._hg(int(k), h)
            lh = np.array([self.lam[k] / float(x) for x in h])
            out.append((hg, -hg[:, None], -lh[:, None]))
        return out

    def _solve(self, rows: np.ndarray, ix, F, Z, scalars) -> np.ndarray:
        """The simplified Newton step dZ of the variants ``rows`` (``ix``: their index, a
        slice when all) from F(y0 + Z) (m, s, n), transformed by T: one correction per real
        eigenvalue and complex pair of A^-1 (``scalars``: the step's ``_scalars`` of these
        variants)."""
        eq = self.system.eq
        W = self.Tinv @ Z
        TF = self.Tinv @ F
        dW = np.empty(W.shape, dtype=complex)
        for j, k in enumerate(self.rep):
            hg, neg_hg, neg_lh = scalars[j]
            rho = neg_lh * W[:, k] + TF[:, k]
            dW[:, k] = self.mat.correction(eq, rows, neg_hg * rho, hg, j)
            if k != self.partner[k]:
                dW[:, self.partner[k]] = np.conj(dW[:, k])
        return (self.T @ dW).real

    def _first(self, act: np.ndarray, ts, y, x, t0):
        """The right-hand sides (V, s, n) at the starting stages y + x, and f(t0, y) (V, n)
        with them, one stack of s + 1 states a variant, when ``t0`` (V,) is given (else
        None): a right-hand side's numpy calls cost about as much for one state as for six,
        so f at the step's start comes almost free with its first stages; ``bad`` (V,)."""
        Y = y[:, None, :] + _only(act, x)
        if t0 is None:
            F, bad = self.system.stages(ts, Y, act)
            return F, None, bad
        F, bad = self.system.stages(np.concatenate([t0[:, None], ts], axis=1),
                                    np.concatenate([y[:, None, :], Y], axis=1), act)
        return F[:, 1:], F[:, 0], bad

    def _newton(self, act: np.ndarray, ts, y, h, Z0, norm, scalars, failed: np.ndarray,
                t0=None):
        """The stage increments Z (V, s, n) of the variants ``act`` by simplified Newton,
        each variant its own iteration by algebra/newton.py's rule with ``rate``
        (step-only, the predicted remaining error: converged when theta / (1 - theta) |dZ|
        <= NEWTON_KAPPA, failed when theta >= 1 or, from the third step, theta^(steps left)
        / (1 - theta) |dZ| > NEWTON_KAPPA), one masked right-hand side call for all.
        Returns (Z, converged, its contraction, f(t0, y)): the last taken with the first
        stages when ``t0`` is given (``_first``; else None); the variants whose Newton
        failed or whose stages did not evaluate are set in ``failed``."""
        V = len(h)
        x = Z0
        conv, theta_out = np.zeros(V, dtype=bool), np.zeros(V)
        if not act.any():                 # (every variant's step failed already)
            return x, conv, theta_out, None
        F, f0, bad = self._first(act, ts, y, x, t0)
        failed |= bad
        act = act & ~bad
        last = np.full(V, np.inf)
        rate0 = powers(np.maximum(self.rate, 1e-3), 0.8)
        last_ratio = rate0
        stop = np.zeros(V, dtype=bool)
        nit = self.iters.copy()
        s1 = np.full(V, np.nan)
        for it in range(NEWTON_MAX):
            top = act & (last <= NEWTON_KAPPA)
            if top.any():
                conv |= top
                nit[top], theta_out[top] = it, 0.0
                act &= ~top
            a = act.nonzero()[0]
            if not a.size:
                break
            ix = _index(a, V)
            ya = y[ix, None, :]
            sc = scalars if a.size == V else [tuple(x[a] for x in s) for s in scalars]
            dZ = self._solve(a, ix, F[ix], x[ix], sc)
            x1 = x[ix] + dZ
            e2 = norm(dZ, ya, ya + x1, ix) ** 2                # (m, s): RMS over the stages
            s1[ix] = np.sqrt(np.add.reduce(e2, axis=-1) / e2.shape[-1])
            # each variant's contraction (the others' numbers are not used)
            ratio, theta, good, fail = contraction_verdict(it, s1, last, rate0, last_ratio,
                                                           NEWTON_MAX - it - 1, NEWTON_KAPPA)
            good, fail = act & good, act & fail
            if a.size == V:
                x = x1
            else:
                x = x.copy()
                x[a] = x1
            ended = fail | good
            nit, theta_out = np.where(ended, it + 1, nit), np.where(ended, theta, theta_out)
            conv |= good
            stop |= fail
            act &= ~ended
            last_ratio, last = np.where(act, ratio, last_ratio), np.where(act, s1, last)
            if act.any():
                F1, bad = self.system.stages(ts, y[:, None, :] + _only(act, x), act)
                F = F1 if act.all() else np.where(act[:, None, None], F1, F)
                failed |= bad
                act &= ~bad
        else:
            conv |= act & (last <= NEWTON_KAPPA)
            stop |= act & ~(last <= NEWTON_KAPPA)
            nit[act], theta_out[act] = NEWTON_MAX, 0.0
        ran = conv | stop
        self.iters[ran] = nit[ran]
        failed |= stop
        return x, conv, theta_out, f0

    def _estimate(self, ok: np.ndarray, io, t, y, f0, h, Z, yn, norm, scalars,
                  failed: np.ndarray) -> np.ndarray:
        """The error norms of the variants ``ok`` (m,) (``io``: their index): the embedded
        estimate e = gamma0 h f0 + sum d_i Z_i filtered by the real eigenvalue's system
        (IV.8, step size selection), and where that exceeds 1 on a variant's first step or
        after its rejection, again from f at y + err (RADAU5: robust when y is off the slow
        manifold); a variant whose f there does not evaluate fails."""
        hh = h[io]
        dZ = self.d @ Z
        e = (self.gamma0 * hh)[:, None] * f0[io] + dZ
        hg = scalars[self.jr][0][io]
        eq = self.system.eq
        err_vec = self.mat.correction(eq, ok, -e, hg, self.jr)
        er = norm(err_vec, y[io], yn, io)
        again = (er > 1.0) & (~self.has_last[io] | self.rejected[io])
        if again.any():
            sel = np.zeros(len(t), dtype=bool)
            sel[ok[again]] = True
            Y = y.copy()
            Y[ok] = np.where(again[:, None], y[ok] + err_vec, y[ok])
            f1, bad = self.system.stages(t, Y, sel)
            e2 = (self.gamma0 * hh)[:, None] * f1[ok] + dZ
            er2 = norm(self.mat.correction(eq, ok, -e2, hg, self.jr), y[io], yn, io)
            er = np.where(again, er2, er)
            failed[ok[again & bad[ok]]] = True
        return er

    def step(self, t: np.ndarray, y: np.ndarray, f0: np.ndarray, h: np.ndarray, norm,
             live: np.ndarray | None = None, cap: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
        """One step of each variant ``live`` (all when None) from (t (V,), y (V, n)) with
        its h (V,), f0 = f(t, y) (no first-same-as-last; None: taken with the first stages,
        ``_first``, every live variant having a last step to start from, and kept in
        ``f_start``): (ynew, err) (V, n), (V,), err
        inf for a variant whose Newton failed (retry with h / 2, with a new Jacobian unless
        it is new), NaN for the others.  ``norm(e, y0, y1, rows)``: each variant's error
        norm (control.ErrorNorm); ``cap`` (V,): no stage time past it (explicit.py
        ``stages``)."""
        V = len(t)
        live = np.ones(V, dtype=bool) if live is None else live
        ynew, err = y.copy(), np.full(V, np.nan)
        failed = np.zeros(V, dtype=bool)
        Z0 = self._start(t, y, f0, h)
        self._jacobians((live & ~self.has_jac).nonzero()[0], t, y, Z0, h, failed)
        scalars = self._scalars(h)
        todo = live & ~failed & ~(self.h_fact == h)
        if todo.any():
            self._factors(todo.nonzero()[0], h, scalars, failed)
        ts = t[:, None] + self.c * h[:, None]
        if cap is not None:
            ts = np.minimum(ts, cap[:, None])
        t0 = t if f0 is None else None
        x, conv, theta, f1 = self._newton(live & ~failed, ts, y, h, Z0, norm, scalars,
                                          failed, t0)
        if t0 is not None:
            f0 = self.f_start = f1
        ok = (conv & ~failed).nonzero()[0]
        if ok.size:
            io = _index(ok, V)
            self.rate[io] = theta[io]
            yn = y[io] + x[io, -1]
            er = self._estimate(ok, io, t, y, f0, h, x[io], yn, norm, scalars, failed)
            fine = ~failed[ok]
            if not fine.all():
                ok, er, yn = ok[fine], er[fine], yn[fine]
                io = _index(ok, V)
            ynew[io], err[io] = yn, er
            rej = er > 1.0
            self.rejected[io] = rej
            acc = ok[~rej]
            ia = _index(acc, V)
            self.has_last[ia] = True
            self.last_t[ia], self.last_h[ia] = t[ia], h[ia]
            self.last_y[ia], self.last_Z[ia] = y[ia], x[ia]
            self.has_jac[ia] &= ~(self.rate[ia] > REFRESH_RATE)   # Newton slowed: rebuild
            self.fresh[ia] = False
        f = (failed & live).nonzero()[0]    # Newton failed: a new Jacobian (unless new), h / 2
        if f.size:
            self.rejected[f], self.rate[f] = True, 1e-2
            self.has_jac[f] &= self.fresh[f]
            err[f] = np.inf
            ynew[f] = y[f]
        return ynew, err


class _OneRun:
    """A single run's equations as RadauIIA's system (V = 1, the model without a variant
    axis): its right-hand side, with the stages as one call as the run evaluates them."""

    def __init__(self, sysm: Any) -> None:
        self.eq = sysm

    def own(self, i: int) -> Any:
        return self.eq

    def stages(self, ts: np.ndarray, Y: np.ndarray, act: np.ndarray):
        bad = np.zeros(1, dtype=bool)
        try:
            if Y.ndim == 3:
                return self.eq.rhs(ts[0], Y[0])[None], bad
            return self.eq.rhs(float(ts[0]), Y[0])[None], bad
        except np.linalg.LinAlgError:
            return np.zeros(Y.shape), ~bad


class RadauStepper:
    """RadauIIA for one run (analyses/dynamics/driver.py, its events' re-steps): V = 1 with
    float t, h and states (n,); what the step control reads (``newton_iterations``,
    ``newton_max``, ``keeps_matrix``) and the dense output of the last accepted step."""

    k_end = None                     # no first-same-as-last: f(t, y) is taken anew
    takes_f0 = True                  # ... with the step's first stages when not given

    def __init__(self, sysm: Any, stages: int = STAGES) -> None:
        self.radau = RadauIIA(_OneRun(sysm), 1, stages)
        self.order, self.name, self.newton_max = self.radau.order, self.radau.name, NEWTON_MAX

    @property
    def keeps_matrix(self) -> bool:
        return self.radau.keeps_matrix(0)

    def restart(self) -> None:
        """The right-hand side jumped at the next step's start (RadauIIA.restart)."""
        self.radau.restart(0)

    @property
    def newton_iterations(self) -> int:
        return int(self.radau.iters[0])

    def step(self, t: float, y: np.ndarray, f0: np.ndarray | None, h: float, norm,
             cap: float | None = None) -> tuple[np.ndarray, float]:
        """RadauIIA.step of the one run; f0 None: f(t, y) taken with the step's first
        stages (``f_start`` after it, for the trials from the same start), or alone where
        the step has no last step to start from or its stages did not evaluate (so that a
        singular f(t, y) raises LinAlgError, as the driver's own call of it does)."""
        eq = self.radau.system.eq
        if f0 is None and not self.radau.has_last[0]:
            f0 = eq.rhs(t, y)
        self.f_start = f0
        ynew, err = self.radau.step(np.array([t]), y[None], None if f0 is None else f0[None],
                                    np.array([h]), norm,
                                    cap=None if cap is None else np.array([cap]))
        if f0 is None:               # (a failed step's stages may not have evaluated)
            f1 = self.radau.f_start
            failed = f1 is None or not np.isfinite(err[0])
            self.f_start = eq.rhs(t, y) if failed else f1[0]
        return ynew[0], float(err[0])

    def dense(self, theta) -> np.ndarray:
        return self.radau.dense(theta)


DENSE_RATE = 96     # coordinates up to which stiffness_rate solves the eigenvalues densely


def stiffness_rate(sysm, t: float, r, p, v, w, iterations: int = 60,
                   dense_up_to: int = DENSE_RATE) -> float:
    """Fastest rate (1/s) of the constrained system's motion under the force elements'
    stiffness and damping: the spectral radius of the first-order system
        d/dt [x, u] = [[0, I], [S K, S C]] [x, u],
    S = M^-1 - M^-1 J^T (J M^-1 J^T)^-1 J M^-1 the constrained inverse mass and K, C the
    analytic force Jacobians, whose eigenvalues solve det(lambda^2 - lambda S C - S K) = 0
    on the constrained motions: sqrt(k/m) for an undamped spring, c/m for a heavy damper
    (overdamped: the fast root ~ -c/m whatever k is).  Power iteration with the growth
    averaged over the iterations (a complex pair does not settle on one direction; its norm
    grows like |lambda|^n); a cheap estimate for choosing the integrator.  Up to
    ``dense_up_to`` coordinates the companion matrix is formed and its eigenvalues solved
    (one LAPACK call, exact: the 180 products of the iteration cost more below that)."""
    m = sysm.m
    rg, A, vg, wg = body_arrays(m, r, p, v, w)
    ev = evaluate(m, rg, A, ref=sysm.run.track)
    K, C = all_force_jacobians(m, t, rg, A, vg, wg, sysm.run.ts_ref, ev,
                               sysm.run.limit_ref)
    if not (np.any(K) or np.any(C)):
        return 0.0
    J = global_jacobian(m, ev.jac)[sysm.keep]
    Mi = sysm.minv(A[: sysm.nb])
    MiJt = sysm._apply_minv(Mi, J.T.copy())
    G = np.linalg.pinv(J @ MiJt) if J.size else np.zeros((0, 0))

    def S(x: np.ndarray) -> np.ndarray:       # (a vector (n,) or the columns of (n, k))
        y = sysm._apply_minv(Mi, x if x.ndim > 1 else x[:, None])
        y = y - MiJt @ (G @ (J @ y)) if J.size else y
        return y if x.ndim > 1 else y[:, 0]

    def radius(apply, n: int) -> float:
        return spectral_radius(apply, n, iterations)

    n = K.shape[0]
    if n <= dense_up_to:
        SI = S(np.eye(n))
        top = np.block([[np.zeros((n, n)), np.eye(n)], [SI @ K, SI @ C]])
        lam = np.abs(np.linalg.eigvals(top))
        return float(lam.max()) if np.all(np.isfinite(lam)) else np.inf
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
        logs[k] = log(np.where(ok, g, 1.0))
        X = np.where(ok[:, None], Y / np.where(ok, g, 1.0)[:, None], X)
    rate = exp(np.mean(logs[iterations // 3:], axis=0))
    return np.where(zero, 0.0, np.where(bad, np.inf, rate))

