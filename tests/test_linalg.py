"""How the solver finds numpy's OpenBLAS: symbol names derived from numpy's own
build report, never guessed; on the test environment's numpy (an OpenBLAS wheel, 1.26 or
2.x) the banded LAPACK solver and the thread control must be found, and a long chain's
J M^-1 J^T must go through dpbsv; where numpy has no OpenBLAS the dense path is taken and
logged."""
from __future__ import annotations

import logging
import os

import numpy as np
import pytest

from solver.algebra import banded, blas
from solver.algebra.banded import BandedSPD, banded_solver
from test_banded import banded_spd, chain

# numpy's own reports (show_config(mode="dicts")["Build Dependencies"]["blas"]), abridged
NUMPY_1_26 = {"name": "openblas64", "found": True, "version": "0.3.23.dev",
              "openblas configuration": "USE_64BITINT=1 DYNAMIC_ARCH=1 DYNAMIC_OLDER= NO_CBLAS= "
                                        "NO_LAPACK= NO_LAPACKE= NO_AFFINITY=1 USE_OPENMP= HASWELL "
                                        "MAX_THREADS=2"}
NUMPY_2_4 = {"name": "scipy-openblas", "found": True, "version": "0.3.31.188.0",
             "openblas configuration": "OpenBLAS 0.3.31.188.0  USE64BITINT DYNAMIC_ARCH "
                                       "NO_AFFINITY Haswell MAX_THREADS=64"}
LP64 = {"name": "openblas", "found": True, "openblas configuration": "USE_64BITINT= DYNAMIC_ARCH=1"}


@pytest.fixture
def fresh_lookup():
    """Look numpy's BLAS up again in this test, and again after it (no state leaks)."""
    blas.forget()
    yield
    blas.forget()


@pytest.mark.parametrize("report, dpbsv, threads", [
    (NUMPY_1_26, "dpbsv_64_", "openblas_set_num_threads64_"),
    (NUMPY_2_4, "scipy_dpbsv_64_", "scipy_openblas_set_num_threads64_"),
    (LP64, "dpbsv_", "openblas_set_num_threads"),
])
def test_names_follow_from_numpys_report(report: dict, dpbsv: str, threads: str) -> None:
    """The exported names of the libraries numpy 1.26 and 2.x bundle (read with nm), and of
    a 32-bit-integer OpenBLAS, from the report alone."""
    build = blas.blas_build(report)
    assert build is not None
    assert build.fortran_name("dpbsv") == dpbsv
    assert build.c_name("openblas_set_num_threads") == threads
    assert build.ilp64 == (report is not LP64)


@pytest.mark.parametrize("report", [
    None, {"name": "accelerate", "found": True}, {"name": "mkl-sdl", "found": True},
    {"name": "openblas", "found": False}, {"name": "blas", "found": True},
])
def test_no_openblas_in_the_report_means_none(report) -> None:
    assert blas.blas_build(report) is None


def test_numpy_here_reports_an_openblas() -> None:
    """The test environment's numpy (a PyPI wheel: OpenBLAS bundled) says so; if a numpy
    stops reporting it, the banded path would silently stop: this fails instead."""
    report = blas.numpy_blas_report()
    assert report is not None, f"numpy {np.__version__} gives no BLAS report"
    assert blas.blas_build(report) is not None, f"numpy {np.__version__} reports {report}"


def test_banded_solver_and_thread_control_are_found(fresh_lookup) -> None:
    """Found by the names numpy's report implies, in a library this process has loaded."""
    build = blas.blas_build(blas.numpy_blas_report())
    lib = blas.numpy_openblas()
    assert lib is not None and os.path.isfile(lib.path)
    if os.path.exists("/proc/self/maps"):
        assert lib.path in {os.path.realpath(p) for p in blas._loaded_libraries()}
    assert ("USE64BITINT" in lib.config.split()) == build.ilp64
    name = os.path.basename(lib.path)
    assert banded_solver() == f"lapack dpbsv via {name} ({build.fortran_name('dpbsv')})"
    assert blas.thread_control() == (f"openblas_set_num_threads via {name} "
                                     f"({build.c_name('openblas_set_num_threads')})")


def test_a_wheels_blas_is_found_without_reading_the_process_map(monkeypatch,
                                                                fresh_lookup) -> None:
    """numpy's wheel keeps its OpenBLAS in its own folder: the library is that loaded file,
    found without reading /proc/self/maps (1.5 ms in Blender, which maps over a hundred
    libraries: paid by a slider's first change), and it is the one mapped."""
    folders = blas._numpy_folders()
    if not any(os.path.isdir(d) and any("blas" in f.lower() for f in os.listdir(d))
               for d in folders):
        pytest.skip("numpy here keeps no BLAS in a folder of its own")
    mapped = blas._loaded_libraries()
    read = []
    monkeypatch.setattr(blas, "_loaded_libraries", lambda: read.append(1) or mapped)
    lib = blas.numpy_openblas()
    assert lib is not None and os.path.dirname(lib.path) in folders
    assert not read
    if mapped:
        assert lib.path in {os.path.realpath(p) for p in mapped}


