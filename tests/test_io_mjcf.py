"""MuJoCo models (MJCF) read without Blender and without MuJoCo (addon/io/mjcf.py,
addon/io/mjcf_mechanism.py): names the import gives, mass properties against the closed
forms of the solid primitives, placements against rotation matrices written out, and
``<frame>`` elements against the same bodies written without them.  The comparisons with
MuJoCo's own compile and run are in test_mjcf.py (skipped where MuJoCo is not installed).

Tolerances: mass properties are sums and products of a few numbers, exact to rounding
(1e-12 relative)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from test_io_addon import io, solver

mjcf, mm = io("mjcf"), io("mjcf_mechanism")


def body_xml(inner: str, compiler: str = "") -> str:
    return f"<mujoco>{compiler}<worldbody><body name='a' pos='0 0 1'>{inner}</body></worldbody></mujoco>"


def test_an_unnamed_joint_takes_its_bodys_name_and_number():
    m, _ = mm.mechanism_from_mjcf(body_xml("<joint axis='0 1 0'/><geom size='0.1'/>"))
    assert m.joints["a: joint0"].kind == "revolute"
    m, _ = mm.mechanism_from_mjcf(body_xml("<joint axis='1 0 0'/><joint axis='0 1 0'/>"
                                           "<geom size='0.1'/>"))
    assert m.joints["a: joint0 + a: joint1"].kind == "universal"


@pytest.mark.parametrize("kind, volume", [
    ("box", lambda r, h: 8 * r * r * h),                     # half-sizes r, r, h
    ("ellipsoid", lambda r, h: 4 / 3 * math.pi * r * r * h),   # semi-axes r, r, h
])
def test_a_fromto_box_or_ellipsoid_spans_its_first_size_across_the_axis(kind, volume):
    """fromto from (0, 0, 0) to (0, 0, -0.3) with size 0.05 0.07: MuJoCo makes both
    half-sizes across the axis size[0] (its second number is not read) and the
    half-length 0.15; density 1000 kg/m^3.  Inertia about the centre, axes along world:
    box m (b^2 + c^2) / 3, ellipsoid m (b^2 + c^2) / 5."""
    r, h = 0.05, 0.15
    b = mjcf.read_model(body_xml(f"<joint/><geom type='{kind}' size='0.05 0.07' "
                                 "fromto='0 0 0 0 0 -0.3'/>")).bodies["a"]
    mass = 1000 * volume(r, h)
    k = 3 if kind == "box" else 5
    assert b.mass == pytest.approx(mass, rel=1e-12)
    assert np.allclose(b.center, [0, 0, -h], atol=1e-12)
    assert np.allclose(b.inertia, np.diag(mass * np.array([r * r + h * h, r * r + h * h, 2 * r * r]) / k),
                       atol=1e-12)


def test_a_free_joints_damping_and_armature_are_named_not_dropped():
    """MuJoCo damps a free joint's six velocities; a free part has no element for it."""
    _, rep = mm.mechanism_from_mjcf(body_xml("<freejoint name='f'/><geom size='0.1'/>"))
    assert not rep.unmapped
    _, rep = mm.mechanism_from_mjcf(body_xml("<joint name='f' type='free' damping='0.5' "
                                             "armature='0.01'/><geom size='0.1'/>"))
    assert [u.split(": ", 1)[1] for u in rep.unmapped] == [
        "joint 'f': damping 0.5 (no solver element on a free part)",
        "joint 'f': armature 0.01 (no solver element on a free part)"]


FRAMED = """<mujoco><compiler angle="radian"/>
  <default><default class="c"><geom density="5000"/><joint axis="1 0 0"/></default></default>
  <worldbody><frame pos="0 0 1" euler="0 0 {a}" childclass="c">
    <body name="a" pos="0.1 0 0"><frame pos="0.2 0 0" euler="0 {b} 0">
      <joint name="j" pos="0.1 0 0" axis="0 0 1"/><geom type="box" size=".1 .2 .3" pos="0 0 .1"/>
      <frame euler="{c} 0 0"><body name="b" pos="0 0 .3"><joint name="k"/><geom size="0.1"/>
      </body></frame></frame></body></frame></worldbody></mujoco>"""


