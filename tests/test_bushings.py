"""Bushings (six-component linear spring-dampers between two markers): natural frequencies
and damping against closed forms, energy and momentum balances, statics, the kinematic
sweep's efforts, the force Jacobians against finite differences, the Result's read-out,
and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError
from tests.mechanisms import G, force_jacobians_and_differences, quat_z

K6 = (100.0, 200.0, 300.0, 4.0, 5.0, 6.0)
MASS, INERTIA = 2.0, (0.02, 0.03, 0.04)


def _block(k=K6, c=0.0, preload=0.0, gravity=(0.0, 0.0, 0.0), turn=0.0) -> Mechanism:
    """A block held to the ground by a bushing at its centre of mass; marker J (and the
    block, and marker I with it) turned by ``turn`` about z."""
    m = Mechanism(gravity=gravity)
    m.add_part("ground", fixed=True)
    q = quat_z(turn)
    m.add_part("block", mass=MASS, inertia=INERTIA, position=(0.1, 0.2, 0.3), orientation=q)
    m.add_marker("J", "ground", position=(0.1, 0.2, 0.3), orientation=q)
    m.add_marker("I", "block")
    m.add_bushing("bush", "I", "J", stiffness=k, damping=c, preload=preload)
    return m


def test_six_natural_frequencies_of_a_block_on_a_bushing():
    md = _block().modes()
    exact = np.sqrt(np.array(K6) / np.array([MASS] * 3 + list(INERTIA))) / (2 * math.pi)
    assert np.allclose(md.frequencies, np.sort(exact), rtol=1e-7, atol=0)


def test_stiffness_acts_along_marker_j_axes():
    # J turned a quarter turn about z: its x axis is world y, so a world-x motion meets k_y
    md = _block(turn=math.pi / 2).modes()
    f_ky = math.sqrt(K6[1] / MASS) / (2 * math.pi)
    k = int(np.argmin(np.abs(md.frequencies - f_ky)))
    shift, turn = md.shape(k, "block")
    assert md.frequencies[k] == pytest.approx(f_ky, rel=1e-7)
    assert abs(shift[0]) == pytest.approx(1.0) and np.allclose(shift[1:], 0.0, atol=1e-9)


def test_damping_ratio_of_each_direction():
    c = (3.0, 0.0, 0.0, 0.0, 0.0, 0.05)
    md = _block(c=c).modes()
    for comp, inertia in ((0, MASS), (5, INERTIA[2])):
        f = math.sqrt(K6[comp] / inertia) / (2 * math.pi)
        k = int(np.argmin(np.abs(md.frequencies - f)))
        assert md.damping_ratios[k] == pytest.approx(c[comp] / (2 * math.sqrt(K6[comp] * inertia)),
                                                     rel=1e-7)


@pytest.mark.parametrize("method", ["explicit", "implicit"])
def test_energy_is_kept_through_large_anisotropic_turns(method):
    """Rotational stiffness 4, 5, 6 N m/rad and a preload torque: the torque is not along the
    rotation vector, so the potential alone would drift by about the preload's work; the
    power booked (model/bushings.py) keeps kinetic + potential - work to the integrator's
    accuracy through turns of more than a radian."""
    m = _block(preload=(0.0, 0.0, 0.0, 0.3, -0.2, 0.1))
    m.parts["block"].angular_velocity[:] = (9.0, -6.0, 7.0)
    m.parts["block"].velocity[:] = (0.5, -0.2, 0.3)
    r = m.solve(duration=2.0, fps=50, analysis="dynamic", method=method, tolerance=1e-9)
    theta = r.bushing_displacement("bush")[1]
    assert np.linalg.norm(theta, axis=1).max() > 1.0
    ke, pe, work = r.energy()
    total = ke + pe - work
    assert np.abs(total - total[0]).max() < 1e-7 * ke[0]


def test_two_free_parts_keep_their_momenta():
    """Action and reaction at the same point: a bushing between two free parts, no gravity,
    keeps the total linear momentum and the total angular momentum about the origin."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("a", mass=1.5, inertia=(0.01, 0.02, 0.03), position=(0.0, 0.0, 0.0))
    m.add_part("b", mass=0.7, inertia=(0.02, 0.01, 0.015), position=(0.3, 0.1, 0.0),
               orientation=quat_z(0.4))
    m.add_marker("Ia", "a", position=(0.12, 0.05, 0.02), orientation=quat_z(0.2))
    m.add_marker("Jb", "b", position=(-0.2, -0.03, 0.01))
    m.add_bushing("link", "Ia", "Jb", stiffness=(50, 80, 60, 2, 3, 1.5), damping=(0.5, 0.2, 0.3, 0.01, 0.02, 0.01))
    m.parts["a"].velocity[:] = (0.2, -0.1, 0.4)
    m.parts["a"].angular_velocity[:] = (1.0, 2.0, -0.5)
    r = m.solve(duration=1.0, fps=40, analysis="dynamic", tolerance=1e-9)
    lin = 1.5 * r.velocity("a") + 0.7 * r.velocity("b")      # part origins = centres of mass
    ang = np.zeros_like(lin)
    for part, mass, inertia in (("a", 1.5, (0.01, 0.02, 0.03)), ("b", 0.7, (0.02, 0.01, 0.015))):
        q = r.orientation(part)
        from solver.base.rotations import quat_to_matrix
        A = quat_to_matrix(q)
        Iw = A @ np.diag(inertia) @ np.swapaxes(A, 1, 2)
        ang += mass * np.cross(r.position(part), r.velocity(part)) \
            + np.einsum("nij,nj->ni", Iw, r.angular_velocity(part))
    assert np.abs(lin - lin[0]).max() < 1e-9
    assert np.abs(ang - ang[0]).max() < 1e-8
    # the link's damping takes energy: kinetic + potential falls, the work says by how much
    ke, pe, work = r.energy()
    assert (ke + pe)[-1] < (ke + pe)[0] and abs((ke + pe - work)[-1] - (ke + pe)[0]) < 1e-7


