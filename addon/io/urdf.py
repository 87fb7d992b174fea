"""URDF robot descriptions read without Blender: links, joints, visuals and materials as
frozen data, every element with the line it came from, and the links' world placements at
a configuration of the joints (the zero configuration by default).

URDF facts used (the ROS URDF specification, wiki.ros.org/urdf/XML): lengths in m, masses
in kg, angles in rad; an ``origin``'s ``rpy`` are fixed-axis roll, pitch, yaw, so
R = Rz(yaw) Ry(pitch) Rx(roll); a link's ``inertial`` origin places the centre of mass and
the axes in which ``ixx ixy ixz iyy iyz izz`` are given; a joint's ``origin`` places the
joint frame in the parent link's frame, and the child link's frame is the joint frame; a
joint's ``axis`` (default 1 0 0) is in the joint frame; a revolute or continuous joint at
angle q turns the child by Rot(axis, q), a prismatic joint at slide q moves it by q axis.

Only the standard library's expat parser (for the line numbers) and numpy are used.
Errors are ``UrdfError`` (a ``MechanismError``) naming the element and its line; a mesh
file that cannot be found, or a visual shape other than box, cylinder, sphere and mesh
(a ``<capsule>``, which MuJoCo and Gazebo read), is a warning, the link kept without that
visual (visuals carry no mass).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any
from xml.parsers import expat

import numpy as np

from ...solver import MechanismError

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
MOVING_ONE_AXIS = ("revolute", "continuous", "prismatic")


class UrdfError(MechanismError):
    """A URDF file that cannot be read as a robot; ``line`` the line it names (or None)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Element:
    """An XML element with the line its start tag is on."""
    tag: str
    attrib: dict
    line: int
    children: list = field(default_factory=list)

    def all(self, tag: str) -> list[Element]:
        return [c for c in self.children if c.tag == tag]

    def one(self, tag: str) -> Element | None:
        found = self.all(tag)
        return found[0] if found else None

    def single(self, tag: str) -> Element | None:
        """The child ``tag`` the URDF specification allows once (None when absent); a
        repeated one is refused naming both lines, rather than one of them silently used."""
        found = self.all(tag)
        if len(found) > 1:
            raise UrdfError(f"{self.label()} has {len(found)} <{tag}> elements (lines "
                            f"{', '.join(str(c.line) for c in found)}); URDF allows one",
                            found[1].line)
        return found[0] if found else None

    def label(self) -> str:
        name = self.attrib.get("name")
        return f"<{self.tag}>" if name is None else f"<{self.tag} name={name!r}>"


@dataclass(frozen=True)
class Inertial:
    mass: float                 # kg
    center: np.ndarray          # (3,) centre of mass in the link frame, m
    inertia: np.ndarray         # (3, 3) about the centre of mass in link axes, kg m^2
    line: int


@dataclass(frozen=True)
class Geometry:
    kind: str                   # "box", "cylinder", "sphere" or "mesh"
    size: tuple = ()            # box: (x, y, z) m
    radius: float = 0.0         # cylinder, sphere: m
    length: float = 0.0         # cylinder: m, along its z axis
    path: str = ""              # mesh: the file found
    scale: tuple = (1.0, 1.0, 1.0)


@dataclass(frozen=True)
class Visual:
    name: str
    origin: np.ndarray          # (4, 4) the geometry's frame in the link frame
    geometry: Geometry
    material: str               # "" when none
    rgba: tuple | None          # (4,) 0..1, or None when the material gives no colour
    line: int


@dataclass(frozen=True)
class Link:
    name: str
    inertial: Inertial | None
    visuals: tuple
    line: int


@dataclass(frozen=True)
class Limit:
    lower: float                # rad or m
    upper: float
    effort: float               # N m or N (kept, not used by the solver)
    velocity: float             # rad/s or m/s (kept, not used by the solver)


@dataclass(frozen=True)
class Mimic:
    joint: str
    multiplier: float
    offset: float


@dataclass(frozen=True)
class Joint:
    name: str
    kind: str                   # one of JOINT_TYPES
    parent: str
    child: str
    origin: np.ndarray          # (4, 4) the joint frame in the parent link's frame
    axis: np.ndarray            # (3,) unit, joint frame
    limit: Limit | None
    damping: float              # N m s/rad or N s/m
    friction: float             # N m or N
    mimic: Mimic | None
    line: int


