"""Mechanisms far from a desk-sized one: a pendulum far from the world origin, checked
against an independent integration of its one coordinate (scipy's DOP853 at rtol 1e-12).

A rod of length L pinned at one end, its centre of mass at L/2 and I_O = M L^2 / 3 about
the pin, swinging in the plane under gravity g: q'' = -(g L / 2) cos q / (L^2 / 3).
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from solver import Mechanism

G = 9.81


def rod_pendulum(length: float, mass: float, pivot=(0.0, 0.0, 0.0), q0: float = 0.5) -> Mechanism:
    """A rod pinned at one end at ``pivot`` (m, world), about the world z, released at rest
    at angle ``q0`` (rad) above the +x axis with gravity along -y."""
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    inertia = mass * length ** 2 / 12.0
    m.add_part("rod", mass=mass, inertia=(1e-2 * inertia, inertia, inertia),
               center_of_mass=(length / 2.0, 0.0, 0.0), position=tuple(pivot),
               orientation=(np.cos(q0 / 2.0), 0.0, 0.0, np.sin(q0 / 2.0)))
    m.add_marker("O", "ground", position=tuple(pivot))
    m.add_marker("h", "rod")
    m.add_joint("pin", "revolute", "h", "O")
    return m


def rod_angle(result) -> np.ndarray:
    """The rod's angle about the world z (rad) at every frame."""
    q = result.orientation("rod")
    return 2.0 * np.arctan2(q[:, 3], q[:, 0])


def reference_angle(length: float, q0: float, times: np.ndarray) -> np.ndarray:
    """The rod's angle from the one-coordinate equation above, integrated by scipy."""
    def rhs(t, y):
        return [y[1], -G * (length / 2.0) * np.cos(y[0]) / (length ** 2 / 3.0)]
    out = solve_ivp(rhs, (times[0], times[-1]), [q0, 0.0], t_eval=times, method="DOP853",
                    rtol=1e-12, atol=1e-14)
    return out.y[0]


@pytest.mark.parametrize("method", ["explicit", "implicit"])
def test_pendulum_far_from_the_origin_swings_as_at_it(method: str) -> None:
    """A 1 m pendulum 1.4e4 m from the world origin: its coordinates round at 2e-12 m, above
    the projection's 1e-12 of its size, which it must accept, not take for a lock-up.
    Tolerances: the explicit run at the origin agrees with the reference to 3e-11 rad and
    the implicit one to 2e-8 rad (at tolerance 1e-6); 1e-7 rad leaves margin for both."""
    m = rod_pendulum(1.0, 1.0, pivot=(1e4, 1e4, 0.0))
    r = m.solve(duration=2.0, fps=24, analysis="dynamic", method=method)
    assert r.times[-1] == pytest.approx(2.0)
    assert np.abs(rod_angle(r) - reference_angle(1.0, 0.5, r.times)).max() < 1e-7


def four_bar(offset: float, crank_angle: float = 1.0) -> Mechanism:
    """A planar four-bar in the xy plane, ground pivots O = (offset, offset, 0) and
    O + (0.9, 0, 0) m, crank 0.3 m, coupler 1.0 m, rocker 0.8 m, built closed at the
    crank's angle (rad) on the upper circuit (``coupler_pin``)."""
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    o = np.array([offset, offset, 0.0])
    a_pin = 0.3 * np.array([np.cos(crank_angle), np.sin(crank_angle)])
    b_pin = coupler_pin(a_pin)
    for name, start, end in (("crank", np.zeros(2), a_pin), ("coupler", a_pin, b_pin),
                             ("rocker", np.array([0.9, 0.0]), b_pin)):
        v = end - start
        turn = np.arctan2(v[1], v[0])
        length = float(np.hypot(*v))
        m.add_part(name, mass=1.0, inertia=(1e-3, length ** 2 / 12, length ** 2 / 12),
                   center_of_mass=(length / 2, 0, 0), position=tuple(o + [*start, 0.0]),
                   orientation=(np.cos(turn / 2), 0, 0, np.sin(turn / 2)))
        m.add_marker(name + "0", name)
        m.add_marker(name + "1", name, position=(length, 0, 0))
    m.add_marker("O", "ground", position=tuple(o))
    m.add_marker("D", "ground", position=tuple(o + [0.9, 0.0, 0.0]))
    m.add_joint("j1", "revolute", "crank0", "O")
    m.add_joint("j2", "revolute", "coupler0", "crank1")
    m.add_joint("j3", "revolute", "rocker1", "coupler1")
    m.add_joint("j4", "revolute", "rocker0", "D")
    return m


def coupler_pin(a_pin: np.ndarray) -> np.ndarray:
    """The coupler-rocker pin (m, from O) on the upper circuit: the intersection of the
    circles of radius 1.0 about the crank pin ``a_pin`` and 0.8 about D = (0.9, 0)."""
    d = np.array([0.9, 0.0])
    span = float(np.linalg.norm(d - a_pin))
    along = (1.0 - 0.64 + span ** 2) / (2.0 * span)
    e = (d - a_pin) / span
    return a_pin + along * e + np.sqrt(1.0 - along ** 2) * np.array([-e[1], e[0]])


def test_four_bar_far_from_the_origin_assembles_and_sweeps() -> None:
    """A four-bar 1.4e4 m from the origin, built closed to the rounding of its coordinates
    (2e-12 m): assembled, and its crank driven through a second, its rocker on the closed
    form of the circles' intersection.  The rounding of the world coordinates (about
    4e-12 m) over the rocker's 0.8 m is 5e-12 rad: 1e-9 rad leaves margin."""
    m = four_bar(1e4)
    m.add_motion("drive", "j1", "1 + t")
    r = m.solve(duration=1.0, fps=24)
    pins = [coupler_pin(0.3 * np.array([np.cos(q), np.sin(q)])) for q in 1.0 + r.times]
    expected = np.array([np.arctan2(b[1], b[0] - 0.9) for b in pins])
    q = r.orientation("rocker")
    assert np.abs(2.0 * np.arctan2(q[:, 3], q[:, 0]) - expected).max() < 1e-9


def test_four_bar_far_from_the_origin_is_posed_by_its_crank() -> None:
    """The same far four-bar posed by hand: its crank set to 1.3 rad, the rocker on the
    closed form (within 1e-9 rad, as the sweep), and the crank's value what was asked."""
    poser = four_bar(1e4).poser()
    poser.set_coordinate("j1", 1.3)
    assert poser.value("j1") == pytest.approx(1.3, abs=1e-9)
    b_pin = coupler_pin(0.3 * np.array([np.cos(1.3), np.sin(1.3)]))
    positions, quaternions = poser.part_poses()
    rocker = list(poser.model.body_part).index("rocker")
    q = quaternions[rocker]
    assert abs(2.0 * np.arctan2(q[3], q[0]) - np.arctan2(b_pin[1], b_pin[0] - 0.9)) < 1e-9