def test_statics_sag_is_weight_over_stiffness():
    m = _block(gravity=(0.0, 0.0, -G))
    eq = m.statics(update=True)
    d, theta = eq.bushing_displacement("bush")
    assert d[0] == pytest.approx([0.0, 0.0, -MASS * G / K6[2]], abs=1e-12)
    assert np.allclose(theta, 0.0, atol=1e-12)
    force, torque = eq.bushing("bush")
    assert force[0] == pytest.approx([0.0, 0.0, MASS * G], rel=1e-10)


def test_the_sweep_reads_a_bushing_s_torque_in_the_drive_effort():
    """A crank driven at constant speed about z against a bushing's torsional stiffness and
    damping: no angular acceleration, so the drive's effort is k theta + c omega."""
    kz, cz, omega = 3.0, 0.2, 1.5
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=1.0, inertia=(0.01, 0.01, 0.02))
    m.add_marker("O", "ground"); m.add_marker("A", "crank")
    m.add_joint("pin", "revolute", "A", "O")
    m.add_motion("drive", joint="pin", expression=f"{omega}*t")
    m.add_bushing("bush", "A", "O", stiffness=(0, 0, 0, 0, 0, kz), damping=(0, 0, 0, 0, 0, cz))
    r = m.solve(duration=1.0, fps=24)
    assert r.analysis == "kinematic"
    theta = omega * r.times
    assert np.allclose(r.effort("drive"), kz * theta + cz * omega, rtol=1e-9, atol=1e-12)
    _, torque_j = r.bushing("bush", frame="J")
    assert np.allclose(torque_j[:, 2], -(kz * theta + cz * omega), rtol=1e-9, atol=1e-12)


