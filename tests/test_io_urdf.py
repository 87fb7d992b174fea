"""URDF robots read without Blender (addon/io/urdf.py) and built as solver mechanisms
(addon/io/urdf_mechanism.py): placements against scipy's fixed-axis rotations, the arm's
free swing against the same arm built by hand and against an independent integration,
mimic joints, stops, damping and friction, merged massless links, and every bad input
named with its line.

Tolerances: two builds of the same equations integrated at tolerance 1e-11 agree to 1e-9 m
(the step sequences are the same up to rounding); a run against scipy's solve_ivp at
rtol 1e-10 to 1e-7 rad (the solver's dynamic run at 1e-9, its error goal over a second of
swing with a few hundred steps); couplers and stops hold to the Newton tolerance (1e-8)."""
from __future__ import annotations

import math
import os
import re

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from test_io_addon import io, solver

urdf, um = io("urdf"), io("urdf_mechanism")
G = 9.81
M1, L1, C1 = 2.0, 0.5, 0.25          # upper arm: kg, pin to pin m, pin to COM m
M2, C2 = 1.0, 0.2                    # forearm
I1 = (0.001, 0.0425, 0.0425)         # about the COM, link axes, kg m^2
I2 = (0.0005, 0.0135, 0.0135)        # about the COM in the inertial frame (turned 0.3 about z)


def arm_urdf(shoulder: str = 'type="continuous"', elbow: str = 'type="continuous"',
             shoulder_extra: str = "", elbow_extra: str = "", links_extra: str = "") -> str:
    """A 2-link arm hanging from a pin 1 m up, swinging about world y, horizontal at zero."""
    return f"""<?xml version="1.0"?>
<robot name="arm">
  <link name="base"/>
  <link name="upper">
    <inertial>
      <origin xyz="{C1} 0 0" rpy="0 0 0"/>
      <mass value="{M1}"/>
      <inertia ixx="{I1[0]}" ixy="0" ixz="0" iyy="{I1[1]}" iyz="0" izz="{I1[2]}"/>
    </inertial>
    <visual><origin xyz="0.25 0 0"/><geometry><box size="0.5 0.05 0.05"/></geometry></visual>
  </link>
  <link name="fore">
    <inertial>
      <origin xyz="{C2} 0 0" rpy="0 0 0.3"/>
      <mass value="{M2}"/>
      <inertia ixx="{I2[0]}" ixy="0" ixz="0" iyy="{I2[1]}" iyz="0" izz="{I2[2]}"/>
    </inertial>
  </link>{links_extra}
  <joint name="shoulder" {shoulder}>
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 1 0"/>{shoulder_extra}
  </joint>
  <joint name="elbow" {elbow}>
    <parent link="upper"/><child link="fore"/>
    <origin xyz="{L1} 0 0" rpy="0 0 0"/><axis xyz="0 1 0"/>{elbow_extra}
  </joint>
</robot>
"""


def hand_built_arm():
    """The same arm through the API: z of every marker along world y."""
    about_y = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)   # x by -90 deg: z -> y
    R = Rotation.from_euler("z", 0.3).as_matrix()
    m = solver.Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("base", fixed=True)
    m.add_part("upper", mass=M1, inertia=I1, center_of_mass=(C1, 0, 0), position=(0, 0, 1))
    m.add_part("fore", mass=M2, inertia=R @ np.diag(I2) @ R.T, center_of_mass=(C2, 0, 0),
               position=(L1, 0, 1))
    m.add_marker("s_i", "upper", orientation=about_y)
    m.add_marker("s_j", "base", position=(0, 0, 1), orientation=about_y)
    m.add_marker("e_i", "fore", orientation=about_y)
    m.add_marker("e_j", "upper", position=(L1, 0, 0), orientation=about_y)
    m.add_joint("shoulder", "revolute", "s_i", "s_j")
    m.add_joint("elbow", "revolute", "e_i", "e_j")
    return m


def joint_angle(r, report, joint: str) -> np.ndarray:
    """The angle of x_I from x_J about z_J (rad) along the run, from the marker frames."""
    mi, mj = report.markers[joint]
    xi = r.marker_frame(mi)[1][:, :, 0]
    axes_j = r.marker_frame(mj)[1]
    xj, zj = axes_j[:, :, 0], axes_j[:, :, 2]
    return np.arctan2(np.einsum("ni,ni->n", np.cross(xj, xi), zj), np.einsum("ni,ni->n", xj, xi))


