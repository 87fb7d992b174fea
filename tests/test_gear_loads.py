"""Gear loads: a meshing gear pair acts on its gears as the tooth force at the pitch point,
along the line of action (tangential T cos(alpha), and T sin(alpha) pushing the teeth
apart), so the axle joints' reactions carry it, and every part balances (Newton-Euler:
the joint reactions, the tooth forces, the applied loads and the inertia sum to zero);
the coupler's own result (its torques, the tooth force) is the torque-balance closed form
as before.  A two-stage gearbox's housing, held by one joint, takes the difference of
the input and output torques and nothing else."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import lstsq, null_space

from solver import Mechanism, MechanismError
from solver.base.rotations import quat_multiply, quat_to_matrix, rotvec_to_quat
from solver.kernels.constraints import body_arrays, evaluate, global_jacobian
from solver.model.compile import compile_model
from solver.model.state import read_state
from test_constraints import check_jacobian, phi_at, trajectory

ALPHA = math.radians(20.0)
Z = np.array([0.0, 0.0, 1.0])


def mesh_force(T: np.ndarray, c1: np.ndarray, c2: np.ndarray, r1: float, mesh: str,
               helix: float = 0.0) -> tuple:
    """(force on gear 1 (n, 3), pitch point (3,)) of a spur mesh whose axles are at c1, c2
    (world z axes), from its tooth force T (n,) (Result.tooth_force: positive drives gear 1
    forward): the pitch point on gear 1's pitch circle towards gear 2 (external) or away
    from it (internal: gear 1 the pinion inside the ring); the tangential part T cos(alpha)
    along gear 1's forward tangent there, the separating part |T| sin(alpha) towards gear
    1's axle (a pinion's teeth are pushed towards its centre, whichever flank carries);
    helical teeth (``helix`` rad, gear 1 right-handed if positive) add the thrust
    -T cos(alpha) tan(helix) along z: a right-hand tooth's normal tilts back along the
    axis from the forward tangent."""
    e = (c2 - c1) / np.linalg.norm(c2 - c1)
    P = c1 + (r1 if mesh == "external" else -r1) * e
    radial = (c1 - P) / r1
    tangent = np.cross(Z, P - c1) / r1
    F = (T * math.cos(ALPHA))[:, None] * tangent + (np.abs(T) * math.sin(ALPHA))[:, None] * radial
    F = F - (T * math.cos(ALPHA) * math.tan(helix))[:, None] * Z
    return F, P


def gear_pair(mesh: str, swap: bool, helix: float = 0.0, given: dict | None = None) -> Mechanism:
    """Two gears on revolutes in the ground, no gravity, pitch radii 0.06 and 0.15 m: the
    ring (gear 2) 0.09 m off for an internal mesh; gear 1 driven by 0.2 N m about z.
    ``swap``: gear 2's joint has its marker I on the ground, so its angle is minus the
    gear's turn, and the relation that makes the same mesh is the other kind's."""
    r1, r2 = 0.06, 0.15
    d = r1 + r2 if mesh == "external" else r2 - r1
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    for k, (x, I) in enumerate(((0.0, 2e-4), (d, 6e-3)), start=1):
        m.add_part(f"g{k}", mass=0.5 * k, inertia=(I, I, 2 * I), position=(x, 0.0, 0.0))
        m.add_marker(f"axle{k}", "ground", position=(x, 0.0, 0.0))
        m.add_marker(f"hub{k}", f"g{k}")
        pair = (f"axle{k}", f"hub{k}") if swap and k == 2 else (f"hub{k}", f"axle{k}")
        m.add_joint(f"j{k}", "revolute", *pair)
    other = {"external": "internal", "internal": "external"}
    m.add_gear("mesh", "j1", "j2", **(given or {"radii": (r1, r2)}),
               mesh=other[mesh] if swap else mesh, helix_angle=helix)
    m.add_force("drive", "hub1", torque=(0.0, 0.0, 0.2))
    return m


@pytest.mark.parametrize("swap", [False, True], ids=["I-on-gears", "gear-2-J"])
@pytest.mark.parametrize("mesh", ["external", "internal"])
def test_gear_axles_carry_the_tooth_force(mesh: str, swap: bool) -> None:
    """Gear 1 accelerates at alpha_1 = 0.2 / (I_1 + I_2 (r_1/r_2)^2) (I about z); its
    torque balance gives the coupler's torque on it, Q_1 = I_1 alpha_1 - 0.2, and the
    tooth force T = Q_1 / (r_1 cos alpha): the coupler's result, to 1e-10 of T (the run's
    accelerations solve exactly at each stored state).  The centres stay put, so each
    axle's reaction is minus the tooth force on its gear, T cos(alpha) tangential and
    |T| sin(alpha) apart, and the axles carry no moment (the pitch point in the markers'
    plane); with gear 2's joint from the gear to the ground, its reaction (on the ground)
    is the tooth force itself.  Before, both reactions were exactly zero."""
    m = gear_pair(mesh, swap)
    r = m.solve(duration=0.3, fps=20, analysis="dynamic", tolerance=1e-10)
    I1, I2, r1, r2 = 4e-4, 1.2e-2, 0.06, 0.15
    a1 = 0.2 / (I1 + I2 * (r1 / r2) ** 2)
    T = (I1 * a1 - 0.2) / (r1 * math.cos(ALPHA))
    np.testing.assert_allclose(r.tooth_force("mesh"), T, rtol=1e-10)
    c1, c2 = r.position("g1")[0], r.position("g2")[0]
    F1, _ = mesh_force(r.tooth_force("mesh"), c1, c2, r1, mesh)
    scale = abs(T)
    f1, t1 = r.reaction("j1")
    f2, t2 = r.reaction("j2")
    np.testing.assert_allclose(f1, -F1, rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(f2, F1 if not swap else -F1, rtol=0, atol=1e-10 * scale)
    assert np.abs(t1).max() < 1e-10 * scale * r1 and np.abs(t2).max() < 1e-10 * scale * r1



@pytest.mark.parametrize("given", [{"teeth": (12, 30)}, {"ratio": 2.5}], ids=["teeth", "ratio"])
@pytest.mark.parametrize("mesh", ["external", "internal"])
def test_the_tooth_force_of_gears_given_by_teeth_or_ratio(mesh: str, given: dict) -> None:
    """The pair above given by its teeth (12 and 30) or its ratio (2.5) instead of its pitch
    radii: its pitch point divides the centre distance as the ratio does, so gear 1's pitch
    radius is 0.06 m as built, and the tooth force is the same closed form to 1e-10 (it was
    refused: "needs a gear given by its pitch radii")."""
    r = gear_pair(mesh, False, given=given).solve(duration=0.3, fps=20, analysis="dynamic",
                                                  tolerance=1e-10)
    I1, I2, r1, r2 = 4e-4, 1.2e-2, 0.06, 0.15
    a1 = 0.2 / (I1 + I2 * (r1 / r2) ** 2)
    T = (I1 * a1 - 0.2) / (r1 * math.cos(ALPHA))
    np.testing.assert_allclose(r.tooth_force("mesh"), T, rtol=1e-10)


@pytest.mark.parametrize("mesh, given", [("belt", {"ratio": 2.5}), ("belt", None),
                                         ("chain", None)], ids=["belt-ratio", "belt", "chain"])
def test_a_belt_has_no_tooth_force(mesh: str, given: dict | None) -> None:
    """A belt or chain, given by its ratio or by its pulleys' radii (0.06, 0.15 m), has no
    teeth meshing along a line of action: its tooth force is refused naming the coupler (a
    MechanismError).  By its radii it was gear 1's torque over r_1 cos(20 deg), the default
    pressure angle's, 6 % above the spans' tension difference torque / r_1, which
    Result.coupler gives: the pulleys' torques stay readable."""
    r = gear_pair(mesh, False, given=given).solve(duration=0.1, fps=20, analysis="dynamic")
    with pytest.raises(MechanismError, match=f"coupler 'mesh': a {mesh} has no tooth force"):
        r.tooth_force("mesh")
    assert np.isfinite(r.coupler("mesh")).all()


