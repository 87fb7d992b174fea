"""The constrained inverse mass J M^-1 J^T of a mechanism, built and solved in O(rows).

Each constraint row touches two bodies, so S = J M^-1 J^T has an entry only for rows that
share a moving body; S is summed from one small block per body, never forming the dense
(nc, 6 nb) Jacobian.  S is solved by a banded Cholesky when its band is narrow
(``banded.py``), else densely.  Used by forward dynamics (accelerations, projection) and by
the kinematic sweep of large mechanisms (for a square J, M^-1 J^T S^-1 b = J^-1 b).
"""
from __future__ import annotations

import math

import numpy as np

from .banded import BandedSPD
from ..model.compile import Model
from ..base.einsum import einsum
from ..base.rotations import congruence


def _dense_solve():
    """X = A^-1 B for stacks of square A (..., n, n) and B (..., n, k): numpy 1.x's
    np.linalg.solve without its Python around the LAPACK gufunc (the same call, the same
    bits, a LinAlgError for a singular A), whose checks, type promotion and error-state
    object cost several us on each right-hand side's few-row solve; numpy 2's
    np.linalg.solve itself (its gufunc takes no error-state object)."""
    try:
        from numpy.linalg import linalg as la
        gufunc = la._umath_linalg.solve
        extobj = la.get_linalg_error_extobj(la._raise_linalgerror_singular)
    except (ImportError, AttributeError):       # numpy 2
        return np.linalg.solve

    def solve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return gufunc(a, b, signature="dd->d", extobj=extobj)
    return solve


dense_solve = _dense_solve()


def inverse_mass(model: Model, A: np.ndarray) -> np.ndarray:
    """(..., nb+1, 6, 6) inverse mass blocks in world axes (1/m I and A I^-1 A^T), with a
    zero block for the ground last.  A (..., at least nb, 3, 3): rotation matrices."""
    nb, bim = model.nb, model.body_inverse_mass      # (a study's stacked model: (V, nb+1, 6, 6))
    Mi = np.empty(np.broadcast_shapes(A.shape[:-3], bim.shape[:-3]) + bim.shape[-3:])
    Mi[...] = bim                           # 1/m I blocks, ground zero
    Mi[..., :nb, 3:, 3:] = congruence(A[..., :nb, :, :], model.body_inverse_inertia)
    return Mi


