"""The compiled model's per-row data and the plans of the rows beyond the joint table:
couplers (vocabulary/couplers.py), curve joints (curve_joints.py), limits (limits.py) and
friction (friction.py), each built from the builder's items by its function here and read
by its kernel or analysis.  ``compile.py`` assembles them into the Model."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from ..base.elementary import arctan2
from ..base.errors import MechanismError
from ..base.rotations import quat_to_matrix
from ..vocabulary.friction import DEFAULT_TRANSITION_SPEED
from ..vocabulary.limits import DEFAULT_PENETRATION, DEFAULT_REST_SPEED
from ..vocabulary.joints import ANGLE, AT, COUPLER, DIST, DOT1, DOT2, EULER, SPIN
from .force_model import driving_motion


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
    ends: np.ndarray      # (k, n) the bodies of the k body-fixed vectors a kind's kernel turns
    vecs: np.ndarray      # (k, n, 3) those vectors (VECTORS), all turned by one product
    turn: slice | None = None   # their place in RowPlan.vecs (all groups' vectors turned
    #                             together by evaluate); None: turned by the kernel itself
    grounded: bool = False      # every row's marker J on the ground (w_J = 0: the kernels
    #                             leave out the terms of J's rates, all zero)


# The body-fixed vectors each kind's kernel turns into world axes, in this order: "i" ui on
# bi (P_I or x_I), "j" uj on bj (P_J), "a" a on ba, "b" b on bj, "I" uj on bi (a ball's
# second axis of I).  Kinds not listed (the tracked rows) turn none.
VECTORS = {AT: "ij", DIST: "ij", DOT1: "ia", DOT2: "ija", ANGLE: "iab", SPIN: "iIab",
           EULER: "iIab"}


def row_group(kind: int, rows: slice, bi, bj, ba, ui, uj, a, b, target) -> RowGroup:
    """A RowGroup from its per-entry columns (read-only copies), with the kind's vectors
    and their bodies stacked (VECTORS)."""
    bi, bj, ba = (_frozen(x, int) for x in (bi, bj, ba))
    ui, uj, a, b = (_frozen(x) for x in (ui, uj, a, b))
    pick = {"i": (bi, ui), "j": (bj, uj), "a": (ba, a), "b": (bj, b), "I": (bi, uj)}
    spec = VECTORS.get(kind, "")
    ends = np.stack([pick[c][0] for c in spec]) if spec else np.zeros((0, len(bi)), int)
    vecs = np.stack([pick[c][1] for c in spec]) if spec else np.zeros((0, len(bi), 3))
    return RowGroup(kind, rows, bi, bj, ba, ui, uj, a, b, _frozen(target),
                    _frozen(ends, int), _frozen(vecs))


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
    # (n,) the motion (its index) that drives each angle coordinate's joint angle, else -1:
    # its value at the start is the coordinate's turn there (analyses/start/assembly.py)
    motion: np.ndarray = field(default_factory=lambda: _frozen((), int))
    # each coupler's gear mesh: "external", "internal", "belt" or "chain" (None: not a gear)
    gear_mesh: tuple[str | None, ...] = ()
    # gears that mesh at a pitch point (model/gear_mesh.py): their rows act there (kernels/
    # constraints.py ``mesh_rows``) through functions of their axles' joints that vanish
    # while the joints hold: (P_I - P_J) . x_J, . y_J, . z_J (``mesh`` group 0, dot-2) and
    # z_I . x_J, . y_J (group 1, dot-1), five per gear ``mesh_rows``, gear 1's then gear 2's
    mesh: tuple[RowGroup, ...] = ()
    mesh_coupler: np.ndarray = field(default_factory=lambda: _frozen((), int))  # (ng,)
    mesh_rows: np.ndarray = field(default_factory=lambda: _frozen(np.zeros((0, 5)), int))
    #                                (2 ng, 5) each gear's five functions
    mesh_bi: np.ndarray = field(default_factory=lambda: _frozen((), int))   # (2 ng,) part I
    mesh_point: np.ndarray = field(default_factory=lambda: _frozen(np.zeros((0, 3))))
    #                                (2 ng, 3) marker I on it
    mesh_bj: np.ndarray = field(default_factory=lambda: _frozen((), int))   # (2 ng,) part J
    mesh_axes: np.ndarray = field(default_factory=lambda: _frozen(np.zeros((0, 3, 3))))
    #                                (2 ng, 3, 3) marker J's axes in it
    mesh_pressure: np.ndarray = field(default_factory=lambda: _frozen(()))  # (ng,) rad
    mesh_helix: np.ndarray = field(default_factory=lambda: _frozen(()))     # (ng,) tan
    mesh_joint: np.ndarray = field(default_factory=lambda: _frozen((), int))  # (2 ng,) joint
    mesh_side: np.ndarray = field(default_factory=lambda: _frozen(()))
    #   (2 ng,) +1: the gear is its joint's part I, -1: part J, 0: the two joints share no
    #   part (the housing), so the teeth's separating force is not added to their reactions
    mesh_sense: np.ndarray = field(default_factory=lambda: _frozen(()))
    #   (2 ng,) the joint coordinate's sign against its part's own turn or slide
    mesh_slide: np.ndarray = field(default_factory=lambda: _frozen(np.zeros((0, 2)), bool))
    #   (ng, 2) a rack's slide term (the pair a rack and pinion)


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
    cam_off: np.ndarray            # (n, 2, 3) markers I, J origins in their bodies
    cam_C: np.ndarray              # (n, 2, 3, 3) markers I, J axes in their bodies
    cam_curve: tuple[tuple[Any, Any], ...]
    cam_sigma: np.ndarray          # (n, 2) turn of closed curves I, J about their marker z:
    #                                +1 counter-clockwise, -1 clockwise, 0 open
    cam_ends: np.ndarray           # (2n,) bodies i, j of each cam in turn (one gather)


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
    stiffness: np.ndarray          # a compliant stop's k; 0: a rigid stop
    exponent: np.ndarray
    damping: np.ndarray            # c_max
    penetration: np.ndarray        # depth of full damping, rad or m
    centre: np.ndarray             # (nbound,) an angle is read on the turn nearest this: its
    #                                limit's middle (both bounds given) or the bound itself
    motion: np.ndarray             # (nbound,) the motion that drives the bound's coordinate,
    #                                -1: none (a driven angle starts on the motion's turn)

    @property
    def compliant(self) -> np.ndarray:
        """(nbound,) True for compliant stops (a force, never a kept row); of a study's
        stacked plan (stiffness (V, ..., nbound)), its first variant's, every variant's
        the same (study/stack.py)."""
        k = self.stiffness
        return (k.reshape(-1, k.shape[-1])[0] if k.ndim > 1 else k) > 0.0


@dataclass(frozen=True)
class FrictionPlan:
    """Joint friction elements (vocabulary/friction.py): the coordinate's rows (kept only
    while the joint sticks: one for an angle or a slide, three SPIN rows for a ball's
    rotation about marker J's x, y, z), the joint's own rows (its reaction: the load),
    marker I (the reaction's point and axes) and marker J's axes (the joint axis z) in
    their bodies' frames.  Element arrays are (n,); component arrays (m,) list each
    element's components in element order, ``first`` where each element's start."""
    names: tuple[str, ...]
    rows: np.ndarray               # (m,) the coordinate rows, by component
    element: np.ndarray            # (m,) the element of each component
    first: np.ndarray              # (n,) each element's first component
    joint_rows: tuple[np.ndarray, ...]
    bi: np.ndarray
    point_i: np.ndarray            # (n, 3) marker I in body bi
    axes_i: np.ndarray             # (n, 3, 3) marker I's axes in body bi
    bj: np.ndarray
    axes_j: np.ndarray             # (n, 3, 3) marker J's axes in body bj
    is_angle: np.ndarray
    is_ball: np.ndarray            # (n,) a spherical joint's rotation (three components)
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

    @cached_property
    def stop_owner(self) -> tuple[np.ndarray, np.ndarray]:
        """(the limit bounds on the friction elements' coordinates, the element of each),
        flat: ``stops`` as two arrays, for one bincount over them."""
        bounds = np.concatenate([np.zeros(0, int), *self.stops]).astype(int)
        owner = np.repeat(np.arange(len(self.stops)), [len(b) for b in self.stops])
        return bounds, owner

    @cached_property
    def inv_length(self) -> np.ndarray:
        """1 / bearing length (0 where the bending moment is ignored)."""
        return np.divide(1.0, self.length, out=np.zeros(self.length.shape), where=self.length > 0.0)

    @cached_property
    def lever(self) -> np.ndarray:
        """What multiplies the side load in the load: an angle's pin radius, 1 on a slide."""
        return np.where(self.is_angle, self.radius, 1.0)

    @cached_property
    def side_levers(self) -> np.ndarray:
        """(n, 2) what multiplies the side force and the side moment in the load: lever and
        lever / bearing length (0 where the bending moment is ignored)."""
        return np.stack([self.lever, self.lever * self.inv_length], axis=-1)

    @cached_property
    def load_weights(self) -> np.ndarray:
        """(..., n, 3) what multiplies the parts of a pin's or slide's load (side force, side
        moment, thrust): side_levers and the thrust arm side by side."""
        return np.concatenate([self.side_levers, self.arm[..., None]], axis=-1)

    @cached_property
    def single(self) -> bool:
        """Every element has one component (no ball): an element's sum over its components
        is that component, and component arrays are element arrays."""
        return len(self.rows) == len(self.names)

    @cached_property
    def kinds(self) -> tuple[bool, bool, bool, tuple[bool, ...]]:
        """(any ball, any viscous friction, any coordinate a motion drives, each element a
        ball (in any variant of a study's stacked plan)): what the right-hand side branches
        on, read once."""
        n = len(self.names)
        return (bool(np.any(self.is_ball)), bool(np.any(self.viscous)), bool(np.any(self.held)),
                tuple(bool(b) for b in np.any(np.reshape(self.is_ball, (-1, n)), axis=0)))

    @cached_property
    def step_span(self) -> tuple[np.ndarray, np.ndarray]:
        """(half the transition speed, dynamic - static): the cubic step of the coefficient
        from static to dynamic over speeds 1 to 1.5 times the transition speed."""
        return 0.5 * self.speed, self.dynamic - self.static

    @cached_property
    def reaction_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        """(bodies (2n,), body-frame vectors (..., 2n, 3)): marker I's point on bi, then
        marker J's z axis on bj, for one product with the bodies' rotations."""
        ends = np.concatenate([self.bi, self.bj])
        vecs = np.concatenate(np.broadcast_arrays(self.point_i, self.axes_j[..., 2]), axis=-2)
        return ends, vecs

    @cached_property
    def reaction_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """(every element's joint rows one after the other, where each element's start):
        the reactions of all elements as one gather and one segment sum."""
        sizes = np.array([len(r) for r in self.joint_rows])
        return np.concatenate(self.joint_rows), np.concatenate([[0], np.cumsum(sizes)[:-1]])


def coordinate_row(mi: str, mj: str, coordinate: str, marker_body, marker_point, marker_axes,
                    **extra) -> dict:
    """A motion's angle or slide row between markers I and J (also limits and friction)."""
    Ci, Cj = marker_axes[mi], marker_axes[mj]
    row = dict(bi=marker_body[mi], bj=marker_body[mj], target=0.0, joint=-1, motion=-1,
               coupler=-1)
    row.update(extra)
    if coordinate == "angle":
        row.update(kind=ANGLE, ui=Ci[:, 0], uj=np.zeros(3), a=Cj[:, 0], b=Cj[:, 1])
    else:
        row.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, 2], b=np.zeros(3))
    return row