@dataclass(frozen=True)
class Robot:
    """A parsed URDF robot.  ``links`` and ``joints`` by name in file order; ``order``: the
    joints from the root outwards (each joint after the one that places its parent);
    ``world``: each link's frame in world at the zero configuration (4x4)."""
    name: str
    links: dict
    joints: dict
    materials: dict             # name -> rgba (4,) or None
    root: str
    order: tuple
    warnings: tuple
    world: dict

    def placements(self, configuration: dict | None = None) -> dict[str, np.ndarray]:
        """Each link's frame in world (4x4, m) with the joints at ``configuration``
        (joint name -> angle in rad or slide in m; a joint not named is at 0)."""
        q = configuration or {}
        unknown = sorted(set(q) - set(self.joints))
        if unknown:
            raise UrdfError(f"configuration names no joint of robot {self.name!r}: {unknown}")
        world = {self.root: np.eye(4)}
        for name in self.order:
            j = self.joints[name]
            world[j.child] = world[j.parent] @ j.origin @ joint_motion(j, float(q.get(name, 0.0)))
        return world


# -- spatial helpers
def rpy_matrix(rpy: Any) -> np.ndarray:
    """R = Rz(yaw) Ry(pitch) Rx(roll) (fixed-axis roll, pitch, yaw; URDF's ``rpy``)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(y), np.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def axis_angle_matrix(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation by ``angle`` (rad) about the unit ``axis`` (Rodrigues' formula)."""
    k = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


def transform(rotation: np.ndarray, translation: Any) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = rotation, translation
    return T


def joint_motion(joint: Joint, q: float) -> np.ndarray:
    """The child frame in the joint frame at coordinate q (rad or m)."""
    if joint.kind in ("revolute", "continuous"):
        return transform(axis_angle_matrix(joint.axis, q), np.zeros(3))
    if joint.kind == "prismatic":
        return transform(np.eye(3), q * joint.axis)
    return np.eye(4)


# -- reading XML with line numbers
def parse_xml(text: str) -> Element:
    """The document's root element; malformed XML raises UrdfError with its line."""
    parser = expat.ParserCreate()
    stack: list[Element] = []
    roots: list[Element] = []

    def start(tag: str, attrib: dict) -> None:
        e = Element(tag, dict(attrib), parser.CurrentLineNumber)
        (stack[-1].children if stack else roots).append(e)
        stack.append(e)

    def end(tag: str) -> None:
        stack.pop()

    parser.StartElementHandler, parser.EndElementHandler = start, end
    try:
        parser.Parse(text.encode("utf-8") if isinstance(text, str) else text, True)
    except expat.ExpatError as exc:
        raise UrdfError(f"malformed XML: {expat.ErrorString(exc.code)} "
                        f"(column {exc.offset + 1})", exc.lineno) from None
    return roots[0]


def xacro_leftovers(root: Element) -> None:
    """Refuse an unexpanded xacro file: a ``<xacro:...>`` element (its macros, properties
    and includes would otherwise be skipped as unknown tags, losing their links and joints)
    or a ``${...}`` / ``$(...)`` substitution in an attribute.  Names the first one found."""
    todo = [root]
    while todo:
        e = todo.pop(0)
        if e.tag.startswith("xacro:"):
            raise UrdfError(f"<{e.tag}> is xacro, not URDF: expand the file with xacro first "
                            "(xacro robot.urdf.xacro > robot.urdf)", e.line)
        for key, value in e.attrib.items():
            if "${" in value or "$(" in value:
                raise UrdfError(f"{e.label()}: {key}={value!r} is a xacro substitution, not "
                                "URDF: expand the file with xacro first "
                                "(xacro robot.urdf.xacro > robot.urdf)", e.line)
        todo.extend(e.children)


def numbers(e: Element, key: str, count: int, default: Any = None) -> np.ndarray:
    """``count`` finite numbers from attribute ``key`` of ``e`` (``default`` when absent)."""
    raw = e.attrib.get(key)
    if raw is None:
        if default is None:
            raise UrdfError(f"{e.label()} needs the attribute {key!r}", e.line)
        return np.array(default, dtype=float)
    try:
        values = np.array([float(s) for s in raw.split()], dtype=float)
    except ValueError:
        values = np.array([])
    if values.shape != (count,) or not np.all(np.isfinite(values)):
        raise UrdfError(f"{e.label()}: {key}={raw!r} is not {count} finite number"
                        f"{'s' if count > 1 else ''}", e.line)
    return values