def line_of(text: str, fragment: str) -> int:
    """The 1-based line of the first line of ``text`` holding ``fragment``."""
    return next(k + 1 for k, line in enumerate(text.splitlines()) if fragment in line)


# -- placements
def test_origin_rpy_is_fixed_axis_roll_pitch_yaw() -> None:
    """A joint's rpy places the child as Rz(y) Ry(p) Rx(r), scipy's extrinsic "xyz"."""
    rpy = (0.3, -0.7, 1.9)
    text = f"""<robot name="r"><link name="a"/><link name="b"/>
      <joint name="j" type="fixed"><parent link="a"/><child link="b"/>
      <origin xyz="1 2 3" rpy="{rpy[0]} {rpy[1]} {rpy[2]}"/></joint></robot>"""
    robot = urdf.read_urdf(text)
    T = robot.world["b"]
    assert np.allclose(T[:3, :3], Rotation.from_euler("xyz", rpy).as_matrix(), atol=1e-14)
    assert np.allclose(T[:3, 3], (1, 2, 3))


def test_placements_turn_the_child_about_the_axis() -> None:
    robot = urdf.read_urdf(arm_urdf())
    world = robot.placements({"shoulder": 0.4})
    # Ry(0.4) takes the upper arm's x to (cos, 0, -sin): the elbow pin 0.5 m along it
    assert np.allclose(world["fore"][:3, 3], (L1 * math.cos(0.4), 0, 1 - L1 * math.sin(0.4)))
    with pytest.raises(urdf.UrdfError, match="wrist"):
        robot.placements({"wrist": 1.0})


def test_inertia_is_turned_into_link_axes() -> None:
    robot = urdf.read_urdf(arm_urdf())
    R = Rotation.from_euler("z", 0.3).as_matrix()
    assert np.allclose(robot.links["fore"].inertial.inertia, R @ np.diag(I2) @ R.T, atol=1e-15)
    assert np.allclose(robot.links["fore"].inertial.center, (C2, 0, 0))


# -- the arm's dynamics
def test_free_swing_equals_the_arm_built_by_hand() -> None:
    m, report = um.mechanism_from_urdf(arm_urdf())
    assert report.joints == ("shoulder", "elbow") and report.parts["base"] == "base"
    times = np.linspace(0.0, 1.0, 11)
    r = m.solve(times=times, tolerance=1e-11)
    h = hand_built_arm().solve(times=times, tolerance=1e-11)
    assert r.analysis == "dynamic"
    for part in ("upper", "fore"):
        assert np.abs(r.position(part) - h.position(part)).max() < 1e-9
        assert np.abs(r.center_of_mass(part) - h.center_of_mass(part)).max() < 1e-9
    assert np.abs(r.center_of_mass("fore")[-1] - r.center_of_mass("fore")[0]).max() > 0.1


def test_a_damped_pin_swings_as_the_pendulum_equation() -> None:
    """One link on a damped pin: I_O theta'' = m g c cos(theta) - b theta' (theta about +y
    takes the link's x toward -z, so gravity's moment about the pin is m g c cos(theta))."""
    damping = 0.3
    text = arm_urdf(shoulder_extra=f'<dynamics damping="{damping}"/>', elbow='type="fixed"')
    m, report = um.mechanism_from_urdf(text)
    assert report.dampers == ("shoulder: damping",) and report.joints == ("shoulder", "elbow")
    times = np.linspace(0.0, 1.0, 11)
    r = m.solve(times=times, tolerance=1e-9)
    # the fixed elbow makes one body: its mass, COM and inertia about the pin (about y)
    mass = M1 + M2
    com = (M1 * C1 + M2 * (L1 + C2)) / mass
    # the forearm's inertial axes are turned 0.3 rad about z: its iyy in link axes mixes ixx, iyy
    iyy2 = I2[0] * math.sin(0.3) ** 2 + I2[1] * math.cos(0.3) ** 2
    i_o = I1[1] + M1 * C1 ** 2 + iyy2 + M2 * (L1 + C2) ** 2

    def rhs(t, y):
        return [y[1], (mass * G * com * math.cos(y[0]) - damping * y[1]) / i_o]
    ref = solve_ivp(rhs, (0.0, 1.0), [0.0, 0.0], t_eval=times, rtol=1e-11, atol=1e-12).y[0]
    assert np.abs(joint_angle(r, report, "shoulder") - ref).max() < 1e-7


