"""The compiled model: a builder's parts, markers, joints and motions as frozen arrays.

``compile_model`` turns a ``vocabulary.builder.Builder`` into a ``Model``: body arrays and one
table of constraint rows (seed 004: a joint is a few scalar primitives, ``vocabulary/joints.py``),
so that the kernels and analyses never touch a Python object per constraint.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ..base.errors import MechanismError
from ..base.rotations import quat_to_matrix
from ..vocabulary.joints import (ANGLE, AT, CAM, COUPLER, CURVE, CURVE_JOINT_ROWS, DIST, DOT1,
                                  DOT2, EVAL_ORDER, JOINT_ROWS, label as _label)
from .force_model import ForceModel, compile_forces


def _frozen(a: Any, dtype: Any = float) -> np.ndarray:
    """A read-only copy of an array."""
    out = np.array(a, dtype=dtype)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class RowGroup:
    """The rows of one primitive kind, as the kernel of that kind reads them.

    ``rows`` is the group's place in the kind-ordered rows (RowPlan.order).  At-point
    groups hold one entry per joint point (three rows each: world x, y, z of P_I - P_J);
    the other kinds one entry per row.  Vectors and points are in body frames (the ground's
    in world)."""
    kind: int
    rows: slice
    bi: np.ndarray        # (n,) body of marker I (nb = ground)
    bj: np.ndarray        # (n,) body of marker J
    ba: np.ndarray        # (n,) body carrying vector a (dot-2: J's, at-point: ground)
    ui: np.ndarray        # (n, 3) point (at, dot-2, distance) or vector (dot-1, angle: x_I) on I
    uj: np.ndarray        # (n, 3) point on J (at, dot-2, distance)
    a: np.ndarray         # (n, 3) vector on J: dot-2 axis, dot-1 b_J, angle x_J
    b: np.ndarray         # (n, 3) second vector on J: angle y_J
    target: np.ndarray    # (n,) distance length


@dataclass(frozen=True)
class RowPlan:
    """Rows grouped by primitive kind (vocabulary.joints.EVAL_ORDER), made once at compile time:
    ``order`` maps kind-ordered position -> model row, ``inv`` back."""
    order: np.ndarray
    inv: np.ndarray
    identity: bool                      # model order is already kind order
    groups: tuple[RowGroup, ...]        # non-empty groups, in EVAL_ORDER


@dataclass(frozen=True)
class CouplerPlan:
    """The couplers' rows (vocabulary/couplers.py: sum_i s_i (q_i - q_i0) = 0), as the
    coupler kernel reads them.  Their joint coordinates are evaluated by the angle and
    dot-2 kernels as ``coords`` groups whose ``rows`` index the coordinate vector (angles
    first, then slides).  Scales are divided by the largest |s_i| u_i (u = 1 rad for an
    angle, the model's length scale for a slide), so a coupler's residual is in radians
    of its largest term and its multiplier in the matching generalized-force unit."""
    coords: tuple[RowGroup, ...]
    n: int                         # coordinates
    is_angle: np.ndarray           # (n,) angle (wraps at +-pi) or slide
    q0: np.ndarray                 # (n,) coordinates in the pose as built (raw angles)
    terms: np.ndarray              # (ncpl, T) coordinate of each term (padding: 0, scale 0)
    scale: np.ndarray              # (ncpl, T) normalized s_i
    count: np.ndarray              # (ncpl,) terms of each coupler
    offset: np.ndarray             # (ncpl,) sum_i s_i q_i0
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    radii: tuple[Any, ...]         # gears' pitch radii (or None)
    pressure: np.ndarray           # (ncpl,) gears' pressure angles, rad
    coupled: tuple[tuple[str, ...], ...]   # each coupler's joints


@dataclass(frozen=True)
class CurvePlan:
    """The curve joints' rows (vocabulary/curve_joints.py), as kernels/curve_rows.py reads
    them, each joint's entry in joint order.  Each curve is in its marker's frame; ``off``
    and ``C`` place that frame in the part's body frame (COM-centred; the ground's in world).
    The contact parameters are tracked values (RowEval.track) from ``first`` on: one per
    point on curve, two (u on curve I, v on curve J) per cam."""
    first: int                     # the parameters' place in the tracked values
    nparam: int
    # point on curve: marker I's point ui on body bi, the curve on body bj
    pc_names: tuple[str, ...]
    pc_bi: np.ndarray
    pc_bj: np.ndarray
    pc_ui: np.ndarray              # (n, 3)
    pc_off: np.ndarray             # (n, 3) marker J's origin in body j
    pc_C: np.ndarray               # (n, 3, 3) marker J's axes in body j
    pc_curve: tuple[Any, ...]
    # cam: curve I on body bi (marker I frame), curve J on body bj (marker J frame)
    cam_names: tuple[str, ...]
    cam_bi: np.ndarray
    cam_bj: np.ndarray
    cam_off: np.ndarray            # (n, 2, 3) markers I, J origins in their bodies
    cam_C: np.ndarray              # (n, 2, 3, 3) markers I, J axes in their bodies
    cam_curve: tuple[tuple[Any, Any], ...]
    cam_sigma: np.ndarray          # (n, 2) turn of closed curves I, J about their marker z:
    #                                +1 counter-clockwise, -1 clockwise, 0 open


@dataclass(frozen=True)
class LimitPlan:
    """The joint limits' bounds (vocabulary/limits.py), one row each (the motion's angle or
    slide row, never among the kept rows until its stop is in resting contact).  The gap
    sgn (q - value) is >= 0 inside the range (sgn +1 for a lower bound, -1 for an upper),
    and the stop's push, -sgn lambda, is >= 0 while it holds."""
    names: tuple[str, ...]         # (nbound,) the limit of each bound
    joints: tuple[str, ...]
    bounds: tuple[str, ...]        # "lower" | "upper"
    rows: np.ndarray               # (nbound,) model row
    value: np.ndarray              # (nbound,) rad or m
    sgn: np.ndarray
    restitution: np.ndarray
    rest_speed: np.ndarray         # rad/s or m/s


