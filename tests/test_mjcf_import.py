"""MJCF import checked against MuJoCo itself, model by model: each file is compiled by
MuJoCo (mass properties, poses at qpos0) and run by it from qpos0 with RK4 at DT = 1e-4 s,
contacts off, beside the solver's run of the import at tolerance 1e-9.  Skipped where
MuJoCo is not installed (the checks without MuJoCo are in test_io_mjcf.py).

Tolerances: RK4's error over 1.5 s of these swings at 1e-4 s is ~1e-12 m (measured) and
the solver's below 1e-9 m, so a model without soft constraints agrees to 1e-8 m; what
MuJoCo makes soft (a limit) is bounded by its own give, said at the test.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from test_io_addon import io, solver

mujoco = pytest.importorskip("mujoco")
mjcf, mm = io("mjcf"), io("mjcf_mechanism")
DT = 1e-4


def mujoco_coms(xml: str, duration: float, fps: float = 50) -> tuple:
    """(MuJoCo's model, every body's centre of mass (n, bodies, 3) sampled at k / fps) of
    MJCF text run from qpos0 with RK4 at DT, contacts off, whatever the file's options."""
    model = mujoco.MjModel.from_xml_string(xml)
    model.opt.timestep, model.opt.integrator = DT, mujoco.mjtIntegrator.mjINT_RK4
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    data = mujoco.MjData(model)
    coms = []
    for k in range(round(duration * fps) + 1):
        if k:
            mujoco.mj_step(model, data, nstep=round(1 / (fps * DT)))
        mujoco.mj_forward(model, data)
        coms.append(data.xipos.copy())
    return model, np.array(coms)


def import_and_compare(xml: str, duration: float, tol: float, bodies: dict | None = None) -> tuple:
    """The import of ``xml`` run by the solver beside MuJoCo's run of the file: every
    moving part's centre of mass within ``tol`` (m) of MuJoCo's body of that name (or
    ``bodies[part]``); (mechanism, report, the largest difference)."""
    m, rep = mm.mechanism_from_mjcf(xml)
    r = m.solve(duration=duration, fps=50, analysis="dynamic", tolerance=1e-9)
    model, coms = mujoco_coms(xml, duration)
    worst = 0.0
    for part in (p for p, q in m.parts.items() if not q.fixed):
        body = (bodies or {}).get(part, part)
        err = np.max(np.abs(r.center_of_mass(part) - coms[:, model.body(body).id]))
        assert err < tol, f"{part}: centre of mass {err:.3g} m from MuJoCo's"
        worst = max(worst, err)
    return m, rep, worst


CLASSED_ARM = """<mujoco><compiler angle="degree"/>
  <default><joint damping="0.02"/>
    <default class="arm"><joint axis="0 1 0" stiffness="2" springref="20" ref="10"/>
      <geom type="capsule" size="0.03"/></default></default>
  <worldbody><body name="a" pos="0 0 1" childclass="arm" zaxis="0 1 1"><joint/>
    <geom fromto="0 0 0 0.4 0 0"/>
    <body name="b" pos="0.4 0 0" axisangle="0 0 1 30"><joint axis="0 0 1" class="main"/>
      <geom fromto="0 0 0 0.3 0 0"/></body></body></worldbody></mujoco>"""


def test_unnamed_joints_in_default_classes_swing_as_mujoco_runs_them():
    """Joints without names, their axes, springs (springref and ref in degrees) and
    damping from default classes (childclass, and class "main" overriding it): no soft
    constraint, so RK4's error alone (~1e-12 m measured) against the solver's 1e-9."""
    m, rep, _ = import_and_compare(CLASSED_ARM, 1.5, 1e-8)
    assert set(m.joints) == {"a: joint0", "b: joint0"} and not rep.unmapped


