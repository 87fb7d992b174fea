"""The sweep's linear algebra: J^-1 and J^-T of the square (kept) Jacobian of fully driven
mechanisms at a block of poses (leading axes: variants, frames), its condition check, and
stacked solves that leave a singular frame NaN instead of failing the block."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...algebra.banded import MIN_BANDED, BandFactors
from ...algebra.newton import COND_LIMIT
from ...algebra.schur import Schur, inverse_mass
from ...base.einsum import einsum
from ...kernels.constraints import global_jacobian
from ...model.compile import Model


def banded(model: Model, keep: np.ndarray) -> bool:
    """Whether J M^-1 J^T of a large mechanism's kept rows is banded (schur.py: a chain)."""
    return len(keep) > MIN_BANDED and Schur(model, keep).band.banded


@dataclass(frozen=True)
class Banded:
    """The banded pieces of J^-1 at each frame of a block (one variant): the rows' Jacobian
    blocks Jb (F, rows, E, 6), the inverse mass blocks Mi (F, nb+1, 6, 6), W = M^-1 J^T
    (F, nb, 6, slots) and the Cholesky factors of S = J M^-1 J^T (banded.BandFactors)."""
    Jb: np.ndarray
    Mi: np.ndarray
    W: np.ndarray
    S: BandFactors

    def take(self, m: int) -> "Banded":
        """The first m frames."""
        return Banded(self.Jb[:m], self.Mi[:m], self.W[:m], self.S.take(m))


@dataclass(frozen=True)
class Factors:
    """The square (kept) Jacobian factored at each pose of a block (V, F): dense inverses
    (V, F, n, n), or (one variant) the banded pieces of every frame; ``ok`` (V, F) is False
    where J is (nearly) singular."""
    ok: np.ndarray
    Jinv: np.ndarray | None = None
    band: Banded | None = None
    cond: np.ndarray | None = None       # (V, F) the dense path's scaled 1-norm condition
    sign: np.ndarray | None = None       # (V, F) the sign of det J (poles.py); banded: 1
    #                                      (unknown: no flip seen) unless asked (``factor``)
    near: np.ndarray | None = None       # (V, F) how near a pole (poles.py ``suspect``):
    #                                      dense ``cond``; banded ``pivot_ratio``
    J: np.ndarray | None = None          # (V, F, nc, 6 nb) dense: every row's global
    #                                      Jacobian, the redundant rows' J_r^T read from it

    def take(self, m: int) -> "Factors":
        """The first m frames."""
        return Factors(*(None if x is None else x.take(m) if isinstance(x, Banded) else x[:, :m]
                         for x in (self.ok, self.Jinv, self.band, self.cond, self.sign,
                                   self.near, self.J)))

    def last(self) -> tuple:
        """(sign of det J, nearness to a pole) (V,) at the last frame: ``Algebra.factor``'s
        ``last``."""
        return self.sign[:, -1], self.near[:, -1]


