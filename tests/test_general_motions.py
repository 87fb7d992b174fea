"""General motions between two markers (Adams MOTION X, Y, Z): a two-link arm's tip on a
circle against the closed-form inverse kinematics, a slider-crank driven by its slider's
position against the crank-driven run's angle (a closed loop solving itself), the force on a
driven puck against m a, over-driving and an unreachable target named, and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError, SolverError, grid
from tests.mechanisms import planar_angle

L1, L2 = 0.5, 0.4


def _arm(x: str, y: str, constants: dict | None = None) -> Mechanism:
    """A planar two-link arm about z (no gravity) whose tip marker follows (x(t), y(t)) in
    the ground's axes."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("upper", mass=1.0, center_of_mass=(L1 / 2, 0, 0), inertia=(0.001, 0.02, 0.02),
               orientation=(math.cos(0.25), 0, 0, math.sin(0.25)))
    m.add_part("fore", mass=0.8, position=(L1 * math.cos(0.5), L1 * math.sin(0.5), 0),
               center_of_mass=(L2 / 2, 0, 0), inertia=(0.001, 0.01, 0.01))
    m.add_marker("O", "ground")
    m.add_marker("U0", "upper")
    m.add_marker("U1", "upper", position=(L1, 0, 0))
    m.add_marker("F0", "fore")
    m.add_marker("tip", "fore", position=(L2, 0, 0))
    m.add_joint("shoulder", "revolute", "U0", "O")
    m.add_joint("elbow", "revolute", "F0", "U1")
    m.add_general_motion("path", "tip", "O", x=x, y=y, constants=constants)
    return m


def test_a_two_link_arm_follows_a_circle_as_its_inverse_kinematics():
    m = _arm("0.6 + 0.1*cos(2*pi*t)", "0.3 + 0.1*sin(2*pi*t)")
    assert m.check().dof == 2
    r = m.solve(duration=1.0, fps=24)
    assert r.analysis == "kinematic"
    t = r.times
    px, py = 0.6 + 0.1 * np.cos(2 * np.pi * t), 0.3 + 0.1 * np.sin(2 * np.pi * t)
    tip, _ = r.marker_frame("tip")
    assert np.abs(tip[:, 0] - px).max() < 1e-12 and np.abs(tip[:, 1] - py).max() < 1e-12
    # the branch the arm starts on (elbow angle -0.5 rad as built): q2 = -acos((x^2 + y^2 -
    # L1^2 - L2^2) / (2 L1 L2)), q1 = atan2(y, x) - atan2(L2 sin q2, L1 + L2 cos q2)
    c2 = (px ** 2 + py ** 2 - L1 ** 2 - L2 ** 2) / (2 * L1 * L2)
    q2 = -np.arccos(c2)
    q1 = np.arctan2(py, px) - np.arctan2(L2 * np.sin(q2), L1 + L2 * np.cos(q2))
    assert np.abs(planar_angle(r.orientation("upper")) - q1).max() < 1e-10
    assert np.abs(planar_angle(r.orientation("fore")) - (q1 + q2)).max() < 1e-10


def test_a_slider_crank_driven_by_its_slider_turns_its_crank():
    """The slider's x prescribed as the crank-driven mechanism would put it (theta = 0.3 +
    t, away from the dead centres): the closed loop solves itself and the crank turns as
    theta."""
    a, b = 0.1, 0.3
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    th0 = 0.3
    xb0 = a * math.cos(th0) + math.sqrt(b * b - (a * math.sin(th0)) ** 2)
    phi0 = math.atan2(-a * math.sin(th0), xb0 - a * math.cos(th0))
    m.add_part("crank", mass=1.0, inertia=(0.001, 0.001, 0.002),
               orientation=(math.cos(th0 / 2), 0, 0, math.sin(th0 / 2)))
    m.add_part("rod", mass=0.5, inertia=(0.001, 0.004, 0.004),
               position=(a * math.cos(th0), a * math.sin(th0), 0),
               orientation=(math.cos(phi0 / 2), 0, 0, math.sin(phi0 / 2)))
    m.add_part("slider", mass=0.3, position=(xb0, 0, 0))
    m.add_marker("O", "ground"); m.add_marker("C0", "crank"); m.add_marker("A", "crank", position=(a, 0, 0))
    m.add_marker("R0", "rod"); m.add_marker("R1", "rod", position=(b, 0, 0))
    m.add_marker("S", "slider")
    m.add_marker("guide", "ground", orientation=(math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0))
    m.add_marker("S_axis", "slider", orientation=(math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0))
    m.add_joint("pin", "revolute", "C0", "O")
    m.add_joint("crank_pin", "revolute", "R0", "A")
    m.add_joint("wrist", "revolute", "S", "R1")
    m.add_joint("slide", "prismatic", "S_axis", "guide")
    m.add_general_motion("stroke", "S", "O",
                         x=f"{a}*cos({th0} + t) + sqrt({b}**2 - ({a}*sin({th0} + t))**2)")
    r = m.solve(duration=2.5, fps=24)
    assert r.analysis == "kinematic"
    theta = np.unwrap(planar_angle(r.orientation("crank")))
    assert np.abs(theta - (th0 + r.times)).max() < 1e-9
    # the stroke's push along x balances the crank's inertia: |F| stays finite away from the
    # dead centres and the mechanism's power balance holds (no motor on the crank)
    F = r.general_motion("stroke")
    assert np.all(np.isfinite(F)) and np.allclose(F[:, 1:], 0.0)