def test_frames_place_what_they_hold_as_if_written_out():
    """The frames turned by a = pi/2 about z, b = pi/2 about y, c = pi/2 about x, written
    out by hand: body a at (0, 0.1, 1) turned a; in a, the joint at (0.2, 0, -0.1) (the
    frame's (0.1, 0, 0) turned by b) along x (z turned by b), the box's centre at
    (0.3, 0, 0) turned b; body b at (0.2, 0, 0) + R_b R_c (0, 0, 0.3),
    turned b then c, its joint along the class's x; the frame's childclass "c" gives
    density 5000 kg/m^3 to both."""
    h = math.pi / 2
    model = mjcf.read_model(FRAMED.format(a=h, b=h, c=h))
    a, b = model.bodies["a"], model.bodies["b"]
    Rz = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])
    Ry = np.array([[0, 0, 1], [0, 1, 0], [-1, 0, 0.0]])
    Rx = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0.0]])
    assert np.allclose(a.frame[:3, :3], Rz, atol=1e-15) and np.allclose(a.frame[:3, 3], [0, 0.1, 1])
    assert np.allclose(a.joints[0].pos, [0.2, 0, -0.1]) and np.allclose(a.joints[0].axis, [1, 0, 0])
    assert a.mass == pytest.approx(5000 * 0.2 * 0.4 * 0.6) and np.allclose(a.center, [0.3, 0, 0])
    assert np.allclose(b.frame[:3, :3], Ry @ Rx, atol=1e-15)
    assert np.allclose(b.frame[:3, 3], [0.2, 0, 0] + Ry @ Rx @ [0, 0, 0.3])
    assert np.allclose(b.joints[0].axis, [1, 0, 0])
    assert b.mass == pytest.approx(5000 * 4 / 3 * math.pi * 0.1 ** 3)


BOUNDED = """<mujoco><compiler boundmass="0.5" boundinertia="0.01"/><worldbody>
  <body name="a" pos="0 0 1"><joint axis="0 1 0"/>
    <geom type="box" size="0.3 0.01 0.01" pos="0.3 0 0" euler="0 0 30"/>
    <body name="e" pos="0.6 0 0"/>
    <body name="f" pos="0.6 0 0"><geom size="0.2"/></body></body></worldbody></mujoco>"""


def test_compiler_bounds_raise_small_masses_and_principal_moments():
    """boundmass 0.5 kg and boundinertia 0.01 kg m^2: the 0.24 kg box (1000 kg/m^3 x 0.6
    x 0.02 x 0.02 m^3) weighs 0.5 kg, its moments m (b^2 + c^2) / 3 = 8e-6 and
    m (a^2 + b^2) / 3 ~ 7.2e-3 (about axes turned 30 degrees about z) rise to 0.01 each,
    so its inertia is 0.01 I; the empty body e gets 0.5 kg and 0.01 I where MuJoCo's
    compile puts them, at its own pos (0.6, 0, 0) read in its own frame; the 33.5 kg
    sphere keeps its own."""
    model = mjcf.read_model(BOUNDED)
    a, e, f = (model.bodies[n] for n in "aef")
    assert a.mass == 0.5 and np.allclose(a.inertia, 0.01 * np.eye(3), atol=1e-15)
    assert e.mass == 0.5 and np.allclose(e.inertia, 0.01 * np.eye(3), atol=1e-15)
    assert np.allclose(e.center, [0.6, 0, 0])
    sphere = 1000 * 4 / 3 * math.pi * 0.2 ** 3
    assert f.mass == pytest.approx(sphere, rel=1e-12)
    assert np.allclose(f.inertia, 0.4 * sphere * 0.04 * np.eye(3), atol=1e-12)
    m, _ = mm.mechanism_from_mjcf(BOUNDED)        # e has mass: a part on a fixed joint
    assert m.joints["e: fixed"].kind == "fixed"


def test_geoms_outside_the_inertia_groups_give_no_mass():
    """inertiagrouprange 0 3: the sphere in group 4 (a visual geom, say) is left out, the
    box in group 0 (the default) alone gives the body its mass, 1000 x 0.048 kg at its
    centre with m (b^2 + c^2) / 3 about x; without the range (0 5) the sphere counts."""
    inner = ("<joint/><geom type='box' size='.1 .2 .3'/>"
             "<geom type='sphere' size='.1' pos='.5 0 0' group='4'/>")
    a = mjcf.read_model(body_xml(inner, "<compiler inertiagrouprange='0 3'/>")).bodies["a"]
    assert a.mass == pytest.approx(48.0, rel=1e-12) and np.allclose(a.center, 0, atol=1e-15)
    assert a.inertia[0, 0] == pytest.approx(48.0 * (0.2 ** 2 + 0.3 ** 2) / 3, rel=1e-12)
    whole = mjcf.read_model(body_xml(inner)).bodies["a"]
    assert whole.mass == pytest.approx(48.0 + 4000 / 3 * math.pi * 0.1 ** 3, rel=1e-12)


