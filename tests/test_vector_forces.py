"""Vector forces whose components are expressions of time and of the mechanism's state
(Adams GFORCE with DX, VX, WX, AX, ...): a damped oscillator and a torsion spring written
as expressions against their closed forms and built-in twins, each measure against a
driven mechanism's closed form, action and reaction, the force Jacobians against finite
differences, statics, a study of a named constant, and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError, SolverError, grid
from solver.base.errors import ExpressionError
from solver.base.rotations import quat_to_matrix
from tests.mechanisms import AXIS_MARKER, force_jacobians_and_differences, quat_z, rail_slider

K, C, MASS, X0 = 400.0, 6.0, 2.0, 0.1


def _rail(force=None, constants=None, gravity=(0.0, 0.0, 0.0)) -> Mechanism:
    """A 2 kg block on a rail along world x, 0.1 m from the ground marker "anchor"."""
    m = Mechanism(gravity=gravity)
    m.add_part("ground", fixed=True)
    m.add_marker("anchor", "ground")
    m.add_marker("guide", "ground", position=(X0, 0, 0), orientation=AXIS_MARKER["x"])
    m.add_part("block", mass=MASS, position=(X0, 0, 0))
    m.add_marker("slide", "block", orientation=AXIS_MARKER["x"])
    m.add_marker("c", "block")
    m.add_joint("rail", "prismatic", "slide", "guide")
    if force is not None:
        m.add_vector_force("pull", "c", "anchor", force=force, frame="world", constants=constants)
    return m


@pytest.mark.parametrize("method", ["explicit", "implicit"])
def test_a_spring_damper_written_as_an_expression_matches_the_closed_form(method):
    m = _rail((f"-{K}*DX('c', 'anchor') - {C}*VX('c', 'anchor')", 0, 0))
    r = m.solve(duration=1.0, fps=24, analysis="dynamic", method=method, tolerance=1e-9)
    t = r.times
    wn, z = math.sqrt(K / MASS), C / (2 * math.sqrt(K * MASS))
    wd = wn * math.sqrt(1 - z * z)
    x = X0 * np.exp(-z * wn * t) * (np.cos(wd * t) + z / math.sqrt(1 - z * z) * np.sin(wd * t))
    assert np.abs(r.position("block")[:, 0] - x).max() < 1e-9 * X0 * 100
    force, torque = r.vector_force("pull")
    v = r.velocity("block")[:, 0]
    assert np.allclose(force[:, 0], -K * r.position("block")[:, 0] - C * v, atol=1e-9)
    assert np.allclose(torque, 0.0)
    ke, pe, work = r.energy()           # all of the force is work: KE - W stays constant
    assert np.abs(ke + pe - work - ke[0]).max() < 1e-8 * ke.max() + 1e-12 * K * X0 * X0


def _hinge(extra) -> Mechanism:
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("door", mass=5.0, inertia=(0.4, 0.5, 0.3), angular_velocity=(0.0, 0.0, 2.0))
    m.add_marker("O", "ground"); m.add_marker("H", "door")
    m.add_joint("hinge", "revolute", "H", "O")
    extra(m)
    return m


def test_a_torsion_spring_written_as_an_expression_equals_the_built_in_one():
    k, c, a0 = 3.0, 0.2, 0.3
    expr = _hinge(lambda m: m.add_vector_force(
        "closer", "H", "O", torque=(0, 0, f"-{k}*(AZ('H', 'O') - {a0}) - {c}*WZ('H', 'O')")))
    built = _hinge(lambda m: m.add_torsion_spring("closer", "hinge", stiffness=k, damping=c,
                                                  free_angle=a0))
    a = expr.solve(duration=1.0, fps=24, analysis="dynamic", tolerance=1e-10)
    b = built.solve(duration=1.0, fps=24, analysis="dynamic", tolerance=1e-10)
    assert np.abs(a.orientation("door") - b.orientation("door")).max() < 1e-8
    angle = 2 * np.arctan2(a.orientation("door")[:, 3], a.orientation("door")[:, 0])
    assert angle.max() > 0.5                        # it swings well past the free angle


def test_each_measure_against_a_driven_crank():
    """A crank driven at w = 1.5 rad/s about z: the tip marker T (0.2 m out) against the
    ground marker O, read back through a vector force whose components are the measures."""
    w, arm = 1.5, 0.2
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=1.0, inertia=(0.01, 0.01, 0.02))
    m.add_marker("O", "ground"); m.add_marker("A", "crank")
    m.add_marker("T", "crank", position=(arm, 0, 0))
    m.add_marker("K", "ground", orientation=quat_z(math.pi / 2))   # x along world y
    m.add_joint("pin", "revolute", "A", "O")
    m.add_motion("drive", joint="pin", expression=f"{w}*t")
    m.add_vector_force("probe1", "T", "O", force=("DX('T', 'O')", "DY('T', 'O', 'K')", "DM('T', 'O')"),
                       torque=("VX('T', 'O')", "VY('T', 'O', 'K')", "VR('T', 'O')"), frame="world")
    m.add_vector_force("probe2", "A", "O", force=("WZ('A', 'O')", "WM('A', 'O')", "AZ('A', 'O')"),
                       torque=("AX('A', 'O')", "WX('A', 'O', 'K')", 0), frame="world")
    r = m.solve(duration=1.0, fps=24)
    th = w * r.times
    f1, t1 = r.vector_force("probe1")
    assert np.allclose(f1[:, 0], arm * np.cos(th), atol=1e-12)
    assert np.allclose(f1[:, 1], -arm * np.cos(th), atol=1e-12)     # along K's y = world -x
    assert np.allclose(f1[:, 2], arm, atol=1e-12)
    assert np.allclose(t1[:, 0], -arm * w * np.sin(th), atol=1e-12)
    assert np.allclose(t1[:, 1], arm * w * np.sin(th), atol=1e-12)
    assert np.allclose(t1[:, 2], 0.0, atol=1e-12)                     # the radius is constant
    f2, t2 = r.vector_force("probe2")
    assert np.allclose(f2[:, 0], w) and np.allclose(f2[:, 1], w)
    wrapped = (th + math.pi) % (2 * math.pi) - math.pi
    assert np.allclose(f2[:, 2], wrapped, atol=1e-12)
    assert np.allclose(t2[:, 0], 0.0, atol=1e-12) and np.allclose(t2[:, 1], 0.0, atol=1e-12)


def test_components_in_marker_j_axes_by_default():
    """A force of 5 N along marker J's x, J turned a quarter turn about z: world +y."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_marker("J", "ground", orientation=quat_z(math.pi / 2))
    m.add_part("puck", mass=2.0)
    m.add_marker("I", "puck")
    m.add_vector_force("push", "I", "J", force=(5.0, 0, 0))
    r = m.solve(duration=0.5, fps=24, analysis="dynamic")
    assert np.allclose(r.position("puck")[:, 1], 0.5 * 2.5 * r.times ** 2, atol=1e-10)
    assert np.allclose(r.position("puck")[:, 0], 0.0, atol=1e-10)


