"""The contacts of one compiled model as arrays of contact points (kernels/contacts.py
evaluates them): every point that one side's surface offers (a sphere's centre with its
radius, a box's corners, a mesh's surface samples, a profile's edge points) against the other side's signed
distance, grouped by the distance's kind so that each kind is one call over all its
points, whatever the number of contacts.

Which side offers points (``_directions``): a half-space or an inverted sphere offers none; a sphere or capsule
offers its centre(s) with a radius, so against any other shape only it offers them; a
sphere against a capsule is the sphere (its centre against the capsule's exact distance:
the capsule's end centres would miss a ball touching its middle), two spheres or two
capsules side a; two other shapes (boxes, cylinders, meshes, profiles) offer them both ways round,
each way carrying half of the contact's stiffness.

A capsule (without ``spacing``) against a box, cylinder, capsule or profile offers two
points that move along its axis (``_offered``; kernels/segment_search.py places them at
each evaluation): the axis point nearest the other shape and the end farther from it,
each with one end sphere's K.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..base.errors import MechanismError
from ..base.rotations import quat_to_matrix
from ..base.profile_grid import ProfileSet, profile_set
from ..base.sdf_grid import GridSet, grid_set, reach_box, reach_cells
from ..base.shapes import PRIMITIVES, primitive_reach
from ..vocabulary.contacts import NO_POINTS, Contact, hertz_stiffness
from .contact_clusters import Clusters, clusters
from .plans import _frozen

GROUP_ORDER = tuple(PRIMITIVES) + ("mesh", "profile")
GRIDDED = ("mesh", "profile")      # kinds whose distance is a grid, found by its index
FIXED, SLIDING, FAR_END = 0, 1, 2  # a contact point's role (ContactPlan.role)
# the distances a capsule's axis slides along (against a half-space or an inverted sphere
# its nearest axis point is always an end: its two end spheres are exact there; a mesh's
# trilinear grid is not flat along a face, so a point sliding there wanders over it)
SLIDES_ON = ("box", "cylinder", "capsule", "profile")


FLUSH_KINDS = ("box", "cylinder")      # distances that take the points' homes (flush faces)


@dataclass(frozen=True)
class ContactPlan:
    """Contact points (np,) sorted by the kind of distance they are measured against, and
    per contact (nct,) its name, parts and bodies (nb: the ground)."""
    names: tuple[str, ...]
    part_a: tuple[str, ...]
    part_b: tuple[str, ...]
    body_a: np.ndarray          # (nct,)
    body_b: np.ndarray
    contact: np.ndarray         # (np,) the contact of each point
    on_a: np.ndarray            # (np,) the point is on side a (else b: the distance is a's)
    sb: np.ndarray              # (np,) the body carrying the point
    fb: np.ndarray              # (np,) the body carrying the distance
    point: np.ndarray           # (np, 3) in sb's frame (from its centre of mass; ground: world)
    radius: np.ndarray          # (np,) the point's radius (a sphere's), m
    frame: np.ndarray           # (np, 3, 3) the distance's shape axes in fb's frame
    origin: np.ndarray          # (np, 3) the distance's shape origin in fb's frame
    stiffness: np.ndarray       # (np,) K times the point's share, N/m^n
    exponent: np.ndarray        # (np,)
    damping: np.ndarray         # (np,) 8 (1 - e) / (5 e) (Flores et al. 2011)
    static: np.ndarray          # (np,)
    dynamic: np.ndarray
    slip_speed: np.ndarray
    groups: tuple               # (kind, slice of points, params (k, 3) or grid index (k,))
    grids: GridSet | None
    profiles: ProfileSet | None
    summed: np.ndarray          # (nct, np) 0/1: the points of each contact
    # each contact's two bounding spheres (side a, side b): body (nct, 2), centre in the
    # body's frame (nct, 2, 3), radius (nct, 2) (a half-space's infinite)
    bound_body: np.ndarray
    bound_centre: np.ndarray
    bound_radius: np.ndarray
    thickness: np.ndarray       # (nct, 2) each side's least extent (Shape.thickness), m
    # the contacts' sides (ns,): one per contact and way round, its points contiguous
    side: np.ndarray            # (np,) the side of each point
    side_sb: np.ndarray         # (ns,) the body carrying its points
    side_fb: np.ndarray         # (ns,) the body carrying its distance
    side_ends: np.ndarray       # (ns, 2) side_sb and side_fb side by side
    side_frame: np.ndarray      # (ns, 3, 3) the distance's shape axes in fb's frame
    side_origin: np.ndarray     # (ns, 3) the distance's shape origin in fb's frame
    side_sum: np.ndarray        # (ns, np) 0/1: the points of each side
    # each point's reach in its distance's shape frame: the box (lo, hi) (np, 3) outside
    # which, and the ball of radius reach_inner (np,) inside which, its gap is positive
    reach_lo: np.ndarray
    reach_hi: np.ndarray
    reach_inner: np.ndarray
    # on a grid, also its cells within reach (sdf_grid.reach_cells): every grid side's
    # cells flat in ``cells`` (led by one True for the primitives' points), each point's
    # grid origin (np, 3), 1 / cell along the grid's axes (0 else), last cell's index
    # (np, 3) (float; 0 along no axis), flat step (np, 3) and first cell (np,)
    cells: np.ndarray
    cell_origin: np.ndarray
    cell_scale: np.ndarray
    cell_last: np.ndarray
    cell_stride: np.ndarray
    cell_first: np.ndarray
    law: np.ndarray             # (np, 8) radius, stiffness, exponent, damping, static,
                                # dynamic, slip_speed, mass side by side (one gather)
    friction: bool              # any point with a friction coefficient
    # a capsule's points that move along its axis (kernels/segment_search.py): each point's
    # role (FIXED, SLIDING: the axis point nearest the other shape; FAR_END: the end whose
    # distance is the larger), and its axis from ``point`` to the other end (np, 3) in sb's
    # frame (zero for a fixed point); a FAR_END point directly follows its SLIDING one
    role: np.ndarray
    axis: np.ndarray
    home: np.ndarray            # (np, 3) the centre of each point's own shape in sb's frame
    homed: np.ndarray           # (np,) whether a box's or cylinder's distance takes it (not
                                # for a sphere's or capsule's points: exact distances)
    # bounding balls of the points' clusters, tested against the reach box before the
    # points (model/contact_clusters.py; None for a plan of a few hundred points)
    clusters: Clusters | None = None

    @property
    def n(self) -> int:
        return len(self.contact)

    # read by every right-hand side: found once (a frozen plan's cache, as Model's)
    @cached_property
    def any_inner(self) -> bool:
        """Whether some point has a cavity's inner ball (``reach_inner``)."""
        return bool(np.logical_or.reduce(self.reach_inner, axis=None))

    @cached_property
    def takes_homes(self) -> bool:
        """Whether some group's distance takes the points' homes (a box's, a cylinder's:
        FLUSH_KINDS)."""
        return any(kind in FLUSH_KINDS for kind, _, _ in self.groups)

    @cached_property
    def group_starts(self) -> list[int]:
        """Each group's first point, then the point count (kernels' local_distances)."""
        return [at.start for _, at, _ in self.groups] + [self.n]