def spin_rows(mi: str, mj: str, marker_body, marker_axes, **extra) -> list[dict]:
    """The three SPIN rows of marker I's rotation relative to marker J, about J's x, y, z:
    row k is vee(skew(C_J^T C_I))_k = (a . u_I - b . u'_I) / 2 with u_I, u'_I marker I's
    axes k+1, k+2 and a, b marker J's axes k+2, k+1 (kernels/constraints.py ``spin``)."""
    Ci, Cj = marker_axes[mi], marker_axes[mj]
    out = []
    for k in range(3):
        k1, k2 = (k + 1) % 3, (k + 2) % 3
        row = dict(bi=marker_body[mi], bj=marker_body[mj], target=0.0, joint=-1, motion=-1,
                   coupler=-1, kind=SPIN, ui=Ci[:, k1], uj=Ci[:, k2], a=Cj[:, k2], b=Cj[:, k1])
        row.update(extra)
        row["label"] = f"{row.get('label', 'rotation')} about {'xyz'[k]}_J"
        out.append(row)
    return out


def frictions(mech: Any, rows: list[dict], marker_body, marker_point, marker_axes,
              lplan: LimitPlan | None) -> FrictionPlan | None:
    """The rows of each friction element (appended to ``rows``): its coordinate's row, or
    a ball's three SPIN rows."""
    frictions = getattr(mech, "frictions", {})
    if not frictions:
        return None
    names = list(mech.joints)
    joint_of = np.array([r.get("joint", -1) for r in rows])
    at, element, first, jrows, fr = [], [], [], [], list(frictions.values())
    for k, fc in enumerate(fr):
        jt = mech.joints[fc.joint]
        jrows.append(_frozen(np.flatnonzero(joint_of == names.index(fc.joint)), int))
        first.append(len(at))
        label = f"{fc.name}: {fc.coordinate} of {fc.joint} (sticking)"
        if fc.coordinate == "rotation":
            new = spin_rows(jt.marker_i, jt.marker_j, marker_body, marker_axes, friction=k,
                            label=label)
        else:
            new = [coordinate_row(jt.marker_i, jt.marker_j, fc.coordinate, marker_body,
                                  marker_point, marker_axes, friction=k, label=label)]
        at.extend(range(len(rows), len(rows) + len(new)))
        element.extend([k] * len(new))
        rows.extend(new)
    mi = [mech.joints[f.joint].marker_i for f in fr]
    mj = [mech.joints[f.joint].marker_j for f in fr]
    angle = np.array([f.coordinate != "slide" for f in fr])
    speed = [DEFAULT_TRANSITION_SPEED if f.transition_speed is None else f.transition_speed
             for f in fr]
    n = len(fr)
    return FrictionPlan(
        tuple(f.name for f in fr), _frozen(at, int), _frozen(element, int), _frozen(first, int),
        tuple(jrows),
        _frozen([marker_body[m] for m in mi], int), _frozen(np.reshape([marker_point[m] for m in mi], (n, 3))),
        _frozen(np.reshape([marker_axes[m] for m in mi], (n, 3, 3))),
        _frozen([marker_body[m] for m in mj], int), _frozen(np.reshape([marker_axes[m] for m in mj], (n, 3, 3))),
        _frozen(angle, bool), _frozen([f.coordinate == "rotation" for f in fr], bool),
        _frozen([f.static for f in fr]), _frozen([f.dynamic for f in fr]),
        _frozen(speed), _frozen([f.viscous for f in fr]), _frozen([f.preload for f in fr]),
        _frozen([f.radius for f in fr]), _frozen([f.arm for f in fr]),
        _frozen([f.bearing_length for f in fr]),
        _frozen([any(mo.joint == f.joint and mo.coordinate == f.coordinate
                     for mo in mech.motions.values()) for f in fr], bool),
        tuple(_frozen([b for b, lm in enumerate(lplan.names) if lplan.joints[b] == f.joint
                       and mech.limits[lm].coordinate == f.coordinate] if lplan else [], int)
              for f in fr))


