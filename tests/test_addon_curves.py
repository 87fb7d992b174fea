"""Joints on curves in real Blender (bpy): a Scotch yoke (a crank pin in a slot drawn as a
curve object) and eccentric disc cams (poly circles, Blender's Bezier circle) built with the
operators and the joint's curve fields, baked, and read back from the keyframes; the contact
force; the lift-off note; a scene in millimetres; bad curve input refused by name with the
scene unchanged; save, reload and re-bake; Clear Bake; the sidebar; Blender's own drawing of
NURBS and Bezier splines against what the reader makes of them.  Scenes: blender_scenes.py.

Tolerances.  Keyframe values, object matrices and curve points are float32 in Blender (unit
round-off 6e-8): positions and forces read back from keys are compared with 1e-6 of the
quantity's size (F32, as in test_addon_bake.py, margin 16).  A closed form is compared with
that too when it is a position (the drawn points are float32 roundings of the circle: a
radius off by 2e-9 m, 4e-8 of the lift).  A contact force against its closed form gets
2e-4 of its peak: it holds the follower's acceleration, which feels the profile's
curvature, and the curvature of a spline through points rounded to float32 (half an ulp,
1.9e-9 m, at 4.9 mm spacing: 8e-5 1/m, 4e-6 of the disc's 20 1/m, times the quintic's
noise gain of some ten) errs by some 4e-5 relative (measured: 4.2e-5 roller, 2.6e-5 flat).
The baked contact force against the solver's own, from the same curves: F32.
"""
from __future__ import annotations

import csv
import math
import re

import numpy as np
import pytest

import blender_scenes as bs
from test_addon_bake import F32, all_bake_keys, close, save_and_open

FRAMES = np.arange(bs.FRAME_START, bs.FRAME_END + 1, dtype=float)
TIMES = (FRAMES - bs.FRAME_START) / 24.0
G = 9.81
CONTACT_TOL = 2e-4            # of the contact force's peak, against a closed form (docstring)


def baked_prop(ob, prop: str) -> np.ndarray:
    """(n,) values of a custom property keyed by the bake, at FRAMES."""
    k = bs.curve(ob, f'["{prop}"]', action=ob.mechanism.bake_action)
    np.testing.assert_array_equal(k[:, 0], FRAMES)
    return k[:, 1]


def solved(extension, bpy):
    """(SceneMechanism, Result) of the scene, solved at its frames as a Bake solves it."""
    sm = extension.addon.scene_reader.read_scene(bpy.context.scene)
    return sm, sm.mech.solve(times=sm.timeline.times)


def eccentric_lift(follower: str, omega: float, t: np.ndarray):
    """(y, y'') of the eccentric cam's follower marker (blender_scenes.eccentric_cam): the
    roller's centre stays CAM_R + ROLLER_R from the disc's centre (e cos th, e sin th); a
    flat face rests on the disc's top, e sin th + CAM_R."""
    R, e, rho, th = bs.CAM_R, bs.CAM_E, bs.ROLLER_R, omega * t
    if follower == "flat":
        return e * np.sin(th) + R, -e * omega ** 2 * np.sin(th)
    c = e * np.cos(th)
    root = np.sqrt((R + rho) ** 2 - c * c)
    # d/dt of c: -e w sin th; of root: c e w sin th / root
    cd, cdd = -e * omega * np.sin(th), -e * omega ** 2 * np.cos(th)
    rootdd = ((cd * cd + c * cdd) * root ** 2 + (c * cd) ** 2) / -root ** 3
    return e * np.sin(th) + root, -e * omega ** 2 * np.sin(th) + rootdd


# ---------------------------------------------------------------- point on curve
@pytest.mark.parametrize("unit, kind, plane", [(1.0, "BEZIER", "XY"), (1.0, "POLY", "XY"),
                                               (1000.0, "BEZIER", "XY"), (1.0, "BEZIER", "XZ")])
