"""Scenes for the add-on tests, built the way a user would: primitives, Set Role, Connect and
Add Marker operators (real bpy), joint, spring and force Empties set up by their properties,
plus readers for baked F-curves and a whole-scene snapshot.  One builder per thing: the
test files take them from here rather than building their own copies.

Geometry (lengths in Blender units = metres at unit scale 1):

pendulum      ground cube (0.2) at (0, 0, -0.3); arm box 1 x 0.1 x 0.1 centred at (0.5, 0, 0),
              pinned to the ground at the origin about world y (revolute, arm gets marker I).
slider-crank  block (ground) cube 0.05 at (0, 0, -0.1); crank box CRANK x 0.02 x 0.02 from the
              origin along x; rod box ROD x 0.02 x 0.02 from (CRANK, 0, 0); piston cube 0.05 at
              (CRANK + ROD, 0, 0).  Main bearing and big end: revolute about z (Connect); the
              cylinder: prismatic along x (Connect, axis X); the small end: in-line about z from
              two Add Marker markers and a joint Empty whose properties are set by hand.  The
              main bearing is driven by the expression 2*pi*t; analysis Kinematic.
gear pair     ground box at (0, 0, -0.5); gear 1 a 32-sided disc (cylinder, depth 0.02) of radius
              R1 at the origin, gear 2 of radius R2 at (R1 + R2, 0, 0) (external) or (R2 - R1, 0,
              0) (internal: gear 1 inside gear 2); each on a revolute joint to the ground about
              world z at its centre (Connect); Couple on the two joints (a gear), Radii from
              Meshes; gear 1 driven by GEAR_DRIVE (past a turn, with an acceleration).
"""
from __future__ import annotations

from typing import Any

import numpy as np

FRAME_START, FRAME_END = 1, 25       # one second at 24 fps: t = (frame - 1) / 24


def deselect_all(bpy) -> None:
    for ob in list(bpy.context.selected_objects):
        ob.select_set(False)


def select(bpy, objects, active) -> None:
    """Select exactly ``objects`` and make ``active`` the active object."""
    deselect_all(bpy)
    for ob in objects:
        ob.select_set(True)
    bpy.context.view_layer.objects.active = active


def add_box(bpy, name: str, size, location, rotation=(0.0, 0.0, 0.0)):
    """A unit cube scaled to ``size`` (its dimensions) with Euler XYZ ``rotation``."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location, rotation=rotation)
    ob = bpy.context.active_object
    ob.name = ob.data.name = name
    ob.scale = size
    return ob


def tag(bpy, objects, role: str) -> None:
    """Set Role on ``objects`` through the operator."""
    select(bpy, objects, objects[0])
    assert bpy.ops.mechanism.set_role(role=role) == {"FINISHED"}


def connect(bpy, part_i, part_j, at, kind: str = "REVOLUTE", axis: str = "Z"):
    """Connect operator at the 3D cursor ``at`` (``part_i`` active, gets marker I); the joint."""
    bpy.context.scene.cursor.location = at
    select(bpy, (part_i, part_j), part_i)
    before = set(bpy.data.objects)
    assert bpy.ops.mechanism.connect(kind=kind, axis=axis) == {"FINISHED"}
    joint, = [ob for ob in set(bpy.data.objects) - before if ob.mechanism.role == "JOINT"]
    return joint


def add_marker(bpy, part, at):
    """Add Marker operator on ``part`` at the 3D cursor ``at``; the new marker."""
    bpy.context.scene.cursor.location = at
    select(bpy, (part,), part)
    before = set(bpy.data.objects)
    assert bpy.ops.mechanism.add_marker() == {"FINISHED"}
    marker, = set(bpy.data.objects) - before
    return marker


def empty(bpy, name: str, parent=None):
    """A new Empty in the scene's collection (``parent`` set as is, no inverse)."""
    ob = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(ob)
    ob.parent = parent
    return ob