def test_a_mimic_joint_follows_its_multiplier_and_offset() -> None:
    mimic = '<mimic joint="shoulder" multiplier="-2" offset="0.1"/>'
    m, report = um.mechanism_from_urdf(arm_urdf(elbow_extra=mimic))
    assert report.couplers == ("elbow: mimic",) and report.configuration == {"elbow": 0.1}
    r = m.solve(times=np.linspace(0.0, 0.8, 9), tolerance=1e-9)
    shoulder, elbow = joint_angle(r, report, "shoulder"), joint_angle(r, report, "elbow")
    assert np.ptp(shoulder) > 0.3                      # it swings
    wrapped = np.angle(np.exp(1j * (elbow - (-2.0 * shoulder + 0.1))))   # angles in (-pi, pi]
    assert np.abs(wrapped).max() < 1e-8


def test_limits_stop_the_swing() -> None:
    """The free arm passes 1 rad within a second; a stop at 0.3 rad holds it there."""
    limit = '<limit lower="-0.2" upper="0.3" effort="10" velocity="2"/>'
    m, report = um.mechanism_from_urdf(arm_urdf(shoulder='type="revolute"', shoulder_extra=limit,
                                                elbow='type="fixed"'))
    assert report.limits == ("shoulder: limit",)
    r = m.solve(times=np.linspace(0.0, 1.0, 101), tolerance=1e-9)
    angle = joint_angle(r, report, "shoulder")
    assert angle.max() == pytest.approx(0.3, abs=1e-8)
    assert angle.min() >= -1e-12
    assert np.abs(r.limit("shoulder: limit")).max() > 0.0


def test_dry_friction_holds_the_arm_below_its_torque() -> None:
    """Horizontal, gravity's moment about the pin is m g c; a joint friction above it holds
    the arm still, one below it lets it fall."""
    moment = G * (M1 * C1 + M2 * (L1 + C2))
    for friction, moves in ((1.2 * moment, False), (0.8 * moment, True)):
        text = arm_urdf(shoulder_extra=f'<dynamics friction="{friction}" damping="0.1"/>',
                        elbow='type="fixed"')
        m, report = um.mechanism_from_urdf(text)
        assert report.frictions == ("shoulder: friction",)
        f = m.frictions["shoulder: friction"]
        assert (f.static, f.preload, f.viscous) == (0.0, friction, 0.1)
        r = m.solve(times=np.linspace(0.0, 0.5, 6), tolerance=1e-9)
        assert (np.abs(joint_angle(r, report, "shoulder")).max() > 0.05) == moves


def test_a_massless_link_on_a_fixed_joint_joins_its_parent() -> None:
    tool = """
  <link name="tool"/>
  <joint name="tool_mount" type="fixed">
    <parent link="fore"/><child link="tool"/><origin xyz="0.4 0 0" rpy="0 0 1.0"/>
  </joint>"""
    m, report = um.mechanism_from_urdf(arm_urdf(links_extra=tool))
    assert report.parts["tool"] == "fore" and "tool" not in m.parts
    assert np.allclose(report.link_frames["tool"][:3, 3], (0.4, 0, 0))
    assert report.joints == ("shoulder", "elbow")


def test_a_floating_base_is_a_free_part() -> None:
    text = arm_urdf().replace('<link name="base"/>', """<link name="base"><inertial>
      <mass value="5"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>
      </inertial></link>""")
    m, _ = um.mechanism_from_urdf(text, floating_base=True)
    assert not m.parts["base"].fixed and m.parts["base"].mass == 5.0
    r = m.solve(times=[0.0, 0.5], tolerance=1e-9)
    # free fall of the whole robot: the centre of mass drops g t^2 / 2
    total = 5.0 + M1 + M2
    com = sum(r.center_of_mass(p) * mass for p, mass in (("base", 5.0), ("upper", M1), ("fore", M2)))
    assert (com[1, 2] - com[0, 2]) / total == pytest.approx(-0.5 * G * 0.25, abs=1e-9)


