"""Drag and the wiggle sliders in real Blender (addon/drag.py): the Drag operator run from a
script and its modal part driven by stand-in events in the real 3D viewport (the mouse ray
from view3d_utils, the part found by ray casting); Esc puts everything back exactly; a
confirmed drag is one undo step; the joint's Angle slider and the one-DOF Position slider
pose the mechanism; the pose survives save and reload; a baked mechanism is refused."""
from __future__ import annotations

import contextlib
import math
import re
from types import SimpleNamespace

import numpy as np
import pytest

import blender_scenes as bs


def matrix(ob) -> np.ndarray:
    return np.array(ob.matrix_world, dtype=float)


def viewport(bpy):
    """(window, area, region, rv3d) of the Layout screen's 3D viewport (its default view:
    headless, a changed view is not redrawn, so its matrices stay the default's)."""
    win = bpy.context.window_manager.windows[0]
    area = next(a for a in win.screen.areas if a.type == "VIEW_3D")
    region = next(r for r in area.regions if r.type == "WINDOW")
    return win, area, region, area.spaces.active.region_3d


@contextlib.contextmanager
def modal_drag(bpy, grab_at=(0.9, 0.0, 0.0), target_at=(0.0, 0.0, -0.9)):
    """Inside the 3D viewport's context: the Drag operator's class, the context, the mouse
    positions of the world points ``grab_at`` and ``target_at``, region and rv3d, a
    stand-in operator factory and the list its reports go to."""
    from bpy_extras import view3d_utils
    bpy.context.view_layer.update()
    win, area, region, rv3d = viewport(bpy)
    reports: list[str] = []
    with bpy.context.temp_override(window=win, area=area, region=region):
        yield SimpleNamespace(
            cls=bpy.types.Operator.bl_rna_get_subclass_py("MECHANISM_OT_drag"), ctx=bpy.context,
            grab=view3d_utils.location_3d_to_region_2d(region, rv3d, grab_at),
            target=view3d_utils.location_3d_to_region_2d(region, rv3d, target_at),
            region=region, rv3d=rv3d, reports=reports,
            op=lambda: SimpleNamespace(report=lambda kind, text: reports.append(text)))


def event(type_: str, xy=(0.0, 0.0), value: str = "PRESS"):
    return SimpleNamespace(type=type_, value=value, mouse_region_x=int(round(xy[0])),
                           mouse_region_y=int(round(xy[1])))


def pin_gap(pin) -> float:
    """Distance between the pin's two marker origins (Blender units)."""
    s = pin.mechanism
    return float(np.linalg.norm(np.array(s.marker_i.matrix_world.translation)
                                - np.array(s.marker_j.matrix_world.translation)))



def four_bar(bpy, a: float, b: float, c: float, d: float, input_angle: float) -> dict:
    """A planar four-bar in the xy plane, free (no motion): input link ``a`` pinned to the
    ground at the origin at ``input_angle`` (rad from +x), coupler ``b``, output link ``c``
    pinned at (``d``, 0, 0), C left of B -> D; pins about z (Connect, C's from Add Marker)."""
    bs.set_range(bpy)
    pb = np.array([a * math.cos(input_angle), a * math.sin(input_angle), 0.0])
    pd = np.array([d, 0.0, 0.0])
    e = float(np.linalg.norm(pd - pb))
    ex = (pd - pb) / e
    x = (b * b - c * c + e * e) / (2.0 * e)
    pc = pb + x * ex + math.sqrt(b * b - x * x) * np.array([-ex[1], ex[0], 0.0])
    ground = bs.add_box(bpy, "ground", (0.1 * d, 0.1 * d, 0.1 * d),
                        (0.5 * d, -0.5 * d, -0.1 * d))
    links = [bs.add_box(bpy, name, (float(np.linalg.norm(q - p)), 0.02 * d, 0.02 * d),
                        tuple((p + q) / 2), (0.0, 0.0, math.atan2(*(q - p)[1::-1])))
             for name, p, q in (("input", np.zeros(3), pb), ("coupler", pb, pc),
                                ("output", pd, pc))]
    bs.tag(bpy, [ground, *links], "PART")
    ground.mechanism.ground = True
    pins = [bs.connect(bpy, links[0], ground, (0.0, 0.0, 0.0)),
            bs.connect(bpy, links[1], links[0], tuple(pb)),
            bs.connect(bpy, links[2], ground, tuple(pd))]
    pins.append(bs.new_joint(bpy, "pin C", "REVOLUTE", bs.add_marker(bpy, links[1], tuple(pc)),
                             bs.add_marker(bpy, links[2], tuple(pc))))
    return dict(ground=ground, input=links[0], coupler=links[1], output=links[2], pins=pins)


