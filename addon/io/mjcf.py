"""MuJoCo models (MJCF) read without Blender: bodies, joints, geoms and inertials as frozen
data, every element with its line, default classes applied, and each body's mass
properties as MuJoCo infers them from its geoms where no ``<inertial>`` is given.

MJCF facts used (MuJoCo's XML reference, mujoco.readthedocs.io, "XML Reference"): lengths
in m, masses in kg; ``<compiler angle>`` is "degree" unless set to "radian" (euler,
axisangle, a hinge's range, ref and springref); orientations are ``quat`` (w x y z),
``axisangle``, ``euler`` (``eulerseq``, default "xyz": lowercase about the turning axes,
uppercase about fixed ones), ``xyaxes`` or ``zaxis`` (the shortest turn taking z there);
a body's ``pos``/orientation place it in its parent's frame; a joint's ``pos`` and
``axis`` (default 0 0 1) are in its body's frame; a ``<frame>`` places the bodies, geoms
and joints it holds by its own pos and orientation, its ``childclass`` theirs;
``<default class>`` nests, an element takes its ``class`` or its nearest body's or
frame's ``childclass``; a geom's mass is ``mass`` or ``density`` (default 1000 kg/m^3) x
its volume; ``size`` is a sphere's radius, a capsule's or cylinder's radius and
half-length along z, a box's or ellipsoid's half-sizes, and ``fromto`` sets a capsule's,
cylinder's, box's or ellipsoid's axis between two points (a box's or ellipsoid's
half-sizes across it both size[0], as MuJoCo compiles them).  Inertias of the primitives
about their centres (solid bodies; a capsule a cylinder and two hemispheres; with
``shellinertia`` their surfaces, density per m^2); a mesh geom's solid as mjcf_mesh reads
it, the geom moved to its centre of mass;
only geoms whose ``group`` (default 0) is in ``<compiler inertiagrouprange>`` (default
0 5) give mass; ``<compiler boundmass, boundinertia>`` are lower bounds on every body's mass and
principal moments (``settotalmass`` and ``balanceinertia`` are refused).

Errors are ``MjcfError`` (a ``MechanismError``) naming the element and its line.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...solver import MechanismError, quat_to_matrix
from .mjcf_include import with_includes
from .mjcf_mesh import MeshError, geom_solid, mesh_assets
from .urdf import Element, UrdfError, parse_xml

PRIMITIVES = ("sphere", "capsule", "cylinder", "box", "ellipsoid")


class MjcfError(MechanismError):
    """An MJCF model that cannot be read; ``line`` the line it names (or None)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Geom:
    name: str
    kind: str                   # sphere, capsule, cylinder, box, ellipsoid, plane, mesh, ...
    size: np.ndarray            # MuJoCo's size (half-sizes, radius, half-length), m
    frame: np.ndarray           # (4, 4) in the body frame (a mesh: at its centre of mass)
    mass: float                 # kg (0 for a plane or a geom MuJoCo gives none)
    inertia: np.ndarray         # (3, 3) about its centre, geom axes
    mesh: str                   # the mesh asset's name, or ""
    rgba: tuple
    line: int
    group: int = 0              # MuJoCo's geom group (the compiler's inertiagrouprange)
    contype: int = 1            # MuJoCo's collision bits: two geoms may collide when
    conaffinity: int = 1        # contype of one & conaffinity of the other is not 0


@dataclass(frozen=True)
class MjJoint:
    name: str
    kind: str                   # hinge, slide, ball, free
    pos: np.ndarray             # body frame, m
    axis: np.ndarray            # body frame, unit
    range: tuple | None         # (lower, upper) rad or m, or None when not limited
    ref: float
    stiffness: float
    springref: float
    damping: float
    armature: float
    frictionloss: float
    line: int
    springdamper: tuple = (0.0, 0.0)    # (time constant s, damping ratio); both > 0: in use


@dataclass(frozen=True)
class Body:
    name: str
    parent: str                 # "world" for a top-level body
    frame: np.ndarray           # (4, 4) in the parent's frame
    mass: float
    center: np.ndarray          # (3,) body frame
    inertia: np.ndarray         # (3, 3) about the centre, body axes
    joints: tuple
    geoms: tuple
    inertial_given: bool
    line: int
    gravcomp: float = 0.0       # MuJoCo's gravity compensation (1: gravity cancelled)


