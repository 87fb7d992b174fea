"""Design studies (solver/study/): every variant equals a solve of the same mechanism
built by hand; Latin hypercubes are reproducible and stratified; a failing variant is reported
by index while the others finish; threads and a local Dask cluster give the local run's
numbers; bad input is refused before anything runs.  Named expression constants and pickling
(what the executors need) are tested here too."""
from __future__ import annotations

import concurrent.futures as cf
import copy
import csv
import math
import pickle

import numpy as np
import pytest

from mechanisms import PI, benchmark_chain, driven_wheel, four_bar, pendulum, slider_crank
from solver import (Mechanism, MechanismError, SolverCancelled, SolverError, Study, StudyError,
                    grid, latin_hypercube)
from solver.analyses.run import settings
from solver.study import Samples, VariantBatch, parameter_names, solve_batch
from solver.vocabulary.expressions import parse

REL = 1e-10


def close(a, b, rel: float = REL) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and float(np.max(np.abs(a - b), initial=0.0)) <= rel * max(
        float(np.max(np.abs(b), initial=0.0)), 1.0)


def same_run(r, ref, parts, joints, motions=()) -> None:
    """Positions of ``parts``, reactions of ``joints`` and efforts of ``motions`` agree."""
    assert np.array_equal(r.times, ref.times)
    for p in parts:
        assert close(r.position(p), ref.position(p)), p
        assert close(r.orientation(p), ref.orientation(p)), p
    for j in joints:
        for a, b in zip(r.reaction(j), ref.reaction(j)):
            assert close(a, b), j
    for m in motions:
        assert close(r.effort(m), ref.effort(m)), m


# ---------------------------------------------------------------- mechanisms built by hand
def crank_by_hand(radius: float, rod: float, theta0: float = 0.0) -> Mechanism:
    """tests/mechanisms.slider_crank placed as built for r = 0.1, l = 0.3, with the crank pin
    marker at ``radius`` and the rod's wrist marker at ``rod``: what the study's variant of
    crank_A.position.x, rod_B.position.x must be."""
    base = slider_crank(theta0=theta0, error_deg=0.0, error_m=0.0)
    m = Mechanism(gravity=base.gravity)
    for p in base.parts.values():
        m.add_part(p.name, p.fixed, p.mass, None if p.fixed else p.inertia, p.center_of_mass,
                   p.position, p.orientation)
    for k in base.markers.values():
        pos = {"crank_A": (radius, 0, 0), "rod_B": (rod, 0, 0)}.get(k.name, k.position)
        m.add_marker(k.name, k.part, pos, k.orientation)
    for j in base.joints.values():
        m.add_joint(j.name, j.kind, j.marker_i, j.marker_j)
    m.add_motion("drive", "crank_pin", base.motions["drive"].source)
    return m


def swing_by_hand(mass: float, stiffness: float) -> Mechanism:
    """A pendulum swinging under gravity about world y on a torsion spring "hinge"."""
    m = pendulum(axis="y", mass=mass)
    m.add_torsion_spring("hinge", "pin", stiffness=stiffness, damping=0.05)
    return m


SC_PARTS, SC_JOINTS = ("crank", "rod", "slider"), ("crank_pin", "crank_rod", "wrist", "slide")