def new_joint(bpy, name: str, kind: str, marker_i, marker_j):
    """A joint Empty made by setting its properties (no operator)."""
    joint = empty(bpy, name)
    s = joint.mechanism
    s.role, s.joint_kind, s.marker_i, s.marker_j = "JOINT", kind, marker_i, marker_j
    return joint


def new_spring(bpy, name: str, marker_i, marker_j, **settings):
    """A spring-damper Empty between two markers; ``settings`` (stiffness, free_length, ...)
    set on its properties as given."""
    spring = empty(bpy, name)
    s = spring.mechanism
    s.role, s.marker_i, s.marker_j = "SPRING", marker_i, marker_j
    for key, value in settings.items():
        setattr(s, key, value)
    return spring


def new_force(bpy, name: str, marker, force: str = "0, 0, 0", torque: str = "0, 0, 0"):
    """An applied force Empty at ``marker`` (components as the panel's text, world axes)."""
    ob = empty(bpy, name)
    s = ob.mechanism
    s.role, s.marker_i, s.force, s.torque = "FORCE", marker, force, torque
    return ob


def set_range(bpy, start: int = FRAME_START, end: int = FRAME_END) -> None:
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = start, end
    scene.frame_set(start)


def millimetre_pair(bpy, ground: str, ground_size: tuple, ground_at: tuple, name: str,
                    size: tuple, kind: str) -> tuple[Any, Any, Any]:
    """A millimetre scene (unit scale 0.001) of a ground box ``ground`` of ``ground_size``
    at ``ground_at`` and a box ``name`` of ``size`` at the origin, joined there by a ``kind``
    joint along z (Connect, the box marker I): (ground, box, joint)."""
    set_range(bpy)
    bpy.context.scene.unit_settings.scale_length = 0.001
    base = add_box(bpy, ground, ground_size, ground_at)
    part = add_box(bpy, name, size, (0.0, 0.0, 0.0))
    tag(bpy, [base, part], "PART")
    base.mechanism.ground = True
    return base, part, connect(bpy, part, base, (0.0, 0.0, 0.0), kind, "Z")


def ground_and_arm(bpy) -> tuple[Any, Any]:
    """The pendulum's parts, tagged, not yet joined: (ground cube, 1 m arm)."""
    ground = add_box(bpy, "ground", (0.2, 0.2, 0.2), (0.0, 0.0, -0.3))
    arm = add_box(bpy, "arm", (1.0, 0.1, 0.1), (0.5, 0.0, 0.0))
    tag(bpy, [ground, arm], "PART")
    ground.mechanism.ground = True
    return ground, arm


def keyed_pendulum(bpy, frames: tuple[int, int, int] = (1, 13, 25)) -> dict[str, Any]:
    """The pendulum with its pin's angle keyframed (0, 1, 0.3 rad at ``frames``) as a
    Keyframed motion; also the joint's own action ("user") and its keys ("user_keys")."""
    d = pendulum(bpy)
    pin = d["pin"]
    s = pin.mechanism
    s.motion_type, s.motion_coordinate = "KEYFRAMED", "ANGLE"
    for f, a in zip(frames, (0.0, 1.0, 0.3)):
        s.motion_angle = a
        pin.keyframe_insert("mechanism.motion_angle", frame=f)
    d["user"] = pin.animation_data.action
    d["user_keys"] = action_keys(d["user"])
    return d


def pendulum(bpy) -> dict[str, Any]:
    """Ground cube and a 1 m arm pinned about world y at the origin (dynamic)."""
    set_range(bpy)
    ground, arm = ground_and_arm(bpy)
    pin = connect(bpy, arm, ground, (0.0, 0.0, 0.0), "REVOLUTE", "Y")
    bpy.context.scene.mechanism.tolerance = 1e-9
    return dict(ground=ground, arm=arm, pin=pin)


