"""URDF robots read by the extension (addon/io/urdf.py, urdf_mechanism.py) against MuJoCo's
own URDF reader: the same file compiled by MuJoCo (its ``<mujoco><compiler/></mujoco>``
extension keeping every link a body: fusestatic="false", no inertia balancing) gives the
masses, the inertias about the centres of mass in world axes, the joint axes and anchors
and the ranges; MuJoCo's RK4 run of the same file (contacts off) gives the passive swing
under gravity.

The robot is written as real ones are: joint origins with roll-pitch-yaw, axes neither
unit nor along a frame axis, inertials with off-diagonal terms and their own rpy, a
massless tool frame on a fixed joint carrying a moving link, a link with mass welded on a
fixed joint, damped joints.

Where MuJoCo's reading departs from the URDF specification the specification rules and
the tests do not compare: MuJoCo 4 drops ``<mimic>`` (no equality is made, the mimic joint
swings freely and starts at 0, not at its offset), refuses a ``floating`` joint below the
root, and reads a revolute joint without ``<limit>`` (which URDF requires) as unlimited.

Tolerances: compiled quantities agree to 1e-12 (both are products of a few 3x3 rotations
of data given to 6 digits, rounding only).  Motion: MuJoCo's RK4 at 1e-4 s has a global
error of order (1e-4 s)^4 times the fourth derivative, far below 1e-10 m over 0.6 s; the
solver's run at tolerance 1e-10 (its local error goal) stays within 1e-8 m of it over the
0.6 s of swing (1e-11 observed); the swing moves the links by tenths of a metre, so a
wrong inertia, axis or damping shows by orders of magnitude more."""
from __future__ import annotations

import numpy as np
import pytest

from test_io_addon import io, solver

mujoco = pytest.importorskip("mujoco")
um = io("urdf_mechanism")

ROBOT = """<?xml version="1.0"?>
<robot name="probe">
  <mujoco><compiler discardvisual="false" fusestatic="false" balanceinertia="false"/></mujoco>
  <link name="base_link"/>
  <link name="link1">
    <inertial><origin xyz="0.05 0.02 0.15" rpy="0.3 -0.2 0.5"/><mass value="2.5"/>
      <inertia ixx="0.04" ixy="0.002" ixz="-0.003" iyy="0.03" iyz="0.001" izz="0.02"/></inertial>
    <collision><geometry><box size="0.1 0.1 0.3"/></geometry></collision>
  </link>
  <link name="link2">
    <inertial><origin xyz="0.2 0.01 -0.02" rpy="0.1 0.4 -0.3"/><mass value="1.2"/>
      <inertia ixx="0.003" ixy="0.0004" ixz="0.0002" iyy="0.012" iyz="-0.0003" izz="0.011"/>
    </inertial>
  </link>
  <link name="tool0"/>
  <link name="finger">
    <inertial><origin xyz="0.1 0 0"/><mass value="0.6"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.002" iyz="0" izz="0.002"/></inertial>
  </link>
  <link name="counterweight">
    <inertial><origin xyz="0 0.03 0" rpy="0.7 0 0"/><mass value="0.8"/>
      <inertia ixx="0.002" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.0015"/></inertial>
  </link>
  <joint name="j1" type="continuous">
    <parent link="base_link"/><child link="link1"/>
    <origin xyz="0 0 0.5" rpy="0.4 0.3 -0.2"/><axis xyz="0 2 1"/>
    <dynamics damping="0.05"/>
  </joint>
  <joint name="j2" type="revolute">
    <parent link="link1"/><child link="link2"/>
    <origin xyz="0.1 0.05 0.3" rpy="-0.5 1.2 0.7"/><axis xyz="1 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="3"/>
    <dynamics damping="0.02"/>
  </joint>
  <joint name="flange" type="fixed">
    <parent link="link2"/><child link="tool0"/>
    <origin xyz="0.4 0 0" rpy="1.5707963 0 0.3"/>
  </joint>
  <joint name="j3" type="revolute">
    <parent link="tool0"/><child link="finger"/>
    <origin xyz="0.05 0 0" rpy="0 0.2 0"/><axis xyz="0 0 -3"/>
    <limit lower="-2.5" upper="2.5" effort="10" velocity="3"/>
  </joint>
  <joint name="weld" type="fixed">
    <parent link="link1"/><child link="counterweight"/>
    <origin xyz="-0.1 0 0.05" rpy="0.1 0.2 0.3"/>
  </joint>
</robot>
"""
MOVING = ("link1", "link2", "finger", "counterweight")


def mujoco_model(text: str):
    """MuJoCo's model of the URDF text: RK4 at 1e-4 s, contacts off, and its data forward."""
    model = mujoco.MjModel.from_xml_string(text)
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.timestep = 1e-4
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def mujoco_run_to(model, data, t: float) -> None:
    """MuJoCo's steps up to time ``t`` (s); a run MuJoCo found unstable (and reset) fails."""
    for _ in range(round((t - data.time) / model.opt.timestep)):
        mujoco.mj_step(model, data)
    assert data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number == 0
    assert data.time == pytest.approx(t, abs=1e-9)


def body(model, name: str) -> int:
    return mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name)