def limits(mech: Any, rows: list[dict], marker_body, marker_point, marker_axes
           ) -> LimitPlan | None:
    """One row per bound (appended to ``rows``): the motion's angle or slide row."""
    limits = getattr(mech, "limits", {})
    if not limits:
        return None
    names, joints, bounds, at, value, sgn, e, speed = [], [], [], [], [], [], [], []
    law = []                                       # (k, n, c_max, d) of compliant stops
    for lm in limits.values():
        jt = mech.joints[lm.joint]
        for bound, b, s in (("lower", lm.lower, 1.0), ("upper", lm.upper, -1.0)):
            if b is None:
                continue
            at.append(len(rows))
            rows.append(coordinate_row(jt.marker_i, jt.marker_j, lm.coordinate, marker_body,
                                       marker_point, marker_axes, limit=len(names),
                                       label=f"{lm.name}: {bound} {lm.coordinate} of {lm.joint}"))
            names.append(lm.name)
            joints.append(lm.joint)
            bounds.append(bound)
            value.append(b)
            sgn.append(s)
            e.append(lm.restitution)
            speed.append(DEFAULT_REST_SPEED if lm.rest_speed is None else lm.rest_speed)
            law.append((lm.stiffness or 0.0, lm.exponent, lm.damping,
                        DEFAULT_PENETRATION if lm.penetration is None else lm.penetration))
    k, n, c, d = (_frozen(x) for x in zip(*law))
    # a range wider than half a turn (lower -3, upper 3 rad) is read on its middle's turn:
    # the shortest angle from one bound would put most of the range outside it
    centre = [0.5 * (limits[nm].lower + limits[nm].upper)
              if limits[nm].lower is not None and limits[nm].upper is not None else v
              for nm, v in zip(names, value)]
    motion = [driving_motion(mech, limits[nm].joint, limits[nm].coordinate) for nm in names]
    return LimitPlan(tuple(names), tuple(joints), tuple(bounds), _frozen(at, int), _frozen(value),
                     _frozen(sgn), _frozen(e), _frozen(speed), k, n, c, d, _frozen(centre),
                     _frozen(motion, int))