@pytest.mark.parametrize("helix", [15.0, -25.0])
@pytest.mark.parametrize("mesh", ["external", "internal"])
def test_helical_gear_axles_carry_the_thrust(mesh: str, helix: float) -> None:
    """Helical teeth (gear 1 right-handed at +15 degrees, left-handed at -25): the axles
    also carry the thrust T cos(alpha) tan(helix) along the axes, gear 1's and gear 2's
    opposite, and its bending moment about each axle's marker, (P - c) x thrust across
    the axis, the pitch point r_1 from axle 1 (before, no thrust at all); the tooth
    force (transverse plane) is as without helix.  To 1e-10 of T."""
    b = math.radians(helix)
    r = gear_pair(mesh, False, helix).solve(duration=0.2, fps=20, analysis="dynamic",
                                            tolerance=1e-10)
    T = r.tooth_force("mesh")
    plain = gear_pair(mesh, False).solve(duration=0.2, fps=20, analysis="dynamic", tolerance=1e-10)
    np.testing.assert_allclose(T, plain.tooth_force("mesh"), rtol=1e-10)
    c1, c2 = r.position("g1")[0], r.position("g2")[0]
    F1, P = mesh_force(T, c1, c2, 0.06, mesh, b)
    scale = np.abs(T).max()
    for joint, F, c in (("j1", F1, c1), ("j2", -F1, c2)):
        f, t = r.reaction(joint)
        np.testing.assert_allclose(f, -F, rtol=0, atol=1e-10 * scale)
        bending = -np.cross(P - c, F)              # (about z: the drive and the inertia)
        np.testing.assert_allclose(t[:, :2], bending[:, :2], rtol=0, atol=1e-10 * scale * 0.15)
        np.testing.assert_allclose(t[:, 2], 0.0 * t[:, 2], rtol=0, atol=1e-10 * scale * 0.15)
    assert np.abs(f[:, 2]).min() > 0.2 * scale * math.tan(abs(b))


