"""A motion whose rate jumps (a kink of abs, min or max of t): the parts take the jump as
an impulse at its instant.  A cart driven along a rail carries a pendulum: while the
cart's speed is constant the pendulum swings freely (Galilean), and at the kink the
pivot's velocity jumps by dv, which the rigid rod passes to the bob as an impulse along
it: its angular velocity jumps by -dv cos(theta) m L / (I_c + m L^2) (theta from the
downward vertical; the hinge's impulse, Newton-Euler with the pivot's new velocity).  The
reference integrates the free pendulum on either side of the kink with scipy (rtol 1e-12).
Spread over the step across the kink (the step neither ending there nor the jump taken
at once), the swing was 0.007-0.02 rad off."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from solver import Mechanism
from solver.study import grid

G, MASS, L, IC, TH0, KINK = 9.81, 1.0, 0.5, 1e-4, 0.3, 0.5
J = IC + MASS * L * L          # the bob about the pivot


def cart_pendulum(drive, constants: dict | None = None, breakpoints=None) -> Mechanism:
    """The cart (2 kg) on a prismatic joint along world x driven by ``drive`` (m), the bob
    (1 kg, I_c 1e-4) on a revolute about world y at the cart, its centre of mass L = 0.5 m
    from the pivot, TH0 from the downward vertical, at rest."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("cart", mass=2.0, inertia=(1e-2, 1e-2, 1e-2))
    m.add_part("bob", mass=MASS, inertia=(IC, IC, IC),
               position=(L * math.sin(TH0), 0.0, -L * math.cos(TH0)))
    along_x = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)      # z turned to x
    along_y = (math.cos(math.pi / 4), -math.sin(math.pi / 4), 0.0, 0.0)     # z turned to y
    m.add_marker("rail", "ground", orientation=along_x)
    m.add_marker("carriage", "cart", orientation=along_x)
    m.add_joint("slide", "prismatic", "carriage", "rail")
    m.add_marker("pivot", "cart", orientation=along_y)
    m.add_marker("top", "bob", position=(-L * math.sin(TH0), 0.0, L * math.cos(TH0)),
                 orientation=along_y)
    m.add_joint("hinge", "revolute", "top", "pivot")
    m.add_motion("drive", "slide", drive, constants=constants, breakpoints=breakpoints)
    return m


def swing(times: np.ndarray, w0: float, dv: float) -> np.ndarray:
    """theta at ``times``: free from (TH0, w0), the jump of the pivot's speed dv at KINK."""
    def rhs(t, y):
        return [y[1], -MASS * G * L * math.sin(y[0]) / J]
    before = solve_ivp(rhs, (0.0, KINK), [TH0, w0], rtol=1e-12, atol=1e-12, dense_output=True)
    th, w = before.sol(KINK)
    after = solve_ivp(rhs, (KINK, times[-1]), [th, w - dv * math.cos(th) * MASS * L / J],
                      rtol=1e-12, atol=1e-12, dense_output=True)
    return np.array([(before.sol(t) if t <= KINK else after.sol(t))[0] for t in times])


@pytest.mark.parametrize("method", ["explicit", "implicit"])
@pytest.mark.parametrize("drive, dv", [("max(0, t - 0.5)", 1.0), ("abs(t - 0.5) - 0.5", 2.0)])
def test_a_jump_of_a_motions_rate_is_an_impulse_at_its_instant(drive, dv, method) -> None:
    """The pendulum's angle at every frame (24 fps, 1.5 s) against the reference to 1e-7
    rad (measured 1e-10 to 2e-9 at the default tolerance); its start's angular velocity is
    the run's own (the cart already moving at t = 0 is a start the run makes consistent)."""
    r = cart_pendulum(drive).solve(duration=1.5, fps=24, analysis="dynamic", method=method)
    rel = r.position("bob") - r.position("cart")
    theta = np.arctan2(rel[:, 0], -rel[:, 2])
    want = swing(r.times, -r.angular_velocity("bob")[0, 1], dv)     # (about +y: -theta')
    assert np.abs(theta - want).max() < 1e-7