def test_scotch_yoke_follows_r_cos_theta(blender, extension, unit: float, kind: str, plane: str) -> None:
    """The crank pin in the yoke's slot (a straight Bezier, or a two-point poly) drives the
    yoke along x: x = r cos(theta) on all 25 frames (two turns), y and z stay; in a scene in
    millimetres (unit scale 0.001, lengths 1000 times the units) the same in units: had the
    slot not been scaled to metres with the rest, the pin could not reach it.  Standing in
    the xz plane, its markers turned (float32: the slot reads 1e-7 rad off their plane and
    is flattened onto it; as read, the solver would take the start at the dead centre for
    locked and refuse the crank's motion), the same.  The slot's
    reaction is the force that accelerates the yoke (its mass from its mesh, x'' = -r w^2
    cos th in m/s^2): -m x'' in N whatever the units, nothing along the slot."""
    bpy = blender
    if unit != 1.0:
        bpy.context.scene.unit_settings.scale_length = 1.0 / unit
    d = bs.scotch_yoke(bpy, unit, kind, plane)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    r, th = bs.YOKE_R * unit, 4 * np.pi * TIMES
    frames, loc, _ = bs.baked_pose(d["yoke"])
    np.testing.assert_array_equal(frames, FRAMES)
    close(loc[:, 0], r * np.cos(th), what="yoke x = r cos theta")
    close(loc[:, 1:], np.zeros((len(loc), 2)), ref=r, what="the yoke stays on its rail")
    sm, res = solved(extension, bpy)
    m = sm.mech.parts["yoke"].mass
    xdd = -bs.YOKE_R * (4 * np.pi) ** 2 * np.cos(th)          # m/s^2: the same in every unit
    fx = baked_prop(d["joint"], "reaction_force_x")
    close(-fx, m * xdd, what="slot force = m x''")
    along = "reaction_force_y" if plane == "XY" else "reaction_force_z"     # along the slot
    close(baked_prop(d["joint"], along), np.zeros(len(fx)), ref=np.abs(fx).max())
    assert d["joint"].mechanism.curve_fit.startswith("Curve 'slot': ")


@pytest.mark.parametrize("plane", ["XY", "XZ"])
def test_scotch_yoke_as_drawn_bakes_without_a_geometry_warning(blender, plane: str) -> None:
    """The yoke's pin-in-slot equation off the crank's plane is redundant; as Blender
    stores the drawing (float32: 7.6e-9 m, 1.3e-7 of the yoke's size, at frame 19) it is
    float32 rounding of a correct drawing, not the user's geometry: the bake says nothing."""
    bpy = blender
    bs.scotch_yoke(bpy, plane=plane)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert "disagree" not in bpy.context.scene.mechanism.report


@pytest.mark.parametrize("off, said", [(1e-5, "error"), (4.5e-8, "note")])
def test_scotch_yoke_slot_off_the_crank_plane_is_reported(blender, off: float, said: str) -> None:
    """A crank pin placed ``off`` m off the slot's plane is the user's geometry, not float32
    rounding (7.6e-9 m as drawn, 1.3e-7 of the yoke's size 0.058 m; 8 times that is
    taken as rounding, 2.8e-8 m): 1e-5 m (1.7e-4 of the size) cannot be closed, the bake
    fails naming the joints and the gap; 4.5e-8 m (7.7e-7 of the size, below the 1e-6
    accepted as imperfect geometry) is baked with a note naming the joints and the size
    (within the 7.6e-9 m of rounding of the drawing on top of it)."""
    bpy = blender
    d = bs.scotch_yoke(bpy)
    d["pin"].location.z += off
    report = bpy.context.scene.mechanism
    if said == "error":
        with pytest.raises(RuntimeError, match=r"'pin in slot' leave a gap of 1e-05 m"):
            bpy.ops.mechanism.bake()
        return
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    found = re.search(r"'pin in slot' disagree by ([0-9.e+-]+) m", report.report)
    assert found, report.report
    assert abs(float(found.group(1)) - off) < 1e-8