def slider_crank(bpy, crank: float = 0.1, rod: float = 0.3, at=(0.0, 0.0, 0.0)) -> dict[str, Any]:
    """Driven slider-crank in the xy plane (kinematic; module docstring), moved to ``at``."""
    set_range(bpy)
    w = lambda x, z=0.0: tuple(np.asarray(at, dtype=float) + (x, 0.0, z))  # noqa: E731
    block = add_box(bpy, "block", (0.05, 0.05, 0.05), w(0.0, -0.1))
    crank_ob = add_box(bpy, "crank", (crank, 0.02, 0.02), w(crank / 2))
    rod_ob = add_box(bpy, "rod", (rod, 0.02, 0.02), w(crank + rod / 2))
    piston = add_box(bpy, "piston", (0.05, 0.05, 0.05), w(crank + rod))
    tag(bpy, [block, crank_ob, rod_ob, piston], "PART")
    block.mechanism.ground = True
    main = connect(bpy, crank_ob, block, w(0.0), "REVOLUTE", "Z")
    big_end = connect(bpy, rod_ob, crank_ob, w(crank), "REVOLUTE", "Z")
    cylinder = connect(bpy, piston, block, w(crank + rod), "PRISMATIC", "X")
    pin_i = add_marker(bpy, piston, w(crank + rod))
    pin_j = add_marker(bpy, rod_ob, w(crank + rod))
    small_end = new_joint(bpy, "small end", "IN_LINE", pin_i, pin_j)
    s = main.mechanism
    s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", "ANGLE", "2*pi*t"
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    return dict(block=block, crank=crank_ob, rod=rod_ob, piston=piston, main=main,
                big_end=big_end, cylinder=cylinder, small_end=small_end)


R1, R2 = 0.1, 0.25
GEAR_DRIVE = "3*pi*t + 0.5*sin(2*pi*t)"     # rad: 1.5 turns in the second, never at rest


def disc(bpy, name: str, radius: float, location, depth: float = 0.02, vertices: int = 32):
    """A cylinder mesh (axis along its local z) of ``radius``; its vertices lie on the radius."""
    bpy.ops.mesh.primitive_cylinder_add(vertices=vertices, radius=radius, depth=depth, location=location)
    ob = bpy.context.active_object
    ob.name = ob.data.name = name
    return ob


def couple(bpy, joints, active=None):
    """Couple operator on ``joints`` (``active`` the active one, default the first); the new
    coupler, which is then the active object."""
    select(bpy, joints, active or joints[0])
    before = set(bpy.data.objects)
    assert bpy.ops.mechanism.couple() == {"FINISHED"}
    coupler, = set(bpy.data.objects) - before
    assert bpy.context.active_object == coupler
    return coupler


def gear_pair(bpy, mesh: str = "EXTERNAL") -> dict[str, Any]:
    """Two gears on revolute joints geared by Couple and Radii from Meshes (module docstring)."""
    set_range(bpy)
    ground = add_box(bpy, "ground", (0.1, 0.1, 0.1), (0.0, 0.0, -0.5))
    d = R1 + R2 if mesh == "EXTERNAL" else R2 - R1
    g1, g2 = disc(bpy, "g1", R1, (0.0, 0.0, 0.0)), disc(bpy, "g2", R2, (d, 0.0, 0.0))
    tag(bpy, [ground, g1, g2], "PART")
    ground.mechanism.ground = True
    j1 = connect(bpy, g1, ground, (0.0, 0.0, 0.0))
    j2 = connect(bpy, g2, ground, (d, 0.0, 0.0))
    gear = couple(bpy, [j1, j2])
    gear.mechanism.mesh = mesh
    assert bpy.ops.mechanism.measure_radii() == {"FINISHED"}
    s = j1.mechanism
    s.motion_type, s.motion_expression = "EXPRESSION", GEAR_DRIVE
    return dict(ground=ground, g1=g1, g2=g2, j1=j1, j2=j2, gear=gear)