@dataclass(frozen=True)
class FrictionPlan:
    """Joint friction elements (vocabulary/friction.py): the coordinate's row (kept only
    while the joint sticks), the joint's own rows (its reaction: the load), marker I (the
    reaction's point) and marker J's axes (the joint axis z) in their bodies' frames."""
    names: tuple[str, ...]
    rows: np.ndarray               # (n,) the coordinate row
    joint_rows: tuple[np.ndarray, ...]
    bi: np.ndarray
    point_i: np.ndarray            # (n, 3) marker I in body bi
    bj: np.ndarray
    axes_j: np.ndarray             # (n, 3, 3) marker J's axes in body bj
    is_angle: np.ndarray
    static: np.ndarray
    dynamic: np.ndarray
    speed: np.ndarray              # transition speed
    viscous: np.ndarray
    preload: np.ndarray
    radius: np.ndarray
    arm: np.ndarray
    length: np.ndarray
    held: np.ndarray               # (n,) a motion drives the coordinate: it never sticks
    stops: tuple[np.ndarray, ...]  # the limit bounds (LimitPlan index) on the same coordinate


@dataclass(frozen=True)
class Model:
    """Frozen arrays of a mechanism (MuJoCo naming: entity_quantity, shapes in comments),
    made once by compile_model and read-only afterwards (arrays not writeable); run state
    lives apart (model/state.py, and each analysis's own workspace).

    Bodies are the moving parts; index ``nb`` is the ground (all fixed parts), whose points
    and axes are stored in world coordinates.
    """
    body_part: tuple[str, ...]    # (nb,) part name of each body
    body_mass: np.ndarray         # (nb,) kg
    body_inertia: np.ndarray      # (nb, 3, 3) about the centre of mass, body (= part) axes
    body_com: np.ndarray          # (nb, 3) centre of mass in the part frame
    body_length: np.ndarray       # (nb,) characteristic length, m (rotation weights)
    body_inverse_mass: np.ndarray  # (nb+1, 6, 6) 1/m I blocks, rotation blocks zero, ground zero
    body_inverse_inertia: np.ndarray  # (nb, 3, 3) inverse of body_inertia, body axes
    gravity: np.ndarray           # (3,)
    # constraint rows, in joint order then motion order
    row_kind: np.ndarray          # (nc,) AT | DOT2 | DIST | DOT1 | ANGLE | COUPLER
    row_bi: np.ndarray            # (nc,) body of marker I (nb = ground)
    row_bj: np.ndarray            # (nc,) body of marker J
    row_ends: np.ndarray          # (nc, E) every body a row touches: (bi, bj), a coupler's
    #                               (bi_1, bj_1, bi_2, bj_2, ...); padding the ground.  A
    #                               row's Jacobian blocks are (E, 6): jac (..., nc, 6 E)
    row_joint: np.ndarray         # (nc,) joint index, -1 for motion and coupler rows
    row_motion: np.ndarray        # (nc,) motion index, -1 for joint and coupler rows
    row_coupler: np.ndarray       # (nc,) coupler index, -1 for joint and motion rows
    row_limit: np.ndarray         # (nc,) limit bound index (LimitPlan), else -1
    row_friction: np.ndarray      # (nc,) friction index (FrictionPlan), else -1
    row_length: np.ndarray        # (nc,) residual unit: the length scale for length rows, else 1
    row_label: tuple[str, ...]    # (nc,) "pin: at-point x"
    plan: RowPlan                 # the rows grouped by kind for the kernels
    joint_names: tuple[str, ...]
    joint_marker_i: tuple[str, ...]
    joint_marker_j: tuple[str, ...]
    motion_names: tuple[str, ...]
    motion_functions: tuple[Any, ...]
    marker_body: Mapping[str, int]          # marker -> body index (nb = ground)
    marker_point: Mapping[str, np.ndarray]  # marker origin in its body frame (ground: world)
    marker_axes: Mapping[str, np.ndarray]   # (3, 3) marker axes (columns) in body frame (ground: world)
    length_scale: float
    forces: ForceModel
    fixed_parts: Mapping[str, tuple[np.ndarray, np.ndarray]]
    couplers: CouplerPlan | None = None
    curves: CurvePlan | None = None
    limits: LimitPlan | None = None
    frictions: FrictionPlan | None = None

    @property
    def ntrack(self) -> int:
        """Tracked values (kernels.constraints.evaluate's ref): the couplers' coordinates,
        then the curve joints' contact parameters."""
        return ((self.couplers.n if self.couplers is not None else 0)
                + (self.curves.nparam if self.curves is not None else 0))

    @property
    def row_width(self) -> int:
        """Entries of a row's Jacobian blocks: 6 per body end (12 without couplers)."""
        return 6 * self.row_ends.shape[1]

    @property
    def constraint_rows(self) -> np.ndarray:
        """Rows of joints and couplers (not motions, not limits): what holds the mechanism
        together."""
        return np.flatnonzero((self.row_motion < 0) & ~self.switched)

    @property
    def switched(self) -> np.ndarray:
        """(nc,) rows held only while a stop rests or a joint sticks (limits, friction)."""
        return (self.row_limit >= 0) | (self.row_friction >= 0)

    @property
    def nb(self) -> int:
        return len(self.body_part)

    @property
    def nc(self) -> int:
        return len(self.row_kind)