# ---------------------------------------------------------------- cams
@pytest.mark.parametrize("follower", ["roller", "flat"])
def test_eccentric_cam_lift_and_contact_force(blender, extension, tmp_path, follower: str) -> None:
    """A disc drawn as a 64-point poly circle turned at 2 turns/s under a roller (32-point
    poly circle) or a flat face: the follower's lift is the closed form on every frame; the
    baked contact_force is the solver's (F32) and the closed form m (y'' + g) / n_y, n the
    contact normal (CONTACT_TOL); it pushes all the way round, so no lift-off note; the CSV
    has it as "cam contact_force_N"."""
    bpy = blender
    d = bs.eccentric_cam(bpy, follower)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    omega = 4 * np.pi
    y, ydd = eccentric_lift(follower, omega, TIMES)
    _, loc, _ = bs.baked_pose(d["tappet"])
    close(loc[:, 1] - 0.03, y, what="lift")                 # the box's centre is 0.03 above its marker
    sm, res = solved(extension, bpy)
    m = sm.mech.parts["tappet"].mass
    ny = (y - bs.CAM_E * np.sin(omega * TIMES)) / (bs.CAM_R + bs.ROLLER_R) if follower == "roller" else 1.0
    force = baked_prop(d["cam"], "contact_force")
    close(force, res.contact_force("cam"), what="contact force = the solver's")
    close(force, m * (ydd + G) / ny, rel=CONTACT_TOL, what="contact force, closed form")
    assert force.min() > 0.5 * m * G
    assert "lift off" not in bpy.context.scene.mechanism.report
    path = tmp_path / "cam.csv"
    assert bpy.ops.mechanism.export_csv(filepath=str(path)) == {"FINISHED"}
    rows = list(csv.reader(open(path, newline="")))
    col = dict(zip(rows[0], np.array(rows[1:], dtype=float).T))
    close(col["cam contact_force_N"], force, what="CSV")


def bezier_points_world(ob) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(co, left, right) (n, 3) of a curve object's Bezier spline, world (as stored: float32)."""
    M = np.array(ob.matrix_world, dtype=float)
    sp = ob.data.splines[0]
    out = []
    for attr in ("co", "handle_left", "handle_right"):
        a = np.array([tuple(getattr(p, attr)) for p in sp.bezier_points], dtype=float)
        out.append(a @ M[:3, :3].T + M[:3, 3])
    return tuple(out)


def test_flat_follower_on_blenders_bezier_circle_follows_the_bezier(blender, extension) -> None:
    """Blender's Bezier circle is 2.7e-4 R off a circle (io test); a flat face on it lifts by
    the Bezier's own height: the largest y of the drawn Bezier (cubic Bernstein form of its
    stored points and handles, 4 x 20000 samples: 4e-11 m) turned by the drive's angle.
    Within F32 of the lift plus the reader's measured fit error, while a true circle's lift
    is more than 50 times that tolerance away on these frames: the bake follows the shape drawn."""
    bpy = blender
    d = bs.eccentric_cam(bpy, "flat", profile="BEZIER")
    assert d["profile"].data.splines[0].type == "BEZIER"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    co, left, right = bezier_points_world(d["profile"])
    n = len(co)
    s = np.linspace(0.0, 1.0, 20001)[:, None]
    b = [(1 - s) ** 3 * co[k] + 3 * s * (1 - s) ** 2 * right[k] + 3 * s * s * (1 - s) * left[(k + 1) % n]
         + s ** 3 * co[(k + 1) % n] for k in range(n)]
    pts = np.concatenate(b)                                   # (m, 3), the cam as designed (theta 0)
    th = 4 * np.pi * TIMES
    height = (np.sin(th)[:, None] * pts[None, :, 0] + np.cos(th)[:, None] * pts[None, :, 1]).max(axis=1)
    _, loc, _ = bs.baked_pose(d["tappet"])
    sm, _ = solved(extension, bpy)
    fit = sm.mech.joints["cam"].curves[1].fit_error
    assert fit < 1e-7 * bs.CAM_R
    tol = F32 * height.max() + fit
    assert np.abs(loc[:, 1] - 0.03 - height).max() < tol
    circle = bs.CAM_E * np.sin(th) + bs.CAM_R
    assert np.abs(height - circle).max() > 50 * tol


def test_lift_off_is_noted_in_the_bake_report(blender, extension, capfd) -> None:
    """The flat face spun at 40 rad/s (e w^2 = 24 m/s^2 > g): where y'' + g < 0 the contact
    would have to pull; the Bake's report (status bar) and the report box name the cam, the
    first such scene frame and the largest pull (the solver's)."""
    bpy = blender
    bs.eccentric_cam(bpy, "flat", drive="40*t")
    _, ydd = eccentric_lift("flat", 40.0, TIMES)
    k = int(np.argmax(ydd + G < 0.0))
    assert k > 0 and (ydd + G)[k] < -1.0                    # not a borderline frame
    _, res = solved(extension, bpy)
    said = (f"cam 'cam': the contact would have to pull from t = {TIMES[k]:.6g} s (frame "
            f"{int(FRAMES[k])}); the largest pull is {-res.contact_force('cam').min():.4g} N")
    capfd.readouterr()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert said in capfd.readouterr().out
    assert f"note: {said}" in bpy.context.scene.mechanism.report.split(" | ")[-1]


