"""Joints on curves without Blender: the curve objects a Point on Curve or Cam joint names,
read from their splines' numbers into the solver's curves in the joint markers' frames, with
the errors that name the joint, the field and the curve object, and what Check says about
how well the solver's curve follows what was drawn.

Fields (properties.py): a point on curve has ``curve``, fixed to marker J's part (the slot
or track that marker I's origin stays on); a cam has ``curve`` on marker J's part (the cam)
and ``follower_curve`` on marker I's part.  Each curve object's first and only spline is
read (several splines are refused: which one would the joint follow?).

Where the curve is.  The curve object is read at its design pose, like a marker: its world
matrix through its parents with a part's matrix from before any bake (the reader's
``design_world``), so a curve parented to its part (the way to draw one: it then moves with
the part in the animation) reads the same on a baked scene at any frame.  That matrix, times
the unit scale (metres per Blender unit), is taken into the marker's frame as built (the
builder's part and marker placements, metres): ``curve_matrix``.  A curve parented to
another part than its marker's is refused; one not parented to a part is read where it is,
and Check notes that it will not move with its part (``loose_note``).

Cams.  The solver wants each cam curve in its marker's xy plane exactly (to 1e-9 of its
size).  Blender stores matrices and points in float32 (unit round-off 6e-8), so a curve
drawn in the plane of a marker that is turned, or far from the origin, reads off it by a
few times 6e-8 of the lengths involved; within FLAT_SHARE (16 times that) of the curve's
size plus its reach (the largest distance of a control point from the marker's origin,
and of the marker from the world origin) the curve is projected onto the plane, beyond it
the cam is refused naming the curve and by how much it leaves the plane.  A point on
curve's curve is flattened the same way when it is that close to the plane (a slot drawn in
it), and read as drawn when it leaves it (a 3D track): left tilted by round-off (1e-7 rad),
a straight slot's binormal row ties a Scotch yoke's crank angle by some 1e-9 at its dead
centre, which the solver's rank test counts, so it takes the crank's motion for an
over-drive.  A spline's curve lies in the convex hull of its control points (Bezier
handles included; NURBS weights are positive), so the control points bound it.

Splines (io/curve_shapes.py): Bezier, poly and NURBS.  A NURBS spline is read with uniform
knots, clamped at the ends with Endpoint, periodic when cyclic; Blender 4.5 and 5.0 draw
exactly that (tests/test_addon_curves.py compares), except with the Bezier knot option, or
Endpoint on a cyclic spline, which use other knots: both are refused with what to change.
A poly spline becomes the smooth curve through its points (a pin cannot turn a corner), so
Check says how far that curve runs from the straight segments Blender draws; a poly of two
points is the straight segment (its midpoint added: the spline needs three points).  A
Bezier point whose handles are not in line (Free or Vector handles) is a corner, which the
solver's smooth curve rounds off: Check names such points (``bezier_corners``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ...solver import Curve, MechanismError
from .curve_shapes import spline_curve, to_frame

# the Kind menu values of the joints on curves -> solver kind
CURVE_KINDS = {"POINT_ON_CURVE": "point-on-curve", "CAM": "cam"}
# the curve fields each kind uses: (property, label, marker whose frame and part it belongs to)
FIELDS = {"POINT_ON_CURVE": (("curve", "Curve", "J"),),
          "CAM": (("curve", "Curve", "J"), ("follower_curve", "Follower Curve", "I"))}
_PICK = {("POINT_ON_CURVE", "curve"): "the slot or track, on marker J's part",
         ("CAM", "curve"): "the cam's profile, on marker J's part",
         ("CAM", "follower_curve"): "the follower's profile, on marker I's part"}
FLAT_SHARE = 1e-6       # a cam curve this share of its size and reach off its plane is flattened
FIT_SHARE = 1e-6        # Check notes a fitting error (or a poly's departure) above this share of the size
CORNER_ANGLE = 1e-4      # rad: a Bezier point whose tangents in and out differ more is a corner
GAP_SAMPLES = 9         # points per span (the middle one included) at which a poly's curve meets its segments

LengthText = Callable[[float], str]


def _metres(m: float) -> str:
    return f"{m:.3g} m"


@dataclass(frozen=True)
class SplineData:
    """A Blender spline's numbers: ``kind`` "BEZIER", "NURBS" or "POLY"; ``co`` (n, 3) its
    points in the curve object's local coordinates; a Bezier's handles ``left``, ``right``
    (n, 3); a NURBS's ``weights`` (n,), ``order`` (order_u), ``endpoint`` (use_endpoint_u),
    ``bezier_knots`` (use_bezier_u); ``cyclic`` (use_cyclic_u)."""
    kind: str
    co: np.ndarray
    cyclic: bool = False
    left: np.ndarray | None = None
    right: np.ndarray | None = None
    weights: np.ndarray | None = None
    order: int = 4
    endpoint: bool = False
    bezier_knots: bool = False

    def control_points(self) -> np.ndarray:
        """(m, 3) the points whose convex hull holds the curve (a Bezier's handles too)."""
        pts = [np.asarray(self.co, dtype=float).reshape(-1, 3)]
        if self.kind == "BEZIER":
            pts += [np.asarray(h, dtype=float).reshape(-1, 3) for h in (self.left, self.right)]
        return np.concatenate(pts)


@dataclass(frozen=True)
class CurveShape:
    """A curve object as a joint reads it: the solver's ``curve`` (metres, marker frame) and
    what to tell the user: ``fit_error`` (m, the fitted spline from the drawn one) and, for a
    poly spline, ``drawn_gap`` (m, the smooth curve from the straight segments drawn)."""
    joint: str
    label: str
    name: str
    kind: str
    curve: Curve
    drawn_gap: float = 0.0
    corners: tuple[int, ...] = ()

    @property
    def fit_error(self) -> float:
        return float(self.curve.fit_error)

    @property
    def size(self) -> float:
        return float(self.curve.size)

    def fit_line(self, length_text: LengthText = _metres) -> str:
        """The panel's line: how closely the solver's curve follows the drawn one (the
        length too when above FIT_SHARE of the size)."""
        limit = FIT_SHARE * self.size
        if self.kind == "POLY":
            if self.drawn_gap <= limit:
                return f"{self.label} {self.name!r}: through its points, as drawn"
            return (f"{self.label} {self.name!r}: the smooth curve through its points, up to "
                    f"{length_text(self.drawn_gap)} from the drawn segments")
        share = f"{self.label} {self.name!r}: fitted to {self.fit_error / self.size:.2g} of its size"
        return share + (f" ({length_text(self.fit_error)})" if self.fit_error > limit else "")

    def note(self, length_text: LengthText = _metres) -> str | None:
        """Check's note when the solver's curve departs from the drawn one by more than
        FIT_SHARE of its size; None otherwise."""
        limit = FIT_SHARE * self.size
        if self.corners:
            which = ", ".join(str(k) for k in self.corners[:5]) + (", ..." if len(self.corners) > 5 else "")
            return (f"joint {self.joint!r}: {self.label} {self.name!r} has a corner at point(s) "
                    f"{which} (handles not in line): the joint follows a smooth curve, which "
                    f"rounds it off (fitted to {length_text(self.fit_error)} where measured); "
                    "make those handles Aligned or Automatic")
        if self.kind == "POLY" and self.drawn_gap > limit:
            return (f"joint {self.joint!r}: {self.label} {self.name!r} is a poly spline: the "
                    f"joint follows the smooth curve through its points, which runs up to "
                    f"{length_text(self.drawn_gap)} from the straight segments drawn (use a "
                    "Bezier or NURBS spline for the shape drawn)")
        if self.fit_error > limit:
            return (f"joint {self.joint!r}: {self.label} {self.name!r} is followed to within "
                    f"{length_text(self.fit_error)} ({self.fit_error / self.size:.2g} of its "
                    "size): sharp bends or corners fit less well")
        return None


def marker_world(origin: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """(4, 4) the rigid world frame of a marker from its origin (3,) and axes (3, 3, columns)."""
    M = np.eye(4)
    M[:3, :3], M[:3, 3] = axes, origin
    return M


def curve_matrix(marker: np.ndarray, curve_world: np.ndarray, scale: float) -> np.ndarray:
    """(4, 4) from a curve object's local coordinates to its marker's frame in metres:
    ``marker`` the marker's rigid world frame (metres, as built), ``curve_world`` the curve
    object's world matrix as designed (Blender units), ``scale`` metres per Blender unit."""
    S = np.diag([scale, scale, scale, 1.0])
    R, p = marker[:3, :3], marker[:3, 3]
    inv = np.eye(4)
    inv[:3, :3], inv[:3, 3] = R.T, -R.T @ p
    return inv @ S @ np.asarray(curve_world, dtype=float)


def flatten(what: str, matrix: np.ndarray, spline: SplineData, marker_reach: float,
            length_text: LengthText = _metres, required: bool = True) -> np.ndarray:
    """``matrix`` followed by the projection onto the marker's xy plane (z = 0) when the
    spline's control points are within FLAT_SHARE of the curve's size and reach of it (float32
    round-off: module docstring); beyond, MechanismError naming ``what`` and the distance
    (``required``: a cam's curve), or ``matrix`` as it is (a point on curve's: a curve
    meant to leave the plane).  ``marker_reach``: the marker's distance from the world
    origin (m)."""
    pts = to_frame(matrix, spline.control_points())
    off = float(np.abs(pts[:, 2]).max())
    size = float(np.ptp(pts, axis=0).max())
    reach = float(np.linalg.norm(pts, axis=1).max()) + marker_reach
    if off > FLAT_SHARE * (size + reach):
        if not required:
            return matrix
        raise MechanismError(f"{what} leaves the marker's xy plane by {length_text(off)}: a cam's "
                             "curves must lie in their markers' xy planes (draw the curve flat "
                             "in that plane, or place the marker in the curve's plane, its z "
                             "axis normal to it)")
    return np.diag([1.0, 1.0, 0.0, 1.0]) @ matrix


def check_spline(what: str, spline: SplineData) -> None:
    """MechanismError naming ``what`` for a spline this module does not read as Blender
    draws it (module docstring), or with too few points."""
    n = len(spline.co)
    if spline.kind == "NURBS":
        if spline.bezier_knots:
            raise MechanismError(f"{what} is a NURBS spline with the Bezier knot option, whose "
                                 "knots are not read: turn Bezier off in the curve's Active "
                                 "Spline panel (or draw a Bezier spline)")
        if spline.cyclic and spline.endpoint:
            raise MechanismError(f"{what} is a cyclic NURBS spline with Endpoint on, whose knots "
                                 "are not read: turn Endpoint off in the curve's Active Spline "
                                 "panel")
        if n < spline.order:
            raise MechanismError(f"{what}: a NURBS spline of order {spline.order} needs at least "
                                 f"{spline.order} points, it has {n}")
    elif spline.kind in ("BEZIER", "POLY"):
        if n < 2:
            raise MechanismError(f"{what}: a {spline.kind.title()} spline needs at least two "
                                 f"points, it has {n}")
    else:
        raise MechanismError(f"{what}: a spline of type {spline.kind!r} is not read (use a "
                             "Bezier, NURBS or poly spline)")


def drawn_gap(curve: Curve) -> float:
    """Largest distance (model units) of a spline through points from the straight segments
    between those points (the polyline Blender draws for a poly spline), at GAP_SAMPLES
    points inside each span."""
    u, P = curve.parameters, curve.points
    if curve.closed:
        u, P = np.append(u, curve.length), np.vstack([P, P[:1]])
    t = (np.arange(1, GAP_SAMPLES + 1) / (GAP_SAMPLES + 1))[None, :]
    uu = u[:-1, None] + t * np.diff(u)[:, None]                      # (spans, k)
    x = curve.evaluate(uu, 0)[0]                                     # (spans, k, 3)
    a, d = P[:-1, None, :], (P[1:] - P[:-1])[:, None, :]
    s = np.clip(np.sum((x - a) * d, axis=-1) / np.sum(d * d, axis=-1), 0.0, 1.0)
    return float(np.linalg.norm(x - (a + s[..., None] * d), axis=-1).max())


def bezier_corners(co: np.ndarray, left: np.ndarray, right: np.ndarray, cyclic: bool) -> tuple[int, ...]:
    """Indices (from 0) of the points of a Bezier spline where it turns a corner: the
    directions in and out differ by more than CORNER_ANGLE.  A direction is that of the
    handle, or where the handle sits on its point (a Vector handle of zero length), of the
    next control point along (the neighbour's handle, then the neighbour)."""
    co, left, right = (np.asarray(x, dtype=float).reshape(-1, 3) for x in (co, left, right))
    n = len(co)
    tiny = 1e-12 * max(float(np.ptp(np.vstack([co, left, right]), axis=0).max()), 1e-300)

    def first(*vectors):
        for v in vectors:
            if np.linalg.norm(v) > tiny:
                return v
        return None

    out = []
    for k in range(n) if cyclic else range(1, n - 1):
        a, b = (k - 1) % n, (k + 1) % n
        d_in = first(co[k] - left[k], co[k] - right[a], co[k] - co[a])
        d_out = first(right[k] - co[k], left[b] - co[k], co[b] - co[k])
        if d_in is None or d_out is None:
            continue
        cos = d_in @ d_out / (np.linalg.norm(d_in) * np.linalg.norm(d_out))
        if np.arccos(np.clip(cos, -1.0, 1.0)) > CORNER_ANGLE:
            out.append(k)
    return tuple(out)


def _reword(what: str, name: str, exc: MechanismError) -> MechanismError:
    """A curve's own error ("curve 'x': ...") as one that names the joint and field."""
    text = str(exc)
    prefix = f"curve {name!r}: "
    return MechanismError(f"{what}: {text[len(prefix):] if text.startswith(prefix) else text}")


def joint_curve(joint: str, label: str, name: str, spline: SplineData, matrix: np.ndarray,
                cam: bool = False, marker_reach: float = 0.0,
                length_text: LengthText = _metres) -> CurveShape:
    """The solver's curve (in the frame ``matrix`` maps the spline into: curve_matrix) of
    curve object ``name`` in field ``label`` of joint ``joint``; a cam's is flattened onto
    the marker's xy plane or refused, a point on curve's flattened when it is drawn in
    that plane (``flatten``).  Errors name the joint, the field and the curve object."""
    what = f"joint {joint!r}: {label} {name!r}"
    check_spline(what, spline)
    matrix = flatten(what, matrix, spline, marker_reach, length_text, required=cam)
    co = np.asarray(spline.co, dtype=float).reshape(-1, 3)
    if spline.kind == "POLY" and len(co) == 2 and not spline.cyclic:
        co = np.array([co[0], 0.5 * (co[0] + co[1]), co[1]])
    try:
        curve = spline_curve(spline.kind, name, matrix, co, spline.cyclic, spline.left,
                             spline.right, spline.weights, spline.order, spline.endpoint)
    except MechanismError as exc:
        raise _reword(what, name, exc) from None
    gap = drawn_gap(curve) if spline.kind == "POLY" else 0.0
    corners = (bezier_corners(spline.co, spline.left, spline.right, spline.cyclic)
               if spline.kind == "BEZIER" else ())
    return CurveShape(joint, label, name, spline.kind, curve, gap, corners)


def unset_message(joint: str, kind: str, field: str, label: str) -> str:
    """The error for a curve field left empty (or whose object was deleted)."""
    return f"joint {joint!r}: {label} is not set: pick the curve object of {_PICK[kind, field]}"


def reshaped_message(what: str, modifiers: Sequence[tuple[str, str]],
                     shape_keys: Sequence[str]) -> str | None:
    """The error for a curve object that the viewport or a render draws otherwise than its
    spline's own points (which a joint reads): ``modifiers`` its modifiers enabled in
    viewports or renders (name, type), ``shape_keys`` its shape keys in effect (a relative key of a value other than 0,
    not muted; every key of an absolute set).  None when there are neither.  Blender keeps
    a curve's modifiers (a Hook, a Lattice) and shape keys out of the spline's numbers, so
    the joint would follow the curve as it was before them."""
    if modifiers:
        name, kind = modifiers[0]
        more = f" (and {len(modifiers) - 1} more)" if len(modifiers) > 1 else ""
        return (f"{what} has modifier {name!r} ({kind.replace('_', ' ').title()}){more}, which "
                "shapes the curve drawn but not the spline the joint follows: apply it (the "
                "modifier's menu, Apply) or turn it off in viewports and renders")
    if shape_keys:
        return (f"{what} has shape key {shape_keys[0]!r} in effect, which shapes the curve drawn "
                "but not the spline the joint follows: set its value to 0, or make it the "
                "curve's shape (Edit Mode, Vertex > Blend from Shape) and delete the shape keys")
    return None


def loose_note(joint: str, label: str, name: str, part: str) -> str:
    """Check's note on a curve not parented to the moving part it belongs to."""
    return (f"joint {joint!r}: {label} {name!r} is not parented to part {part!r}: it is read "
            "where it is now and will not move with the part in the animation (parent it to "
            "the part: select the curve, then the part, Ctrl P)")