def _plan(rows: list[dict], nb: int) -> RowPlan:
    """Group the rows by kind in EVAL_ORDER; at-point rows, which come as x, y, z triples
    per joint point (vocabulary.joints' _AT), become one group entry per point."""
    kinds = np.array([r["kind"] for r in rows], dtype=int)
    order, groups, start = [], [], 0
    for kind in EVAL_ORDER:
        idx = np.flatnonzero(kinds == kind)
        if not idx.size:
            continue
        order.append(idx)
        entries = [rows[k] for k in (idx[::3] if kind == AT else idx)]

        def col(key: str, dtype: Any = float) -> np.ndarray:
            return _frozen([e[key] for e in entries], dtype)
        bi, bj = col("bi", int), col("bj", int)
        ba = bj if kind != AT else _frozen(np.full(len(entries), nb), int)
        groups.append(RowGroup(kind, slice(start, start + len(idx)), bi, bj, ba, col("ui"),
                               col("uj"), col("a"), col("b"), col("target")))
        start += len(idx)
    order_a = np.concatenate(order).astype(int) if order else np.zeros(0, int)
    inv = np.empty(len(order_a), dtype=int)
    inv[order_a] = np.arange(len(order_a))
    return RowPlan(_frozen(order_a, int), _frozen(inv, int),
                   bool(np.all(np.diff(order_a) == 1)), tuple(groups))


