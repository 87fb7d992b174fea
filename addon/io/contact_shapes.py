"""A Contact object's shapes as the solver's ``Shape``: a part's closed mesh, or a primitive
fitted to the mesh's bounds in the part frame.

Vertices come in the part frame in metres (the object's local coordinates through the
part's stretch S and the scene's unit scale, io/part_frames.py), faces as triangles.  The
fits use the axis-aligned bounds of the vertices in the part's axes, lo..hi, with centre
c = (lo + hi) / 2 and extents d = hi - lo:

- Box: edges d, centred at c, along the part's axes.
- Sphere: centred at c, radius half the largest extent.
- Cylinder, Capsule: along the part axis of the largest extent (z, then y, on a tie),
  radius half the larger of the two other extents; a cylinder's length is the extent along
  its axis, a capsule's (between its end spheres' centres) that minus two radii (at least 0).
- Profile: the mesh read as an extrusion along the part's z (io/contact_profiles.py: the
  outline of its top faces, holes included, its thickness the z extent), refused with how
  far off it is when it is not a prism along z; the profile's grid cell, its points'
  spacing (m; None: the solver's defaults) and the heights they stand at (``levels``).
- Auto: Sphere for a mesh whose vertices all lie on one sphere about the bounds' centre
  (a UV or ico sphere: its exact surface, not its facets), Box for a mesh that is the box
  of its bounds (every triangle in one of their faces, covering them: a cube, however
  scaled or cut), Profile for another mesh that is a prism along the part's z, Mesh
  otherwise.  A box is not read as a Profile: a profile's flat ends carry no contact
  points, so a box resting on its end would sink to its points' lower row.
- Floor (a ground part): the solid below the horizontal plane through the mesh's highest
  vertex along world +z, at the part's design pose (the half-space's normal is world +z in
  the part's axes).  Add Contact gives it to a ground part whose top is flat and level
  (``flat_top``), a slab or a plane; a tilted or shaped ground part (a ramp, a bowl) gets
  Auto.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...solver import MechanismError, Shape, quat_to_matrix
from .contact_profiles import is_prism, prism_outline
from .kept import Kept, digest

CONTACT_SHAPES = [
    ("MESH", "Mesh", "The part's evaluated mesh (closed), its distance grid of Grid Cells cells"),
    ("SPHERE", "Sphere", "A sphere fitted to the mesh's bounds: centred in them, radius half "
                         "the largest extent"),
    ("BOX", "Box", "The box of the mesh's bounds along the part's axes"),
    ("CAPSULE", "Capsule", "A capsule along the bounds' longest axis, radius half the larger "
                           "other extent"),
    ("CYLINDER", "Cylinder", "A cylinder along the bounds' longest axis, radius half the "
                             "larger other extent"),
    ("FLOOR", "Floor", "A ground part only: the solid below the horizontal plane through the "
                       "mesh's top (world up)"),
    ("PROFILE", "Profile", "The mesh as an extruded outline: a prism along the part's z, its "
                           "top faces' outline (holes included) over its z extent"),
    ("AUTO", "Auto", "Sphere for a mesh whose vertices lie on a sphere, Profile for a prism "
                     "along the part's z, else Mesh"),
]
SHAPE_LABELS = {key: label for key, label, _ in CONTACT_SHAPES}

# a quaternion (w, x, y, z) turning the shape's z axis onto the part's x, y or z axis
_TURN_Z_TO = (np.array([np.sqrt(0.5), 0.0, np.sqrt(0.5), 0.0]),
              np.array([np.sqrt(0.5), -np.sqrt(0.5), 0.0, 0.0]),
              np.array([1.0, 0.0, 0.0, 0.0]))


# a Mesh shape's distance grid takes seconds to build for a few thousand triangles: the
# Shapes of the meshes read last are kept (a Shape is immutable) and given again for the
# same vertices, triangles and cells, so that Check, Bake and Drag do not build it anew
MESH_CACHE_SIZE = 16
_mesh_shapes = Kept(MESH_CACHE_SIZE)
_prisms = Kept(MESH_CACHE_SIZE)        # Auto's answer for the meshes read last, the same way


@dataclass(frozen=True)
class ProfileSettings:
    """A Profile side's grid cell and points' spacing (m; None: the solver's defaults, a
    cell of 1/128 of the profile refined to its edges and points a cell apart) and the
    number of heights its points stand at (``levels``)."""
    cell: float | None = None
    spacing: float | None = None
    levels: int = 2


def mesh_shape(vertices: np.ndarray, faces: np.ndarray, cells: int) -> Shape:
    """``Shape.mesh(vertices, faces, cells)``, the same Shape object (its grid built once)
    for the same numbers as one of the last MESH_CACHE_SIZE meshes asked for."""
    V = np.ascontiguousarray(vertices, dtype=float)
    F = np.ascontiguousarray(faces, dtype=np.int64)
    return _mesh_shapes.get(("mesh", digest(V, F), int(cells)),
                            lambda: Shape.mesh(V, F, cells=cells))


def profile_shape(vertices: np.ndarray, faces: np.ndarray, settings: ProfileSettings,
                  what: str) -> Shape:
    """``Shape.profile`` of the mesh read as a prism along the part's z (its outline, its
    thickness hi - lo, centred at z = (lo + hi) / 2), kept as ``mesh_shape`` keeps its
    Shapes; a mesh that is not a prism refused naming ``what``."""
    V = np.ascontiguousarray(vertices, dtype=float)
    F = np.ascontiguousarray(faces, dtype=np.int64)
    key = ("profile", digest(V, F), settings)

    def make() -> Shape:
        loops, lo, hi = prism_outline(V, F, what)
        return Shape.profile(loops, hi - lo, (0.0, 0.0, 0.5 * (lo + hi)), cell=settings.cell,
                             spacing=settings.spacing, levels=settings.levels)
    return _mesh_shapes.get(key, make)


# a mesh is a sphere to Auto when its vertices' distances from the bounds' centre agree to
# SPHERE_SPREAD of the radius (Blender's float32 coordinates: about 1e-7; a sphere scaled
# 1% off along one axis: 1e-2) and its facets' centres lie within FACETS of it (a UV sphere
# of 32 segments: 1.3%; a cube's vertices lie on a sphere too, its faces' centres 36% in)
SPHERE_SPREAD, FACETS = 1e-4, 0.02
# a ground part's top is flat and level when the triangles within LEVEL of its size of the
# highest vertex cover all of its upward-facing triangles' area seen from above (to TOP)
LEVEL, TOP = 1e-6, 1e-3


def is_sphere(vertices: np.ndarray, triangles: np.ndarray) -> bool:
    """Whether a mesh is a faceted sphere: every vertex (n, 3) on one sphere about the
    bounds' centre (to SPHERE_SPREAD of its radius) and every triangle's centre within
    FACETS of the radius inside it."""
    V = np.asarray(vertices, dtype=float)
    F = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if len(V) < 6 or not len(F):
        return False
    centre = 0.5 * (V.min(axis=0) + V.max(axis=0))
    d = np.sqrt(((V - centre) ** 2).sum(axis=1))
    radius = d.max()
    if not (radius > 0.0 and d.min() >= (1.0 - SPHERE_SPREAD) * radius):
        return False
    facet = V[F].mean(axis=1) - centre
    return bool(np.sqrt((facet ** 2).sum(axis=1)).min() >= (1.0 - FACETS) * radius)


# a mesh is a box to Auto when each triangle's vertices lie within BOX_PLANE of its size of
# one face plane of its bounds (Blender's float32 coordinates: about 1e-7) and the triangles'
# area is the bounds' surface to BOX_AREA (the faces covered, each once)
BOX_PLANE, BOX_AREA = 1e-6, 1e-6


def is_box(vertices: np.ndarray, triangles: np.ndarray) -> bool:
    """Whether a mesh, its vertices (n, 3) in the part frame, is the box of its bounds along
    the part's axes: every triangle in one face plane of the bounds (to BOX_PLANE of their
    largest extent) and their areas summing to the bounds' surface (to BOX_AREA), each
    extent positive."""
    V = np.asarray(vertices, dtype=float)
    F = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if len(V) < 8 or not len(F):
        return False
    lo, hi = V.min(axis=0), V.max(axis=0)
    d = hi - lo
    tol = BOX_PLANE * float(d.max())
    if not np.all(d > tol):
        return False
    T = V[F]
    on_face = (np.all(np.abs(T - lo) <= tol, axis=1) | np.all(np.abs(T - hi) <= tol, axis=1))
    if not np.all(on_face.any(axis=1)):
        return False
    area = 0.5 * np.linalg.norm(np.cross(T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]), axis=1).sum()
    surface = 2.0 * (d[0] * d[1] + d[1] * d[2] + d[2] * d[0])
    return bool(abs(area - surface) <= BOX_AREA * surface)


def flat_top(world: np.ndarray, triangles: np.ndarray) -> bool:
    """Whether a mesh, its vertices (n, 3) in world axes, has a flat and level top: its
    triangles at the highest vertex's height (to LEVEL of its size) cover, seen from above,
    the area of all its upward-facing triangles (to TOP): a slab, a plane; not a tilted
    ramp (its top one edge), a bowl (its rim) or a slab with a boss."""
    V = np.asarray(world, dtype=float)
    F = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    if not len(V) or not len(F):
        return False
    tol = LEVEL * max(float((V.max(axis=0) - V.min(axis=0)).max()), 1e-300)
    T = V[F]
    a, b = T[:, 1] - T[:, 0], T[:, 2] - T[:, 0]
    seen = 0.5 * (a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])    # signed area from above
    level = np.all(T[:, :, 2] >= V[:, 2].max() - tol, axis=1)
    up = np.abs(seen[level]).sum()
    return bool(up > 0.0 and up >= (1.0 - TOP) * seen[seen > 0.0].sum())


def resolved_kind(kind: str, vertices: np.ndarray | None, faces: np.ndarray | None) -> str:
    """The shape ``kind`` a side uses: Auto resolved to Sphere for a faceted sphere
    (``is_sphere``), to Box for a box (``is_box``), to Profile for another mesh that is a
    prism along the part's z (io/contact_profiles.py), else to Mesh; the others as they
    are."""
    if kind != "AUTO":
        return kind
    if vertices is None or not len(vertices) or faces is None or not len(faces):
        return "MESH"
    if is_sphere(vertices, faces):
        return "SPHERE"
    if is_box(vertices, faces):
        return "BOX"
    V = np.ascontiguousarray(vertices, dtype=float)
    F = np.ascontiguousarray(faces, dtype=np.int64)
    return "PROFILE" if _prisms.get(digest(V, F), lambda: is_prism(V, F)) else "MESH"


# a Profile stands on an end face when its axis is within 45 deg of a Floor's normal: its
# end rim, not its side, is then what comes down on the Floor
END_ON = np.sqrt(0.5)


def end_sink(profile: Shape, rotation: np.ndarray, floor: Shape, floor_rotation: np.ndarray
             ) -> float:
    """m: how far a Profile side standing on an end face on a Floor sinks into it before
    its lowest row of points (the middle of its lowest slab, a profile's flat ends carrying
    none) reaches the Floor, half its thickness over its levels times the cosine of its
    tilt; 0 unless it stands on an end (its axis within 45 deg of the Floor's normal).
    ``rotation`` and ``floor_rotation`` (3, 3): each part's axes in world axes at the
    design pose."""
    axis = rotation @ quat_to_matrix(profile.orientation)[:, 2]
    normal = floor_rotation @ quat_to_matrix(floor.orientation)[:, 2]
    tilt = abs(float(axis @ normal))
    half, _, levels = profile.params
    return half / levels * tilt if tilt >= END_ON else 0.0


def shared_pair_notes(contacts: list[tuple[str, str, str]]) -> list[str]:
    """One note per pair of parts that more than one contact joins, from ``contacts``
    [(contact, part a, part b)], either order: each contact pushes with its own force, so
    theirs add (twice the stiffness, each baked force a share of the whole), which a
    second Add Contact on the same parts makes by mistake."""
    by_pair: dict[frozenset, list[str]] = {}
    for name, a, b in contacts:
        by_pair.setdefault(frozenset((a, b)), []).append(name)
    return [f"contacts {', '.join(map(repr, names))} all join parts "
            f"{' and '.join(map(repr, sorted(pair)))}: their forces add (each its own "
            "stiffness, each baked force a share): keep one, or delete the others"
            for pair, names in by_pair.items() if len(names) > 1]


def part_vertices(local: np.ndarray, stretch: np.ndarray, scale: float) -> np.ndarray:
    """(n, 3) m: mesh vertices ``local`` (n, 3) in the object's local coordinates (Blender
    units) in the part frame, S @ v times ``scale`` (metres per Blender unit)."""
    return np.asarray(local, dtype=float) @ np.asarray(stretch, dtype=float).T * scale


def outward_faces(faces: np.ndarray, stretch: np.ndarray) -> np.ndarray:
    """(f, 3) triangles wound counter-clockwise seen from outside in the part frame: a
    negative scale (det S < 0) mirrors the mesh, which turns its winding, so it is turned
    back."""
    faces = np.asarray(faces, dtype=int).reshape(-1, 3)
    return faces[:, ::-1].copy() if np.linalg.det(stretch) < 0.0 else faces


def _long_axis(extents: np.ndarray) -> int:
    """The index of the largest extent, z then y then x on a tie (to 1e-9 of it)."""
    top = extents.max()
    return next(k for k in (2, 1, 0) if extents[k] >= top * (1.0 - 1e-9))


def fitted_shape(kind: str, vertices: np.ndarray, faces: np.ndarray, up: np.ndarray,
                 cells: int, profile: ProfileSettings = ProfileSettings(),
                 what: str = "profile") -> Shape:
    """The solver Shape of ``kind`` (a CONTACT_SHAPES key but Auto) for a mesh of
    ``vertices`` (n, 3) m and triangle ``faces`` in the part frame; ``up`` (3,) world +z in
    the part's axes (Floor); ``cells`` a Mesh's grid cells along its largest extent;
    ``profile`` a Profile's settings (its errors naming ``what``)."""
    V = np.asarray(vertices, dtype=float)
    if kind == "MESH":
        return mesh_shape(V, faces, cells)
    if kind == "PROFILE":
        return profile_shape(V, faces, profile, what)
    if kind == "FLOOR":
        n = np.asarray(up, dtype=float)
        return Shape.half_space(V[np.argmax(V @ n)], n)
    lo, hi = V.min(axis=0), V.max(axis=0)
    c, d = 0.5 * (lo + hi), hi - lo
    if kind == "BOX":
        return Shape.box(d, c)
    if kind == "SPHERE":
        return Shape.sphere(0.5 * d.max(), c)
    k = _long_axis(d)
    radius = 0.5 * max(d[j] for j in range(3) if j != k)
    if kind == "CYLINDER":
        return Shape.cylinder(radius, d[k], c, _TURN_Z_TO[k])
    return Shape.capsule(radius, max(d[k] - 2.0 * radius, 0.0), c, _TURN_Z_TO[k])