def key_own_channels(bpy, ob) -> dict[int, tuple]:
    """The user's own animation of a part, none of it location or rotation: a custom
    property "glow" (0 -> 10), the scale (y, z 0.1 -> 0.3) and the render visibility
    (hidden from frame 13), keyed over FRAME_START..FRAME_END.  Returns frame -> (glow,
    scale, hide_render) as they play, for frames 1, 7, 13 and 25; leaves the scene at
    FRAME_START."""
    ob["glow"] = 0.0
    ob.keyframe_insert('["glow"]', frame=FRAME_START)
    ob["glow"] = 10.0
    ob.keyframe_insert('["glow"]', frame=FRAME_END)
    sy, sz = ob.scale[1], ob.scale[2]
    ob.keyframe_insert("scale", frame=FRAME_START)
    ob.scale[1], ob.scale[2] = 3 * sy, 3 * sz
    ob.keyframe_insert("scale", frame=FRAME_END)
    ob.hide_render = False
    ob.keyframe_insert("hide_render", frame=FRAME_START)
    ob.hide_render = True
    ob.keyframe_insert("hide_render", frame=13)
    plays = {}
    for f in (1, 7, 13, 25):
        bpy.context.scene.frame_set(f)
        plays[f] = (ob["glow"], tuple(ob.scale), ob.hide_render)
    bpy.context.scene.frame_set(FRAME_START)
    return plays


# ---------------------------------------------------------------- what a panel shows
class Layout:
    """Stands in for a panel's layout and records what draw() puts in it, in order:
    ("label", text, icon, alert), ("prop", property name, alert), ("operator", idname);
    ``contexts``: each operator's operator_context as its row had it."""

    def __init__(self, items: list | None = None, contexts: dict | None = None) -> None:
        self.items = [] if items is None else items
        self.contexts = {} if contexts is None else contexts
        self.alert = False
        self.operator_context = "INVOKE_DEFAULT"

    def _child(self, *args, **kw) -> "Layout":
        child = Layout(self.items, self.contexts)
        child.alert, child.operator_context = self.alert, self.operator_context
        return child

    row = column = box = split = _child

    def label(self, text: str = "", icon: str = "NONE", **kw) -> None:
        self.items.append(("label", text, icon, self.alert))

    def prop(self, data, name: str, **kw) -> None:
        self.items.append(("prop", name, self.alert))

    def operator(self, idname: str, **kw):
        from types import SimpleNamespace
        self.items.append(("operator", idname))
        self.contexts[idname] = self.operator_context
        return SimpleNamespace()

    def template_list(self, *args, **kw) -> None:
        self.items.append(("list",) + tuple(a for a in args if isinstance(a, str)))


def panel_layout(bpy, panel: str) -> Layout:
    """The stand-in layout the sidebar panel ``panel`` (its class name) draws into in the
    present context."""
    cls = bpy.types.Panel.bl_rna_get_subclass_py(panel)
    layout = Layout()
    from types import SimpleNamespace
    cls.draw(SimpleNamespace(layout=layout), bpy.context)
    return layout


def panel_items(bpy, panel: str) -> list[tuple]:
    """What the sidebar panel ``panel`` (its class name) draws in the present context."""
    return panel_layout(bpy, panel).items


def panel_labels(bpy, panel: str) -> list[str]:
    """The texts of the labels the panel draws."""
    return [item[1] for item in panel_items(bpy, panel) if item[0] == "label"]


# ---------------------------------------------------------------- reading F-curves
def channelbag(ob, action=None):
    """The channelbag of ``action`` (default: the object's active action) for its slot."""
    from bpy_extras import anim_utils
    ad = ob.animation_data
    act = action or ad.action
    slot = ad.action_slot if act == ad.action else act.slots[0]
    return anim_utils.action_get_channelbag_for_slot(act, slot)


def keys(fcurve) -> np.ndarray:
    """(n, 2) float64 array of (frame, value) of an F-curve's keyframes."""
    co = np.empty(2 * len(fcurve.keyframe_points), dtype=np.float32)
    fcurve.keyframe_points.foreach_get("co", co)
    return co.reshape(-1, 2).astype(float)


def curve(ob, path: str, index: int = 0, action=None) -> np.ndarray:
    """(frame, value) keys of one F-curve of the object's (or ``action``'s) channelbag."""
    fc = channelbag(ob, action).fcurves.find(path, index=index)
    assert fc is not None, f"{ob.name}: no F-curve {path}[{index}]"
    return keys(fc)