def compile_model(mech: Any) -> Model:
    """Arrays of bodies and constraint rows for the mechanism's present placement."""
    if not mech.parts:
        raise MechanismError("the mechanism has no parts")
    moving = [p for p in mech.parts.values() if not p.fixed]
    index = {p.name: i for i, p in enumerate(moving)}
    nb = len(moving)
    rot = {p.name: quat_to_matrix(p.orientation) for p in mech.parts.values()}

    # markers: body-frame (COM-centred) point and axes; ground markers in world
    marker_body, marker_point, marker_axes = {}, {}, {}
    extent = 0.0
    for mk in mech.markers.values():
        part = mech.parts[mk.part]
        C = quat_to_matrix(mk.orientation)
        if part.fixed:
            marker_body[mk.name] = nb
            marker_point[mk.name] = part.position + rot[part.name] @ mk.position
            marker_axes[mk.name] = rot[part.name] @ C
        else:
            marker_body[mk.name] = index[part.name]
            marker_point[mk.name] = mk.position - part.center_of_mass
            marker_axes[mk.name] = C
            extent = max(extent, float(np.linalg.norm(marker_point[mk.name])))
    # the mechanism's size, independent of where it sits in the world: marker arms, radii of
    # gyration, and the spread of the parts and ground points
    for p in moving:
        extent = max(extent, float(np.sqrt(np.trace(p.inertia) / (2.0 * p.mass))))
    points = [p.position + rot[p.name] @ p.center_of_mass for p in moving]
    points += [marker_point[m] for m in marker_point if marker_body[m] == nb]
    if len(points) > 1:
        extent = max(extent, float(np.max(np.ptp(np.array(points), axis=0))))
    length_scale = max(extent, 1e-3)
    body_length = np.full(nb, 0.0)
    for mk in mech.markers.values():
        b = marker_body[mk.name]
        if b < nb:
            body_length[b] = max(body_length[b], float(np.linalg.norm(marker_point[mk.name])))
    body_length = np.where(body_length > 1e-6 * length_scale, body_length, length_scale)

    rows: list[dict] = []
    for jn, (name, jt) in enumerate(mech.joints.items()):
        mi, mj = jt.marker_i, jt.marker_j
        for prim in JOINT_ROWS.get(jt.kind) or CURVE_JOINT_ROWS[jt.kind]:
            row = dict(kind=DOT1, bi=marker_body[mi], bj=marker_body[mj], ui=np.zeros(3),
                       uj=np.zeros(3), a=np.zeros(3), b=np.zeros(3), target=0.0,
                       joint=jn, motion=-1, coupler=-1, label=f"{name}: {_label(prim)}")
            Ci, Cj = marker_axes[mi], marker_axes[mj]
            if prim[0] == "dot1":
                row.update(kind=DOT1, ui=Ci[:, prim[1]], a=Cj[:, prim[2]])
            elif prim[0] == "dot2":
                row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, prim[1]])
            elif prim[0] == "at":
                row.update(kind=AT, ui=marker_point[mi], uj=marker_point[mj])
            elif prim[0] in ("curve", "cam"):       # the kernel reads the CurvePlan
                row.update(kind=CURVE if prim[0] == "curve" else CAM)
            else:
                L = jt.length
                if L is None:
                    L = float(np.linalg.norm(_marker_world(mech, mi) - _marker_world(mech, mj)))
                if L <= 1e-9 * length_scale:
                    raise MechanismError(f"joint {name!r}: distance joint with zero length "
                                         "(use a spherical joint)")
                row.update(kind=DIST, ui=marker_point[mi], uj=marker_point[mj], target=L)
            rows.append(row)
    for mn, (name, mo) in enumerate(mech.motions.items()):
        jt = mech.joints[mo.joint]
        mi, mj = jt.marker_i, jt.marker_j
        Ci, Cj = marker_axes[mi], marker_axes[mj]
        row = dict(bi=marker_body[mi], bj=marker_body[mj], target=0.0,
                   joint=-1, motion=mn, coupler=-1, label=f"{name}: {mo.coordinate} of {mo.joint}")
        if mo.coordinate == "angle":
            row.update(kind=ANGLE, ui=Ci[:, 0], uj=np.zeros(3), a=Cj[:, 0], b=Cj[:, 1])
        else:
            row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, 2],
                       b=np.zeros(3))
        rows.append(row)
    cplan = _couplers(mech, rows, marker_body, marker_point, marker_axes, length_scale, nb)
    lplan = _limits(mech, rows, marker_body, marker_point, marker_axes, length_scale)
    fplan = _frictions(mech, rows, marker_body, marker_point, marker_axes, length_scale, lplan)
    kplan = _curves(mech, marker_body, marker_point, marker_axes, cplan.n if cplan else 0)

    def col(key: str, dtype: Any = float) -> np.ndarray:
        return _frozen([r[key] for r in rows], dtype)

    kinds = col("kind", int)
    width = max([len(r.get("ends", ())) for r in rows] + [2])
    ends = np.full((len(rows), width), nb, dtype=int)
    for k, r in enumerate(rows):
        e = r.get("ends", (r["bi"], r["bj"]))
        ends[k, : len(e)] = e
    row_length = np.where(np.isin(kinds, (AT, DOT2, DIST, CURVE, CAM)), length_scale, 1.0)
    mass = _frozen([p.mass for p in moving])
    inertia = np.reshape([p.inertia for p in moving], (nb, 3, 3)).astype(float)
    minv = np.zeros((nb + 1, 6, 6))       # the constant part of the inverse mass blocks
    minv[:nb, :3, :3] = np.eye(3)[None] / mass[:, None, None]
    fixed = {p.name: (_frozen(p.position), _frozen(p.orientation)) for p in mech.parts.values() if p.fixed}
    for table in (marker_point, marker_axes):
        for key in table:
            table[key] = _frozen(table[key])
    return Model(
        body_part=tuple(p.name for p in moving), body_mass=mass,
        body_inertia=_frozen(inertia),
        body_com=_frozen(np.reshape([p.center_of_mass for p in moving], (nb, 3))),
        body_length=_frozen(body_length), body_inverse_mass=_frozen(minv),
        body_inverse_inertia=_frozen(np.linalg.inv(inertia) if nb else np.zeros((0, 3, 3))),
        gravity=_frozen(mech.gravity),
        row_kind=kinds, row_bi=col("bi", int), row_bj=col("bj", int),
        row_ends=_frozen(ends.reshape(len(rows), width), int),
        row_joint=col("joint", int), row_motion=col("motion", int),
        row_coupler=col("coupler", int),
        row_limit=_frozen([r.get("limit", -1) for r in rows], int),
        row_friction=_frozen([r.get("friction", -1) for r in rows], int),
        row_length=_frozen(row_length), row_label=tuple(r["label"] for r in rows),
        plan=_plan(rows, nb),
        joint_names=tuple(mech.joints), joint_marker_i=tuple(j.marker_i for j in mech.joints.values()),
        joint_marker_j=tuple(j.marker_j for j in mech.joints.values()),
        motion_names=tuple(mech.motions),
        motion_functions=tuple(m.function for m in mech.motions.values()),
        marker_body=MappingProxyType(marker_body), marker_point=MappingProxyType(marker_point),
        marker_axes=MappingProxyType(marker_axes), length_scale=length_scale,
        fixed_parts=MappingProxyType(fixed),
        forces=compile_forces(mech, marker_body, marker_point, marker_axes,
                              lambda mk: _marker_world(mech, mk)),
        couplers=cplan, curves=kplan, limits=lplan, frictions=fplan)