@pytest.mark.parametrize("kind", ["capsule", "cylinder", "box", "ellipsoid"])
def test_fromto_geoms_have_mujocos_mass_properties(kind):
    xml = f"""<mujoco><worldbody><body name="a"><joint/>
      <geom type="{kind}" size="0.05 0.07" fromto="0.1 0 0 0.3 0.2 0.1" density="700"/>
      </body></worldbody></mujoco>"""
    ref = mujoco.MjModel.from_xml_string(xml)
    body = mjcf.read_model(xml).bodies["a"]
    assert body.mass == pytest.approx(ref.body_mass[1], rel=1e-12)
    assert np.allclose(body.center, ref.body_ipos[1], atol=1e-12)
    R = solver.quat_to_matrix(ref.body_iquat[1])
    assert np.allclose(body.inertia, R @ np.diag(ref.body_inertia[1]) @ R.T, atol=1e-12)


def test_a_free_body_falls_and_tumbles_as_in_mujoco_keeping_its_angular_momentum():
    """A box (three different moments, centre off the body origin, turned by euler) on a
    free joint, thrown spinning about an axis near its middle one (the unstable one): MJCF
    has no initial velocity, so the same one is given to both, the solver's part at its
    origin (world axes), MuJoCo's qvel (the origin's velocity in world, the angular one
    in body axes).  Both keep the angular momentum about the centre, R I R^T w: RK4 at
    1e-4 s to ~1e-9 relative, the solver at 1e-9, so 1e-6; the centre falls as ballistics
    (no soft constraint), the orientation follows (all measured below 1e-9)."""
    xml = """<mujoco><worldbody><body name="a" pos="0 0 1" euler="10 20 30">
      <joint name="f" type="free"/><geom type="box" size="0.1 0.2 0.3" pos="0.05 0 0"/>
      </body></worldbody></mujoco>"""
    m, rep = mm.mechanism_from_mjcf(xml)
    assert not rep.unmapped
    R0 = solver.quat_to_matrix(m.parts["a"].orientation)
    w0, v0 = R0 @ np.array([0.2, 4.0, 0.3]), np.array([0.5, 0.0, 2.0])
    m.parts["a"] = dataclasses.replace(m.parts["a"], angular_velocity=w0, velocity=v0)
    r = m.solve(duration=1.5, fps=50, analysis="dynamic", tolerance=1e-9)
    model = mujoco.MjModel.from_xml_string(xml)
    model.opt.timestep, model.opt.integrator = DT, mujoco.mjtIntegrator.mjINT_RK4
    data = mujoco.MjData(model)
    data.qvel[:] = np.concatenate([v0, R0.T @ w0])
    I = m.parts["a"].inertia
    ours, theirs, com = [], [], []
    for k in range(76):
        if k:
            mujoco.mj_step(model, data, nstep=200)
        mujoco.mj_forward(model, data)
        R = data.xmat[1].reshape(3, 3)
        theirs.append(R @ I @ R.T @ (R @ data.qvel[3:6]))
        com.append(data.xipos[1].copy())
        Q = solver.quat_to_matrix(r.orientation("a")[k])
        ours.append(Q @ I @ Q.T @ r.angular_velocity("a")[k])
    ours, theirs = np.array(ours), np.array(theirs)
    size = np.linalg.norm(ours[0])
    assert np.allclose(ours[0], theirs[0], atol=1e-12 * size)
    assert np.max(np.abs(ours - ours[0])) < 1e-6 * size
    assert np.max(np.abs(theirs - theirs[0])) < 1e-6 * size
    assert np.max(np.abs(r.center_of_mass("a") - np.array(com))) < 1e-6
    q_theirs = np.array([data.xquat[1]])
    assert abs(abs(q_theirs[0] @ r.orientation("a")[-1]) - 1) < 1e-6


def test_a_hinge_falls_onto_its_stop_and_stays_there_as_in_mujoco():
    """An arm released level falls onto the upper bound of range="-20 30" (degrees).
    MuJoCo's limit is a critically damped soft constraint (solreflimit 0.02 s, ratio 1):
    measured, it runs 2.4 degrees past the bound and settles 0.04 degrees past it (its
    weight on the soft stop), never swinging back.  The import's rigid stop does the
    same without the give: after the first touch neither comes back more than 0.5
    degree off the bound, and both end within 0.1 degree of it."""
    xml = """<mujoco><worldbody><body name="a" pos="0 0 1"><joint name="h" axis="0 1 0"
      range="-20 30"/><geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/></body>
      </worldbody></mujoco>"""
    m, rep = mm.mechanism_from_mjcf(xml)
    r = m.solve(duration=1.5, fps=50, analysis="dynamic", tolerance=1e-9)
    model, coms = mujoco_coms(xml, 1.5)
    swing = lambda c: np.degrees(np.arctan2(1.0 - c[:, 2], c[:, 0]))   # about +y, from level
    for angle in (swing(r.center_of_mass("a")), swing(coms[:, model.body("a").id])):
        touch = np.argmax(angle > 29.5)
        assert touch > 0 and np.min(angle[touch:]) > 29.5, np.round(angle, 2)
        assert abs(angle[-1] - 30.0) < 0.1