@dataclass(frozen=True)
class Equality:
    name: str
    kind: str                   # connect, weld, joint, tendon, ...
    attrib: dict
    active: bool
    line: int


@dataclass
class MjcfModel:
    """A parsed MJCF model: ``bodies`` in file order (parents first), ``world_geoms``,
    ``equalities``, ``gravity`` (3,) m/s^2, and what the model holds that the solver has
    no element for, by kind (``others``: tag -> names)."""
    name: str
    bodies: dict
    world_geoms: tuple
    equalities: tuple
    gravity: np.ndarray
    others: dict = field(default_factory=dict)
    meshes: dict = field(default_factory=dict)      # asset name -> file
    contacts: bool = True       # False with <flag contact="disable">
    excluded: frozenset = frozenset()     # body pairs of <contact><exclude> (frozensets)

    def world(self) -> dict[str, np.ndarray]:
        """Each body's frame in world at qpos0 (4x4)."""
        out = {"world": np.eye(4)}
        for name, b in self.bodies.items():
            out[name] = out[b.parent] @ b.frame
        return out


def numbers(e: Element, key: str, count: int | None, attrib: dict,
            default: Any = None) -> np.ndarray:
    raw = attrib.get(key)
    if raw is None:
        if default is None:
            raise MjcfError(f"{e.label()} needs the attribute {key!r}", e.line)
        return np.array(default, dtype=float)
    try:
        values = np.array([float(s) for s in raw.split()], dtype=float)
    except ValueError:
        values = np.array([])
    if (count is not None and values.shape != (count,)) or not np.all(np.isfinite(values)) \
            or values.size == 0:
        raise MjcfError(f"{e.label()}: {key}={raw!r} is not "
                        f"{count or 'a list of'} finite number{'s' if count != 1 else ''}", e.line)
    return values


class Reader:
    """Reads one document: its compiler settings and default classes."""

    def __init__(self, root: Element) -> None:
        compiler = root.one("compiler")
        c = compiler.attrib if compiler is not None else {}
        self.degree = c.get("angle", "degree") == "degree"
        self.eulerseq = c.get("eulerseq", "xyz")
        self.autolimits = c.get("autolimits", "true") == "true"
        self.geom_inertia = c.get("inertiafromgeom", "auto")      # "auto", "true", "false"
        low, high = numbers(compiler, "inertiagrouprange", 2, c, (0, 5)) if c else (0, 5)
        self.inertia_groups = (int(low), int(high))     # geoms in these groups give mass
        self.boundmass = float(numbers(compiler, "boundmass", 1, c, (0.0,))[0]) if c else 0.0
        self.boundinertia = float(numbers(compiler, "boundinertia", 1, c, (0.0,))[0]) if c else 0.0
        for key in ("settotalmass", "balanceinertia"):
            if c.get(key, "false" if key == "balanceinertia" else "0") not in ("0", "-1", "false"):
                raise MjcfError(f"<compiler {key}={c[key]!r}>: MuJoCo changes the bodies' mass "
                                f"properties with it, which this import does not; give the "
                                f"masses as they should be", compiler.line)
        self.meshes: dict = {}                 # mesh asset -> (element, folder), read_model
        self.solids: dict = {}                 # mesh asset -> its MeshSolid, once read
        self.defaults: dict[str, dict] = {}
        top = root.all("default")
        self.read_defaults(top[0] if top else Element("default", {}, 0), "main", {})

    def read_defaults(self, e: Element, name: str, inherited: dict) -> None:
        own = {tag: dict(values) for tag, values in inherited.items()}
        for child in e.children:
            if child.tag != "default":
                own.setdefault(child.tag, {}).update(child.attrib)
        self.defaults[name] = own
        for child in e.all("default"):
            self.read_defaults(child, child.attrib.get("class", name), own)

    def attrib(self, e: Element, childclass: str) -> dict:
        cls = e.attrib.get("class", childclass)
        if cls not in self.defaults:
            raise MjcfError(f"{e.label()}: unknown default class {cls!r}", e.line)
        return {**self.defaults[cls].get(e.tag, {}), **e.attrib}

    def angle(self, x: float) -> float:
        return math.radians(x) if self.degree else x

    def rotation(self, e: Element, a: dict) -> np.ndarray:
        """The rotation an element's orientation attributes give (identity if none)."""
        given = [k for k in ("quat", "axisangle", "euler", "xyaxes", "zaxis") if k in a]
        if len(given) > 1:
            raise MjcfError(f"{e.label()}: more than one orientation ({', '.join(given)})", e.line)
        if not given:
            return np.eye(3)
        k = given[0]
        if k == "quat":
            q = numbers(e, k, 4, a)
            if np.linalg.norm(q) == 0:
                raise MjcfError(f"{e.label()}: quat is zero", e.line)
            return quat_to_matrix(q / np.linalg.norm(q))
        if k == "axisangle":
            v = numbers(e, k, 4, a)
            return axis_angle(v[:3], self.angle(v[3]), e)
        if k == "euler":
            v = numbers(e, k, 3, a)
            R = np.eye(3)
            for axis, ang in zip(self.eulerseq, v):
                turn = axis_angle(np.eye(3)["xyz".index(axis.lower())], self.angle(ang), e)
                R = R @ turn if axis.islower() else turn @ R
            return R
        if k == "xyaxes":
            v = numbers(e, k, 6, a)
            x = v[:3] / np.linalg.norm(v[:3])
            y = v[3:] - (v[3:] @ x) * x
            y /= np.linalg.norm(y)
            return np.column_stack([x, y, np.cross(x, y)])
        return z_to(numbers(e, k, 3, a), e)

    def frame(self, e: Element, a: dict) -> np.ndarray:
        T = np.eye(4)
        T[:3, :3] = self.rotation(e, a)
        T[:3, 3] = numbers(e, "pos", 3, a, (0.0, 0.0, 0.0))
        return T