def _coordinate_row(mi: str, mj: str, coordinate: str, marker_body, marker_point, marker_axes,
                    **extra) -> dict:
    """A motion's angle or slide row between markers I and J (also limits and friction)."""
    Ci, Cj = marker_axes[mi], marker_axes[mj]
    row = dict(bi=marker_body[mi], bj=marker_body[mj], target=0.0, joint=-1, motion=-1,
               coupler=-1, **extra)
    if coordinate == "angle":
        row.update(kind=ANGLE, ui=Ci[:, 0], uj=np.zeros(3), a=Cj[:, 0], b=Cj[:, 1])
    else:
        row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, 2], b=np.zeros(3))
    return row


def _frictions(mech: Any, rows: list[dict], marker_body, marker_point, marker_axes,
               length_scale: float, lplan: LimitPlan | None) -> FrictionPlan | None:
    """One row per friction element (appended to ``rows``): its coordinate's row."""
    frictions = getattr(mech, "frictions", {})
    if not frictions:
        return None
    names = list(mech.joints)
    joint_of = np.array([r.get("joint", -1) for r in rows])
    at, jrows, fr = [], [], list(frictions.values())
    for k, fc in enumerate(fr):
        jt = mech.joints[fc.joint]
        jrows.append(_frozen(np.flatnonzero(joint_of == names.index(fc.joint)), int))
        at.append(len(rows))
        rows.append(_coordinate_row(jt.marker_i, jt.marker_j, fc.coordinate, marker_body,
                                    marker_point, marker_axes, friction=k,
                                    label=f"{fc.name}: {fc.coordinate} of {fc.joint} (sticking)"))
    mi = [mech.joints[f.joint].marker_i for f in fr]
    mj = [mech.joints[f.joint].marker_j for f in fr]
    angle = np.array([f.coordinate == "angle" for f in fr])
    speed = [f.transition_speed if f.transition_speed is not None else
             (1e-3 if f.coordinate == "angle" else 1e-3 * length_scale) for f in fr]
    n = len(fr)
    return FrictionPlan(
        tuple(f.name for f in fr), _frozen(at, int), tuple(jrows),
        _frozen([marker_body[m] for m in mi], int), _frozen(np.reshape([marker_point[m] for m in mi], (n, 3))),
        _frozen([marker_body[m] for m in mj], int), _frozen(np.reshape([marker_axes[m] for m in mj], (n, 3, 3))),
        _frozen(angle, bool), _frozen([f.static for f in fr]), _frozen([f.dynamic for f in fr]),
        _frozen(speed), _frozen([f.viscous for f in fr]), _frozen([f.preload for f in fr]),
        _frozen([f.radius for f in fr]), _frozen([f.arm for f in fr]),
        _frozen([f.bearing_length for f in fr]),
        _frozen([any(mo.joint == f.joint and mo.coordinate == f.coordinate
                     for mo in mech.motions.values()) for f in fr], bool),
        tuple(_frozen([b for b, lm in enumerate(lplan.names) if lplan.joints[b] == f.joint
                       and mech.limits[lm].coordinate == f.coordinate] if lplan else [], int)
              for f in fr))


