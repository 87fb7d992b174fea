"""Couplers: gears, racks, screws and general couplers between joint coordinates,
against closed forms on every analysis path: the ratio over 1,000 turns (kinematic sweep),
a planetary train against the Willis formula, screw advance per turn, rack travel, the
natural frequency and energy of a geared torsion oscillator (dynamics), an equilibrium
through a gear (statics), the coupler's torques against each gear's torque balance (power
in = power out), finite-difference Jacobians of the coupler rows, and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from solver import Mechanism, MechanismError
from solver.model.compile import compile_model
from test_constraints import check_gamma, check_jacobian, random_quat, random_state

TAU = 2.0 * math.pi
Z_UP = (1.0, 0.0, 0.0, 0.0)
Y_AXIS = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)   # marker z along world y


def wrap(a: np.ndarray) -> np.ndarray:
    return (a + math.pi) % TAU - math.pi


def turn_z(result, part: str) -> np.ndarray:
    """A part's rotation about world z, in (-pi, pi] (parts that only turn about z)."""
    q = result.orientation(part)
    return wrap(2.0 * np.arctan2(q[:, 3], q[:, 0]))


def spur_pair(r1: float = 0.1, r2: float = 0.25, mesh: str = "external", axis=Z_UP,
              inertia=((0.01, 0.01, 0.02), (0.05, 0.05, 0.08))) -> Mechanism:
    """Two gears on ground-fixed axles (revolute j1 at the origin, j2 at r1 + r2 on x, or
    r2 - r1 for an internal mesh), axles along the markers' z, geared by their pitch radii."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    d = r1 + r2 if mesh == "external" else r2 - r1
    for k, (x, I) in enumerate(((0.0, inertia[0]), (d, inertia[1])), start=1):
        m.add_part(f"g{k}", mass=1.0 + k, inertia=I, position=(x, 0.0, 0.0), orientation=axis)
        m.add_marker(f"axle{k}", "ground", position=(x, 0.0, 0.0), orientation=axis)
        m.add_marker(f"hub{k}", f"g{k}")
        m.add_joint(f"j{k}", "revolute", f"hub{k}", f"axle{k}")
    m.add_gear("mesh", "j1", "j2", radii=(r1, r2), mesh=mesh)
    return m


# ================================================================ kinematic sweep
@pytest.mark.parametrize("mesh", ["external", "internal"])
def test_gear_ratio_holds_over_1000_turns(mesh: str) -> None:
    """Gear 1 driven at 100 turns/s for 10 s (1,000 turns) at 24 fps, i.e. about four
    turns between frames: gear 2 stays at -+(r1/r2) f(t) on every frame.  The angles are
    read back modulo a turn (frames this far apart cannot be unwrapped from the poses),
    so the bound is absolute: 1e-11 rad against angles up to 6.3e3 rad, 1.6e-15 of the
    angle, Newton's rounding on a 1e4 rad argument being about 1e-12."""
    m = spur_pair(mesh=mesh)
    m.add_motion("drive", "j1", f"{TAU * 100} * t")
    r = m.solve(duration=10.0, fps=24)
    f = TAU * 100 * r.times
    sign = -1.0 if mesh == "external" else 1.0
    assert np.abs(wrap(turn_z(r, "g1") - f)).max() < 1e-11
    assert np.abs(wrap(turn_z(r, "g2") - sign * 0.1 / 0.25 * f)).max() < 1e-11


UNEVEN_DRIVES = {"2*pi*3*sin(20*t)": lambda t: TAU * 3 * np.sin(20 * t),
                 "2*pi*(20*t + 60*t**2)": lambda t: TAU * (20 * t + 60 * t ** 2)}


@pytest.mark.parametrize("drive, fps", [("2*pi*3*sin(20*t)", 24.0),
                                         ("2*pi*(20*t + 60*t**2)", 10.0)])