def _directions(c: Contact) -> list[tuple[bool, float]]:
    """[(points from side a?, share)] of a contact: see the module docstring."""
    a, b = c.shape_a, c.shape_b
    if b.kind in NO_POINTS:
        return [(True, 1.0)]
    if a.kind in NO_POINTS:
        return [(False, 1.0)]
    if b.kind == "sphere" and a.kind != "sphere":
        return [(False, 1.0)]
    if a.rounded:
        return [(True, 1.0)]
    if b.rounded:
        return [(False, 1.0)]
    return [(True, 0.5), (False, 0.5)]


def _radius_of(shape) -> float:
    """The surface's radius of curvature for Hertz (an inverted sphere's negative: the
    relative curvature 1/r - 1/R of a ball in a cup; flat: infinite)."""
    if shape.kind == "cavity":
        return -shape.params[0]
    return shape.params[0] if shape.kind in ("sphere", "capsule") else math.inf


def _stiffness(c: Contact, masses: tuple[float, float]) -> float:
    """K of the whole contact: as given; Hertz's from the moduli and the rounded sides'
    radii; or from the time constant: a linear spring whose half period pi sqrt(m/K) with
    the parts' reduced mass m (a fixed part's infinite) lasts the time constant."""
    if c.stiffness is not None:
        return c.stiffness
    if c.young is not None:
        return hertz_stiffness(c.young, c.poisson, (_radius_of(c.shape_a), _radius_of(c.shape_b)))
    return _reduced_mass(masses) * (math.pi / c.time_constant) ** 2