def axis_angle(axis: np.ndarray, angle: float, e: Element) -> np.ndarray:
    n = np.linalg.norm(axis)
    if n == 0:
        raise MjcfError(f"{e.label()}: a rotation axis is zero", e.line)
    k = np.asarray(axis, float) / n
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def z_to(v: np.ndarray, e: Element) -> np.ndarray:
    """The shortest rotation taking z to the direction v (MuJoCo's zaxis)."""
    n = np.linalg.norm(v)
    if n == 0:
        raise MjcfError(f"{e.label()}: a zero direction", e.line)
    v = v / n
    z = np.array([0.0, 0.0, 1.0])
    c = float(z @ v)
    if c < -1 + 1e-12:
        return np.diag([1.0, -1.0, -1.0])
    axis = np.cross(z, v)
    s = np.linalg.norm(axis)
    return np.eye(3) if s < 1e-15 else axis_angle(axis, math.atan2(s, c), e)


def primitive_mass_properties(kind: str, size: np.ndarray) -> tuple[float, np.ndarray]:
    """(volume m^3, inertia per unit mass about the centre, geom axes (3,)) of a solid
    primitive; a capsule is a cylinder of height 2h and two hemispheres."""
    r = size[0]
    if kind == "sphere":
        return 4 / 3 * math.pi * r ** 3, np.full(3, 0.4 * r * r)
    if kind == "ellipsoid":
        a, b, c = size[:3]
        return 4 / 3 * math.pi * a * b * c, np.array([b * b + c * c, a * a + c * c,
                                                     a * a + b * b]) / 5
    if kind == "box":
        a, b, c = size[:3]
        return 8 * a * b * c, np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 3
    h = size[1]
    if kind == "cylinder":
        return math.pi * r * r * 2 * h, np.array([(3 * r * r + 4 * h * h) / 12] * 2 + [r * r / 2])
    # capsule: parallel axes from the hemispheres' centres of mass (3r/8 from each flat face)
    v_cyl, v_sph = math.pi * r * r * 2 * h, 4 / 3 * math.pi * r ** 3
    mc, ms = v_cyl / (v_cyl + v_sph), v_sph / (v_cyl + v_sph)
    hemi = 83 / 320 * r * r                     # a hemisphere's transverse inertia about its COM
    d = h + 3 * r / 8
    transverse = mc * (3 * r * r + 4 * h * h) / 12 + ms * (hemi + d * d)
    return v_cyl + v_sph, np.array([transverse, transverse, mc * r * r / 2 + ms * 0.4 * r * r])