class Algebra:
    """The sweep's workspace for variants ``models`` whose one model is ``model``: each
    variant's scales, and J^-1 and J^-T at a block of poses (V, F, ...) from factors made
    by ``factor`` and passed to ``solve``/``solve_t`` (no state kept between calls).
    Dense: stacked inverses, with a 1-norm condition check that catches a nearly singular
    pose.  One mechanism whose J M^-1 J^T is banded: J^-1 b = M^-1 J^T S^-1 b and J^-T f =
    S^-1 J M^-1 f with S = J M^-1 J^T (schur.py), O(rows) per frame, every frame of a block
    in one banded factorization of their block-diagonal S (banded.BandedSPD.factor_many);
    a singular pose shows as S not positive definite.  Variants densely only: banded ones are swept one by one
    (S's rounding grows with cond(J)^2, so a batch's poses, within Newton's tolerance of
    each separate sweep's, would part from its reactions by as much)."""

    def __init__(self, model: Model, models: list[Model], keep: np.ndarray,
                 take: Callable | None = None) -> None:
        self.model, self.keep, self.take = model, keep, take
        # one mechanism, a small one solved densely: no need to lay out its J M^-1 J^T
        self.schur = Schur(model, keep) if len(models) == 1 and len(keep) > MIN_BANDED else None
        self.sparse = self.schur is not None and self.schur.band.stacked
        self.rs = 1.0 / np.stack([m.row_length for m in models])[:, None, keep]   # (V, 1, nk)
        self.blen = np.stack([m.body_length for m in models])                     # (V, nb)
        col = np.ones((len(models), model.nb, 6))
        col[..., 3:] = self.blen[..., None]
        self.cw = col.reshape(len(models), 1, -1)                                 # (V, 1, 6 nb)
        self.size = np.stack([m.body_size for m in models])[:, None]              # (V, 1, nb)

    def only(self, idx: np.ndarray, model: Model, take: Callable | None = None) -> "Algebra":
        """The workspace of variants ``idx`` alone, whose model is ``model``."""
        out = object.__new__(Algebra)
        out.__dict__.update(self.__dict__)
        out.model, out.take = model, take
        out.rs, out.cw, out.blen = self.rs[idx], self.cw[idx], self.blen[idx]
        out.size = self.size[idx]
        return out

    def newton_step(self, jac: np.ndarray, A: np.ndarray, res: np.ndarray,
                    go: np.ndarray | None = None) -> np.ndarray:
        """-J^-1 res (V, F, 6 nb) per pose (no condition check: Newton only); NaN where J
        is singular; ``go`` (V, F): the poses to move (the others' step is not used: their
        J is taken as the identity, which any NaN of theirs cannot make singular)."""
        if go is not None:
            res = np.where(go[..., None], res, 0.0)
        if self.sparse:
            band = self._banded(jac[0], A[0])
            return -self._apply(band, res[0]).reshape(res.shape[:-1] + (-1,))
        J = global_jacobian(self.model, jac)[..., self.keep, :]
        if go is not None:
            J = np.where(go[..., None, None], J, np.eye(len(self.keep)))
        return _solve_stack(J, -res)

    def factor(self, jac: np.ndarray, A: np.ndarray, last: tuple | None = None,
               signs: bool = False) -> Factors:
        """Factor J at each pose of the block; ok False where it is (nearly) singular (the
        banded path: S not positive definite, or J^-1 of a vector of ones not finite).
        Dense: with the sign of det J at each pose (``det_signs``; ``last``: the frame
        before's ``Factors.last``, or None).  Banded: the sign 1 (S = J M^-1 J^T holds
        none), or with ``signs`` (a walk's few sub-frames, poles.py) each pose's own by a
        dense LU."""
        if self.sparse:
            band = self._banded(jac[0], A[0])
            probe = self._apply(band, np.ones((len(band.Jb), len(self.keep))))
            sign = np.ones((1, len(band.Jb)))
            if signs:
                sign = np.linalg.slogdet(global_jacobian(self.model, jac)[..., self.keep, :])[0]
            return Factors(np.isfinite(probe).all(axis=(-2, -1))[None], band=band, sign=sign,
                           near=pivot_ratio(band.S.ab, self.schur.band)[None])
        J = global_jacobian(self.model, jac)
        Jk = J[..., self.keep, :]
        Jinv = _inverse(Jk)
        with np.errstate(invalid="ignore"):
            cond = scaled_condition(Jk, Jinv, self.rs, self.cw)
            return Factors(np.isfinite(cond) & (cond < COND_LIMIT), Jinv=Jinv, cond=cond,
                           sign=det_signs(Jk, last), near=cond, J=J)

    def solve(self, fac: Factors, b: np.ndarray) -> np.ndarray:
        """J^-1 b as (V, F, nb, 6) body vectors (b (V, F, kept rows))."""
        if self.sparse:
            return self._apply(fac.band, b[0])[None]
        return matvec(fac.Jinv, b, "vfij,vfj->vfi").reshape(b.shape[:2] + (-1, 6))

    def solve_t(self, fac: Factors, f: np.ndarray) -> np.ndarray:
        """J^-T f for body vectors f (..., V, F, nb, 6): the kept rows' multipliers (..., V,
        F, kept rows); leading axes: several sets of forces (joint friction's responses)."""
        if self.sparse:
            sc, band = self.schur, fac.band
            f0 = f[..., 0, :, :, :]
            fg = np.concatenate([f0, np.zeros(f0.shape[:-2] + (1, 6))], axis=-2)
            mf = einsum("fbij,...fbj->...fbi", band.Mi, fg)
            return sc.band.solve_factored(band.S, sc.times(band.Jb, mf))[..., None, :, :]
        f = f.reshape(f.shape[:-2] + (-1,))
        if len(fac.Jinv) > 1:                      # (matvec, J^-T a view of J^-1)
            return (np.swapaxes(fac.Jinv, -1, -2) @ f[..., None])[..., 0]
        return einsum("vfji,...vfj->...vfi", fac.Jinv, f)

    # the banded path: one variant, every frame of a block at once
    def _banded(self, jac: np.ndarray, A: np.ndarray) -> Banded:
        """The banded pieces at poses (F, ...): Jacobian blocks jac (F, nc, 12), rotation
        matrices A (F, nb+1, 3, 3)."""
        sc = self.schur
        Jb = sc.blocks(jac)
        Mi = inverse_mass(self.model, A)
        vals, W = sc.matrix(Jb, Mi)
        return Banded(Jb, Mi, W, sc.band.factor_many(vals))

    def _apply(self, band: Banded, b: np.ndarray) -> np.ndarray:
        """J^-1 b = M^-1 J^T S^-1 b as (F, nb, 6) body vectors (b (F, kept rows)); NaN at a
        frame whose S is not positive definite."""
        sc = self.schur
        return sc.apply(band.W, sc.band.solve_factored(band.S, b))


