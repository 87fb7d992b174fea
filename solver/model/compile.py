"""The compiled model: a builder's parts, markers, joints and motions as frozen arrays.

``compile_model`` turns a ``vocabulary.builder.Builder`` into a ``Model``: body arrays and one
table of constraint rows (Koh, OndselSolver: a joint is a few scalar primitives, ``vocabulary/joints.py``),
so that the kernels and analyses never touch a Python object per constraint.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ..base.errors import MechanismError
from ..base.rotations import quat_to_matrix
from ..vocabulary.joints import (ANGLE, AT, CAM, CURVE, CURVE_JOINT_ROWS, DIST, DOT1,
                                  DOT2, EULER, EULER_AXES, EVAL_ORDER, JOINT_ROWS,
                                  label as _label)
from .contact_model import contact_plan
from .force_model import ForceModel, compile_forces
from .gear_mesh import meshes
from .islands import island_anchors, island_labels, island_reach, island_sizes
from .reactions import rows_in_turn
from .plans import (CouplerPlan, CurvePlan, FrictionPlan, LimitPlan, RowGroup, _frozen,
                    coordinate_row, couplers, curves, frictions, limits, marker_world, row_group)


@dataclass(frozen=True)
class RowPlan:
    """Rows grouped by primitive kind (vocabulary.joints.EVAL_ORDER), made once at compile time:
    ``order`` maps kind-ordered position -> model row, ``inv`` back."""
    order: np.ndarray
    inv: np.ndarray
    identity: bool                      # model order is already kind order
    groups: tuple[RowGroup, ...]        # non-empty groups, in EVAL_ORDER
    ends: np.ndarray                    # (K,) every group's vector bodies, k-major (RowGroup.turn)
    vecs: np.ndarray                    # (K, 3) and the vectors: all turned by one product
    # whether two groups' kernels or more read their vectors' w x (w x u) for quad
    # (kernels/constraints.py ``evaluate``: then made once for all the groups; a lone group,
    # a chain's at-point rows, makes its own in as many calls), and whether one reads w x u
    rated: bool = False
    crossed: bool = False


_CROSSED = (DOT2, DIST, DOT1, ANGLE)       # kinds whose quad reads w x u of their vectors
_RATED = _CROSSED + (AT,)                  # ... and w x (w x u)


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
    body_size: np.ndarray         # (nb,) m, the size of the body's island (model/islands.py):
    #                               the length its tolerances are relative to
    body_island: np.ndarray       # (nb,) int, the body's island (island_labels): 0, 1, ...
    body_anchor: np.ndarray       # (nb, 3) m, world: where the body's island is held (the
    #                               mean of its ground markers, island_anchors)
    body_inverse_mass: np.ndarray  # (nb+1, 6, 6) 1/m I blocks, rotation blocks zero, ground zero
    body_inverse_inertia: np.ndarray  # (nb, 3, 3) inverse of body_inertia, body axes
    gravity: np.ndarray           # (3,)
    body_weight: np.ndarray       # (nb, 3) m g of each body, N
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
    row_is_length: np.ndarray     # (nc,) bool: a length row (m), not an angle (rad); not
    #                               row_length != 1, which a model 1 m in size has too
    row_label: tuple[str, ...]    # (nc,) "pin: at-point x"
    plan: RowPlan                 # the rows grouped by kind for the kernels
    joint_names: tuple[str, ...]
    joint_kind: tuple[str, ...]   # each joint's kind ("revolute", "point-on-curve", ...)
    joint_marker_i: tuple[str, ...]
    joint_marker_j: tuple[str, ...]
    motion_names: tuple[str, ...]
    motion_functions: tuple[Any, ...]
    marker_body: Mapping[str, int]          # marker -> body index (nb = ground)
    marker_point: Mapping[str, np.ndarray]  # marker origin in its body frame (ground: world)
    marker_axes: Mapping[str, np.ndarray]   # (3, 3) marker axes (columns) in body frame (ground: world)
    length_scale: float
    forces: ForceModel
    fixed_parts: Mapping[str, tuple[np.ndarray, np.ndarray, np.ndarray]]
    couplers: CouplerPlan | None = None
    curves: CurvePlan | None = None
    limits: LimitPlan | None = None
    frictions: FrictionPlan | None = None
    # (nb,) scaled residual the input's rounding can leave in the body's island (its length
    # over the island's size, island_rounding); zeros for exact input
    body_rounding: np.ndarray | None = None
    # (name, marker I, marker J, actuator labels) of each general motion, and the actuators'
    # coordinate rows (one RowGroup of one row each, in that order: Result.actuator_efforts)
    general_motions: tuple[tuple, ...] = ()
    actuators: tuple[RowGroup, ...] = ()
    # the joint each joint motion drives, in motion order (general motions, after them, none)
    motion_joints: tuple[str, ...] = ()

    @cached_property
    def joint_rows_in_turn(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """[(joints, their k-th row among the joint rows)] for k = 0, 1, ...: each joint's
        rows summed in row order a k at a time (reactions.py; made once, every stored frame
        sums its reactions so)."""
        return rows_in_turn(self.row_joint[self.row_joint >= 0])

    @cached_property
    def ntrack(self) -> int:
        """Tracked values (kernels.constraints.evaluate's ref): the couplers' coordinates,
        then the curve joints' contact parameters (made once: a right-hand side reads it
        four times)."""
        return ((self.couplers.n if self.couplers is not None else 0)
                + (self.curves.nparam if self.curves is not None else 0))

    @cached_property
    def input_rounding(self) -> float:
        """The largest scaled residual the input's rounding can leave in any island (0 for
        exact input: whether the input was rounded at all)."""
        return float(np.max(self.body_rounding, initial=0.0)) if self.body_rounding is not None \
            else 0.0

    @cached_property
    def row_rounding(self) -> np.ndarray:
        """(nc,) the scaled residual the input's rounding can leave in each row: its
        islands' (Model.body_rounding), so that an object far from the origin beside a small
        mechanism, joined to nothing of it, does not widen the small one's allowance."""
        if self.body_rounding is None:
            return np.zeros(self.nc)
        return np.append(self.body_rounding, 0.0)[self.row_ends].max(axis=1, initial=0.0)

    def size_of(self, bodies: Any) -> np.ndarray:
        """(...,) m: the size of the mechanism that the bodies (..., k) (indices; the ground
        nb joins nothing) belong to, the largest of their islands' (Model.body_size): the
        length a tolerance on their gaps is relative to."""
        return island_size(self.body_size, bodies)

    @cached_property
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

    @cached_property
    def jacobian_layout(self) -> tuple[np.ndarray, np.ndarray, bool]:
        """Where the rows' Jacobian blocks go in the dense (nc, 6 nb) Jacobian, made once:
        (src, dst, unique) with jac.reshape(..., -1)[..., src] the entries on moving bodies
        and dst their flat positions; ``unique`` False when a row touches a body at two of
        its ends (a coupler of two joints on one part), whose entries must be summed."""
        nc, E = self.row_ends.shape
        ends = np.repeat(self.row_ends, 6, axis=1)                        # (nc, 6 E)
        col = 6 * ends + np.tile(np.arange(6), E)
        moving = ends < self.nb
        src = np.flatnonzero(moving)
        dst = (np.arange(nc)[:, None] * 6 * self.nb + col)[moving]
        return _frozen(src, int), _frozen(dst, int), len(np.unique(dst)) == len(dst)

    @cached_property
    def motion_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, motions, angle) made once: the rows a motion drives, the motion of each
        and where among them the motion drives an angle (wrapped to (-pi, pi])."""
        rows = np.flatnonzero(self.row_motion >= 0)
        ang = np.flatnonzero(np.isin(self.row_kind[rows], (ANGLE, EULER)))
        return _frozen(rows, int), _frozen(self.row_motion[rows], int), _frozen(ang, int)

    @cached_property
    def breakpoints(self) -> np.ndarray:
        """(k,) s ascending: where a motion's or a load's function turns (a step, step5 or
        ramp of t: TimeFunction.breakpoints), made once; a dynamic run's steps end on them
        (a pulse shorter than a step would else be stepped over unseen)."""
        fns = list(self.motion_functions) + self.forces.functions()
        return _frozen(np.unique([b for f in fns for b in getattr(f, "breakpoints", ())]))

    @cached_property
    def nb(self) -> int:
        """Moving bodies (made once, as the other sizes: a step reads them many times)."""
        return len(self.body_part)

    @cached_property
    def nc(self) -> int:
        """Constraint rows."""
        return len(self.row_kind)

    # pickling (a design study's worker sends its Results, each with its Model, back): the
    # read-only mappings go as dicts and come back read-only, the arrays read-only again
    def __getstate__(self) -> dict:
        return {k: dict(v) if isinstance(v, MappingProxyType) else v for k, v in vars(self).items()}

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            if k in _MAPPINGS:
                v = MappingProxyType(v)
            elif isinstance(v, np.ndarray):
                v.setflags(write=False)
            object.__setattr__(self, k, v)


_MAPPINGS = ("marker_body", "marker_point", "marker_axes", "fixed_parts")


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
        groups.append(row_group(kind, slice(start, start + len(idx)), bi, bj, ba, col("ui"),
                                col("uj"), col("a"), col("b"), col("target")))
        start += len(idx)
    order_a = np.concatenate(order).astype(int) if order else np.zeros(0, int)
    inv = np.empty(len(order_a), dtype=int)
    inv[order_a] = np.arange(len(order_a))
    at, turned = 0, []
    for g in groups:                    # each group's vectors' place in the plan's
        turned.append(replace(g, turn=slice(at, at + g.ends.size),
                              grounded=bool(g.bj.size) and bool(np.all(g.bj == nb))))
        at += g.ends.size
    ends = np.concatenate([g.ends.reshape(-1) for g in groups]) if groups else np.zeros(0, int)
    vecs = np.concatenate([g.vecs.reshape(-1, 3) for g in groups]) if groups else np.zeros((0, 3))
    return RowPlan(_frozen(order_a, int), _frozen(inv, int),
                   bool(np.all(np.diff(order_a) == 1)), tuple(turned), _frozen(ends, int),
                   _frozen(vecs), sum(g.kind in _RATED for g in groups) > 1,
                   any(g.kind in _CROSSED for g in groups))


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
    length_scale, body_length, body_size = sizes(mech, moving, marker_body, marker_point)

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
                    L = float(np.linalg.norm(marker_world(mech, mi) - marker_world(mech, mj)))
                check_distance(name, L, length_scale)
                row.update(kind=DIST, ui=marker_point[mi], uj=marker_point[mj], target=L)
            rows.append(row)
    for mn, (name, mo) in enumerate(mech.motions.items()):
        jt = mech.joints[mo.joint]
        rows.append(coordinate_row(jt.marker_i, jt.marker_j, mo.coordinate, marker_body,
                                   marker_point, marker_axes, motion=mn,
                                   label=f"{name}: {mo.coordinate} of {mo.joint}"))
    # a general motion's directions, each a motion of its own after the joints' motions
    motion_names, motion_functions = list(mech.motions), [m.function for m in mech.motions.values()]
    for name, gm in getattr(mech, "general_motions", {}).items():
        Cj = marker_axes[gm.marker_j]
        for axis, fn in zip(gm.axes, gm.functions):
            row = dict(kind=DOT2, bi=marker_body[gm.marker_i], bj=marker_body[gm.marker_j],
                       ui=marker_point[gm.marker_i], uj=marker_point[gm.marker_j],
                       a=Cj[:, "xyz".index(axis)] if axis in "xyz" else Cj[:, 0],
                       b=np.zeros(3), target=0.0, joint=-1, motion=len(motion_names),
                       coupler=-1, label=f"{name}: {axis} of {gm.marker_i} in {gm.marker_j}")
            if axis in EULER_AXES:      # x_I, y_I on I, x_J, y_J on J; target: which angle
                Ci = marker_axes[gm.marker_i]
                row.update(kind=EULER, ui=Ci[:, 0], uj=Ci[:, 1], b=Cj[:, 1],
                           target=float(EULER_AXES.index(axis)))
            rows.append(row)
            motion_names.append(general_motion_name(name, axis))
            motion_functions.append(fn)
    cplan = couplers(mech, rows, marker_body, marker_point, marker_axes, body_size, nb)
    if cplan is not None:
        cplan = replace(cplan, **meshes(mech, mech.couplers, marker_body, marker_point,
                                        marker_axes, length_scale))
    lplan = limits(mech, rows, marker_body, marker_point, marker_axes)
    fplan = frictions(mech, rows, marker_body, marker_point, marker_axes, lplan)
    kplan = curves(mech, marker_body, marker_point, marker_axes, cplan.n if cplan else 0)

    def col(key: str, dtype: Any = float) -> np.ndarray:
        return _frozen([r[key] for r in rows], dtype)

    kinds = col("kind", int)
    width = max([len(r.get("ends", ())) for r in rows] + [2])
    ends = np.full((len(rows), width), nb, dtype=int)
    for k, r in enumerate(rows):
        e = r.get("ends", (r["bi"], r["bj"]))
        ends[k, : len(e)] = e
    is_length = np.isin(kinds, (AT, DOT2, DIST, CURVE, CAM))
    row_length = row_lengths(is_length, ends, body_size)
    mass = _frozen([p.mass for p in moving])
    inertia = np.reshape([p.inertia for p in moving], (nb, 3, 3)).astype(float)
    minv = np.zeros((nb + 1, 6, 6))       # the constant part of the inverse mass blocks
    minv[:nb, :3, :3] = np.eye(3)[None] / mass[:, None, None]
    fixed = {p.name: (_frozen(p.position), _frozen(p.orientation), _frozen(p.center_of_mass))
             for p in mech.parts.values() if p.fixed}
    for table in (marker_point, marker_axes):
        for key in table:
            table[key] = _frozen(table[key])
    return Model(
        body_part=tuple(p.name for p in moving), body_mass=mass,
        body_inertia=_frozen(inertia),
        body_com=_frozen(np.reshape([p.center_of_mass for p in moving], (nb, 3))),
        body_length=_frozen(body_length), body_size=_frozen(body_size),
        body_island=_frozen(island_labels(mech, moving, marker_body), int),
        body_anchor=_frozen(island_anchors(mech, moving, marker_body, marker_point)),
        body_inverse_mass=_frozen(minv),
        body_inverse_inertia=_frozen(np.linalg.inv(inertia) if nb else np.zeros((0, 3, 3))),
        gravity=_frozen(mech.gravity),
        body_weight=_frozen(mass[:, None] * np.asarray(mech.gravity, float)[None, :]),
        row_kind=kinds, row_bi=col("bi", int), row_bj=col("bj", int),
        row_ends=_frozen(ends.reshape(len(rows), width), int),
        row_joint=col("joint", int), row_motion=col("motion", int),
        row_coupler=col("coupler", int),
        row_limit=_frozen([r.get("limit", -1) for r in rows], int),
        row_friction=_frozen([r.get("friction", -1) for r in rows], int),
        row_length=_frozen(row_length), row_is_length=_frozen(is_length, bool), row_label=tuple(r["label"] for r in rows),
        plan=_plan(rows, nb),
        joint_names=tuple(mech.joints), joint_kind=tuple(j.kind for j in mech.joints.values()),
        joint_marker_i=tuple(j.marker_i for j in mech.joints.values()),
        joint_marker_j=tuple(j.marker_j for j in mech.joints.values()),
        motion_names=tuple(motion_names),
        motion_joints=tuple(mo.joint for mo in mech.motions.values()),
        motion_functions=tuple(motion_functions),
        marker_body=MappingProxyType(marker_body), marker_point=MappingProxyType(marker_point),
        marker_axes=MappingProxyType(marker_axes), length_scale=length_scale,
        fixed_parts=MappingProxyType(fixed),
        forces=compile_forces(mech, marker_body, marker_point, marker_axes,
                              lambda mk: marker_world(mech, mk),
                              contact_plan(mech, {p.name: index.get(p.name, nb)
                                                  for p in mech.parts.values()}), rows),
        couplers=cplan, curves=kplan, limits=lplan, frictions=fplan,
        body_rounding=_frozen(island_rounding(mech, moving, marker_body, body_size)),
        general_motions=tuple((n, g.marker_i, g.marker_j, tuple(a[2] for a in g.actuated))
                              for n, g in getattr(mech, "general_motions", {}).items()),
        actuators=actuator_rows(mech, marker_body, marker_point, marker_axes))


# the disagreement of redundant equations that rounding each input coordinate by the unit
# round-off u can leave, in units of u times the largest world coordinate (or the model's
# size, if larger): a marker's point in its part's frame, R^T (x - r), carries a few u |x|
# from the rounded matrix and location, and a loop adds its joints' errors.  Measured: a
# Scotch yoke read from Blender (float32) disagrees by 2.2 u of its size; 8 leaves a margin
# of 3.6.  8 u = 4.8e-7 of the reach, about half of MISMATCH_TOL (assembly.py), above which
# a disagreement is refused anyway: for a mechanism near the world origin, mismatches
# between the two are noted, smaller ones are the input's rounding.  A larger loop may
# exceed it: then the user is told of a disagreement that is rounding, never the other way
ROUNDING_GAP = 8.0


def actuator_rows(mech: Any, marker_body, marker_point, marker_axes) -> tuple[RowGroup, ...]:
    """The coordinate row (a motion's angle or slide row) of every general motion's
    actuators, each a RowGroup of one row, general motions and actuators in order."""
    out = []
    for name, gm in getattr(mech, "general_motions", {}).items():
        for joint, coord, _ in gm.actuated:
            if joint not in mech.joints:
                raise MechanismError(f"general motion {name!r}: actuator {joint!r} is not a joint")
            jt = mech.joints[joint]
            r = coordinate_row(jt.marker_i, jt.marker_j, coord, marker_body, marker_point,
                               marker_axes)
            out.append(row_group(r["kind"], slice(0, 1), *([r[k]] for k in (
                "bi", "bj", "bj", "ui", "uj", "a", "b", "target"))))
    return tuple(out)


def sizes(mech: Any, moving: list, marker_body: Mapping, marker_point: Mapping) -> tuple:
    """(length_scale, body_length (nb,), body_size (nb,)), m.  The mechanism's size,
    independent of where it sits in the world and of other mechanisms beside it: each
    island's marker arms, radii of gyration sqrt(tr I / 2m), and the spread of its parts and
    ground points (model/islands.py), each body's its island's (``body_size``, at least
    1 mm); the model's, the largest island's.  Each part's
    length, the weight of its rotations: its markers' largest arm, or its island's size
    where its markers all sit at its centre of mass (a wheel on its hub: a radius of
    gyration there left statics of a cam whose profile reaches past it without
    convergence).  ``marker_point``: as compile_model makes it (moving parts' markers from
    their centre of mass, ground markers in the world)."""
    nb = len(moving)
    arm = np.zeros(nb)
    for name, b in marker_body.items():
        if b < nb:
            arm[b] = max(arm[b], float(np.linalg.norm(marker_point[name])))
    gyration = np.array([np.sqrt(np.trace(p.inertia) / (2.0 * p.mass)) for p in moving])
    rot = {p.name: quat_to_matrix(p.orientation) for p in moving}
    island = island_sizes(mech, moving, rot, marker_body, marker_point,
                          np.maximum(arm, gyration))
    length_scale = max(float(np.max(island, initial=0.0)), 1e-3)
    island = np.maximum(island, 1e-3)
    return length_scale, np.where(arm > 1e-6 * island, arm, island), island


def row_lengths(is_length: np.ndarray, ends: np.ndarray, body_size: np.ndarray) -> np.ndarray:
    """(nc,) the residual unit of each row: for a length row (m) the size of the island of
    the bodies it touches (``ends`` (nc, E), the ground nb joins nothing), so that Newton's
    stopping rule holds each mechanism to 1e-12 of its own size, not of the largest one
    beside it; 1 for an angle row (rad)."""
    return np.where(is_length, island_size(body_size, ends), 1.0)


def island_size(body_size: np.ndarray, bodies: Any) -> np.ndarray:
    """(...,) m: the largest island size (``body_size`` (nb,)) among the bodies (..., k),
    the ground (index nb) none; 1 mm, the least size, for the ground alone."""
    size = np.append(np.asarray(body_size, float), 0.0)
    return size[np.asarray(bodies, dtype=int)].max(axis=-1, initial=1e-3)


def check_distance(name: str, length: float, length_scale: float) -> None:
    """MechanismError for distance joint ``name`` whose length (m) is zero next to the
    model's size ``length_scale``: its row would have no direction."""
    if length <= 1e-9 * length_scale:
        raise MechanismError(f"joint {name!r}: distance joint with zero length "
                             "(use a spherical joint)")


def general_motion_name(name: str, axis: str) -> str:
    """The motion name of a general motion's direction ("path.x"): its efforts and errors."""
    return f"{name}.{axis}"


def island_rounding(mech: Any, moving: list, marker_body: Mapping,
                    body_size: np.ndarray) -> np.ndarray:
    """(nb,) the scaled residual (length over the island's size ``body_size`` (nb,)) that
    redundant equations may show from the input's rounding alone, in each body's island:
    ROUNDING_GAP times the builder's input_precision times the island's reach from the world
    origin (its parts' and markers' positions, at least its size: float32 rounds each
    coordinate relative to its own size, so a mechanism far from the origin carries a larger
    absolute error, and an object far away beside a small mechanism none of its); zeros for
    exact input."""
    u = float(getattr(mech, "input_precision", 0.0))
    size = np.asarray(body_size, float)
    if u == 0.0:
        return np.zeros(len(moving))
    world = {m: marker_world(mech, m) for m in marker_body}
    reach = np.maximum(island_reach(mech, moving, dict(marker_body), world), size)
    return ROUNDING_GAP * u * reach / size