def test_a_floating_base_under_a_massless_footprint_falls_whole() -> None:
    """A mobile robot's massless root 'base_footprint' 0.1 m under 'base' (5 kg): with a
    floating base the footprint rides on the base's part, the robot falls freely (its
    centre of mass drops g t^2 / 2) and the footprint stays 0.1 m under the base."""
    text = arm_urdf().replace('<link name="base"/>', """<link name="base_footprint"/>
  <joint name="footprint" type="fixed"><parent link="base_footprint"/><child link="base"/>
    <origin xyz="0 0 0.1" rpy="0 0 0.4"/></joint>
  <link name="base"><inertial>
      <mass value="5"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>
      </inertial></link>""")
    m, report = um.mechanism_from_urdf(text, floating_base=True)
    assert report.parts["base_footprint"] == "base" and not m.parts["base"].fixed
    footprint = report.link_frames["base_footprint"]
    assert np.allclose(footprint[:3, 3], [0.0, 0.0, -0.1], atol=1e-15)
    r = m.solve(times=[0.0, 0.5], tolerance=1e-9)
    total = 5.0 + M1 + M2
    com = sum(r.center_of_mass(p) * mass for p, mass in (("base", 5.0), ("upper", M1), ("fore", M2)))
    assert (com[1, 2] - com[0, 2]) / total == pytest.approx(-0.5 * G * 0.25, abs=1e-9)
    assert r.position("base")[0, 2] == pytest.approx(0.1, abs=1e-15)


def test_damping_on_a_planar_joint_is_named_as_not_applied() -> None:
    """URDF's damping and friction are per coordinate of revolute, continuous and prismatic
    joints; on a planar joint they are not applied, and a warning names the joint."""
    text = arm_urdf(shoulder='type="planar"', elbow='type="fixed"',
                    shoulder_extra='<dynamics damping="0.5" friction="0.1"/>')
    m, report = um.mechanism_from_urdf(text)
    assert report.joints == ("shoulder", "elbow") and not report.dampers and not report.frictions
    shoulder = line_of(text, '<joint name="shoulder"')
    assert report.warnings == (f"line {shoulder}: planar joint "
                               "'shoulder': <dynamics> damping 0.5 and friction 0.1 are not "
                               "applied (URDF defines them for revolute, continuous and "
                               "prismatic joints)",)


# -- meshes and packages
def mesh_urdf(filename: str) -> str:
    return f"""<robot name="r">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="a">
    <visual>
      <geometry><mesh filename="{filename}" scale="0.001 0.001 0.001"/></geometry>
      <material name="red"/>
    </visual>
  </link>
</robot>"""


def test_package_meshes_resolve_against_the_package_folders(tmp_path) -> None:
    (tmp_path / "my_robot" / "meshes").mkdir(parents=True)
    (tmp_path / "my_robot" / "meshes" / "a.stl").write_text("solid a\nendsolid a\n")
    robot = urdf.read_urdf(mesh_urdf("package://my_robot/meshes/a.stl"), package_dirs=[tmp_path])
    visual, = robot.links["a"].visuals
    assert visual.geometry.path == str(tmp_path / "my_robot" / "meshes" / "a.stl")
    assert visual.geometry.scale == (0.001, 0.001, 0.001) and visual.rgba == (1, 0, 0, 1)
    # the package folder itself
    robot = urdf.read_urdf(mesh_urdf("package://my_robot/meshes/a.stl"),
                           package_dirs=str(tmp_path / "my_robot"))
    assert robot.links["a"].visuals[0].geometry.path.endswith(os.path.join("meshes", "a.stl"))


def test_a_missing_mesh_is_a_warning_with_its_line(tmp_path) -> None:
    text = mesh_urdf("package://my_robot/meshes/gone.stl")
    robot = urdf.read_urdf(text, package_dirs=[tmp_path])
    assert robot.links["a"].visuals == ()
    warning, = robot.warnings
    assert f"line {line_of(text, 'gone.stl')}:" in warning and "gone.stl" in warning


