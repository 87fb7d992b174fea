"""The constrained inverse mass J M^-1 J^T of a mechanism, built and solved in O(rows).

Each constraint row touches two bodies, so S = J M^-1 J^T has an entry only for rows that
share a moving body; the pairs are listed once and S is summed from them, never forming
the dense (nc, 6 nb) Jacobian.  S is solved by a banded Cholesky when its band is narrow
(``banded.py``), else densely.  Used by forward dynamics (accelerations, projection) and by
the kinematic sweep of large mechanisms (for a square J, M^-1 J^T S^-1 b = J^-1 b).
"""
from __future__ import annotations

import numpy as np

from .banded import BandedSPD
from .model import Model
from .rotations import congruence


def inverse_mass(model: Model, A: np.ndarray, inv_inertia: np.ndarray) -> np.ndarray:
    """(nb+1, 6, 6) inverse mass blocks in world axes (1/m I and A I^-1 A^T), with a zero
    block for the ground last.  A: rotation matrices, at least nb of them."""
    nb = model.nb
    Mi = np.zeros((nb + 1, 6, 6))
    Mi[:nb, :3, :3] = np.eye(3)[None] / model.body_mass[:, None, None]
    Ab = A[:nb]
    Mi[:nb, 3:, 3:] = congruence(Ab, inv_inertia)
    return Mi


class Schur:
    """J M^-1 J^T and the products with J from the rows' 12-entry Jacobian blocks.

    Each constraint row touches two bodies, so S = J M^-1 J^T has an entry only for rows
    that share a moving body; the pairs are listed once here and S is summed from them in
    O(rows) work, never forming the dense (nc, 6 nb) Jacobian.  Bodies indexed as in Model,
    the ground last (its inverse mass is zero).
    """

    def __init__(self, model: Model, rows: np.ndarray) -> None:
        nb = model.nb
        self.nb, self.rows, self.n = nb, rows, len(rows)
        self.ends = np.stack([model.row_bi[rows], model.row_bj[rows]], axis=1)   # (n, 2)
        by_body: dict[int, list[tuple[int, int]]] = {}
        for k in range(self.n):
            for side in (0, 1):
                b = int(self.ends[k, side])
                if b < nb:
                    by_body.setdefault(b, []).append((k, side))
        pr, ps, pc, pcs = [], [], [], []
        for ends in by_body.values():
            for k1, s1 in ends:
                for k2, s2 in ends:
                    pr.append(k1), ps.append(s1), pc.append(k2), pcs.append(s2)
        self.pr, self.ps = np.array(pr, dtype=int), np.array(ps, dtype=int)
        self.pc, self.pcs = np.array(pc, dtype=int), np.array(pcs, dtype=int)
        self.flat = self.pr * self.n + self.pc
        self.band = BandedSPD(self.n, self.pr, self.pc)

    def blocks(self, jac: np.ndarray) -> np.ndarray:
        """(n, 2, 6) Jacobian blocks of the rows on body I and body J."""
        return jac[self.rows].reshape(self.n, 2, 6)

    def matrix(self, Jb: np.ndarray, Mi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(S's entries at the pairs, W = M^-1 J^T blocks (n, 2, 6)); Mi (nb+1, 6, 6) with a
        zero ground block."""
        W = np.einsum("ksij,ksj->ksi", Mi[self.ends], Jb)
        vals = np.einsum("pi,pi->p", Jb[self.pr, self.ps], W[self.pc, self.pcs])
        return vals, W

    def solve(self, vals: np.ndarray, b: np.ndarray) -> np.ndarray:
        """S x = b: banded Cholesky when S's band is narrow, else a dense solve."""
        if not self.n:
            return np.zeros(0)
        if self.band.banded:
            return self.band.solve(vals, None, b)
        S = np.bincount(self.flat, weights=vals, minlength=self.n * self.n).reshape(self.n, self.n)
        return np.linalg.solve(S, b)

    def times(self, Jb: np.ndarray, x: np.ndarray) -> np.ndarray:
        """J x for body vectors x (nb+1, 6)."""
        return np.einsum("ksi,ksi->k", Jb, x[self.ends])

    def transpose_times(self, B: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """sum over rows of lam * B (B: J or W blocks) into body vectors (nb+1, 6)."""
        out = np.zeros((self.nb + 1, 6))
        np.add.at(out, self.ends.ravel(), (lam[:, None, None] * B).reshape(-1, 6))
        return out