# ---------------------------------------------------------------- every variant = by hand
def test_kinematic_sweep_of_crank_radius_and_rod_length_matches_solves_by_hand() -> None:
    m = slider_crank(error_deg=0.0, error_m=0.0)
    before = m.markers["crank_A"].position.copy()
    levels = {"crank_A.position.x": [0.08, 0.12], "rod_B.position.x": [0.25, 0.4]}
    res = m.study(grid(levels), duration=0.5, fps=24)
    assert res.failures == {} and len(res) == 4
    assert res.variants[1] == {"crank_A.position.x": 0.08, "rod_B.position.x": 0.4}
    assert np.array_equal(res.values, [[0.08, 0.25], [0.08, 0.4], [0.12, 0.25], [0.12, 0.4]])
    for i, row in enumerate(res.variants):
        ref = crank_by_hand(row["crank_A.position.x"], row["rod_B.position.x"]).solve(
            duration=0.5, fps=24)
        r = res.result(i)
        same_run(r, ref, SC_PARTS, SC_JOINTS, ("drive",))
        # the summary is read from that Result
        size = np.linalg.norm(ref.reaction("wrist")[0], axis=1)
        assert math.isclose(res.summary["peak reaction wrist"][i], size.max(), rel_tol=1e-12)
        assert math.isclose(res.summary["rms reaction wrist"][i], np.sqrt(np.mean(size ** 2)),
                            rel_tol=1e-12)
        assert math.isclose(res.summary["peak effort drive"][i], np.abs(ref.effort("drive")).max(),
                            rel_tol=1e-12)
        x = ref.position("slider")[:, 0]                  # slide = slider x (rail along x)
        assert math.isclose(res.summary["max slide slide"][i], x.max(), rel_tol=1e-9)
        assert math.isclose(res.summary["min slide slide"][i], x.min(), rel_tol=1e-9)
    # the crank turns a half turn in 0.5 s: its angle runs 0 .. pi
    assert np.allclose(res.summary["max crank_pin angle"], PI, rtol=1e-9)
    assert np.array_equal(m.markers["crank_A"].position, before)      # the user's is untouched


def test_dynamic_pendulum_sweep_of_mass_and_spring_rate_matches_solves_by_hand() -> None:
    m = swing_by_hand(1.0, 1.0)
    res = m.study(grid({"bob.mass": [0.5, 2.0], "hinge.stiffness": [0.0, 40.0]}),
                  duration=0.5, fps=24, metrics={"lowest z": lambda r: r.center_of_mass("bob")[:, 2].min()})
    assert res.failures == {}
    for i, row in enumerate(res.variants):
        ref = swing_by_hand(row["bob.mass"], row["hinge.stiffness"]).solve(duration=0.5, fps=24)
        assert res.result(i).analysis == "dynamic"
        same_run(res.result(i), ref, ("bob",), ("pin",))
        assert res.summary["lowest z"][i] == ref.center_of_mass("bob")[:, 2].min()
    # a stiffer spring holds the bob higher; mass changes the reaction
    z = res.summary["lowest z"]
    assert z[1] > z[0] and z[3] > z[2]
    assert res.best("lowest z", minimize=False) in (1, 3)


def test_expression_constants_force_constants_and_gravity_as_parameters() -> None:
    def by_hand(omega: float, push: float, g: float) -> Mechanism:
        m = pendulum(axis="y", gravity=(0.0, 0.0, g))
        m.add_marker("tip", "bob", position=(1.0, 0, 0))
        m.add_force("kick", "tip", force=(0.0, 0.0, "F*sin(w*t)"), constants={"F": push, "w": omega})
        return m

    base = by_hand(3.0, 1.0, -9.81)
    rows = [{"kick.F": 2.0, "kick.w": 5.0, "gravity.z": -9.81}, {"kick.F": 0.5, "kick.w": 1.0, "gravity.z": -3.7}]
    res = base.study(rows, times=[0.0, 0.1, 0.2, 0.3])
    assert res.failures == {}
    for i, row in enumerate(rows):
        ref = by_hand(row["kick.w"], row["kick.F"], row["gravity.z"]).solve(times=[0.0, 0.1, 0.2, 0.3])
        same_run(res.result(i), ref, ("bob",), ("pin",))
    # a motion's constant: the wheel's speed
    c = driven_wheel("omega*t", {"omega": 1.0})
    res = c.study({"spin.omega": [1.0, 2.0]}, times=[0.0, 0.5])
    assert np.allclose(res.summary["max axle angle"], [0.5, 1.0], rtol=1e-12)
    assert np.allclose(res.summary["peak effort spin"], 0.0, atol=1e-12)