def test_a_capsule_visual_is_a_warning_and_the_robot_still_swings() -> None:
    """URDF's shapes are box, cylinder, sphere and mesh; a <capsule> (read by MuJoCo and
    Gazebo) is named in a warning and skipped, the mechanism built as without it."""
    text = arm_urdf().replace('<box size="0.5 0.05 0.05"/>', '<capsule radius="0.03" length="0.4"/>')
    m, report = um.mechanism_from_urdf(text)
    assert report.robot.links["upper"].visuals == ()
    warning, = report.warnings
    assert warning.startswith(f"line {line_of(text, '<capsule')}: link 'upper' visual 1: "
                              "geometry <capsule> is not drawn")
    times = np.linspace(0.0, 0.5, 6)
    plain, _ = um.mechanism_from_urdf(arm_urdf())
    r, p = m.solve(times=times, tolerance=1e-10), plain.solve(times=times, tolerance=1e-10)
    assert np.abs(r.position("fore") - p.position("fore")).max() < 1e-12   # the same equations


def test_a_material_coloured_in_one_visual_colours_every_visual_naming_it() -> None:
    text = arm_urdf().replace(
        '<geometry><box size="0.5 0.05 0.05"/></geometry>',
        '<geometry><box size="0.5 0.05 0.05"/></geometry>'
        '<material name="orange"><color rgba="1 0.5 0 1"/></material>').replace(
        '<link name="fore">', '<link name="fore"><visual><geometry><sphere radius="0.05"/>'
        '</geometry><material name="orange"/></visual>')
    robot = urdf.read_urdf(text)
    assert robot.links["fore"].visuals[0].rgba == (1.0, 0.5, 0.0, 1.0)
    assert robot.links["upper"].visuals[0].rgba == (1.0, 0.5, 0.0, 1.0)


def test_relative_meshes_resolve_against_the_urdf_file(tmp_path) -> None:
    (tmp_path / "a.obj").write_text("v 0 0 0\n")
    path = tmp_path / "r.urdf"
    path.write_text(mesh_urdf("a.obj"))
    robot = urdf.read_urdf(str(path))
    assert robot.links["a"].visuals[0].geometry.path == str(tmp_path / "a.obj")