def curves(mech: Any, marker_body, marker_point, marker_axes, first: int) -> CurvePlan | None:
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
        tuple(j.name for j in cams),
        arr([[marker_point[j.marker_i], marker_point[j.marker_j]] for j in cams], (k, 2, 3)),
        arr([[marker_axes[j.marker_i], marker_axes[j.marker_j]] for j in cams], (k, 2, 3, 3)),
        tuple((j.curves[0], j.curves[1]) for j in cams),
        arr([[_turn(c) for c in j.curves] for j in cams], (k, 2)),
        arr([[marker_body[j.marker_i], marker_body[j.marker_j]] for j in cams], (2 * k,), int))


def _turn(curve: Any) -> float:
    """+1 for a closed curve running counter-clockwise about its marker's z, -1 clockwise,
    0 for an open one (twice the signed area of its knots' polygon)."""
    if not curve.closed:
        return 0.0
    x, y = curve.points[:, 0], curve.points[:, 1]
    return float(np.sign(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)))


def couplers(mech: Any, rows: list[dict], marker_body, marker_point, marker_axes,
             body_size: np.ndarray, nb: int) -> CouplerPlan | None:
    """One row per coupler (appended to ``rows``) and the CouplerPlan its kernel reads.
    Each row's terms are scaled so that the largest, a slide's in its mechanism's size
    (``body_size`` (nb,), m, of the bodies the coupler joins: coupler_unit), is 1."""
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
        Wi, Wj = world_axes(mech, mi), world_axes(mech, mj)
        if coord == "angle":        # x_I from x_J about z_J (the motion's angle row)
            e.update(kind=ANGLE, ui=Ci[:, 0], a=Cj[:, 0], b=Cj[:, 1])
            q0.append(arctan2(Wi[:, 0] @ Wj[:, 1], Wi[:, 0] @ Wj[:, 0]))
        else:                       # (P_I - P_J) . z_J (the motion's slide row)
            e.update(kind=DOT2, ui=marker_point[mi], uj=marker_point[mj], a=Cj[:, 2])
            q0.append((marker_world(mech, mi) - marker_world(mech, mj)) @ Wj[:, 2])
        entries.append(e)
    groups, start = [], 0
    for kind in (ANGLE, DOT2):
        sel = [e for e in entries if e["kind"] == kind]
        if sel:
            def col(key: str, dtype: Any = float) -> np.ndarray:
                return _frozen([e[key] for e in sel], dtype)
            bj = col("bj", int)
            groups.append(row_group(kind, slice(start, start + len(sel)), col("bi", int), bj, bj,
                                    col("ui"), col("uj"), col("a"), col("b"), col("target")))
            start += len(sel)
    T = max(len(cp.terms) for cp in couplers.values())
    terms = np.zeros((len(couplers), T), dtype=int)
    scale = np.zeros((len(couplers), T))
    is_angle = np.array([c == "angle" for _, c in keys])
    for k, (name, cp) in enumerate(couplers.items()):
        idx = [index[(j, c)] for j, c, _ in cp.terms]
        s = np.array([x for _, _, x in cp.terms])
        if cp.kind == "screw" and cp.terms[0][0] != cp.terms[1][0]:
            s[0] *= screw_sense(mech, name, cp.terms[0][0], cp.terms[1][0], marker_body)
        ends = []
        for i in idx:
            ends += [entries[i]["bi"], entries[i]["bj"]]
        unit = np.where(is_angle[idx], 1.0, coupler_unit(body_size, ends))
        terms[k, : len(idx)], scale[k, : len(idx)] = idx, s / np.max(np.abs(s) * unit)
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
                       tuple(tuple(dict.fromkeys(j for j, _, _ in cp.terms)) for cp in couplers.values()),
                       motion=_frozen([driving_motion(mech, jn) if coord == "angle" else -1
                                       for jn, coord in keys], int),
                       gear_mesh=tuple(cp.mesh for cp in couplers.values()))