def test_force_jacobians_match_finite_differences():
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("a", mass=1.0, position=(0.05, 0.0, 0.0), orientation=tuple(np.array([0.9, 0.1, 0.3, 0.2]) / np.linalg.norm([0.9, 0.1, 0.3, 0.2])))
    m.add_part("b", mass=1.0, position=(0.4, 0.1, -0.05), orientation=quat_z(0.7))
    m.add_marker("G", "ground", position=(0.0, 0.02, 0.0), orientation=quat_z(-0.3))
    m.add_marker("Ia", "a", position=(0.05, 0.01, 0.0))
    m.add_marker("Ja", "a", position=(0.2, 0.0, 0.03), orientation=(0.8, 0.0, 0.6, 0.0))
    m.add_marker("Ib", "b", position=(-0.1, 0.05, 0.0))
    m.add_bushing("b1", "Ia", "G", stiffness=(10, 20, 30, 1, 2, 3), damping=(1, 2, 3, .1, .2, .3),
                  preload=(1, -2, 0.5, 0.1, 0, -0.2))
    m.add_bushing("b2", "Ib", "Ja", stiffness=(40, 10, 20, 3, 1, 2), damping=(2, 1, 1, .2, .1, .1))
    (K, C), (Kfd, Cfd) = force_jacobians_and_differences(m, t=0.0, seed=3)
    # both by central differences with 1e-6 steps: they agree to about 1e-8 of the largest
    # entry (truncation 1e-12, rounding 1e-10 relative, each)
    assert np.abs(K - Kfd).max() < 1e-7 * np.abs(K).max()
    assert np.abs(C - Cfd).max() < 1e-7 * np.abs(C).max()


def test_result_read_out_in_both_frames():
    m = _block(c=(1, 2, 3, .1, .1, .1), preload=(0.5, 0, 0, 0, 0.02, 0), turn=0.6)
    m.parts["block"].velocity[:] = (0.1, 0.2, -0.1)
    m.parts["block"].angular_velocity[:] = (0.3, -0.2, 0.4)
    r = m.solve(duration=0.5, fps=20, analysis="dynamic")
    d, theta = r.bushing_displacement("bush")
    Fj, Tj = r.bushing("bush", frame="J")
    # force = -K d - C d_dot + F0: d_dot from the stored displacements by differences is
    # too rough, so check at the first frame, where the displacement is zero
    assert np.allclose(d[0], 0.0) and np.allclose(theta[0], 0.0)
    assert Fj[0, 0] != 0.5            # the damping of the start's velocity acts
    Fw, Tw = r.bushing("bush")
    R = np.array([[math.cos(0.6), -math.sin(0.6), 0], [math.sin(0.6), math.cos(0.6), 0], [0, 0, 1]])
    assert np.allclose(Fw[0], R @ Fj[0]) and np.allclose(Tw[0], R @ Tj[0])
    kin = Fj + np.array(K6[:3]) * d       # the damping and preload part, zero at rest
    assert np.all(np.isfinite(kin))
    with pytest.raises(MechanismError, match="unknown bushing 'nope'"):
        r.bushing("nope")
    with pytest.raises(MechanismError, match="frame must be"):
        r.bushing("bush", frame="I")


@pytest.mark.parametrize("kwargs, message", [
    ({"stiffness": (1, 2, 3, 4, 5)}, "stiffness must be six numbers"),
    ({"stiffness": (1, 2, -3, 4, 5, 6)}, r"stiffness must not be negative \(component z\)"),
    ({"damping": (0, 0, 0, 0, 0, -1)}, r"damping must not be negative \(component rz\)"),
    ({"preload": (0, float("nan"), 0, 0, 0, 0)}, "preload has a NaN"),
    ({"stiffness": "stiff"}, "stiffness must be six numbers"),
])
def test_bad_numbers_name_the_bushing(kwargs, message):
    m = _block()
    with pytest.raises(MechanismError, match=rf"bushing 'b2': {message}"):
        m.add_bushing("b2", "I", "J", **kwargs)
    assert set(m.bushings) == {"bush"}