def assert_mass_properties_and_poses_as_compiled(xml: str) -> None:
    """Every body's mass, centre, inertia (body_inertia turned by body_iquat) and pose at
    qpos0 as MuJoCo compiles ``xml``: sums and products of the same numbers, 1e-12."""
    model, ref = mjcf.read_model(xml), mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(ref)
    mujoco.mj_forward(ref, data)
    world = model.world()
    for name, b in model.bodies.items():
        i = ref.body(name).id
        assert b.mass == pytest.approx(ref.body_mass[i], rel=1e-12), name
        assert np.allclose(b.center, ref.body_ipos[i], atol=1e-12), name
        R = solver.quat_to_matrix(ref.body_iquat[i])
        assert np.allclose(b.inertia, R @ np.diag(ref.body_inertia[i]) @ R.T, atol=1e-12), name
        assert np.allclose(world[name][:3, 3], data.xpos[i], atol=1e-12), name
        assert np.allclose(world[name][:3, :3], data.xmat[i].reshape(3, 3), atol=1e-12), name


def test_bodies_geoms_and_joints_in_frames_compile_and_swing_as_in_mujoco():
    """Nested <frame>s turned by euler, with a childclass, around a body, a joint, a
    geom and a second body: no soft constraint, RK4's error alone (as above)."""
    from test_io_mjcf import FRAMED
    xml = FRAMED.format(a=0.3, b=0.7, c=-0.4)
    assert_mass_properties_and_poses_as_compiled(xml)
    import_and_compare(xml, 1.5, 1e-8)


def test_compiler_bounds_compile_and_swing_as_in_mujoco():
    """boundmass and boundinertia raising a thin box, an empty body and not a sphere:
    MuJoCo's compile to 1e-12, the swing to RK4's error (as above)."""
    from test_io_mjcf import BOUNDED
    assert_mass_properties_and_poses_as_compiled(BOUNDED)
    import_and_compare(BOUNDED, 1.5, 1e-8)


STIFF = 'solref="0.0002 1" solimp="0.9999 0.9999 0.001 0.5 2"'
ARMS = """<mujoco><compiler angle="radian"/><option><flag contact="disable"/></option><worldbody>
  <body name="a" pos="0 0 1"><joint name="j1" {a_joint}/>
    <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/>
    <body name="b" pos="0.4 0 0"><joint name="j2" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03"/></body></body>
  <body name="c" pos="{c_pos}" euler="0 0.5 0"><joint name="j3" axis="0 1 0" ref="-0.2"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body></worldbody>
  <equality>{equality}</equality></mujoco>"""