def test_a_gear_driven_unevenly_far_between_frames_keeps_its_ratio(drive: str,
                                                                    fps: float) -> None:
    """Gear 1 driven 3 turns each way at 20 rad/s (up to 2.5 turns between frames at 24
    fps) or speeding up from 20 to 140 turns/s at 10 fps: gear 2 turns by -r_1/r_2 of
    gear 1's angle (mod a turn, 1e-10 rad), and the coupler's tracked angle of gear 1 is
    the drive's (1e-9 rad), in a sweep and in a study's variants (ratios 2.5 and 2).  The
    sweep took gear 1's angle on the turn nearest a first-order prediction, a turn off
    here, and gear 2 went 2 pi r_1/r_2 = 2.51 rad from its pose without a word."""
    m = spur_pair()
    m.add_motion("drive", "j1", drive)
    r = m.solve(duration=1.0, fps=fps)
    theta = UNEVEN_DRIVES[drive](r.times)
    assert np.abs(wrap(turn_z(r, "g1") - theta)).max() < 1e-10
    assert np.abs(wrap(turn_z(r, "g2") + 0.1 / 0.25 * theta)).max() < 1e-10
    assert np.abs(r.track[:, 0] - theta).max() < 1e-9
    res = m.study([{"mesh.ratio": 2.5}, {"mesh.ratio": 2.0}], duration=1.0, fps=fps)
    for i, ratio in enumerate((2.5, 2.0)):
        assert np.abs(wrap(turn_z(res.result(i), "g2") + theta / ratio)).max() < 1e-10



@pytest.mark.parametrize("offset", [5.0, -5.0, 4.0 * TAU + 1.0])
@pytest.mark.parametrize("analysis", ["kinematic", "dynamic"])
def test_a_gear_driven_from_beyond_half_a_turn_counts_the_motions_turns(
        offset: float, analysis: str) -> None:
    """Gear 1 driven ``offset + t`` from gears built at angle 0: the coupler counts gear 1's
    angle from its value as built, so gear 2 stands at -r_1/r_2 (offset + t) from the start
    (mod a turn, 1e-12 rad), in a sweep, a dynamic run and a study.  The assembly took gear
    1's angle on the turn nearest its angle as built (5 - 2 pi, not 5) and gear 2 stood
    2 pi r_1/r_2 = 2.51 rad off for the whole run, without a word."""
    m = spur_pair()
    m.add_motion("drive", "j1", f"{offset!r} + t")
    r = m.solve(duration=1.0, fps=10, analysis=analysis)
    theta = offset + r.times
    assert np.abs(wrap(turn_z(r, "g2") + 0.1 / 0.25 * theta)).max() < 1e-12
    assert np.abs(r.track[:, 0] - theta).max() < 1e-12
    res = m.study([{"mesh.ratio": 2.5}, {"mesh.ratio": 2.0}], duration=1.0, fps=10,
                  analysis=analysis)
    for i, ratio in enumerate((2.5, 2.0)):
        assert np.abs(wrap(turn_z(res.result(i), "g2") + theta / ratio)).max() < 1e-12

