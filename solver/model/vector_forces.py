"""Vector forces: a force and a torque between two markers whose six components are
expressions of time and of the mechanism's state (Adams GFORCE, with its function library's
measures DX, VX, WX, AX, ...), the formula that the force kernels (kernels/forces.py) and the
Result's read-out share.

Conventions.  The force acts on part I at marker I's origin P_I and the torque on part I;
part J takes the opposite force at the same point and the opposite torque (action and
reaction).  Components are along the axes of the element's frame marker (marker J's by
default, or the world's).  The measures, in Adams' sense:
- DX, DY, DZ(i, j[, k]): P_i - P_j along marker k's axes (the world's without k), m; DM(i, j)
  its length;
- VX, VY, VZ(i, j[, k]): V_i - V_j (velocities of the two origins, derivatives taken in the
  world) along k's axes, m/s; VR(i, j) = d DM / dt;
- WX, WY, WZ(i, j[, k]): w_i - w_j (the parts' angular velocities) along k's axes, rad/s;
  WM(i, j) its magnitude;
- AX, AY, AZ(i, j): the rotation vector of i's axes relative to j's, in j's axes (rad; for a
  turn about one of j's axes that angle, as model/bushings.py measures it).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..base.errors import ExpressionError
from ..base.rotations import cross, quat_to_matrix, rotvec_to_quat
from ..vocabulary.expressions import MEASURE_VARIABLE
from .bushings import rotation_vector

# measure name -> (family, component): families D, V, W (a component along k's axes),
# M (|D|), R (VR), N (|W|), A (rotation vector component)
KINDS = {**{f"{f}{a}": (f, i) for f in "DVW" for i, a in enumerate("XYZ")},
         "DM": ("M", 0), "VR": ("R", 0), "WM": ("N", 0),
         **{f"A{a}": ("A", i) for i, a in enumerate("XYZ")}}
_FAMILY = {f: k for k, f in enumerate("DVWMRNA")}


class MeasurePlan(NamedTuple):
    """Every measure the vector forces use, one row each (bodies as in Model, ground last)."""
    family: np.ndarray   # (M,) index into "DVWMRNA"
    comp: np.ndarray     # (M,) 0, 1, 2
    bi: np.ndarray       # (M,) bodies of markers i, j, k
    bj: np.ndarray
    bk: np.ndarray
    si: np.ndarray       # (M, 3) the markers' origins in their bodies' frames
    sj: np.ndarray
    ai: np.ndarray       # (M, 3, 3) the markers' axes in their bodies' frames
    aj: np.ndarray
    ak: np.ndarray


def measure_plan(rows: list[tuple[str, tuple[str, ...]]], marker_body: dict, marker_point: dict,
                 marker_axes: dict, ground: int) -> MeasurePlan:
    """The plan of ``rows`` ((measure name, marker names)), markers as in Model."""
    def of(k: int, table: dict, default: Any, dtype: type, shape: tuple) -> np.ndarray:
        """The k-th marker's entry of ``table`` for every row (``default`` without one: the
        world's, for a k that is not given)."""
        return np.array([table[names[k]] if len(names) > k else default for _, names in rows],
                        dtype=dtype).reshape((-1,) + shape)
    fam = np.array([_FAMILY[KINDS[m][0]] for m, _ in rows], dtype=int)
    comp = np.array([KINDS[m][1] for m, _ in rows], dtype=int)
    zero, eye = np.zeros(3), np.eye(3)
    return MeasurePlan(fam, comp, *(of(k, marker_body, ground, int, ()) for k in range(3)),
                       *(of(k, marker_point, zero, float, (3,)) for k in range(2)),
                       *(of(k, marker_axes, eye, float, (3, 3)) for k in range(3)))