def _reduced_mass(masses: tuple[float, float]) -> float:
    """The two parts' reduced mass m_a m_b / (m_a + m_b), kg (a fixed part's mass infinite:
    the other's)."""
    return 1.0 / sum(1.0 / x for x in masses if math.isfinite(x))


def _shape_frame(shape, part, body_fixed: bool) -> tuple[np.ndarray, np.ndarray]:
    """(axes (3, 3), origin (3,)) of a shape in its body's frame: part axes from the centre
    of mass, or world for a fixed part."""
    R = quat_to_matrix(shape.orientation)
    if body_fixed:
        Rp = quat_to_matrix(part.orientation)
        return Rp @ R, part.position + Rp @ shape.position
    return R, shape.position - part.center_of_mass


def contact_plan(mech: Any, body: dict) -> ContactPlan | None:
    """The ContactPlan of a builder's contacts (``body``: part -> body index, nb for the
    fixed parts), or None without contacts."""
    contacts = list(getattr(mech, "contacts", {}).values())
    if not contacts:
        return None
    rows: list[dict] = []
    grids: dict = {"mesh": [], "profile": []}
    grid_of: dict = {}
    sides: list[dict] = []
    cells: list[np.ndarray] = [np.ones(1, bool)]
    for ci, c in enumerate(contacts):
        parts = (mech.parts[c.part_a], mech.parts[c.part_b])
        masses = tuple(math.inf if p.fixed else p.mass for p in parts)
        K = _stiffness(c, masses)
        mass = _reduced_mass(masses)
        damping = 8.0 * (1.0 - c.restitution) / (5.0 * c.restitution)
        for from_a, share in _directions(c):
            s_shape, f_shape = (c.shape_a, c.shape_b) if from_a else (c.shape_b, c.shape_a)
            s_part, f_part = (parts[0], parts[1]) if from_a else (parts[1], parts[0])
            pts, weights, axes, roles, radius = _offered(s_shape, f_shape)
            if not len(pts):
                raise MechanismError(f"contact {c.name!r}: no points to touch with")
            Rs, ts = _shape_frame(s_shape, s_part, s_part.fixed)
            Rf, tf = _shape_frame(f_shape, f_part, f_part.fixed)
            params = np.zeros(3)
            if f_shape.kind in GRIDDED:
                key, same = id(f_shape), grids[f_shape.kind]
                if key not in grid_of:
                    grid_of[key] = len(same)
                    same.append(f_shape.grid)
                params[0] = grid_of[key]
            else:
                params[: len(f_shape.params)] = f_shape.params
            lo, hi, inner = _reach(f_shape, params, radius)
            on_cells = _cell_reach(f_shape, radius, cells)
            sides.append(dict(sb=body[s_part.name], fb=body[f_part.name], frame=Rf,
                              origin=tf))
            for p, w, ax, role in zip(pts, weights, axes, roles):
                rows.append(dict(contact=ci, on_a=from_a, side=len(sides) - 1,
                                 role=role, axis=Rs @ ax,
                                 reach_lo=lo, reach_hi=hi, reach_inner=inner,
                                 **on_cells,
                                 sb=body[s_part.name],
                                 fb=body[f_part.name], point=ts + Rs @ p, home=ts,
                                 homed=not s_shape.rounded,
                                 radius=radius,
                                 frame=Rf, origin=tf, stiffness=K * w * share,
                                 exponent=c.exponent, damping=damping, static=c.static,
                                 dynamic=c.dynamic, slip_speed=c.slip_speed, mass=mass,
                                 kind=f_shape.kind,
                                 params=params))
    order = sorted(range(len(rows)), key=lambda i: GROUP_ORDER.index(rows[i]["kind"]))
    rows = [rows[i] for i in order]

    def col(key: str, dtype: Any = float) -> np.ndarray:
        return _frozen([r[key] for r in rows], dtype)
    kinds = [r["kind"] for r in rows]
    groups, start = [], 0
    for kind in GROUP_ORDER:
        k = kinds.count(kind)
        if k:
            params = col("params")[start: start + k]
            spec = _frozen(params[:, 0], int) if kind in GRIDDED else _frozen(params)
            groups.append((kind, slice(start, start + k), spec))
            start += k
    bounds = [[_bounds(sh, mech.parts[pn], body[pn]) for sh, pn in ((c.shape_a, c.part_a),
                                                                    (c.shape_b, c.part_b))]
              for c in contacts]
    contact = col("contact", int)
    summed = np.zeros((len(contacts), len(rows)))
    summed[contact, np.arange(len(rows))] = 1.0
    side = col("side", int)
    side_sum = np.zeros((len(sides), len(rows)))
    side_sum[side, np.arange(len(rows))] = 1.0

    def side_col(key: str, dtype: Any = float) -> np.ndarray:
        return _frozen([sd[key] for sd in sides], dtype)
    return ContactPlan(
        names=tuple(c.name for c in contacts), part_a=tuple(c.part_a for c in contacts),
        part_b=tuple(c.part_b for c in contacts),
        body_a=_frozen([body[c.part_a] for c in contacts], int),
        body_b=_frozen([body[c.part_b] for c in contacts], int),
        contact=contact, on_a=col("on_a", bool), sb=col("sb", int), fb=col("fb", int),
        point=col("point"), radius=col("radius"), frame=col("frame"), origin=col("origin"),
        stiffness=col("stiffness"), exponent=col("exponent"), damping=col("damping"),
        static=col("static"), dynamic=col("dynamic"), slip_speed=col("slip_speed"),
        groups=tuple(groups), grids=grid_set(grids["mesh"]) if grids["mesh"] else None,
        profiles=profile_set(grids["profile"]) if grids["profile"] else None,
        summed=_frozen(summed),
        bound_body=_frozen([[b[0] for b in pair] for pair in bounds], int),
        bound_centre=_frozen([[b[1] for b in pair] for pair in bounds]),
        bound_radius=_frozen([[b[2] for b in pair] for pair in bounds]),
        thickness=_frozen([[c.shape_a.thickness(), c.shape_b.thickness()] for c in contacts]),
        side=side, side_sb=side_col("sb", int), side_fb=side_col("fb", int),
        side_ends=_frozen([[sd["sb"], sd["fb"]] for sd in sides], int),
        side_frame=side_col("frame"), side_origin=side_col("origin"),
        side_sum=_frozen(side_sum), reach_lo=col("reach_lo"), reach_hi=col("reach_hi"),
        reach_inner=col("reach_inner"), cells=_frozen(np.concatenate(cells), bool),
        cell_origin=col("cell_origin"), cell_scale=col("cell_scale"),
        cell_last=col("cell_last"), cell_stride=col("cell_stride", int),
        cell_first=col("cell_first", int),
        law=_frozen(np.column_stack([col(k) for k in LAW])),
        friction=bool(np.any(col("static") != 0.0) or np.any(col("dynamic") != 0.0)),
        role=col("role", int), axis=col("axis"), home=col("home"),
        homed=col("homed", bool),
        clusters=clusters(col("point"), side, col("role", int) != FIXED, col("reach_lo"),
                          col("reach_hi")))


