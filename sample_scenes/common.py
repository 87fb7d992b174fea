"""Small helpers the sample scenes share: parts as meshes, markers, joints, springs, a
camera and light, and a Cycles preview render.  They set the same properties the sidebar
sets, so each scene reads as a recipe for building a mechanism by script."""
from __future__ import annotations

import math

import bpy
from mathutils import Euler, Matrix, Vector

# marker orientations: the joint axis is the marker's z axis
AXIS = {"X": Euler((0.0, math.pi / 2, 0.0)), "Y": Euler((-math.pi / 2, 0.0, 0.0)),
        "-Y": Euler((math.pi / 2, 0.0, 0.0)), "Z": Euler((0.0, 0.0, 0.0))}


def new_scene(seconds: float, fps: int = 24) -> bpy.types.Scene:
    """An empty scene whose frame range covers ``seconds`` at ``fps``."""
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = fps
    scene.frame_start = 1
    scene.frame_end = 1 + round(seconds * fps)
    return scene


def _material(name: str, color: tuple) -> bpy.types.Material:
    mat = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    mat.diffuse_color = (*color, 1.0)
    if bpy.app.version < (5, 0, 0):     # 5.0: a new material always uses its node tree
        mat.use_nodes = True
    bsdf = mat.node_tree.nodes.get("Principled BSDF")
    if bsdf is not None:
        bsdf.inputs["Base Color"].default_value = (*color, 1.0)
    return mat


def box(name: str, size: tuple, location: tuple, rotation: tuple = (0, 0, 0), ground: bool = False,
        density: float = 7800.0, color: tuple = (0.6, 0.6, 0.65)) -> bpy.types.Object:
    """A box part of ``size`` (x, y, z) in metres; mass from its mesh and ``density``."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location, rotation=rotation)
    bpy.context.active_object.scale = size
    return _part(name, ground, density, color, rotation=False)


def cylinder(name: str, radius: float, depth: float, location: tuple, axis: str = "Z",
             ground: bool = False, density: float = 7800.0, color: tuple = (0.7, 0.5, 0.2)):
    """A cylinder part with its axis along world ``axis``."""
    bpy.ops.mesh.primitive_cylinder_add(vertices=32, radius=radius, depth=depth, location=location,
                                        rotation=AXIS[axis])
    return _part(name, ground, density, color, rotation=True)


def sphere(name: str, radius: float, location: tuple, density: float = 7800.0,
           color: tuple = (0.7, 0.2, 0.2)) -> bpy.types.Object:
    """A UV sphere part (32 segments, 16 rings) of ``radius`` about ``location``."""
    bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=radius,
                                         location=location)
    bpy.ops.object.shade_smooth()
    return _part(name, False, density, color, rotation=False)


def contact(name: str, part_a, part_b, shape_a: str, shape_b: str, **settings) -> bpy.types.Object:
    """A Contact Empty between two parts (what Add Contact makes), its shapes
    (io/contact_shapes.py: MESH, SPHERE, BOX, CAPSULE, CYLINDER, FLOOR) and ``settings``
    (contact_restitution, contact_friction, ...) set on its properties."""
    ob = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(ob)
    s = ob.mechanism
    s.role, s.contact_part_a, s.contact_part_b = "CONTACT", part_a, part_b
    s.contact_shape_a, s.contact_shape_b = shape_a, shape_b
    for key, value in settings.items():
        setattr(s, key, value)
    return ob


def mesh_part(name: str, verts: list, faces: list, location: tuple, rotation: tuple = (0, 0, 0),
              ground: bool = False, density: float = 7800.0, color: tuple = (0.6, 0.6, 0.65)):
    """A part from a closed mesh given as vertices and faces (outward normals), placed at
    ``location`` with Euler XYZ ``rotation`` (kept on the object: its frame turns with it)."""
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.validate()
    mesh.update()
    ob = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(ob)
    ob.location, ob.rotation_euler = location, rotation
    ob.data.materials.append(_material(name + ".mat", color))
    s = ob.mechanism
    s.role, s.ground, s.density = "PART", ground, density
    return ob


def decoration(name: str, parent, size: tuple, location: tuple, color: tuple,
               rotation: tuple = (0, 0, 0)) -> bpy.types.Object:
    """An untagged box (not part of the mechanism) that rides on ``parent``: a stripe or a
    spoke that makes a turning part's rotation visible."""
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location, rotation=rotation)
    ob = bpy.context.active_object
    ob.name = name
    ob.scale = size
    return _dressed_child(ob, name, color, parent)