def number(e: Element, key: str, default: float | None = None) -> float:
    return float(numbers(e, key, 1, None if default is None else [default])[0])


def origin_of(parent: Element) -> np.ndarray:
    """The 4x4 placement an element's ``<origin xyz rpy>`` gives (identity when absent)."""
    o = parent.single("origin")
    if o is None:
        return np.eye(4)
    return transform(rpy_matrix(numbers(o, "rpy", 3, (0, 0, 0))), numbers(o, "xyz", 3, (0, 0, 0)))


# -- links
def read_inertial(link: Element) -> Inertial | None:
    e = link.single("inertial")
    if e is None:
        return None
    where = f"link {link.attrib.get('name')!r}"
    m_el = e.single("mass")
    i_el = e.single("inertia")
    if m_el is None or i_el is None:
        raise UrdfError(f"{where}: <inertial> needs <mass> and <inertia>", e.line)
    mass = number(m_el, "value")
    if mass <= 0.0:
        raise UrdfError(f"{where}: mass must be positive, got {mass:g} kg", m_el.line)
    c = {k: number(i_el, k) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
    inertia = np.array([[c["ixx"], c["ixy"], c["ixz"]], [c["ixy"], c["iyy"], c["iyz"]],
                        [c["ixz"], c["iyz"], c["izz"]]])
    smallest = float(np.linalg.eigvalsh(inertia)[0])
    if smallest <= 0.0:
        raise UrdfError(f"{where}: the inertia is not positive definite (smallest principal "
                        f"moment {smallest:g} kg m^2)", i_el.line)
    T = origin_of(e)
    R = T[:3, :3]
    return Inertial(mass, T[:3, 3].copy(), R @ inertia @ R.T, e.line)


def read_material(e: Element) -> tuple | None:
    color = e.single("color")
    if color is None:
        return None
    rgba = numbers(color, "rgba", 4)
    return tuple(float(v) for v in np.clip(rgba, 0.0, 1.0))


def named_materials(root: Element) -> dict:
    """name -> rgba (or None) of the robot's materials: those at the top level, then the
    first coloured definition of each other name inside a link's visual (which URDF readers
    such as urdfdom share with every visual naming it)."""
    materials = {m.attrib.get("name", ""): read_material(m) for m in root.all("material")}
    for link in root.all("link"):
        for visual in link.all("visual"):
            for m in visual.all("material"):
                name = m.attrib.get("name", "")
                if name and materials.get(name) is None:
                    materials[name] = read_material(m)
    return materials


def resolve_mesh(filename: str, base_dir: str, package_dirs: tuple) -> list[str]:
    """The paths where a mesh ``filename`` may be: ``package://pkg/path`` in each of the
    package folders (as ``folder/pkg/path``, or ``folder/path`` where the folder is the
    package itself), ``file://`` and relative names against the URDF file's folder."""
    if filename.startswith("package://"):
        pkg, _, rest = filename[len("package://"):].partition("/")
        found = []
        for d in package_dirs:
            found.append(os.path.join(d, pkg, rest))
            if os.path.basename(os.path.normpath(d)) == pkg:
                found.append(os.path.join(d, rest))
        return found
    if filename.startswith("file://"):
        filename = filename[len("file://"):]
    return [filename if os.path.isabs(filename) else os.path.join(base_dir, filename)]


def read_geometry(v: Element, where: str, base_dir: str, package_dirs: tuple,
                  warnings: list) -> Geometry | None:
    g = v.single("geometry")
    shapes = [] if g is None else g.children
    if len(shapes) != 1:
        raise UrdfError(f"{where}: <geometry> needs exactly one of box, cylinder, sphere, mesh",
                        (g or v).line)
    s = shapes[0]
    if s.tag == "box":
        return Geometry("box", size=tuple(numbers(s, "size", 3)))
    if s.tag == "cylinder":
        return Geometry("cylinder", radius=number(s, "radius"), length=number(s, "length"))
    if s.tag == "sphere":
        return Geometry("sphere", radius=number(s, "radius"))
    if s.tag == "mesh":
        filename = s.attrib.get("filename")
        if not filename:
            raise UrdfError(f"{where}: <mesh> needs the attribute 'filename'", s.line)
        candidates = resolve_mesh(filename, base_dir, package_dirs)
        found = [p for p in candidates if os.path.isfile(p)]
        if not found:
            looked = ", ".join(candidates) if candidates else "no package folder given"
            warnings.append(f"line {s.line}: {where}: mesh {filename!r} not found "
                            f"(looked in: {looked}); the link is kept without this visual")
            return None
        return Geometry("mesh", path=os.path.abspath(found[0]),
                        scale=tuple(numbers(s, "scale", 3, (1, 1, 1))))
    warnings.append(f"line {s.line}: {where}: geometry <{s.tag}> is not drawn (box, cylinder, "
                    "sphere or mesh are); the link is kept without this visual")
    return None


def read_visuals(link: Element, materials: dict, base_dir: str, package_dirs: tuple,
                 warnings: list) -> tuple:
    out = []
    for k, v in enumerate(link.all("visual")):
        where = f"link {link.attrib['name']!r} visual {k + 1}"
        geometry = read_geometry(v, where, base_dir, package_dirs, warnings)
        if geometry is None:
            continue
        mat = v.single("material")
        name, rgba = "", None
        if mat is not None:
            name = mat.attrib.get("name", "")
            rgba = read_material(mat) or materials.get(name)
        out.append(Visual(v.attrib.get("name", ""), origin_of(v), geometry, name, rgba, v.line))
    return tuple(out)


# -- joints
def read_joint(e: Element, links: dict) -> Joint:
    name = e.attrib.get("name")
    if not name:
        raise UrdfError("<joint> needs a name", e.line)
    what = f"joint {name!r}"
    kind = e.attrib.get("type", "")
    if kind not in JOINT_TYPES:
        raise UrdfError(f"{what}: unknown type {kind!r} (known: {', '.join(JOINT_TYPES)})", e.line)
    ends = []
    for tag in ("parent", "child"):
        el = e.single(tag)
        if el is None or not el.attrib.get("link"):
            raise UrdfError(f"{what} needs <{tag} link=...>", e.line)
        if el.attrib["link"] not in links:
            raise UrdfError(f"{what}: {tag} link {el.attrib['link']!r} is not a link of the robot",
                            el.line)
        ends.append(el.attrib["link"])
    axis_el = e.single("axis")
    axis = numbers(axis_el, "xyz", 3, (1, 0, 0)) if axis_el is not None else np.array([1.0, 0, 0])
    norm = float(np.linalg.norm(axis))
    if kind in MOVING_ONE_AXIS + ("planar",) and norm == 0.0:
        raise UrdfError(f"{what}: the axis is zero", (axis_el or e).line)
    return Joint(name, kind, ends[0], ends[1], origin_of(e), axis / (norm or 1.0),
                 read_limit(e, what, kind), *read_dynamics(e, what), read_mimic(e, what), e.line)


def read_limit(e: Element, what: str, kind: str) -> Limit | None:
    el = e.single("limit")
    if el is None or kind not in ("revolute", "prismatic"):
        return None
    lower, upper = number(el, "lower", 0.0), number(el, "upper", 0.0)
    if lower > upper:
        raise UrdfError(f"{what}: limit lower {lower:g} exceeds upper {upper:g}", el.line)
    if lower == upper:        # (URDF's defaults: both 0 when the limit gives neither)
        missing = " and ".join(key for key in ("lower", "upper") if key not in el.attrib)
        why = f"; {missing} not given, URDF's default 0" if missing else ""
        raise UrdfError(f"{what}: its limit leaves it no range (lower = upper = {lower:g}"
                        f"{why}): give both (a revolute that turns freely is type "
                        "'continuous')", el.line)
    return Limit(lower, upper, number(el, "effort", 0.0), number(el, "velocity", 0.0))


def read_dynamics(e: Element, what: str) -> tuple[float, float]:
    el = e.single("dynamics")
    if el is None:
        return 0.0, 0.0
    damping, friction = number(el, "damping", 0.0), number(el, "friction", 0.0)
    if damping < 0.0 or friction < 0.0:
        raise UrdfError(f"{what}: damping and friction must not be negative", el.line)
    return damping, friction


def read_mimic(e: Element, what: str) -> Mimic | None:
    el = e.single("mimic")
    if el is None:
        return None
    if not el.attrib.get("joint"):
        raise UrdfError(f"{what}: <mimic> needs the attribute 'joint'", el.line)
    return Mimic(el.attrib["joint"], number(el, "multiplier", 1.0), number(el, "offset", 0.0))


# -- the tree
def tree_order(robot_name: str, links: dict, joints: dict) -> tuple[str, tuple]:
    """(root link, joints from the root outwards); one parent per link, no loops, one root."""
    parent_of: dict[str, Joint] = {}
    for j in joints.values():
        if j.child in parent_of:
            raise UrdfError(f"joint {j.name!r}: link {j.child!r} already has the parent joint "
                            f"{parent_of[j.child].name!r} (line {parent_of[j.child].line}); "
                            f"a link has one parent", j.line)
        if j.child == j.parent:
            raise UrdfError(f"joint {j.name!r}: link {j.child!r} is its own parent", j.line)
        parent_of[j.child] = j
    roots = [name for name in links if name not in parent_of]
    if not roots:
        j = next(iter(joints.values()))
        raise UrdfError(f"robot {robot_name!r}: the joints form a loop (every link has a parent; "
                        f"see joint {j.name!r})", j.line)
    if len(roots) > 1:
        raise UrdfError(f"robot {robot_name!r}: links {roots} have no parent joint; a robot is "
                        f"one tree with one root link", links[roots[1]].line)
    children: dict[str, list[Joint]] = {}
    for j in joints.values():
        children.setdefault(j.parent, []).append(j)
    order, todo = [], [roots[0]]
    while todo:
        for j in children.get(todo.pop(0), []):
            order.append(j.name)
            todo.append(j.child)
    left = [j for j in joints.values() if j.name not in order]
    if left:
        raise UrdfError(f"joint {left[0].name!r}: its links form a loop not connected to the root "
                        f"link {roots[0]!r}", left[0].line)
    return roots[0], tuple(order)


def check_mimics(joints: dict) -> None:
    for j in joints.values():
        if j.mimic is None:
            continue
        other = joints.get(j.mimic.joint)
        if other is None:
            raise UrdfError(f"joint {j.name!r}: mimics {j.mimic.joint!r}, which is not a joint",
                            j.line)
        if j.kind not in MOVING_ONE_AXIS or other.kind not in MOVING_ONE_AXIS:
            raise UrdfError(f"joint {j.name!r}: a mimic joint and the joint it follows must be "
                            f"revolute, continuous or prismatic ({j.kind}, {other.kind})", j.line)


def read_robot(text: str, base_dir: str = ".", package_dirs: Any = ()) -> Robot:
    """Parse URDF ``text``; relative mesh names resolve against ``base_dir`` and
    ``package://`` names against ``package_dirs`` (folders)."""
    root = parse_xml(text)
    if root.tag != "robot":
        raise UrdfError(f"the document's root element is <{root.tag}>, not <robot>", root.line)
    xacro_leftovers(root)
    robot_name = root.attrib.get("name", "robot")
    dirs = (package_dirs,) if isinstance(package_dirs, (str, os.PathLike)) else tuple(package_dirs)
    dirs = tuple(os.fspath(d) for d in dirs)
    materials = named_materials(root)
    warnings: list[str] = []
    links: dict[str, Link] = {}
    for e in root.all("link"):
        name = e.attrib.get("name")
        if not name:
            raise UrdfError("<link> needs a name", e.line)
        if name in links:
            raise UrdfError(f"link {name!r} is defined twice (first on line {links[name].line})",
                            e.line)
        links[name] = Link(name, read_inertial(e),
                           read_visuals(e, materials, base_dir, dirs, warnings), e.line)
    if not links:
        raise UrdfError(f"robot {robot_name!r} has no <link>", root.line)
    joints: dict[str, Joint] = {}
    for e in root.all("joint"):
        j = read_joint(e, links)
        if j.name in joints:
            raise UrdfError(f"joint {j.name!r} is defined twice (first on line "
                            f"{joints[j.name].line})", e.line)
        joints[j.name] = j
    check_mimics(joints)
    root_link, order = tree_order(robot_name, links, joints)
    robot = Robot(robot_name, links, joints, materials, root_link, order, tuple(warnings), {})
    return replace(robot, world=robot.placements())


def read_urdf(source: Any, package_dirs: Any = ()) -> Robot:
    """A ``Robot`` from URDF text (a string starting with ``<``) or a file path."""
    if isinstance(source, (str, os.PathLike)) and not str(source).lstrip().startswith("<"):
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as exc:
            raise UrdfError(f"cannot read the URDF file {path!r}: {exc.strerror}") from None
        return read_robot(text, os.path.dirname(os.path.abspath(path)), package_dirs)
    return read_robot(source, os.getcwd(), package_dirs)
