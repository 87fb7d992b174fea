"""A followed path without Blender (addon/io/follow.py): the C2 not-a-knot spline through
samples against scipy's, its derivatives as the solver reads them through a callable's
exact-derivative numbers, a keyed path in a reference marker's axes against its closed form,
and the fitting error against the true gap."""
from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy.interpolate import CubicSpline

from solver import Mechanism
from test_io_addon import io

follow, keyframes, plots, timeline = io("follow"), io("keyframes"), io("plots"), io("timeline")
Constant, FollowAxis, KeyedPath, SplinePath = (
    follow.Constant, follow.FollowAxis, follow.KeyedPath, follow.SplinePath)
axis_functions, fitting_error, midpoints, sample_frames = (
    follow.axis_functions, follow.fitting_error, follow.midpoints, follow.sample_frames)
Key, KeyframedFunction, KeysInside = keyframes.Key, keyframes.KeyframedFunction, keyframes.KeysInside
FOLLOW_PROPS, follow_plots, Timeline = plots.FOLLOW_PROPS, plots.follow_plots, timeline.Timeline
from solver.vocabulary.timefunctions import time_function


@pytest.mark.parametrize("n", [2, 3, 4, 5, 40])
def test_the_spline_is_scipys_not_a_knot_spline(n: int) -> None:
    """Values, slopes and second derivatives at uneven knots, between them and past both
    ends agree with scipy's CubicSpline(bc_type="not-a-knot") (two knots: the line, three:
    the parabola) to rounding, 1e-9 of values of order 1 on knots of order 1."""
    rng = np.random.default_rng(n)
    ts = np.sort(rng.uniform(0.0, 2.0, n))
    ys = rng.uniform(-1.0, 1.0, (n, 3))
    path, ref = SplinePath(ts, ys), CubicSpline(ts, ys, bc_type="not-a-knot")
    for t in np.linspace(ts[0] - 0.1, ts[-1] + 0.1, 91):
        want = np.stack([ref(t), ref(t, 1), ref(t, 2)])
        np.testing.assert_allclose(path.at(t), want, atol=1e-9 * max(1.0, np.abs(want).max()))


def test_the_solver_reads_the_paths_exact_derivatives_through_a_callable() -> None:
    """A FollowAxis handed to the solver as a callable gives it the spline's own velocity and
    acceleration (not differences): time_function's derivatives equal path.at to rounding,
    on plain times the value alone, and the axis pickles (a study's workers)."""
    ts = np.linspace(0.0, 1.0, 11)
    path = SplinePath(ts, np.column_stack([np.sin(3 * ts), ts ** 3, np.exp(ts)]))
    for axis in range(3):
        fn = time_function(FollowAxis(path, axis, "p"), name="p")
        for t in (0.0, 0.137, 0.5, 0.999):
            assert fn.derivatives(t) == pytest.approx(tuple(path.at(t)[:, axis]), abs=1e-13)
            assert FollowAxis(path, axis, "p")(t) == pytest.approx(path.at(t)[0, axis], abs=1e-15)
    copy = pickle.loads(pickle.dumps(FollowAxis(path, 1, "p")))
    assert copy(0.3) == FollowAxis(path, 1, "p")(0.3)


def test_a_general_motion_follows_a_sampled_path_in_position_velocity_and_acceleration() -> None:
    """A slider on a prismatic joint whose marker follows a spline through samples of 0.2
    sin(2 pi t) along x: the solved position, velocity and acceleration are the spline's
    (the kinematic sweep's Newton tolerance, 1e-9), and the baked follow force is the 1 kg
    slider's m a along x."""
    ts = np.linspace(0.0, 1.0, 25)
    path = SplinePath(ts, np.column_stack([0.2 * np.sin(2 * np.pi * ts), 0 * ts, 0 * ts]))
    m = Mechanism(gravity=(0, 0, 0))
    m.add_part("ground", fixed=True)
    m.add_part("slider", mass=1.0)
    m.add_marker("G", "ground", orientation=(math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0))
    m.add_marker("S", "slider", orientation=(math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0))
    m.add_marker("O", "ground")
    m.add_marker("tip", "slider")
    m.add_joint("rail", "prismatic", "S", "G")
    m.add_general_motion("follow", "tip", "O", **axis_functions(path, (True, False, False), "tip"))
    r = m.solve(duration=1.0, fps=40)
    want = np.array([path.at(t)[:, 0] for t in r.times])
    np.testing.assert_allclose(r.position("slider")[:, 0], want[:, 0], atol=1e-9)
    np.testing.assert_allclose(r.velocity("slider")[:, 0], want[:, 1], atol=1e-9)
    np.testing.assert_allclose(r.acceleration("slider")[:, 0], want[:, 2], atol=1e-7)
    # the bake's series: the force that makes it, m a along x (1 kg, no gravity), on "tip"
    baked = follow_plots(r, {"follow": "tip"})["tip"]
    assert list(baked) == list(FOLLOW_PROPS)
    np.testing.assert_allclose(baked["follow_force_x"], want[:, 2], atol=1e-7)
    np.testing.assert_allclose(baked["follow_force"], np.abs(want[:, 2]), atol=1e-7)