def _dressed_child(ob, name: str, color: tuple, parent) -> bpy.types.Object:
    """Give ``ob`` its material and parent it to ``parent`` where it stands (decorations and
    curves ride on their part)."""
    ob.data.materials.append(_material(name + ".mat", color))
    bpy.context.view_layer.update()
    ob.parent = parent
    ob.matrix_parent_inverse = parent.matrix_world.inverted()
    return ob


def _part(name: str, ground: bool, density: float, color: tuple, rotation: bool) -> bpy.types.Object:
    """The active object, its scale (and rotation) applied to the mesh, tagged as a part."""
    ob = bpy.context.active_object
    ob.name = name
    bpy.ops.object.transform_apply(location=False, rotation=rotation, scale=True)
    ob.data.materials.append(_material(name + ".mat", color))
    s = ob.mechanism
    s.role, s.ground, s.density = "PART", ground, density
    return ob


def marker(part: bpy.types.Object, name: str, location: tuple, axis: str = "Z") -> bpy.types.Object:
    """An Empty marker on ``part`` at a world location, z along world ``axis``."""
    bpy.context.view_layer.update()
    mk = bpy.data.objects.new(name, None)
    mk.empty_display_type = "SINGLE_ARROW"
    mk.empty_display_size = 0.15
    bpy.context.scene.collection.objects.link(mk)
    mk.matrix_world = Matrix.Translation(Vector(location)) @ AXIS[axis].to_matrix().to_4x4()
    mk.parent = part
    mk.matrix_parent_inverse = part.matrix_world.inverted()
    mk.mechanism.role = "MARKER"
    return mk


def joint(name: str, kind: str, marker_i, marker_j, motion: str | None = None,
          coordinate: str = "ANGLE", curve=None, follower_curve=None) -> bpy.types.Object:
    """A joint Empty between two markers; ``motion`` an expression of t (rad or m); a Point
    on Curve or Cam joint's curve objects (``curve`` on marker J's part, a cam's
    ``follower_curve`` on marker I's)."""
    ob = bpy.data.objects.new(name, None)
    ob.empty_display_type = "SPHERE"
    ob.empty_display_size = 0.05
    bpy.context.scene.collection.objects.link(ob)
    ob.matrix_world = marker_j.matrix_world.copy()
    s = ob.mechanism
    s.role, s.joint_kind, s.marker_i, s.marker_j = "JOINT", kind, marker_i, marker_j
    s.curve, s.follower_curve = curve, follower_curve
    if motion is not None:
        s.motion_type, s.motion_expression, s.motion_coordinate = "EXPRESSION", motion, coordinate
    return ob


def curve(name: str, kind: str, points: list, parent, cyclic: bool = False,
          rotation: tuple = (0, 0, 0), handles: tuple | None = None, order: int = 4,
          extrude: float = 0.0, bevel: float = 0.0, color: tuple = (0.2, 0.2, 0.22)):
    """A curve object with one spline of ``kind`` (POLY, BEZIER, NURBS: uniform knots, no
    Endpoint, no Bezier knots) through ``points`` (x, y) or (x, y, z) in its local
    coordinates, turned by Euler XYZ ``rotation`` about the world origin, parented to the
    part ``parent`` where it is (it moves with the part).  ``handles``: a Bezier's (left,
    right) lists.  Shown as a solid: ``extrude`` (a flat 2D profile filled and extruded
    this much each way) or ``bevel`` (a tube of this radius)."""
    pts = [tuple(p) + (0.0,) * (3 - len(p)) for p in points]
    data = bpy.data.curves.new(name, "CURVE")
    data.dimensions = "2D" if extrude > 0.0 else "3D"
    sp = data.splines.new(kind)
    if kind == "BEZIER":
        sp.bezier_points.add(len(pts) - 1)
        for p, co, a, b in zip(sp.bezier_points, pts, *handles):
            p.handle_left_type = p.handle_right_type = "FREE"
            p.co, p.handle_left, p.handle_right = co, tuple(a) + (0.0,) * (3 - len(a)), tuple(b) + (0.0,) * (3 - len(b))
    else:
        sp.points.add(len(pts) - 1)
        for p, co in zip(sp.points, pts):
            p.co = (*co, 1.0)
        if kind == "NURBS":
            sp.order_u, sp.use_endpoint_u, sp.use_bezier_u = order, False, False
    sp.use_cyclic_u = cyclic
    sp.resolution_u = 24
    data.extrude, data.bevel_depth = extrude, bevel
    if extrude > 0.0:
        data.fill_mode = "BOTH"
    ob = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(ob)
    ob.rotation_euler = rotation
    return _dressed_child(ob, name, color, parent)


