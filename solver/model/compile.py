"""The compiled model: a builder's parts, markers, joints and motions as frozen arrays.

``compile_model`` turns a ``spec.builder.Builder`` into a ``Model``: body arrays and one
table of constraint rows (seed 004: a joint is a few scalar primitives, ``spec/joints.py``),
so that the kernels and analyses never touch a Python object per constraint.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base.errors import MechanismError
from ..base.rotations import quat_to_matrix
from ..spec.joints import ANGLE, DIST, DOT1, DOT2, JOINT_ROWS, label as _label
from .force_model import compile_forces


@dataclass
class Model:
    """Frozen arrays of a mechanism (MuJoCo naming: entity_quantity, shapes in comments).

    Bodies are the moving parts; index ``nb`` is the ground (all fixed parts), whose points
    and axes are stored in world coordinates.
    """
    body_part: list[str]          # (nb,) part name of each body
    body_mass: np.ndarray         # (nb,) kg
    body_inertia: np.ndarray      # (nb, 3, 3) about the centre of mass, body (= part) axes
    body_com: np.ndarray          # (nb, 3) centre of mass in the part frame
    body_length: np.ndarray       # (nb,) characteristic length, m (rotation weights)
    gravity: np.ndarray           # (3,)
    # constraint rows, in joint order then motion order
    row_kind: np.ndarray          # (nc,) DOT1 | DOT2 | DIST | ANGLE
    row_bi: np.ndarray            # (nc,) body of marker I (nb = ground)
    row_bj: np.ndarray            # (nc,) body of marker J
    row_ui: np.ndarray            # (nc, 3) vector (DOT1, ANGLE: x_I) or point (DOT2, DIST) on body I
    row_uj: np.ndarray            # (nc, 3) point on body J (DOT2, DIST)
    row_a: np.ndarray             # (nc, 3) vector on body J (or on ground if not row_a_on_j)
    row_a_on_j: np.ndarray        # (nc,) bool
    row_b: np.ndarray             # (nc, 3) second vector on body J (ANGLE: y_J)
    row_target: np.ndarray        # (nc,) DIST length
    row_joint: np.ndarray         # (nc,) joint index, -1 for motion rows
    row_motion: np.ndarray        # (nc,) motion index, -1 for joint rows
    row_length: np.ndarray        # (nc,) residual unit: the length scale for length rows, else 1
    row_label: list[str]          # (nc,) "pin: at-point x"
    joint_names: list[str]
    joint_marker_i: list[str]
    joint_marker_j: list[str]
    motion_names: list[str]
    motion_functions: list[Any]
    marker_body: dict[str, int]   # marker -> body index (nb = ground)
    marker_point: dict[str, np.ndarray]  # marker origin in its body frame (ground: world)
    marker_axes: dict[str, np.ndarray]   # (3, 3) marker axes (columns) in body frame (ground: world)
    length_scale: float
    forces: Any = None                    # forces.ForceModel
    fixed_parts: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    @property
    def nb(self) -> int:
        return len(self.body_part)

    @property
    def kind_index(self) -> dict:
        """The evaluation plan, made once: the rows grouped by primitive kind (at-point,
        dot-2, distance, dot-1, angle) so that constraints.evaluate works on contiguous
        slices, with the per-row data in that order and the permutation back."""
        ix = self.__dict__.get("_kind_index")
        if ix is None:
            k = self.row_kind
            at = (k == DOT2) & ~self.row_a_on_j                     # a fixed world axis
            groups = [at, (k == DOT2) & self.row_a_on_j, k == DIST, k == DOT1, k == ANGLE]
            order = np.concatenate([np.flatnonzero(g) for g in groups]).astype(int)
            ends = np.cumsum([0] + [int(g.sum()) for g in groups])
            inv = np.empty(len(order), dtype=int)
            inv[order] = np.arange(len(order))
            ix = {"order": order, "inv": inv, "identity": bool(np.all(np.diff(order) == 1)),
                  "at": slice(ends[0], ends[1]), "dot2": slice(ends[1], ends[2]),
                  "dist": slice(ends[2], ends[3]), "point": slice(0, ends[3]),
                  "dot1": slice(ends[3], ends[4]), "angle": slice(ends[4], ends[5]),
                  "ba": np.where(self.row_a_on_j, self.row_bj, self.nb)[order]}
            for key in ("bi", "bj", "ui", "uj", "a", "b", "a_on_j", "target"):
                ix[key] = getattr(self, "row_" + key)[order]
            # at-point rows come as x, y, z triples per joint point (JOINT_ROWS' _AT), so
            # evaluate() computes each point once: at_points is each triple's first row
            n_at = int(ends[1])
            tp = np.arange(0, n_at, 3)
            same = all(np.array_equal(ix[key][tp + k], ix[key][tp]) for k in (1, 2)
                       for key in ("bi", "bj", "ui", "uj"))
            axes = np.tile(np.eye(3), (n_at // 3, 1))
            if n_at % 3 or not same or not np.array_equal(ix["a"][:n_at], axes):
                raise AssertionError("at-point rows must come as x, y, z triples per joint")
            ix["at_points"] = tp
            self.__dict__["_kind_index"] = ix
        return ix

    @property
    def nc(self) -> int:
        return len(self.row_kind)


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
        for prim in JOINT_ROWS[jt.kind]:
            row = dict(kind=DOT1, bi=marker_body[mi], bj=marker_body[mj], ui=np.zeros(3),
                       uj=np.zeros(3), a=np.zeros(3), a_on_j=True, b=np.zeros(3), target=0.0,
                       joint=jn, motion=-1, label=f"{name}: {_label(prim)}")
            Ci, Cj = marker_axes[mi], marker_axes[mj]
            if prim[0] == "dot1":
                row.update(kind=DOT1, ui=Ci[:, prim[1]], a=Cj[:, prim[2]])
            elif prim[0] in ("dot2", "at"):
                row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj])
                if prim[0] == "dot2":
                    row.update(a=Cj[:, prim[1]])
                else:
                    row.update(a=np.eye(3)[prim[1]], a_on_j=False)
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
        row = dict(bi=marker_body[mi], bj=marker_body[mj], a_on_j=True, target=0.0,
                   joint=-1, motion=mn, label=f"{name}: {mo.coordinate} of {mo.joint}")
        if mo.coordinate == "angle":
            row.update(kind=ANGLE, ui=Ci[:, 0], uj=np.zeros(3), a=Cj[:, 0], b=Cj[:, 1])
        else:
            row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, 2],
                       b=np.zeros(3))
        rows.append(row)

    def col(key: str, dtype: Any = float) -> np.ndarray:
        if not rows:
            return np.zeros((0, 3) if key in ("ui", "uj", "a", "b") else (0,), dtype=dtype)
        return np.array([r[key] for r in rows], dtype=dtype)

    kinds = col("kind", int)
    row_length = np.where((kinds == DOT2) | (kinds == DIST), length_scale, 1.0)
    fixed = {p.name: (p.position.copy(), p.orientation.copy()) for p in mech.parts.values() if p.fixed}
    return Model(
        body_part=[p.name for p in moving],
        body_mass=np.array([p.mass for p in moving], dtype=float),
        body_inertia=np.array([p.inertia for p in moving], dtype=float).reshape(nb, 3, 3),
        body_com=np.array([p.center_of_mass for p in moving], dtype=float).reshape(nb, 3),
        body_length=body_length, gravity=mech.gravity.copy(),
        row_kind=kinds, row_bi=col("bi", int), row_bj=col("bj", int), row_ui=col("ui"),
        row_uj=col("uj"), row_a=col("a"), row_a_on_j=col("a_on_j", bool), row_b=col("b"),
        row_target=col("target"), row_joint=col("joint", int), row_motion=col("motion", int),
        row_length=row_length, row_label=[r["label"] for r in rows],
        joint_names=list(mech.joints), joint_marker_i=[j.marker_i for j in mech.joints.values()],
        joint_marker_j=[j.marker_j for j in mech.joints.values()],
        motion_names=list(mech.motions), motion_functions=[m.function for m in mech.motions.values()],
        marker_body=marker_body, marker_point=marker_point, marker_axes=marker_axes,
        length_scale=length_scale, fixed_parts=fixed,
        forces=compile_forces(mech, marker_body, marker_point, marker_axes,
                              lambda mk: _marker_world(mech, mk)))


def _marker_world(mech: Any, marker: str) -> np.ndarray:
    mk = mech.markers[marker]
    part = mech.parts[mk.part]
    return part.position + quat_to_matrix(part.orientation) @ mk.position