def shell_mass_properties(kind: str, size: np.ndarray) -> tuple[float, np.ndarray]:
    """(area m^2, inertia per unit mass about the centre, geom axes (3,)) of a primitive's
    surface, mass spread evenly over it (MuJoCo's ``shellinertia``): a sphere 2/3 r^2; a
    box its six faces as plates; a cylinder its tube and two end discs; a capsule its tube
    and two hemispherical shells (centre r/2 from the sphere's), by parallel axes; an
    ellipsoid's (no closed form) NaN."""
    r = size[0]
    if kind == "sphere":
        return 4 * math.pi * r * r, np.full(3, 2 / 3 * r * r)
    if kind == "box":
        half = size[:3]
        I, area = np.zeros(3), 0.0
        for k in range(3):              # the two faces normal to axis k, at +-half[k]
            u, v = [i for i in range(3) if i != k]
            m = 2 * 4 * half[u] * half[v]
            area += m
            I[k] += m * (half[u] ** 2 + half[v] ** 2) / 3
            I[u] += m * (half[k] ** 2 + half[v] ** 2 / 3)
            I[v] += m * (half[k] ** 2 + half[u] ** 2 / 3)
        return area, I / area
    if kind not in ("cylinder", "capsule"):
        return math.nan, np.full(3, math.nan)
    h = size[1]
    tube = 2 * math.pi * r * 2 * h
    transverse, axial = tube * (r * r / 2 + (2 * h) ** 2 / 12), tube * r * r
    if kind == "cylinder":
        disc = math.pi * r * r              # two discs at +-h
        transverse += 2 * disc * (r * r / 4 + h * h)
        axial += 2 * disc * r * r / 2
        area = tube + 2 * disc
    else:
        hemi = 2 * math.pi * r * r          # two hemispherical shells, flat faces at +-h
        transverse += 2 * hemi * (2 / 3 * r * r + h * h + h * r)
        axial += 2 * hemi * 2 / 3 * r * r
        area = tube + 2 * hemi
    return area, np.array([transverse, transverse, axial]) / area


def read_geom(rd: Reader, e: Element, childclass: str, k: int, body: str,
              placed: np.ndarray = np.eye(4)) -> Geom:
    a = rd.attrib(e, childclass)
    kind = a.get("type", "sphere")
    name = a.get("name", f"{body}: geom{k}")
    size = numbers(e, "size", None, a, (0.0, 0.0, 0.0))
    size = np.concatenate([size, np.zeros(3)])[:3]
    frame = rd.frame(e, a)
    if "fromto" in a:
        ft = numbers(e, "fromto", 6, a)
        frame[:3, :3] = z_to(ft[3:] - ft[:3], e)
        frame[:3, 3] = (ft[:3] + ft[3:]) / 2
        half = np.linalg.norm(ft[3:] - ft[:3]) / 2
        # a capsule's or cylinder's radius and half-length; a box's or ellipsoid's half-sizes
        # across the axis are both size[0] (as MuJoCo compiles them), its half-length along it
        size = np.array([size[0], half, 0.0]) if kind not in ("box", "ellipsoid") \
            else np.array([size[0], size[0], half])
    mass, inertia = 0.0, np.zeros((3, 3))
    if kind in PRIMITIVES and "mesh" in a:      # MuJoCo sizes and places it from the mesh
        raise MjcfError(f"{e.label()}: a {kind} fitted to mesh {a['mesh']!r} is not read; give "
                        f"its size and pos or make it type=\"mesh\"", e.line)
    if kind in PRIMITIVES:
        volume, per_mass = shell_mass_properties(kind, size) \
            if a.get("shellinertia", "false") == "true" else primitive_mass_properties(kind, size)
        if "mass" in a:
            mass = float(numbers(e, "mass", 1, a)[0])
        else:
            mass = float(numbers(e, "density", 1, a, (1000.0,))[0]) * volume
        inertia = np.diag(mass * per_mass)
    elif kind == "mesh":
        try:
            solid = geom_solid(rd.meshes, rd.solids, rd.attrib, e, a)
        except MeshError as exc:
            raise MjcfError(str(exc), exc.line) from None
        mass = float(numbers(e, "mass", 1, a)[0]) if "mass" in a else \
            float(numbers(e, "density", 1, a, (1000.0,))[0]) * solid.volume
        frame[:3, 3] += frame[:3, :3] @ solid.center     # the geom at the mesh's centre
        inertia = solid.inertia * (mass / solid.volume)
    rgba = tuple(numbers(e, "rgba", 4, a, (0.5, 0.5, 0.5, 1.0)))
    group, contype, conaffinity = (int(numbers(e, key, 1, a, (default,))[0]) for key, default in
                                   (("group", 0.0), ("contype", 1.0), ("conaffinity", 1.0)))
    return Geom(name, kind, size, placed @ frame, mass, inertia, a.get("mesh", ""), rgba, e.line,
                group, contype, conaffinity)


