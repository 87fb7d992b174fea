"""Rank of the constraint Jacobian: which rows are independent (redundant equations, DOF),
and which joints make it singular (lock-ups), on the scaled Jacobian."""
from __future__ import annotations

import math

from typing import Any

import numpy as np

from .banded import band_cholesky
from .newton import RANK_TOL, scaled_jacobian

CLEAR = 100.0     # margin over the rank test's threshold for the one-call banded Cholesky


def best_rows(model: Any, J: np.ndarray, rows: np.ndarray, count: int,
              first: np.ndarray | None = None) -> np.ndarray:
    """``count`` of ``rows`` chosen to be as independent as possible on the scaled
    Jacobian, after the rows ``first`` (always kept): Gram-Schmidt with pivoting, each time
    the row with the largest part outside the span of those chosen (QR with column pivoting
    on J^T, Golub-Van Loan 5.4.1).  For redundant equations whose independent subset changes
    as the mechanism moves (a spatial overconstrained loop), in the order rows were given."""
    first = np.zeros(0, int) if first is None else np.asarray(first, int)
    X = scaled_jacobian(model, J, rows).copy()
    if first.size:
        Q, _ = np.linalg.qr(scaled_jacobian(model, J, first).T)
        X -= (X @ Q) @ Q.T
    chosen: list[int] = []
    for _ in range(min(count, len(rows))):
        norms = np.einsum("ij,ij->i", X, X)
        norms[chosen] = -1.0
        k = int(np.argmax(norms))
        if norms[k] <= 0.0:
            break
        chosen.append(k)
        q = X[k] / np.sqrt(norms[k])
        X -= np.outer(X @ q, q)
    return np.sort(rows[chosen])


def independent_rows(model: Any, J: np.ndarray, rows: np.ndarray,
                     tol: float = RANK_TOL) -> np.ndarray:
    """Rows (indices into J, taken in order) that are independent of the rows before them.

    On the scaled Jacobian a row is redundant when less than ``tol`` of its length points
    in a new direction: greedy Gram-Schmidt with re-orthogonalization for small sets; for
    large ones whose Gram matrix is banded in this order, the same test as a Cholesky
    factorization of the Gram matrix that skips rows with a pivot below RANK_TOL^2 of
    their squared length (the pivot is the squared length of the new direction).  When
    every row is clearly independent (``_clearly_independent``), one Cholesky
    factorization says so and neither row-by-row loop runs.  ``tol``: one for every row,
    or (nc,) each model row's own (rows of separate mechanisms share no column, so each
    is tested against its own mechanism's allowance: Model.row_rounding).
    """
    if np.ndim(tol):
        tol = np.asarray(tol, float)[rows]
    Js = scaled_jacobian(model, J, rows)
    if len(rows) > 60:
        keep = _banded_independent(model, Js, rows, tol)
        if keep is not None:
            return keep
    elif len(rows) and _clearly_independent(Js @ Js.T, tol):
        return np.asarray(rows, dtype=int)
    basis = np.empty((min(len(rows), J.shape[1]), J.shape[1]))
    nk = 0
    keep = []
    for k, row, tk in zip(rows, Js, np.broadcast_to(tol, len(rows)).tolist()):
        n0 = math.sqrt(row @ row)          # (np.linalg.norm's own sum, without its cost)
        if n0 == 0.0:
            continue
        B = basis[:nk]
        x = row - B.T @ (B @ row)
        x -= B.T @ (B @ x)
        nx = math.sqrt(x @ x)
        if nx > tk * n0:
            basis[nk] = x / nx
            nk += 1
            keep.append(k)
    return np.array(keep, dtype=int)


def _banded_independent(model: Any, Js: np.ndarray, rows: np.ndarray,
                        tol: float = RANK_TOL) -> np.ndarray | None:
    """The greedy rank test by a skipping Cholesky of G = Js Js^T when G's band (rows in the
    given order) is narrow; None when it is not.  Rows appended out of band order (motions
    after all joints) are also tried sorted by body: when every row is independent in that
    order the answer does not depend on the order; otherwise None."""
    ends = model.row_ends[rows]
    kd = _gram_band(model, ends)
    if (kd + 1) * 4 < len(rows):
        return rows[_skipping_cholesky(Js, kd, tol)]
    order = np.argsort(ends.min(axis=1), kind="stable")       # the ground (nb) sorts last
    kd = _gram_band(model, ends[order])
    tol_sorted = tol[order] if np.ndim(tol) else tol
    if (kd + 1) * 4 < len(rows) and _skipping_cholesky(Js[order], kd, tol_sorted).all():
        return rows
    return None