def test_action_and_reaction_keep_the_momenta():
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("a", mass=1.5, inertia=(0.01, 0.02, 0.03))
    m.add_part("b", mass=0.7, inertia=(0.02, 0.01, 0.015), position=(0.3, 0.1, 0.0))
    m.add_marker("Ia", "a", position=(0.1, 0.05, 0.02))
    m.add_marker("Jb", "b", position=(-0.2, -0.03, 0.01), orientation=quat_z(0.4))
    m.add_vector_force("tie", "Ia", "Jb",
                       force=tuple(f"-50*D{a}('Ia', 'Jb', 'Jb') - 0.3*V{a}('Ia', 'Jb', 'Jb')" for a in "XYZ"),
                       torque=tuple(f"-2*A{a}('Ia', 'Jb') - 0.05*W{a}('Ia', 'Jb', 'Jb')" for a in "XYZ"))
    m.parts["a"].velocity[:] = (0.2, -0.1, 0.4)
    m.parts["a"].angular_velocity[:] = (1.0, 2.0, -0.5)
    r = m.solve(duration=1.0, fps=40, analysis="dynamic", tolerance=1e-9)
    lin = 1.5 * r.velocity("a") + 0.7 * r.velocity("b")
    ang = np.zeros_like(lin)
    for part, mass, inertia in (("a", 1.5, (0.01, 0.02, 0.03)), ("b", 0.7, (0.02, 0.01, 0.015))):
        A = quat_to_matrix(r.orientation(part))
        Iw = A @ np.diag(inertia) @ np.swapaxes(A, 1, 2)
        ang += mass * np.cross(r.position(part), r.velocity(part)) \
            + np.einsum("nij,nj->ni", Iw, r.angular_velocity(part))
    assert np.abs(lin - lin[0]).max() < 1e-9
    assert np.abs(ang - ang[0]).max() < 1e-8