def read_joint(rd: Reader, e: Element, childclass: str, k: int, body: str,
               placed: np.ndarray = np.eye(4)) -> MjJoint:
    a = rd.attrib(e, childclass) if e.tag == "joint" else dict(e.attrib)
    kind = "free" if e.tag == "freejoint" else a.get("type", "hinge")
    if kind not in ("hinge", "slide", "ball", "free"):
        raise MjcfError(f"{e.label()}: unknown joint type {kind!r}", e.line)
    name = a.get("name", f"{body}: joint{k}")
    unit = rd.angle if kind in ("hinge", "ball") else float
    axis = numbers(e, "axis", 3, a, (0.0, 0.0, 1.0))
    if np.linalg.norm(axis) == 0:
        raise MjcfError(f"{e.label()}: axis is zero", e.line)
    limited = a.get("limited", "auto")
    rng = None
    if "range" in a and (limited == "true" or (limited == "auto" and rd.autolimits)):
        lo, hi = numbers(e, "range", 2, a)
        rng = (unit(lo), unit(hi))
    one = lambda key: float(numbers(e, key, 1, a, (0.0,))[0])
    pos = placed[:3, :3] @ numbers(e, "pos", 3, a, (0.0, 0.0, 0.0)) + placed[:3, 3]
    return MjJoint(name, kind, pos, placed[:3, :3] @ axis / np.linalg.norm(axis), rng, unit(one("ref")), one("stiffness"),
                   unit(one("springref")), one("damping"), one("armature"), one("frictionloss"),
                   e.line, tuple(float(v) for v in numbers(e, "springdamper", 2, a, (0.0, 0.0))))