def planetary(ring_teeth: int = 72, sun_teeth: int = 24, general: bool = False) -> Mechanism:
    """A planetary stage, the ring fixed: the carrier turns on the central axle, driven;
    the sun on the same axle; one planet on the carrier.  ``general``: the sun is hinged
    to the ground and both meshes are general couplers on (sun, carrier, planet) angles;
    else the sun is hinged to the carrier, so plain gears on the carrier-relative angles
    express both meshes (the ring: a second hinge from the ground to the carrier, a
    redundant joint whose angle is the ring's turn seen from the carrier)."""
    rs, rR = sun_teeth / 1000.0, ring_teeth / 1000.0      # module 2 mm: r = z m / 2
    rp = (rR - rs) / 2.0
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_marker("axle", "ground")
    for part, mass, I in (("carrier", 1.0, (0.01, 0.01, 0.02)), ("sun", 0.5, (0.002, 0.002, 0.003)),
                          ("planet", 0.2, (0.001, 0.001, 0.0015))):
        m.add_part(part, mass=mass, inertia=I, position=(rs + rp, 0, 0) if part == "planet" else (0, 0, 0))
    m.add_marker("carrier_hub", "carrier")
    m.add_joint("carrier_axle", "revolute", "carrier_hub", "axle")
    m.add_motion("drive", "carrier_axle", "3 * t + 0.5 * t**2")
    m.add_marker("sun_hub", "sun")
    m.add_marker("planet_hub", "planet")
    m.add_marker("pin_seat", "carrier", position=(rs + rp, 0, 0))
    m.add_joint("planet_pin", "revolute", "planet_hub", "pin_seat")
    if general:
        m.add_joint("sun_axle", "revolute", "sun_hub", "axle")
        # sun-planet, seen from the carrier: rs (th_s - th_c) + rp th_p = 0
        m.add_coupler("sun_mesh", ["sun_axle", "carrier_axle", "planet_pin"], [rs, -rs, rp])
        # planet-ring (internal), the ring fixed: rp th_p = rR (th_R - th_c) = -rR th_c
        m.add_coupler("ring_mesh", ["planet_pin", "carrier_axle"], [rp, rR])
    else:
        m.add_marker("carrier_centre", "carrier")
        m.add_joint("sun_on_carrier", "revolute", "sun_hub", "carrier_centre")
        m.add_marker("ring_seat", "ground")
        m.add_joint("ring_in_carrier", "revolute", "ring_seat", "carrier_centre")
        m.add_gear("sun_mesh", "sun_on_carrier", "planet_pin", teeth=(sun_teeth, (ring_teeth - sun_teeth) // 2))
        m.add_gear("ring_mesh", "planet_pin", "ring_in_carrier", radii=(rp, rR), mesh="internal")
    return m


@pytest.mark.parametrize("general", [False, True], ids=["gears-on-carrier", "general-couplers"])
def test_planetary_train_against_willis(general: bool) -> None:
    """Willis: (w_s - w_c) / (w_R - w_c) = -z_R / z_s; the ring fixed, w_s = (1 + z_R/z_s)
    w_c = 4 w_c, and the planet (z_p = 24) on its pin: (w_p - w_c) z_p = -(w_s - w_c) z_s,
    so w_p = -2 w_c.  Speeds from the solver's angular velocities (exact rows of the
    velocity solve: 1e-12 of w_c); angles modulo a turn against the integrated closed
    form.  One degree of freedom: the drive."""
    m = planetary(general=general)
    rep = m.check()
    assert rep.ok and rep.driven_dof == 0 and rep.dof == 1
    r = m.solve(duration=4.0, fps=30)
    t = r.times
    th_c, w_c = 3 * t + 0.5 * t**2, 3 + t
    w_s = r.angular_velocity("sun")[:, 2]
    w_p = r.angular_velocity("planet")[:, 2]
    np.testing.assert_allclose(w_s, 4.0 * w_c, rtol=0, atol=1e-11 * w_c.max())
    np.testing.assert_allclose((w_p - w_c) * 24, -(w_s - w_c) * 24, atol=1e-10 * w_c.max())
    assert np.abs(wrap(turn_z(r, "sun") - 4.0 * th_c)).max() < 1e-10
    assert np.abs(wrap(turn_z(r, "planet") - (-2.0 * th_c))).max() < 1e-10     # w_p = -2 w_c


def screw_nut(hand: str = "right", pitch: float = 0.005, shaft_first: bool = True,
              nut_first: bool = True, axis=Z_UP) -> Mechanism:
    """A revolute shaft turned 10 turns a second (its joint's angle) drives a nut on a
    prismatic guide parallel to it through a lead screw of ``pitch`` m per turn (the
    screw's two-joint form); ``shaft_first``/``nut_first``: the shaft's (the nut's) marker
    is its joint's marker I, else J; ``axis``: the markers' orientation (z along the
    screw)."""
    m = Mechanism(gravity=(0, 0, 0))
    m.add_part("ground", fixed=True)
    m.add_part("shaft", mass=0.5, inertia=(1e-3, 1e-3, 1e-4))
    m.add_part("nut", mass=0.1, inertia=(1e-4, 1e-4, 1e-4), position=(0.05, 0, 0))
    m.add_marker("bearing", "ground", orientation=axis)
    m.add_marker("journal", "shaft", orientation=axis)
    pair = ("journal", "bearing") if shaft_first else ("bearing", "journal")
    m.add_joint("spin", "revolute", *pair)
    m.add_marker("way", "ground", position=(0.05, 0, 0), orientation=axis)
    m.add_marker("slider", "nut", orientation=axis)
    pair = ("slider", "way") if nut_first else ("way", "slider")
    m.add_joint("guide", "prismatic", *pair)
    m.add_screw("lead", "spin", pitch=pitch, slide_joint="guide", hand=hand)
    m.add_motion("turn", "spin", f"{TAU * 10} * t")
    return m


@pytest.mark.parametrize("hand", ["right", "left"])
def test_screw_advance_per_turn(hand: str) -> None:
    """A nut on a cylindrical joint with a 5 mm lead, turned 20 turns (10 per s): it
    advances 5 mm per turn, +z for a right-handed screw (the nut turning positively about
    the fixed shaft); and the same screw as a revolute shaft driving a nut on a prismatic
    guide (two joints): the shaft turning positively about +z pulls the nut 5 mm a turn
    towards -z (the shaft's thread screws into the nut).  Exact to rounding (1e-12 m)."""
    sign = 1.0 if hand == "right" else -1.0
    m = Mechanism(gravity=(0, 0, 0))
    m.add_part("ground", fixed=True)
    m.add_part("nut", mass=0.1, inertia=(1e-4, 1e-4, 1e-4))
    m.add_marker("shaft", "ground")
    m.add_marker("bore", "nut")
    m.add_joint("thread", "cylindrical", "bore", "shaft")
    m.add_screw("lead", "thread", pitch=0.005, hand=hand)
    m.add_motion("turn", "thread", f"{TAU * 10} * t")
    r = m.solve(duration=2.0, fps=50)
    np.testing.assert_allclose(r.position("nut")[:, 2], sign * 0.005 * 10 * r.times, atol=1e-12)
    # two joints: a revolute shaft and a nut on a prismatic guide parallel to it
    r = screw_nut(hand).solve(duration=2.0, fps=50)
    np.testing.assert_allclose(r.position("nut")[:, 2], -sign * 0.005 * 10 * r.times, atol=1e-12)


Z_DOWN = (0.0, 1.0, 0.0, 0.0)        # marker z along world -z (half a turn about x)


@pytest.mark.parametrize("hand", ["right", "left"])
@pytest.mark.parametrize("shaft_first", [True, False], ids=["shaft-I", "shaft-J"])
@pytest.mark.parametrize("nut_first", [True, False], ids=["nut-I", "nut-J"])
@pytest.mark.parametrize("axis", [Z_UP, Z_DOWN], ids=["z-up", "z-down"])
def test_two_joint_screw_hand_is_the_threads_whatever_the_marker_order(
        hand: str, shaft_first: bool, nut_first: bool, axis) -> None:
    """A right-hand thread on a shaft held axially: turning the shaft positively about any
    axis direction a moves the nut along -a by one lead a turn (relative to the nut the
    shaft screws forward along a); left-hand, along +a.  In world terms, whatever the axis
    direction: nut z = -(+-lead) x (the shaft's turn about world z) / (2 pi), for either
    order of the revolute's markers and of the prismatic's (the joint angle then counts
    the ground's turn from the shaft, the slide the ground's from the nut).  The shaft's
    turn is read from its orientation (unwrapped: 0.25 turn between frames), exact to
    rounding (1e-12 m)."""
    sign = 1.0 if hand == "right" else -1.0
    r = screw_nut(hand, shaft_first=shaft_first, nut_first=nut_first, axis=axis).solve(
        duration=0.4, fps=40)
    turn = np.unwrap(turn_z(r, "shaft"))
    assert abs(abs(turn[-1]) - TAU * 4) < 1e-9                     # four turns either way
    np.testing.assert_allclose(r.position("nut")[:, 2], -sign * 0.005 * turn / TAU, atol=1e-12)


def test_two_joint_screw_needs_a_common_part_and_parallel_axes() -> None:
    """The hand is told from the two joints' common part and their axes: joints with no
    part in common, or a slide across the shaft, are refused naming the screw."""
    def build(guide_part: str, slide_axis) -> Mechanism:
        m = Mechanism(gravity=(0, 0, 0))
        m.add_part("ground", fixed=True)
        for part in ("shaft", "nut", "frame"):
            m.add_part(part, mass=0.5, inertia=(1e-3, 1e-3, 1e-3))
        m.add_marker("bearing", "ground")
        m.add_marker("journal", "shaft")
        m.add_joint("spin", "revolute", "journal", "bearing")
        m.add_marker("way", guide_part, orientation=slide_axis)
        m.add_marker("slider", "nut", orientation=slide_axis)
        m.add_joint("guide", "prismatic", "slider", "way")
        m.add_screw("lead", "spin", pitch=0.005, slide_joint="guide")
        return m
    with pytest.raises(MechanismError, match="screw 'lead': joints 'spin' and 'guide' share no part"):
        compile_model(build("frame", Z_UP))
    with pytest.raises(MechanismError, match="screw 'lead': the axis of 'spin' and the slide of "
                                             "'guide' are 90 degrees apart"):
        compile_model(build("ground", Y_AXIS))


def test_rack_and_pinion_travel_and_force() -> None:
    """A 40 mm pinion turning sin(t) drives a 2 kg rack on a horizontal guide: x = r theta;
    the rack's force -m a is what the pinion's teeth push with: the coupler's force on the
    slide is m x'' (the rack's only horizontal force), its torque on the pinion -r times
    it (power balance), and the drive's torque is that torque's reaction plus I theta''."""
    m = Mechanism(gravity=(0, 0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("pinion", mass=0.3, inertia=(1e-4, 2e-4, 1e-4), position=(0, 0, 0.04))   # 2e-4 about y
    m.add_part("rack", mass=2.0, inertia=(1e-3, 1e-2, 1e-2))
    m.add_marker("axle", "ground", position=(0, 0, 0.04), orientation=Y_AXIS)
    m.add_marker("hub", "pinion", orientation=Y_AXIS)
    m.add_joint("spin", "revolute", "hub", "axle")
    x_axis = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)     # marker z along world x
    m.add_marker("way", "ground", orientation=x_axis)
    m.add_marker("shoe", "rack", orientation=x_axis)
    m.add_joint("guide", "prismatic", "shoe", "way")
    m.add_rack_pinion("teeth", "spin", "guide", pitch_radius=0.04)
    m.add_motion("drive", "spin", "sin(t)")
    r = m.solve(duration=3.0, fps=20)
    t = r.times
    np.testing.assert_allclose(r.position("rack")[:, 0], 0.04 * np.sin(t), atol=1e-13)
    Q = r.coupler("teeth")    # in the order given: (torque on the pinion, slide force on the rack)
    x_dd = -0.04 * np.sin(t)
    np.testing.assert_allclose(Q[:, 1], 2.0 * x_dd, atol=1e-10)
    np.testing.assert_allclose(Q[:, 0], -0.04 * Q[:, 1], atol=1e-12)
    np.testing.assert_allclose(r.effort("drive"), 2e-4 * -np.sin(t) - Q[:, 0], atol=1e-10)


# ================================================================ dynamics and statics
@pytest.mark.slow
def test_geared_torsion_oscillator_frequency_and_energy() -> None:
    """Gear 1 on a torsion spring k, gear 2 (r2/r1 = 2.5) as a flywheel: one coordinate
    theta_1 with inertia I_1 + I_2 (r1/r2)^2, so theta_1 = A cos(w t), w^2 = k / I_eff.
    Dynamics at tolerance 1e-9 for three periods: the angle against the closed form to
    1e-6 of A (the run's accuracy goal over a few hundred steps), the energy (kinetic +
    spring) held to 1e-8 relative, the ratio to 1e-10 rad, and the power through the mesh
    Q_1 w_1 + Q_2 w_2 zero to 1e-9 of the peak power of the spring."""
    I1, I2 = 0.02, 0.08
    m = spur_pair(inertia=((0.01, 0.01, I1), (0.05, 0.05, I2)))
    k, A = 3.0, 0.4
    m.add_torsion_spring("spring", "j1", stiffness=k, free_angle=A)
    Ieff = I1 + I2 * (0.1 / 0.25) ** 2
    w = math.sqrt(k / Ieff)
    r = m.solve(duration=3 * TAU / w, fps=60, analysis="dynamic", tolerance=1e-9)
    th1 = turn_z(r, "g1")
    np.testing.assert_allclose(th1, A - A * np.cos(w * r.times), atol=1e-6 * A)
    assert np.abs(wrap(turn_z(r, "g2") + 0.4 * th1)).max() < 1e-10
    ke, pe, work = r.energy()
    total = ke + pe - work
    assert np.abs(total - total[0]).max() <= 1e-8 * np.abs(pe).max()
    Q = r.coupler("mesh")
    w1, w2 = r.angular_velocity("g1")[:, 2], r.angular_velocity("g2")[:, 2]
    assert np.abs(Q[:, 0] * w1 + Q[:, 1] * w2).max() <= 1e-9 * k * A * A * w
    # the coupler's torque on gear 2 is what accelerates it: I2 alpha2 (axles frictionless)
    np.testing.assert_allclose(Q[:, 1], I2 * r.angular_acceleration("g2")[:, 2], atol=1e-8)
    # the tooth force along the line of action: gear 1's torque / (r1 cos 20 deg)
    np.testing.assert_allclose(r.tooth_force("mesh"), Q[:, 0] / (0.1 * math.cos(math.radians(20))),
                               rtol=1e-14)
    # one tooth force F at the contact point (x = r1 from gear 1, -r2 from gear 2): F on gear 1
    # and -F on gear 2 give torques r1 x F and (-r2 x) x (-F): Q1 / r1 = Q2 / r2
    np.testing.assert_allclose(Q[:, 1] / 0.25, Q[:, 0] / 0.1, atol=1e-9)


@pytest.mark.slow
def test_free_spinning_train_holds_its_ratio_over_many_turns() -> None:
    """Dynamics: gear 1 launched at 50 turns/s, gear 2 at rest: the start projection gives
    the pair the common motion of least kinetic-energy change (momentum shared through the
    mesh), then nothing acts about the axles, so both spin steadily: 100 turns of gear 1
    in 2 s, gear 2 at -r1/r2 of it, angles against w t to 1e-7 rad (a local error of 1e-11
    per step, tolerance 1e-10, over 2 s of ~1e3 steps), kinetic energy constant to 1e-9."""
    m = spur_pair()
    m.parts["g1"].angular_velocity[:] = (0.0, 0.0, TAU * 50)
    r = m.solve(duration=2.0, fps=30, analysis="dynamic", tolerance=1e-10)
    w1, w2 = r.angular_velocity("g1")[:, 2], r.angular_velocity("g2")[:, 2]
    assert w1[0] > TAU * 10 and abs(w2[0] / w1[0] + 0.4) < 1e-12
    assert np.abs(wrap(turn_z(r, "g1") - w1[0] * r.times)).max() < 1e-7
    assert np.abs(wrap(turn_z(r, "g2") - w2[0] * r.times)).max() < 1e-7
    ke = r.energy()[0]
    assert np.abs(ke - ke[0]).max() <= 1e-9 * ke[0]
    assert abs(w1[0] * r.times[-1] / TAU) > 20       # many turns indeed


def test_statics_through_a_gear() -> None:
    """Gear 2 (axles along world y) carries its 3 kg centre of mass d = 0.1 m above its
    axle; gear 1 a torsion spring k = 2 N m/rad with free angle 0.3 rad.  With n = r1/r2
    and th2 = -n th1, V = k (th1 - 0.3)^2 / 2 + m g d cos(th2), so the equilibrium solves
    k (th1 - 0.3) - m g d n sin(n th1) = 0 (unique: its derivative k - m g d n^2 cos > 0),
    found independently by brentq; the solver's statics to 1e-9 rad, and the spring's
    torque passes through the mesh: the coupler's torque on gear 1 balances it."""
    m = spur_pair(axis=Y_AXIS)
    m.parts["g2"].center_of_mass[:] = (0.0, -0.1, 0.0)     # frame -y is world +z
    k, n, mgd = 2.0, 0.1 / 0.25, 3.0 * 9.81 * 0.1
    m.add_torsion_spring("spring", "j1", stiffness=k, free_angle=0.3)
    th_expect = brentq(lambda th: k * (th - 0.3) - mgd * n * math.sin(n * th), -10.0, 10.0)
    r = m.statics()
    _, C = r.marker_frame("hub1")
    axle = m.parts["g1"].orientation                        # the axle's axes: Y_AXIS
    from solver.base.rotations import quat_to_matrix
    J = quat_to_matrix(np.array(axle))
    th1 = math.atan2(C[-1][:, 0] @ J[:, 1], C[-1][:, 0] @ J[:, 0])
    assert abs(th1 - th_expect) < 1e-9
    np.testing.assert_allclose(r.coupler("mesh")[-1, 0], k * (th1 - 0.3), atol=1e-9)


# ================================================================ rows, check, bad input
def random_coupled_model(rng: np.random.Generator):
    """Four parts in general poses, a revolute, a prismatic and a cylindrical joint among
    them, coupled by a gear, a screw, a rack and a three-term coupler with mixed angles and
    slides: the coupler rows' Jacobians and quad checked against differences."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    for k in range(4):
        m.add_part(f"p{k}", mass=1.0, position=rng.normal(size=3), orientation=random_quat(rng))
    spec = [("rev", "revolute", "p0", "ground"), ("pri", "prismatic", "p1", "p0"),
            ("cyl", "cylindrical", "p2", "p1"), ("rev2", "revolute", "p3", "p0")]
    for name, kind, a, b in spec:
        m.add_marker(f"{name}_I", a, position=rng.normal(size=3) * 0.5, orientation=random_quat(rng))
        m.add_marker(f"{name}_J", b, position=rng.normal(size=3) * 0.5, orientation=random_quat(rng))
        m.add_joint(name, kind, f"{name}_I", f"{name}_J")
    m.add_gear("g", "rev", "rev2", teeth=(20, 35))
    m.add_screw("s", "cyl", pitch=0.3)
    m.add_rack_pinion("rp", "rev2", "pri", pitch_radius=0.2)
    m.add_coupler("c3", ["rev", "pri", "cyl"], [1.0, -2.0, 0.5], coordinates=["angle", "slide", "slide"])
    return compile_model(m)


def test_coupler_rows_match_finite_differences() -> None:
    rng = np.random.default_rng(5)
    model = random_coupled_model(rng)
    assert model.row_width == 36          # the three-term coupler touches six body ends
    check_jacobian(model, *random_state(model, rng)[:2])
    check_gamma(model, rng)


def test_check_counts_what_couplers_remove() -> None:
    """Two hinged gears: 2 freedoms, 1 with the mesh; Check names the coupler."""
    m = spur_pair()
    rep = m.check()
    assert rep.ok and rep.dof == 1
    assert any("mesh" in n and "j1" in n and "j2" in n for n in rep.notes)


def test_check_names_a_redundant_coupler_as_a_coupler() -> None:
    """The gear's relation said twice (a general coupler r1 q1 + r2 q2 = 0 beside it): one
    of the two is redundant, and Check's report names it as the coupler it is (it said
    "redundant in joint 'again'" and "reactions in joints 'again'", naming no such joint)."""
    m = spur_pair()
    m.add_coupler("again", ["j1", "j2"], [0.1, 0.25])
    rep = m.check()
    assert rep.ok and rep.dof == 1
    owner, = rep.redundant
    text = str(rep)
    assert f"redundant in coupler {owner!r}: 1 equation(s)" in text
    assert f"reactions in coupler {owner!r} are not unique" in text
    # (the axle joints' reactions are named: the tooth force's share between the mesh
    # and the plain coupler is not unique)
    assert "joint" not in "\n".join(line for line in text.replace("ties joint(s)", "")
                                    .splitlines() if "reactions not unique" not in line)


@pytest.mark.parametrize("call, message", [
    (lambda m: m.add_gear("x", "j1", "ball", ratio=2.0), "'ball' is spherical"),
    (lambda m: m.add_gear("x", "j1", "gone", ratio=2.0), "unknown joint 'gone'"),
    (lambda m: m.add_gear("x", "j1", "j2", ratio=0.0), "ratio must be positive"),
    (lambda m: m.add_gear("x", "j1", "j2", ratio=float("nan")), "NaN"),
    (lambda m: m.add_gear("x", "j1", "j1", ratio=2.0), "geared to itself"),
    (lambda m: m.add_gear("x", "j1", "j2", ratio=2.0, teeth=(10, 20)), "exactly one of"),
    (lambda m: m.add_gear("x", "j1", "j2", radii=(0.1, -0.2)), "pitch radius must be positive"),
    (lambda m: m.add_gear("x", "j1", "j2", teeth=(12.5, 30)),
     r"gear 'x': teeth must be whole numbers, got 12.5"),
    (lambda m: m.add_gear("x", "j1", "j2", teeth=(12, 0)), r"gear 'x': teeth must be positive"),
    (lambda m: m.add_gear("x", "j1", "j2", ratio=2.0, mesh="worm"), "mesh must be"),
    (lambda m: m.add_rack_pinion("x", "j1", "j2", pitch_radius=0.1), "not 'slide'"),
    (lambda m: m.add_screw("x", "j1", pitch=0.0), "pitch must be positive"),
    (lambda m: m.add_coupler("x", ["j1"], [1.0]), "two or three"),
    (lambda m: m.add_coupler("x", ["j1", "j2"], [1.0, 0.0]), "two scales must be non-zero"),
    (lambda m: m.add_coupler("x", ["j1", "j2"], [1.0]), "but 1 scales"),
    (lambda m: m.add_coupler("x", ["j1", "j2"], None), "coupler 'x': scales must be a list .*got None"),
    (lambda m: m.add_coupler("x", None, [1.0, 2.0]), "coupler 'x': joints must be a list .*got None"),
    (lambda m: m.add_coupler("x", ["j1", "j2"], [1.0, 2.0], coordinates=3), "coupler 'x': coordinates must"),
    (lambda m: m.add_gear("mesh", "j1", "j2", ratio=2.0), "already used"),
])
def test_bad_couplers_are_named(call, message: str) -> None:
    m = spur_pair()
    m.add_part("b", mass=1.0)
    m.add_marker("b_c", "b")
    m.add_joint("ball", "spherical", "b_c", "axle1")
    before = dict(m.couplers)
    with pytest.raises(MechanismError, match=message):
        call(m)
    assert m.couplers == before


def test_redundant_meshes_over_many_turns_give_no_false_note() -> None:
    """Two planets on fixed pins, each meshing with the sun and the ring: the second
    planet's meshes repeat the first's relation (redundant rows).  Past half a turn of a
    planet their angles must be compared on the right turns: no 'disagree' note (a gap of
    0.4 x 2 pi was reported when the check unwrapped from the pose as built), and the ring
    turns at -(12/60) of the sun exactly."""
    m = Mechanism(gravity=(0, 0, 0))
    m.add_part("ground", fixed=True)
    m.add_marker("c", "ground")
    for name, mass in (("sun", 1.0), ("ring", 3.0)):
        m.add_part(name, mass=mass, inertia=(0.1, 0.1, 0.2))
        m.add_marker(name + ".hub", name)
        m.add_joint(name + "_ax", "revolute", name + ".hub", "c")
    m.add_motion("drive", "sun_ax", "pi*t")
    for k in range(2):
        c = (0.18 * math.cos(TAU * k / 3), 0.18 * math.sin(TAU * k / 3), 0.0)
        m.add_part(f"p{k}", mass=0.5, inertia=(0.01, 0.01, 0.02), position=c)
        m.add_marker(f"p{k}.hub", f"p{k}")
        m.add_marker(f"pin{k}", "ground", position=c)
        m.add_joint(f"pj{k}", "revolute", f"p{k}.hub", f"pin{k}")
        m.add_gear(f"sp{k}", "sun_ax", f"pj{k}", teeth=(12, 24))
        m.add_gear(f"pr{k}", f"pj{k}", "ring_ax", radii=(0.12, 0.30), mesh="internal")
    r = m.solve(duration=4.0, fps=24)
    # only the note that the load's share between the two planets is not unique
    assert [n for n in r.notes if "reactions not unique" not in n] == []
    assert np.abs(wrap(turn_z(r, "ring") + 0.2 * math.pi * r.times)).max() < 1e-12


@pytest.mark.slow
def test_ratio_after_3000_turns_with_a_wobbling_drive() -> None:
    """10,000 frames at 24 fps, gear 1 at 7.3 turns/s with a wobble (0.3 sin 5t): 3,040 turns,
    angles near 1.9e4 rad, whose rounding (4e-12 rad) exceeds Newton's 1e-12 tolerance: the
    rows count as met below the rounding of their own terms (a motion's value, a coupler's
    sum), so the sweep goes on. Those rules bound the angles: gear 1's motion row is met
    within 8 eps |f| (3.4e-11 rad at 1.9e4), the coupler's within 8 eps of its two terms'
    sum, 16 eps |q2| (2.7e-11 at 7.6e3), to which gear 1's error adds 0.4 of its own: gear
    2 at -0.4 of gear 1 within 4.5e-11 rad (measured 2.03e-11; just under 2e-11 with the
    sweep's blocks of at most 64 frames), gear 1 within 3.4e-11."""
    m = spur_pair()
    m.add_motion("drive", "j1", f"{TAU * 7.3} * t + 0.3 * sin(5 * t)")
    r = m.solve(duration=10000 / 24, fps=24)
    f = TAU * 7.3 * r.times + 0.3 * np.sin(5 * r.times)
    assert f[-1] / TAU > 3000
    eps = np.finfo(float).eps
    assert np.abs(wrap(turn_z(r, "g1") - f)).max() < 8 * eps * np.abs(f).max()
    # (and one rounding of the reference 0.4 f)
    bound = (16 * 0.4 + 0.4 * 8 + 1) * eps * np.abs(f).max()
    assert np.abs(wrap(turn_z(r, "g2") + 0.4 * f)).max() < bound


def test_the_dense_jacobian_sums_a_body_met_at_two_ends() -> None:
    """global_jacobian scatters each row's blocks by the model's layout (Model.jacobian_layout);
    a screw's two coordinates on the same pair of parts put two ends of one coupler row on
    one body, whose blocks must add: equal to a row-by-row assembly of random blocks."""
    from solver.kernels.constraints import global_jacobian
    model = random_coupled_model(np.random.default_rng(4))
    assert not model.jacobian_layout[2]                       # some ends repeat
    jac = np.random.default_rng(5).normal(size=(3, model.nc, model.row_width))
    want = np.zeros((3, model.nc, 6 * (model.nb + 1)))
    for k in range(model.nc):
        for e, b in enumerate(model.row_ends[k]):
            want[:, k, 6 * b: 6 * b + 6] += jac[:, k, 6 * e: 6 * e + 6]
    np.testing.assert_allclose(global_jacobian(model, jac), want[..., : 6 * model.nb], rtol=0, atol=1e-14)