def _ramp_after_kink(t):
    """max(0, t - KINK) as a callable: the solver cannot see its kink."""
    return t - KINK if t > KINK else 0.0 * t


def test_a_callables_kink_given_as_a_breakpoint_is_an_impulse_at_its_instant() -> None:
    """The cart driven by a Python callable with the same kink as max(0, t - 0.5): given as
    ``breakpoints=[0.5]`` the run ends a step there and takes the jump as an impulse, the
    swing within 1e-7 rad of the reference; unseen, the step across it spread the jump
    (measured 7e-3 rad off; 8e-11 given)."""
    def theta_off(breakpoints):
        r = cart_pendulum(_ramp_after_kink, breakpoints=breakpoints).solve(
            duration=1.5, fps=24, analysis="dynamic")
        rel = r.position("bob") - r.position("cart")
        theta = np.arctan2(rel[:, 0], -rel[:, 2])
        return np.abs(theta - swing(r.times, -r.angular_velocity("bob")[0, 1], 1.0)).max()
    assert theta_off([KINK]) < 1e-7
    assert theta_off(None) > 1e-5


def test_breakpoints_must_be_finite_times() -> None:
    from solver import MechanismError
    for bad, says in ((["soon"], "must be numbers"), ([math.inf], "must be finite")):
        with pytest.raises(MechanismError, match=says):
            cart_pendulum(_ramp_after_kink, breakpoints=bad)


@pytest.mark.parametrize("method", ["explicit", "implicit"])
def test_a_step_drive_runs_through_its_edges_at_a_tight_tolerance(method) -> None:
    """The cart driven step(t, 0.3, 0, 0.6, 0.2) (Adams STEP: its acceleration jumps at
    both edges) at tolerance 1e-10: the steps end on the edges, their stages there taking
    the side they come from and the next step's first stage the side past it, so the run
    goes through (it failed at an edge, its step size collapsing below 1e-12 s) and the
    pendulum follows the pivot's acceleration x'' = 0.2 (6 - 12 s) / 0.3^2 (s the
    transition's share), J theta'' = -m L (g sin theta + x'' cos theta), integrated by
    scipy piece by piece between the edges, to 1e-8 rad."""
    r = cart_pendulum("step(t, 0.3, 0, 0.6, 0.2)").solve(
        duration=1.0, fps=24, analysis="dynamic", method=method, tolerance=1e-10)
    rel = r.position("bob") - r.position("cart")
    theta = np.arctan2(rel[:, 0], -rel[:, 2])

    def rhs(t, y):
        s = (t - 0.3) / 0.3
        acc = 0.2 * (6.0 - 12.0 * s) / 0.09 if 0.0 < s < 1.0 else 0.0
        return [y[1], -MASS * L * (G * math.sin(y[0]) + acc * math.cos(y[0])) / J]
    y, want = [TH0, -r.angular_velocity("bob")[0, 1]], np.empty(len(r.times))
    for a, b in ((0.0, 0.3), (0.3, 0.6), (0.6, 1.0)):
        piece = solve_ivp(rhs, (a, b), y, rtol=1e-12, atol=1e-12, dense_output=True)
        inside = (r.times >= a) & (r.times <= b)
        want[inside] = piece.sol(r.times[inside])[0]
        y = piece.y[:, -1]
    assert np.abs(theta - want).max() < 1e-8


def test_a_studys_variants_take_their_own_kinks_as_their_separate_runs() -> None:
    """A study of the kink's time a in max(0, t - a) (0.3, 0.5, 0.7 s): each variant ends
    its steps on its own kink and takes the jump there as its separate run does, bit for
    bit (the stacked projection took the rates at the kink itself: 3 mm off)."""
    study = cart_pendulum("max(0, t - a)", {"a": 0.5}).study(
        grid({"drive.a": [0.3, 0.5, 0.7]}), duration=1.0, fps=24, analysis="dynamic")
    for got, a in zip(study.results, (0.3, 0.5, 0.7)):
        alone = cart_pendulum("max(0, t - a)", {"a": a}).solve(duration=1.0, fps=24,
                                                                analysis="dynamic")
        assert np.array_equal(got.position("bob"), alone.position("bob")), a