def test_a_shared_constant_varies_every_expression_that_uses_it() -> None:
    """"constants.<name>" sets the constant in every motion and force that uses it (the
    Blender scene's Constants are one list for all expressions): a wheel driven at omega
    with a torque omega N m on a second, free wheel; each variant equals the mechanism
    built by hand with that omega in both, and naming the constant twice is refused."""
    def by_hand(omega: float) -> Mechanism:
        c = Mechanism(gravity=(0.0, 0.0, 0.0))
        c.add_part("ground", fixed=True)
        for w in ("wheel", "free"):
            c.add_part(w, mass=1.0, inertia=(0.1, 0.1, 0.1))
            c.add_marker(f"{w} hub", w)
        c.add_marker("O", "ground")
        c.add_joint("axle", "revolute", "wheel hub", "O")
        c.add_joint("bearing", "revolute", "free hub", "O")
        c.add_motion("spin", "axle", "omega*t", constants={"omega": omega})
        c.add_force("twist", "free hub", torque=(0.0, 0.0, "omega"), constants={"omega": omega})
        return c

    base = by_hand(1.0)
    assert "constants.omega" in parameter_names(base)
    times = [0.0, 0.25, 0.5]
    res = base.study({"constants.omega": [2.0, 3.0]}, times=times)
    assert res.failures == {}
    for i, omega in enumerate((2.0, 3.0)):
        ref = by_hand(omega).solve(times=times)
        same_run(res.result(i), ref, ("wheel", "free"), ("axle", "bearing"))
        # the free wheel: I w' = omega N m, from rest
        assert np.isclose(res.result(i).angular_velocity("free")[-1, 2], omega / 0.1 * 0.5,
                          rtol=1e-9)
    assert np.allclose(res.summary["max axle angle"], [1.0, 1.5], rtol=1e-12)
    with pytest.raises(StudyError, match="set the same value"):
        base.study({"constants.omega": [1.0], "spin.omega": [2.0]}, times=times)
    with pytest.raises(StudyError, match=r"no motion, force or spring uses a named constant 'w'; the "
                                         r"named constants are: omega"):
        base.study({"constants.w": [1.0]}, times=times)


def test_a_spring_actuators_constants_are_parameters() -> None:
    """A spring-damper's text actuator and a torsion spring's take named constants as
    motions do: each is a study parameter ("<spring>.F"), with the spring's own fields
    beside it, and shared ones vary with "constants.<name>"; every variant equals the
    mechanism built by hand; an unused or misplaced constant is refused by name."""
    def by_hand(F: float, stiffness: float, T: float) -> Mechanism:
        m = swing_by_hand(1.0, 1.0)
        m.add_marker("top", "ground", position=(0.0, 0.0, 2.0))
        m.add_marker("bob top", "bob", position=(0.0, 0.0, 0.1))
        m.add_spring_damper("cord", "bob top", "top", stiffness=stiffness,
                            actuator="F*(1 + 0.1*speed)", constants={"F": F})
        m.add_torsion_spring("twist", "pin", actuator="T*sin(t)", constants={"T": T})
        return m

    base = by_hand(2.0, 5.0, 0.5)
    names = parameter_names(base)
    assert {"cord.F", "cord.stiffness", "twist.T", "constants.F", "constants.T"} <= set(names)
    times = [0.0, 0.2, 0.4]
    rows = [{"cord.F": 3.0, "cord.stiffness": 8.0, "constants.T": 0.25},
            {"cord.F": 0.5, "cord.stiffness": 5.0, "constants.T": 1.0}]
    res = base.study(rows, times=times)
    assert res.failures == {}
    for i, row in enumerate(rows):
        ref = by_hand(row["cord.F"], row["cord.stiffness"], row["constants.T"]).solve(times=times)
        same_run(res.result(i), ref, ("bob",), ("pin",))
    assert pickle.loads(pickle.dumps(base.springs["cord"].actuator))(0.0, 1.0, 2.0) == 2.0 * 1.2
    with pytest.raises(MechanismError, match=r"spring-damper 's': the constant\(s\) 'G' appear in "
                                             r"no expression"):
        base.add_spring_damper("s", "bob top", "top", actuator="F*t", constants={"F": 1.0, "G": 2.0})
    with pytest.raises(MechanismError, match="named constants apply to an expression string only"):
        base.add_torsion_spring("s", "pin", actuator=1.0, constants={"F": 1.0})
    with pytest.raises(MechanismError, match=r"'speed' cannot be used as a constant's name"):
        base.add_spring_damper("s", "bob top", "top", actuator="speed", constants={"speed": 1.0})