# ---------------------------------------------------------------- Check: notes and start gaps
def test_check_reports_poly_departures_and_start_gaps(blender, extension) -> None:
    """Check on the roller cam: each poly circle's note gives its departure from the drawn
    segments, R (1 - cos(pi/n)) written in the scene's units; with the follower raised 5 mm
    off the disc, the cam joint is open at the start by the distance between the circles,
    |c_roller - c_disc| - (R + rho) = 4.86 mm, and the assembly moves the follower 5 mm.
    The joint's panel lines."""
    bpy = blender
    d = bs.eccentric_cam(bpy, "roller")
    d["tappet"].location.y += 0.005
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    text = extension.addon.curve_reader.length_text
    for name, label, R, n in (("profile", "Curve", bs.CAM_R, bs.CAM_POINTS),
                              ("roller", "Follower Curve", bs.ROLLER_R, bs.ROLLER_POINTS)):
        sag = text(bpy.context.scene, R * (1 - math.cos(math.pi / n)))
        assert (f"joint 'cam': {label} '{name}' is a poly spline: the joint follows the smooth "
                f"curve through its points, which runs up to {sag} from") in report
        assert f"{label} '{name}': the smooth curve through its points, up to {sag}" in d["cam"].mechanism.curve_fit
    y0 = math.sqrt((bs.CAM_R + bs.ROLLER_R) ** 2 - bs.CAM_E ** 2)
    gap = math.hypot(bs.CAM_E, y0 + 0.005) - (bs.CAM_R + bs.ROLLER_R)
    assert f"joint 'cam' is open at the start by {text(bpy.context.scene, gap)} |" in report
    assert f"the assembly moves part 'tappet' by {text(bpy.context.scene, 0.005)} to close them" in report


def test_curve_not_parented_is_read_where_it_is_and_noted(blender) -> None:
    """The disc's profile unparented (kept in place): the bake is the same, key for key (the
    reader takes it where it is, which is where it was designed), and Check notes that it
    will not move with the disc."""
    bpy = blender
    d = bs.eccentric_cam(bpy, "flat")
    bpy.context.scene.frame_end = 7
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = all_bake_keys(bpy)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    world = d["profile"].matrix_world.copy()
    d["profile"].parent = None
    d["profile"].matrix_world = world
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert ("joint 'cam': Curve 'profile' is not parented to part 'disc': it is read where it is "
            "now and will not move with the part") in bpy.context.scene.mechanism.report
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == first


# ---------------------------------------------------------------- bad input
def _yoke(bpy):
    d = bs.scotch_yoke(bpy)
    return d, d["joint"]


def _cam(bpy):
    d = bs.eccentric_cam(bpy, "roller")
    return d, d["cam"]


def replace_spline(bpy, ob, kind: str, points, left=None, right=None, **options) -> None:
    """Give curve object ``ob`` new data: one spline of ``kind`` through ``points`` (a
    Bezier's handles ``left``, ``right``), spline ``options`` set as given."""
    new = bs.curve_object(bpy, "scratch", kind, points, left=left, right=right)
    sp = new.data.splines[0]
    for key, value in options.items():
        setattr(sp, key, value)
    ob.data = new.data
    bpy.data.objects.remove(new)


def hook_slot(bpy, d) -> None:
    """A Hook modifier on the slot, holding its first point to an Empty 1 cm off."""
    target = bs.empty(bpy, "hook")
    target.location = (0.0, 0.0, 0.01)
    mod = d["slot"].modifiers.new("Hook", "HOOK")
    mod.object = target
    mod.vertex_indices_set([0, 1, 2])          # a Bezier point: its handles and itself


def bend_slot(bpy, d, value: float = 1.0) -> None:
    """Shape keys on the slot: its basis and "Bend" (the first point 1 cm up) at ``value``."""
    slot = d["slot"]
    slot.shape_key_add(name="Basis")
    bend = slot.shape_key_add(name="Bend")
    point = bend.data[0]
    point.co = (*point.co[:2], point.co[2] + 0.01)
    bend.value = value