def combine(parts: list[tuple[float, np.ndarray, np.ndarray]]) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, centre, inertia about it) of rigid pieces given as (mass, frame 4x4 of the
    piece's centre and axes, inertia about its centre in its axes), all in one frame."""
    mass = sum(m for m, _, _ in parts)
    if mass <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    center = sum(m * T[:3, 3] for m, T, _ in parts) / mass
    inertia = np.zeros((3, 3))
    for m, T, I in parts:
        d = T[:3, 3] - center
        inertia += T[:3, :3] @ I @ T[:3, :3].T + m * ((d @ d) * np.eye(3) - np.outer(d, d))
    return mass, center, inertia


def read_inertial(rd: Reader, e: Element) -> tuple[float, np.ndarray, np.ndarray]:
    a = e.attrib
    T = rd.frame(e, a)
    mass = float(numbers(e, "mass", 1, a)[0])
    if "fullinertia" in a:
        turned = [k for k in ("quat", "axisangle", "euler", "xyaxes", "zaxis") if k in a]
        if turned:          # (MuJoCo refuses the file: the full matrix is in body axes)
            raise MjcfError(f"{e.label()}: fullinertia with {turned[0]} (a full inertia is "
                            f"given in the body's axes and takes no orientation)", e.line)
        xx, yy, zz, xy, xz, yz = numbers(e, "fullinertia", 6, a)
        I = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    else:
        I = np.diag(numbers(e, "diaginertia", 3, a))
    return mass, T[:3, 3], T[:3, :3] @ I @ T[:3, :3].T


def bounded(rd: Reader, mass: float, inertia: np.ndarray) -> tuple[float, np.ndarray]:
    """A body's mass and inertia with the compiler's lower bounds, as MuJoCo sets them on
    every body but the world: ``boundmass`` on the mass (kg), ``boundinertia`` on each
    principal moment (kg m^2), the principal axes kept."""
    mass = max(mass, rd.boundmass)
    if rd.boundinertia > 0.0:
        moments, axes = np.linalg.eigh(inertia)
        inertia = axes @ np.diag(np.maximum(moments, rd.boundinertia)) @ axes.T
    return mass, inertia


NOT_READ = ("composite", "flexcomp", "attach")


def refuse_unread(e: Element) -> None:
    """Elements that would place bodies or geoms this reader does not read: an error, so
    that nothing is left out silently."""
    for c in e.children:
        if c.tag in NOT_READ:
            raise MjcfError(f"<{c.tag}> in {e.label()} is not read; write its bodies and geoms "
                            f"out in the body tree", c.line)


def in_frames(rd: Reader, e: Element, childclass: str,
              placed: np.ndarray = np.eye(4)) -> list[tuple[Element, np.ndarray, str]]:
    """The children of ``e`` with those of its ``<frame>`` and ``<replicate>`` elements
    (nested, in file order), each as (element, the placement 4x4 in e's frame, its
    childclass): a frame places what it holds (bodies, geoms, joints) by its pos and
    orientation, and its ``childclass`` is theirs; a replicate holds ``count`` copies
    (replicated)."""
    out = []
    for c in e.children:
        if c.tag == "replicate":
            out += replicated(rd, c, childclass, placed)
            continue
        if c.tag != "frame":
            out.append((c, placed, childclass))
            continue
        refuse_unread(c)
        if c.attrib.get("childclass", childclass) not in rd.defaults:
            raise MjcfError(f"{c.label()}: unknown default class {c.attrib['childclass']!r}", c.line)
        out += in_frames(rd, c, c.attrib.get("childclass", childclass), placed @ rd.frame(c, c.attrib))
    return out


def replicated(rd: Reader, e: Element, childclass: str,
               placed: np.ndarray) -> list[tuple[Element, np.ndarray, str]]:
    """A ``<replicate>``'s ``count`` copies of what it holds, as MuJoCo places and names
    them: copy i turned by i times the ``euler`` angles and moved by sum_{k<i} E_k offset
    (E_k the turn of copy k, offset in m), every name in it followed by ``sep`` and i
    (padded to the digits of count - 1), an inner replicate's number before an outer's."""
    count = int(numbers(e, "count", 1, e.attrib, (1.0,))[0])
    if count < 1:
        raise MjcfError(f"{e.label()}: count must be at least 1", e.line)
    euler = numbers(e, "euler", 3, e.attrib, (0.0, 0.0, 0.0))
    offset = numbers(e, "offset", 3, e.attrib, (0.0, 0.0, 0.0))
    sep, digits = e.attrib.get("sep", ""), len(str(count - 1))
    out, T = [], np.eye(4)
    for i in range(count):
        T[:3, :3] = rd.rotation(e, {"euler": " ".join(repr(float(i * a)) for a in euler)})
        suffix = f"{sep}{i:0{digits}d}"
        out += [(renamed(x, suffix), P, cc) for x, P, cc in in_frames(rd, e, childclass, placed @ T)]
        T[:3, 3] += T[:3, :3] @ offset
    return out


def renamed(e: Element, suffix: str) -> Element:
    """A copy of ``e`` and everything in it with ``suffix`` after each name."""
    attrib = dict(e.attrib)
    if "name" in attrib:
        attrib["name"] += suffix
    return Element(e.tag, attrib, e.line, [renamed(c, suffix) for c in e.children])


def read_body(rd: Reader, e: Element, parent: str, childclass: str, bodies: dict, k: list,
              placed: np.ndarray = np.eye(4)) -> None:
    refuse_unread(e)
    childclass = e.attrib.get("childclass", childclass)
    k[0] += 1
    name = e.attrib.get("name", f"body{k[0]}")
    if name in bodies or name == "world":
        raise MjcfError(f"{e.label()}: body name {name!r} is used twice", e.line)
    frame = placed @ rd.frame(e, e.attrib)
    members = in_frames(rd, e, childclass)
    joints = tuple(read_joint(rd, j, cc, n, name, T) for n, (j, T, cc) in
                   enumerate(m for m in members if m[0].tag in ("joint", "freejoint")))
    geoms = tuple(read_geom(rd, g, cc, n, name, T) for n, (g, T, cc) in
                  enumerate(m for m in members if m[0].tag == "geom"))
    inertial = None if rd.geom_inertia == "true" else e.one("inertial")
    if inertial is not None:
        mass, center, inertia = read_inertial(rd, inertial)
    elif rd.geom_inertia == "false":
        mass, center, inertia = 0.0, np.zeros(3), np.zeros((3, 3))
    else:
        low, high = rd.inertia_groups
        used = [g for g in geoms if low <= g.group <= high]
        for g in used:
            if not np.all(np.isfinite(g.inertia)):
                raise MjcfError(f"geom {g.name!r}: the shell inertia of an {g.kind} is not "
                                f"computed; give body {name!r} an <inertial>", g.line)
        mass, center, inertia = combine([(g.mass, g.frame, g.inertia) for g in used])
    if mass <= 0.0 and rd.boundmass > 0.0:
        # MuJoCo leaves a body without mass of its own its inertial frame at its own pos and
        # orientation read in its own frame, where boundmass then puts the mass
        center = rd.frame(e, e.attrib)[:3, 3]
    mass, inertia = bounded(rd, mass, inertia)
    gravcomp = float(numbers(e, "gravcomp", 1, e.attrib, (0.0,))[0])
    bodies[name] = Body(name, parent, frame, mass, center, inertia, joints, geoms,
                        inertial is not None, e.line, gravcomp)
    for child, T, cc in (m for m in members if m[0].tag == "body"):
        read_body(rd, child, name, cc, bodies, k, T)


def read_model(text: str, folder: str | None = None) -> MjcfModel:
    """An MjcfModel from MJCF text (module docstring); ``<include>``d files are looked for
    in ``folder`` (the model file's; default the working folder)."""
    try:
        root = with_includes(parse_xml(text), [folder or os.getcwd()])
    except UrdfError as exc:
        raise MjcfError(str(exc).split(": ", 1)[-1], exc.line) from None
    if root.tag != "mujoco":
        raise MjcfError(f"the root element is <{root.tag}>, not <mujoco>", root.line)
    rd = Reader(root)
    rd.meshes = mesh_assets(root, folder or os.getcwd())
    refuse_unread(root)
    option = root.one("option")
    gravity = numbers(option, "gravity", 3, option.attrib, (0, 0, -9.81)) if option is not None \
        else np.array([0.0, 0.0, -9.81])
    flags = option.one("flag") if option is not None else None
    off = {k for k, v in (flags.attrib.items() if flags is not None else ()) if v == "disable"}
    if "gravity" in off:            # MuJoCo's <flag gravity="disable">: no gravity at all
        gravity = np.zeros(3)
    bodies: dict = {}
    world_geoms: list = []
    for wb in root.all("worldbody"):
        refuse_unread(wb)
        members = in_frames(rd, wb, "main")
        world_geoms += [read_geom(rd, g, cc, n, "world", T) for n, (g, T, cc) in
                        enumerate(m for m in members if m[0].tag == "geom")]
        for b, T, cc in (m for m in members if m[0].tag == "body"):
            read_body(rd, b, "world", cc, bodies, [len(bodies)], T)
    equalities = []
    for eq in root.all("equality"):
        for n, c in enumerate(eq.children):
            a = rd.attrib(c, "main")
            equalities.append(Equality(a.get("name", f"{c.tag}{n}"), c.tag, a,
                                       a.get("active", "true") == "true", c.line))
    others = {}
    fluid = [f"{key} {option.attrib[key]}" for key in ("density", "viscosity", "wind")
             if option is not None and key in option.attrib
             and np.any(numbers(option, key, None, option.attrib) != 0.0)]
    if fluid:
        others["option"] = [f"{', '.join(fluid)} (line {option.line}: fluid forces)"]
    disabled = sorted(off & {"constraint", "equality", "limit", "frictionloss", "passive"})
    if disabled:        # MuJoCo leaves these out; the import makes them all the same
        others.setdefault("option", []).append(
            f"flag {', '.join(disabled)} disabled (line {flags.line}: imported as enabled)")
    for tag in ("tendon", "actuator", "contact", "sensor", "keyframe"):
        names = [c.attrib.get("name", f"<{c.tag}> line {c.line}")
                 for sec in root.all(tag) for c in sec.children]
        if names:
            others[tag] = names
    meshes = {m.attrib.get("name", os.path.splitext(os.path.basename(m.attrib.get("file", "")))[0]):
              m.attrib.get("file", "") for a in root.all("asset") for m in a.all("mesh")}
    return MjcfModel(root.attrib.get("model", "mujoco"), bodies, tuple(world_geoms),
                     tuple(equalities), gravity, others, meshes, "contact" not in off,
                     frozenset(frozenset((c.attrib.get("body1"), c.attrib.get("body2")))
                               for sec in root.all("contact") for c in sec.all("exclude")))


def read_mjcf(source: Any) -> MjcfModel:
    """An MjcfModel from MJCF text or a file path."""
    text = str(source)
    if "<" not in text:
        if not os.path.isfile(text):
            raise MjcfError(f"no MJCF file at {text!r}")
        folder = os.path.dirname(os.path.abspath(text))
        with open(text, encoding="utf-8") as f:
            return read_model(f.read(), folder)
    return read_model(text)