def test_helical_teeth_need_revolute_axles_and_a_pitch_point() -> None:
    """Helical teeth on a cylindrical joint would slide the gear along its shaft, and on
    gears without a pitch point (crossed axes) or a belt the thrust has nowhere to act:
    refused, naming the gear."""
    m = gear_pair("external", False)
    m.couplers.pop("mesh")
    m.add_marker("sleeve", "ground", position=(0.21, 0.0, 0.0))
    m.add_part("g3", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(0.21, 0.0, 0.0))
    m.add_marker("hub3", "g3")
    m.add_joint("j3", "cylindrical", "hub3", "sleeve")
    m.add_gear("helical", "j1", "j3", radii=(0.06, 0.15), helix_angle=20.0)
    with pytest.raises(Exception, match="gear 'helical': helical teeth push the gear along its "
                                        "axle: joint 'j3' is cylindrical"):
        compile_model(m)
    m = gear_pair("external", False)
    with pytest.raises(Exception, match="gear 'belt': a belt has no helical teeth"):
        m.add_gear("belt", "j1", "j2", ratio=2.0, mesh="belt", helix_angle=10.0)
    with pytest.raises(Exception, match="helix_angle must be in"):
        m.add_gear("steep", "j1", "j2", ratio=2.0, helix_angle=50.0)