def test_drag_from_a_script_swings_the_pendulum_down(blender) -> None:
    """The 1 m arm pinned at the origin about y, its far end pulled to (0, 0, -2): it hangs
    straight down (the closest it can come), the pin closed."""
    bpy = blender
    sc = bs.pendulum(bpy)
    arm = sc["arm"]
    assert bpy.ops.mechanism.drag(part="arm", point=(1.0, 0.0, 0.0), target=(0.0, 0.0, -2.0)) == {"FINISHED"}
    bpy.context.view_layer.update()
    np.testing.assert_allclose(arm.matrix_world.translation, (0.0, 0.0, -0.5), atol=1e-6)
    np.testing.assert_allclose(np.array(arm.matrix_world.col[0][:3]), (0.0, 0.0, -1.0), atol=1e-6)
    assert pin_gap(sc["pin"]) <= 1e-6
    with pytest.raises(RuntimeError, match="'ground' is not a moving part"):
        bpy.ops.mechanism.drag(part="ground", target=(0.0, 0.0, 0.0))


def test_modal_drag_follows_the_mouse_and_esc_puts_everything_back(blender) -> None:
    """The modal operator's begin() and modal() called with stand-in events in the real
    viewport: the arm grabbed under the mouse at 0.9 m follows it down about its pin, the
    pin closed all the way; Esc restores every
    part's matrix exactly; a second drag confirmed with a click keeps its pose."""
    bpy = blender
    from bpy_extras import view3d_utils
    from mathutils import Matrix, Vector
    sc = bs.pendulum(bpy)
    arm, pin = sc["arm"], sc["pin"]
    bpy.context.view_layer.update()
    before = matrix(arm)
    with modal_drag(bpy) as md:
        cls, ctx, grab, target, region, rv3d = md.cls, md.ctx, md.grab, md.target, md.region, md.rv3d
        for confirm in (False, True):
            op = md.op()
            assert cls.begin(op, ctx, event("LEFTMOUSE", grab)) is True
            assert op._part == "arm"
            for k in range(1, 11):
                xy = grab + (target - grab) * (k / 10)
                assert cls.modal(op, ctx, event("MOUSEMOVE", xy, "NOTHING")) == {"RUNNING_MODAL"}
                ctx.view_layer.update()
                assert pin_gap(pin) <= 1e-6
                y = np.array(arm.matrix_world.col[1][:3])
                np.testing.assert_allclose(y / np.linalg.norm(y), (0.0, 1.0, 0.0), atol=1e-6)
            # the grabbed point (near 0.9 m out) is the point of its circle closest to where
            # the mouse ray meets the drag plane (through the grab, facing the view)
            o = np.array(view3d_utils.region_2d_to_origin_3d(region, rv3d, (round(xy[0]), round(xy[1]))))
            d = np.array(view3d_utils.region_2d_to_vector_3d(region, rv3d, (round(xy[0]), round(xy[1]))))
            g = np.array(view3d_utils.region_2d_to_vector_3d(region, rv3d, (round(grab[0]), round(grab[1]))))
            T = o + d * float((op._grab - o) @ g) / float(d @ g)
            P = op._grab                           # the ray's hit on the arm's surface
            rho = math.hypot(P[0], P[2])
            h = math.hypot(T[0], T[2])
            want = np.array([rho * T[0] / h, P[1], rho * T[2] / h])
            local = Matrix(before.tolist()).inverted() @ Vector(P)
            np.testing.assert_allclose(arm.matrix_world @ local, want, atol=1e-5)
            assert want[2] < -0.2                  # swung down (the default view is oblique)
            if not confirm:
                assert cls.modal(op, ctx, event("ESC")) == {"CANCELLED"}
                ctx.view_layer.update()
                np.testing.assert_array_equal(matrix(arm), before)
            else:
                assert cls.modal(op, ctx, event("LEFTMOUSE", xy, "RELEASE")) == {"FINISHED"}
                assert not np.allclose(matrix(arm), before)
    assert md.reports == []