def _offered(s_shape, f_shape) -> tuple:
    """(points (k, 3), weights (k,), axes (k, 3), roles (k,), radius) a side offers in its
    shape frame: ``Shape.samples``, fixed; a capsule without ``spacing`` against a
    SLIDES_ON distance, two points on its axis instead, each with one end sphere's share:
    the axis point nearest the other shape and the end farther from it (their potential
    K (delta_s^(n+1) + delta_far^(n+1)) / (n + 1) is continuous in the state; a rod lying
    level on a face meets 2 K at its two ends, as its two end spheres did)."""
    pts, weights, radius = s_shape.samples()
    fixed = (pts, weights, np.zeros(pts.shape), np.full(len(pts), FIXED), radius)
    if (s_shape.kind != "capsule" or s_shape.spacing is not None or s_shape.params[1] == 0.0
            or f_shape.kind not in SLIDES_ON):
        return fixed
    end, axis = pts[0], pts[-1] - pts[0]
    return (np.array([end, end]), np.ones(2), np.array([axis, axis]),
            np.array([SLIDING, FAR_END]), radius)


def _cell_reach(shape, radius: float, cells: list[np.ndarray]) -> dict:
    """The per-point fields of a side's cells within reach (ContactPlan ``cells``): for a
    grid, its reach_cells appended to ``cells``; for a primitive, the leading True."""
    zero = np.zeros(3)
    if shape.kind not in GRIDDED:
        return dict(cell_origin=zero, cell_scale=zero, cell_last=zero,
                    cell_stride=np.zeros(3, int), cell_first=0)
    g = shape.grid
    k = len(g.dims)
    dims = np.r_[g.dims, np.ones(3 - k, int)]
    first = sum(len(c) for c in cells)
    cells.append(reach_cells(g.distance.reshape(tuple(g.dims)), radius).reshape(-1))
    return dict(cell_origin=np.r_[g.origin, np.zeros(3 - k)],
                cell_scale=np.r_[np.full(k, 1.0 / g.cell), np.zeros(3 - k)],
                cell_last=(dims - 2).clip(0).astype(float),
                cell_stride=np.array([dims[1] * dims[2], dims[2], 1]), cell_first=first)