def _clearly_independent(G: np.ndarray, tol: float, banded: bool = False) -> bool:
    """True when every row is independent of those before it with a wide margin: the
    Cholesky factor of their Gram matrix G (dense (n, n), or ``banded``: its lower band
    (n, kd+1), column 0 the diagonal) has every pivot, the squared length of a row's new
    direction, above CLEAR tol^2 times the row's squared length, so the row-by-row test
    (which keeps a row above tol^2) keeps them all: the common case, in one factorization.
    False when the factorization fails or a pivot is near the threshold."""
    if banded:
        L = band_cholesky(G)
        if L is None:
            return False
        piv, diag = L[:, 0], G[:, 0]
    else:
        try:
            L = np.linalg.cholesky(G)
        except np.linalg.LinAlgError:
            return False
        piv, diag = np.diagonal(L), np.diagonal(G)
    return bool((piv * piv > CLEAR * tol ** 2 * diag).all())


def _gram_band(model: Any, ends: np.ndarray) -> int:
    """Half-bandwidth of the Gram matrix of rows touching bodies ``ends`` (n, E) (in this
    order)."""
    row = np.broadcast_to(np.arange(len(ends))[:, None], ends.shape)[ends < model.nb]
    body = ends[ends < model.nb]
    first, last = np.full(model.nb, len(ends)), np.full(model.nb, -1)
    np.minimum.at(first, body, row)
    np.maximum.at(last, body, row)
    return int(np.max(last - first, initial=0))


def _skipping_cholesky(Js: np.ndarray, kd: int, tol: float = RANK_TOL) -> np.ndarray:
    """(n,) mask of rows independent of the kept rows before them: Cholesky of the banded
    G = Js Js^T (half-bandwidth kd) that skips a row whose pivot (the squared length of its
    new direction) is below tol^2 of its squared length."""
    n = len(Js)
    # G's band, G[j+d, j] for d = 0..kd, row by row (the dense product costs n^2 columns)
    band = np.zeros((n, kd + 1))
    for d in range(min(kd + 1, n)):
        band[: n - d, d] = np.einsum("ij,ij->i", Js[d:], Js[: n - d])
    # every row clearly independent (the common case): one banded Cholesky whose pivots,
    # the squared lengths of the rows' new directions, all pass with a wide margin, so the
    # test below would skip none
    if _clearly_independent(band, tol, banded=True):
        return np.ones(n, dtype=bool)
    L = np.zeros((n, n))
    keep = np.zeros(n, dtype=bool)
    tol2 = np.broadcast_to(np.square(tol), n).tolist()
    for k in range(n):
        gkk = band[k, 0]
        if gkk == 0.0:
            continue
        lo = max(0, k - kd)
        win = np.flatnonzero(keep[lo:k]) + lo
        if win.size:
            Lw = L[np.ix_(win, win)]
            lk = np.linalg.solve(Lw, band[win, k - win])   # L_ww l = G[k, win]: its projections
            piv = gkk - float(lk @ lk)
        else:
            piv = gkk
        if piv > tol2[k] * gkk:
            if win.size:
                L[k, win] = lk
            L[k, k] = np.sqrt(piv)
            keep[k] = True
    return keep


def involved(model: Any, J: np.ndarray, rows: np.ndarray) -> tuple[str, ...]:
    """Joints and motions whose rows make the scaled Jacobian (nearly) singular."""
    Js = scaled_jacobian(model, J, rows)
    u, s, _ = np.linalg.svd(Js)
    vec = np.abs(u[:, -1]) if Js.shape[0] <= Js.shape[1] else np.abs(u[:, Js.shape[1]:]).max(axis=1)
    names = []
    for k in rows[vec > 0.2 * vec.max()]:
        nm = row_owner(model, k)
        if nm not in names:
            names.append(nm)
    return tuple(names)


def row_owner(model: Any, k: int) -> str:
    """The joint, motion or coupler a row belongs to."""
    if model.row_joint[k] >= 0:
        return model.joint_names[model.row_joint[k]]
    if model.row_coupler[k] >= 0:
        return model.couplers.names[model.row_coupler[k]]
    if model.row_limit[k] >= 0:
        return model.limits.names[model.row_limit[k]]
    if model.row_friction[k] >= 0:
        return model.frictions.names[model.row_friction[k]]
    return model.motion_names[model.row_motion[k]]