def test_modal_drag_says_which_stop_holds_the_pose(blender) -> None:
    """The pendulum's pin with stops at -10 and 10 degrees, its arm grabbed at 0.9 m and
    the mouse moved toward straight below the pin (in the default oblique view the arm
    would follow it to about 20 degrees down, test above): the arm stops on the stop, 10
    degrees from horizontal (to 1e-6 rad), and confirming reports which stop holds it, as
    a scripted drag does (a live drag said nothing)."""
    bpy = blender
    sc = bs.pendulum(bpy)
    arm, pin = sc["arm"], sc["pin"]
    s = pin.mechanism
    s.use_limit_lower, s.limit_lower_angle = True, math.radians(-10.0)
    s.use_limit_upper, s.limit_upper_angle = True, math.radians(10.0)
    with modal_drag(bpy) as md:
        op = md.op()
        assert md.cls.begin(op, md.ctx, event("LEFTMOUSE", md.grab)) is True
        for k in range(1, 11):
            xy = md.grab + (md.target - md.grab) * (k / 10)
            assert md.cls.modal(op, md.ctx, event("MOUSEMOVE", xy, "NOTHING")) == {"RUNNING_MODAL"}
        assert md.cls.modal(op, md.ctx, event("LEFTMOUSE", xy, "RELEASE")) == {"FINISHED"}
    bpy.context.view_layer.update()
    x = np.array(arm.matrix_world.col[0][:3])
    assert abs(math.atan2(-x[2], x[0]) - math.radians(10.0)) < 1e-6
    assert len(md.reports) == 1 and re.search(r"rests on its upper stop \(10 degrees\)", md.reports[0])


def test_modal_drag_needs_a_moving_part(blender) -> None:
    bpy = blender
    bs.pendulum(bpy)
    bs.deselect_all(bpy)
    bpy.context.view_layer.objects.active = None
    with modal_drag(bpy) as md:
        assert md.cls.begin(md.op(), md.ctx, event("LEFTMOUSE", (2.0, 2.0))) is False
    assert md.reports == ["Drag: point at a moving part of the mechanism"]


def test_a_drag_is_one_undo_step(blender) -> None:
    bpy = blender
    sc = bs.pendulum(bpy)
    bpy.context.view_layer.update()
    before = matrix(sc["arm"])
    bpy.ops.ed.undo_push(message="before the drag")
    assert bpy.ops.mechanism.drag("EXEC_DEFAULT", True, part="arm", point=(1.0, 0.0, 0.0),
                                  target=(0.0, 0.0, -2.0)) == {"FINISHED"}
    arm = bpy.context.scene.objects["arm"]
    assert not np.allclose(matrix(arm), before, atol=1e-3)
    bpy.ops.ed.undo()
    arm = bpy.context.scene.objects["arm"]
    np.testing.assert_allclose(matrix(arm), before, atol=1e-7)


def free_slider_crank(bpy):
    sc = bs.slider_crank(bpy)
    sc["main"].mechanism.motion_type = "NONE"
    return sc


def crank_angle(sc) -> float:
    x = sc["crank"].matrix_world.col[0]
    return math.atan2(x[1], x[0])