def measure_values(mp: MeasurePlan, r: np.ndarray, A: np.ndarray, v: np.ndarray,
                   w: np.ndarray) -> np.ndarray:
    """(..., M) every measure at the state (arrays with the ground last; leading axes
    carried): all families computed for every row, each row's picked."""
    Ai, Aj = A[..., mp.bi, :, :], A[..., mp.bj, :, :]
    si = (Ai @ mp.si[..., None])[..., 0]
    sj = (Aj @ mp.sj[..., None])[..., 0]
    d = r[..., mp.bi, :] + si - r[..., mp.bj, :] - sj
    wi, wj = w[..., mp.bi, :], w[..., mp.bj, :]
    dv = v[..., mp.bi, :] + cross(wi, si) - v[..., mp.bj, :] - cross(wj, sj)
    dw = wi - wj
    axes = A[..., mp.bk, :, :] @ mp.ak                                  # k's axes, world
    along = np.take_along_axis(axes, _index(mp.comp, axes.shape[:-1] + (1,), 2),
                               axis=-1)[..., 0]                   # (..., M, 3)
    dist = np.sqrt((d * d).sum(-1))
    theta = rotation_vector(np.swapaxes(Aj @ mp.aj, -1, -2) @ (Ai @ mp.ai))
    values = np.stack([(d * along).sum(-1), (dv * along).sum(-1), (dw * along).sum(-1), dist,
                       (d * dv).sum(-1) / np.where(dist > 0.0, dist, 1.0),
                       np.sqrt((dw * dw).sum(-1)),
                       np.take_along_axis(theta, _index(mp.comp, theta.shape[:-1] + (1,), 1),
                                          axis=-1)[..., 0]], axis=-1)
    return np.take_along_axis(values, _index(mp.family, values.shape[:-1] + (1,), 1),
                              axis=-1)[..., 0]


def _index(rows: np.ndarray, shape: tuple, trailing: int) -> np.ndarray:
    """Per-row indices (M,) broadcast to ``shape`` (..., M, then ``trailing`` axes), for
    take_along_axis with leading axes (states) before M."""
    return np.broadcast_to(rows.reshape(rows.shape + (1,) * trailing), shape)


class VectorForceState(NamedTuple):
    """Each vector force at one state (leading axes carried)."""
    arm_i: np.ndarray    # (..., n, 3) P_I from I's centre of mass, world
    arm_j: np.ndarray    # (..., n, 3) P_I from J's centre of mass, world
    F: np.ndarray        # (..., n, 3) force on I, world
    T: np.ndarray        # (..., n, 3) torque on I, world
    rel_v: np.ndarray    # (..., n, 3) P_I's velocity on I minus that of J's point at P_I
    rel_w: np.ndarray    # (..., n, 3) w_I - w_J


def vector_force_state(fm: Any, t: Any, r: np.ndarray, A: np.ndarray, v: np.ndarray,
                       w: np.ndarray) -> VectorForceState:
    """Every vector force of the force model ``fm`` at time(s) t and the state (r, A, v, w)
    (ground last): its components, each expression evaluated once on all the states."""
    n = len(fm.vf_names)
    m = measure_values(fm.vf_measures, r, A, v, w)
    lead = r.shape[:-2]
    comps = np.empty(lead + (n, 6))
    for e in range(n):
        for c, fn in enumerate(fm.vf_funcs[e]):
            comps[..., e, c] = _component(fn, t, m, fm.vf_slices[e][c])
    bi, bj = fm.vf_bi, fm.vf_bj
    Ai = A[..., bi, :, :]
    si = (Ai @ fm.vf_si[..., None])[..., 0]
    gap = r[..., bi, :] + si - r[..., bj, :]                      # P_I from J's centre
    axes = A[..., fm.vf_frame_body, :, :] @ fm.vf_frame_axes
    F = (axes @ comps[..., :3, None])[..., 0]
    T = (axes @ comps[..., 3:, None])[..., 0]
    wi, wj = w[..., bi, :], w[..., bj, :]
    rel_v = v[..., bi, :] + cross(wi, si) - v[..., bj, :] - cross(wj, gap)
    return VectorForceState(si, gap, F, T, rel_v, wi - wj)