def coupler_unit(body_size: np.ndarray, ends: Any) -> float:
    """m: the unit of a coupler's slides, the size of the mechanism of the bodies ``ends``
    it joins (the largest of their ``body_size``; the ground, index nb, none; 1 mm at
    least): a rack's residual in its own mechanism's size, not a larger one's beside it."""
    size = np.append(np.asarray(body_size, float), 0.0)
    return float(size[np.asarray(ends, dtype=int)].max(initial=1e-3))


def screw_sense(mech: Any, name: str, shaft: str, nut: str, marker_body) -> float:
    """+1 or -1: the sign that makes a two-joint screw's relation, written as on one
    cylindrical joint (slide = lead angle / (2 pi), vocabulary/couplers.py), the thread's
    own.  The thread turns the shaft relative to the nut: a right-hand thread moves the
    shaft along the axis a it turns positively about.  The revolute ``shaft`` measures
    its part I's turn relative to its part J about z_J, the prismatic ``nut`` its part I's
    slide relative to its part J along z_J.  Two joints on one common part B (the frame
    holding the shaft and guiding the nut): the shaft's turn relative to the nut is the
    revolute's angle (times -1 if its part I is B), their slide the prismatic's slide
    times -1 (+1 if its part I is B), each along its own z_J: the sense is -(z_Jr . z_Jp)
    sigma_r sigma_p.  Both joints between the same two parts: as one cylindrical joint,
    (z_Jr . z_Jp), times -1 if their parts I differ."""
    jr, jp = mech.joints[shaft], mech.joints[nut]
    ir, jr_, ip, jp_ = (marker_body[m] for m in (jr.marker_i, jr.marker_j, jp.marker_i, jp.marker_j))
    along = float(world_axes(mech, jr.marker_j)[:, 2] @ world_axes(mech, jp.marker_j)[:, 2])
    what = f"screw {name!r}"
    if abs(along) < math.cos(math.radians(45.0)):
        raise MechanismError(
            f"{what}: the axis of {shaft!r} and the slide of {nut!r} are "
            f"{math.degrees(math.acos(max(-1.0, min(1.0, along)))):.0f} degrees apart as built: "
            "a screw's shaft turns about the line its nut slides along")
    if {ir, jr_} == {ip, jp_}:
        return math.copysign(1.0, along) * (1.0 if ir == ip else -1.0)
    common = {ir, jr_} & {ip, jp_}
    if len(common) != 1:
        raise MechanismError(
            f"{what}: joints {shaft!r} and {nut!r} share no part: the revolute must hold the "
            "shaft and the prismatic guide the nut on one common part (the frame), so the "
            "thread's hand can be told")
    base = common.pop()
    sigma_r = 1.0 if jr_ == base else -1.0
    sigma_p = 1.0 if jp_ == base else -1.0
    return -math.copysign(1.0, along) * sigma_r * sigma_p