def test_shell_inertia_spreads_the_mass_over_the_surface():
    """shellinertia: density per m^2 over the surface.  Sphere r = 0.1: m = 1000 x 4 pi
    r^2, I = 2/3 m r^2.  Box 0.1 x 0.2 x 0.3 (half-sizes): faces of 240, 120 and 80 kg
    (normal to x, y, z), Ixx = 2 (240 (0.2^2 + 0.3^2) / 3 + 120 (0.2^2 + 0.3^2 / 3)
    + 80 (0.3^2 + 0.2^2 / 3)) = 54.1333 kg m^2 (plates and parallel axes).  An
    ellipsoid's has no closed form: refused by name unless the body has an <inertial>."""
    shell = lambda geom: mjcf.read_model(body_xml(f"<joint/><geom {geom} shellinertia='true'/>")).bodies["a"]
    sphere = shell("size='0.1'")
    m = 1000 * 4 * math.pi * 0.01
    assert sphere.mass == pytest.approx(m, rel=1e-12)
    assert np.allclose(sphere.inertia, 2 / 3 * m * 0.01 * np.eye(3), rtol=1e-12)
    box = shell("type='box' size='0.1 0.2 0.3'")
    assert box.mass == pytest.approx(880.0, rel=1e-12)
    assert box.inertia[0, 0] == pytest.approx(2 * (240 * 0.13 / 3 + 120 * 0.07 + 80 * (0.09 + 0.04 / 3)),
                                              rel=1e-12)
    with pytest.raises(mjcf.MjcfError, match="line 1: geom 'a: geom0': the shell inertia of an "
                                             "ellipsoid is not computed; give body 'a'"):
        shell("type='ellipsoid' size='0.1 0.2 0.3'")
    given = mjcf.read_model(body_xml("<joint/><geom type='ellipsoid' size='0.1 0.2 0.3' "
                                     "shellinertia='true'/><inertial pos='0 0 0' mass='2' "
                                     "diaginertia='1 1 1'/>")).bodies["a"]
    assert given.mass == 2.0


REPLICATED = """<mujoco><worldbody>
  <replicate count="3" offset="0.1 0 0" euler="0 0 20" sep="-"><body name="b" pos="0 0 1">
    <joint name="j" axis="0 1 0"/><geom name="g" size=".05" pos=".1 0 0"/></body></replicate>
  <replicate count="2" offset="0 1 0"><replicate count="12" offset="0 0 1" euler="10 0 0">
    <body name="c"><joint name="k" axis="1 1 0"/><geom size=".1" pos="0 .2 0"/></body>
  </replicate></replicate></worldbody></mujoco>"""


def test_replicate_places_numbered_copies_step_by_step():
    """count 3, step 0.1 m along x turned 20 degrees about z, sep "-": b-0 at (0, 0, 1),
    b-1 at (0.1, 0, 1) turned 20, b-2 at 0.1 x + 0.1 (cos 20, sin 20) turned 40; the
    nested pair numbers the inner copy first, padded to two digits for count 12 (c000,
    c010, ..., c110, c001, ...), inner copy i turned 10 i degrees about x and placed by i
    steps of 1 m along z, the step turned by those before it: sum R_x(10 k) (0, 0, 1)."""
    model = mjcf.read_model(REPLICATED)
    inner = [f"c{i:02d}{j}" for j in range(2) for i in range(12)]
    assert list(model.bodies) == ["b-0", "b-1", "b-2"] + inner
    assert [b.joints[0].name for b in model.bodies.values()][:4] == ["j-0", "j-1", "j-2", "k000"]
    world = model.world()
    t = math.radians(20)
    assert np.allclose(world["b-2"][:3, 3], [0.1 + 0.1 * math.cos(t), 0.1 * math.sin(t), 1.0])
    assert np.allclose(world["b-2"][:2, 0], [math.cos(2 * t), math.sin(2 * t)])
    steps = [math.radians(10 * k) for k in range(7)]      # copy 7: seven steps, each turned
    up = [0.0, 1.0 - sum(math.sin(a) for a in steps), sum(math.cos(a) for a in steps)]
    s = math.radians(10 * 7)
    assert np.allclose(world["c071"][:3, 3], up)
    assert np.allclose(world["c071"][1:3, 1], [math.cos(s), math.sin(s)])


