"""The banded Cholesky path (LAPACK dpbsv from numpy's OpenBLAS) against dense solves, and
a long chain solved both ways.  Nothing here skips: without the LAPACK routine (see
test_linalg.py for how it is found) these tests fail instead of passing on the dense path."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism
from solver.algebra.banded import BandedSPD, reverse_cuthill_mckee


def banded_spd(n: int, kd: int, rng: np.random.Generator, shuffle: bool) -> np.ndarray:
    A = np.zeros((n, n))
    for d in range(kd + 1):
        v = rng.normal(size=n - d)
        A += np.diag(v, -d) + (np.diag(v, d) if d else 0)
    A += np.eye(n) * (2 * kd + 2) * 3.0          # diagonally dominant: positive definite
    if shuffle:
        p = rng.permutation(n)
        A = A[np.ix_(p, p)]
    return A


@pytest.mark.parametrize("shuffle", [False, True])
def test_banded_solve_matches_dense(shuffle: bool) -> None:
    """A band of half-width 4 hidden by a random ordering: RCM finds a narrow band again
    and the answers agree to rounding (condition ~3, so 1e-12 relative is generous)."""
    rng = np.random.default_rng(1)
    A = banded_spd(120, 4, rng, shuffle)
    rows, cols = np.nonzero(A)
    band = BandedSPD(120, rows, cols)
    assert band.banded and band.kd <= 12
    b = rng.normal(size=120)
    x = band.solve(A[rows, cols], None, b)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-12, atol=1e-12)


def test_banded_solve_reports_a_singular_matrix() -> None:
    A = banded_spd(60, 2, np.random.default_rng(2), False)
    A[10, :], A[:, 10] = 0.0, 0.0                   # a row with no constraint force
    rows, cols = np.nonzero(A)
    rows, cols = np.concatenate([rows, [10]]), np.concatenate([cols, [10]])
    band = BandedSPD(60, rows, cols)
    with pytest.raises(np.linalg.LinAlgError):
        band.solve(A[rows, cols], None, np.ones(60))



def test_stacked_factors_solve_each_system_and_mark_a_singular_one() -> None:
    """Five systems of one pattern (a third of its pairs given twice, each half the value:
    summed) factored as one block-diagonal band: each system's solutions (two right-hand
    sides each) equal its own dense solve to rounding (condition ~3, so 1e-12 is generous);
    the third, singular, is marked and NaN; a NaN in one right-hand side leaves every
    other solution finite and right (it is not spread through the zero coupling)."""
    rng = np.random.default_rng(5)
    n, K = 90, 5
    p = rng.permutation(n)
    mats = [banded_spd(n, 3, rng, False)[np.ix_(p, p)] for _ in range(K)]
    mats[2][7, :], mats[2][:, 7] = 0.0, 0.0
    rows, cols = np.nonzero(mats[0])
    twice = np.arange(0, len(rows), 3)
    vals = np.stack([np.concatenate([A[rows, cols], np.zeros(len(twice))]) for A in mats])
    vals[:, twice] *= 0.5
    vals[:, len(rows):] = vals[:, twice]
    band = BandedSPD(n, np.concatenate([rows, rows[twice]]), np.concatenate([cols, cols[twice]]))
    assert band.stacked
    fac = band.factor_many(vals)
    assert fac.ok.tolist() == [True, True, False, True, True]
    b = rng.normal(size=(2, K, n))
    for nan_at in (None, (0, 1, 5)):
        if nan_at is not None:
            b[nan_at] = np.nan
        x = band.solve_factored(fac, b)
        assert np.isnan(x[:, 2]).all()
        for k in (0, 1, 3, 4):
            for j in range(2):
                if (j, k) == (0, 1) and nan_at is not None:
                    continue
                np.testing.assert_allclose(x[j, k], np.linalg.solve(mats[k], b[j, k]),
                                           rtol=1e-12, atol=1e-12)

def test_rcm_is_a_permutation() -> None:
    rng = np.random.default_rng(3)
    rows, cols = rng.integers(0, 40, 200), rng.integers(0, 40, 200)
    p = reverse_cuthill_mckee(40, rows, cols)
    assert sorted(p.tolist()) == list(range(40))


def chain(n: int) -> Mechanism:
    """benchmarks.md chain of n rods on spherical joints, horizontal on a quarter arc."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("o", "ground")
    tip = np.zeros(3)
    for k in range(n):
        psi = k * (math.pi / 2) / n
        m.add_part(f"l{k}", mass=1.0, inertia=(5e-5, 0.0833583, 0.0833583), center_of_mass=(0.5, 0, 0),
                   position=tip, orientation=(math.cos(psi / 2), 0, 0, math.sin(psi / 2)))
        m.add_marker(f"a{k}", f"l{k}")
        m.add_marker(f"b{k}", f"l{k}", position=(1, 0, 0))
        m.add_joint(f"j{k}", "spherical", f"a{k}", "o" if k == 0 else f"b{k - 1}")
        tip = tip + np.array([math.cos(psi), math.sin(psi), 0.0])
    return m