def hook_for_render(bpy, d) -> None:
    """The slot's Hook off in viewports but on in renders: the render draws the slot hooked
    1 cm off while the joint follows the bare spline."""
    hook_slot(bpy, d)
    d["slot"].modifiers["Hook"].show_viewport = False
    d["slot"].modifiers["Hook"].show_render = True


SLOT = "joint 'pin in slot': Curve"
BREAK = {
    "a hook": (_yoke, hook_slot, f"{SLOT} 'slot' has modifier 'Hook' (Hook), which shapes the "
               "curve drawn but not the spline the joint follows"),
    "a hook for render only": (_yoke, hook_for_render, f"{SLOT} 'slot' has modifier 'Hook' (Hook), "
                               "which shapes the curve drawn but not the spline the joint follows"),
    "a shape key": (_yoke, bend_slot, f"{SLOT} 'slot' has shape key 'Bend' in effect, which "
                    "shapes the curve drawn but not the spline the joint follows"),
    "curve unset": (_yoke, lambda bpy, d: setattr(d["joint"].mechanism, "curve", None),
                    f"{SLOT} is not set: pick the curve object of the slot or track, on marker J's part"),
    "curve deleted": (_yoke, lambda bpy, d: bpy.data.objects.remove(d["slot"]), f"{SLOT} is not set"),
    "curve unlinked": (_yoke, lambda bpy, d: bpy.context.scene.collection.objects.unlink(d["slot"]),
                       f"{SLOT} 'slot' was deleted or is not in the scene: pick a curve object"),
    "a mesh": (_yoke, lambda bpy, d: setattr(d["joint"].mechanism, "curve", d["crank"]),
               f"{SLOT} 'crank' is a mesh object, not a curve: pick a curve object"),
    "no spline": (_yoke, lambda bpy, d: d["slot"].data.splines.clear(), f"{SLOT} 'slot' has no spline"),
    "two splines": (_yoke, lambda bpy, d: d["slot"].data.splines.new("POLY").points.add(2),
                    f"{SLOT} 'slot' has 2 splines and a joint follows one"),
    "one point": (_yoke, lambda bpy, d: replace_spline(bpy, d["slot"], "POLY", [(0.05, 0.0, 0.0)]),
                  f"{SLOT} 'slot': a Poly spline needs at least two points, it has 1"),
    "Bezier knots": (_yoke, lambda bpy, d: replace_spline(
        bpy, d["slot"], "NURBS", [(0.05, y, 0.0) for y in (-0.1, -0.05, 0.0, 0.05, 0.1)], use_bezier_u=True),
        f"{SLOT} 'slot' is a NURBS spline with the Bezier knot option"),
    "wrong part": (_yoke, lambda bpy, d: bs.parent_to(bpy, d["slot"], d["crank"]),
                   f"{SLOT} 'slot' is parented to part 'crank', but marker J 'yoke.marker' is on "
                   "part 'yoke': parent the curve to 'yoke'"),
    "follower unset": (_cam, lambda bpy, d: setattr(d["cam"].mechanism, "follower_curve", None),
                       "joint 'cam': Follower Curve is not set: pick the curve object of the "
                       "follower's profile, on marker I's part"),
    "cam not flat": (_cam, lambda bpy, d: setattr(d["profile"].data.splines[0].points[5], "co",
                                                  (*d["profile"].data.splines[0].points[5].co[:2], 0.004, 1.0)),
                     "joint 'cam': Curve 'profile' leaves the marker's xy plane by 0.004 m: a cam's "
                     "curves must lie in their markers' xy planes"),
}


@pytest.mark.parametrize("op", ["bake", "check"])
@pytest.mark.parametrize("case", BREAK)
def test_bad_curve_is_named_and_nothing_changes(blender, case: str, op: str) -> None:
    """A baked Scotch yoke or cam, then broken: Bake (and Check) raise naming the joint, the
    curve field and the curve object, and what to do; the scene and its bake are exactly as
    before."""
    bpy = blender
    build, brk, said = BREAK[case]
    d, joint = build(bpy)
    bpy.context.scene.frame_end = 7
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    brk(bpy, d)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=re.escape(said)):
        getattr(bpy.ops.mechanism, op)()
    assert not bs.differences(before, bs.snapshot(bpy))