def test_geoms_mujoco_collides_are_named_as_having_no_contacts():
    """A world sphere, arm a and its child b: MuJoCo collides the world's with each (its
    parent filter spares the world), not a's with b's (parent and child); contype 0 and
    conaffinity 0 on the world's geom, or <flag contact="disable">, leave none."""
    chain = ("<worldbody><geom name='w' size='.1' {bits}/><body name='a'><joint/>"
             "<geom name='ga' size='.1'/><body name='b'><joint/><geom name='gb' size='.1'/>"
             "</body></body></worldbody>")
    _, rep = mm.mechanism_from_mjcf(f"<mujoco>{chain.format(bits='')}</mujoco>")
    assert [u for u in rep.unmapped if u.startswith("contacts:")] == [
        "contacts: MuJoCo collides 2 geom pair(s) (contype, conaffinity), 'w' and 'ga' the "
        "first; the import makes no contacts"]
    silent = "<mujoco>" + chain.format(bits="contype='0' conaffinity='0'") + "</mujoco>"
    off = "<mujoco><option><flag contact='disable'/></option>" + chain.format(bits="") + "</mujoco>"
    for xml in (silent, off):
        assert not [u for u in mm.mechanism_from_mjcf(xml)[1].unmapped if "contacts" in u]


def test_a_weld_between_sites_is_named_as_a_connect_between_sites_is():
    """MuJoCo 3 welds and connects may join two sites; the import does not read sites."""
    xml = ("<mujoco><worldbody><body name='a'><joint/><geom size='.1'/><site name='s1'/></body>"
           "<body name='b' pos='1 0 0'><joint/><geom size='.1'/><site name='s2'/></body>"
           "</worldbody><equality>\n<weld name='w' site1='s1' site2='s2'/>"
           "<connect name='c' site1='s1' site2='s2'/></equality></mujoco>")
    _, rep = mm.mechanism_from_mjcf(xml)
    assert "line 2: weld 'w' between sites (give body1, body2 and anchor)" in rep.unmapped
    assert "line 2: connect 'c' between sites (give body1, body2 and anchor)" in rep.unmapped


@pytest.mark.parametrize("seq", ["xyz", "XYZ", "zyx", "ZYX", "zxz", "YXY"])
@pytest.mark.parametrize("unit", ["degree", "radian"])
def test_euler_sequences_turn_about_moving_or_fixed_axes(seq, unit):
    """MJCF's eulerseq: lowercase letters turn about the axes as turned so far
    (intrinsic), uppercase about the fixed ones (extrinsic), the angles in the compiler's
    unit: scipy's Rotation.from_euler with the case swapped (its uppercase is intrinsic)."""
    angles = (0.3, -0.5, 1.1)
    shown = [math.degrees(a) for a in angles] if unit == "degree" else angles
    xml = body_xml("<joint/><geom size='0.1'/>", f"<compiler angle='{unit}' eulerseq='{seq}'/>")
    xml = xml.replace("pos='0 0 1'", "euler='{} {} {}'".format(*shown))
    R = Rotation.from_euler(seq.swapcase(), angles).as_matrix()
    assert np.allclose(mjcf.read_model(xml).bodies["a"].frame[:3, :3], R, atol=1e-15)


def write_included_arm(folder) -> str:
    """main.xml including defaults and an arm from sub/, the arm including its forearm
    by a path from the main file's folder and its hand by one from its own: the path of
    main.xml."""
    (folder / "sub").mkdir()
    (folder / "main.xml").write_text(
        '<mujoco model="m">\n  <include file="sub/defaults.xml"/>\n  <worldbody>\n'
        '    <include file="sub/arm.xml"/>\n  </worldbody>\n</mujoco>\n')
    (folder / "sub" / "defaults.xml").write_text(
        '<mujoco><default><joint axis="0 1 0" damping="0.1"/></default></mujoco>')
    (folder / "sub" / "arm.xml").write_text(
        '<mujoco><body name="a" pos="0 0 1"><joint name="h"/><geom type="capsule" '
        'fromto="0 0 0 .4 0 0" size=".03"/><include file="sub/fore.xml"/></body></mujoco>')
    (folder / "sub" / "fore.xml").write_text(
        '<mujoco><body name="b" pos=".4 0 0"><joint name="k"/><geom type="capsule" '
        'fromto="0 0 0 .3 0 0" size=".02"/><include file="hand.xml"/></body></mujoco>')
    (folder / "sub" / "hand.xml").write_text(
        '<mujoco><geom type="sphere" pos=".3 0 0" size=".05"/></mujoco>')
    return str(folder / "main.xml")