# ---------------------------------------------------------------- samples
def test_each_parameter_says_what_it_measures() -> None:
    """solver.study.quantity: what a user interface needs to show a parameter's range in its
    own units (the Blender panel's Start and Stop): a limit's bounds by its coordinate (the
    crank's angle, the slider's slide), lengths, a mass, velocities, gravity; anything with
    another unit (a stiffness, an inertia, an expression's constant) ""."""
    from solver.study import quantity
    m = slider_crank()
    m.add_limit("crank stop", "crank_pin", lower=-1.0, upper=1.0)
    m.add_limit("slide stop", "slide", lower=0.0, stiffness=1e4, penetration=1e-3)
    m.add_torsion_spring("coil", "crank_rod", stiffness=2.0, free_angle=0.1)
    m.add_spring_damper("pull", "rod_B", "rail", stiffness=5.0, free_length=0.2)
    m.add_friction("dry", "slide", static=0.2, bearing_length=0.05)
    want = {"crank stop.lower": "angle", "crank stop.restitution": "",
            "slide stop.lower": "length", "slide stop.penetration": "length",
            "slide stop.stiffness": "", "coil.free_angle": "angle", "coil.stiffness": "",
            "pull.free_length": "length", "pull.preload": "", "dry.bearing_length": "length",
            "dry.static": "", "crank.mass": "mass", "crank.inertia.zz": "",
            "crank.center_of_mass.x": "length", "slider.velocity.x": "velocity",
            "rod.angular_velocity.z": "angular velocity", "crank_A.position.y": "length",
            "gravity.z": "acceleration"}
    assert {n: quantity(m, n) for n in want} == want
    # a general coupler's scales: per length on a slide, none on an angle
    m.add_coupler("tie", ["slide", "crank_pin"], [2.0, -1.0], ["slide", "angle"])
    assert (quantity(m, "tie.scale1"), quantity(m, "tie.scale2")) == ("per length", "")
    with pytest.raises(StudyError, match="unknown parameter 'crank.mas'"):
        quantity(m, "crank.mas")
    # and what each built-in summary column is in (a plot's axis label)
    from solver.study.table import column_units, result_columns
    units = column_units(m)
    assert set(units) == set(result_columns(m))
    assert (units["peak reaction wrist"], units["rms reaction slide"], units["peak effort drive"],
            units["min crank_pin angle"], units["max slide slide"]) == ("N", "N", "N m", "rad", "m")


def test_latin_hypercube_is_reproducible_by_seed_and_stratified() -> None:
    ranges = {"crank.mass": (1.0, 3.0), "rod.mass": (0.5, 0.6), "gravity.z": (-10.0, -9.0)}
    a, b = latin_hypercube(ranges, 17, seed=42), latin_hypercube(ranges, 17, seed=42)
    assert np.array_equal(a.values, b.values) and a.names == tuple(ranges)
    assert not np.array_equal(a.values, latin_hypercube(ranges, 17, seed=43).values)
    for j, (lo, hi) in enumerate(ranges.values()):
        strata = np.floor((a.values[:, j] - lo) / (hi - lo) * 17).astype(int)
        assert sorted(strata) == list(range(17))          # one point in each of 17 strata
    assert a.values.shape == (17, 3) and len(a.rows()) == 17
    g = grid({"a": [1, 2, 3], "b": 5.0})
    assert g.values.tolist() == [[1, 5], [2, 5], [3, 5]]
    assert Samples.from_rows([{"a": 1, "b": 2}, {"b": 4, "a": 3}]).values.tolist() == [[1, 2], [3, 4]]


# ---------------------------------------------------------------- failures
def crank_with_a_short_rod():
    """Crank built at 90 degrees: a 0.05 m rod cannot reach the rail (assembly fails)."""
    return slider_crank(theta0=PI / 2, error_deg=0.0, error_m=0.0)