def test_a_curves_modifier_off_or_shape_key_at_zero_is_read(blender) -> None:
    """The Scotch yoke's slot with a Hook modifier turned off in viewports and renders and a
    shape key at value 0 is drawn as its spline, and bakes the same keys as the bare slot."""
    bpy = blender
    d, _ = _yoke(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    bare = all_bake_keys(bpy)
    hook_slot(bpy, d)
    d["slot"].modifiers["Hook"].show_viewport = False
    d["slot"].modifiers["Hook"].show_render = False
    bend_slot(bpy, d, 0.0)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == bare


def test_pin_running_off_its_slot_is_named_with_the_scene_frame(blender) -> None:
    """The baked Scotch yoke's slot shortened to y = +-0.03 (the pin rises to 0.05): Bake
    stops naming the joint, the curve object and the scene frame where the pin first is past
    the end (r sin(4 pi t) > 0.03: frame 3, t = 2/24), and the scene is as it was."""
    bpy = blender
    d = bs.scotch_yoke(bpy)
    bpy.context.scene.frame_end = 7
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    r = bs.YOKE_R
    pts, left, right = bs.straight_bezier((r, -0.03, 0.0), (r, 0.03, 0.0))
    replace_spline(bpy, d["slot"], "BEZIER", pts, left=left, right=right)
    k = int(np.argmax(r * np.abs(np.sin(4 * np.pi * TIMES)) > 0.03))
    assert FRAMES[k] == 3
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=re.escape(
            f"joint 'pin in slot': the contact ran off the end of the open curve 'slot' at "
            f"t = {TIMES[k]:.6g} s (frame 3)")):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


# ---------------------------------------------------------------- file, clear, sidebar
def test_save_reload_and_rebake_give_the_same_keys(blender, tmp_path) -> None:
    """The roller cam baked, saved and opened: the keys and both curve fields are in the file;
    at frame 10 (the profile, parented to the disc, has turned with it) Bake again gives the
    same keys bit for bit (the curves are read at their design pose), and so does Clear then
    Bake."""
    bpy = blender
    bs.eccentric_cam(bpy, "roller")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    first = all_bake_keys(bpy)
    assert any(path == '["contact_force"]' for _, path, _ in first["cam"])
    save_and_open(bpy, str(tmp_path / "cam.blend"))
    assert all_bake_keys(bpy) == first
    s = bpy.data.objects["cam"].mechanism
    assert (s.joint_kind, s.curve.name, s.follower_curve.name) == ("CAM", "profile", "roller")
    bpy.context.scene.frame_set(10)                   # 1.5 pi turned
    assert bpy.data.objects["profile"].matrix_world.to_euler().z == pytest.approx(-math.pi / 2, abs=1e-6)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == first
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert all_bake_keys(bpy) == first


def test_clear_bake_removes_the_contact_force(blender) -> None:
    """After Clear Bake the cam joint has no contact_force (nor reactions), no bake action,
    and the scene is as before the bake (a Bezier profile and a straight face: no notes, so
    the report stays empty too)."""
    bpy = blender
    d = bs.eccentric_cam(bpy, "flat", profile="BEZIER")
    before = bs.snapshot(bpy, display=False)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert {"contact_force", "reaction_force"} <= set(d["cam"].keys())
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert not {"contact_force", "reaction_force"} & set(d["cam"].keys())
    assert d["cam"].mechanism.bake_action is None and not d["cam"].mechanism.baked
    assert not bs.differences(before, bs.snapshot(bpy, display=False))


def test_panel_shows_the_curve_fields_of_the_kind(blender) -> None:
    """Point on Curve: its curve field (red while unset), no follower field; Cam: both; a
    revolute joint: neither.  After Check, the line on how closely each curve is followed."""
    bpy = blender
    d = bs.scotch_yoke(bpy)
    joint = d["joint"]
    bs.select(bpy, [joint], joint)

    def items():
        return bs.panel_items(bpy, "VIEW3D_PT_mechanism_object")

    props = {i[1]: i[2] for i in items() if i[0] == "prop"}
    assert props["curve"] is False and "follower_curve" not in props
    assert "Fit: shown after Check or Bake" in [i[1] for i in items() if i[0] == "label"]
    joint.mechanism.curve = None
    assert ("prop", "curve", True) in items()
    joint.mechanism.curve = d["slot"]
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert any(i[0] == "label" and i[1].startswith("Curve 'slot': fitted to") for i in items())
    joint.mechanism.joint_kind = "CAM"
    props = {i[1] for i in items() if i[0] == "prop"}
    assert {"curve", "follower_curve"} <= props
    joint.mechanism.joint_kind = "REVOLUTE"
    assert not {"curve", "follower_curve"} & {i[1] for i in items() if i[0] == "prop"}