def test_wiggle_angle_poses_the_mechanism(blender, tmp_path) -> None:
    """The slider-crank without its drive: the main bearing's Angle set to 60 degrees turns
    the crank there and the piston to the closed form; the slider reads it back; the pose
    survives save and reload."""
    bpy = blender
    sc = free_slider_crank(bpy)
    s = sc["main"].mechanism
    assert abs(s.wiggle_angle) <= 1e-6
    s.wiggle_angle = math.radians(60.0)
    bpy.context.view_layer.update()
    assert abs(crank_angle(sc) - math.radians(60.0)) <= 1e-6
    assert abs(s.wiggle_angle - math.radians(60.0)) <= 1e-6
    th = math.radians(60.0)
    x = 0.1 * math.cos(th) + math.sqrt(0.09 - (0.1 * math.sin(th)) ** 2)
    assert abs(sc["piston"].matrix_world.translation.x - x) <= 1e-6
    assert abs(sc["cylinder"].mechanism.wiggle_slide) >= 0.0       # readable
    assert pin_gap(sc["big_end"]) <= 1e-6
    path = str(tmp_path / "wiggled.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    scene = bpy.context.scene
    assert abs(scene.objects["piston"].matrix_world.translation.x - x) <= 1e-6
    main = next(o for o in scene.objects if o.mechanism.role == "JOINT" and
                o.mechanism.marker_j is not None and o.mechanism.marker_j.parent.name == "block"
                and o.mechanism.joint_kind == "REVOLUTE")
    assert abs(main.mechanism.wiggle_angle - th) <= 1e-6


def test_wiggle_that_cannot_be_reached_says_so(blender) -> None:
    """The piston's slide set beyond crank + rod: refused in the panel's report, nothing moved."""
    bpy = blender
    sc = free_slider_crank(bpy)
    bpy.context.view_layer.update()
    before = matrix(sc["piston"])
    sc["cylinder"].mechanism.wiggle_slide = 0.5
    assert "cannot reach" in bpy.context.scene.mechanism.report
    np.testing.assert_array_equal(matrix(sc["piston"]), before)


def test_wiggle_that_cannot_be_reached_is_said_in_the_scenes_units(blender) -> None:
    """The slider-crank drawn in millimetres (unit scale 0.001, Length Millimetres: the
    crank 100 mm, the rod 300 mm): the piston's slide set to 500 mm, beyond crank + rod,
    is refused in millimetres as well as the solver's metres, and nothing moves."""
    bpy = blender
    units = bpy.context.scene.unit_settings
    units.scale_length, units.length_unit = 0.001, "MILLIMETERS"
    sc = bs.slider_crank(bpy, crank=100.0, rod=300.0)
    sc["main"].mechanism.motion_type = "NONE"
    bpy.context.view_layer.update()
    before = matrix(sc["piston"])
    sc["cylinder"].mechanism.wiggle_slide = 500.0
    report = bpy.context.scene.mechanism.report
    assert re.search(r"cannot reach 0.5 m \(500 mm\) with the other joints closed \(it is at "
                     r"[-\d.e+]+ m \([-\d.e+]+ mm\)\)", report), report
    np.testing.assert_array_equal(matrix(sc["piston"]), before)


def test_position_slider_of_a_one_dof_mechanism(blender) -> None:
    """Range of Motion picks the crank (a full turn); Position 0.75 is +90 degrees; an undo
    step taken after it is undone to the pose before."""
    bpy = blender
    sc = free_slider_crank(bpy)
    assert bpy.ops.mechanism.find_range() == {"FINISHED"}
    st = bpy.context.scene.mechanism
    assert st.wiggle_joint == sc["main"].name and st.wiggle_full_turn
    assert abs(st.wiggle_position - 0.5) <= 1e-6
    bpy.ops.ed.undo_push(message="before the slider")
    st.wiggle_position = 0.75
    bpy.context.view_layer.update()
    assert abs(crank_angle(sc) - math.pi / 2) <= 1e-5
    assert abs(st.wiggle_position - 0.75) <= 1e-6
    bpy.ops.ed.undo_push(message="slider")
    bpy.ops.ed.undo()
    crank = bpy.context.scene.objects["crank"]
    assert abs(math.atan2(crank.matrix_world.col[0][1], crank.matrix_world.col[0][0])) <= 1e-6


def test_range_of_motion_needs_one_freedom(blender) -> None:
    """A driven slider-crank has no freedom left: Range of Motion says so and names the
    motion that takes it, with the remedy (its Motion None), not "drag it instead" (it
    said that, but Drag cannot move a mechanism its motions hold either: it finished with
    every part where it was); Drag refuses it the same way, nothing moved."""
    bpy = blender
    sc = bs.slider_crank(bpy)                # driven: no freedom left
    with pytest.raises(RuntimeError, match="one freedom; this one has 0") as refused:
        bpy.ops.mechanism.find_range()
    assert "drag it instead" not in str(refused.value)
    assert f"motion of joint {sc['main'].name!r} drives it" in str(refused.value)
    assert "set its Motion to None" in str(refused.value)
    before = matrix(sc["piston"])
    with pytest.raises(RuntimeError, match=f"joint {sc['main'].name!r} drives it"):
        bpy.ops.mechanism.drag(part="piston", target=(0.5, 0.1, 0.0))
    np.testing.assert_array_equal(matrix(sc["piston"]), before)


def block_on_a_joint(bpy, kind: str):
    """(block, joint): a 0.1 m block on a joint of ``kind`` along world x to a ground box."""
    bs.set_range(bpy)
    ground = bs.add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.3))
    block = bs.add_box(bpy, "block", (0.1, 0.1, 0.1), (0.0, 0.0, 0.0))
    bs.tag(bpy, [ground, block], "PART")
    ground.mechanism.ground = True
    return block, bs.connect(bpy, block, ground, (0.0, 0.0, 0.0), kind, "X")


