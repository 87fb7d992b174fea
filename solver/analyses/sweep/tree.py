"""The exact poses and rates of an open tree of driven joints, for the kinematic sweep.

Where every part hangs from the ground through a chain of fixed, revolute, prismatic and
cylindrical joints whose coordinates the motions drive, each joint places its part from
its parent's pose and the motions' values (forward kinematics): marker I's axes are marker
J's turned by the angle about z_J, and its origin is J's moved by the slide along z_J
(docs/conventions.md).  Newton then starts on the solution to rounding and stops at once
with its usual test of the residual, instead of two steps from the Taylor prediction;
the velocities and accelerations follow the same way from the motions' derivatives,
without solving J v = nu and J a = gamma.  Anything else (a closed loop, a coupler, a
curve joint, a general motion, limits, friction, a joint flipped on its axis at the
start) keeps the Taylor prediction and the solves: ``tree_poses`` returns None.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...base.elementary import arctan2
from ...base.rotations import cross, matrix_to_quat, quat_angle, quat_to_matrix
from ...model.compile import Model
from ...vocabulary.joints import ANGLE, DOT2

KINDS = ("fixed", "revolute", "prismatic", "cylindrical")
_CONJ = np.array([1.0, -1.0, -1.0, -1.0])
AGREE = 1e-9          # largest start mismatch (of the length scale, or rad) taken as the same pose


@dataclass(frozen=True)
class Level:
    """The joints at one depth of the tree (n of them): each child body's parent (nb: the
    ground); the near marker (on the parent) and far marker (on the child): their points
    (body frame from the centre of mass; the ground's in world), the near marker's z axis;
    the products on the right by the near marker's axes and by the far one's inverse, as
    quaternions (``right_product``); ``sign`` +1 where the far marker is the joint's I, -1 where it is J (the angle and the
    slide then act backwards); the angle's and the slide's motion (-1: none, the angle then
    held at ``angle0``, its value at the start)."""
    child: np.ndarray
    parent: np.ndarray
    near_point: np.ndarray
    far_point: np.ndarray
    near_z: np.ndarray
    times_near: np.ndarray
    times_far: np.ndarray
    sign: np.ndarray
    angle_motion: np.ndarray
    slide_motion: np.ndarray
    angle0: np.ndarray


@dataclass(frozen=True)
class TreePoses:
    """Forward kinematics of an open tree of driven joints, one level of depth at a time
    (a loop over levels, not bodies); ``flip`` (nb,) each body's quaternion sign, so that
    the poses continue the sweep's own Euler parameters."""
    levels: tuple[Level, ...]
    nb: int
    flip: np.ndarray

    def poses(self, fv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(R (F, nb, 3) centres of mass, P (F, nb, 4) Euler parameters) at the motions'
        values fv (F, motions, 3) (value and two derivatives, the sweep's table)."""
        F = len(fv)
        R, P = np.zeros((F, self.nb + 1, 3)), np.zeros((F, self.nb + 1, 4))
        P[:, self.nb, 0] = 1.0                                  # the ground
        for lv in self.levels:
            place(lv, fv, R, P)
        return R[:, : self.nb], P[:, : self.nb] * self.flip[:, None]

    def rates(self, P: np.ndarray, fv: np.ndarray) -> tuple[np.ndarray, ...]:
        """(v, w, a, alpha) (F, nb, 3) each: the centres of mass' velocities and
        accelerations and the angular ones, world axes, at the poses' Euler parameters P
        (F, nb, 4) (``poses``) and the motions' values and derivatives fv (F, motions, 3):
        each joint adds its rates to its parent's (``spread``)."""
        F = len(fv)
        A = np.empty((F, self.nb + 1, 3, 3))
        A[:, : self.nb] = quat_to_matrix(P)
        A[:, self.nb] = np.eye(3)
        out = np.zeros((4, F, self.nb + 1, 3))                 # v, w, a, alpha; ground 0
        for lv in self.levels:
            spread(lv, fv, A, out)
        return tuple(out[:, :, : self.nb])


def place(lv: Level, fv: np.ndarray, R: np.ndarray, P: np.ndarray) -> None:
    """Write the pose of each child of level ``lv`` into R, P (F, nb+1, ...) from its
    parent's: q_child = q_parent q_near qz(sign angle) conj(q_far), the near and far
    markers' axes as quaternions; r_child = r_parent + A_parent (s_near + sign slide
    z_near) - A_child s_far, with z_near the near marker's z in the parent's axes."""
    angle = _motion(fv, lv.angle_motion, lv.angle0)
    slide = _motion(fv, lv.slide_motion, np.zeros(len(lv.child)))
    half = 0.5 * lv.sign * angle
    qp = P[:, lv.parent]
    q = (lv.times_near @ qp[..., None])[..., 0]              # q_parent q_near
    c, s = np.cos(half)[..., None], np.sin(half)[..., None]
    q = c * q + s * q.take(_BY_Z, axis=-1) * _BY_Z_SIGN        # ... qz(sign angle)
    q = (lv.times_far @ q[..., None])[..., 0]                # ... conj(q_far)
    q /= np.sqrt((q * q).sum(axis=-1))[..., None]
    near = lv.near_point + (lv.sign * slide)[..., None] * lv.near_z
    R[:, lv.child] = (R[:, lv.parent] + (quat_to_matrix(qp) @ near[..., None])[..., 0]
                      - (quat_to_matrix(q) @ lv.far_point[..., None])[..., 0])
    P[:, lv.child] = q


def spread(lv: Level, fv: np.ndarray, A: np.ndarray, out: np.ndarray) -> None:
    """Write each child's rates (v, w, a, alpha in ``out`` (4, F, nb+1, 3)) from its
    parent's, by differentiating ``place`` (rigid-body kinematics: z the joint axis in
    world, fixed in both bodies; u_n = A_p s_near, u_f = A_c s_far; d, theta the slide and
    the angle, each times ``sign``):
    w_c = w_p + theta' z, alpha_c = alpha_p + theta'' z + theta' w_p x z,
    v_c = v_p + w_p x u_n + d' z + d w_p x z - w_c x u_f,
    a_c = a_p + alpha_p x u_n + w_p x (w_p x u_n) + d'' z + 2 d' w_p x z
          + d (alpha_p x z + w_p x (w_p x z)) - alpha_c x u_f - w_c x (w_c x u_f)."""
    v, w, a, al = (x[:, lv.parent] for x in out)
    Ap, Ac = A[:, lv.parent], A[:, lv.child]
    z = (Ap @ lv.near_z[..., None])[..., 0]
    un = (Ap @ lv.near_point[..., None])[..., 0]
    uf = (Ac @ lv.far_point[..., None])[..., 0]
    th, d = (lv.sign[:, None] * _derivatives(fv, motion) for motion in (lv.angle_motion, lv.slide_motion))
    d0, d1, d2 = (d[..., k, None] for k in range(3))
    wz = cross(w, z)
    wc = w + th[..., 1, None] * z
    alc = al + th[..., 2, None] * z + th[..., 1, None] * wz
    out[0][:, lv.child] = v + cross(w, un) + d1 * z + d0 * wz - cross(wc, uf)
    out[1][:, lv.child] = wc
    out[2][:, lv.child] = (a + cross(al, un) + cross(w, cross(w, un)) + d2 * z + 2.0 * d1 * wz
                           + d0 * (cross(al, z) + cross(w, wz)) - cross(alc, uf)
                           - cross(wc, cross(wc, uf)))
    out[3][:, lv.child] = alc


def _derivatives(fv: np.ndarray, motion: np.ndarray) -> np.ndarray:
    """(F, n, 3) each joint's driven coordinate with its two derivatives, zero where no
    motion drives it (a held angle, no slide: only the value matters there, and the
    rates are zero)."""
    if not fv.shape[1]:
        return np.zeros((len(fv), len(motion), 3))
    return np.where((motion >= 0)[:, None], fv[:, np.maximum(motion, 0)], 0.0)


# p qz(a) = cos(a/2) p + sin(a/2) (-p3, p2, -p1, p0): a gather and a sign
_BY_Z = np.array([3, 2, 1, 0])
_BY_Z_SIGN = np.array([-1.0, 1.0, -1.0, 1.0])


def right_product(q: np.ndarray) -> np.ndarray:
    """(..., 4, 4) the matrices M with M p = p q (Hamilton product) for quaternions q
    (..., 4): a product on the right as a matrix of the right factor."""
    w, x, y, z = np.moveaxis(q, -1, 0)
    return np.stack([np.stack([w, -x, -y, -z], -1), np.stack([x, w, z, -y], -1),
                     np.stack([y, -z, w, x], -1), np.stack([z, y, -x, w], -1)], -2)


def _motion(fv: np.ndarray, motion: np.ndarray, held: np.ndarray) -> np.ndarray:
    """(F, n) each joint's driven coordinate (its motion's value), ``held`` where none."""
    if not fv.shape[1]:
        return np.broadcast_to(held, (len(fv), len(held)))
    return np.where(motion >= 0, fv[:, np.maximum(motion, 0), 0], held)


def tree_poses(model: Model, keep: np.ndarray, r0: np.ndarray, p0: np.ndarray,
               fv0: np.ndarray) -> TreePoses | None:
    """The forward kinematics of ``model`` if it is an open tree of driven fixed, revolute,
    prismatic and cylindrical joints (every moving body on one joint towards the ground,
    every row kept, each motion a coordinate of one joint) and it reproduces the assembled
    start (r0 (nb, 3), p0 (nb, 4) at the motions' values fv0 (motions, 3)) to AGREE; None
    otherwise (the sweep keeps its Taylor prediction)."""
    nb = model.nb
    if (model.couplers is not None or model.curves is not None or not nb
            or model.limits is not None or model.frictions is not None
            or len(keep) != model.nc or model.nc != 6 * nb
            or any(k not in KINDS for k in model.joint_kind) or len(model.joint_kind) != nb):
        return None
    coords = _joint_coordinates(model)
    if coords is None:
        return None
    levels = _levels(model, coords, p0)
    if levels is None:
        return None
    tree = TreePoses(levels, nb, np.ones(nb))
    R, P = tree.poses(fv0[None])
    if (np.abs(R[0] - r0).max(axis=-1) > AGREE * model.body_size).any():
        return None
    flip = np.where((P[0] * p0).sum(axis=-1) < 0.0, -1.0, 1.0)
    if quat_angle(P[0] * flip[:, None], p0).max() > AGREE:
        return None
    return TreePoses(levels, nb, flip)


def _joint_coordinates(model: Model) -> dict[int, dict[str, int]] | None:
    """Each joint's driven coordinates {"angle": motion, "slide": motion}, from the motion
    rows (each joins the two bodies of exactly one joint, in its I-J order); None where a
    motion is no joint coordinate or a joint's coordinates are not all driven."""
    pair = {}
    for j in range(len(model.joint_kind)):
        key = (model.marker_body[model.joint_marker_i[j]], model.marker_body[model.joint_marker_j[j]])
        if key in pair:                        # two joints between the same bodies: a loop
            return None
        pair[key] = j
    coords: dict[int, dict[str, int]] = {j: {} for j in range(len(model.joint_kind))}
    for k in np.flatnonzero(model.row_motion >= 0).tolist():
        j = pair.get((int(model.row_bi[k]), int(model.row_bj[k])))
        what = {ANGLE: "angle", DOT2: "slide"}.get(int(model.row_kind[k]))
        if j is None or what is None or what in coords[j]:
            return None
        coords[j][what] = int(model.row_motion[k])
    need = {"fixed": set(), "revolute": {"angle"}, "prismatic": {"slide"},
            "cylindrical": {"angle", "slide"}}
    if any(set(c) != need[model.joint_kind[j]] for j, c in coords.items()):
        return None
    return coords


def _levels(model: Model, coords: dict, p0: np.ndarray) -> tuple[Level, ...] | None:
    """The joints by depth from the ground (their held angles from the start's Euler
    parameters p0 (nb, 4)); None unless each moving body hangs on exactly one joint below
    its parent (an open tree reaching every body)."""
    nb = model.nb
    mi, mj = list(model.joint_marker_i), list(model.joint_marker_j)
    bi = np.array([model.marker_body[m] for m in mi])
    bj = np.array([model.marker_body[m] for m in mj])
    placed = np.zeros(nb + 1, dtype=bool)
    placed[nb] = True
    todo = np.ones(len(bi), dtype=bool)
    held = _held_angles(model, p0)
    levels = []
    while todo.any():
        js = np.flatnonzero(todo & (placed[bi] != placed[bj]))
        if not js.size:
            return None
        j_near = placed[bj[js]]
        child = np.where(j_near, bi[js], bj[js])
        if len(np.unique(child)) < len(child):
            return None                          # a body reached twice: a loop
        near = [mj[j] if n else mi[j] for j, n in zip(js.tolist(), j_near.tolist())]
        far = [mi[j] if n else mj[j] for j, n in zip(js.tolist(), j_near.tolist())]
        levels.append(Level(
            child, np.where(j_near, bj[js], bi[js]),
            np.array([model.marker_point[m] for m in near]),
            np.array([model.marker_point[m] for m in far]),
            np.array([model.marker_axes[m][:, 2] for m in near]),
            right_product(matrix_to_quat(np.array([model.marker_axes[m] for m in near]))),
            right_product(matrix_to_quat(np.array([model.marker_axes[m] for m in far])) * _CONJ),
            np.where(j_near, 1.0, -1.0),
            np.array([coords[j].get("angle", -1) for j in js.tolist()]),
            np.array([coords[j].get("slide", -1) for j in js.tolist()]),
            held[js]))
        placed[child] = True
        todo[js] = False
    return tuple(levels) if placed.all() else None


def _held_angles(model: Model, p0: np.ndarray) -> np.ndarray:
    """Each joint's angle (x_I from x_J about z_J) at the assembled start: the angle a joint
    without an angle motion (fixed, prismatic) keeps."""
    A = np.concatenate([quat_to_matrix(p0), np.eye(3)[None]])          # the ground last
    axes = []
    for names in (model.joint_marker_i, model.joint_marker_j):
        body = np.array([model.marker_body[m] for m in names])
        C = np.array([model.marker_axes[m] for m in names]).reshape(-1, 3, 3)
        axes.append(A[body] @ C)
    xi = axes[0][..., 0]
    return arctan2((xi * axes[1][..., 1]).sum(-1), (xi * axes[1][..., 0]).sum(-1))