def _limits(mech: Any, rows: list[dict], marker_body, marker_point, marker_axes,
            length_scale: float) -> LimitPlan | None:
    """One row per bound (appended to ``rows``): the motion's angle or slide row."""
    limits = getattr(mech, "limits", {})
    if not limits:
        return None
    names, joints, bounds, at, value, sgn, e, speed = [], [], [], [], [], [], [], []
    for lm in limits.values():
        jt = mech.joints[lm.joint]
        mi, mj = jt.marker_i, jt.marker_j
        Ci, Cj = marker_axes[mi], marker_axes[mj]
        for bound, b, s in (("lower", lm.lower, 1.0), ("upper", lm.upper, -1.0)):
            if b is None:
                continue
            row = dict(bi=marker_body[mi], bj=marker_body[mj], target=0.0, joint=-1, motion=-1,
                       coupler=-1, limit=len(names), label=f"{lm.name}: {bound} {lm.coordinate} of {lm.joint}")
            if lm.coordinate == "angle":
                row.update(kind=ANGLE, ui=Ci[:, 0], uj=np.zeros(3), a=Cj[:, 0], b=Cj[:, 1])
            else:
                row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, 2],
                           b=np.zeros(3))
            at.append(len(rows))
            rows.append(row)
            names.append(lm.name)
            joints.append(lm.joint)
            bounds.append(bound)
            value.append(b)
            sgn.append(s)
            e.append(lm.restitution)
            unit = 1.0 if lm.coordinate == "angle" else length_scale
            speed.append(1e-3 * unit if lm.rest_speed is None else lm.rest_speed)
    return LimitPlan(tuple(names), tuple(joints), tuple(bounds), _frozen(at, int), _frozen(value),
                     _frozen(sgn), _frozen(e), _frozen(speed))


