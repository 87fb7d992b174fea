"""MJCF export (addon/io/mjcf_export.py) checked against MuJoCo itself: each mechanism is
exported, loaded with mujoco.MjModel.from_xml_string, integrated by MuJoCo and compared
with this solver's own run of the same mechanism.

MuJoCo runs RK4 at dt = 1e-4 s.  Its loop closures (connect) and couplers are soft
equality constraints: solref (2 dt = 2e-4 s, damping ratio 1) and solimp 0.9999, so a
constraint force is 99.99% of the exact one and a drift is pulled back within ~1 ms.
Measured, the loop-closure gap stays below 1e-5 m; RK4's own error at this step over one
second is ~1e-10.  The solver runs at tolerance 1e-9.  So positions agree to 1e-4 m
(a constraint gap of 1e-5 m leaves the bodies that far apart, a few times that through a
chain's lever arms); a tree joint's force to 1e-4 of its peak, a servo's torque to 8%
(the test says why).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from mechanisms import chain, pendulum, slider_crank, four_bar_angles
from test_io_addon import io, solver

mujoco = pytest.importorskip("mujoco")
ex = io("mjcf_export")
G = 9.81
DT = 1e-4


def run_mujoco(export, duration: float, fps: float, qvel=None) -> dict:
    """MuJoCo's integration of an export from qpos0 (at rest, or at ``qvel``), sampled at k / fps: every
    body's centre of mass (n, bodies, 3), the force each joint's parent puts on its body
    (cfrc_int, world axes, N) and the actuator forces along their joints (n, dofs)."""
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
        out["gap"].append(np.max(np.abs(data.efc_pos[:model.neq * 3]), initial=0.0))
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
    compare_positions(m, r, mj, ["bob"], 1e-6)         # no soft constraint: RK4 alone
    force = r.reaction("pin")[0]                     # on the bob, world axes
    theirs = mj["force"][:, mj["model"].body("bob").id]
    assert np.max(np.abs(force - theirs)) < 1e-4 * np.max(np.abs(force))


def test_double_pendulum_matches_mujoco():
    m = chain([0.4, -0.5], lengths=(0.5, 0.4), masses=(2.0, 1.0), kind="revolute", axis="y")
    e = export_of(m)
    assert set(e.tree) == {"joint0", "joint1"} and not e.equalities
    r = m.solve(duration=1.0, fps=50, analysis="dynamic", tolerance=1e-9)
    mj = run_mujoco(e, 1.0, 50)
    compare_positions(m, r, mj, ["link0", "link1"], 1e-6)


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
    assert np.max(mj["gap"]) < 1e-5
    compare_positions(m, r, mj, ["crank", "coupler", "rocker"], 1e-4)


def test_driven_slider_crank_position_and_torque_match_mujoco():
    m = slider_crank(masses=(1.0, 2.0, 3.0))
    m.assemble()
    e = export_of(m, servo_kp=1e4, servo_kv=20.0)
    assert set(e.servos) == {"drive"} and set(e.tree) == {"crank_pin", "crank_rod", "slide"}
    r = m.solve(duration=1.0, fps=50)
    w = {p: r.angular_velocity(p)[0, 2] for p in ("crank", "rod")}   # planar, about z
    mj = run_mujoco(e, 1.0, 50, qvel=[w["crank"], w["rod"] - w["crank"], r.velocity("slider")[0, 0]])
    compare_positions(m, r, mj, ["crank", "rod", "slider"], 1e-4)
    torque = r.effort("drive")
    dof = mj["model"].joint(e.servos["drive"].joint).dofadr[0]
    theirs = mj["actuator"][:, dof]
    # The servo (kp 1e4 N m/rad, kv 20 N m s/rad, critically damped on the crank's ~0.01
    # kg m^2) tracks to ~1e-5 rad; its velocity term under RK4's control held over each
    # step leaves a measured 0.04 N m on a 0.8 N m peak: 8% of the peak is the bound.
    assert np.max(np.abs(torque - theirs)) < 0.08 * np.max(np.abs(torque))


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