def matvec(M: np.ndarray, x: np.ndarray, one: str) -> np.ndarray:
    """M x for a block's matrices M (V, F, ..., n, k) and vectors x (..., V, F, ..., k):
    variants by matmul (BLAS, faster on their many products), one mechanism (V = 1) by the
    einsum ``one`` (of M and x), the arithmetic its sweep has always had (so its results
    stay the same to the bit)."""
    if len(M) > 1:
        return (M @ x[..., None])[..., 0]
    return einsum(one, M, x)


def scaled_condition(J: np.ndarray, Jinv: np.ndarray, rs: np.ndarray, cw: np.ndarray
                     ) -> np.ndarray:
    """The 1-norm condition of the scaled J, diag(rs) J diag(1/cw), from J and its inverse
    (any leading axes; row scales rs (..., nk) and column weights cw (..., 6 nb) as
    algebra.newton.scales gives them: rows in residual units, rotation columns in body
    lengths, scaled_jacobian); a lock-up or singular pose shows as a value above
    COND_LIMIT (or NaN).  Each norm is the largest weighted column sum of |J| (|J^-1|),
    the weights one product of a row of them with it: the scaled matrices themselves are
    not made (they cost a slider-crank study's sweep 5%)."""
    def norm1(M: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        sums = (left[..., None, :] @ np.abs(M))[..., 0, :]
        return (sums / right).max(axis=-1, initial=0.0)
    return norm1(J, rs, cw) * norm1(Jinv, cw, rs)


def pivot_ratio(ab: np.ndarray, spd) -> np.ndarray:
    """(F,) the largest over the least diagonal entry of each frame's Cholesky factor L of S
    = J M^-1 J^T (band storage ``ab`` (F, (kd+1) n) of the banded solver ``spd``): S's
    pivots are L's diagonal squared and their product det S = det(J)^2 / det M, so where J
    nears a singular pose one pivot goes to zero as sigma_min(J)^2 and the ratio grows as
    1 / sigma_min(J), as J's condition does: the banded path's nearness to a pole for
    poles.py's RISE (not the dense condition: its scale is S's rows')."""
    d = ab.reshape(len(ab), spd.n, spd.kd + 1)[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        return d.max(axis=-1, initial=0.0) / d.min(axis=-1, initial=np.inf)


def det_signs(J: np.ndarray, last: tuple | None) -> np.ndarray:
    """(V, F) the sign of det J at each frame of a block (J (V, F, n, n)), 0 where singular.
    Where the last frame's sign is the frame before the block's (``last``: its (sign,
    condition) (V,), ``Factors.last``), every frame's is taken as that, with one LU a
    block (an even number of poles passed inside one block goes unnoted); else each
    frame's own (np.linalg.slogdet)."""
    if last is not None:
        end = np.linalg.slogdet(J[:, -1])[0]
        same = (end == last[0]) & (end != 0)
        if np.count_nonzero(same) == same.size:      # (np.all, broadcast_to: Python wrappers)
            return end[:, None].repeat(J.shape[1], axis=1)
    return np.linalg.slogdet(J)[0]


def _per_frame(fn, shape: tuple, *stacks: np.ndarray) -> np.ndarray:
    """fn on stacks of matrices (leading axes: variants, frames; the first stack's matrices
    square) in one call; if a matrix is singular, one by one, with NaN for the singular ones
    (shape: the result's)."""
    try:
        return fn(*stacks)
    except np.linalg.LinAlgError:
        lead = stacks[0].ndim - 2
        flat = [x.reshape((-1,) + x.shape[lead:]) for x in stacks]
        out = np.full((len(flat[0]),) + tuple(shape[lead:]), np.nan)
        for f in range(len(out)):
            try:
                out[f] = fn(*(x[f] for x in flat))
            except np.linalg.LinAlgError:
                pass
        return out.reshape(shape)


def _solve_stack(M: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x with M_f x_f = b_f for each frame f (any leading axes); NaN for a frame whose M is
    singular."""
    return _per_frame(lambda M_, b_: np.linalg.solve(M_, b_[..., None])[..., 0], b.shape, M, b)


def _inverse(M: np.ndarray) -> np.ndarray:
    """Inverses of a stack of matrices; NaN for a singular one."""
    return _per_frame(np.linalg.inv, M.shape, M)
