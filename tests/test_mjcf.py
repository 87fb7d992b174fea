"""MJCF export (addon/io/mjcf_export.py) checked against MuJoCo itself: each mechanism is
exported, loaded with mujoco.MjModel.from_xml_string, integrated by MuJoCo and compared
with this solver's own run of the same mechanism; and MJCF import (addon/io/mjcf.py,
addon/io/mjcf_mechanism.py) checked against MuJoCo's compiled model and its run.

MuJoCo runs RK4 at dt = 1e-4 s: its error over a second of these swings is ~1e-12 m
(measured 1e-14 to 1e-11), the solver's at tolerance 1e-9 below 1e-9 m, so a chain
without equality constraints agrees to 1e-8 m and its pivot force to 1e-8 of the peak.
Loop closures (connect) and couplers are soft equality constraints: solref (2 dt = 2e-4 s,
damping ratio 1) and solimp 0.9999, so the constraint force is 99.99% of the exact one and
a drift is pulled back within ~1 ms; measured, the gap stays near 2e-9 m and the bodies
within 1e-9 m of the solver's, bounded at 1e-7 m and 1e-6 m.  A motion is a servo
(kp 1e4 N m/rad): it lags by torque / kp ~ 1e-4 rad, 1e-5 m at the 0.1 m crank (measured
7e-6 m), bounded at 5e-5 m; its torque as the test says.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest

from mechanisms import chain, pendulum, slider_crank, four_bar_angles
from test_io_addon import io, solver

mujoco = pytest.importorskip("mujoco")
ex = io("mjcf_export")
G = 9.81
DT = 1e-4


def run_mujoco(export, duration: float, fps: float, qvel=None) -> dict:
    """MuJoCo's integration of an export from qpos0 (at rest, or at ``qvel``), sampled at
    k / fps: every body's centre of mass (n, bodies, 3), the force each joint's parent puts
    on its body (cfrc_int, world axes, N), the actuator forces along their joints (n, dofs)
    and the largest equality-constraint violation (n,) (m, or rad for a joint equality)."""
    model = mujoco.MjModel.from_xml_string(export.xml)
    data = mujoco.MjData(model)
    if qvel is not None:
        data.qvel[:] = qvel
    servos = list(export.servos.values())
    steps_per_frame = round(1.0 / (fps * DT))
    out = {"com": [], "force": [], "actuator": [], "gap": []}
    for k in range(round(duration * fps) + 1):
        if k:
            for _ in range(steps_per_frame):
                steer(model, data, servos, data.time + DT / 2)
                mujoco.mj_step(model, data)
        steer(model, data, servos, data.time)
        mujoco.mj_forward(model, data)
        mujoco.mj_rnePostConstraint(model, data)
        out["com"].append(data.xipos.copy())
        out["force"].append(data.cfrc_int[:, 3:].copy())
        out["actuator"].append(data.qfrc_actuator.copy())
        rows = data.efc_type[:data.nefc] == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        out["gap"].append(np.max(np.abs(data.efc_pos[:data.nefc][rows]), initial=0.0))
    out = {k: np.array(v) for k, v in out.items()}
    out["model"] = model
    return out


def steer(model, data, servos, t: float) -> None:
    """Each servo's control at time t: MuJoCo holds a control over a step, so a step takes
    its midpoint's (the motion's mean over the step to O(dt^2)) and a sample its own."""
    for s in servos:
        data.ctrl[model.actuator(s.actuator).id] = s.control(t)


def export_of(m, **kw):
    kw.setdefault("timestep", DT)
    return ex.mjcf_from_mechanism(m, **kw)


def compare_positions(m, r, mj, parts, tol):
    model = mj["model"]
    for part in parts:
        ours = r.center_of_mass(part)
        theirs = mj["com"][:, model.body(part).id]
        err = np.max(np.abs(ours - theirs))
        assert err < tol, f"{part}: centre of mass {err:.3g} m from MuJoCo's"


def test_pendulum_swing_and_pivot_reaction_match_mujoco():
    m = pendulum(axis="y", angle=0.3, inertia=(0.01, 0.02, 0.03))
    e = export_of(m)
    assert e.tree == ("pin",) and e.offsets["pin"] == pytest.approx(0.3)
    r = m.solve(duration=1.0, fps=50, analysis="dynamic", tolerance=1e-9)
    mj = run_mujoco(e, 1.0, 50)
    compare_positions(m, r, mj, ["bob"], 1e-8)         # no soft constraint: RK4 alone
    force = r.reaction("pin")[0]                     # on the bob, world axes
    theirs = mj["force"][:, mj["model"].body("bob").id]
    assert np.max(np.abs(force - theirs)) < 1e-8 * np.max(np.abs(force))


def test_double_pendulum_matches_mujoco():
    m = chain([0.4, -0.5], lengths=(0.5, 0.4), masses=(2.0, 1.0), kind="revolute", axis="y")
    e = export_of(m)
    assert set(e.tree) == {"joint0", "joint1"} and not e.equalities
    r = m.solve(duration=1.0, fps=50, analysis="dynamic", tolerance=1e-9)
    mj = run_mujoco(e, 1.0, 50)
    compare_positions(m, r, mj, ["link0", "link1"], 1e-8)


def four_bar_under_gravity(a=0.4, b=1.0, c=0.8, d=1.0, theta2=1.0):
    """A four-bar of revolutes about world z, gravity along -y, built closed at crank
    angle theta2 (the closed form places it), at rest: it swings under its own weight."""
    th3, th4 = (float(z) for z in four_bar_angles(theta2, a, b, c, d, 1))
    m = solver.Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    quat = lambda th: (math.cos(th / 2), 0.0, 0.0, math.sin(th / 2))
    A = (a * math.cos(theta2), a * math.sin(theta2), 0.0)
    for name, pos, th, length in (("crank", (0, 0, 0), theta2, a), ("coupler", A, th3, b),
                                  ("rocker", (d, 0, 0), th4, c)):
        m.add_part(name, mass=length, center_of_mass=(length / 2, 0, 0), position=pos,
                   orientation=quat(th), inertia=(1e-3, length ** 3 / 12, length ** 3 / 12))
    for name, part, x in (("O2", "ground", 0), ("O4", "ground", d), ("crank_O2", "crank", 0),
                          ("crank_A", "crank", a), ("coupler_A", "coupler", 0),
                          ("coupler_B", "coupler", b), ("rocker_O4", "rocker", 0),
                          ("rocker_B", "rocker", c)):
        m.add_marker(name, part, position=(x, 0, 0))
    m.add_joint("pivot2", "revolute", "crank_O2", "O2")
    m.add_joint("pin_A", "revolute", "coupler_A", "crank_A")
    m.add_joint("pin_B", "revolute", "coupler_B", "rocker_B")
    m.add_joint("pivot4", "revolute", "rocker_O4", "O4")
    return m


def test_four_bar_loop_closes_through_two_connects_and_matches_mujoco():
    m = four_bar_under_gravity()
    m.assemble()
    e = export_of(m)
    assert e.equalities == ("pin_B",)
    r = m.solve(duration=1.0, fps=50, analysis="dynamic", tolerance=1e-9)
    mj = run_mujoco(e, 1.0, 50)
    assert np.max(mj["gap"]) < 1e-7
    compare_positions(m, r, mj, ["crank", "coupler", "rocker"], 1e-6)


def two_pendulums(b_at: float) -> "solver.Mechanism":
    """Two pendulums about world y, pins "a pin" at the origin (0.5 m to its centre of
    mass, built at 0.3 rad) and "b pin" at x = ``b_at`` (0.3 m, at -0.2 rad), 1 kg each."""
    m = solver.Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    y_axis = (math.sqrt(0.5), -math.sqrt(0.5), 0.0, 0.0)          # marker z along world y
    for name, x, angle, length in (("a", 0.0, 0.3, 0.5), ("b", b_at, -0.2, 0.3)):
        m.add_part(name, mass=1.0, center_of_mass=(length, 0, 0), inertia=(1e-3, 0.02, 0.02),
                   position=(x, 0, 0), orientation=(math.cos(angle / 2), 0, math.sin(angle / 2), 0))
        m.add_marker(f"{name}: pivot", "ground", position=(x, 0, 0), orientation=y_axis)
        m.add_marker(f"{name}: pin", name, orientation=y_axis)
        m.add_joint(f"{name} pin", "revolute", f"{name}: pin", f"{name}: pivot")
    return m


def test_geared_pendulums_with_a_torsion_spring_match_mujoco():
    """Two pendulums about world y geared 2:1 (a coupler, MuJoCo's joint equality), one on
    a torsion spring whose free angle is off the pose as built (springref)."""
    m = two_pendulums(1.0)
    m.add_coupler("tie", ["a pin", "b pin"], [1.0, 2.0])
    m.add_torsion_spring("spring", "b pin", stiffness=5.0, damping=0.1, free_angle=0.4)
    e = export_of(m)
    assert e.equalities == ("tie",) and not e.unmapped
    r = m.solve(duration=1.0, fps=50, analysis="dynamic", tolerance=1e-9)
    mj = run_mujoco(e, 1.0, 50)
    assert np.max(mj["gap"]) < 1e-7
    compare_positions(m, r, mj, ["a", "b"], 1e-6)


def test_pendulum_on_a_spring_damper_matches_mujocos_tendon():
    m = pendulum(axis="y", angle=0.3, inertia=(0.01, 0.02, 0.03))
    m.add_marker("anchor", "ground", position=(0.5, 0.0, 0.8))
    m.add_marker("hook", "bob", position=(0.7, 0.0, 0.0))
    m.add_spring_damper("cord", "hook", "anchor", stiffness=40.0, damping=0.5, free_length=0.6)
    e = export_of(m)
    assert not e.unmapped
    r = m.solve(duration=1.0, fps=50, analysis="dynamic", tolerance=1e-9)
    mj = run_mujoco(e, 1.0, 50)
    compare_positions(m, r, mj, ["bob"], 1e-8)       # no soft constraint: RK4 alone


def test_driven_slider_crank_position_and_torque_match_mujoco():
    m = slider_crank(masses=(1.0, 2.0, 3.0))
    m.assemble()
    e = export_of(m, servo_kp=1e4, servo_kv=5.0)
    assert set(e.servos) == {"drive"} and set(e.tree) == {"crank_pin", "crank_rod", "slide"}
    r = m.solve(duration=1.0, fps=50)
    w = {p: r.angular_velocity(p)[0, 2] for p in ("crank", "rod")}   # planar, about z
    mj = run_mujoco(e, 1.0, 50, qvel=[w["crank"], w["rod"] - w["crank"], r.velocity("slider")[0, 0]])
    compare_positions(m, r, mj, ["crank", "rod", "slider"], 5e-5)
    torque = r.effort("drive")
    dof = mj["model"].joint(e.servos["drive"].joint).dofadr[0]
    theirs = mj["actuator"][:, dof]
    # The servo (kp 1e4 N m/rad, kv 5 N m s/rad on the crank's ~0.01 kg m^2, started on
    # the motion) tracks to ~1e-5 rad.  MuJoCo holds the control over each step, which
    # leaves an error growing as kv dt^2: measured 0.04 N m at kv 20, 0.01 N m at kv 5 or
    # at kv 20 with dt halved, on a 0.8 N m peak; 2% of the peak is the bound.
    assert np.max(np.abs(torque - theirs)) < 0.02 * np.max(np.abs(torque))


def test_stops_springs_friction_couplers_map_to_mujoco_fields_and_the_rest_is_named():
    m = chain([0.0, 0.0], lengths=(0.5, 0.4), kind="revolute", axis="y")
    m.add_limit("joint0: limit", "joint0", lower=-1.0, upper=0.5)
    m.add_torsion_spring("joint1: spring", "joint1", stiffness=3.0, damping=0.2, free_angle=0.1)
    m.add_friction("joint0: friction", "joint0", static=0.0, preload=0.7, viscous=0.05)
    m.add_coupler("tie", ["joint0", "joint1"], [2.0, 1.0])
    m.add_spring_damper("cord", "O", "link1_end", stiffness=50.0, damping=1.0, free_length=0.6)
    m.add_force("push", "link1_end", force=(1.0, 0.0, 0.0))
    e = export_of(m)
    model = mujoco.MjModel.from_xml_string(e.xml)
    j0, j1 = model.joint("joint0"), model.joint("joint1")
    assert j0.limited[0] and np.allclose(j0.range, [-1.0, 0.5])
    assert j1.stiffness[0] == 3.0 and model.qpos_spring[j1.qposadr[0]] == pytest.approx(0.1)
    assert model.dof_damping[j1.dofadr[0]] == 0.2 and model.dof_damping[j0.dofadr[0]] == 0.05
    assert model.dof_frictionloss[j0.dofadr[0]] == 0.7
    tie = model.equality("tie")
    assert tie.type[0] == mujoco.mjtEq.mjEQ_JOINT and tie.data[1] == -0.5   # q0 = -0.5 q1
    cord = model.tendon("cord")
    assert model.tendon_stiffness[cord.id] == 50.0 and model.tendon_lengthspring[cord.id, 0] == pytest.approx(0.6)
    assert any("force 'push'" in u for u in e.unmapped)
    assert any("limit 'joint0: limit'" in u and "restitution" in u for u in e.unmapped)


def test_ball_friction_free_parts_and_unmappable_loops_are_written_or_named():
    m = chain([0.2, 0.4], kind="spherical")
    m.add_friction("ball", "joint0", static=0.0, preload=0.3)
    m.add_part("drone", mass=2.0, position=(0, 0, 3), velocity=(1.0, 0, 0))
    e = export_of(m)
    model = mujoco.MjModel.from_xml_string(e.xml)
    ball = model.joint("joint0")
    assert ball.type[0] == mujoco.mjtJoint.mjJNT_BALL
    assert np.all(model.dof_frictionloss[ball.dofadr[0]:ball.dofadr[0] + 3] == 0.3)
    assert model.joint("drone").type[0] == mujoco.mjtJoint.mjJNT_FREE
    text = " | ".join(e.unmapped)
    assert "friction 'ball': a ball joint's frictionloss" in text
    assert "part 'drone': its initial velocity" in text
    c = slider_crank(variant="RSUP")         # its universal wrist closes the loop
    c.assemble()
    assert any(u.startswith("joint 'wrist': a universal joint") for u in export_of(c).unmapped)


def test_a_moving_part_named_world_is_refused_by_name():
    m = pendulum(part="world")
    with pytest.raises(solver.MechanismError, match="part 'world' moves"):
        export_of(m)


# ---------------------------------------------------------------- import
mjcf, mm = io("mjcf"), io("mjcf_mechanism")

SHAPES = """<mujoco model="shapes">
  <compiler angle="degree"/>
  <default><geom density="800"/><default class="heavy"><geom density="7800"/></default></default>
  <asset><mesh name="hull" vertex="0 0 0 .1 0 0 0 .1 0 0 0 .1" scale="1 2 1"/></asset>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <body name="a" pos="0 0 1" euler="10 20 30">
      <joint name="hinge_a" type="hinge" axis="0 1 0" range="-30 45" damping="0.1" armature="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.1 -0.2" size="0.04"/>
      <geom type="box" size="0.05 0.1 0.02" pos="0.3 0 0" axisangle="1 1 0 40" class="heavy"/>
      <body name="b" pos="0.3 0 0" quat="0.9 0.1 0.2 0.3">
        <joint name="slide_b" type="slide" axis="1 0 0" range="-0.1 0.2" frictionloss="0.3"/>
        <geom type="cylinder" size="0.03 0.2" pos="0 0.1 0" xyaxes="0 1 0 -1 0 0"/>
        <geom type="sphere" size="0.05" mass="0.7" pos="0.1 0 0"/>
        <geom type="ellipsoid" size="0.05 0.03 0.02" zaxis="1 1 1"/>
        <geom type="mesh" mesh="hull" pos="0 0.1 0" euler="0 0 30"/>
      </body>
    </body>
  </worldbody>
  <tendon><fixed name="t"><joint joint="hinge_a" coef="1"/></fixed></tendon>
  <actuator><motor name="m" joint="hinge_a"/></actuator>
</mujoco>"""


def test_import_infers_mass_properties_and_frames_as_mujoco_does():
    model = mjcf.read_model(SHAPES)
    ref = mujoco.MjModel.from_xml_string(SHAPES)
    data = mujoco.MjData(ref)
    mujoco.mj_forward(ref, data)
    world = model.world()
    for name, b in model.bodies.items():
        i = ref.body(name).id
        assert b.mass == pytest.approx(ref.body_mass[i], rel=1e-12)
        assert np.allclose(b.center, ref.body_ipos[i], atol=1e-12)
        # MuJoCo keeps the principal moments (body_inertia) and their axes (body_iquat)
        R = solver.quat_to_matrix(ref.body_iquat[i])
        assert np.allclose(b.inertia, R @ np.diag(ref.body_inertia[i]) @ R.T, atol=1e-12)
        assert np.allclose(world[name][:3, 3], data.xpos[i], atol=1e-12)
        assert np.allclose(world[name][:3, :3], data.xmat[i].reshape(3, 3), atol=1e-12)


@pytest.mark.parametrize("setting", ["auto", "true"])
def test_import_takes_the_inertial_or_the_geoms_as_the_compiler_says(setting):
    xml = f"""<mujoco><compiler inertiafromgeom="{setting}"/><worldbody>
      <body name="a"><joint/><inertial pos="0.1 0 0" mass="2" diaginertia="0.1 0.2 0.3"/>
        <geom type="box" size="0.1 0.2 0.3"/></body></worldbody></mujoco>"""
    ref = mujoco.MjModel.from_xml_string(xml)
    body = mjcf.read_model(xml).bodies["a"]
    assert body.mass == pytest.approx(ref.body_mass[1], rel=1e-12)
    assert np.allclose(np.sort(np.linalg.eigvalsh(body.inertia)), np.sort(ref.body_inertia[1]))


def test_a_springdamper_in_use_is_named_not_read_as_stiffness_and_damping():
    """A hinge with stiffness 5, damping 0.3 and springdamper (0.5 s, ratio 1): MuJoCo
    replaces the stiffness and damping by those of that time constant and ratio (set from
    the joint's inertia), so the typed ones are not the joint's: the import makes no torsion
    spring of them and names the springdamper in the report."""
    xml = """<mujoco><worldbody><body name="a" pos="0 0 1">
      <joint name="h" axis="0 1 0" stiffness="5" damping="0.3" springdamper="0.5 1"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/></body></worldbody></mujoco>"""
    ref = mujoco.MjModel.from_xml_string(xml)
    assert ref.jnt_stiffness[0] != pytest.approx(5.0) and ref.dof_damping[0] != pytest.approx(0.3)
    m, rep = mm.mechanism_from_mjcf(xml)
    assert not m.torsion_springs
    said, = [u for u in rep.unmapped if "springdamper" in u]
    assert "joint 'h'" in said and "0.5 s" in said and "line 2" in said


def test_gravity_compensation_and_fluid_forces_are_named():
    """A body with gravcomp 1 and a model with fluid density and viscosity: in MuJoCo the
    arm hangs still (its weight cancelled, mj_forward's qacc 0 at a horizontal pose) and air
    drags it; the solver has neither, so the import names both with their lines."""
    xml = """<mujoco><option density="1.2" viscosity="0.5"/><worldbody>
      <body name="a" pos="0 0 1" gravcomp="1"><joint name="h" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/></body></worldbody></mujoco>"""
    ref = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(ref)
    mujoco.mj_forward(ref, data)
    assert abs(data.qacc[0]) < 1e-9                      # gravity compensated in MuJoCo
    _, rep = mm.mechanism_from_mjcf(xml)
    assert any("body 'a': gravcomp 1" in u and "line 2" in u for u in rep.unmapped), rep.unmapped
    assert any("density 1.2, viscosity 0.5" in u for u in rep.unmapped), rep.unmapped


def test_a_model_with_gravity_disabled_imports_without_gravity():
    """<flag gravity="disable">: MuJoCo runs the model with no gravity (the arm's qacc 0 at
    a horizontal pose), so the import's gravity is zero and Import MJCF warns that the
    scene's is not; a disabled limit flag, which the import does not follow, is named."""
    xml = """<mujoco><option gravity="0 0 -9.81"><flag gravity="disable" limit="disable"/></option>
      <worldbody><body name="a" pos="0 0 1"><joint name="h" axis="0 1 0" range="-0.5 0.5"
      limited="true"/><geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/></body>
      </worldbody></mujoco>"""
    ref = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(ref)
    mujoco.mj_forward(ref, data)
    assert abs(data.qacc[0]) < 1e-9
    model = mjcf.read_model(xml)
    assert np.array_equal(model.gravity, np.zeros(3))
    _, rep = mm.mechanism_from_mjcf(xml)
    assert any("flag limit disabled" in u for u in rep.unmapped), rep.unmapped


def test_import_maps_joint_fields_and_names_what_it_cannot():
    m, rep = mm.mechanism_from_mjcf(SHAPES)
    assert m.joints["hinge_a"].kind == "revolute" and m.joints["slide_b"].kind == "prismatic"
    lim = m.limits["hinge_a: limit"]
    assert (lim.lower, lim.upper) == pytest.approx((math.radians(-30), math.radians(45)))
    assert m.torsion_springs["hinge_a: spring"].damping == 0.1
    assert m.frictions["slide_b: friction"].preload == 0.3
    text = " | ".join(rep.unmapped)
    for named in ("armature", "tendon 't'", "actuator 'm'"):
        assert named in text
    assert m.parts["a"].mass == pytest.approx(mjcf.read_model(SHAPES).bodies["a"].mass)


def same_mechanism(a, b, tol=1e-12):
    """The same moving parts (mass, centre of mass, inertia, pose) and, for every joint of
    ``a``, a joint of ``b`` of the same kind between the same parts at the same point with
    the same axis (either sign: the import puts marker I on the child body)."""
    for p, part in a.parts.items():
        if part.fixed:
            continue
        q = b.parts[p]
        assert q.mass == pytest.approx(part.mass, rel=tol)
        for f in ("center_of_mass", "inertia", "position"):
            assert np.allclose(getattr(q, f), getattr(part, f), atol=tol), (p, f)
        assert abs(abs(q.orientation @ part.orientation) - 1) < tol
    for name, j in a.joints.items():
        # MJCF has no fixed joint: the body is welded, and the import names its fixed joint
        k = b.joints[name if j.kind != "fixed" else f"{a.markers[j.marker_i].part}: fixed"]
        assert k.kind == j.kind, name
        ends = lambda mech, jt: {mech.markers[mk].part for mk in (jt.marker_i, jt.marker_j)}
        ground = {p for p, part in a.parts.items() if part.fixed}
        assert {("world" if p in ground else p) for p in ends(a, j)} == ends(b, k), name
        if j.kind == "fixed":       # a weld: where its markers sit changes nothing
            continue
        (pa, za), (pb, zb) = joint_line(a, j), joint_line(b, k)
        assert np.allclose(pa, pb, atol=1e-9), name
        if j.kind != "spherical":
            assert abs(abs(za @ zb) - 1) < 1e-9, name


def joint_line(mech, joint):
    """(marker I's origin in world, its z axis in world) of a joint as built."""
    mk = mech.markers[joint.marker_i]
    pos, quat = mech.pose(mk.part)
    R = solver.quat_to_matrix(quat)
    return pos + R @ mk.position, R @ solver.quat_to_matrix(mk.orientation)[:, 2]


def test_export_then_import_gives_the_same_mechanism():
    m = four_bar_under_gravity()
    m.assemble()
    m.add_limit("pivot2: limit", "pivot2", lower=-0.5, upper=2.0)
    m.add_torsion_spring("pivot4: spring", "pivot4", stiffness=2.0, damping=0.1)
    back, rep = mm.mechanism_from_mjcf(export_of(m).xml)
    same_mechanism(m, back)
    assert back.gravity == pytest.approx(m.gravity)
    q0 = ex.coordinate_at_build(m, "pivot2", "angle")      # the import counts from the pose
    assert (back.limits["pivot2: limit"].lower, back.limits["pivot2: limit"].upper) == \
        pytest.approx((-0.5 - q0, 2.0 - q0))
    assert back.torsion_springs["pivot4: spring"].stiffness == 2.0
    c = open_chain_of_every_tree_kind()
    e = export_of(c)
    assert set(e.tree) == set(c.joints) and not e.unmapped
    same_mechanism(c, mm.mechanism_from_mjcf(e.xml)[0])


def open_chain_of_every_tree_kind():
    """ground -cylindrical- a -universal- b -planar- c -spherical- d -prismatic- e -fixed- f,
    markers turned so that no joint frame is a part frame."""
    m = solver.Mechanism()
    m.add_part("ground", fixed=True)
    turn = lambda axis, a: np.concatenate([[math.cos(a / 2)], math.sin(a / 2) * np.asarray(axis, float)])
    q = turn((1, 2, 3) / np.linalg.norm((1, 2, 3)), 0.7)
    for k, name in enumerate("abcdef"):
        m.add_part(name, mass=1.0 + k, inertia=np.diag([0.1, 0.2, 0.25]) + 0.01,
                   center_of_mass=(0.1, 0.02 * k, 0), position=(0.3 * k, 0.1, 0.2),
                   orientation=turn((0, 0, 1), 0.2 * k))
    kinds = ("cylindrical", "universal", "planar", "spherical", "prismatic", "fixed")
    parents = ("ground",) + tuple("abcde")
    for k, (kind, child, parent) in enumerate(zip(kinds, "abcdef", parents)):
        pos = np.array([0.3 * k, 0.1, 0.2])
        for mk, part in ((f"{kind}: I", child), (f"{kind}: J", parent)):
            P, Q = m.pose(part)
            R = solver.quat_to_matrix(Q)
            Rm = R.T @ solver.quat_to_matrix(q)
            if kind == "universal" and part == child:    # z_I across z_J
                Rm = Rm @ solver.quat_to_matrix(turn((1, 0, 0), math.pi / 2))
            m.add_marker(mk, part, position=R.T @ (pos - P), orientation=solver.matrix_to_quat(Rm))
        m.add_joint(kind, kind, f"{kind}: I", f"{kind}: J")
    return m


def test_imported_double_pendulum_swings_as_mujoco_runs_it():
    """Its elbow's spring rests at springref - ref from the pose as written."""
    xml = """<mujoco model="double">
      <compiler angle="radian"/>
      <option timestep="0.0001" integrator="RK4"><flag contact="disable"/></option>
      <worldbody>
        <body name="upper" pos="0 0 1" euler="0 0.4 0">
          <joint name="shoulder" axis="0 1 0" damping="0.05"/>
          <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03"/>
          <body name="fore" pos="0.5 0 0">
            <joint name="elbow" axis="0 1 0" ref="0.2" stiffness="3" springref="0.5"/>
            <geom type="box" pos="0.2 0 0" size="0.2 0.02 0.03" density="2000"/>
          </body>
        </body>
      </worldbody>
    </mujoco>"""
    m, rep = mm.mechanism_from_mjcf(xml)
    assert not rep.unmapped
    r = m.solve(duration=1.0, fps=50, analysis="dynamic", tolerance=1e-9)
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    coms = []
    for k in range(51):
        if k:
            mujoco.mj_step(model, data, nstep=200)
        mujoco.mj_forward(model, data)
        coms.append(data.xipos.copy())
    coms = np.array(coms)
    for part in ("upper", "fore"):          # no soft constraint: RK4's error alone, ~1e-10
        assert np.max(np.abs(r.center_of_mass(part) - coms[:, model.body(part).id])) < 1e-6


@pytest.mark.parametrize("xml, says", [
    ("<mujoco><worldbody><body name='a'><joint/>", "line 1: malformed XML"),
    ("<robot/>", "not <mujoco>"),
    ("<mujoco>\n<worldbody>\n<body name='a'>\n<joint type='hinge'/></body></worldbody></mujoco>",
     "line 3: body 'a' moves on its joints but has no mass"),
    ("<mujoco><worldbody>\n<body name='a'><geom class='nope' size='0.1'/></body></worldbody></mujoco>",
     "line 2: <geom>: unknown default class 'nope'"),
    ("<mujoco><worldbody><body name='a'>\n<joint axis='1 0 0'/><joint axis='1 1 0'/>"
     "<geom size='0.1'/></body></worldbody></mujoco>", "line 2: body 'a': joints hinge, hinge"),
    ("<mujoco><worldbody><body name='a'>\n<joint axis='0 0 x'/><geom size='0.1'/></body>"
     "</worldbody></mujoco>", "line 2: <joint>: axis='0 0 x' is not 3 finite numbers"),
    ("<mujoco><worldbody><body name='a'><geom size='0.1'/>\n<composite type='grid' count='2 2 1'/>"
     "</body></worldbody></mujoco>", "line 2: <composite> in <body name='a'> is not read"),
    ("<mujoco><worldbody><body name='a'><joint/>\n<inertial pos='0 0 0' mass='1' euler='0 0 10' "
     "fullinertia='1 1 1 0 0 0'/></body></worldbody></mujoco>",
     "line 2: <inertial>: fullinertia with euler"),
    ("<mujoco>\n<compiler settotalmass='5'/><worldbody/></mujoco>",
     "line 2: <compiler settotalmass='5'>"),
    ("<mujoco><worldbody><body name='a'><joint name='h' axis='0 1 0'/><geom size='0.1'/>"
     "</body></worldbody><equality>\n<joint name='tie' joint1='h' joint2='typo'/></equality>"
     "</mujoco>", "line 2: joint equality 'tie': unknown joint 'typo'"),
    ("<mujoco><worldbody><body name='a'><joint name='h' axis='0 1 0'/><geom size='0.1'/>"
     "</body></worldbody><equality>\n<joint name='hold'/></equality></mujoco>",
     "line 2: joint equality 'hold' needs the attribute 'joint1'"),
])
def test_bad_mjcf_is_named_with_its_line(xml, says):
    with pytest.raises(mjcf.MjcfError, match=re.escape(says)):
        mm.mechanism_from_mjcf(xml)


def test_slider_crank_falling_under_its_own_weight_matches_mujoco():
    """No drive: a flywheel crank (centre on its pivot) with rod and slider placed at 0.7
    rad, gravity along -y in the plane; the rod-slider pin closes the loop as a connect
    pair (soft, as the four-bar's: 1e-6 m)."""
    m = slider_crank(masses=(1.0, 2.0, 3.0), flywheel=(0.01, 0.0), place_theta=0.7, theta0=0.7)
    m.gravity = np.array([0.0, -G, 0.0])
    m.assemble()
    e = export_of(m)
    assert e.equalities == ("wrist",) and not e.unmapped
    r = m.solve(duration=1.5, fps=50, analysis="dynamic", tolerance=1e-9)
    mj = run_mujoco(e, 1.5, 50)
    assert np.ptp(r.center_of_mass("slider")[:, 0]) > 0.1        # it does run
    assert np.max(mj["gap"]) < 1e-7
    compare_positions(m, r, mj, ["crank", "rod", "slider"], 1e-6)


def test_a_gear_pair_exports_as_a_joint_equality_and_swings_as_in_mujoco():
    """Two pendulums meshing 2:1 (pitch radii 0.2 and 0.1 m): the ratio is MuJoCo's joint
    equality; the tooth force at the pitch point, which moves the axles' reactions and
    not the motion, is named."""
    m = two_pendulums(0.3)
    m.add_gear("mesh", "a pin", "b pin", radii=(0.2, 0.1))
    e = export_of(m)
    assert e.equalities == ("mesh",)
    assert [u.split(":")[0] for u in e.unmapped] == ["gear 'mesh'"]
    r = m.solve(duration=1.5, fps=50, analysis="dynamic", tolerance=1e-9)
    mj = run_mujoco(e, 1.5, 50)
    assert np.max(mj["gap"]) < 1e-7
    compare_positions(m, r, mj, ["a", "b"], 1e-6)


def test_a_chain_of_every_tree_joint_falls_as_in_mujoco():
    """Cylindrical, universal, planar, spherical, prismatic and fixed joints, markers
    turned off the part frames, falling under gravity: no soft constraint, RK4 alone."""
    c = open_chain_of_every_tree_kind()
    c.gravity = np.array([0.0, 0.0, -G])
    e = export_of(c)
    assert not e.unmapped
    r = c.solve(duration=1.0, fps=50, analysis="dynamic", tolerance=1e-9)
    compare_positions(c, r, run_mujoco(e, 1.0, 50), list("abcdef"), 1e-8)


def test_a_two_joint_screw_exports_with_its_threads_hand():
    """A shaft on a revolute and a nut on a prismatic, both in the frame along world z, a
    right-hand screw of 10 mm pitch; a torsion spring (1 N m/rad, free at 1 rad) turns the
    shaft: the nut runs as the thread says, -pitch/(2 pi) per radian of the shaft (the
    solver's hand, model/plans.py screw_sense).  The export wrote the terms as given, the
    sense left out, and MuJoCo ran the nut the other way (+3.2 mm where the solver has
    -3.2 mm after 0.5 s); now within the soft equality's 1e-6 m."""
    m = solver.Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("shaft", mass=1.0, inertia=(1e-2, 1e-2, 1e-3))
    m.add_part("nut", mass=0.5, inertia=(1e-3, 1e-3, 1e-3), position=(0.1, 0.0, 0.0))
    m.add_marker("bearing", "ground")
    m.add_marker("hub", "shaft")
    m.add_joint("spin", "revolute", "hub", "bearing")
    m.add_marker("guide", "ground", position=(0.1, 0.0, 0.0))
    m.add_marker("slider", "nut")
    m.add_joint("slide", "prismatic", "slider", "guide")
    m.add_screw("thread", "spin", pitch=0.01, slide_joint="slide")
    m.add_torsion_spring("twist", "spin", stiffness=1.0, free_angle=1.0)
    e = export_of(m)
    assert e.equalities == ("thread",) and not e.unmapped
    r = m.solve(duration=0.5, fps=50, analysis="dynamic", tolerance=1e-9)
    assert r.center_of_mass("nut")[-1, 2] < -3e-3            # the thread's hand
    mj = run_mujoco(e, 0.5, 50)
    assert np.max(mj["gap"]) < 1e-7
    compare_positions(m, r, mj, ["nut"], 1e-6)