def baked_pose(ob) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(frames (n,), location (n, 3), quaternion (n, 4)) keyed by the bake on a part (in its
    bake action, which plays beside any action of the user's)."""
    act = ob.mechanism.bake_action
    loc = [curve(ob, "location", i, act) for i in range(3)]
    quat = [curve(ob, "rotation_quaternion", i, act) for i in range(4)]
    return loc[0][:, 0], np.stack([c[:, 1] for c in loc], 1), np.stack([c[:, 1] for c in quat], 1)


def action_keys(action) -> dict[tuple[str, str, int], list]:
    """Every F-curve of every slot of an action: (slot, path, index) -> keyframe data
    (co, handles, interpolation) as plain Python values."""
    from bpy_extras import anim_utils
    out = {}
    for slot in action.slots:
        bag = anim_utils.action_get_channelbag_for_slot(action, slot)
        for fc in (bag.fcurves if bag is not None else ()):
            out[(slot.identifier, fc.data_path, fc.array_index)] = [
                (tuple(k.co), tuple(k.handle_left), tuple(k.handle_right), k.interpolation)
                for k in fc.keyframe_points]
    return out


DOOR_OPEN, CLOSER_K, CLOSER_C, CLOSER_FREE = 80.0, 20.0, 2.0, -20.0   # deg, N m/rad, N m s/rad, deg


def door(bpy, restitution: float = 0.2) -> dict[str, Any]:
    """A door (box 0.8 x 0.04 x 2, density 600: 38.4 kg) hinged to a ground post about
    world z at the origin (Connect at (0, 0, 1), closed along +x), then opened DOOR_OPEN
    degrees about the hinge; a closer (torsion spring CLOSER_K, CLOSER_C, free angle
    CLOSER_FREE) and a lower stop at 0 (the frame) set on the joint's properties.  Frames
    1-73 (3 s at 24 fps): it swings shut, bounces on the stop and comes to rest by 2.2 s."""
    import math
    from mathutils import Matrix
    set_range(bpy, 1, 73)
    post = add_box(bpy, "post", (0.1, 0.1, 2.0), (-0.06, 0.0, 1.0))
    leaf = add_box(bpy, "door", (0.8, 0.04, 2.0), (0.4, 0.0, 1.0))
    tag(bpy, [post, leaf], "PART")
    post.mechanism.ground = True
    leaf.mechanism.density = 600.0
    hinge = connect(bpy, leaf, post, (0.0, 0.0, 1.0))
    bpy.context.view_layer.update()
    leaf.matrix_world = Matrix.Rotation(math.radians(DOOR_OPEN), 4, "Z") @ leaf.matrix_world
    s = hinge.mechanism
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, CLOSER_K, CLOSER_C
    s.torsion_free_angle = math.radians(CLOSER_FREE)
    s.use_limit_lower, s.limit_lower_angle, s.limit_restitution = True, 0.0, restitution
    return dict(post=post, door=leaf, hinge=hinge)


# ---------------------------------------------------------------- whole-scene snapshot
SETTINGS = ("role", "ground", "mass_mode", "density", "joint_kind", "motion_type",
            "motion_expression", "motion_coordinate", "baked", "coupler_kind", "ratio_mode",
            "radius_a", "radius_b", "pitch_radius", "pitch", "use_limit_lower", "use_limit_upper",
            "limit_lower_angle", "limit_upper_angle", "limit_lower_slide", "limit_upper_slide",
            "use_joint_friction")
DISPLAY = ("computed_mass", "computed_inertia", "computed_center_of_mass", "computed_density",
           "mesh_warning", "backup_rotation_mode", "curve_fit", "curve_fit_key")


def _plain(value):
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "to_list"):
        return value.to_list()
    if hasattr(value, "__len__") and not isinstance(value, str):
        return [_plain(v) for v in value]
    return value