def test_force_jacobians_match_finite_differences():
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("a", mass=1.0, position=(0.05, 0.0, 0.0), orientation=quat_z(0.3))
    m.add_part("b", mass=1.0, position=(0.4, 0.1, -0.05), orientation=quat_z(0.7))
    m.add_marker("G", "ground", position=(0.0, 0.02, 0.0))
    m.add_marker("Ia", "a", position=(0.05, 0.01, 0.0))
    m.add_marker("Ib", "b", position=(-0.1, 0.05, 0.0))
    m.add_vector_force("v1", "Ia", "G", force=("-30*DX('Ia', 'G')**3 - 2*VY('Ia', 'G')", "sin(t)", 0),
                       torque=(0, "-4*AZ('Ia', 'G') - 0.5*WZ('Ia', 'G')", 1.0))
    m.add_vector_force("v2", "Ib", "Ia", force=(0, "-20*DM('Ib', 'Ia') - VR('Ib', 'Ia')", 0))
    (K, C), (Kfd, Cfd) = force_jacobians_and_differences(m, t=0.3, seed=5)
    # both by central differences with 1e-6 steps: they agree to about 1e-8 of the largest
    # entry (truncation 1e-12, rounding 1e-10 relative, each)
    assert np.abs(K - Kfd).max() < 1e-6 * np.abs(K).max()
    assert np.abs(C - Cfd).max() < 1e-6 * np.abs(C).max()