def test_bad_markers_and_names():
    m = _block()
    with pytest.raises(MechanismError, match="bushing 'b2': unknown marker 'X'"):
        m.add_bushing("b2", "X", "J")
    m.add_marker("I2", "block", position=(0.1, 0, 0))
    with pytest.raises(MechanismError, match="both markers are on part 'block'"):
        m.add_bushing("b2", "I", "I2")
    with pytest.raises(MechanismError, match="already used by a bushing"):
        m.add_spring_damper("bush", "I", "J")


def test_a_study_of_bushing_stiffness_matches_its_separate_runs():
    """Study parameters "<bushing>.stiffness.z" and ".damping.rx": each variant equals the
    mechanism built with those numbers and solved alone."""
    from solver import grid
    m = _block(gravity=(0.0, 0.0, -G))
    m.parts["block"].angular_velocity[:] = (0.4, 0.0, 0.0)
    samples = grid({"bush.stiffness.z": [150.0, 450.0], "bush.damping.rx": [0.0, 0.02]})
    st = m.study(samples, duration=0.5, fps=24)
    assert not st.failures
    for i, values in enumerate(samples.values):
        row = dict(zip(samples.names, values))
        k = list(K6)
        k[2] = row["bush.stiffness.z"]
        alone = _block(k=k, c=(0, 0, 0, row["bush.damping.rx"], 0, 0), gravity=(0.0, 0.0, -G))
        alone.parts["block"].angular_velocity[:] = (0.4, 0.0, 0.0)
        r = alone.solve(duration=0.5, fps=24)
        assert np.allclose(st.results[i].position("block"), r.position("block"), rtol=0, atol=1e-12)
        assert np.allclose(st.results[i].bushing("bush")[0], r.bushing("bush")[0], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("stiffness, mass, gravity", [(1e4, 1.0, 0.0), (1e9, 0.01, G)])
def test_statics_holds_a_light_part_on_a_stiff_bushing(stiffness, mass, gravity):
    """A part on a bushing at its free state without gravity is already in equilibrium, and
    a 10 g part on a 1e9 N/m bushing sags by m g / k = 9.8e-11 m: the force balance there
    closes only to the stiffness times the coordinates' rounding (6e-13 N and 6e-8 N),
    which must not be read as a failure to find the equilibrium."""
    m = Mechanism(gravity=(0.0, 0.0, -gravity))
    m.add_part("ground", fixed=True)
    m.add_part("b", mass=mass, inertia=(1e-4, 1e-4, 1e-4), center_of_mass=(0.1, 0.02, 0.03),
               position=(0.3, 0.1, 0.2))
    m.add_marker("I", "b")
    m.add_marker("J", "ground", position=(0.3, 0.1, 0.2))
    k = stiffness
    m.add_bushing("mount", "I", "J", stiffness=(k, k, k, k / 100, k / 100, k / 100), damping=0.0)
    sag = m.statics().bushing_displacement("mount")[0][0]
    # the bushing carries the weight m g: its translation is m g / k (the part's tilt under
    # the weight's moment changes it in the second order, below 1e-6 of it)
    assert sag[2] == pytest.approx(-mass * gravity / k, rel=1e-6, abs=1e-20)


def test_rotation_vectors_of_no_turn_beside_half_turns_raise_no_warning():
    """A bushing's rotation vector over many states at once (a frame axis), some untwisted
    and some near a half turn: each the exact angle times the axis, and no 0 / 0 warning
    (the half-turn formula was evaluated for every state, its NaNs discarded after)."""
    import warnings
    from solver.base.rotations import quat_to_matrix
    from solver.model.bushings import rotation_vector
    axis = np.array([0.0, 0.6, 0.8])
    angles = np.array([0.0, math.pi - 1e-9, 0.3, math.pi - 1e-7])
    q = np.concatenate([np.cos(angles / 2)[:, None],
                        np.sin(angles / 2)[:, None] * axis], axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        theta = rotation_vector(quat_to_matrix(q))
    # to rounding of the matrix entries, amplified near a half turn by 1/sin (<= 1e-7 rad)
    np.testing.assert_allclose(theta, angles[:, None] * axis, atol=1e-7)