def test_gear_parts_balance_their_loads() -> None:
    """Newton-Euler for each gear of the external pair, with every load the Result reports:
    the axle reaction (force, and moment at marker I, the centre of mass), the tooth force
    at the pitch point, the drive; the sum of forces is m a = 0 and the sum of moments about
    the centre of mass I alpha, to 1e-10 of the drive."""
    r = gear_pair("external", False).solve(duration=0.3, fps=20, analysis="dynamic",
                                          tolerance=1e-10)
    c1, c2 = r.position("g1")[0], r.position("g2")[0]
    F1, P = mesh_force(r.tooth_force("mesh"), c1, c2, 0.06, "external")
    for part, joint, F, c, I, drive in (("g1", "j1", F1, c1, 4e-4, 0.2),
                                        ("g2", "j2", -F1, c2, 1.2e-2, 0.0)):
        f, t = r.reaction(joint)
        np.testing.assert_allclose(f + F, np.zeros_like(f), rtol=0, atol=1e-10 * 0.2 / 0.06)
        moment = t + np.cross(P - c, F) + drive * Z
        np.testing.assert_allclose(moment, I * r.angular_acceleration(part), rtol=0,
                                   atol=1e-10 * 0.2)


def gearbox(helix: float = 0.0) -> Mechanism:
    """A two-stage reduction in one plane: a housing part held to the ground by a fixed
    joint at (0.05, -0.1, 0); input shaft (pinion a, r 0.03) at the origin, a lay shaft
    (wheel b r 0.09 and pinion c r 0.04 on it) at x = 0.12, the output shaft (wheel d r
    0.10) 0.14 m from it at 60 degrees; each on a revolute from the shaft to the housing.
    1.5 N m drives the input, the output carries -2.0 N m; no gravity; ``helix``: the
    first stage's helix angle, degrees."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("housing", mass=5.0, inertia=(0.1, 0.1, 0.1))
    m.add_marker("base", "ground", position=(0.05, -0.1, 0.0))
    m.add_marker("foot", "housing", position=(0.05, -0.1, 0.0))
    m.add_joint("mount", "fixed", "foot", "base")
    out = np.array([0.12, 0.0, 0.0]) + 0.14 * np.array([math.cos(math.pi / 3), math.sin(math.pi / 3), 0.0])
    for name, c, I in (("input", (0.0, 0.0, 0.0), 1e-4), ("lay", (0.12, 0.0, 0.0), 2e-3),
                       ("output", tuple(out), 4e-3)):
        m.add_part(name, mass=1.0, inertia=(I, I, I), position=c)
        m.add_marker(f"{name}_hub", name)
        m.add_marker(f"{name}_bore", "housing", position=c)
        m.add_joint(f"{name}_axle", "revolute", f"{name}_hub", f"{name}_bore")
    m.add_gear("first", "input_axle", "lay_axle", radii=(0.03, 0.09), helix_angle=helix)
    m.add_gear("second", "lay_axle", "output_axle", radii=(0.04, 0.10))
    m.add_force("motor", "input_hub", torque=(0.0, 0.0, 1.5))
    m.add_force("load", "output_hub", torque=(0.0, 0.0, -2.0))
    return m


def test_gearbox_housing_reaction_balances_input_and_output_torques() -> None:
    """Each shaft balances its axle reaction, its meshes' tooth forces at their pitch
    points and its applied torque against I alpha (forces to zero: the shafts do not
    move); the housing, which does not move either, balances the mount's reaction against
    the axles' (each axle's reaction on the shaft taken back at its bore); so the mount
    carries no force (the tooth forces cancel inside the housing) and about z the moment
    sum_j I_j alpha_j - 1.5 + 2.0: the input and output torques' difference, less what
    accelerates the shafts.  To 1e-9 of the torques (exact solves at stored states)."""
    m = gearbox()
    r = m.solve(duration=0.2, fps=20, analysis="dynamic", tolerance=1e-10)
    c = {s: r.position(s)[0] for s in ("input", "lay", "output")}
    Fa, Pa = mesh_force(r.tooth_force("first"), c["input"], c["lay"], 0.03, "external")
    Fc, Pc = mesh_force(r.tooth_force("second"), c["lay"], c["output"], 0.04, "external")
    loads = {"input": [(Fa, Pa)], "lay": [(-Fa, Pa), (Fc, Pc)], "output": [(-Fc, Pc)]}
    torque = {"input": 1.5, "lay": 0.0, "output": -2.0}
    inertia = {"input": 1e-4, "lay": 2e-3, "output": 4e-3}
    mount_f, mount_t = np.zeros((len(r), 3)), np.zeros((len(r), 3))
    foot = np.array([0.05, -0.1, 0.0])
    spin = np.zeros(len(r))
    for s in c:
        f, t = r.reaction(f"{s}_axle")
        force = f + sum(F for F, _ in loads[s])
        moment = t + sum(np.cross(P - c[s], F) for F, P in loads[s]) + torque[s] * Z
        alpha = r.angular_acceleration(s)
        np.testing.assert_allclose(force, np.zeros_like(force), rtol=0, atol=1e-9 * 2.0 / 0.03)
        np.testing.assert_allclose(moment, inertia[s] * alpha, rtol=0, atol=1e-9 * 2.0)
        assert np.abs(f).max() > 10.0                          # the axles carry the teeth's load
        mount_f += f
        mount_t += t + np.cross(c[s] - foot, f)
        spin += inertia[s] * alpha[:, 2]
    F, Tm = r.reaction("mount")
    np.testing.assert_allclose(F, mount_f, rtol=0, atol=1e-9 * 2.0 / 0.03)
    np.testing.assert_allclose(Tm, mount_t, rtol=0, atol=1e-9 * 2.0)
    np.testing.assert_allclose(F, np.zeros_like(F), rtol=0, atol=1e-9 * 2.0 / 0.03)
    np.testing.assert_allclose(Tm[:, 2], spin - 1.5 + 2.0, rtol=0, atol=1e-9 * 2.0)
    np.testing.assert_allclose(Tm[:, :2], np.zeros_like(Tm[:, :2]), rtol=0, atol=1e-9 * 2.0)


def rack_and_pinion(swap: bool = False) -> Mechanism:
    """A pinion (pitch radius 0.04 m) on a revolute at the origin, axis z, driven by 0.1 N m,
    and a 1.5 kg rack on a prismatic along world x, its pitch line at y = -0.04 and its
    marker and centre of mass at y = -0.05; ``swap``: the rack's joint from the ground to
    the rack, with radius -0.04 (the same mechanism); no gravity."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("pinion", mass=0.3, inertia=(1e-4, 1e-4, 2e-4))
    m.add_part("rack", mass=1.5, inertia=(1e-3, 1e-2, 1e-2), position=(0.0, -0.05, 0.0))
    x_axis = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)     # marker z along world x
    m.add_marker("axle", "ground")
    m.add_marker("hub", "pinion")
    m.add_joint("spin", "revolute", "hub", "axle")
    m.add_marker("way", "ground", position=(0.0, -0.05, 0.0), orientation=x_axis)
    m.add_marker("shoe", "rack", orientation=x_axis)
    m.add_joint("guide", "prismatic", *(("way", "shoe") if swap else ("shoe", "way")))
    m.add_rack_pinion("teeth", "spin", "guide", pitch_radius=-0.04 if swap else 0.04)
    m.add_force("drive", "hub", torque=(0.0, 0.0, 0.1))
    return m