def contact_shape(what: str, kind: str, vertices: np.ndarray | None, faces: np.ndarray | None,
                  up: np.ndarray, cells: int, ground: bool,
                  profile: ProfileSettings = ProfileSettings(),
                  nearest: Callable[[np.ndarray], np.ndarray] | None = None) -> Shape:
    """``fitted_shape`` with every error naming ``what`` ("contact 'c': Shape A, part
    'p'"): no mesh to fit, a Floor on a moving part, a flat mesh, an open mesh (the
    solver's check, its open edge named), a Profile's mesh that is not a prism along z
    (how far off) or a cell too coarse for its outline; ``kind`` Auto already resolved
    (``resolved_kind``); ``nearest``: a Mesh's distances to its surface for its grid
    (Shape.prepare: the add-on's BVH tree), None: the solver's own."""
    if kind == "FLOOR" and not ground:
        raise MechanismError(f"{what}: Floor is for a ground part; pick Box or Mesh for a part "
                             "that moves")
    if vertices is None or len(vertices) == 0:
        raise MechanismError(f"{what}: the part has no mesh to take the shape from: make it a "
                             "mesh object")
    try:
        shape = fitted_shape(kind, vertices, faces, up, cells, profile, what)
        shape.prepare(f"{what} mesh", nearest)
    except MechanismError as exc:
        text = str(exc)
        raise MechanismError(text if text.startswith(what) else f"{what}: {text}") from None
    return shape