def test_single_thread_runs_blas_on_one_thread_and_restores(fresh_lookup) -> None:
    setter, getter, _ = blas._thread_api()
    before = int(getter())
    try:
        setter(2)
        inside = blas.single_thread(lambda: int(getter()))()
        assert inside == 1
        assert int(getter()) == 2
    finally:
        setter(before)


def test_long_chain_goes_through_dpbsv(monkeypatch) -> None:
    """A 60-link chain (180 rows): every J M^-1 J^T solve of a dynamic run is a dpbsv call,
    and the run's Schur solver reports the banded route."""
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.structure import structure
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    m = chain(60)
    model = compile_model(m)
    s0 = read_state(model, m)
    band = Equations(model, structure(model, s0.r, s0.p)).schur.band
    assert band.n == 180 and band.banded
    assert band.route == banded_solver() and band.route.startswith("lapack dpbsv via ")

    fn, itype, desc = banded.lapack_dpbsv()
    lapack_calls, routes = [], []

    def counting(*args):
        lapack_calls.append(1)
        return fn(*args)

    def spy(self, vals, S, b):
        routes.append(self.route)
        return solve(self, vals, S, b)

    solve = BandedSPD.solve
    monkeypatch.setattr(banded, "lapack_dpbsv", lambda: (counting, itype, desc))
    monkeypatch.setattr(BandedSPD, "solve", spy)
    res = chain(60).solve(0.05, 24, analysis="dynamic")
    assert res.steps > 0 and len(routes) > 2 * res.steps        # several stages per step
    # (one more dpbsv: the rank test's banded Cholesky of the rows' Gram matrix at the start)
    assert set(routes) == {desc} and len(lapack_calls) == len(routes) + 1


def test_without_openblas_the_dense_path_runs_and_says_so(monkeypatch, caplog, fresh_lookup) -> None:
    """numpy reporting another BLAS: no library is looked for, one warning under "solver",
    the banded solver is None, BandedSPD solves densely (same answer), and single_thread
    leaves the threads alone."""
    monkeypatch.setattr(blas, "numpy_blas_report", lambda: {"name": "accelerate", "found": True})
    with caplog.at_level(logging.WARNING, logger="solver"):
        assert banded_solver() is None
        assert blas.thread_control() is None
    warned = [r for r in caplog.records if r.name.startswith("solver.")]
    assert len(warned) == 1 and "accelerate" in warned[0].getMessage()
    A = banded_spd(120, 4, np.random.default_rng(4), True)
    rows, cols = np.nonzero(A)
    band = BandedSPD(120, rows, cols)
    assert not band.banded and band.route == "dense"
    b = np.arange(120.0)
    np.testing.assert_allclose(band.solve(A[rows, cols], A, b), np.linalg.solve(A, b), rtol=1e-12)
    assert blas.single_thread(lambda x: x + 1)(1) == 2


def test_a_name_not_exported_is_not_found(monkeypatch, caplog, fresh_lookup) -> None:
    """A report whose names the loaded library does not export (numpy 2's prefix on numpy
    1.26's library, or the reverse) finds nothing: no other names are tried."""
    here = blas.blas_build(blas.numpy_blas_report())
    other = NUMPY_2_4 if here.prefix == "" else NUMPY_1_26
    monkeypatch.setattr(blas, "numpy_blas_report", lambda: dict(other))
    with caplog.at_level(logging.WARNING, logger="solver"):
        assert blas.numpy_openblas() is None and banded_solver() is None
    expected = blas.blas_build(other).c_name("openblas_get_config")
    assert any(expected in r.getMessage() for r in caplog.records if r.name == "solver.algebra.blas")


def test_every_public_call_runs_its_lapack_on_one_thread(monkeypatch) -> None:
    """numpy's LAPACK solves (gesv: np.linalg.solve, inv) on two OpenBLAS threads wake the
    worker, which then spins for about 0.1 s: compiling the model (its inertias' inverses)
    outside one thread kept a second core busy through every solve, and a loop of short
    calls (an interactive drag) busy all along (1.99 s of CPU a second of wall). The
    Mechanism's calls and the Poser's run wholly on one thread: every compile inside them
    sees one."""
    from mechanisms import rail_slider
    import solver.mechanism as mech_module
    setter, getter, _ = blas._thread_api()
    seen, real = [], mech_module.compile_model

    def compile_model(*a, **k):
        seen.append(int(getter()))
        return real(*a, **k)
    monkeypatch.setattr(mech_module, "compile_model", compile_model)
    before = int(getter())
    try:
        setter(2)
        m = rail_slider("x", part="s", position=(0.1, 0, 0), anchor=(0, 0, 0), stiffness=10.0)
        m.check()
        m.assemble()
        m.statics()
        m.modes()
        m.solve(0.1, 10)
        poser = m.poser()
        assert int(getter()) == 2                 # (restored after each)
        poser.set_coordinate("rail", 0.05)
    finally:
        setter(before)
    assert seen == [1] * 6