def test_a_failing_variant_is_reported_by_index_while_the_others_finish() -> None:
    m = crank_with_a_short_rod()
    res = m.study({"rod_B.position.x": [0.3, 0.05, 0.4]}, duration=0.25, fps=24)
    assert list(res.failures) == [1]
    assert "assembly failed" in res.failures[1] and "'crank_rod'" in res.failures[1]
    with pytest.raises(SolverError, match=r"variant 1 \(rod_B.position.x = 0.05\) failed: .*assembly"):
        res.result(1)
    assert np.isnan(res.summary["peak reaction wrist"][1])
    assert res.summary["rod_B.position.x"][1] == 0.05           # the parameters are kept
    assert res.best("peak effort drive") in (0, 2)
    for i, rod in ((0, 0.3), (2, 0.4)):
        same_run(res.result(i), crank_by_hand(0.1, rod, PI / 2).solve(duration=0.25, fps=24),
                 SC_PARTS, SC_JOINTS, ("drive",))
    assert res.results[1] is None and np.isfinite(res.seconds).all()


def test_the_tables_joint_angles_keep_their_turns_between_coarse_frames() -> None:
    """A wheel driven at w t + t^2/2 with w = 90 and 100 rad/s, 3.75 and 4.2 rad between
    frames at 24 fps, and the other way (w = -100): the table's max and min axle angle are
    the motion's extremes, at 0 and 1 s (w + 0.5, or 0 and -99.5; to 1e-9 of them).
    Unwrapped frame to frame alone, 4.2 rad forward read as 2.1 back: the max was 0.0 for
    100.5 rad."""
    m = driven_wheel("w*t + 0.5*t**2", {"w": 100.0})
    res = m.study({"spin.w": [100.0, 90.0, -100.0]}, duration=1.0, fps=24)
    top = np.array([100.5, 90.5, 0.0])
    low = np.array([0.0, 0.0, -99.5])
    np.testing.assert_allclose(res.summary["max axle angle"], top, rtol=0.0, atol=1e-9 * 100.5)
    np.testing.assert_allclose(res.summary["min axle angle"], low, rtol=0.0, atol=1e-9 * 100.5)


def test_summary_csv_and_cancel(tmp_path) -> None:
    m = crank_with_a_short_rod()
    res = m.study({"rod_B.position.x": [0.3, 0.05]}, duration=0.1, fps=24,
                  metrics={"bad": lambda r: 1 / 0, "first x": lambda r: r.position("slider")[0, 0]})
    path = tmp_path / "study.csv"
    res.to_csv(path)
    rows = list(csv.reader(open(path, encoding="utf-8")))
    assert rows[0][:2] == ["variant", "rod_B.position.x"] and rows[0][-1] == "failure"
    assert rows[0].index("peak reaction crank_pin") == 2 and "first x" in rows[0]
    assert float(rows[1][2]) == res.summary["peak reaction crank_pin"][0]
    assert rows[2][2] == "nan" and rows[2][-1].startswith("SolverError: assembly failed")
    # (the slider-crank's four lower pairs in a plane: its reaction columns least-norm)
    assert res.notes[1:] == ["metric 'bad' failed on variant 0: ZeroDivisionError: division by zero"]
    assert "least-norm shares" in res.notes[0]
    assert np.isnan(res.summary["bad"]).all()
    # progress(variants done, in all); False cancels, the rest are "not run" (batches of one
    # variant: each solved alone, so two finish before the cancel; a batched run's
    # cancel is tests/test_study_batch.py's)
    seen = []
    with pytest.raises(SolverCancelled) as info:
        m.study({"rod_B.position.x": [0.3, 0.35, 0.4]}, duration=0.1, fps=24, batch_size=1,
                progress=lambda k, n: seen.append((k, n)) or k < 2)
    assert seen == [(1, 3), (2, 3)]
    partial = info.value.result
    assert list(partial.failures) == [2] and "cancelled" in partial.failures[2]
    assert len(partial.result(1)) == 3          # frames 0, 1/24, 2/24


# ---------------------------------------------------------------- executors
def crank_study():
    return Study(crank_with_a_short_rod(), {"rod_B.position.x": [0.3, 0.05, 0.4, 0.35, 0.45],
                                            "crank_A.position.x": [0.1, 0.12]},
                 metrics={"mean x": lambda r: float(r.position("slider")[:, 0].mean())})


