"""Stiff variants of a design study in one lockstep Radau IIA run.

A variant whose separate run takes the implicit method (analyses/dynamics/driver.py
``choose_method``: its force elements make it stiff) runs here with the others like it:
every array has a variant axis, and each variant keeps what its separate run keeps (its
time, step size, Gustafsson controller, Jacobian and its reuse, factorizations, Newton
iterations and their contraction, rejected steps, projection, output frames, long steps
with the collocation polynomial's dense output, the pose held at rest), so that its Result
equals that run's, with the same steps (measured: to the last bit, on the governor of
bench/bench_governor.py and a pendulum on a heavy damper).

Stacked: the right-hand sides (the five stages of all variants as one call, on a model
whose numbers are each variant's repeated five times); the constrained iteration matrices
[[M - hg C - hg^2 K, J^T], [J, 0]] (Hairer-Wanner IV.8; integrators/implicit.py), built
and inverted as one (V, n + nk, n + nk) array per eigenvalue of A^-1 for the variants
whose h or Jacobian changed; the simplified Newton iterations, masked per variant (one
that converged or failed stops changing); the constraint rows and mass matrices of new
Jacobians.  Per variant: the force Jacobians K, C (kernels/forces.py takes one state), the
controller's few scalar operations, the scalars that numpy's array arithmetic rounds
differently from the separate run's scalar arithmetic (complex h / lambda, powers).  The
projection after each step is stacked (Equations.project_many, which gives each variant
the bits of its separate run's projection: it normalizes the quaternions as
Equations.project does; before, the governor's reactions parted by 3e-9 relative in 1 s).

A variant that would leave the separate run's common path (its step collapsing, a singular
position, a projection that fails) leaves the lockstep run (None in its place) and runs
alone; the others go on.  study/engine.py ``_dynamics`` sends the stiff variants here and
the others to study/batch.py's explicit lockstep run, whose stacking (``stack_models``) and
group of variants (``_Group``: stacked equations, output frames, leaving) this run shares.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

import numpy as np

from ..analyses.dynamics.driver import LONG_STEP, SINGULAR_STEP, free_singular, long_proposal
from ..analyses.dynamics.equations import Equations
from ..analyses.structure import Structure, open_tree
from ..base.rotations import congruence, quat_multiply
from ..integrators.control import PredictiveControl
from ..integrators.implicit import (NEWTON_KAPPA, NEWTON_MAX, REFRESH_RATE, RadauIIA,
                                   all_force_jacobians, lagrange_basis)
from ..kernels.constraints import RowEval, body_arrays, evaluate, global_jacobian
from ..kernels.forces import force_jacobians
from ..model.compile import Model
from ..model.results import Result
from ..model.state import State
from .batch import _Fallback, _Group, stacked_starts
from .stack import stack_models


class _View(NamedTuple):
    """What PredictiveControl reads of one variant's stepper after its step."""
    newton_iterations: int
    keeps_matrix: bool
    newton_max: int = NEWTON_MAX


def _pow(x: np.ndarray, e: float) -> np.ndarray:
    """x ** e element by element as a float's power (C pow), as the separate run takes it
    (numpy's vectorized power may round differently in the last bit); x outside [0, 1)
    (a contraction that fails Newton anyway, whose power decides nothing) gives 1."""
    return np.array([float(a) ** e if 0.0 <= a < 1.0 else 1.0
                     for a in np.ravel(x)]).reshape(np.shape(x))