def coupler(name: str, kind: str, joints: list, **settings) -> bpy.types.Object:
    """A coupler Empty tying ``joints`` (fields A, B, C in order) of ``kind`` (GEAR,
    RACK_PINION, SCREW, COUPLER), with its settings (ratio_mode, radius_a, teeth_a, mesh,
    pitch_radius, pitch, scale_a, ...) set as the sidebar sets them (lengths in Blender units)."""
    ob = bpy.data.objects.new(name, None)
    ob.empty_display_type = "CIRCLE"
    ob.empty_display_size = 0.05
    bpy.context.scene.collection.objects.link(ob)
    s = ob.mechanism
    s.role, s.coupler_kind = "COUPLER", kind
    for field, jt in zip(("joint_a", "joint_b", "joint_c"), joints):
        setattr(s, field, jt)
    for key, value in settings.items():
        setattr(s, key, value)
    return ob


def spring(name: str, marker_i, marker_j, **settings) -> bpy.types.Object:
    """A spring-damper Empty between two markers (stiffness, damping, free_length, ...)."""
    ob = bpy.data.objects.new(name, None)
    ob.empty_display_type = "PLAIN_AXES"
    bpy.context.scene.collection.objects.link(ob)
    s = ob.mechanism
    s.role, s.marker_i, s.marker_j = "SPRING", marker_i, marker_j
    if "free_length" in settings:
        s.use_free_length = True
    for key, value in settings.items():
        setattr(s, key, value)
    return ob


def stage(target: tuple, distance: float, elevation: float = 25.0, azimuth: float = -60.0) -> None:
    """A camera looking at ``target`` from ``distance``, a sun, a floor-less world."""
    scene = bpy.context.scene
    el, az = math.radians(elevation), math.radians(azimuth)
    eye = Vector(target) + distance * Vector((math.cos(el) * math.cos(az),
                                              math.cos(el) * math.sin(az), math.sin(el)))
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    scene.collection.objects.link(cam)
    cam.location = eye
    cam.rotation_euler = (Vector(target) - eye).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = Euler((math.radians(40), math.radians(10), math.radians(30)))
    scene.collection.objects.link(sun)
    world = bpy.data.worlds.new("World")
    world.color = (0.05, 0.06, 0.08)
    scene.world = world


def _cycles(scene, size: tuple, samples: int) -> None:
    """Cycles on the CPU, a few samples, no denoising, PNG images of ``size``."""
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    if hasattr(scene.render.image_settings, "media_type"):     # Blender 5.0
        scene.render.image_settings.media_type = "IMAGE"
    scene.render.image_settings.file_format = "PNG"


def render_preview(path: str, frame: int, size: tuple = (320, 240), samples: int = 8) -> None:
    """Cycles on the CPU, a few samples: a small PNG a person can open."""
    scene = bpy.context.scene
    scene.frame_set(frame)
    _cycles(scene, size, samples)
    scene.render.filepath = path
    bpy.ops.render.render(write_still=True)