def snapshot(bpy, display: bool = True) -> dict:
    """Everything an operator that fails must leave as it was: per object its world matrix,
    transform channels, rotation mode, custom properties, mechanism settings, action and NLA
    tracks; every action's keyframes; the scene's report and current frame.  ``display``:
    also the mass properties shown in the panel and the hidden bake bookkeeping (a successful
    Bake refreshes these, so a Bake then Clear is compared without them)."""
    bpy.context.view_layer.update()
    obs = {}
    for ob in bpy.data.objects:
        s = ob.mechanism
        ad = ob.animation_data
        obs[ob.name] = dict(
            matrix=[tuple(r) for r in ob.matrix_world],
            basis=(tuple(ob.location), tuple(ob.rotation_euler), tuple(ob.rotation_quaternion),
                   tuple(ob.scale), ob.rotation_mode),
            props={k: _plain(ob[k]) for k in ob.keys() if k != "mechanism"},
            settings={k: _plain(getattr(s, k)) for k in SETTINGS + (DISPLAY if display else ())},
            pointers=tuple(p.name if p is not None else None
                           for p in (s.marker_i, s.marker_j, s.bake_action, s.backup_action,
                                     s.joint_a, s.joint_b, s.joint_c, s.curve, s.follower_curve)),
            parent=ob.parent.name if ob.parent else None,
            action=(ad.action.name if ad and ad.action else None),
            nla=[(t.name, [st.name for st in t.strips]) for t in ad.nla_tracks] if ad else [])
    actions = {a.name: action_keys(a) for a in bpy.data.actions}
    scene = bpy.context.scene
    return dict(objects=obs, actions=actions, report=scene.mechanism.report,
                frame=scene.frame_current)


def differences(a, b, path: str = "") -> list[str]:
    """Paths at which two snapshots differ (for readable assertion messages)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = [f"{path}/{k}: only {'before' if k in a else 'after'}" for k in set(a) ^ set(b)]
        for k in a.keys() & b.keys():
            out += differences(a[k], b[k], f"{path}/{k}")
        return out
    return [] if a == b else [f"{path}: {a!r} -> {b!r}"]


# ---------------------------------------------------------------- curve objects, curve joints
def curve_object(bpy, name: str, kind: str, points, cyclic: bool = False, parent=None,
                 left=None, right=None, weights=None, order: int = 4, endpoint: bool = False):
    """A curve object (at the origin, unrotated) with one spline of ``kind`` ("POLY",
    "BEZIER", "NURBS") through ``points`` (n, 3), Blender units; a Bezier's handles ``left``,
    ``right``; a NURBS's ``weights``, ``order`` and Endpoint option (Bezier knots off).
    ``parent``: the part it is parented to, keeping its place (parent inverse)."""
    points = np.asarray(points, dtype=float)
    data = bpy.data.curves.new(name, "CURVE")
    data.dimensions = "3D"
    sp = data.splines.new(kind)
    if kind == "BEZIER":
        sp.bezier_points.add(len(points) - 1)
        for p, co, a, b in zip(sp.bezier_points, points, left, right):
            p.handle_left_type = p.handle_right_type = "FREE"
            p.co, p.handle_left, p.handle_right = co, a, b
    else:
        sp.points.add(len(points) - 1)
        w = np.ones(len(points)) if weights is None else weights
        for p, co, wk in zip(sp.points, points, w):
            p.co = (*co, wk)
        if kind == "NURBS":
            sp.order_u, sp.use_endpoint_u, sp.use_bezier_u = order, endpoint, False
    sp.use_cyclic_u = cyclic
    ob = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(ob)
    if parent is not None:
        parent_to(bpy, ob, parent)
    return ob


def parent_to(bpy, ob, part) -> None:
    """Parent ``ob`` to ``part`` where it is (Ctrl P, Object: the parent inverse keeps it)."""
    bpy.context.view_layer.update()
    ob.parent = part
    ob.matrix_parent_inverse = part.matrix_world.inverted()


def circle_points(radius: float, centre, n: int) -> np.ndarray:
    """(n, 3) points evenly round a circle in the xy plane, counter-clockwise from +x."""
    a = 2 * np.pi * np.arange(n) / n
    return np.column_stack([centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a),
                            np.full(n, float(centre[2]))])


def straight_bezier(a, b, cyclic: bool = False) -> tuple:
    """(points, left, right) of a straight two-point Bezier from ``a`` to ``b``, its handles
    a third of the way along the line."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = (b - a) / 3.0
    return np.array([a, b]), np.array([a - d, b - d]), np.array([a + d, b + d])