class _Radau:
    """Radau IIA (implicit.py ``RadauIIA``) for many variants at once: its coefficients from
    one RadauIIA, and each variant's own stepper state as a row of arrays: the Jacobian's
    ingredients (M, K, C, J, E, pn) and whether it is kept and fresh, the inverses of the
    iteration matrices and the h they are for, Newton's last contraction and iteration
    count, whether the last step was rejected, and the last accepted step (t, h, y0, Z)
    for starting values and dense output."""

    def __init__(self, rk: RadauIIA, own: Callable[[int], Equations], V: int, n: int, nb: int,
                 nk: int, stages: Callable) -> None:
        self.own, self.stages_rhs, self.rk = own, stages, rk
        self.s, self.order, self.name = rk.s, rk.order, rk.name
        self.mid = int(np.argmin(np.abs(rk.c - 0.5)))
        self.nq, self.nk = 6 * nb, nk
        N = self.nq + nk
        self.has_jac = np.zeros(V, dtype=bool)
        self.fresh = np.zeros(V, dtype=bool)
        self.h_fact = np.full(V, np.nan)
        self.rate = np.full(V, 1e-2)
        self.iters = np.zeros(V, dtype=int)
        self.rejected = np.zeros(V, dtype=bool)
        self.has_last = np.zeros(V, dtype=bool)
        self.last_t, self.last_h = np.zeros(V), np.ones(V)
        self.last_y, self.last_Z = np.zeros((V, n)), np.zeros((V, self.s, n))
        self.M = np.zeros((V, self.nq, self.nq))
        self.K, self.C = np.zeros_like(self.M), np.zeros_like(self.M)
        self.J = np.zeros((V, nk, self.nq))
        self.E, self.pn = np.zeros((V, nb, 3, 4)), np.zeros((V, nb, 4))
        self.inv = [np.zeros((V, N, N), dtype=float if k == rk.real else complex)
                    for k in rk.rep]
        self._fields = ("has_jac", "fresh", "h_fact", "rate", "iters", "rejected", "has_last",
                        "last_t", "last_h", "last_y", "last_Z", "M", "K", "C", "J", "E", "pn")

    def keep(self, mask: np.ndarray) -> None:
        """Go on with the variants ``mask``."""
        for name in self._fields:
            setattr(self, name, getattr(self, name)[mask])
        self.inv = [x[mask] for x in self.inv]

    def keeps_matrix(self, i: int) -> bool:
        """Variant i's next step reuses its Jacobian (RadauIIA.keeps_matrix)."""
        return bool(self.has_jac[i])

    def dense(self, theta, row: int) -> np.ndarray:
        """Variant ``row``'s last accepted step's collocation polynomial at theta (the
        separate run's RadauIIA.dense on that step)."""
        self.rk.last = (self.last_t[row], self.last_h[row], self.last_y[row], self.last_Z[row])
        return self.rk.dense(theta)

    def _hg(self, k: int, h: np.ndarray) -> np.ndarray:
        """h / lambda_k of each variant (RadauIIA._hg), a complex one as a scalar division
        per variant: numpy's array division of complex numbers rounds differently."""
        lam = self.rk.lam[k]
        if k == self.rk.real:
            return h / float(lam.real)
        return np.array([complex(float(x) / lam) for x in h])

    def _start(self, t, y, f0, h) -> np.ndarray:
        """Starting stage increments of every variant (RadauIIA._start): its last step's
        collocation polynomial extrapolated, or c_i h f0 on its first step."""
        rk = self.rk
        Z0 = rk.c[None, :, None] * h[:, None, None] * f0[:, None, :]
        on = np.flatnonzero(self.has_last)
        if on.size:
            tau = (t[on, None] + rk.c * h[on, None] - self.last_t[on, None]) / self.last_h[on, None]
            L = lagrange_basis(np.concatenate([[0.0], rk.c]), tau)
            Z0[on] = (self.last_y[on, None, :] + L[..., 1:] @ self.last_Z[on]) - y[on, None, :]
        return Z0

    def _jacobians(self, eq: Equations, rows: np.ndarray, t, y, Z0, h) -> None:
        """A new Jacobian (implicit.py ``Jacobian``) for the variants ``rows`` (their
        separate runs keep none): at the predicted middle of the step, or at its start on
        the first step.  The kept constraint rows J, the mass matrix M and the quaternion
        maps E of all variants at once on the stacked model; the force Jacobians K, C too
        (the same numbers as each variant's), but one at a time on each variant's own
        model with actuators, applied loads or compliant stops."""
        if not rows.size:
            return
        rk, m, nb = self.rk, eq.m, eq.nb
        ta = np.where(self.has_last, t + rk.c[self.mid] * h, t)
        ya = np.where(self.has_last[:, None], y + Z0[:, self.mid], y)
        r, p, v, w, _ = eq.unpack(ya)
        pn = p / np.linalg.norm(p, axis=-1, keepdims=True)
        rg, A, vg, wg = body_arrays(m, r, pn, v, w)
        ev = evaluate(m, rg, A, ref=eq.track)
        J = global_jacobian(m, ev.jac)[:, eq.keep]
        Iw = congruence(A[:, :nb], m.body_inertia)
        mass = np.broadcast_to(m.body_mass, (len(t), nb))
        M = np.zeros((len(rows), nb, 6, nb, 6))
        for b in range(nb):
            M[:, b, :3, b, :3] = mass[rows, b, None, None] * np.eye(3)
            M[:, b, 3:, b, 3:] = Iw[rows, b]
        self.M[rows] = M.reshape(len(rows), 6 * nb, 6 * nb)
        self.J[rows] = J[rows]
        self.pn[rows] = pn[rows]
        self.E[rows] = np.stack([quat_multiply(np.concatenate([[0.0], e]), pn[rows])
                                 for e in np.eye(3)], -2)
        stacked = None
        if len(rows) > 1 and m.limits is None:    # all variants' force Jacobians at once
            try:                                  # (the same numbers as one at a time)
                stacked = force_jacobians(m, ta, rg, A, vg, wg, eq.ts_ref)
            except (ValueError, FloatingPointError):   # actuators, loads: one at a time
                stacked = None
        for i in rows:
            if stacked is not None:
                self.K[i], self.C[i] = stacked[0][i], stacked[1][i]
                continue
            own = self.own(int(i))
            self.K[i], self.C[i] = all_force_jacobians(
                own.m, ta[i], rg[i], A[i], vg[i], wg[i], own.ts_ref,
                RowEval(ev.phi[i], ev.jac[i], None, None, None))
        self.has_jac[rows], self.fresh[rows], self.h_fact[rows] = True, True, np.nan

    def _factors(self, rows: np.ndarray, h, failed: np.ndarray) -> None:
        """The inverses of the iteration matrices (Jacobian.factor) of the variants ``rows``
        for their h, one stacked inversion per eigenvalue; a variant whose matrix is
        singular fails its step (as its separate run's does)."""
        nq = self.nq
        ok = np.ones(len(rows), dtype=bool)
        for j, k in enumerate(self.rk.rep):
            hg = self._hg(int(k), h[rows])
            hg2 = np.array([x * x for x in hg.tolist()])       # (as scalars, see _hg)
            N = nq + self.nk
            kkt = np.zeros((len(rows), N, N), dtype=self.inv[j].dtype)
            kkt[:, :nq, :nq] = (self.M[rows] - hg[:, None, None] * self.C[rows]
                                - hg2[:, None, None] * self.K[rows])
            kkt[:, :nq, nq:] = np.swapaxes(self.J[rows], 1, 2)
            kkt[:, nq:, :nq] = self.J[rows]
            try:
                self.inv[j][rows] = np.linalg.inv(kkt)
            except np.linalg.LinAlgError:        # which: one at a time
                for a, i in enumerate(rows):
                    try:
                        self.inv[j][i] = np.linalg.inv(kkt[a])
                    except np.linalg.LinAlgError:
                        ok[a] = False
        failed[rows[~ok]] = True
        self.h_fact[rows[ok]] = h[rows[ok]]

    def correction(self, eq: Equations, rows: np.ndarray, R: np.ndarray, hg, j: int) -> np.ndarray:
        """Jacobian.correction of the variants ``rows`` at once: dY with (I - hg dF/dy) dY =
        -R (implicit.py's module docstring), R (m, n) and hg (m,), with their j-th inverse."""
        nb = eq.nb
        m = len(rows)
        E, pn = self.E[rows], self.pn[rows]
        R_r, R_p, R_v, R_w, R_W = eq.unpack(R)
        R_phi = 2.0 * np.einsum("vbij,vbj->vbi", E, R_p)
        R_par = np.sum(R_p * pn, axis=-1)
        Rq = np.concatenate([R_r, R_phi], -1).reshape(m, -1)
        Rv = np.concatenate([R_v, R_w], -1).reshape(m, -1)
        hgc = hg[:, None]
        top = (-self.M[rows] @ Rv[..., None])[..., 0] - hgc * (self.K[rows] @ Rq[..., None])[..., 0]
        rhs = np.concatenate([top, -(self.J[rows] @ Rv[..., None])[..., 0]], -1)
        sol = (self.inv[j][rows] @ rhs[..., None])[..., 0]
        dv = sol[:, : 6 * nb]
        dq = (hgc * dv - Rq).reshape(m, nb, 6)
        dp = 0.5 * np.einsum("vbji,vbj->vbi", E, dq[..., 3:]) - R_par[..., None] * pn
        dv = dv.reshape(m, nb, 6)
        return eq.pack(dq[..., :3], dp, dv[..., :3], dv[..., 3:], -R_W)

    def _solve(self, eq: Equations, rows: np.ndarray, F, Z, h) -> np.ndarray:
        """The simplified Newton step dZ of the variants ``rows`` (RadauIIA._solve),
        transformed by T: one correction per real eigenvalue and complex pair of A^-1."""
        rk = self.rk
        W = rk.Tinv @ Z
        TF = rk.Tinv @ F
        dW = np.empty(W.shape, dtype=complex)
        for j, k in enumerate(rk.rep):
            hg = self._hg(int(k), h)
            lh = np.array([rk.lam[k] / float(x) for x in h])    # (as scalars, see _hg)
            rho = -lh[:, None] * W[:, k] + TF[:, k]
            dW[:, k] = self.correction(eq, rows, -hg[:, None] * rho, hg, j)
            if k != rk.partner[k]:
                dW[:, rk.partner[k]] = np.conj(dW[:, k])
        return (rk.T @ dW).real

    def step(self, eq: Equations, live: np.ndarray, t, y, f0, h,
             norm) -> tuple[np.ndarray, np.ndarray]:
        """One Radau IIA step of each variant ``live`` from (t, y) with its h (RadauIIA.step
        for each, with the stages and the linear algebra stacked): (ynew, err), err inf for a
        variant whose Newton failed (its h is halved, with a new Jacobian unless it is
        new), NaN for the others.  ``norm(e, y0, y1, rows)``: each variant's error norm."""
        rk, V = self.rk, len(t)
        ynew, err = y.copy(), np.full(V, np.nan)
        failed = np.zeros(V, dtype=bool)
        Z0 = self._start(t, y, f0, h)
        self._jacobians(eq, np.flatnonzero(live & ~self.has_jac), t, y, Z0, h)
        todo = live & ~failed & ~(self.h_fact == h)
        if todo.any():
            self._factors(np.flatnonzero(todo), h, failed)
        ts = t[:, None] + rk.c * h[:, None]
        act = live & ~failed
        x = Z0
        F, bad = self.stages_rhs(ts, y[:, None, :] + np.where(act[:, None, None], x, 0.0), act)
        failed |= bad
        act &= ~bad
        last = np.full(V, np.inf)
        rate0 = _pow(np.maximum(self.rate, 1e-3), 0.8)
        last_ratio = rate0.copy()
        conv = np.zeros(V, dtype=bool)
        stop = np.zeros(V, dtype=bool)            # Newton failed
        nit = self.iters.copy()
        theta_out = np.zeros(V)
        # algebra/newton.py ``newton`` with ``rate`` (step-only, predicted remaining error),
        # each variant its own iteration
        for it in range(NEWTON_MAX):
            top = act & (last <= NEWTON_KAPPA)
            conv |= top
            nit[top], theta_out[top] = it, 0.0
            act &= ~top
            if not act.any():
                break
            a = np.flatnonzero(act)
            dZ = self._solve(eq, a, F[a], x[a], h[a])
            x1 = x[a] + dZ
            e = norm(dZ, y[a, None, :], y[a, None, :] + x1, a)             # (m, s)
            s1 = np.sqrt(np.mean(e ** 2, axis=-1))
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                ratio = s1 / last[a] if it else rate0[a]
                theta = np.sqrt(ratio * last_ratio[a]) if it > 1 else ratio
                fail = (~np.isfinite(s1) | (theta >= 1.0)
                        | ((it > 1) & (_pow(theta, NEWTON_MAX - it - 1) / (1.0 - theta) * s1
                                       > NEWTON_KAPPA)))
                good = ~fail & (theta / (1.0 - theta) * s1 <= NEWTON_KAPPA)
            x = x.copy()
            x[a] = x1
            ended = fail | good
            nit[a[ended]], theta_out[a[ended]] = it + 1, theta[ended]
            conv[a[good]] = True
            stop[a[fail]] = True
            act[a[ended]] = False
            go = ~ended
            last_ratio[a[go]], last[a[go]] = ratio[go], s1[go]
            if act.any():
                Y = y[:, None, :] + np.where(act[:, None, None], x, 0.0)
                F1, bad = self.stages_rhs(ts, Y, act)
                F = np.where(act[:, None, None], F1, F)
                failed |= bad
                act &= ~bad
        else:
            conv |= act & (last <= NEWTON_KAPPA)
            stop |= act & ~(last <= NEWTON_KAPPA)
            nit[act], theta_out[act] = NEWTON_MAX, 0.0
        ran = conv | stop
        self.iters[ran] = nit[ran]
        failed |= stop
        ok = np.flatnonzero(conv & ~failed)
        if ok.size:
            hh = h[ok]
            self.rate[ok] = theta_out[ok]
            Z = x[ok]
            yn = y[ok] + Z[:, -1]
            dZ = rk.d @ Z
            e = (rk.gamma0 * hh)[:, None] * f0[ok] + dZ
            hg = self._hg(rk.real, hh)
            jr = int(np.flatnonzero(rk.rep == rk.real)[0])
            err_vec = self.correction(eq, ok, -e, hg, jr)
            er = norm(err_vec, y[ok], yn, ok)
            again = (er > 1.0) & (~self.has_last[ok] | self.rejected[ok])
            if again.any():
                # the estimate again from f at y + err (IV.8, RADAU5), as RadauIIA.step
                sel = np.zeros(V, dtype=bool)
                sel[ok[again]] = True
                Y = y.copy()
                Y[ok] = np.where(again[:, None], y[ok] + err_vec, y[ok])
                f1, bad = self.stages_rhs(t, Y, sel)
                e2 = (rk.gamma0 * hh)[:, None] * f1[ok] + dZ
                er2 = norm(self.correction(eq, ok, -e2, hg, jr), y[ok], yn, ok)
                er = np.where(again, er2, er)
                failed[ok[again & bad[ok]]] = True
            fine = ~failed[ok]
            ok, er, yn, Z, hh = ok[fine], er[fine], yn[fine], Z[fine], hh[fine]
            ynew[ok], err[ok] = yn, er
            rej = er > 1.0
            self.rejected[ok] = rej
            acc = ok[~rej]
            self.has_last[acc] = True
            self.last_t[acc], self.last_h[acc] = t[acc], hh[~rej]
            self.last_y[acc], self.last_Z[acc] = y[acc], Z[~rej]
            self.has_jac[acc] &= ~(self.rate[acc] > REFRESH_RATE)   # Newton slowed: rebuild
            self.fresh[acc] = False
        f = np.flatnonzero(failed & live)            # RadauIIA._failed
        self.rejected[f], self.rate[f] = True, 1e-2
        self.has_jac[f] &= self.fresh[f]
        err[f] = np.inf
        ynew[f] = y[f]
        return ynew, err