@pytest.mark.parametrize("a_joint, c_pos, equality, joint", [
    ('axis="0 1 0"', "0 0 1", f'<connect name="pin" body1="c" body2="b" anchor="0.3 0 0" {STIFF}/>',
     ("pin", "spherical")),
    ('axis="0 1 0"', "0 0 1", f'<connect name="p: 1" body1="c" body2="b" anchor="0.3 0 0" {STIFF}/>'
     f'<connect name="p: 2" body1="c" body2="b" anchor="0.3 0.1 0" {STIFF}/>', ("p", "revolute")),
    ('axis="0 1 0"', "0 0 1", f'<weld name="w" body1="c" body2="a" {STIFF}/>', ("w", "fixed")),
    ('axis="0 1 0" ref="0.1"', "1 0 1",
     f'<joint name="tie" joint1="j1" joint2="j3" polycoef="0 -2 0 0 0" {STIFF}/>', None),
    ('type="slide" axis="1 0 0"', "1 0 1",
     f'<joint name="tie" joint1="j1" joint2="j3" polycoef="0 0.5 0 0 0" {STIFF}/>', None),
    ('axis="0 1 0" ref="0.3"', "1 0 1", f'<joint name="hold" joint1="j1" {STIFF}/>', None),
])
def test_equalities_hold_as_in_mujoco(a_joint, c_pos, equality, joint):
    """connect (one: a ball; two between the same bodies: a pin through both anchors),
    weld, joint equalities (hinge to hinge from their refs, slide to hinge in m/rad, one
    joint held at a0) made as stiff as MuJoCo keeps stable (solref 2 dt, solimp 0.9999),
    as the export writes them: measured within 5e-10 m of the solver's, bounded at 1e-7
    m as the export's loops."""
    xml = ARMS.format(a_joint=a_joint, c_pos=c_pos, equality=equality)
    m, rep, _ = import_and_compare(xml, 1.5, 1e-7)
    assert not rep.unmapped
    if joint:
        assert m.joints[joint[0]].kind == joint[1]
    else:
        assert len(m.couplers) + len(m.motions) == 1


@pytest.mark.parametrize("groups", ["0 3", "4 5", "0 5"])
def test_inertia_group_ranges_compile_as_in_mujoco(groups):
    xml = f"""<mujoco><compiler inertiagrouprange="{groups}"/><worldbody><body name="a">
      <joint/><geom type="box" size=".1 .2 .3" group="1"/><inertial pos="0 0 0" mass="0.1"
      diaginertia="1e-3 1e-3 1e-3"/><body name="b"><joint axis="1 0 0"/>
      <geom type="box" size=".1 .2 .3" group="2"/><geom type="capsule" fromto="0 0 0 .3 .1 0"
      size=".05" group="4"/></body></body></worldbody></mujoco>"""
    assert_mass_properties_and_poses_as_compiled(xml)


@pytest.mark.parametrize("geom", ['size="0.1"', 'type="box" size="0.1 0.2 0.3" euler="10 20 30"',
                                  'type="cylinder" size="0.05 0.2" pos="0.1 0 0"',
                                  'type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.05" mass="2"'])
def test_shell_inertia_compiles_as_in_mujoco(geom):
    xml = f"""<mujoco><worldbody><body name="a"><joint/><geom {geom} shellinertia="true"/>
      </body></worldbody></mujoco>"""
    assert_mass_properties_and_poses_as_compiled(xml)


def test_replicated_bodies_have_mujocos_names_and_swing_as_in_mujoco():
    from test_io_mjcf import REPLICATED
    for seq in ("xyz", "zyx", "XYZ"):       # a step turned about all three axes, in frames
        assert_mass_properties_and_poses_as_compiled(f"""<mujoco><compiler eulerseq="{seq}"/>
          <worldbody><replicate count="4" offset="0.1 0.2 0" euler="10 20 30"><frame
          euler="5 -10 40"><body name="b" pos="0 0 1"><joint axis="0 1 0"/><geom size=".05"
          pos=".1 0 0"/></body></frame></replicate></worldbody></mujoco>""")
    ref = mujoco.MjModel.from_xml_string(REPLICATED)
    assert list(mjcf.read_model(REPLICATED).bodies) == [ref.body(i).name for i in range(1, ref.nbody)]
    assert_mass_properties_and_poses_as_compiled(REPLICATED)
    import_and_compare(REPLICATED, 1.0, 1e-8)


OVERLAPPING = """<mujoco><worldbody><geom name="floor" size=".3"/>
  <body name="a"><joint/><geom name="ga" size=".2"/>
    <body name="b"><joint/><geom name="gb" size=".2"/>
      <body name="bb"><geom name="gbb" size=".2"/></body></body>
    <body name="c"><joint/><geom name="gc" size=".2" contype="2" conaffinity="2"/></body></body>
  <body name="d"><joint/><geom name="gd" size=".2" contype="0" conaffinity="2"/></body>
  <body name="e"><joint/><geom name="ge" size=".2"/></body>
  </worldbody><contact><exclude body1="e" body2="b"/></contact></mujoco>"""