def render_animation(base: str, seconds: float = 3.0, size: tuple = (320, 240),
                     gif_size: tuple = (240, 180), fps: float = 12.0) -> list[str]:
    """The first ``seconds`` of the baked scene at about ``fps`` (every other frame of a 24
    fps scene) as ``base``.mp4 (H.264, Blender's own FFmpeg output) and ``base``.gif (the
    same frames, smaller, put together by Pillow: a picture a README can show).  The frames
    are rendered once by Workbench (no sampling noise, so the GIF stays small; about 0.1-0.2
    s a frame here, Cycles at 4 samples was 0.05-0.45) as PNGs, then encoded by the
    sequencer of a scratch scene, which is removed.  Returns the files written."""
    import glob
    import os
    import tempfile

    from PIL import Image
    scene = bpy.context.scene
    scene_fps = scene.render.fps / scene.render.fps_base
    step = max(1, round(scene_fps / fps))
    start, end, old_step = scene.frame_start, scene.frame_end, scene.frame_step
    tmp = tempfile.mkdtemp(prefix="ma-frames-")
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "MATERIAL"
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.render.resolution_percentage = 100
    if hasattr(scene.render.image_settings, "media_type"):     # Blender 5.0
        scene.render.image_settings.media_type = "IMAGE"
    scene.render.image_settings.file_format = "PNG"
    scene.render.filepath = os.path.join(tmp, "f")
    scene.frame_end = min(end, start + round(seconds * scene_fps) - 1)
    scene.frame_step = step
    try:
        bpy.ops.render.render(animation=True)
    finally:
        scene.frame_start, scene.frame_end, scene.frame_step = start, end, old_step
    frames = sorted(glob.glob(os.path.join(tmp, "f*.png")))
    _encode_video(frames, base + ".mp4", size, scene_fps / step)
    images = [Image.open(f).convert("RGB").resize(gif_size, Image.LANCZOS) for f in frames]
    write_gif(base + ".gif", images, step / scene_fps)
    for f in frames:
        os.remove(f)
    os.rmdir(tmp)
    return [base + ".mp4", base + ".gif"]


def _encode_video(frames: list[str], path: str, size: tuple, fps: float) -> None:
    """PNG ``frames`` as an H.264 MP4 at ``fps`` through the sequencer of a scratch scene (no
    3D render: the images only), colours as they are (Standard view transform)."""
    import os
    enc = bpy.data.scenes.new("MA encode")
    try:
        ed = enc.sequence_editor_create()
        strips = ed.strips if hasattr(ed, "strips") else ed.sequences    # 5.0 / 4.5
        strip = strips.new_image("frames", frames[0], 1, 1)
        for f in frames[1:]:
            strip.elements.append(os.path.basename(f))
        enc.frame_start, enc.frame_end = 1, len(frames)
        enc.render.fps = max(1, round(fps))
        enc.render.fps_base = enc.render.fps / fps
        enc.render.resolution_x, enc.render.resolution_y = size
        enc.render.resolution_percentage = 100
        enc.view_settings.view_transform = "Standard"
        ims = enc.render.image_settings
        if hasattr(ims, "media_type"):
            ims.media_type = "VIDEO"
        ims.file_format = "FFMPEG"
        enc.render.ffmpeg.format, enc.render.ffmpeg.codec = "MPEG4", "H264"
        enc.render.ffmpeg.constant_rate_factor = "MEDIUM"
        enc.render.use_file_extension = False
        enc.render.filepath = path
        bpy.ops.render.render(animation=True, scene=enc.name)
    finally:
        bpy.data.scenes.remove(enc)


def gif_durations(count: int, seconds: float) -> list[int]:
    """Display times (ms, each a multiple of 10) of ``count`` GIF frames that each show
    ``seconds`` of the scene.  A GIF stores a frame's delay in hundredths of a second, so one
    delay for every frame rounds each (1/12 s: 8 cs, the animation 4% fast); here frame k
    ends at round(100 (k + 1) seconds) cs, so the delays alternate (8, 9, 8, 8, 9, 8, ...)
    and the whole plays ``count * seconds`` to within 5 ms."""
    ends = [round(100 * (k + 1) * seconds) for k in range(count)]
    return [10 * (b - a) for a, b in zip([0] + ends[:-1], ends)]


def write_gif(path: str, images: list, seconds: float) -> None:
    """``images`` (Pillow RGB) as a looping GIF at ``path``, each shown ``seconds``
    (gif_durations), on one palette of 96 colours taken from the middle image, undithered
    (a small file for the README)."""
    from PIL import Image
    palette = images[len(images) // 2].quantize(colors=96, dither=Image.Dither.NONE)
    images = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
    images[0].save(path, save_all=True, append_images=images[1:], loop=0,
                   duration=gif_durations(len(images), seconds), optimize=True)