def test_force_jacobians_take_the_parts_a_force_reads_but_does_not_load():
    """A force between b and the ground that reads part c's motion (a velocity, a position
    along c's axes) and is written along c's axes: its Jacobians have columns of c too, as
    finite differences of the whole right-hand side give them (c's were left out, 0)."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("b", mass=1.0, position=(0.4, 0.1, -0.05), orientation=quat_z(0.7))
    m.add_part("c", mass=1.0, position=(-0.2, 0.3, 0.1), orientation=quat_z(-0.4))
    m.add_marker("G", "ground", position=(0.0, 0.02, 0.0))
    m.add_marker("Ib", "b", position=(-0.1, 0.05, 0.0))
    m.add_marker("Ic", "c", position=(0.03, -0.02, 0.01))
    m.add_vector_force("v3", "Ib", "G", force=("-5*VX('Ic', 'G') - 40*DY('Ic', 'G', 'Ic')",
                                               "3*WZ('Ic', 'G')", 1.0),
                       torque=(0, 0, "-2*AZ('Ic', 'G')"), frame="Ic")
    (K, C), (Kfd, Cfd) = force_jacobians_and_differences(m, t=0.3, seed=5)
    assert np.abs(K[:6, 6:]).max() > 1.0 and np.abs(C[:6, 6:]).max() > 1.0    # b by c
    # both by central differences with 1e-6 steps: they agree to about 1e-8 of the largest
    # entry (truncation 1e-12, rounding 1e-10 relative, each)
    assert np.abs(K - Kfd).max() < 1e-6 * np.abs(K).max()
    assert np.abs(C - Cfd).max() < 1e-6 * np.abs(C).max()


def test_modes_damp_by_a_velocity_read_on_another_part():
    """A block of 2 kg on a rail, a 1 kg plate welded to it, a 400 N/m spring, and a damper
    force -6 VZ on the block that reads the plate's velocity (the same as the block's):
    zeta = 6 / (2 sqrt(400 * 3)), as when it reads the block's own (it was 0: the damping
    Jacobian left out the plate, which the force reads but does not load)."""
    zeta = []
    for reads in ("b", "p"):
        m = Mechanism(gravity=(0.0, 0.0, 0.0))
        m.add_part("ground", fixed=True)
        m.add_part("block", mass=2.0)
        m.add_part("plate", mass=1.0, position=(0, 0.2, 0))
        m.add_marker("O", "ground"); m.add_marker("b", "block")
        m.add_marker("p", "plate"); m.add_marker("seat", "block", position=(0, 0.2, 0))
        m.add_marker("anchor", "ground", position=(0, 0, -0.5))
        m.add_joint("rail", "prismatic", "b", "O")
        m.add_joint("weld", "fixed", "p", "seat")
        m.add_spring_damper("spring", "b", "anchor", stiffness=K)
        m.add_vector_force("damper", "b", "O", force=(0, 0, f"-{C}*VZ('{reads}', 'O')"),
                           frame="world")
        zeta.append(m.modes().damping_ratios[0])
    # the stiffness by central differences of the balance and the damping by differences
    # with 1e-6 steps of a linear law: both near rounding; 1e-7 relative leaves room
    assert zeta == pytest.approx([C / (2 * math.sqrt(K * 3.0))] * 2, rel=1e-7)


def test_statics_balances_an_expression_force():
    m = _rail((f"-{K}*DX('c', 'anchor') + 30", 0, 0))
    eq = m.statics(update=True)
    assert m.pose("block")[0][0] == pytest.approx(30.0 / K, abs=1e-12)
    assert eq.vector_force("pull")[0][0] == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)


def test_a_study_varies_a_named_constant_of_a_vector_force():
    m = _rail(("-k*DX('c', 'anchor')", 0, 0), constants={"k": K})
    st = m.study(grid({"pull.k": [100.0, 900.0]}), duration=0.5, fps=24, analysis="dynamic")
    assert not st.failures
    for res, k in zip(st.results, (100.0, 900.0)):
        x = X0 * np.cos(math.sqrt(k / MASS) * res.times)
        assert np.abs(res.position("block")[:, 0] - x).max() < 1e-6 * X0


@pytest.mark.parametrize("force, message", [
    (("DX('c', 'nowhere')", 0, 0), "force x: DX names an unknown marker 'nowhere'"),
    (("DX('c')", 0, 0), "'DX' takes 2 or 3 marker names"),
    (("DX(c, 'anchor')", 0, 0), "marker names in quotes"),
    (("DM('c', 'anchor', 'anchor')", 0, 0), "'DM' takes 2 marker names"),
    ((1, 2), "force must be three components"),
    (("nope(t)", 0, 0), "unknown function 'nope'"),
    # a bare measure was refused as "a name that is not allowed", listing DX among those allowed
    (("-10*DX", 0, 0), r"'DX' is a measure of the state and must be called with its markers, "
                       r"e.g. DX\('I', 'J'\)"),
])
def test_bad_expressions_name_the_force(force, message):
    m = _rail()
    with pytest.raises((MechanismError, ExpressionError), match=rf"vector force 'pull'.*{message}"):
        m.add_vector_force("pull", "c", "anchor", force=force)
    assert not m.vector_forces


def test_measures_belong_to_forces_not_motions_and_failures_name_the_time():
    m = _rail()
    with pytest.raises(MechanismError, match="only a vector force.s components may use"):
        m.add_motion("drive", joint="rail", expression="DX('c', 'anchor')")
    with pytest.raises(MechanismError, match="frame must be a marker's name or 'world'"):
        m.add_vector_force("pull", "c", "anchor", frame="nowhere")
    m.add_vector_force("pull", "c", "anchor", force=("log(DX('c', 'anchor') - 0.05)", 0, 0),
                       frame="world")
    m.parts["block"].velocity[:] = (-1.0, 0, 0)
    with pytest.raises(SolverError, match="vector force 'pull': force x"):
        m.solve(duration=0.5, fps=24, analysis="dynamic")


@pytest.mark.parametrize("analysis", ["kinematic", "dynamic"])
def test_a_component_undefined_inside_max_stops_the_run(analysis):
    """max(0, sqrt(DZ('a', 'O'))) on a slider driven down through DZ = 0 at 0.5 s: past
    it the square root is undefined, as for a number (a load's sqrt(0.5 - t) stops the
    run), not 0 because max leaves out numpy's NaN. The run stops naming the force; the
    sweep after the frames to 0.5 s (sqrt(0) = 0 is defined)."""
    m = rail_slider("z", spring=None, gravity=(0.0, 0.0, 0.0))
    m.add_motion("down", "rail", "0.5 - t")
    m.add_vector_force("f", "S", "R", force=(0.0, 0.0, "max(0, sqrt(DZ('S', 'R')))"))
    with pytest.raises(SolverError, match=r"vector force 'f': force z: .*sqrt") as err:
        m.solve(duration=1.0, fps=4, analysis=analysis)
    assert err.value.time < 1.0
    if analysis == "kinematic":
        assert err.value.time == 0.75 and list(err.value.result.times) == [0.0, 0.25, 0.5]
        np.testing.assert_allclose(err.value.result.vector_force("f")[0][:, 2],
                                   np.sqrt([0.5, 0.25, 0.0]), rtol=1e-12)


def test_a_failed_component_names_its_measures_as_written():
    """1/DX('c', 'anchor') with the block's marker c on the anchor (the rail moved so that
    DX = 0 at the start): the run stops at t = 0 naming the force, the measure as the user
    wrote it with its value, and the failure in words (not numpy's "divide by zero
    encountered in divide", nor the hidden variable that carries the measures)."""
    m = _rail(("1/DX('c', 'anchor')", 0, 0))
    m.parts["block"].position[:] = 0.0
    with pytest.raises(SolverError) as err:
        m.solve(duration=0.5, fps=24, analysis="dynamic")
    text = str(err.value)
    assert "vector force 'pull': force x" in text, text
    assert "DX('c', 'anchor')=0.0: division by zero" in text, text
    assert "_measures" not in text and "encountered" not in text, text
    assert err.value.time == 0.0