def test_the_force_on_a_driven_puck_is_its_mass_times_acceleration():
    """A free puck (no gravity) whose centre is driven round a circle in x and y and held at
    z = 0: the motion pushes with m a, the centripetal force."""
    mass, R, w = 2.0, 0.3, 3.0
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("puck", mass=mass, position=(R, 0, 0))
    m.add_marker("O", "ground"); m.add_marker("c", "puck")
    m.add_general_motion("orbit", "c", "O", x=f"{R}*cos({w}*t)", y=f"{R}*sin({w}*t)", z=0.0)
    r = m.solve(duration=1.0, fps=24, analysis="dynamic", tolerance=1e-10)
    t = r.times
    F = r.general_motion("orbit")
    expect = -mass * w * w * R * np.stack([np.cos(w * t), np.sin(w * t), 0 * t], axis=1)
    assert np.abs(F - expect).max() < 1e-6 * mass * w * w * R
    assert np.abs(r.position("puck")[:, 0] - R * np.cos(w * t)).max() < 1e-10


def test_over_driving_and_an_unreachable_target_are_named():
    m = _arm("0.6", "0.3")
    m.add_motion("elbow_drive", joint="elbow", expression="1.0")
    m.add_motion("shoulder_drive", joint="shoulder", expression="0.2")
    with pytest.raises((MechanismError, SolverError), match=r"path\.[xy]|over"):
        m.solve(duration=0.5, fps=24)
    far = _arm("0.6 + 0.5*t", "0.3")          # the tip leaves the 0.9 m reach at t = 0.497 s
    with pytest.raises(SolverError, match=r"frame 12\b.*unreachable.*path\.x") as err:
        far.solve(duration=1.0, fps=24)
    assert err.value.time == pytest.approx(0.5)      # the first frame past it


@pytest.mark.parametrize("kwargs, message", [
    ({}, "give at least one of x, y, z"),
    ({"x": "2*q"}, "general motion 'path2': x"),
    ({"x": float("nan")}, "general motion 'path2': x"),
])
def test_bad_general_motions_are_named(kwargs, message):
    m = _arm("0.6", "0.3")
    with pytest.raises(MechanismError, match=message):
        m.add_general_motion("path2", "tip", "O", **kwargs)
    with pytest.raises(MechanismError, match="both markers are on part 'fore'"):
        m.add_general_motion("path3", "tip", "F0", x=0.1)
    with pytest.raises(MechanismError, match="unknown general motion 'nope'"):
        m.solve(duration=0.1, fps=24).general_motion("nope")


def test_a_study_varies_a_general_motion_s_named_constant():
    """"path.r", the radius of the tip's circle: each variant's tip on its own circle."""
    m = _arm("0.6 + r*cos(2*pi*t)", "0.3 + r*sin(2*pi*t)", constants={"r": 0.1})
    st = m.study(grid({"path.r": [0.05, 0.15]}), duration=0.5, fps=24)
    assert not st.failures
    for res, rad in zip(st.results, (0.05, 0.15)):
        tip, _ = res.marker_frame("tip")
        t = res.times
        assert np.abs(tip[:, 0] - (0.6 + rad * np.cos(2 * np.pi * t))).max() < 1e-12
