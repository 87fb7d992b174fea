"""A general motion's body-fixed 1-2-3 angles at their singular pose (b2 = +-90 deg, where b1
and b3 turn about one axis): a prescribed b2 there at a frame, passing it or touching it
between two, parts built there, and a free b2 that a sweep or a dynamic run carries there
(frames close together or far apart), each named with its motion, b2 and instant."""
from __future__ import annotations

import math
import re

import pytest

from solver import Mechanism, SolverError
from tests.test_general_motions import _free_body

def _tilted(b2: str) -> Mechanism:
    """A free body held at O with b1 = b3 = 0 and b2 = ``b2`` (a function of t) from marker
    o on a second part: only the general motion's angle b2 moves it."""
    m = _free_body()
    m.add_part("other", mass=1.0)
    m.add_marker("o", "other")
    m.add_general_motion("tilt", "o", "O", x=0.0, y=0.0, z=0.0, b1=0.0, b2=b2, b3=0.0)
    return m


def test_b2_at_ninety_degrees_is_named_with_its_time():
    m = _tilted("pi/2*t")
    with pytest.raises(SolverError, match=r"general motion 'tilt': b2 = 90 deg at t = 1 s "
                                          r"\(frame 24\).*singular") as err:
        m.solve(duration=2.0, fps=24)
    assert err.value.time == pytest.approx(1.0) and err.value.joints == ("tilt",)


def test_b2_passing_ninety_degrees_between_frames_is_named_with_its_instant():
    """b2 = 2 t passes 90 deg at t = pi/4 = 0.785398 s, between frames 18 (0.75 s) and 19
    (0.7917 s): refused before the run, naming the motion and the instant (bisection to
    the times' rounding), not left to a lock-up naming b1."""
    m = _tilted("2*t")
    with pytest.raises(SolverError, match=r"general motion 'tilt': b2 = 90 deg at t = 0.785398 s "
                                          r"\(between frames 18 and 19\).*singular") as err:
        m.solve(duration=2.0, fps=24)
    assert err.value.time == pytest.approx(math.pi / 4, abs=1e-12)
    assert err.value.joints == ("tilt",)


def test_b2_touching_ninety_degrees_between_frames_is_named_with_its_instant():
    """b2 = (pi/2) sin(pi t / 0.6) reaches 90 deg at t = 0.3 s, between frames 7 (0.2917 s)
    and 8 (0.3333 s), and turns back: cos b2 keeps its sign at every frame (0.13 and 0.10
    there), so only b2' changing sign shows it; refused before the run with the instant of
    the turning point (bisection on b2' to the times' rounding: 1e-9 s).  Turning back at
    80 deg instead, the run goes on."""
    def tilted(peak: str) -> Mechanism:
        return _tilted(f"{peak}*sin(pi*t/0.6)")
    with pytest.raises(SolverError, match=r"general motion 'tilt': b2 = 90 deg at t = 0.3 s "
                                          r"\(between frames 7 and 8\).*singular") as err:
        tilted("pi/2").solve(duration=1.0, fps=24)
    assert err.value.time == pytest.approx(0.3, abs=1e-9)
    r = tilted("80*pi/180").solve(duration=1.0, fps=24)
    assert len(r.times) == 25