def same_study(a, b, rtol: float = 0.0) -> None:
    """The same study: exactly (rtol 0), or to ``rtol`` (a batched sweep split otherwise:
    its frames agree to Newton's tolerance, 1e-12 of the size; README, "Beyond one
    machine")."""
    assert a.failures == b.failures and list(a.summary) == list(b.summary)
    for k in a.summary:
        np.testing.assert_allclose(a.summary[k], b.summary[k], rtol=rtol, atol=0)
    for i in range(len(a)):
        if i not in a.failures:
            np.testing.assert_allclose(a.result(i).position("slider"),
                                       b.result(i).position("slider"), rtol=0, atol=1e-12)
            np.testing.assert_allclose(a.result(i).reaction("wrist")[0],
                                       b.result(i).reaction("wrist")[0], rtol=rtol, atol=rtol)
            if rtol == 0.0:
                assert np.array_equal(a.result(i).position("slider"),
                                      b.result(i).position("slider"))


def test_a_thread_pool_gives_the_local_numbers() -> None:
    """A batched sweep split over two threads (five variants a batch against ten): the
    local numbers to Newton's tolerance; one variant a batch (each swept alone, here and
    locally with batches of one): bit for bit.  The lockstep dynamics' bit-for-bit case is
    the Dask test's."""
    study = crank_study()
    local = study.run(duration=0.25, fps=24)
    assert sorted(local.failures) == [2, 3]                      # the 0.05 m rod
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        done = []
        threads = study.run(duration=0.25, fps=24, executor=pool,
                            progress=lambda k, n: done.append((k, n)))
        same_study(local, threads, rtol=1e-10)
        assert sorted(done)[-1] == (10, 10) and len(done) == 2   # one batch per worker
        same_study(local, study.run(duration=0.25, fps=24, executor=pool, batch_size=3),
                   rtol=1e-10)
        alone = study.run(duration=0.25, fps=24, batch_size=1)
        same_study(alone, study.run(duration=0.25, fps=24, executor=pool, batch_size=1))


@pytest.mark.slow
def test_lockstep_dynamics_split_over_threads_gives_the_local_bits() -> None:
    """60 variants of a 10-link chain (600 bodies in the local lockstep run, 300 in each
    thread's): the split run gives the local numbers bit for bit.  Every operation gives a
    variant the same bits wherever it stands in a stack of any size: the stages' sum keeps
    clear of BLAS's last columns (explicit._PAD: before, the last variant of a stack differed
    by 1e-18 m), and rotations.QUATS_OUTER counts a state's bodies, not the stack."""
    study = Study(benchmark_chain(10), latin_hypercube({f"link{k}.mass": (0.8, 1.2)
                                                        for k in range(10)}, 60, seed=2))
    local = study.run(duration=0.2, fps=24)
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        split = study.run(duration=0.2, fps=24, executor=pool)
    assert not local.failures and not split.failures
    for i in range(len(study)):
        assert np.array_equal(local.result(i)._r, split.result(i)._r)
        assert np.array_equal(local.result(i)._reaction, split.result(i)._reaction)


def test_batches_pickle_and_solve_alike() -> None:
    """What an executor gets is plain data: a batch pickles, and solving the unpickled batch
    (a Result pickled back too) gives the same numbers."""
    study = crank_study()
    batch = VariantBatch(study.base, study.samples.names, study.samples.values[:2], (0, 1))
    times, how = np.arange(4) / 24.0, settings()
    here = solve_batch(batch, times, how)
    there = pickle.loads(pickle.dumps(solve_batch(pickle.loads(pickle.dumps(batch)), times, how)))
    for a, b in zip(here, there):
        assert a.index == b.index and a.failure == b.failure
        assert np.array_equal(a.result.reaction("slide")[0], b.result.reaction("slide")[0])


@pytest.mark.slow
def test_a_local_dask_cluster_gives_the_local_numbers() -> None:
    distributed = pytest.importorskip("distributed")
    study = Study(swing_by_hand(1.0, 1.0), grid({"bob.mass": [0.5, 2.0], "hinge.stiffness": [0.0, 40.0]}))
    local = study.run(duration=0.25, fps=24)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = study.run(duration=0.25, fps=24, executor=client.get_executor())
        same_dynamic = [np.array_equal(local.result(i).position("bob"), remote.result(i).position("bob"))
                        for i in range(len(local))]
        assert all(same_dynamic)
        for k in local.summary:
            np.testing.assert_array_equal(local.summary[k], remote.summary[k])
        assert local.failures == remote.failures == {}