def _curves(mech: Any, marker_body, marker_point, marker_axes, first: int) -> CurvePlan | None:
    """The curve joints' entries (CurvePlan), in joint order."""
    pcs = [j for j in mech.joints.values() if j.kind == "point-on-curve"]
    cams = [j for j in mech.joints.values() if j.kind == "cam"]
    if not pcs and not cams:
        return None

    def arr(x, shape, dtype: Any = float) -> np.ndarray:
        return _frozen(np.reshape(np.array(x, dtype=dtype), shape), dtype)
    n, k = len(pcs), len(cams)
    return CurvePlan(
        first, n + 2 * k,
        tuple(j.name for j in pcs), arr([marker_body[j.marker_i] for j in pcs], (n,), int),
        arr([marker_body[j.marker_j] for j in pcs], (n,), int),
        arr([marker_point[j.marker_i] for j in pcs], (n, 3)),
        arr([marker_point[j.marker_j] for j in pcs], (n, 3)),
        arr([marker_axes[j.marker_j] for j in pcs], (n, 3, 3)), tuple(j.curves[0] for j in pcs),
        tuple(j.name for j in cams), arr([marker_body[j.marker_i] for j in cams], (k,), int),
        arr([marker_body[j.marker_j] for j in cams], (k,), int),
        arr([[marker_point[j.marker_i], marker_point[j.marker_j]] for j in cams], (k, 2, 3)),
        arr([[marker_axes[j.marker_i], marker_axes[j.marker_j]] for j in cams], (k, 2, 3, 3)),
        tuple((j.curves[0], j.curves[1]) for j in cams),
        arr([[_turn(c) for c in j.curves] for j in cams], (k, 2)))


def _turn(curve: Any) -> float:
    """+1 for a closed curve running counter-clockwise about its marker's z, -1 clockwise,
    0 for an open one (twice the signed area of its knots' polygon)."""
    if not curve.closed:
        return 0.0
    x, y = curve.points[:, 0], curve.points[:, 1]
    return float(np.sign(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)))