def coupler_terms(mech: Any, name: str) -> tuple[tuple[str, str, float], ...]:
    """The relation coupler ``name`` of the builder ``mech`` holds, as the solver holds it:
    its terms (joint, "angle" | "slide", scale s_i) in sum s_i (q_i - q_i0) = 0, a
    two-joint screw's angle scale signed by its thread (``screw_sense``); for a tool that
    writes the relation elsewhere (addon/io/mjcf_export.py).  MechanismError for an unknown
    coupler."""
    cp = mech.couplers.get(name)
    if cp is None:
        raise MechanismError(f"unknown coupler {name!r}")
    terms = list(cp.terms)
    if cp.kind == "screw" and terms[0][0] != terms[1][0]:
        parts = {m: mk.part for m, mk in mech.markers.items()}
        joint, coord, scale = terms[0]
        terms[0] = (joint, coord, scale * screw_sense(mech, name, joint, terms[1][0], parts))
    return tuple(terms)


def world_axes(mech: Any, marker: str) -> np.ndarray:
    mk = mech.markers[marker]
    return quat_to_matrix(mech.parts[mk.part].orientation) @ quat_to_matrix(mk.orientation)


def marker_world(mech: Any, marker: str) -> np.ndarray:
    mk = mech.markers[marker]
    part = mech.parts[mk.part]
    return part.position + quat_to_matrix(part.orientation) @ mk.position