def _component(fn: Any, t: Any, m: np.ndarray, cols: tuple[int, int]) -> Any:
    """One component's value(s): a number, or its expression on t and its measures."""
    if not callable(fn):
        return fn
    args = {"t": t}
    if fn.measures:
        args[MEASURE_VARIABLE] = m[..., cols[0]:cols[1]]
    # the measures are arrays, on which numpy gives NaN or inf where a float raises (sqrt
    # of a negative, log(0), overflow): raised here too, so that a value min or max leaves
    # out (max(0, sqrt(DZ(...))) past DZ = 0) fails as it fails for a number, not as 0
    with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
        value = fn(**args)
    if not np.all(np.isfinite(value)):
        raise ExpressionError(f"{fn.name}: the expression {fn.source!r} gives "
                              f"{np.asarray(value).ravel()[0]} (not a finite number)")
    return value


def world_loads(vs: VectorForceState) -> tuple[np.ndarray, np.ndarray]:
    """(on I, on J) (..., n, 6): force and moment about each part's centre of mass."""
    on_i = np.concatenate([vs.F, cross(vs.arm_i, vs.F) + vs.T], axis=-1)
    on_j = np.concatenate([-vs.F, -cross(vs.arm_j, vs.F) - vs.T], axis=-1)
    return on_i, on_j


def power(vs: VectorForceState) -> np.ndarray:
    """(...,) W: the vector forces' power on the mechanism (all of it is work: they have no
    potential)."""
    return ((vs.F * vs.rel_v).sum(-1) + (vs.T * vs.rel_w).sum(-1)).sum(-1)


def body_loads(fm: Any, t: Any, r: np.ndarray, A: np.ndarray, v: np.ndarray,
               w: np.ndarray) -> np.ndarray:
    """(..., nb + 1, 6) the vector forces' loads summed on each body (ground last)."""
    on_i, on_j = world_loads(vector_force_state(fm, t, r, A, v, w))
    Q = np.zeros(r.shape[:-1] + (6,))
    np.add.at(np.moveaxis(Q, -2, 0), np.concatenate([fm.vf_bi, fm.vf_bj]),
              np.moveaxis(np.concatenate([on_i, on_j], axis=-2), -2, 0))
    return Q


def jacobians(fm: Any, t: float, r: np.ndarray, A: np.ndarray, v: np.ndarray,
              w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(dQ/dq, dQ/dv) (nb + 1, 6, nb + 1, 6) of the vector forces' loads at one state, by
    central differences in the coordinates (shift, small world-axes turn) and velocities of
    every part they act on or read (parts I and J, their frames' parts and their measures'
    markers' parts: a damper reading a third part's velocity damps through it, as modes'
    damping must see), steps 1e-6 m, rad, m/s, rad/s."""
    nbg = r.shape[-2]
    K = np.zeros((nbg, 6, nbg, 6))
    C = np.zeros((nbg, 6, nbg, 6))
    h = 1e-6
    mp = fm.vf_measures
    for b in np.unique(np.concatenate([fm.vf_bi, fm.vf_bj, fm.vf_frame_body, mp.bi, mp.bj,
                                       mp.bk])):
        if b == nbg - 1:                          # the ground does not move
            continue
        for c in range(6):
            plus = [x.copy() for x in (r, A, v, w)]
            minus = [x.copy() for x in (r, A, v, w)]
            e = np.zeros(3)
            e[c % 3] = h
            if c < 3:
                plus[0][b] += e
                minus[0][b] -= e
            else:
                plus[1][b] = quat_to_matrix(rotvec_to_quat(e)) @ A[b]
                minus[1][b] = quat_to_matrix(rotvec_to_quat(-e)) @ A[b]
            K[:, :, b, c] = (body_loads(fm, t, *plus) - body_loads(fm, t, *minus)) / (2 * h)
            plus = [r, A] + [x.copy() for x in (v, w)]
            minus = [r, A] + [x.copy() for x in (v, w)]
            plus[2 if c < 3 else 3][b] += e
            minus[2 if c < 3 else 3][b] -= e
            C[:, :, b, c] = (body_loads(fm, t, *plus) - body_loads(fm, t, *minus)) / (2 * h)
    return K, C