def test_range_of_a_slide_is_said_in_the_scene_units(blender, extension) -> None:
    """A block on a prismatic joint along x with stops at -5 cm and +10 cm: Range of Motion
    picks the slide and says its range as the Lower and Upper fields show it, "-0.05 m ..
    0.1 m" (Length Metres); in a millimetre scene (unit scale 0.001, Length Adaptive, the
    stops then -0.05 and 0.1 mm) "-50 µm .. 0.1 mm"."""
    bpy = blender
    block, rail = block_on_a_joint(bpy, "PRISMATIC")
    s = rail.mechanism
    s.use_limit_lower, s.limit_lower_slide = True, -0.05
    s.use_limit_upper, s.limit_upper_slide = True, 0.1
    find_range = extension.addon.drag.find_range
    assert find_range(bpy.context.scene) == f"{rail.name}: slide -0.05 m .. 0.1 m"
    bpy.context.scene.unit_settings.scale_length = 0.001
    bpy.context.scene.unit_settings.length_unit = "ADAPTIVE"
    assert find_range(bpy.context.scene) == f"{rail.name}: slide -50 µm .. 0.1 mm"


def test_baked_mechanism_is_not_posed(blender) -> None:
    bpy = blender
    sc = bs.slider_crank(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bpy.context.view_layer.update()
    before = matrix(sc["crank"])
    sc["big_end"].mechanism.wiggle_angle = 0.3
    assert "clear the bake" in bpy.context.scene.mechanism.report
    np.testing.assert_array_equal(matrix(sc["crank"]), before)
    with pytest.raises(RuntimeError, match="clear the bake"):
        bpy.ops.mechanism.drag(part="crank", target=(0.0, 0.1, 0.0))


def test_wiggle_stops_at_the_joints_stops(blender) -> None:
    """The free slider-crank with a stop on the main bearing at 60 degrees: its Angle set to
    90 degrees stops at 60 (the piston at the closed form there) and the panel's report
    says which stop holds it.  Then a lower stop on the piston's slide at -0.05 (x = 0.35)
    and the crank set back to 0 and on to -90 degrees: the crank stops where the piston
    reaches its stop, cos th from 0.1 cos th + sqrt(0.09 - 0.01 sin^2 th) = 0.35; a value
    inside the range clears the report's line.  Angles read from the objects' float32
    matrices: 1e-6."""
    bpy = blender
    sc = free_slider_crank(bpy)
    s = sc["main"].mechanism
    s.use_limit_upper, s.limit_upper_angle = True, math.radians(60.0)
    s.wiggle_angle = math.radians(90.0)
    bpy.context.view_layer.update()
    assert abs(crank_angle(sc) - math.radians(60.0)) <= 1e-6
    th = math.radians(60.0)
    assert abs(sc["piston"].matrix_world.translation.x
               - (0.1 * math.cos(th) + math.sqrt(0.09 - (0.1 * math.sin(th)) ** 2))) <= 1e-6
    report = bpy.context.scene.mechanism.report
    assert report == f"wiggle: {sc['main'].name!r} rests on its upper stop (60 degrees)"
    s.wiggle_angle = 0.0
    assert bpy.context.scene.mechanism.report == ""
    c = sc["cylinder"].mechanism
    c.use_limit_lower, c.limit_lower_slide = True, -0.05
    s.wiggle_angle = math.radians(-90.0)
    bpy.context.view_layer.update()
    x = sc["piston"].matrix_world.translation.x
    assert abs(x - 0.35) <= 1e-6
    # 0.1 cos th + sqrt(0.09 - 0.01 + 0.01 cos^2 th) = 0.35: cos th = (0.35^2 - 0.08) / 0.07
    assert abs(math.cos(crank_angle(sc)) - (0.35 ** 2 - 0.08) / 0.07) <= 1e-6
    assert crank_angle(sc) < 0.0
    assert bpy.context.scene.mechanism.report == \
        f"wiggle: {sc['cylinder'].name!r} rests on its lower stop (-0.05 m)"


def test_stop_and_range_are_said_in_radians_in_a_radians_scene(blender, extension) -> None:
    """A scene whose rotation unit is Radians shows the Upper stop and the Angle slider in
    rad: the stop that holds the crank (Upper 1 rad, the crank set to 2) and Range of
    Motion's range are said in rad too, as typed, not in degrees."""
    bpy = blender
    bpy.context.scene.unit_settings.system_rotation = "RADIANS"
    sc = free_slider_crank(bpy)
    s = sc["main"].mechanism
    s.use_limit_upper, s.limit_upper_angle = True, 1.0
    s.wiggle_angle = 2.0
    report = bpy.context.scene.mechanism.report
    assert report == f"wiggle: {sc['main'].name!r} rests on its upper stop (1 rad)", report
    s.use_limit_lower, s.limit_lower_angle = True, -0.5
    text = extension.addon.drag.find_range(bpy.context.scene)
    assert text == f"{sc['main'].name}: angle -0.5 rad .. 1 rad", text


def test_slider_keeps_its_reading_until_the_scene_changes(blender, extension) -> None:
    """The Angle slider reads the scene once and keeps its reading (addon/scene_cache.py)
    while the scene is as it left it: a second change uses the same reading.  The ground
    block moved by hand 0.2 along y (its markers with it) makes a new one, and the pose is
    read from the moved block (the piston at y = 0.2; a stale reading would leave it at 0).
    A mesh edited (a depsgraph geometry update), a setting changed (no depsgraph update)
    and an undo each end the kept reading."""
    bpy = blender
    cache = extension.addon.scene_cache
    POSE = extension.addon.drag.POSE
    sc = free_slider_crank(bpy)
    scene = bpy.context.scene
    s = sc["main"].mechanism
    s.wiggle_angle = math.radians(30.0)
    first = cache.kept(scene, POSE)
    assert first is not None
    s.wiggle_angle = math.radians(40.0)
    assert cache.kept(scene, POSE) is first
    bpy.context.view_layer.update()
    assert abs(crank_angle(sc) - math.radians(40.0)) <= 1e-6
    sc["block"].location.y += 0.2
    s.wiggle_angle = math.radians(50.0)
    second = cache.kept(scene, POSE)
    assert second is not None and second is not first
    bpy.context.view_layer.update()
    th = math.radians(50.0)
    np.testing.assert_allclose(sc["piston"].matrix_world.translation,
                               (0.1 * math.cos(th) + math.sqrt(0.09 - (0.1 * math.sin(th)) ** 2),
                                0.2, 0.0), atol=1e-6)
    mesh = sc["crank"].data
    mesh.vertices[0].co.x += 0.001
    mesh.update()
    bpy.context.view_layer.update()
    assert cache.kept(scene, POSE) is None
    s.wiggle_angle = math.radians(60.0)
    third = cache.kept(scene, POSE)
    assert third is not None and third is not second
    sc["rod"].mechanism.density = 2000.0
    s.wiggle_angle = math.radians(70.0)
    assert cache.kept(scene, POSE) not in (None, third)
    bpy.ops.ed.undo_push(message="before the slider")
    s.wiggle_angle = math.radians(80.0)
    assert cache.kept(scene, POSE) is not None
    bpy.ops.ed.undo_push(message="slider")
    bpy.ops.ed.undo()
    assert cache.kept(bpy.context.scene, POSE) is None


def test_a_changed_constant_ends_the_kept_reading(blender, extension) -> None:
    """A scene Constant is read with the scene (a motion's expression may use it), so
    changing its value makes the slider read the scene again (addon/scene_cache.py): the
    kept reading had the old value."""
    bpy = blender
    cache, POSE = extension.addon.scene_cache, extension.addon.drag.POSE
    sc = free_slider_crank(bpy)
    scene = bpy.context.scene
    assert bpy.ops.mechanism.constant_add() == {"FINISHED"}
    scene.mechanism.constants[0].name, scene.mechanism.constants[0].value = "omega", 3.0
    s = sc["main"].mechanism
    s.wiggle_angle = math.radians(30.0)
    first = cache.kept(scene, POSE)
    s.wiggle_angle = math.radians(35.0)
    assert cache.kept(scene, POSE) is first
    scene.mechanism.constants[0].value = 4.0
    s.wiggle_angle = math.radians(40.0)
    assert cache.kept(scene, POSE) not in (None, first)


def test_position_slider_of_a_gear_pair_follows_its_turns(blender) -> None:
    """A gear pair (pitch radii 0.1 and 0.25 m) with its drive off: Range of Motion offers
    gear 1 a turn each way (a coupled angle: a turn on is another pose of gear 2), and
    Position 0.9 turns gear 1 to 1.6 pi (-2 pi + 0.9 of 4 pi), gear 2 to -0.4 of it (to
    1e-5 rad); the slider then reads 0.9 back, its angle taken on the turn the posing
    follows (the markers alone say -0.4 pi, which read 0.4).  Its Angle set to 12 rad
    reads 12 (the markers alone: 12 - 4 pi), gear 2's -0.4 of it."""
    bpy = blender
    sc = bs.gear_pair(bpy)
    sc["j1"].mechanism.motion_type = "NONE"
    assert bpy.ops.mechanism.find_range() == {"FINISHED"}
    st = bpy.context.scene.mechanism
    assert st.wiggle_joint == sc["j1"].name and not st.wiggle_full_turn
    assert abs(st.wiggle_lower + 2.0 * math.pi) <= 1e-5 and abs(st.wiggle_upper - 2.0 * math.pi) <= 1e-5
    st.wiggle_position = 0.9
    bpy.context.view_layer.update()
    turn = 1.6 * math.pi
    for ob, want in ((sc["g1"], turn), (sc["g2"], -bs.R1 / bs.R2 * turn)):
        x = ob.matrix_world.col[0]
        assert abs((math.atan2(x[1], x[0]) - want + math.pi) % (2.0 * math.pi) - math.pi) <= 1e-5
    assert abs(st.wiggle_position - 0.9) <= 1e-6
    sc["j1"].mechanism.wiggle_angle = 12.0                  # rad: almost two turns on
    bpy.context.view_layer.update()
    assert abs(sc["j1"].mechanism.wiggle_angle - 12.0) <= 1e-6
    assert abs(sc["j2"].mechanism.wiggle_angle + bs.R1 / bs.R2 * 12.0) <= 1e-6


def test_position_sweeps_a_range_wider_than_half_a_turn(blender) -> None:
    """A triple-rocker four-bar drawn in millimetres (unit scale 0.001; input 200, coupler
    250, output 200, ground 300 mm), its input link drawn at 90 degrees (its pin's angle 0
    there): the input turns while the ground diagonal B-D is at most b + c, cos th >=
    (a^2 + d^2 - (b + c)^2) / (2 a d), |th| <= 127.17 degrees, so its pin's range is
    -217.17 .. 37.17 degrees, wider than half a turn.  Position takes the input the way
    through the range (the shorter way round to -217 degrees, +143, would cross the other
    toggle): 0 and 1 put the input link at -127.17 and +127.17 degrees from +x (the range
    located to 1e-6 rad; 1e-3 degrees allowed for the float32 matrices), 0.5 at 0."""
    bpy = blender
    bpy.context.scene.unit_settings.scale_length = 0.001
    bpy.context.scene.unit_settings.length_unit = "MILLIMETERS"
    fb = four_bar(bpy, 200.0, 250.0, 200.0, 300.0, math.radians(90.0))
    assert bpy.ops.mechanism.find_range() == {"FINISHED"}
    st = bpy.context.scene.mechanism
    toggle = math.degrees(math.acos((200.0 ** 2 + 300.0 ** 2 - 450.0 ** 2) / (2 * 200 * 300)))
    assert st.wiggle_joint == fb["pins"][0].name and not st.wiggle_full_turn
    assert math.degrees(st.wiggle_lower) == pytest.approx(-90.0 - toggle, abs=1e-4)
    assert math.degrees(st.wiggle_upper) == pytest.approx(toggle - 90.0, abs=1e-4)
    for position, drawn in ((0.0, -toggle), (1.0, toggle), (0.5, 0.0), (0.0, -toggle)):
        st.wiggle_position = position
        bpy.context.view_layer.update()
        assert st.report == "", st.report
        x = np.array(fb["input"].matrix_world.col[0][:3])
        angle = math.degrees(math.atan2(x[1], x[0]))
        assert abs(((angle - drawn + 180.0) % 360.0) - 180.0) <= 1e-3, (position, angle)
        assert abs(st.wiggle_position - position) <= 1e-6


def test_range_of_motion_moves_a_cylindrical_joints_free_slide(blender) -> None:
    """A block on a cylindrical joint along x whose angle a motion drives, stops on its
    slide at -5 cm and +10 cm: the slide is the one freedom, so Range of Motion picks it
    (the joint is not passed over as driven) and says its range; Position 0.5 puts the
    block at 2.5 cm (float32 location: 1e-7 m)."""
    bpy = blender
    block, tube = block_on_a_joint(bpy, "CYLINDRICAL")
    s = tube.mechanism
    s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", "ANGLE", "2*pi*t"
    s.use_limit_lower, s.use_limit_upper, s.limit_coordinate = True, True, "SLIDE"
    s.limit_lower_slide, s.limit_upper_slide = -0.05, 0.1
    assert bpy.ops.mechanism.find_range() == {"FINISHED"}
    st = bpy.context.scene.mechanism
    assert (st.wiggle_joint, st.wiggle_coordinate) == (tube.name, "slide")
    assert st.wiggle_lower == pytest.approx(-0.05, abs=1e-7)
    assert st.wiggle_upper == pytest.approx(0.1, abs=1e-7)
    st.wiggle_position = 0.5
    bpy.context.view_layer.update()
    assert block.matrix_world.translation.x == pytest.approx(0.025, abs=1e-7)
    assert st.report == ""


def test_the_angle_field_reads_on_the_turn_of_the_stops(blender, tmp_path) -> None:
    """The pendulum's pin with stops at 100 and 260 degrees, its Angle set to 200: after
    saving and loading the file (nothing of the posing kept) the field still reads 200
    degrees, inside the stops the Limits box shows, not the same pose's -160; a lone lower
    stop at 100 reads it within the turn above the stop, 200 too (float32 matrices:
    1e-4 degrees)."""
    bpy = blender
    pin = bs.pendulum(bpy)["pin"]
    name, s = pin.name, pin.mechanism
    s.use_limit_lower, s.limit_lower_angle = True, math.radians(100.0)
    s.use_limit_upper, s.limit_upper_angle = True, math.radians(260.0)
    s.wiggle_angle = math.radians(200.0)
    bpy.context.view_layer.update()
    assert math.degrees(s.wiggle_angle) == pytest.approx(200.0, abs=1e-4)
    path = str(tmp_path / "stops.blend")
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.open_mainfile(filepath=path)
    s = bpy.context.scene.objects[name].mechanism
    assert math.degrees(s.wiggle_angle) == pytest.approx(200.0, abs=1e-4)
    s.use_limit_upper = False
    assert math.degrees(s.wiggle_angle) == pytest.approx(200.0, abs=1e-4)
