"""Bushings: six-component linear spring-dampers between two markers (Adams BUSHING), the
formula that the force kernels (kernels/forces.py) and the Result's read-out share.

Marker I on part I, marker J on part J.  In marker J's axes:
- the displacement d = R_J^T (P_I - P_J) (m) and the rotation vector theta of I's axes
  relative to J's, R_J^T R_I = exp([theta x]) (rad; for a turn about one of J's axes it is
  that angle, as Adams' AX, AY, AZ; to first order any small rotation's three angles);
- their rates: d_dot = R_J^T (V_I - V_J - w_J x (P_I - P_J)) (the displacement's rate seen
  from J) and the relative angular velocity w_rel = R_J^T (w_I - w_J);
- the force and torque on I, F = -K_t d - C_t d_dot + F_0 and T = -K_r theta - C_r w_rel + T_0
  (each K, C diagonal: three stiffnesses and dampings along and three about J's axes; F_0,
  T_0 the preload, the load at zero displacement), applied at P_I; part J takes -F at the
  same point and -T (action and reaction).

Energy: the translational part is exactly conservative, U_t = d^T K_t d / 2 - F_0 . d.  The
rotational part's U_r = theta^T K_r theta / 2 - T_0 . theta is its potential when K_r is
isotropic and T_0 = 0 (the torque is then along theta); otherwise the torque's power
differs from -dU_r/dt by T . (w_rel - theta_dot), with theta_dot = J_l^-1(theta) w_rel
(the left Jacobian of SO(3); Barfoot 2017, eq. 7.86), which the run books as work so that
kinetic + potential - work stays exact.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..base.elementary import arctan2
from ..base.rotations import cross, quat_to_matrix, rotvec_to_quat


class BushingState(NamedTuple):
    """Each bushing at one state (leading axes carried), marker J's axes unless stated."""
    arm_i: np.ndarray    # (..., n, 3) P_I from I's centre of mass, world
    arm_j: np.ndarray    # (..., n, 3) P_I from J's centre of mass, world
    Rj: np.ndarray       # (..., n, 3, 3) marker J's axes in world (columns)
    disp: np.ndarray     # (..., n, 6) d (m), theta (rad)
    rate: np.ndarray     # (..., n, 6) d_dot (m/s), w_rel (rad/s)
    load: np.ndarray     # (..., n, 6) force (N) and torque (N m) on I


def rotation_vector(R: np.ndarray) -> np.ndarray:
    """theta (..., 3) with exp([theta x]) = R, |theta| <= pi: from the unit quaternion
    (w >= 0) by 2 atan2(|q_v|, w) q_v / |q_v| (its series near zero)."""
    tr = R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2]
    axial = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                      R[..., 1, 0] - R[..., 0, 1]], axis=-1)          # 2 sin(a) u
    cos_a = np.clip(0.5 * (tr - 1.0), -1.0, 1.0)
    sin_a = 0.5 * np.sqrt((axial * axial).sum(-1))
    angle = arctan2(sin_a, cos_a)
    small = sin_a < 1e-6
    # near a half turn sin(a) vanishes: the axis from the symmetric part instead
    k = np.where(small & (cos_a > 0), 0.5 * (1.0 + angle * angle / 6.0),
                 angle / (2.0 * np.where(small, 1.0, sin_a)))
    theta = k[..., None] * axial
    flip = small & (cos_a < 0)
    if np.any(flip):          # (only those: at no turn _half_turn's axis would be 0 / 0)
        theta[flip] = _half_turn(R[flip])
    return theta