class Schur:
    """J M^-1 J^T and the products with J from the rows' 12-entry Jacobian blocks.

    Each constraint row touches two bodies, so S = J M^-1 J^T is a sum of one small block
    per moving body, B_b = J_b M_b^-1 J_b^T over the rows that touch b (a spherical joint
    chain: six rows a body).  The blocks are computed for all bodies at once with the rows
    of each body gathered into a padded (nb, slots, 6) array; their entries are S's values
    at a fixed list of (row, row) pairs, in O(rows) work, never forming the dense (nc, 6 nb)
    Jacobian.  Bodies indexed as in Model, the ground last (its inverse mass is zero).
    """

    def __init__(self, model: Model, rows: np.ndarray) -> None:
        nb = model.nb
        self.nb, self.rows, self.n = nb, rows, len(rows)
        self.every = bool(np.array_equal(rows, np.arange(model.nc)))   # all rows, in order
        self.ends = model.row_ends[rows]             # (n, E): (bi, bj), a coupler's more
        self.E = self.ends.shape[1]
        touch: list[list[tuple[int, int]]] = [[] for _ in range(nb)]
        for k in range(self.n):
            for side in range(self.E):
                b = int(self.ends[k, side])
                if b < nb:
                    touch[b].append((k, side))
        slots = max((len(t) for t in touch), default=0)
        # slot i of body b holds row end (row, side); padding slots point at row n
        self.slot_row = np.full((nb, slots), self.n)
        self.slot_side = np.zeros((nb, slots), dtype=int)
        for b, t in enumerate(touch):
            for i, (k, side) in enumerate(t):
                self.slot_row[b, i], self.slot_side[b, i] = k, side
        valid = self.slot_row < self.n
        self.slot_take = np.where(valid, self.slot_row, 0)    # padding reads row 0 ...
        self.slot_mask = valid[:, :, None].astype(float)      # ... and is zeroed
        # the same as one flat gather of the row blocks' entries (n, E, 6) and its mask
        self.slot_at = ((self.slot_take * self.E + self.slot_side)[..., None] * 6
                        + np.arange(6)).reshape(-1)
        self.slot_mask6 = np.repeat(valid.reshape(-1).astype(float), 6)
        # pairs: the non-padding entries of the bodies' blocks, flattened in order
        self.pair_index = np.flatnonzero(valid[:, :, None] & valid[:, None, :])
        bb, i1, i2 = np.unravel_index(self.pair_index, (nb, slots, slots))
        self.pr, self.pc = self.slot_row[bb, i1], self.slot_row[bb, i2]
        self.flat = self.pr * self.n + self.pc
        self.band = BandedSPD(self.n, self.pr, self.pc)
        self._dense_at: dict[int, np.ndarray] = {}

    def blocks(self, jac: np.ndarray) -> np.ndarray:
        """(..., n, E, 6) Jacobian blocks of the rows on each body they touch (I, J, ...)."""
        Jr = jac if self.every else jac.take(self.rows, axis=-2)
        return Jr.reshape(jac.shape[:-2] + (self.n, self.E, 6))

    # Leading axes (..., e.g. the stages of an implicit step) are carried through by every
    # method below: one set of numpy calls for all of them.

    def matrix(self, Jb: np.ndarray, Mi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(S's entries at the pairs, W = M^-1 J^T per body and slot (..., nb, 6, slots),
        zero in the padding slots); Mi (..., at least nb, 6, 6) inverse mass (or weight)
        blocks."""
        lead = Jb.shape[:-3]          # one flat take (a 2-D gather costs 7x more on stacks)
        Jg = Jb.reshape(lead + (-1,)).take(self.slot_at, axis=-1) * self.slot_mask6
        Jg = Jg.reshape(lead + self.slot_take.shape + (6,))                # (..., nb, slots, 6)
        W = (Mi if Mi.shape[-3] == self.nb else Mi[..., : self.nb, :, :]) @ Jg.swapaxes(-1, -2)
        vals = (Jg @ W).reshape(Jg.shape[:-3] + (-1,)).take(self.pair_index, axis=-1)
        return vals, W

    def solve(self, vals: np.ndarray, b: np.ndarray) -> np.ndarray:
        """S x = b: banded Cholesky when S's band is narrow, else a dense solve; a stack
        (leading axes: an implicit step's stages, a study's variants) in one banded call."""
        if not self.n:
            return np.zeros(b.shape)
        if b.ndim > vals.ndim and self.band.banded:
            # more right-hand sides than systems (joint friction's unit responses, a leading
            # axis of their own): each its system's copy in the block-diagonal stack below
            vals = np.broadcast_to(vals, b.shape[:-1] + vals.shape[-1:])
        if vals.ndim == 1:
            if self.band.banded:
                return self.band.solve(vals, None, b)
        elif self.band.banded:      # a stack: one banded call on the block-diagonal system
            lead = vals.shape[:-1]
            x = self.band.solve_many(vals.reshape(-1, vals.shape[-1]), b.reshape(-1, self.n))
            return x.reshape(lead + (self.n,))
        return dense_solve(self.dense(vals), b[..., None])[..., 0]

    def dense(self, vals: np.ndarray) -> np.ndarray:
        """S as a dense (..., n, n) matrix (pairs of rows that share a body repeat: summed)."""
        n2, lead = self.n * self.n, vals.shape[:-1]
        count = math.prod(lead)
        at = self._dense_at.get(count)
        if at is None:          # where each entry of each of the count matrices goes, once
            at = self._dense_at[count] = (np.arange(count)[:, None] * n2 + self.flat).reshape(-1)
        return np.bincount(at, weights=vals.reshape(-1), minlength=count * n2).reshape(lead + (self.n, self.n))

    def solve_least_norm(self, vals: np.ndarray, b: np.ndarray, rcond: float) -> np.ndarray:
        """S x = b solved in S's eigenvectors with each eigenvalue l inverted as
        l / (l^2 + e^2), e = rcond times the largest (a Tikhonov filter; Golub-Van Loan
        5.5.4): where S (symmetric positive semi-definite) loses rank, because the
        constraints became dependent (a parallelogram lined up, a bifurcation), x keeps
        (almost) no part along the lost directions instead of dividing rounding by their
        vanishing eigenvalues; elsewhere it is the exact solution."""
        if not self.n:
            return np.zeros(b.shape)
        lam, V = np.linalg.eigh(self.dense(vals))
        eps = rcond * np.maximum(lam[..., -1:], 0.0)
        lam = np.maximum(lam, 0.0)
        den = lam * lam + eps * eps
        inv = np.divide(lam, den, out=np.zeros_like(lam), where=den > 0)
        Vtb = einsum("...ji,...j->...i", V, b)
        return einsum("...ij,...j->...i", V, inv * Vtb)

    def times(self, Jb: np.ndarray, x: np.ndarray) -> np.ndarray:
        """J x for body vectors x (..., nb+1, 6)."""
        return einsum("...ksi,...ksi->...k", Jb, x.take(self.ends, axis=-2))

    def apply(self, W: np.ndarray, lam: np.ndarray) -> np.ndarray:
        """M^-1 J^T lam as body vectors (..., nb, 6), the moving bodies only (W from
        matrix(): its padding slots are zero, so they may read any multiplier)."""
        return (W @ lam.take(self.slot_take, axis=-1)[..., None])[..., 0]