# -- bad input, each named with its line
BAD = {
    "malformed XML": (arm_urdf().replace('<parent link="base"/>', '<parent link="base">'),
                      "</joint>", "malformed XML"),
    "a joint naming a missing link": (arm_urdf().replace('child link="fore"', 'child link="hand"'),
                                      'child link="hand"', "'hand'"),
    "two parents": (arm_urdf(links_extra="""
  <joint name="second" type="fixed"><parent link="base"/><child link="fore"/></joint>"""),
                    '<joint name="elbow"', "already has the parent joint 'second'"),
    "zero mass": (arm_urdf().replace(f'<mass value="{M2}"/>', '<mass value="0"/>'),
                  '<mass value="0"/>', "link 'fore': mass must be positive"),
    "negative mass": (arm_urdf().replace(f'<mass value="{M2}"/>', '<mass value="-1"/>'),
                      '<mass value="-1"/>', "link 'fore': mass must be positive"),
    "inertia not positive definite": (arm_urdf().replace(f'ixx="{I2[0]}" ixy="0"', 'ixx="0.0005" ixy="0.01"'),
                                      'ixy="0.01"', "link 'fore': the inertia is not positive definite"),
    "unknown joint type": (arm_urdf(elbow='type="hinge"'), '<joint name="elbow"',
                           "joint 'elbow': unknown type 'hinge'"),
    "a moving link without mass": (re.sub(r'<link name="fore">.*?</link>', '<link name="fore"/>',
                                          arm_urdf(), flags=re.S),
                                   '<link name="fore"', "no <inertial>"),
    "mimic of a missing joint": (arm_urdf(elbow_extra='<mimic joint="wrist"/>'), '<joint name="elbow"',
                                 "mimics 'wrist'"),
    "a revolute limit without bounds": (arm_urdf(elbow='type="revolute"', elbow_extra=
                                                '<limit effort="5" velocity="2"/>'),
                                         '<limit effort="5"', "joint 'elbow': its limit leaves it "
                                         "no range (lower = upper = 0; lower and upper not given"),
    "an unexpanded xacro macro": (arm_urdf(links_extra="""
  <xacro:macro name="leg" params="side">
    <link name="${side}_leg"/>
  </xacro:macro>"""), "<xacro:macro", "<xacro:macro> is xacro, not URDF: expand the file"),
    "a xacro substitution": (arm_urdf().replace('xyz="0 0 1" rpy', 'xyz="0 0 ${height}" rpy'),
                             "${height}", "xyz='0 0 ${height}' is a xacro substitution"),
    "a xacro find": (arm_urdf().replace('<box size="0.5 0.05 0.05"/>',
                                        '<mesh filename="$(find arm)/meshes/upper.stl"/>'),
                     "$(find arm)", "<mesh>: filename='$(find arm)/meshes/upper.stl' is a xacro"),
    "a joint with two origins": (arm_urdf(elbow_extra='\n    <origin xyz="0.4 0 0"/>'),
                                 '<origin xyz="0.4 0 0"/>', "<joint name='elbow'> has 2 "
                                 "<origin> elements"),
    "a link with two inertials": (arm_urdf().replace('<visual><origin xyz="0.25 0 0"/>', """
    <inertial><mass value="9"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>
    </inertial>
    <visual><origin xyz="0.25 0 0"/>"""), '<mass value="9"/>', "<link name='upper'> has 2 "
                                  "<inertial> elements"),
    "a bad number": (arm_urdf().replace('xyz="0.5 0 0" rpy', 'xyz="0.5 0" rpy'), 'xyz="0.5 0" rpy',
                     "xyz='0.5 0' is not 3 finite numbers"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_named_with_its_line(case: str) -> None:
    text, fragment, message = BAD[case]
    with pytest.raises(urdf.UrdfError, match="") as info:
        um.mechanism_from_urdf(text)
    assert info.value.line == line_of(text, fragment), str(info.value)
    assert message in str(info.value) and str(info.value).startswith(f"line {info.value.line}: ")


def test_a_loop_of_joints_is_named() -> None:
    text = """<robot name="loop"><link name="a"/><link name="b"/><link name="c"/>
  <joint name="ab" type="fixed"><parent link="a"/><child link="b"/></joint>
  <joint name="bc" type="fixed"><parent link="b"/><child link="c"/></joint>
  <joint name="ca" type="fixed"><parent link="c"/><child link="a"/></joint>
</robot>"""
    with pytest.raises(urdf.UrdfError, match="loop") as info:
        urdf.read_urdf(text)
    assert info.value.line == 2
    # a loop beside a proper root: the joint in it is named
    text = text.replace('<link name="a"/>', '<link name="a"/><link name="root"/>').replace(
        '<parent link="c"/><child link="a"/>', '<parent link="c"/><child link="b"/>').replace(
        '<parent link="a"/><child link="b"/>', '<parent link="root"/><child link="a"/>')
    with pytest.raises(urdf.UrdfError, match="parent|loop"):
        urdf.read_urdf(text)


def test_an_unreadable_file_is_named(tmp_path) -> None:
    with pytest.raises(urdf.UrdfError, match="nowhere.urdf"):
        um.mechanism_from_urdf(str(tmp_path / "nowhere.urdf"))


def test_the_sample_arm_holds_its_shoulder_against_the_weight_beyond_it() -> None:
    """sample_scenes/robot_arm.urdf held with the shoulder at 90 deg (the arm along +x): the
    shoulder motor's effort is minus gravity's moment about y of every link beyond it,
    -g sum m_i x_i with x_i each link's centre of mass from the shoulder (the URDF's
    numbers: pins 0.4, 0.35, 0.06, 0.08 m apart, centres of mass 0.2, 0.175, 0.03, 0.04,
    0.01 m past their pins)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "sample_scenes", "robot_arm.urdf")
    m, report = um.mechanism_from_urdf(path)
    assert len(report.joints) == 6 and report.parts["tool_tip"] == "flange"
    for joint in report.joints:
        m.add_motion(f"{joint} drive", joint, math.pi / 2 if joint == "shoulder" else 0.0)
    r = m.solve(times=[0.0, 0.5])
    beyond = ((1.5, 0.2), (1.0, 0.575), (0.3, 0.78), (0.25, 0.85), (0.15, 0.90))   # kg, m
    assert r.analysis == "kinematic"
    assert r.effort("shoulder drive") == pytest.approx([-G * sum(mi * x for mi, x in beyond)] * 2,
                                                       abs=1e-9)


def slider_urdf(joint_extra: str) -> str:
    return f"""<robot name="slider">
  <link name="guide"/>
  <link name="slider">
    <inertial><mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="rail" type="prismatic">
    <parent link="guide"/><child link="slider"/>
    <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 0 1"/>{joint_extra}
  </joint>
</robot>"""


def test_a_damped_slide_falls_as_the_closed_form() -> None:
    """A 2 kg slider on a vertical rail with damping c = 4 N s/m, released at rest:
    m z'' = -m g - c z', so z(t) = -(m g / c) t + (m^2 g / c^2) (1 - exp(-c t / m)) (the
    damping is the joint friction's viscous term, with no dry friction)."""
    mass, c = 2.0, 4.0
    m, report = um.mechanism_from_urdf(slider_urdf(f'<dynamics damping="{c}"/>'))
    assert report.frictions == ("rail: friction",) and m.frictions["rail: friction"].viscous == c
    rail = line_of(slider_urdf(""), '<joint name="rail"')
    assert report.warnings == (f"line {rail}: "
                               "prismatic joint 'rail' has no <limit> (URDF requires one): "
                               "imported without stops, free as a slide",)
    times = np.linspace(0.0, 1.0, 11)
    r = m.solve(times=times, tolerance=1e-9)
    want = -(mass * G / c) * times + (mass ** 2 * G / c ** 2) * (1 - np.exp(-c * times / mass))
    assert np.abs(r.position("slider")[:, 2] - 1.0 - want).max() < 1e-7


def test_a_slide_stops_at_its_lower_limit() -> None:
    m, report = um.mechanism_from_urdf(slider_urdf('<limit lower="-0.2" upper="0.5" effort="1" '
                                                   'velocity="1"/>'))
    assert report.limits == ("rail: limit",)
    assert (m.limits["rail: limit"].lower, m.limits["rail: limit"].upper) == (-0.2, 0.5)
    r = m.solve(times=np.linspace(0.0, 1.0, 51), tolerance=1e-9)
    assert r.position("slider")[:, 2].min() == pytest.approx(0.8, abs=1e-8) and r.impacts


def test_an_angle_bound_past_half_a_turn_is_a_stop_there() -> None:
    """A revolute joint limited to [-4, 1] rad (a lower bound past half a turn, which the
    solver's limits read on the joint's continuous angle, tests/test_limit_turns.py): both
    stops kept, no warning (the lower one was left out before)."""
    text = arm_urdf(shoulder='type="revolute"', elbow='type="fixed"',
                    shoulder_extra='<limit lower="-4" upper="1" effort="1" velocity="1"/>')
    m, report = um.mechanism_from_urdf(text)
    assert (m.limits["shoulder: limit"].lower, m.limits["shoulder: limit"].upper) == (-4.0, 1.0)
    assert not report.warnings


def test_links_named_like_their_joints_swing_as_the_arm() -> None:
    """URDF keeps link and joint names apart: links named 'shoulder' and 'elbow' like the
    joints build the same arm, the joints renamed with a warning naming each."""
    text = arm_urdf()
    for link, joint in (("upper", "shoulder"), ("fore", "elbow")):
        text = text.replace(f'name="{link}"', f'name="{joint}"').replace(f'link="{link}"',
                                                                        f'link="{joint}"')
    m, report = um.mechanism_from_urdf(text)
    assert report.joint_names == {"shoulder": "shoulder (joint)", "elbow": "elbow (joint)"}
    assert report.joints == ("shoulder (joint)", "elbow (joint)")
    assert any("joint 'elbow' is named like link 'elbow'" in w for w in report.warnings)
    times = np.linspace(0.0, 1.0, 11)
    r = m.solve(times=times, tolerance=1e-11)
    h, _ = um.mechanism_from_urdf(arm_urdf())
    rh = h.solve(times=times, tolerance=1e-11)
    for link, joint in (("upper", "shoulder"), ("fore", "elbow")):
        assert np.abs(r.position(joint) - rh.position(link)).max() < 1e-9   # same equations
    assert np.ptp(joint_angle(r, report, "elbow (joint)")) > 0.1