def curve_joint(bpy, name: str, kind: str, marker_i, marker_j, curve=None, follower=None):
    """A Point on Curve or Cam joint Empty: its markers and curve objects set by property."""
    joint = new_joint(bpy, name, kind, marker_i, marker_j)
    joint.mechanism.curve = curve
    joint.mechanism.follower_curve = follower
    return joint


YOKE_R = 0.05                 # crank radius (Blender units at unit scale 1)
YOKE_DRIVE = "4*pi*t"         # two turns in the second


def scotch_yoke(bpy, unit: float = 1.0, kind: str = "BEZIER", plane: str = "XY") -> dict[str, Any]:
    """Scotch yoke in the world xy plane, lengths times ``unit`` (Blender units): a crank
    (box) about world z at the origin driven by YOKE_DRIVE (Connect); a yoke box centred at
    (YOKE_R, 0, 0) on a prismatic joint along world x (Connect, axis X); the crank pin a
    marker on the crank at (YOKE_R, 0, 0); the slot a straight vertical curve through the
    yoke's centre from y = -2 YOKE_R to 2 YOKE_R (a two-point Bezier, or poly), parented to
    the yoke, and a marker on the yoke at its centre (Add Marker); the pin on the slot is a
    Point on Curve joint.  Kinematic (the crank's drive sets everything).  ``plane`` "XZ":
    the same standing in the world xz plane, the crank about world y (Connect, axis Y), the
    slot along world z, the two markers' z along world y (the 3D cursor turned -90 degrees
    about x: float32 rotations, so the slot reads off their xy plane by round-off)."""
    set_range(bpy)
    r = YOKE_R * unit
    up = 1 if plane == "XY" else 2                  # the axis the slot runs along
    ground = add_box(bpy, "frame", (0.02 * unit, 0.02 * unit, 0.02 * unit), (0.0, 0.0, -0.05 * unit))
    crank = add_box(bpy, "crank", (r, 0.01 * unit, 0.01 * unit), (r / 2, 0.0, 0.01 * unit))
    size = [0.02 * unit, 0.01 * unit, 0.01 * unit]
    size[up] = 4 * r
    yoke = add_box(bpy, "yoke", tuple(size), (r, 0.0, 0.0))
    tag(bpy, [ground, crank, yoke], "PART")
    ground.mechanism.ground = True
    spin = connect(bpy, crank, ground, (0.0, 0.0, 0.0), axis="Z" if plane == "XY" else "Y")
    rail = connect(bpy, yoke, ground, (r, 0.0, 0.0), "PRISMATIC", "X")
    if plane != "XY":
        bpy.context.scene.cursor.rotation_euler = (-np.pi / 2, 0.0, 0.0)
    pin = add_marker(bpy, crank, (r, 0.0, 0.0))
    seat = add_marker(bpy, yoke, (r, 0.0, 0.0))
    bpy.context.scene.cursor.rotation_euler = (0.0, 0.0, 0.0)
    a, b = np.zeros(3), np.zeros(3)
    a[0] = b[0] = r
    a[up], b[up] = -2 * r, 2 * r
    if kind == "BEZIER":
        pts, left, right = straight_bezier(a, b)
        slot = curve_object(bpy, "slot", "BEZIER", pts, parent=yoke, left=left, right=right)
    else:
        slot = curve_object(bpy, "slot", "POLY", [a, b], parent=yoke)
    joint = curve_joint(bpy, "pin in slot", "POINT_ON_CURVE", pin, seat, curve=slot)
    s = spin.mechanism
    s.motion_type, s.motion_expression = "EXPRESSION", YOKE_DRIVE
    bpy.context.scene.mechanism.analysis = "KINEMATIC"
    return dict(ground=ground, crank=crank, yoke=yoke, spin=spin, rail=rail, pin=pin, seat=seat,
                slot=slot, joint=joint)