@pytest.mark.parametrize("swap", [False, True], ids=["I-on-rack", "rack-J"])
def test_pinion_axle_carries_the_rack_force_at_the_pitch_point(swap: bool) -> None:
    """A pinion (pitch radius 0.04 m, I_p 2e-4 about z) at the origin on a revolute drives
    a 1.5 kg rack on a prismatic along world x whose pitch line is 0.04 m below the axle
    (y = -0.04; the rack's marker and centre of mass 0.01 m lower still); 0.1 N m on the
    pinion, no gravity.  x = r theta, so theta'' = 0.1 / (I_p + m r^2) and the teeth push
    the rack with F = m r theta'' along x: the coupler's slide force, as before.  The
    teeth meet at the pitch point (0, -0.04): the pinion's axle holds F along +x (minus
    the teeth's push on the pinion; before, nothing), and the rack's guide holds the
    moment 0.01 F about z of F acting 0.01 m above its marker (before, none).  ``swap``:
    the rack's joint from the ground to the rack with radius -0.04, the same mechanism
    (its reaction then on the ground).  To 1e-10 of F."""
    m = rack_and_pinion(swap)
    r = m.solve(duration=0.3, fps=20, analysis="dynamic", tolerance=1e-10)
    q = r.orientation("pinion")
    theta = 2.0 * np.arctan2(q[:, 3], q[:, 0])                 # under half a turn: 1.7 rad
    np.testing.assert_allclose(r.position("rack")[:, 0], 0.04 * theta, rtol=0, atol=1e-12)
    F = 1.5 * 0.04 * 0.1 / (2e-4 + 1.5 * 0.04**2)
    Q = r.coupler("teeth")
    sign = -1.0 if swap else 1.0
    np.testing.assert_allclose(Q[:, 1], sign * F, rtol=1e-10)
    f, t = r.reaction("spin")
    np.testing.assert_allclose(f, np.tile([F, 0.0, 0.0], (len(r), 1)), rtol=0, atol=1e-10 * F)
    np.testing.assert_allclose(t, np.zeros_like(t), rtol=0, atol=1e-10 * F)
    f, t = r.reaction("guide")
    np.testing.assert_allclose(f, np.zeros_like(f), rtol=0, atol=1e-10 * F)
    np.testing.assert_allclose(t, sign * np.tile([0.0, 0.0, 0.01 * F], (len(r), 1)), rtol=0,
                               atol=1e-10 * F)