def _half_turn(R: np.ndarray) -> np.ndarray:
    """Rotation vectors of turns near pi, where the antisymmetric part vanishes: R + R^T =
    2 cos(a) I + 2 (1 - cos(a)) u u^T gives the axis (its largest column), the
    antisymmetric part its sign."""
    cos_a = np.clip(0.5 * (R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2] - 1.0), -1.0, 1.0)
    B = ((0.5 * (R + np.swapaxes(R, -1, -2)) - cos_a[..., None, None] * np.eye(3))
         / (1.0 - cos_a)[..., None, None])
    col = np.argmax(np.stack([B[..., 0, 0], B[..., 1, 1], B[..., 2, 2]], -1), axis=-1)
    u = np.take_along_axis(B, col[..., None, None], axis=-1)[..., 0]
    u = u / np.sqrt((u * u).sum(-1))[..., None]
    axial = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                      R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    u = np.where(((u * axial).sum(-1) < 0)[..., None], -u, u)
    sin_a = 0.5 * np.sqrt((axial * axial).sum(-1))
    return arctan2(sin_a, cos_a)[..., None] * u


def bushing_state(fm: Any, r: np.ndarray, A: np.ndarray, v: np.ndarray, w: np.ndarray
                  ) -> BushingState:
    """Every bushing of the force model ``fm`` at the state (r, A, v, w): arrays with the
    ground last (nb + 1 rows), centres of mass and world axes; leading axes carried."""
    bi, bj = fm.bu_bi, fm.bu_bj
    Ai, Aj = A[..., bi, :, :], A[..., bj, :, :]
    si = (Ai @ fm.bu_si[..., None])[..., 0]
    sj = (Aj @ fm.bu_sj[..., None])[..., 0]
    Rj = Aj @ fm.bu_aj
    RjT = np.swapaxes(Rj, -1, -2)
    gap = r[..., bi, :] + si - r[..., bj, :] - sj                 # P_I - P_J
    wi, wj = w[..., bi, :], w[..., bj, :]
    rel_v = v[..., bi, :] + cross(wi, si) - v[..., bj, :] - cross(wj, sj) - cross(wj, gap)
    disp = np.concatenate([(RjT @ gap[..., None])[..., 0],
                           rotation_vector(RjT @ Ai @ fm.bu_ai)], axis=-1)
    rate = np.concatenate([(RjT @ rel_v[..., None])[..., 0],
                           (RjT @ (wi - wj)[..., None])[..., 0]], axis=-1)
    load = fm.bu_pre - fm.bu_k * disp - fm.bu_c * rate
    return BushingState(si, sj + gap, Rj, disp, rate, load)


def world_loads(bs: BushingState) -> tuple[np.ndarray, np.ndarray]:
    """(on I, on J) (..., n, 6): force and moment about each part's centre of mass, world
    axes, of every bushing (F at P_I on I, -F at P_I on J)."""
    F = (bs.Rj @ bs.load[..., :3, None])[..., 0]
    T = (bs.Rj @ bs.load[..., 3:, None])[..., 0]
    on_i = np.concatenate([F, cross(bs.arm_i, F) + T], axis=-1)
    on_j = np.concatenate([-F, -cross(bs.arm_j, F) - T], axis=-1)
    return on_i, on_j


def potential(fm: Any, disp: np.ndarray) -> np.ndarray:
    """The bushings' stored energy (...,) J: d^T K d / 2 - preload . d over all six
    components (see the module's note on the rotational part)."""
    return (0.5 * fm.bu_k * disp * disp - fm.bu_pre * disp).sum((-1, -2))


def power(fm: Any, bs: BushingState) -> np.ndarray:
    """The bushings' power that the potential does not account for (...,) W: the dampers'
    -c rate^2, and the rotational stiffness and preload torque's T . (w_rel - theta_dot)."""
    damp = -(fm.bu_c * bs.rate * bs.rate).sum((-1, -2))
    theta, wrel = bs.disp[..., 3:], bs.rate[..., 3:]
    Tel = fm.bu_pre[..., 3:] - fm.bu_k[..., 3:] * theta
    return damp + (Tel * (wrel - theta_rate(theta, wrel))).sum((-1, -2))