CAM_R, CAM_E, ROLLER_R = 0.05, 0.015, 0.01      # disc radius, eccentricity, roller radius
CAM_POINTS, ROLLER_POINTS = 64, 32


def eccentric_cam(bpy, follower: str = "roller", drive: str = "4*pi*t",
                  profile: str = "POLY") -> dict[str, Any]:
    """An eccentric disc cam in the world xy plane under gravity -9.81 along world y: the
    disc (cylinder of radius CAM_R centred at (CAM_E, 0, 0)) turns about world z at the
    origin (Connect) driven by ``drive``; its profile a cyclic poly circle of CAM_POINTS
    points (``profile`` "POLY") or Blender's Bezier circle primitive ("BEZIER") parented to
    it, and a cam marker at the origin (Add Marker).  The follower, a box
    on a prismatic joint along world y through the axle (Connect, axis Y), carries a roller
    (cyclic poly circle of ROLLER_POINTS, radius ROLLER_R, centred on its marker, which sits
    at the roller's centre touching the disc) or a flat face (a two-point poly line, 0.16
    long, at y = CAM_R: the disc's top, its marker there).  The Cam joint: marker I on the
    follower, marker J on the disc."""
    set_range(bpy)
    scene = bpy.context.scene
    scene.gravity = (0.0, -9.81, 0.0)
    ground = add_box(bpy, "frame", (0.02, 0.02, 0.02), (0.0, 0.0, -0.05))
    disc_ob = disc(bpy, "disc", CAM_R, (CAM_E, 0.0, 0.0))
    y0 = float(np.sqrt((CAM_R + ROLLER_R) ** 2 - CAM_E ** 2)) if follower == "roller" else CAM_R
    tappet = add_box(bpy, "tappet", (0.02, 0.04, 0.02), (0.0, y0 + 0.03, 0.0))
    tag(bpy, [ground, disc_ob, tappet], "PART")
    ground.mechanism.ground = True
    spin = connect(bpy, disc_ob, ground, (0.0, 0.0, 0.0))
    guide = connect(bpy, tappet, ground, (0.0, y0, 0.0), "PRISMATIC", "Y")
    cam_marker = add_marker(bpy, disc_ob, (0.0, 0.0, 0.0))
    face_marker = add_marker(bpy, tappet, (0.0, y0, 0.0))
    if profile == "POLY":
        profile = curve_object(bpy, "profile", "POLY", circle_points(CAM_R, (CAM_E, 0.0, 0.0), CAM_POINTS),
                               cyclic=True, parent=disc_ob)
    else:
        bpy.ops.curve.primitive_bezier_circle_add(radius=CAM_R, location=(CAM_E, 0.0, 0.0))
        profile = bpy.context.active_object
        profile.name = "profile"
        parent_to(bpy, profile, disc_ob)
    if follower == "roller":
        face = curve_object(bpy, "roller", "POLY", circle_points(ROLLER_R, (0.0, y0, 0.0), ROLLER_POINTS),
                            cyclic=True, parent=tappet)
    else:
        face = curve_object(bpy, "face", "POLY", [(-0.08, y0, 0.0), (0.08, y0, 0.0)], parent=tappet)
    cam = curve_joint(bpy, "cam", "CAM", face_marker, cam_marker, curve=profile, follower=face)
    s = spin.mechanism
    s.motion_type, s.motion_expression = "EXPRESSION", drive
    return dict(ground=ground, disc=disc_ob, tappet=tappet, spin=spin, guide=guide, cam=cam,
                profile=profile, face=face, cam_marker=cam_marker, face_marker=face_marker)