def test_the_geom_pairs_named_as_colliding_are_those_mujoco_collides():
    """Geoms all overlapping at the origin, so MuJoCo's mj_forward finds a contact for
    every pair it would collide (two spheres give one contact each): the import counts
    as many, none between a body and its parent (but for the world) and none between
    geoms whose contype and conaffinity share no bit or whose bodies are excluded."""
    model = mujoco.MjModel.from_xml_string(OVERLAPPING)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    _, rep = mm.mechanism_from_mjcf(OVERLAPPING)
    said, = [u for u in rep.unmapped if u.startswith("contacts:")]
    assert f"MuJoCo collides {data.ncon} geom pair(s)" in said, (data.ncon, said)


ORIENTED = """<mujoco><compiler angle="{unit}" eulerseq="{seq}"/><worldbody>
  <body name="a" pos="0 0 1" euler="{e1}"><joint axis="1 1 0"/>
    <geom type="box" size=".1 .05 .02" pos=".1 0 0" euler="{e2}"/>
    <geom type="cylinder" size=".02 .1" pos=".2 0 0" axisangle="0 1 1 {a1}"/>
    <body name="b" pos=".3 0 0" xyaxes="0 1 0 -1 0 .5"><joint axis="0 1 1"/>
      <inertial pos=".1 .02 0" quat=".9 .1 .3 .2" mass="1.5" diaginertia=".01 .02 .025"/>
      <body name="c" pos=".2 0 0" zaxis="1 0 1"><joint axis="1 0 0" pos=".05 0 0"/>
        <inertial pos=".1 0 .01" mass="0.8" fullinertia=".01 .012 .015 .001 -.002 .0005"/>
        <body name="d" pos=".2 0 0" quat="0 0 0 1"><joint type="ball"/>
          <geom type="ellipsoid" size=".05 .03 .02" pos=".1 0 0" zaxis="-1 1 0"/>
          <geom type="capsule" size=".02 .05" pos=".2 0 0" xyaxes="0 0 1 0 1 0"/>
        </body></body></body></body></worldbody></mujoco>"""


@pytest.mark.parametrize("unit, seq, e1, e2, a1", [
    ("degree", "xyz", "10 20 30", "-40 15 70", "35"),
    ("degree", "ZYX", "10 20 30", "-40 15 70", "-50"),
    ("radian", "zxz", "0.2 -0.4 0.9", "1.1 0.3 -0.6", "0.7"),
    ("radian", "XzY", "0.2 -0.4 0.9", "1.1 0.3 -0.6", "-1.2"),
])
def test_every_orientation_form_compiles_and_swings_as_in_mujoco(unit, seq, e1, e2, a1):
    """euler (sequence and unit from the compiler), axisangle, xyaxes, zaxis and quat on
    bodies, geoms and inertials (diaginertia and fullinertia), hinges off the axes and a
    ball: MuJoCo's compile to 1e-12, the swing to RK4's error (as above)."""
    xml = ORIENTED.format(unit=unit, seq=seq, e1=e1, e2=e2, a1=a1)
    assert_mass_properties_and_poses_as_compiled(xml)
    import_and_compare(xml, 1.5, 1e-8)


GIMBAL = """<mujoco><worldbody><body name="thigh" pos="0 0 1" euler="20 -30 10">
  <joint name="hip_x" axis="1 0 0" pos="0 0 .1"/><joint name="hip_z" axis="0 0 1" pos="0 0 .1"/>
  <joint name="hip_y" axis="1 1 0" pos="0 0 .1" {extra}/>
  <geom type="capsule" fromto="0 0 .1 .05 .1 -.3" size=".05"/></body></worldbody></mujoco>"""


def test_three_hinges_at_a_point_swing_as_a_ball_joint_as_in_mujoco():
    """A hip of three hinges through one point on independent axes (not all at right
    angles) turns about that point every way: the import's spherical joint swings as
    MuJoCo runs the gimbal (no soft constraint: RK4 alone); a hinge's range or damping,
    which has no coordinate in a spherical joint, is named."""
    m, rep, _ = import_and_compare(GIMBAL.format(extra=""), 1.5, 1e-8)
    assert m.joints["hip_x + hip_z + hip_y"].kind == "spherical" and not rep.unmapped
    _, rep = mm.mechanism_from_mjcf(GIMBAL.format(extra='range="-30 20" damping="0.1"'))
    assert [u.split(": ", 1)[1] for u in rep.unmapped] == [
        f"joint 'hip_y': {key} (no solver element on a hinge in a spherical joint)"
        for key in ("range", "damping")]