def _spun_body(spin: str | None, angular_velocity=(0.0, 0.0, 0.0)) -> Mechanism:
    """A free body held at the ground's origin with b1 = b3 = 0 from O (b2 left free: its
    turn about O's y), turned about O's y by a second general motion ``spin`` (b1 from a
    marker whose x is O's y), or free to turn at ``angular_velocity``."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("body", mass=1.0, inertia=(0.1, 0.2, 0.3), angular_velocity=angular_velocity)
    m.add_marker("O", "ground")
    m.add_marker("c", "body")
    m.add_general_motion("tilt", "c", "O", x=0.0, y=0.0, z=0.0, b1=0.0, b3=0.0)
    if spin is not None:
        q = (math.sqrt(0.5), 0.0, 0.0, math.sqrt(0.5))       # x along O's y
        m.add_marker("O2", "ground", orientation=q)
        m.add_marker("c2", "body", orientation=q)
        m.add_general_motion("spin", "c2", "O2", b1=spin)
    return m


def test_a_sweep_carrying_b2_to_ninety_degrees_names_the_angle():
    """The spin turns the body about O's y by 2 t, which is tilt's free b2: the sweep locks
    up past frame 18 (b2 = 1.5 rad = 85.9437 deg there, the closed form at t = 0.75 s) and
    says that b2 was carried towards 90 deg, not that a target is out of reach."""
    with pytest.raises(SolverError, match=r"frame 19\b.*general motion 'tilt': b2 = 85.9437 deg "
                                          r"at t = 0.75 s and carried towards \+90 deg") as err:
        _spun_body("2*t").solve(duration=1.0, fps=24)
    assert "out of reach" not in str(err.value)


def test_a_dynamic_run_carrying_b2_to_ninety_degrees_names_the_angle():
    """The body spinning freely at 2 rad/s about O's y (the b1 and b3 rows put no torque
    about y, which both their axes are normal to, so it keeps 2 rad/s and b2 = 2 t): the
    run stops short of b2 = 90 deg (t = pi/4) naming b2 at the instant it stops, 2 t there
    to the message's six digits and the integrator's goal (1e-6)."""
    with pytest.raises(SolverError, match=r"general motion 'tilt': b2 = ([0-9.]+) deg at t = "
                                          r"([0-9.]+) s and carried towards \+90 deg") as err:
        _spun_body(None, (0.0, 2.0, 0.0)).solve(duration=1.0, fps=24)
    b2, t = map(float, re.search(r"b2 = ([0-9.]+) deg at t = ([0-9.]+) s",
                                 str(err.value)).groups())
    assert 0.7 < t <= math.pi / 4 and err.value.time == pytest.approx(t, rel=1e-5)
    assert b2 == pytest.approx(math.degrees(2.0 * t), abs=1e-3)



@pytest.mark.parametrize("fps, rate", [(2, 2.0), (4, 0.5), (8, 2.0)])
def test_a_long_step_does_not_carry_b2_through_ninety_degrees(fps, rate):
    """Frames far apart (steps of a frame or more) and the body spinning freely about O's y
    (b2 = rate t): no step carries b2 through +-90 deg (where the b1 and b3 rows hold on the
    other branch, b1 turned by pi, and the pose after is not the motion's); the run stops
    short of it naming b2 = rate t at the instant it stops, within a tenth of a frame's
    turn of 90 deg (steps cut towards it down to a tenth of a frame)."""
    with pytest.raises(SolverError, match=r"general motion 'tilt': b2 = ([0-9.]+) deg at t = "
                                          r"([0-9.]+) s and carried towards \+90 deg") as err:
        _spun_body(None, (0.0, rate, 0.0)).solve(duration=math.pi / rate, fps=fps)
    b2, t = map(float, re.search(r"b2 = ([0-9.]+) deg at t = ([0-9.]+) s",
                                 str(err.value)).groups())
    assert b2 == pytest.approx(math.degrees(rate * t), abs=1e-3)
    assert math.pi / 2 - 0.1 * rate / fps < math.radians(b2) < math.pi / 2
    assert err.value.joints == ("tilt",) and err.value.time == pytest.approx(t, rel=1e-5)


def test_parts_built_at_b2_ninety_degrees_are_named():
    """The body built turned a quarter turn about O's y (b2 = 90 deg) while b2 = 0.3 is
    prescribed: no assembly can start there (the angle rows' Jacobian divides by cos b2)."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("body", mass=2.0, inertia=(0.1, 0.2, 0.3),
               orientation=(math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0))
    m.add_marker("O", "ground"); m.add_marker("c", "body")
    m.add_general_motion("pose", "c", "O", x=0, y=0, z=0, b1="0.1", b2="0.3", b3="t")
    with pytest.raises(SolverError, match=r"general motion 'pose': b2 = 90 deg as the parts "
                                          r"are built.*singular"):
        m.solve(duration=1.0, fps=24)
