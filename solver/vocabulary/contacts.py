"""Contact between two parts: the shapes a user gives each side (``Shape``), the contact's
force law and friction (``Contact``), validated as they are added.

Shapes are in their part's frame (m): a sphere, a box, a capsule, a cylinder, a half-space
and a closed triangle mesh (kernels/contacts.py has the force law and the geometry's use;
base/shapes.py and base/sdf_grid.py the distances).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..base.errors import MechanismError, whole_number
from ..base.profile_grid import boundary_samples, closed_loops, fine_enough
from ..base.profile_grid import ProfileGrid
from ..base.sdf_grid import CELLS, Grid, build_grid, check_mesh, surface_samples
from ..base.shapes import box_corners, box_mesh, cylinder_rims
from .validate import number, quaternion, vector

SHAPE_KINDS = ("sphere", "capsule", "box", "cylinder", "half-space", "cavity", "mesh",
               "profile")
NO_POINTS = ("half-space", "cavity")     # kinds whose surface offers no contact points
RIM_POINTS = 12          # points on each rim of a cylinder


@dataclass(frozen=True)
class Shape:
    """A contact shape in its part's frame: ``kind`` (SHAPE_KINDS), its parameters (m;
    see the constructors), its frame's position and orientation (w, x, y, z) in the part
    frame; a mesh carries its vertices, faces and built distance grid.  Made by the
    constructors ``Shape.sphere``, ``box``, ``capsule``, ``cylinder``, ``half_space``,
    ``mesh`` and ``profile``."""
    kind: str
    params: tuple
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    orientation: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 0.0]))
    vertices: np.ndarray | None = None
    faces: np.ndarray | None = None
    loops: tuple | None = None         # a profile's polygons (k, 2), m
    spacing: float | None = None       # a box's, mesh's or capsule's contact points this far apart, m
    _built: dict = field(default_factory=dict, compare=False, repr=False)   # a mesh's grid

    @property
    def grid(self) -> Grid | ProfileGrid | None:
        """A mesh's or profile's signed-distance grid once ``prepare`` has built it (None
        before, and for the other kinds)."""
        return self._built.get("grid")

    def prepare(self, what: str, nearest: Callable[[np.ndarray], np.ndarray] | None = None
                ) -> None:
        """A mesh's checks (closed and consistently wound: MechanismError naming ``what``
        and an open edge) and its distance grid, or a profile's grid (refused, naming
        ``what``, where it cannot follow the profile's edges), built once however many
        contacts use it.  ``nearest``: a mesh's distance to its surface of points (k, 3)
        in the part frame (unsigned, m) to build its grid with, instead of the exact numpy
        computation (the add-on gives Blender's BVH tree's)."""
        if self.kind not in ("mesh", "profile") or "grid" in self._built:
            return
        if self.kind == "profile":
            cell = self.params[1] or None
            self._built["grid"] = fine_enough(list(self.loops), self.params[0], cell, what)
            return
        check_mesh(self.vertices, self.faces, what)
        try:
            self._built["grid"] = build_grid(self.vertices, self.faces, self.params[0], nearest)
        except MechanismError as exc:
            raise MechanismError(f"{what}: {exc}") from None

    @staticmethod
    def sphere(radius: float, center: Any = (0.0, 0.0, 0.0), inverted: bool = False) -> "Shape":
        """A sphere of ``radius`` (m) about ``center`` (part frame); ``inverted``: the
        solid around a spherical hole of that radius instead (a bowl's or socket's inside,
        which other shapes touch from within; it offers no points, as a half-space)."""
        kind = "cavity" if inverted else "sphere"
        return Shape(kind, (_size(radius, "sphere radius"),), vector(center, 3, "sphere center"))

    @staticmethod
    def box(size: Any, center: Any = (0.0, 0.0, 0.0),
            orientation: Any = (1.0, 0.0, 0.0, 0.0), spacing: float | None = None) -> "Shape":
        """A box of full edge lengths ``size`` (sx, sy, sz) (m) along its axes, centred at
        ``center``, turned by ``orientation`` (part frame).  It touches another box,
        cylinder or mesh with its corners, or with ``spacing`` (m) with points on its
        faces that far apart (as a mesh's)."""
        s = vector(size, 3, "box size")
        if not np.all(s > 0.0):
            raise MechanismError(f"box size must be three positive lengths, got {tuple(s)}")
        return Shape("box", tuple(0.5 * s), vector(center, 3, "box center"),
                     quaternion(orientation, "box orientation"),
                     spacing=_spacing(spacing, float(s.max()), "box"))

    @staticmethod
    def capsule(radius: float, length: float, center: Any = (0.0, 0.0, 0.0),
                orientation: Any = (1.0, 0.0, 0.0, 0.0), spacing: float | None = None
                ) -> "Shape":
        """A capsule: the segment of ``length`` (m, between the end spheres' centres)
        along its z axis swept by a sphere of ``radius``.  Against a box, cylinder,
        profile or capsule it touches exactly along its axis, with the axis point nearest
        the other shape and the end farther from it (model/contact_model.py); against a
        half-space, an inverted sphere or a mesh with its two end spheres (exact where an
        end is the nearest point of its axis: on a floor).  With ``spacing`` (m) it
        touches any shape with sphere centres along its axis that far apart at most, the
        two end spheres' stiffness shared evenly among them."""
        r = _size(radius, "capsule radius")
        half = 0.5 * _size(length, "capsule length", zero=True)
        return Shape("capsule", (r, half), vector(center, 3, "capsule center"),
                     quaternion(orientation, "capsule orientation"),
                     spacing=_spacing(spacing, 2.0 * (half + r), "capsule"))

    @staticmethod
    def cylinder(radius: float, length: float, center: Any = (0.0, 0.0, 0.0),
                 orientation: Any = (1.0, 0.0, 0.0, 0.0)) -> "Shape":
        """A solid cylinder of ``radius`` and ``length`` (m) along its z axis."""
        return Shape("cylinder", (_size(radius, "cylinder radius"),
                                  0.5 * _size(length, "cylinder length")),
                     vector(center, 3, "cylinder center"),
                     quaternion(orientation, "cylinder orientation"))

    @staticmethod
    def half_space(point: Any = (0.0, 0.0, 0.0), normal: Any = (0.0, 0.0, 1.0)) -> "Shape":
        """The solid below the plane through ``point`` with outward ``normal`` (part
        frame): a floor, a wall."""
        n = vector(normal, 3, "half-space normal")
        size = float(np.linalg.norm(n))
        if size < 1e-12:
            raise MechanismError("half-space normal must not be zero")
        return Shape("half-space", (), vector(point, 3, "half-space point"), _turn_z_to(n / size))

    @staticmethod
    def mesh(vertices: Any, faces: Any, cells: int = CELLS,
             spacing: float | None = None) -> "Shape":
        """A closed triangle mesh (vertices (n, 3) m, part frame; faces (f, 3) vertex
        indices, wound counter-clockwise seen from outside): checked, and its
        signed-distance grid of ``cells`` cells along its largest extent built, when a
        contact first uses it (``prepare``).  It touches another mesh, box or cylinder
        with its vertices and face centroids, or with ``spacing`` (m) those of its faces
        cut to triangles no longer than that (an edge crossing another between vertices
        is then felt)."""
        try:
            V = np.array(vertices, dtype=float).reshape(-1, 3)
            F = np.array(faces, dtype=int).reshape(-1, 3)
        except (TypeError, ValueError):
            raise MechanismError("mesh vertices must be (n, 3) numbers and faces (f, 3) "
                                 "vertex indices (triangles)") from None
        if not np.all(np.isfinite(V)):
            raise MechanismError("mesh vertices have a NaN or infinite value")
        cells = whole_number(cells, "mesh cells")
        if not 4 <= cells <= 256:
            raise MechanismError(f"mesh cells must be between 4 and 256, got {cells}")
        return Shape("mesh", (cells,), vertices=V, faces=F,
                     spacing=_spacing(spacing, float(np.ptp(V, axis=0).max()), "mesh"))

    @staticmethod
    def profile(loops: Any, thickness: float, center: Any = (0.0, 0.0, 0.0),
                orientation: Any = (1.0, 0.0, 0.0, 0.0), cell: float | None = None,
                spacing: float | None = None, levels: int = 2) -> "Shape":
        """An extruded planar profile: ``loops``, one closed polygon (k, 2) or a list of
        them (an outer boundary and its holes, either orientation: a point is inside when
        a line from it crosses the edges an odd number of times) in the shape's xy plane
        (m), extruded over ``thickness`` (m) along z, centred on z = 0; placed at
        ``center``, turned by ``orientation`` (part frame).  Its signed distance comes
        from a 2-D grid of ``cell`` (m; by default 1/128 of the profile's largest extent,
        refined until the grid meets the edges within a thousandth of it; a given cell
        too coarse for the profile's features is refused with the cell that would do).
        It touches with points along its edges no farther apart than ``spacing`` (m; by
        default the cell), every vertex among them, at ``levels`` heights (the middles of
        equal slabs of the thickness); its flat end faces carry no points."""
        what = "profile"
        polys = closed_loops(loops, what)
        half = 0.5 * _size(thickness, "profile thickness")
        size = float(np.ptp(np.concatenate(polys), axis=0).max())
        if cell is not None and _size(cell, "profile cell") < size / 4096:
            raise MechanismError(f"profile cell {cell:g} m is below 1/4096 of its size "
                                 f"{size:g} m")
        levels = whole_number(levels, "profile levels")
        if not 1 <= levels <= 8:
            raise MechanismError(f"profile levels must be between 1 and 8, got {levels}")
        return Shape("profile", (half, 0.0 if cell is None else float(cell), levels),
                     vector(center, 3, "profile center"),
                     quaternion(orientation, "profile orientation"),
                     loops=tuple(polys), spacing=_spacing(spacing, size, "profile"))

    def samples(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(points (k, 3) in the shape frame, weights (k,) summing to 1 over surface points,
        1 each for a sphere's or capsule's centres, the points' radius): the points that
        touch the other side's surface (a sphere: its centre with its radius; a capsule:
        its end spheres' centres, from which the contact model makes the points that
        slide along its axis, or centres along its axis with ``spacing``; a box: its
        corners; a cylinder: its rims; a mesh: its
        vertices and face centroids by area; a half-space, an inverted sphere: none)."""
        if self.kind == "sphere":
            return np.zeros((1, 3)), np.ones(1), self.params[0]
        if self.kind == "capsule":
            return capsule_centres(self.params[1], self.spacing) + (self.params[0],)
        if self.kind == "box" and self.spacing is not None:
            pts, w = surface_samples(*box_mesh(np.array(self.params)), self.spacing)
            return pts, w, 0.0
        if self.kind == "box":
            return box_corners(np.array(self.params)), np.full(8, 1.0 / 8.0), 0.0
        if self.kind == "cylinder":
            pts = cylinder_rims(self.params[0], self.params[1], RIM_POINTS)
            return pts, np.full(len(pts), 1.0 / len(pts)), 0.0
        if self.kind == "mesh":
            pts, w = surface_samples(self.vertices, self.faces, self.spacing)
            return pts, w, 0.0
        if self.kind == "profile":
            spacing = self.spacing or self.grid.cell
            pts, w = boundary_samples(list(self.loops), self.params[0], spacing, self.params[2])
            return pts, w, 0.0
        return np.zeros((0, 3)), np.zeros(0), 0.0

    def bounding_sphere(self) -> tuple[np.ndarray, float]:
        """(centre (3,) in the shape frame, radius m) of a sphere holding the whole shape
        (a half-space, an inverted sphere: infinite), for the contacts' pair test."""
        p = self.params
        if self.kind == "profile":
            pts = np.concatenate(self.loops)
            c = np.r_[0.5 * (pts.min(axis=0) + pts.max(axis=0)), 0.0]
            return c, float(np.hypot(np.linalg.norm(pts - c[:2], axis=1).max(), p[0]))
        if self.kind == "mesh":
            lo, hi = self.vertices.min(axis=0), self.vertices.max(axis=0)
            c = 0.5 * (lo + hi)
            return c, float(np.linalg.norm(self.vertices - c, axis=1).max())
        radius = {"sphere": lambda: p[0], "capsule": lambda: p[0] + p[1],
                  "box": lambda: float(np.linalg.norm(p)), "cylinder": lambda: math.hypot(*p),
                  "half-space": lambda: math.inf, "cavity": lambda: math.inf}[self.kind]()
        return np.zeros(3), radius

    def thickness(self) -> float:
        """The shape's least extent through it (m; a mesh's or a profile's: its bounding
        box's), which another shape must not cross within one step of a dynamic run (a
        half-space, an inverted sphere: infinite)."""
        p = self.params
        if self.kind in ("mesh", "profile"):
            pts = self.vertices if self.kind == "mesh" else np.concatenate(self.loops)
            least = float(np.min(pts.max(axis=0) - pts.min(axis=0)))
            return least if self.kind == "mesh" else min(least, 2.0 * p[0])
        if self.kind in ("half-space", "cavity"):
            return math.inf
        return 2.0 * float(min(p[:1] if self.kind in ("sphere", "capsule") else p))

    @property
    def rounded(self) -> bool:
        """A sphere or capsule: its samples are centres with a radius (exact contact)."""
        return self.kind in ("sphere", "capsule")


def _size(value: Any, what: str, zero: bool = False) -> float:
    x = number(value, what)
    if not (x > 0.0 or (zero and x == 0.0)):
        raise MechanismError(f"{what} must be {'non-negative' if zero else 'positive'}, got {x}")
    return x


def capsule_centres(half: float, spacing: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(centres (k, 3) along the capsule's z axis, shares (k,)) of a capsule of half
    length ``half`` (m): its two end centres, 1 each (K per end sphere); with ``spacing``
    the fewest evenly spaced centres from end to end no farther apart than it, each
    2 / k (the two end spheres' stiffness spread along the axis)."""
    if spacing is None or half == 0.0:
        return np.array([[0.0, 0.0, -half], [0.0, 0.0, half]]), np.ones(2)
    k = max(int(math.ceil(2.0 * half / spacing - 1e-9)) + 1, 2)
    z = np.linspace(-half, half, k)
    return np.column_stack([np.zeros(k), np.zeros(k), z]), np.full(k, 2.0 / k)


def _spacing(value: Any, size: float, what: str) -> float | None:
    """A contact points' spacing (m), or None; at least a thousandth of the shape's size
    (a finer one makes millions of points)."""
    if value is None:
        return None
    x = _size(value, f"{what} spacing")
    if x < 1e-3 * size:
        raise MechanismError(f"{what} spacing {x:g} m is below a thousandth of its size "
                             f"{size:g} m (millions of contact points)")
    return x


def _turn_z_to(n: np.ndarray) -> np.ndarray:
    """A unit quaternion turning +z onto the unit vector n."""
    w = 1.0 + float(n[2])
    if w < 1e-12:
        return np.array([0.0, 1.0, 0.0, 0.0])
    q = np.array([w, -float(n[1]), float(n[0]), 0.0])
    return q / np.linalg.norm(q)


@dataclass
class Contact:
    """A contact between parts a and b: their shapes, and the force law (kernels/contacts.py):
    stiffness K (N/m^n per sphere or per side's whole surface), exponent n, restitution e,
    or a time constant (s) from which K is made, Young's moduli (Pa) and Poisson's ratios
    per side (Hertz); friction coefficients and the slip speed (m/s) of its regularization."""
    name: str
    part_a: str
    part_b: str
    shape_a: Shape
    shape_b: Shape
    restitution: float
    stiffness: float | None
    exponent: float
    time_constant: float | None
    young: tuple[float, float] | None
    poisson: tuple[float, float]
    static: float
    dynamic: float
    slip_speed: float


def _positive(value: Any, what: str) -> float:
    x = number(value, what)
    if not x > 0.0:
        raise MechanismError(f"{what} must be positive, got {x}")
    return x


def _pair(value: Any, what: str) -> tuple[float, float]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = (value, value)
    v = vector(value, 2, what)
    return float(v[0]), float(v[1])


TIME_CONSTANT = 0.01     # s: the default contact's duration (linear spring, mass ratio)


def make_contact(name: str, parts: dict, part_a: str, part_b: str, shape_a: Any, shape_b: Any,
                 restitution: Any, stiffness: Any, exponent: Any, time_constant: Any,
                 young: Any, poisson: Any, friction: Any, dynamic_friction: Any,
                 slip_speed: Any) -> Contact:
    """A validated Contact; every error names the contact."""
    what = f"contact {name!r}"
    for label, part in (("part_a", part_a), ("part_b", part_b)):
        if part not in parts:
            raise MechanismError(f"{what}: {label} {part!r} is not a part")
    if part_a == part_b:
        raise MechanismError(f"{what}: part {part_a!r} is both sides; a contact is between two "
                             "different parts")
    if parts[part_a].fixed and parts[part_b].fixed:
        raise MechanismError(f"{what}: parts {part_a!r} and {part_b!r} are both fixed")
    for label, shape in (("shape_a", shape_a), ("shape_b", shape_b)):
        if not isinstance(shape, Shape):
            raise MechanismError(f"{what}: {label} must be a Shape (Shape.sphere, box, capsule, "
                                 f"cylinder, half_space, mesh, profile), got {type(shape).__name__}")
    for label, shape in (("shape_a", shape_a), ("shape_b", shape_b)):
        shape.prepare(f"{what}: {label} {shape.kind}")
    if shape_a.kind in NO_POINTS and shape_b.kind in NO_POINTS:
        raise MechanismError(f"{what}: two half-spaces or inverted spheres have no points to "
                             "touch each other")
    try:
        e = number(restitution, f"{what}: restitution")
        if not 0.0 < e <= 1.0:
            raise MechanismError(f"{what}: restitution must be in (0, 1], got {e}")
        modes = [x is not None for x in (stiffness, time_constant, young)]
        if sum(modes) > 1:
            raise MechanismError(f"{what}: give one of stiffness, time_constant or young "
                                 "(Young's moduli), not several")
        K = None if stiffness is None else _positive(stiffness, f"{what}: stiffness")
        tau = None if time_constant is None else _positive(time_constant, f"{what}: time_constant")
        E = None if young is None else _pair(young, f"{what}: young")
        nu = _pair(poisson, f"{what}: poisson")
        if E is not None:
            if min(E) <= 0.0:
                raise MechanismError(f"{what}: young must be positive, got {E}")
            if not (shape_a.rounded or shape_b.rounded):
                raise MechanismError(f"{what}: Hertz stiffness from young needs a sphere or a "
                                     "capsule on one side; give stiffness or time_constant")
        if not all(-1.0 < x < 0.5 for x in nu):
            raise MechanismError(f"{what}: poisson must be in (-1, 0.5), got {nu}")
        if K is None and E is None and tau is None:
            tau = TIME_CONSTANT
        if tau is not None and exponent is not None and float(exponent) != 1.0:
            raise MechanismError(f"{what}: a stiffness from time_constant is linear (exponent "
                                 "1); give stiffness to use another exponent")
        n = number(exponent, f"{what}: exponent") if exponent is not None else (
            1.0 if tau is not None else 1.5)
        if not 1.0 <= n <= 3.0:
            raise MechanismError(f"{what}: exponent must be in [1, 3], got {n}")
        mu_s = number(friction, f"{what}: friction")
        mu_d = mu_s if dynamic_friction is None else number(dynamic_friction,
                                                            f"{what}: dynamic_friction")
        if mu_s < 0.0 or mu_d < 0.0:
            raise MechanismError(f"{what}: friction coefficients must be non-negative, got "
                                 f"{mu_s}, {mu_d}")
        vs = _positive(slip_speed, f"{what}: slip_speed")
    except MechanismError as exc:
        msg = str(exc)
        raise MechanismError(msg if msg.startswith(what) else f"{what}: {msg}") from None
    return Contact(name, part_a, part_b, shape_a, shape_b, e, K, n, tau, E, nu, mu_s, mu_d, vs)


def hertz_stiffness(young: tuple[float, float], poisson: tuple[float, float],
                    radii: tuple[float, float]) -> float:
    """K = 4/3 E* sqrt(R*) (Johnson 1985, eq. 4.22-4.23): 1/E* = (1 - nu_a^2)/E_a +
    (1 - nu_b^2)/E_b, 1/R* = 1/R_a + 1/R_b (a flat side: infinite radius)."""
    e_star = 1.0 / sum((1.0 - nu * nu) / E for E, nu in zip(young, poisson))
    curv = sum(1.0 / R for R in radii if math.isfinite(R))
    return 4.0 / 3.0 * e_star * math.sqrt(1.0 / curv)