def test_a_keyed_path_in_a_reference_marker_axes() -> None:
    """Location keyed linearly from (1, 2, 3) at frame 11 to (4, 6, 3) at frame 35 (24 fps,
    range 11-35), read in the axes of a marker at (1, 0, 0) turned 90 degrees about z (its x
    is the world's y), at 0.01 m per unit: p_J = 0.01 R^T (p - o), velocity 0.01 R^T (3, 4,
    0) per second; at the first and last keys the keys' own speed (not the extrapolation's
    zero)."""
    tl = Timeline(11, 35, 24.0)
    line = lambda a, b: KeysInside(KeyframedFunction([               # noqa: E731
        Key(11.0, a, (10.0, a), (12.0, a), "LINEAR"), Key(35.0, b, (34.0, b), (36.0, b), "LINEAR")]))
    R = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    path = KeyedPath([line(1.0, 4.0), line(2.0, 6.0), Constant(3.0)], tl, R,
                     np.array([1.0, 0, 0]), 0.01)
    for t in (0.0, 0.4, 1.0):
        p = np.array([1.0, 2.0, 3.0]) + t * np.array([3.0, 4.0, 0.0])
        got = path.at(t)
        np.testing.assert_allclose(got[0], 0.01 * R.T @ (p - [1.0, 0, 0]), atol=1e-15)
        np.testing.assert_allclose(got[1], 0.01 * R.T @ [3.0, 4.0, 0.0], atol=1e-15)
        np.testing.assert_allclose(got[2], 0.0, atol=1e-15)


def test_the_fitting_error_is_the_gap_halfway_between_samples() -> None:
    """Samples of a circle of radius 0.3 once a frame at 24 fps, one turn a second: the gap
    at the midpoints inside is within the cubic spline's bound (5/384) h^4 |p''''| = 1.84e-5
    m (de Boor 1978, ch. IV) and of its order (above half of it); the end intervals, with no
    symmetric cancellation, are up to 2.5 times that, and the fitting error (all midpoints)
    is their largest: no gap at finer times is more than 1.3 times it."""
    tl = Timeline(1, 25, 24.0)

    def circle(t: np.ndarray) -> np.ndarray:
        return 0.3 * np.column_stack([np.cos(2 * np.pi * t), np.sin(2 * np.pi * t), 0 * t])

    frames = sample_frames(tl, 1)
    ts = (frames - 1) / 24
    path = SplinePath(ts, circle(ts))
    mid = (midpoints(frames) - 1) / 24
    predicted = (1 / 24) ** 4 * 5 / 384 * (2 * np.pi) ** 4 * 0.3
    inside = fitting_error(path, mid[1:-1], circle(mid[1:-1]))
    assert predicted / 2 < inside <= predicted
    error = fitting_error(path, mid, circle(mid))
    assert inside <= error <= 2.5 * predicted
    fine = np.linspace(0, 1, 2401)
    assert fitting_error(path, fine, circle(fine)) <= 1.3 * error
    assert len(sample_frames(tl, 4)) == 97


def test_no_follow_axis_ticked_is_refused_by_name() -> None:
    path = SplinePath([0.0, 1.0], np.zeros((2, 3)))
    with pytest.raises(ValueError, match="marker 'tip': tick at least one"):
        axis_functions(path, (False, False, False), "marker 'tip'")


def test_actuator_names_are_joints_separated_by_commas() -> None:
    """Names (spaces around commas, empty entries ignored), a cylindrical joint's slide as
    "<joint>.slide" (a joint whose own name ends so is taken whole); a name that is not a
    joint, or one given twice, is refused naming the marker and the entry."""
    actuator_specs = follow.actuator_specs
    joints = {"Boom cylinder": "prismatic", "Joint.001": "revolute", "screw": "cylindrical"}
    assert actuator_specs(" Boom cylinder, Joint.001,, screw.slide ", joints, "marker 'tip'") == \
        [("Boom cylinder", None), ("Joint.001", None), ("screw", "slide")]
    assert actuator_specs("", joints, "m") == []
    with pytest.raises(ValueError, match="marker 'tip': its Actuators name 'boom', which is not"):
        actuator_specs("Boom cylinder, boom", joints, "marker 'tip'")
    with pytest.raises(ValueError, match="marker 'tip': its Actuators name joint 'screw' twice"):
        actuator_specs("screw.angle, screw", joints, "marker 'tip'")