def batch_implicit(models: list[Model], st: Structure, starts: list[State], times: np.ndarray,
                   tolerance: float, progress: Callable[[int], Any] | None = None
                   ) -> list[Result | None] | None:
    """Forward dynamics of stiff variants (models of one topology, structure ``st``, each
    from its assembled start) by Radau IIA in lockstep, each as analyses/dynamics/driver.py's
    ``dynamic_run`` takes its implicit path; their Results (None for a variant that left
    the run: it then runs alone), or None when the batch cannot take them (then run them
    separately).  ``progress(variants' worth done)`` as the slowest variant passes each
    frame (False stops: SolverCancelled)."""
    V, F = len(models), len(times)
    if V < 2 or len(starts) != V or st is None:
        return None
    m0 = models[0]
    if m0.frictions is not None or (m0.limits is not None and not m0.limits.compliant.all()):
        return None                # events (impacts, sticking): each variant's own run
    stacked = stack_models(models, switched=True)
    if stacked is None:
        return None
    rtol = tolerance * 1e-2            # two decades under the goal, as dynamic_run's implicit path
    outs = [Result.empty(m, times, "dynamic") for m in models]
    seq: dict[str, Any] = {}            # the stages' equations (each variant's model s times)

    def own(i: int) -> Equations:       # variant i's own equations (its Jacobians)
        return g.own(i)

    def stages(ts: np.ndarray, Y: np.ndarray, act: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The right-hand sides at Y (V, [s,] n), times ts (V, [s]), of all variants in one
        call (those not ``act`` at a state that evaluates); a variant whose own evaluation
        raises LinAlgError is flagged (its separate run's step fails there)."""
        eq = g.eq
        if Y.ndim == 3:                  # stages: each variant's model repeated s times
            if seq.get("for") is not g.models:
                rep = stack_models([m for m in g.models for _ in range(Y.shape[1])],
                                   switched=True)
                if rep is None:
                    raise np.linalg.LinAlgError("the stages do not stack")
                seq["eq"], seq["for"] = Equations(rep, st), g.models
            eq = seq["eq"]
            eq.ts_ref = np.repeat(g.eq.ts_ref, Y.shape[1], axis=0)
            eq.track = None if g.eq.track is None else np.repeat(g.eq.track, Y.shape[1], axis=0)
        bad = np.zeros(len(Y), dtype=bool)
        try:
            return eq.rhs(ts.reshape(-1), Y.reshape(-1, Y.shape[-1])).reshape(Y.shape), bad
        except np.linalg.LinAlgError:     # which variant: each on its own model
            out = np.zeros(Y.shape)
            for i in np.flatnonzero(act):
                try:
                    out[i] = own(int(i)).rhs(ts[i], Y[i])
                except np.linalg.LinAlgError:
                    bad[i] = True
            return out, bad

    nb = models[0].nb
    radau = _Radau(RadauIIA(Equations(models[0], st)), own, V, 13 * nb + 1, nb, len(st.keep),
                   stages)
    for o in outs:
        o.method = radau.name
    try:
        g = _Group(models, st, outs, F, lambda rhs: radau, starts)
    except _Fallback:                  # not only numbers differ
        return None
    try:
        return _run(g, radau, models, st, times, tolerance, rtol, progress,
                    *stacked_starts(starts, float(times[0])))
    except (np.linalg.LinAlgError, FloatingPointError, ArithmeticError):
        return None


def _run(g, radau: _Radau, models: list[Model], st: Structure, times: np.ndarray,
         tolerance: float, rtol: float, progress, t, r, p, v, w) -> list[Result | None] | None:
    """batch_implicit's loop: dynamic_run's implicit path for every variant of ``g``."""
    V, F = len(models), len(times)
    outs = list(g.frames.outs)
    r, p, v, w, gone = _project(g, radau, np.ones(V, dtype=bool), t, r, p, v, w)
    if gone.any():                     # a singular start: each alone says so
        return None
    controls = [PredictiveControl(radau.order) for _ in range(V)]
    expo = controls[0].expo

    def norm(e, y0, y1, sel):
        """dynamic_run's error norm of each variant ``sel`` (e (m, ..., n))."""
        scale = g.scale[sel].reshape((len(sel),) + (1,) * (e.ndim - 2) + (-1,))
        sc = rtol * (scale[..., :-1] + np.maximum(np.abs(y0[..., :-1]), np.abs(y1[..., :-1])))
        x = np.sqrt(np.mean((e[..., :-1] / sc) ** 2, axis=-1))
        return np.where(np.isfinite(x), x, 1e10)

    frame = float(np.max(np.diff(times))) if F > 1 else 1.0
    t_end = float(times[-1])
    k = np.zeros(V, dtype=int)
    h = np.full(V, np.nan)
    grow = np.zeros(V)
    retry = np.full(V, np.nan)
    work = np.zeros(V)
    tree = open_tree(models[0])
    # (no long steps with tracked values or stops: dynamics.py)
    dense = models[0].ntrack == 0 and models[0].limits is None
    still = np.zeros(V, dtype=bool)
    long = np.zeros(V, dtype=bool)
    while True:
        # f(t, y) anew at every step (no first-same-as-last), as dynamic_run's implicit path
        y, f0, k, live, h = g.begin(t, r, p, v, w, work, k, h, times, tolerance, rtol, progress)
        if not live.any():
            break
        t_out = times[np.minimum(k, F - 1)]
        # a new step is cut to the next frame (PredictiveControl.trial), or runs past it
        # when the steps outgrow the frames; a retry takes the rejected step's proposal
        fresh = live & np.isnan(retry)
        long = np.where(fresh, fresh & dense & (tree | still) & (grow >= LONG_STEP * frame)
                        & (grow > t_out - t), long)
        left = t_out - t
        trial = np.where(left <= h, left, np.where(left < 2.0 * h, 0.5 * left, h))
        hs = np.where(long, np.minimum(grow, t_end - t), trial)
        hs = np.where(np.isnan(retry), hs, retry)
        hs = np.where(live, hs, 1.0)
        ynew, err = radau.step(g.eq, live, t, y, f0, hs, norm)
        ok = live & (err <= 1.0)
        bad = live & ~ok
        leave = np.zeros(len(t), dtype=bool)
        for i in np.flatnonzero(bad):
            view = _View(int(radau.iters[i]), radau.keeps_matrix(i))
            retry[i] = controls[i].rejected(float(hs[i]), float(err[i]), view)
            if retry[i] < SINGULAR_STEP * frame:
                # a singular position, or a step that collapsed: the separate run's
                leave[i] = bool(retry[i] < 1e-12 * max(1.0, abs(t[i])) or free_singular(
                    g.models[i], st, r[i], p[i]))
        if ok.any():
            t, r, p, v, w, k, h, grow, retry, work, still = _accept(
                g, radau, controls, ok, leave, expo, tree, times, tolerance, progress, hs, err,
                ynew, t, r, p, v, w, k, h, grow, retry, work, still)
        if leave.any():
            # (after the others' accepted steps: their steppers moved on already)
            if leave.all():
                return None
            radau.keep(~leave)
            g.keep(~leave)
            controls = [c for c, gone in zip(controls, leave) if not gone]
            (t, r, p, v, w, k, h, grow, retry, work, still, long) = (
                x[~leave] for x in (t, r, p, v, w, k, h, grow, retry, work, still, long))
    done = set(g.index.tolist())
    return [o if i in done else None for i, o in enumerate(outs)]


def _project(g, radau: _Radau, sel: np.ndarray, t, r, p, v, w):
    """Positions onto the constraints, then velocities, for the variants ``sel``: all at
    once (Equations.project_many, whose Newton gives each variant the bits of its separate
    run's projection, its tracked values kept in ``g.eq.track``), or, where one fails,
    each on its own equations (Equations.project) to tell which; (r, p, v, w, failed): a
    variant whose projection fails (a lock-up, a singular position) runs alone."""
    failed = np.zeros(len(t), dtype=bool)
    try:
        return g.project(t, r, p, v, w, sel) + (failed,)
    except np.linalg.LinAlgError:
        pass
    r, p, v, w = (x.copy() for x in (r, p, v, w))
    tracks = {}
    for i in np.flatnonzero(sel):
        try:
            own = radau.own(int(i))
            r[i], p[i], v[i], w[i] = own.project(
                float(t[i]), r[i].copy(), p[i].copy(), v[i].copy(), w[i].copy())
            tracks[i] = own.track
        except np.linalg.LinAlgError:
            failed[i] = True
    if g.eq.m.ntrack and tracks:
        if g.eq.track is None:
            g.eq.track = np.zeros((len(t), g.eq.m.ntrack))
        for i, q in tracks.items():
            g.eq.track[i] = q
    return r, p, v, w, failed


def _accept(g, radau: _Radau, controls: list, ok, leave, expo: float, tree: bool, times,
            tolerance, progress, hs, err, ynew, t, r, p, v, w, k, h, grow, retry, work, still):
    """The accepted steps ``ok``: the projection (a variant whose projection fails is put
    in ``leave``), each variant's next h from its controller (the implicit path takes every
    proposal), the proposal past the frames, the frames inside a long step and the torsion
    springs' turns, as dynamic_run after a step."""
    r1, p1, v1, w1, work1 = g.eq.unpack(ynew)
    r1, p1, v1, w1, gone = _project(g, radau, ok, t + hs, r1, p1, v1, w1)
    leave |= gone
    ok = ok & ~gone
    for i in np.flatnonzero(ok):
        view = _View(int(radau.iters[i]), radau.keeps_matrix(i))
        h[i] = controls[i].accepted(float(hs[i]), float(err[i]), view)
    for i in np.flatnonzero(ok):      # (one at a time: numpy's array power rounds differently)
        grow[i] = long_proposal(float(hs[i]), float(err[i]), expo)
    retry = np.where(ok, np.nan, retry)
    t, r, p, v, w, work, still, k = g.advance(ok, hs, t, r, p, v, w, work,
                                              (r1, p1, v1, w1, work1), still, tree, k, times,
                                              tolerance, progress)
    return t, r, p, v, w, k, h, grow, retry, work, still