def test_included_files_are_read_in_place(tmp_path):
    m, rep = mm.mechanism_from_mjcf(write_included_arm(tmp_path))
    assert set(m.joints) == {"h", "k"} and not rep.unmapped
    assert m.torsion_springs["h: spring"].damping == 0.1                 # the included default
    assert len(mjcf.read_mjcf(str(tmp_path / "main.xml")).bodies["b"].geoms) == 2


def test_a_missing_or_self_including_file_is_named_with_the_include_line(tmp_path):
    path = write_included_arm(tmp_path)
    (tmp_path / "sub" / "hand.xml").write_text('<mujoco><include file="hand.xml"/></mujoco>')
    with pytest.raises(mjcf.MjcfError, match="line 1: <include file='hand.xml'> includes itself"):
        mjcf.read_mjcf(path)
    (tmp_path / "sub" / "hand.xml").unlink()
    with pytest.raises(mjcf.MjcfError, match="line 1: <include file='hand.xml'>: no such file"):
        mjcf.read_mjcf(path)
    (tmp_path / "main.xml").write_text('<mujoco>\n<include file="nowhere.xml"/></mujoco>')
    with pytest.raises(mjcf.MjcfError, match="line 2: <include file='nowhere.xml'>: no such"):
        mjcf.read_mjcf(path)


def test_a_massless_jointed_body_takes_its_welded_childs_mass():
    """A hinge on an empty body whose jointless child carries a 0.1 m sphere (4.19 kg at
    0.3 m): MuJoCo moves them as one; the import makes them one part of that mass and
    centre, and a second massive child a part on a fixed joint."""
    inner = ("<joint axis='0 1 0'/><body name='b' pos='0.3 0 0'><geom size='.1'/></body>"
             "<body name='c' pos='0 0 -0.2'><geom size='.05'/></body>")
    m, rep = mm.mechanism_from_mjcf(body_xml(inner))
    sphere = 1000 * 4 / 3 * math.pi * 0.1 ** 3
    assert m.parts["a"].mass == pytest.approx(sphere, rel=1e-12)
    assert np.allclose(m.parts["a"].center_of_mass, [0.3, 0, 0])
    assert rep.parts["b"] == "a" and m.joints["c: fixed"].kind == "fixed"


def test_a_replicate_turns_copy_i_by_i_times_its_angles():
    """euler 10 20 30 (xyz) and offset (0.1, 0.2, 0.05): copy 2 is turned by the euler
    angles 20 40 60, not by the first turn twice, and sits at offset + E_1 offset + E_2
    (0, 0.3, 1), E_k the turn of copy k (MuJoCo's placement, measured)."""
    xml = ("<mujoco><worldbody><replicate count='3' offset='0.1 0.2 0.05' euler='10 20 30'>"
           "<body name='b' pos='0 0.3 1'><joint/><geom size='.05'/></body></replicate>"
           "</worldbody></mujoco>")
    E = lambda k: Rotation.from_euler("XYZ", [10 * k, 20 * k, 30 * k], degrees=True).as_matrix()
    offset = np.array([0.1, 0.2, 0.05])
    b2 = mjcf.read_model(xml).world()["b2"]
    assert np.allclose(b2[:3, :3], E(2), atol=1e-15)
    assert np.allclose(b2[:3, 3], offset + E(1) @ offset + E(2) @ [0, 0.3, 1], atol=1e-15)


def test_a_welds_anchor_is_in_its_second_bodys_frame():
    """MJCF: a weld's anchor is relative to body2 (a connect's to body1); the fixed
    joint's markers, where its reaction acts, sit there: body c at (1, 0.5, 1) turned
    90 degrees about z puts anchor (0.1, 0.2, 0.3) at (0.8, 0.6, 1.3) in world."""
    xml = ("<mujoco><worldbody><body name='a' pos='0 0 1'><joint/><geom size='.1'/></body>"
           "<body name='c' pos='1 0.5 1' euler='0 0 90'><joint/><geom size='.1'/></body>"
           "</worldbody><equality><weld name='w' body1='a' body2='c' anchor='0.1 0.2 0.3'/>"
           "</equality></mujoco>")
    m, _ = mm.mechanism_from_mjcf(xml)
    for mk, part in (("w: I", "a"), ("w: J", "c")):
        pos, quat = m.pose(part)
        R = solver.quat_to_matrix(quat)
        assert np.allclose(pos + R @ m.markers[mk].position, [0.8, 0.6, 1.3], atol=1e-12)