@pytest.mark.parametrize("build", [gearbox, lambda: gearbox(helix=20.0), rack_and_pinion],
                         ids=["gearbox", "helical", "rack"])
def test_meshing_rows_match_finite_differences_where_the_joints_hold(build) -> None:
    """A meshing gear's row adds its axle joints' functions times coefficients that depend
    on the pose; where the joints hold (those functions zero) its Jacobian is the row's
    gradient in every direction, on or off the joints' manifold: central differences at
    the assembled pose of the gearbox (its housing free; its first stage also helical)
    and of a rack and pinion, each turned off the world axes (1e-8 as tests/test_constraints.py).  Along a motion that keeps every row
    (velocities in the Jacobian's null space, accelerations with J a + quad = 0) each
    row's second difference vanishes, so quad is the rows' second derivative there
    (truncation and rounding ~1e-7 at h = 1e-4; leaving the joints' functions' quad out
    of a meshing row would be ~1 off)."""
    rng = np.random.default_rng(7)
    m = build()
    m.joints.pop("mount", None)
    turn = rotvec_to_quat(np.array([0.3, -0.5, 0.2]))
    for part in m.parts:                  # the whole mechanism turned about the origin
        pos, q = m.pose(part)
        m.parts[part].position[:] = quat_to_matrix(turn) @ pos
        m.parts[part].orientation[:] = quat_multiply(turn, q)
    model = compile_model(m)
    assert len(model.couplers.mesh_coupler) == len(model.couplers.names)
    st = read_state(model, m)
    check_jacobian(model, st.r, st.p)
    J = global_jacobian(model, evaluate(model, *body_arrays(model, st.r, st.p)[:2]).jac)
    null = null_space(J)
    vel = (null @ rng.normal(size=null.shape[1])).reshape(model.nb, 6)
    vel *= 3.0 / np.abs(vel[:, 3:]).max()                      # up to 3 rad/s
    v, w = vel[:, :3], vel[:, 3:]
    quad = evaluate(model, *body_arrays(model, st.r, st.p, v, w)).quad
    acc = (lstsq(J, -quad)[0] + null @ rng.normal(size=null.shape[1])).reshape(model.nb, 6)
    h = 1e-4
    ph = [phi_at(model, *trajectory(model, st.r, st.p, v, w, acc[:, :3], acc[:, 3:], s))
          for s in (-h, 0.0, h)]
    rows = np.flatnonzero(model.row_coupler >= 0)
    d2 = (ph[2] - 2 * ph[1] + ph[0]) / h**2
    assert np.abs(w).max() > 1.0
    np.testing.assert_allclose(d2[rows], np.zeros(len(rows)), rtol=0, atol=2e-5)