def test_a_model_of_included_files_compiles_and_swings_as_in_mujoco(tmp_path):
    from test_io_mjcf import write_included_arm
    path = write_included_arm(tmp_path)
    ref = mujoco.MjModel.from_xml_path(path)
    model = mjcf.read_mjcf(path)
    assert [ref.body(i).name for i in range(1, ref.nbody)] == list(model.bodies)
    for name, b in model.bodies.items():
        assert b.mass == pytest.approx(ref.body_mass[ref.body(name).id], rel=1e-12)
    m, rep = mm.mechanism_from_mjcf(path)
    r = m.solve(duration=1.5, fps=50, analysis="dynamic", tolerance=1e-9)
    ref.opt.timestep, ref.opt.integrator = DT, mujoco.mjtIntegrator.mjINT_RK4
    data = mujoco.MjData(ref)
    for k in range(76):
        if k:
            mujoco.mj_step(ref, data, nstep=200)
        mujoco.mj_forward(ref, data)
        for part in ("a", "b"):
            assert np.allclose(r.center_of_mass(part)[k], data.xipos[ref.body(part).id], atol=1e-8)


def test_a_massless_jointed_body_swings_with_its_welded_children_as_in_mujoco():
    xml = """<mujoco><worldbody><body name="a" pos="0 0 1"><joint axis="0 1 0"/>
      <body name="b" pos="0.3 0 0"><geom size=".1"/></body>
      <body name="c" pos="0 0.1 -0.2"><geom type="box" size=".05 .02 .1"/></body>
      </body></worldbody></mujoco>"""
    import_and_compare(xml, 1.5, 1e-8, {"a": "b"})     # a's mass is b's (a has none)


def test_a_welds_markers_sit_where_mujoco_puts_its_anchor():
    """MuJoCo compiles a weld's anchor (given in body2's frame) into eq_data[3:6], the
    point in body1's frame; the import's marker I sits there."""
    xml = """<mujoco><worldbody><body name="a" pos="0 0 1" euler="0 0 30"><joint/>
      <geom size=".1"/></body><body name="c" pos="1 .5 1" euler="20 0 0"><joint/>
      <geom size=".1"/></body></worldbody><equality><weld name="w" body1="a" body2="c"
      anchor="0.1 0.2 0.3"/></equality></mujoco>"""
    ref = mujoco.MjModel.from_xml_string(xml)
    m, _ = mm.mechanism_from_mjcf(xml)
    assert m.markers["w: I"].part == "a"
    assert np.allclose(m.markers["w: I"].position, ref.eq_data[0][3:6], atol=1e-12)


def test_a_slide_rests_on_its_lower_bound_counted_from_its_ref_as_in_mujoco():
    """A slide along (1, 0, 1) with ref 0.1 and range -0.2 0.15: the body as written is at
    q = ref, so it falls 0.3 m along the axis onto the stop; MuJoCo's soft limit lets it
    sink 2e-4 m further (its weight on solreflimit's spring), bounded at 1e-3 m."""
    xml = """<mujoco><worldbody><body name="a" pos="0 0 1"><joint type="slide"
      axis="1 0 1" ref="0.1" range="-0.2 0.15"/><geom size=".1"/></body></worldbody></mujoco>"""
    m, _ = mm.mechanism_from_mjcf(xml)
    r = m.solve(duration=1.5, fps=50, analysis="dynamic", tolerance=1e-9)
    model, coms = mujoco_coms(xml, 1.5)
    rest = np.array([0.0, 0.0, 1.0]) - 0.3 * np.array([1.0, 0.0, 1.0]) / math.sqrt(2)
    assert np.allclose(r.center_of_mass("a")[-1], rest, atol=1e-9)
    assert np.allclose(coms[-1, model.body("a").id], rest, atol=1e-3)