def test_masses_and_inertias_are_mujocos() -> None:
    model, data = mujoco_model(ROBOT)
    m, report = um.mechanism_from_urdf(ROBOT)
    assert report.parts["tool0"] == "link2" and model.body_mass[body(model, "tool0")] == 0.0
    for name in MOVING:
        b, part = body(model, name), m.parts[name]
        R = solver.quat_to_matrix(np.asarray(part.orientation, dtype=float))
        assert part.mass == pytest.approx(model.body_mass[b], rel=1e-12)
        com = np.asarray(part.position) + R @ np.asarray(part.center_of_mass)
        assert np.abs(com - data.xipos[b]).max() < 1e-12
        Ri = data.ximat[b].reshape(3, 3)
        theirs = Ri @ np.diag(model.body_inertia[b]) @ Ri.T       # about the COM, world axes
        assert np.abs(R @ np.asarray(part.inertia) @ R.T - theirs).max() < 1e-12


def test_joint_axes_anchors_and_ranges_are_mujocos() -> None:
    model, data = mujoco_model(ROBOT)
    m, report = um.mechanism_from_urdf(ROBOT)
    r = m.solve(times=[0.0], tolerance=1e-10)
    for name in ("j1", "j2", "j3"):
        k = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
        origin, axes = r.marker_frame(report.markers[name][1])
        assert np.abs(origin[0] - data.xanchor[k]).max() < 1e-12
        assert np.abs(axes[0][:, 2] - data.xaxis[k]).max() < 1e-12
        limit = m.limits.get(f"{name}: limit")
        if model.jnt_limited[k]:
            assert (limit.lower, limit.upper) == tuple(model.jnt_range[k])
        else:
            assert limit is None
        damper = m.torsion_springs.get(f"{name}: damping")
        damping = 0.0 if damper is None else damper.damping
        assert damping == model.dof_damping[model.jnt_dofadr[k]]


def test_the_passive_swing_is_mujocos() -> None:
    """Released at rest under gravity, damped: the centres of mass follow MuJoCo's RK4 run
    (no stop is reached in 0.6 s; module docstring for the tolerance)."""
    model, data = mujoco_model(ROBOT)
    m, _ = um.mechanism_from_urdf(ROBOT)
    times = np.array([0.0, 0.2, 0.4, 0.6])
    r = m.solve(times=times, tolerance=1e-10)
    moved = 0.0
    for k, t in enumerate(times):
        mujoco_run_to(model, data, t)
        for name in MOVING:
            ours = r.center_of_mass(name)[k]
            assert np.abs(ours - data.xipos[body(model, name)]).max() < 1e-8, (name, t)
            moved = max(moved, np.abs(ours - r.center_of_mass(name)[0]).max())
    assert moved > 0.2


def inertial(mass: float, moment: float) -> str:
    return (f'<inertial><origin xyz="0.1 0 0"/><mass value="{mass}"/><inertia ixx="{moment}" '
            f'ixy="0" ixz="0" iyy="{moment}" iyz="0" izz="{moment}"/></inertial>')


SMALL = {
    # a planar joint, its normal tilted off every axis, carrying a damped pendulum: MuJoCo
    # makes it two slides and a hinge in the joint frame, the solver one planar joint
    "planar": ("""<joint name="p" type="planar"><parent link="base"/><child link="a"/>
      <origin xyz="0 0 1" rpy="0.3 0.2 0.1"/><axis xyz="0 1 1"/></joint>""", 2.0, 0.01, 0.01),
    # a sensor link of a milligram at the tip of a swinging link, undamped: a damping of
    # 0.01 N m s on its 1e-12 kg m^2 would have a time constant I / c of 1e-10 s, which
    # MuJoCo's explicit RK4 at 1e-4 s cannot follow (it diverges on the second step)
    "micro sensor": ("""<joint name="p" type="continuous"><parent link="base"/><child link="a"/>
      <origin xyz="0 0 1"/><axis xyz="0 1 0"/></joint>""", 1e-6, 1e-12, 0.0),
}


@pytest.mark.parametrize("case", sorted(SMALL))
def test_a_small_robot_swings_as_mujoco_runs_it(case: str) -> None:
    """Link 'a' on the joint of the case, link 'b' (the case's mass and moments) on a pin off
    every axis: the centres of mass follow MuJoCo's RK4 run (module docstring)."""
    joint, mass, moment, damping = SMALL[case]
    text = f"""<robot name="small">
  <mujoco><compiler fusestatic="false" balanceinertia="false"/></mujoco>
  <link name="base"/><link name="a">{inertial(2.0, 0.01)}</link>
  <link name="b">{inertial(mass, moment)}</link>{joint}
  <joint name="k" type="continuous"><parent link="a"/><child link="b"/>
    <origin xyz="0.2 0 0"/><axis xyz="0.2 1 0.3"/><dynamics damping="{damping}"/></joint>
</robot>"""
    model, data = mujoco_model(text)
    m, _ = um.mechanism_from_urdf(text)
    times = np.array([0.0, 0.2, 0.4])
    r = m.solve(times=times, tolerance=1e-10)
    for k, t in enumerate(times):
        mujoco_run_to(model, data, t)
        for name in ("a", "b"):
            assert np.abs(r.center_of_mass(name)[k] - data.xipos[body(model, name)]).max() < 1e-8
    assert np.abs(r.center_of_mass("b")[-1] - r.center_of_mass("b")[0]).max() > 0.05
