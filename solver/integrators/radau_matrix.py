"""Radau IIA's constrained iteration matrices over a leading variant axis (implicit.py).

For each variant (a single run is V = 1; a design study's stiff variants V > 1) the
ingredients at one state: the kept constraint rows J (nk, 6 nb), the force Jacobians K =
dQ/dq and C = dQ/dv (analytic, kernels/forces.py), the mass matrix M (6 nb, 6 nb, world
axes), the unit quaternions pn and E (nb, 3, 4), E R_p = vector part of R_p * conj(p) (so
that a small world turn dpi moves p by E^T dpi / 2); the inverses of

    [ M - hg C - hg^2 K   J^T ]
    [ J                   0   ]

for hg = h / lambda_k, one per real eigenvalue and complex pair of A^-1 (Hairer-Wanner IV.8,
simplified Newton iterations), and the correction they give (implicit.py's module
docstring).  The scalars hg, hg^2 and lambda_k / h are taken one variant at a time as
Python numbers (``hg_of``, ``squares``): numpy's array arithmetic on complex numbers may
round differently in the last bit, and a variant of a study must take its separate run's
bits.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.rotations import congruence, quat_multiply
from ..kernels.constraints import RowEval, body_arrays, evaluate, global_jacobian
from ..kernels.forces import force_jacobians
from ..kernels.stop_forces import stop_jacobians


def all_force_jacobians(m, t, rg, A, vg, wg, ts_ref, ev,
                        limit_ref=None) -> tuple[np.ndarray, np.ndarray]:
    """K = dQ/dq, C = dQ/dv (6 nb, 6 nb) of the force elements and the compliant stops at
    one state (the stops' angles on the turns nearest ``limit_ref``)."""
    K, C = force_jacobians(m, t, rg, A, vg, wg, ts_ref)
    stops = stop_jacobians(m, ev.phi, ev.jac, np.concatenate([vg, wg], axis=-1), limit_ref)
    if stops is not None:
        K, C = K + stops[0], C + stops[1]
    return K, C


def hg_of(lam: complex, real: bool, h: np.ndarray) -> np.ndarray:
    """h / lambda of each variant's h (V,): real for the real eigenvalue, else complex, each
    a scalar division (see the module docstring)."""
    if real:
        return h / float(lam.real)
    return np.array([complex(float(x) / lam) for x in h])


def squares(x: np.ndarray) -> np.ndarray:
    """x * x of each element as a Python number (see the module docstring)."""
    return np.array([a * a for a in x.tolist()])


class IterationMatrices:
    """Each variant's ingredients and inverses (see the module docstring), as rows of
    arrays; ``dtypes``: one per inverse (float for the real eigenvalue, complex for a
    pair).  Built for some variants at a time (``build``), the others keep theirs."""

    def __init__(self, V: int, dtypes: list) -> None:
        self.V, self.dtypes = V, dtypes
        self.M = self.K = self.C = self.J = self.E = self.pn = None
        self.inv: list[np.ndarray] = []

    def _allocate(self, nb: int, nk: int) -> None:
        V, nq = self.V, 6 * nb
        self.M = np.zeros((V, nq, nq))
        self.K, self.C = np.zeros_like(self.M), np.zeros_like(self.M)
        self.J = np.zeros((V, nk, nq))
        self.E, self.pn = np.zeros((V, nb, 3, 4)), np.zeros((V, nb, 4))
        self.inv = [np.zeros((V, nq + nk, nq + nk), dtype=d) for d in self.dtypes]

    def keep(self, mask: np.ndarray) -> None:
        """Go on with the variants ``mask``."""
        self.V = int(np.count_nonzero(mask))
        if self.M is None:
            return
        for name in ("M", "K", "C", "J", "E", "pn"):
            setattr(self, name, getattr(self, name)[mask])
        self.inv = [x[mask] for x in self.inv]

    def copy_row(self, i: int, other: "IterationMatrices", j: int) -> None:
        """Variant i's matrices and inverses from ``other``'s variant j, which has them
        (RadauIIA.copy_row: its ``has_jac``), for the same kept rows."""
        if self.J is None:
            self._allocate(other.E.shape[1], other.J.shape[1])
        elif self.J.shape[1:] != other.J.shape[1:]:
            raise ValueError("a variant's iteration matrices are for other kept rows")
        for name in ("M", "K", "C", "J", "E", "pn"):
            getattr(self, name)[i] = getattr(other, name)[j]
        for mine, theirs in zip(self.inv, other.inv):
            mine[i] = theirs[j]

    def build(self, system: Any, rows: np.ndarray, ta: np.ndarray, ya: np.ndarray) -> None:
        """The ingredients of the variants ``rows`` at their times ta (V,) and states ya
        (V, n) (the others' entries are computed and dropped: the stacked model evaluates
        every variant).  J, M and E of all at once; K, C too where the stacked force
        elements allow (two or more variants, no compliant stops), else one variant at a
        time on its own equations (``system.own(i)``).  The kept rows are the equations'
        now: a run whose kept rows changed (a stop resting, a joint sticking) has every
        variant's matrices rebuilt at once (it is one run)."""
        eq = system.eq
        m, nb, nk = eq.m, eq.nb, len(eq.keep)
        if self.J is None:
            self._allocate(nb, nk)
        elif self.J.shape[1] != nk:
            if len(rows) != self.V:
                raise ValueError("the kept rows changed for some variants only")
            self._allocate(nb, nk)
        r, p, v, w, _ = eq.unpack(ya)
        pn = p / np.linalg.norm(p, axis=-1, keepdims=True)
        rg, A, vg, wg = body_arrays(m, r, pn, v, w)
        ev = evaluate(m, rg, A, ref=eq.run.track)
        J = global_jacobian(m, ev.jac)[:, eq.keep]
        Iw = congruence(A[:, :nb], m.body_inertia)
        mass = np.broadcast_to(m.body_mass, (len(ta), nb))
        idx = np.arange(nb)
        M = np.zeros((len(rows), nb, 6, nb, 6))
        M[:, idx, :3, idx, :3] = mass[rows].T[:, :, None, None] * np.eye(3)
        M[:, idx, 3:, idx, 3:] = np.swapaxes(Iw[rows], 0, 1)
        self.M[rows] = M.reshape(len(rows), 6 * nb, 6 * nb)
        self.J[rows] = J[rows]
        self.pn[rows] = pn[rows]
        self.E[rows] = np.stack([quat_multiply(np.concatenate([[0.0], e]), pn[rows])
                                 for e in np.eye(3)], -2)
        stacked = None
        if len(rows) > 1 and m.limits is None:    # all variants' force Jacobians at once
            try:                                  # (the same numbers as one at a time)
                stacked = force_jacobians(m, ta, rg, A, vg, wg, eq.run.ts_ref)
            except (ValueError, FloatingPointError):   # actuators, loads: one at a time
                stacked = None
        for i in rows:
            if stacked is not None:
                self.K[i], self.C[i] = stacked[0][i], stacked[1][i]
                continue
            own = system.own(int(i))
            self.K[i], self.C[i] = all_force_jacobians(
                own.m, ta[i], rg[i], A[i], vg[i], wg[i], own.run.ts_ref,
                RowEval(ev.phi[i], ev.jac[i], None, None, None), own.run.limit_ref)

    def factor(self, rows: np.ndarray, hgs: list[np.ndarray]) -> np.ndarray:
        """The inverses of the variants ``rows`` for their hg (one array (len(rows),) per
        inverse), one stacked inversion per eigenvalue; returns which of them succeeded (a
        variant whose matrix is singular fails its step, as its separate run's does)."""
        nq, nk = self.M.shape[1], self.J.shape[1]
        N = nq + nk
        ok = np.ones(len(rows), dtype=bool)
        sel = slice(None) if len(rows) == self.V else rows       # (all of them: no copies)
        M, C, K, J = self.M[sel], self.C[sel], self.K[sel], self.J[sel]
        for j, hg in enumerate(hgs):
            kkt = np.zeros((len(rows), N, N), dtype=self.inv[j].dtype)
            kkt[:, :nq, :nq] = (M - hg[:, None, None] * C - squares(hg)[:, None, None] * K)
            kkt[:, :nq, nq:] = np.swapaxes(J, 1, 2)
            kkt[:, nq:, :nq] = J
            try:
                self.inv[j][sel] = np.linalg.inv(kkt)
            except np.linalg.LinAlgError:        # which: one at a time
                for a, i in enumerate(rows):
                    try:
                        self.inv[j][i] = np.linalg.inv(kkt[a])
                    except np.linalg.LinAlgError:
                        ok[a] = False
        return ok

    def correction(self, eq: Any, rows: np.ndarray, R: np.ndarray, hg: np.ndarray,
                   j: int) -> np.ndarray:
        """dY with (I - hg dF/dy) dY = -R for the variants ``rows``, R (m, n) and hg (m,),
        with their j-th inverse: the velocity correction of the system above from
        [-M R_v - hg K R_q, -J R_v], then dq = hg dv - R_q, the Euler parameters' change
        from dq's world turn plus their unit length's residual."""
        nb, m = eq.nb, len(rows)
        sel = slice(None) if m == self.V else rows       # (all of them: no copies)
        E, pn = self.E[sel], self.pn[sel]
        R_r, R_p, R_v, R_w, R_W = eq.unpack(R)
        R_phi = 2.0 * np.einsum("vbij,vbj->vbi", E, R_p)
        R_par = np.sum(R_p * pn, axis=-1)
        Rq = np.concatenate([R_r, R_phi], -1).reshape(m, -1)
        Rv = np.concatenate([R_v, R_w], -1).reshape(m, -1)
        hgc = hg[:, None]
        top = (-self.M[sel] @ Rv[..., None])[..., 0] - hgc * (self.K[sel] @ Rq[..., None])[..., 0]
        rhs = np.concatenate([top, -(self.J[sel] @ Rv[..., None])[..., 0]], -1)
        sol = (self.inv[j][sel] @ rhs[..., None])[..., 0]
        dv = sol[:, : 6 * nb]
        dq = (hgc * dv - Rq).reshape(m, nb, 6)
        dp = 0.5 * np.einsum("vbji,vbj->vbi", E, dq[..., 3:]) - R_par[..., None] * pn
        dv = dv.reshape(m, nb, 6)
        return eq.pack(dq[..., :3], dp, dv[..., :3], dv[..., 3:], -R_W)
