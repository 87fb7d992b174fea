"""The drag step's free directions (solver/analyses/posing/held_newton.py:
``held_directions``): the held rows' scaled Jacobian's pseudo-inverse and null space from
one QR when it shows the full rank, from the SVD otherwise; checked against the SVD's
(the rank by singular values above RCOND of the largest)."""
from __future__ import annotations

import numpy as np
import pytest

from solver.algebra.newton import scaled_jacobian
from solver.analyses.posing.held_newton import RCOND, held_directions
from solver.kernels.constraints import global_jacobian
from test_drag import closed_chain, poser


def by_svd(Js: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    U, S, Vt = np.linalg.svd(Js, full_matrices=True)
    k = int(np.sum(S > RCOND * S[0])) if S.size else 0
    return (Vt[:k].T / S[:k]) @ U[:, :k].T, Vt[k:].T


def chain_jacobian(n: int = 20) -> np.ndarray:
    """bench_drag's closed chain of n: its held rows' scaled Jacobian at the start
    (102 x 120 for n = 20: three of the loop's 105 rows are redundant in the plane)."""
    ps = poser(closed_chain(n)[0])
    ev, _ = ps._evaluate(ps.pose)
    return scaled_jacobian(ps.model, global_jacobian(ps.model, ev.jac), ps.rows)


def agree(Js: np.ndarray, monkeypatch, svd: bool) -> None:
    """held_directions against the SVD: the same pseudo-inverse and null space (its
    projector: the basis itself is any orthonormal one) to 1e-12 of their sizes (the
    Jacobian's condition here is about 800: rounding of 1e-16 grows to about 1e-13), by
    the SVD itself when ``svd``, else by the QR alone."""
    calls = []
    real = np.linalg.svd

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    with monkeypatch.context() as mp:
        mp.setattr(np.linalg, "svd", counted)
        pinv, N = held_directions(Js)
    assert len(calls) == int(svd)
    want, W = by_svd(Js)
    assert N.shape == W.shape
    np.testing.assert_allclose(pinv, want, atol=1e-12 * np.abs(want).max())
    np.testing.assert_allclose(N.T @ N, np.eye(N.shape[1]), atol=1e-13)
    np.testing.assert_allclose(N @ N.T, W @ W.T, atol=1e-12)


def test_a_full_rank_jacobian_gives_the_svds_directions(monkeypatch) -> None:
    Js = chain_jacobian()
    assert Js.shape == (102, 120)
    agree(Js, monkeypatch, svd=False)
    assert np.abs(Js @ held_directions(Js)[1]).max() <= 1e-13 * np.abs(Js).max()


@pytest.mark.parametrize("tilt", [0.0, 1e-13, 1e-6])
def test_a_dependent_row_is_left_out_as_the_svd_leaves_it(tilt, monkeypatch) -> None:
    """A held row that is the sum of two others (a stop held on a joint the rows already
    fix), exactly or tilted by ``tilt`` of the largest singular value (16) along a free
    direction: below RCOND of it (0 and 1e-13) it is no step, the SVD's rank (the chain's
    18 free directions); at 1e-6 it is a step (17), from the QR alone."""
    Js = chain_jacobian()
    extra = Js[3] + Js[40] + tilt * 16.0 * by_svd(Js)[1][:, 0]
    J = np.vstack([Js, extra])
    agree(J, monkeypatch, svd=tilt != 1e-6)
    free = held_directions(J)[1].shape[1]
    assert free == (17 if tilt == 1e-6 else 18)


def test_more_rows_than_columns_and_no_rows(monkeypatch) -> None:
    Js = chain_jacobian(5)
    agree(np.vstack([Js, Js]), monkeypatch, svd=True)
    pinv, N = held_directions(np.zeros((0, 30)))
    assert pinv.shape == (30, 0)
    np.testing.assert_array_equal(N, np.eye(30))