# each point's force law; ``mass`` the parts' reduced mass, which bounds the touchdown speed
# its damping is scaled by from below (kernels/contacts.py)
LAW = ("radius", "stiffness", "exponent", "damping", "static", "dynamic", "slip_speed", "mass")


def _reach(shape, params: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray, float]:
    """(lo (3,), hi (3,), inner radius) of the points of radius ``radius`` against
    ``shape``'s distance, in its shape frame: outside the box, or inside the inner ball,
    their gap is positive (base/sdf_grid.py ``reach_box``, base/shapes.py
    ``primitive_reach``).  A profile's box: its planar grid's in x, y; its thickness
    plus the radius in z (its distance is at least the planar one and |z| - h)."""
    if shape.kind not in GRIDDED:
        return primitive_reach(shape.kind, params, radius)
    g = shape.grid
    values = g.distance.reshape(tuple(g.dims))
    lo, hi = reach_box(values, g.origin, g.cell, radius)
    if shape.kind == "mesh":
        return lo, hi, 0.0
    z = g.half + radius + 1e-9 * (g.half + radius)
    return np.r_[lo, -z], np.r_[hi, z], 0.0


def _bounds(shape, part, b: int) -> tuple[int, np.ndarray, float]:
    """(body, centre in the body's frame, radius) of a shape's bounding sphere."""
    centre, radius = shape.bounding_sphere()
    R, t = _shape_frame(shape, part, part.fixed)
    return b, t + R @ centre, radius