def test_chain_dynamics_banded_equals_dense(monkeypatch) -> None:
    """A 20-link chain (60 constraint rows: the banded path) gives the same motion as the
    dense solve, to the integrator's own reproducibility (1e-9 m over 0.25 s)."""
    r_band = chain(20).solve(0.25, 24)
    monkeypatch.setattr(BandedSPD, "__init__", _dense_init)
    r_dense = chain(20).solve(0.25, 24)
    for k in (0, 9, 19):
        np.testing.assert_allclose(r_band.position(f"l{k}"), r_dense.position(f"l{k}"), atol=1e-9)
    assert r_band.steps == r_dense.steps


_original_init = BandedSPD.__init__


def _dense_init(self, n, rows, cols) -> None:
    _original_init(self, n, rows, cols)
    self.banded = False


def test_schur_matches_dense_product() -> None:
    """S = J M^-1 J^T from the row pairs equals the dense product (rounding only)."""
    from solver.kernels.constraints import body_arrays, evaluate, global_jacobian
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.structure import structure
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = chain(6)
    model = compile_model(m)
    s0 = read_state(model, m)
    r, p = s0.r, s0.p
    st = structure(model, r, p)
    sysm = Equations(model, st)
    rg, A = body_arrays(model, r, p)[:2]
    ev = evaluate(model, rg, A)
    sc = sysm.schur
    vals, _ = sc.matrix(sc.blocks(ev.jac), sysm._minv_ground(A))
    S = np.bincount(sc.flat, weights=vals, minlength=sc.n ** 2).reshape(sc.n, sc.n)
    J = global_jacobian(model, ev.jac)[st.keep]
    Mi = sysm.minv(A[: model.nb])
    dense = J @ sysm._apply_minv(Mi, J.T.copy())
    np.testing.assert_allclose(S, dense, atol=1e-13)


def test_world_inertias_by_one_pair_of_products_and_by_diagonals() -> None:
    """Equations' inertias in world axes (A I A^T for the gyroscopic moment, A I^-1 A^T in
    the inverse mass) equal the plain congruence, by the general pair of products and by
    the diagonal shortcut the chain's part-axis inertias take, one state and a stack."""
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.structure import structure
    from solver.base.rotations import quat_to_matrix
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = chain(4)
    model = compile_model(m)
    s0 = read_state(model, m)
    eq = Equations(model, structure(model, s0.r, s0.p))
    assert eq._diag is not None                       # the chain's inertias are diagonal
    rng = np.random.default_rng(2)
    for lead in ((), (3,)):
        q = rng.normal(size=lead + (model.nb + 1, 4))
        A = quat_to_matrix(q / np.linalg.norm(q, axis=-1, keepdims=True))
        Ab = A[..., : model.nb, :, :]
        want_I = Ab @ model.body_inertia @ np.swapaxes(Ab, -1, -2)
        want_Ii = Ab @ model.body_inverse_inertia @ np.swapaxes(Ab, -1, -2)
        wk = eq.work(lead)
        for diag in (None, eq._diag):
            Iw, Mi = wk.mass(A, eq._pair, diag)
            np.testing.assert_allclose(Iw, want_I, atol=1e-15)
            np.testing.assert_allclose(Mi[..., 3:, 3:], want_Ii, rtol=1e-13, atol=1e-12)
            np.testing.assert_array_equal(Mi[..., :3, :3], np.broadcast_to(
                model.body_inverse_mass[: model.nb, :3, :3], Mi.shape[:-2] + (3, 3)))