# ---------------------------------------------------------------- bad input, before running
def test_bad_input_is_refused_before_anything_runs() -> None:
    m = slider_crank(error_deg=0.0, error_m=0.0)
    calls = []
    metric = {"x": lambda r: calls.append(1) or 0.0}
    cases = [
        ({"crank.mas": [1.0]}, r"unknown parameter 'crank.mas': part 'crank' has no parameter "
                               r"'mas'; its parameters: mass, center_of_mass.x"),
        ({"crnk.mass": [1.0]}, r"no item of the mechanism is named 'crnk' \(did you mean 'crank.mass'"),
        ({"ground.mass": [1.0]}, r"part 'ground' is fixed"),
        ({"drive.omega": [1.0]}, r"motion 'drive' has no named constants"),
        ({"gravity.w": [1.0]}, r"gravity.x, gravity.y and gravity.z"),
        ({"crank.mass": [1.0, 0.0]}, r"variant 1: crank.mass = 0: part 'crank': mass must be positive"),
        ({"crank.inertia.xx": [1.0]}, r"variant 0: crank.inertia.xx = 1: part 'crank': inertia "
                                      r"breaks the triangle inequality"),
        ({"crank.inertia.xy": [0.1]}, r"not positive definite"),
        ({"crank.mass": []}, r"crank.mass has no values \(an empty range\)"),
        ({"crank.mass": [1.0, float("nan")]}, r"NaN"),
        ([], r"no variants"),
        ([{"crank.mass": 1.0}, {"rod.mass": 1.0}], r"variant 1: every sample needs the same"),
        ({"crank.inertia.xy": [0.001], "crank.inertia.yx": [0.001]}, r"set the same value"),
    ]
    for spec, message in cases:
        with pytest.raises(StudyError, match=message):
            m.study(spec, duration=0.1, metrics=metric)
    with pytest.raises(StudyError, match=r"range \(2, 2\) is empty"):
        latin_hypercube({"crank.mass": (2.0, 2.0)}, 4, seed=1)
    with pytest.raises(StudyError, match="at least 1, got 0"):
        latin_hypercube({"crank.mass": (1.0, 2.0)}, 0, seed=1)
    with pytest.raises(StudyError, match="two columns"):
        Study(m, {"crank.mass": [1.0]}, metrics={"peak effort drive": len})
    with pytest.raises(StudyError, match="batch_size"):
        Study(m, {"crank.mass": [1.0]}).run(duration=0.1, batch_size=0)
    with pytest.raises(MechanismError, match="duration"):
        Study(m, {"crank.mass": [1.0]}).run()
    assert calls == []
    # a spring's parameters, a distance joint's length, all the names listed
    names = parameter_names(swing_by_hand(1.0, 1.0))
    assert {"hinge.stiffness", "hinge.free_angle", "bob.inertia.yz", "P.position.z",
            "gravity.x"} <= set(names)


def test_counts_executors_and_callbacks_a_study_cannot_take_are_named() -> None:
    """More variants than MAX_VARIANTS (a latin hypercube of 10**13, a grid of 10**10,
    samples of 10**6 + 1 rows), an executor without submit and a progress that is not a
    function: a StudyError naming what is wrong, before anything is allocated or run."""
    from solver.study.samples import MAX_VARIANTS, Samples
    m = slider_crank(error_deg=0.0, error_m=0.0)
    with pytest.raises(StudyError, match=r"latin_hypercube: 10000000000000 variants is more "
                                         r"than a study takes \(at most 1000000"):
        latin_hypercube({"crank.mass": (1.0, 2.0)}, 10 ** 13, seed=1)
    with pytest.raises(StudyError, match=r"grid: 10000000000 variants is more than"):
        grid({"crank.mass": np.linspace(1.0, 2.0, 10 ** 5), "rod.mass": np.linspace(1.0, 2.0, 10 ** 5)})
    with pytest.raises(StudyError, match=r"samples: 1000001 variants"):
        Samples(["crank.mass"], np.ones(MAX_VARIANTS + 1))
    assert len(latin_hypercube({"crank.mass": (1.0, 2.0)}, MAX_VARIANTS, seed=1)) == MAX_VARIANTS
    study = Study(m, {"crank.mass": [1.0, 2.0]})
    with pytest.raises(StudyError, match=r"executor must have submit\(fn, \*args\).*got <object"):
        study.run(duration=0.1, executor=object())
    with pytest.raises(StudyError, match=r"progress must be a function progress\(variants done, "
                                         r"variants in all\) or None, got 5"):
        m.study({"crank.mass": [1.0, 2.0]}, duration=0.1, progress=5)