def theta_rate(theta: np.ndarray, wrel: np.ndarray) -> np.ndarray:
    """theta_dot = J_l^-1(theta) w_rel for R = exp([theta x]) with R_dot = [w_rel x] R:
    w - theta x w / 2 + (1 / a^2 - (1 + cos a) / (2 a sin a)) theta x (theta x w), a = |theta|
    (Barfoot 2017, eq. 7.86; the coefficient's series 1/12 + a^2/720 near zero)."""
    a2 = (theta * theta).sum(-1)
    a = np.sqrt(a2)
    small = a < 1e-4
    safe = np.where(small, 1.0, a)
    coef = np.where(small, 1.0 / 12.0 + a2 / 720.0,
                    1.0 / np.where(small, 1.0, a2) - (1.0 + np.cos(safe)) / (2.0 * safe * np.sin(safe)))
    tw = cross(theta, wrel)
    return wrel - 0.5 * tw + coef[..., None] * cross(theta, tw)


def jacobian_blocks(fm: Any, r: np.ndarray, A: np.ndarray, v: np.ndarray, w: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(dQ/dq, dQ/dv) (..., n, 12, 12) of each bushing's loads on its two parts (rows: I's
    force and moment, then J's; columns: I's shift and world turn, then J's; as
    kernels/forces.py's force Jacobians) by central differences, all bushings and all 48
    perturbed states in two evaluations (steps 1e-6 m and rad: the translational law is
    linear, so only the rotation vector's curvature and rounding, about 1e-10 of the load,
    remain; the velocities enter linearly, exact to rounding)."""
    n = len(fm.bu_names)
    lead = r.shape[:-2]
    ends = np.concatenate([fm.bu_bi, fm.bu_bj])           # the 2n parts' own states
    rr, AA, vv, ww = r[..., ends, :], A[..., ends, :, :], v[..., ends, :], w[..., ends, :]
    h = 1e-6
    steps = np.zeros((24, 2, 6))                           # (perturbation, end, coordinate)
    for k in range(12):
        steps[2 * k, k // 6, k % 6], steps[2 * k + 1, k // 6, k % 6] = h, -h
    dpos = np.repeat(steps, n, axis=1).reshape((24,) + (1,) * len(lead) + (2 * n, 6))
    turn = quat_to_matrix(rotvec_to_quat(dpos[..., 3:]))
    own = _own_ends(fm, n)          # each bushing on its own two bodies: I ends, then J ends
    rq, Aq = rr + dpos[..., :3], turn @ AA
    vb, wb = np.broadcast_to(vv, rq.shape), np.broadcast_to(ww, rq.shape)
    on_q = np.concatenate(world_loads(bushing_state(own, rq, Aq, vb, wb)), axis=-1)
    rb, Ab = np.broadcast_to(rr, rq.shape), np.broadcast_to(AA, Aq.shape)
    on_v = np.concatenate(world_loads(bushing_state(own, rb, Ab, vv + dpos[..., :3],
                                                    ww + dpos[..., 3:])), axis=-1)
    return (np.moveaxis((on_q[0::2] - on_q[1::2]) / (2 * h), 0, -1),
            np.moveaxis((on_v[0::2] - on_v[1::2]) / (2 * h), 0, -1))


class _Bushings:
    """Bushings' arrays under other ends (a force model's fields ``bu_*``)."""

    def __init__(self, fm: Any, k: slice, bi: np.ndarray, bj: np.ndarray) -> None:
        for key in ("bu_si", "bu_sj", "bu_ai", "bu_aj", "bu_k", "bu_c", "bu_pre"):
            setattr(self, key, getattr(fm, key)[..., k, :] if key not in ("bu_ai", "bu_aj")
                    else getattr(fm, key)[..., k, :, :])
        self.bu_bi, self.bu_bj = bi, bj


def _own_ends(fm: Any, n: int) -> _Bushings:
    """All bushings with their ends renumbered 0..n-1 (I) and n..2n-1 (J), each on its own
    pair of bodies, so that perturbing one end moves one bushing."""
    return _Bushings(fm, slice(None), np.arange(n), np.arange(n, 2 * n))


def one_bushing(fm: Any, k: int) -> _Bushings:
    """Bushing k alone, on its own parts."""
    return _Bushings(fm, slice(k, k + 1), fm.bu_bi[k:k + 1], fm.bu_bj[k:k + 1])