# ---------------------------------------------------------------- splines as Blender draws them
def spline_cases():
    """Control points round a saddle-shaped loop (radii 2 and 1, height 0.3 sin 2a), each
    moved at random by up to 0.1; weights 0.5-2; Bezier handles in line (Catmull-Rom)."""
    rng = np.random.default_rng(7)
    a = 2 * np.pi * np.arange(8) / 8
    P = np.column_stack([2 * np.cos(a), np.sin(a), 0.3 * np.sin(2 * a)]) + rng.uniform(-0.1, 0.1, (8, 3))
    w = rng.uniform(0.5, 2.0, 8)
    for order in (3, 4, 5):
        for cyclic, endpoint in ((False, True), (False, False), (True, False)):
            yield "NURBS", P, dict(weights=w, order=order, cyclic=cyclic, endpoint=endpoint)
    t = (np.roll(P, -1, axis=0) - np.roll(P, 1, axis=0)) / 6
    for cyclic in (False, True):
        yield "BEZIER", P, dict(left=P - t, right=P + t, cyclic=cyclic)


@pytest.mark.parametrize("kind, points, options", list(spline_cases()))
def test_splines_read_as_blender_draws_them(blender, extension, kind, points, options) -> None:
    """3D NURBS (orders 3-5; open with and without Endpoint, cyclic) and Bezier splines:
    every point Blender evaluates for display (float32, resolution 16) lies on the reader's
    curve within the fitting error it reports (Check's number; 4e-8 to 6e-6 here: an order-3
    NURBS and a Bezier have curvature jumps the quintic rounds) plus 1e-6 of the size
    (float32 round-off of coordinates up to 2.1: 3e-7, measured).  Blender's other knot
    options put points 1e-2 of the size away (next test)."""
    bpy = blender
    ob = bs.curve_object(bpy, "c", kind, points, **options)
    ob.data.splines[0].resolution_u = 16
    reader, io = extension.addon.curve_reader, extension.addon.io.curve_joints
    shape = io.joint_curve("j", "Curve", "c", reader.spline_data("c", ob), np.eye(4))
    shown = evaluated_points(bpy, ob)
    assert len(shown) > 60
    off = np.linalg.norm(shape.curve.evaluate(shape.curve.nearest(shown), 0)[0] - shown, axis=1)
    assert shape.fit_error < 2e-6 * shape.size and not shape.corners
    assert off.max() < shape.fit_error + 1e-6 * shape.size


def evaluated_points(bpy, ob) -> np.ndarray:
    """(m, 3) the vertices of Blender's evaluated (displayed) curve."""
    ev = ob.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = ev.to_mesh()
    try:
        return np.array([tuple(v.co) for v in mesh.vertices], dtype=float)
    finally:
        ev.to_mesh_clear()


@pytest.mark.parametrize("options", [dict(use_bezier_u=True), dict(use_cyclic_u=True, use_endpoint_u=True)])
def test_refused_nurbs_options_are_drawn_otherwise(blender, extension, options) -> None:
    """Why the reader refuses the Bezier knot option and Endpoint on a cyclic NURBS: Blender
    draws those splines with other knots, more than 1e-2 of the size away from the uniform
    knots the reader would take."""
    bpy = blender
    P = np.random.default_rng(7).normal(size=(7, 3))
    ob = bs.curve_object(bpy, "c", "NURBS", P, order=4)
    for key, value in options.items():
        setattr(ob.data.splines[0], key, value)
    sp = ob.data.splines[0]
    f, u0, u1 = extension.addon.io.curve_shapes.nurbs_function(P, np.ones(7), 4, sp.use_cyclic_u,
                                                               sp.use_endpoint_u)
    ours = f(np.linspace(u0, u1, 20001))
    shown = evaluated_points(bpy, ob)
    far = np.sqrt(((shown[:, None, :] - ours[None, ::10, :]) ** 2).sum(-1)).min(axis=1).max()
    assert far > 1e-2 * np.ptp(P, axis=0).max()
    with pytest.raises(Exception, match="whose knots are not read"):
        extension.addon.io.curve_joints.joint_curve("j", "Curve", "c",
                                                    extension.addon.curve_reader.spline_data("c", ob),
                                                    np.eye(4))