def test_dotted_item_names_and_variants_as_mechanisms() -> None:
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("Arm.001", mass=1.0, inertia=(0.1, 0.1, 0.1))
    m.add_marker("Arm.001.hub", "Arm.001")
    m.add_marker("O", "ground")
    m.add_joint("hinge", "revolute", "Arm.001.hub", "O")
    s = Study(m, {"Arm.001.mass": [2.0], "Arm.001.hub.position.y": [0.5]})
    v = s.variant(0)
    assert v.parts["Arm.001"].mass == 2.0 and v.markers["Arm.001.hub"].position[1] == 0.5
    assert list(v.markers) == list(m.markers) and m.parts["Arm.001"].mass == 1.0
    assert isinstance(v, Mechanism)


# ---------------------------------------------------------------- named expression constants
def test_named_constants_in_expressions() -> None:
    e = parse("a*t + b", ("t",), constants={"a": 2.0, "b": 1.0})
    assert e(t=3.0) == 7.0 and e.constants_used == {"a", "b"}
    assert parse("sin(t)", constants={"a": 1.0}).constants_used == frozenset()
    from solver.base.errors import ExpressionError
    for bad, msg in (({"pi": 1.0}, "cannot be used as a constant"), ({"t": 1.0}, "cannot be used"),
                     ({"sin": 1.0}, "cannot be used"), ({"a": "x"}, "must be a number"),
                     ({"a": math.inf}, "finite")):
        with pytest.raises(ExpressionError, match=msg):
            parse("a*t", constants=bad)
    with pytest.raises(ExpressionError, match="'a' is not a function"):
        parse("a(t)", constants={"a": 1.0})
    m = pendulum()
    with pytest.raises(MechanismError, match=r"constant\(s\) 'b' appear in no expression"):
        m.add_motion("d", "pin", "a*t", constants={"a": 1.0, "b": 2.0})
    with pytest.raises(MechanismError, match="expression string only"):
        m.add_motion("d", "pin", 1.0, constants={"a": 1.0})
    m.add_motion("d", "pin", "a*t", constants={"a": 1.5})
    assert m.motions["d"].function.derivatives(2.0) == (3.0, 1.5, 0.0)
    # pickled as their recipes; a deep copy shares them
    fn = pickle.loads(pickle.dumps(m.motions["d"].function))
    assert fn.derivatives(2.0) == (3.0, 1.5, 0.0)
    assert copy.deepcopy(m).motions["d"].function is m.motions["d"].function


def test_study_notes_the_reaction_columns_that_are_least_norm_shares() -> None:
    """A planar four-bar's joint reactions along z and about x, y are shared by its four
    joints (three redundant equations): every variant's Result names them
    (shared_reactions, as its note does), and the study's notes say once that their
    reaction columns are least-norm shares (only each variant's notes said so). The
    spatial chain has no redundant equation: no such note."""
    m = four_bar(error_deg=0.0, error_m=0.0)
    res = Study(m, grid({"crank.mass": [0.5, 1.0]})).run(duration=0.25, fps=24)
    joints = set(res.result(0).shared_reactions)
    assert joints == {"pivot2", "pin_A", "pin_B", "pivot4"}
    # the components: force along z, torque about x and y (the plane is xy)
    assert set(res.result(1).shared_reactions.values()) == {(2, 3, 4)}
    note, = [n for n in res.notes if "least-norm shares" in n]
    assert all(repr(j) in note for j in joints)
    chain = Study(benchmark_chain(2), grid({"link0.mass": [1.0, 1.5]})).run(duration=0.1, fps=24)
    assert chain.result(0).shared_reactions == {} and chain.notes == []