def _couplers(mech: Any, rows: list[dict], marker_body, marker_point, marker_axes,
              length_scale: float, nb: int) -> CouplerPlan | None:
    """One row per coupler (appended to ``rows``) and the CouplerPlan its kernel reads."""
    couplers = getattr(mech, "couplers", {})
    if not couplers:
        return None
    # the coupled coordinates, each once: angles first, then slides
    keys = sorted({(j, c) for cp in couplers.values() for j, c, _ in cp.terms},
                  key=lambda jc: (jc[1] != "angle", list(mech.joints).index(jc[0])))
    index = {k: i for i, k in enumerate(keys)}
    entries, q0 = [], []
    for jn, coord in keys:
        jt = mech.joints[jn]
        mi, mj = jt.marker_i, jt.marker_j
        Ci, Cj = marker_axes[mi], marker_axes[mj]
        e = dict(bi=marker_body[mi], bj=marker_body[mj], ui=np.zeros(3), uj=np.zeros(3),
                 a=np.zeros(3), b=np.zeros(3), target=0.0)
        Wi, Wj = _world_axes(mech, mi), _world_axes(mech, mj)
        if coord == "angle":        # x_I from x_J about z_J (the motion's angle row)
            e.update(kind=ANGLE, ui=Ci[:, 0], a=Cj[:, 0], b=Cj[:, 1])
            q0.append(np.arctan2(Wi[:, 0] @ Wj[:, 1], Wi[:, 0] @ Wj[:, 0]))
        else:                       # (P_I - P_J) . z_J (the motion's slide row)
            e.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, 2])
            q0.append((_marker_world(mech, mi) - _marker_world(mech, mj)) @ Wj[:, 2])
        entries.append(e)
    groups, start = [], 0
    for kind in (ANGLE, DOT2):
        sel = [e for e in entries if e["kind"] == kind]
        if sel:
            def col(key: str, dtype: Any = float) -> np.ndarray:
                return _frozen([e[key] for e in sel], dtype)
            bj = col("bj", int)
            groups.append(RowGroup(kind, slice(start, start + len(sel)), col("bi", int), bj, bj,
                                   col("ui"), col("uj"), col("a"), col("b"), col("target")))
            start += len(sel)
    T = max(len(cp.terms) for cp in couplers.values())
    terms = np.zeros((len(couplers), T), dtype=int)
    scale = np.zeros((len(couplers), T))
    is_angle = np.array([c == "angle" for _, c in keys])
    for k, (name, cp) in enumerate(couplers.items()):
        idx = [index[(j, c)] for j, c, _ in cp.terms]
        s = np.array([x for _, _, x in cp.terms])
        unit = np.where(is_angle[idx], 1.0, length_scale)
        terms[k, : len(idx)], scale[k, : len(idx)] = idx, s / np.max(np.abs(s) * unit)
        ends = []
        for i in idx:
            ends += [entries[i]["bi"], entries[i]["bj"]]
        rows.append(dict(kind=COUPLER, bi=ends[0], bj=ends[1], ends=tuple(ends), ui=np.zeros(3),
                         uj=np.zeros(3), a=np.zeros(3), b=np.zeros(3), target=0.0, joint=-1,
                         motion=-1, coupler=k, label=f"{name}: {cp.kind}"))
    q0 = np.array(q0, dtype=float)
    return CouplerPlan(tuple(groups), len(keys), _frozen(is_angle, bool), _frozen(q0),
                       _frozen(terms, int), _frozen(scale),
                       _frozen([len(cp.terms) for cp in couplers.values()], int),
                       _frozen(np.sum(scale * q0[terms], axis=1)),
                       tuple(couplers), tuple(cp.kind for cp in couplers.values()),
                       tuple(cp.radii for cp in couplers.values()),
                       _frozen([cp.pressure_angle for cp in couplers.values()]),
                       tuple(tuple(dict.fromkeys(j for j, _, _ in cp.terms)) for cp in couplers.values()))


def _world_axes(mech: Any, marker: str) -> np.ndarray:
    mk = mech.markers[marker]
    return quat_to_matrix(mech.parts[mk.part].orientation) @ quat_to_matrix(mk.orientation)


def _marker_world(mech: Any, marker: str) -> np.ndarray:
    mk = mech.markers[marker]
    part = mech.parts[mk.part]
    return part.position + quat_to_matrix(part.orientation) @ mk.position