def test_large_mechanism_assembles_through_the_banded_path() -> None:
    """A 40-link chain (120 rows: the sparse least-movement step) placed a few centimetres
    and degrees off closes every joint to Newton precision."""
    from solver.algebra.newton import scales as _scales
    from solver.analyses.start.assembly import sparse_assembly
    from solver.model.compile import compile_model
    from solver.base.rotations import quat_multiply, rotvec_to_quat
    rng = np.random.default_rng(5)
    m = chain(40)
    model = compile_model(m)
    assert sparse_assembly(model, _scales(model)[1], np.arange(model.nc)) is not None
    for part in m.parts.values():
        if not part.fixed:
            part.position = part.position + rng.normal(scale=0.02, size=3)
            part.orientation = quat_multiply(rotvec_to_quat(rng.normal(scale=0.03, size=3)),
                                             part.orientation)
    m.assemble()
    r = m.solve(0.0, 24)
    for j in m.joints.values():
        pi, _ = r.marker_frame(j.marker_i)
        pj, _ = r.marker_frame(j.marker_j)
        assert np.abs(pi - pj).max() < 1e-10


def ladder(n: int) -> Mechanism:
    """n planar four-bar loops side by side (shared rockers): every loop of revolute joints
    adds 3 redundant equations, and the rows' Gram matrix is banded in joint order."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    prev = None
    for k in range(n):
        x = 0.5 * k
        m.add_part(f"rung{k}", position=(x, 0, 0))
        m.add_marker(f"g{k}", "ground", position=(x, 0, 0))
        m.add_marker(f"r{k}a", f"rung{k}")
        m.add_marker(f"r{k}b", f"rung{k}", position=(0, 0.3, 0))
        m.add_joint(f"pivot{k}", "revolute", f"r{k}a", f"g{k}")
        if prev is not None:
            m.add_part(f"bar{k}", position=(x - 0.5, 0.3, 0))
            m.add_marker(f"b{k}a", f"bar{k}")
            m.add_marker(f"b{k}b", f"bar{k}", position=(0.5, 0, 0))
            m.add_joint(f"left{k}", "revolute", f"b{k}a", f"{prev}b")
            m.add_joint(f"right{k}", "revolute", f"b{k}b", f"r{k}b")
        prev = f"r{k}"
    return m


@pytest.mark.parametrize("n", [8, 14])
def test_banded_rank_test_matches_gram_schmidt(n: int) -> None:
    """The skipping banded Cholesky keeps exactly the rows greedy Gram-Schmidt keeps, and the
    ladder reports 3 redundant equations per loop and 1 freedom."""
    from solver.kernels.constraints import body_arrays, evaluate, global_jacobian
    from solver.algebra import rank
    from solver.algebra.newton import scales
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = ladder(n)
    model = compile_model(m)
    s0 = read_state(model, m)
    r, p = s0.r, s0.p
    J = global_jacobian(model, evaluate(model, *body_arrays(model, r, p)[:2]).jac)
    rows = np.arange(model.nc)
    rs, cw = scales(model)
    banded = rank._banded_independent(model, J * rs[:, None] / cw[None, :], rows)
    assert banded is not None and model.nc > 60
    orig = rank._banded_independent
    try:
        rank._banded_independent = lambda *a: None
        dense = rank.independent_rows(model, J, rows)
    finally:
        rank._banded_independent = orig
    np.testing.assert_array_equal(banded, dense)
    report = m.check()
    assert report.dof == 1
    assert sum(len(v) for v in report.redundant.values()) == 3 * (n - 1)


@pytest.mark.parametrize("motions", [("pivot0",), ("pivot0", "pivot9")])
def test_rank_test_with_motions_after_the_joints(motions, monkeypatch) -> None:
    """Motion rows come after all joint rows, out of band order: the banded test re-sorts
    the rows by body, and only trusts that order when every row is independent (then the
    order does not matter); a conflicting second motion falls back to the ordered greedy
    test, which names the later motion."""
    from solver.algebra import rank
    from solver.analyses.start.assembly import assemble_state
    from solver.analyses.structure import structure
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = ladder(14)
    for j in motions:
        m.add_motion(f"drive_{j}", j, "0.1*t")
    model = compile_model(m)
    s0 = read_state(model, m)
    r, p = s0.r, s0.p
    r, p = assemble_state(model, r, p)
    st = structure(model, r, p)
    monkeypatch.setattr(rank, "_banded_independent", lambda *a: None)
    ref = structure(model, r, p)
    np.testing.assert_array_equal(st.keep, ref.keep)
    assert st.bad_motions == ref.bad_motions == [f"drive_{j}" for j in motions[1:]]
    assert st.driven_dof == 0


def test_band_cholesky_is_numpy_cholesky() -> None:
    """band_cholesky's factor in band storage equals the dense Cholesky factor's band (the
    rank test's one-call path), and a matrix that is not positive definite gives None."""
    from solver.algebra.banded import band_cholesky, banded_solver
    if banded_solver() is None:
        pytest.skip("no LAPACK dpbsv in this numpy")
    rng = np.random.default_rng(3)
    n, kd = 40, 4
    X = rng.standard_normal((n, n + 5))
    X *= np.abs(np.subtract.outer(np.arange(n), np.arange(n + 5) * n / (n + 5))) < 2.5
    G = X @ X.T
    G[np.abs(np.subtract.outer(np.arange(n), np.arange(n))) > kd] = 0.0
    G += n * np.eye(n)                       # positive definite after the band cut
    band = np.zeros((n, kd + 1))
    for d in range(kd + 1):
        band[: n - d, d] = np.diagonal(G, -d)
    L = band_cholesky(band)
    ref = np.linalg.cholesky(G)
    for d in range(kd + 1):
        np.testing.assert_allclose(L[: n - d, d], np.diagonal(ref, -d), rtol=1e-12, atol=1e-12)
    band[7, 0] = -1.0
    assert band_cholesky(band) is None


def test_rank_test_of_independent_rows_takes_one_cholesky(monkeypatch) -> None:
    """A long chain (every row independent): the rank test's one banded Cholesky keeps every
    row, as greedy Gram-Schmidt does, without the row-by-row loop."""
    from solver.algebra import rank
    from solver.kernels.constraints import body_arrays, evaluate, global_jacobian
    from solver.algebra.newton import scales
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = chain(40)
    model = compile_model(m)
    s0 = read_state(model, m)
    J = global_jacobian(model, evaluate(model, *body_arrays(model, s0.r, s0.p)[:2]).jac)
    rows = np.arange(model.nc)
    rs, cw = scales(model)
    calls = []
    orig = np.linalg.solve
    monkeypatch.setattr(np.linalg, "solve", lambda *a: calls.append(1) or orig(*a))
    fast = rank._banded_independent(model, J * rs[:, None] / cw[None, :], rows)
    assert calls == [] and model.nc == 120
    monkeypatch.setattr(rank, "_banded_independent", lambda *a: None)
    np.testing.assert_array_equal(fast, rank.independent_rows(model, J, rows))
    np.testing.assert_array_equal(fast, rows)


@pytest.mark.parametrize("which", ["chain", "slider_crank", "ladder"])
def test_rank_test_one_cholesky_agrees_with_the_loop(which, monkeypatch) -> None:
    """Small row sets (Gram-Schmidt's) and large ones (the banded loop's): the one-Cholesky
    answer (every row clearly independent) or its fallback keeps exactly the rows the
    row-by-row test keeps, joints then motions; the redundant rows of the ladder and of
    the planar slider-crank (a loop of revolutes) take the fallback."""
    from mechanisms import slider_crank
    from solver.algebra import rank
    from solver.analyses.structure import structure
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    from solver.analyses.start.assembly import assemble_state
    m = {"chain": lambda: chain(6), "slider_crank": slider_crank, "ladder": lambda: ladder(5)}[which]()
    model = compile_model(m)
    s0 = read_state(model, m)
    r, p = assemble_state(model, s0.r, s0.p)
    fast = structure(model, r, p)
    monkeypatch.setattr(rank, "_clearly_independent", lambda *a, **k: False)
    slow = structure(model, r, p)
    np.testing.assert_array_equal(fast.keep, slow.keep)
    np.testing.assert_array_equal(fast.redundant, slow.redundant)
    assert (len(fast.redundant) > 0) == (which != "chain")     # planar loops: redundant rows
