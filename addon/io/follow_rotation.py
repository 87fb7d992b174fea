"""A marker that turns with the object it follows: the target's orientation relative to
marker J as the body-fixed 1-2-3 angles (b1, b2, b3) of the solver's general motion,
C_J^T C_T = Rx(b1) Ry(b2) Rz(b3) (Blender's Euler mode 'ZYX' of that matrix), with their
first and second derivatives.  No bpy here: the caller passes the keyed channels or the
sampled matrices.

Two sources, as for the path (io/follow.py):
- ``KeyedTurn``: the target's own keyed rotation channels (an Euler mode's three angles or a
  quaternion's four components), evaluated exactly with their derivatives; the rotation
  matrix and its first two derivatives follow by the product rule, and the angles' by the
  derivatives of atan2 (``zyx_angle_jets``), so the solver reads b, b', b'' exactly.
- sampled: ``zyx_angles`` of the sampled relative matrices, unwrapped (``unwrap``) so that a
  target turning on past half a turn gives continuous angles, through io/follow.SplinePath.

Both unwrap: an angle read from a matrix lies in (-pi, pi]; one that turns on is carried
by whole turns to stay within half a turn of its neighbour one frame earlier.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ...solver import arctan2
from .follow import FollowAxis
from .timeline import Timeline

ANGLES = ("b1", "b2", "b3")
# Blender's Euler modes: the rotation matrix is R_c R_b R_a for mode "abc" (the first
# letter's turn applied first, about the fixed axes)
EULER_MODES = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")

Channel = Callable[[float], tuple[float, float, float]]


def elementary_jets(axis: int, angle: Sequence[float]) -> np.ndarray:
    """(3, 3, 3): the rotation matrix about the coordinate axis ``axis`` (0, 1, 2) by the
    angle whose value, first and second derivative are ``angle``, and the matrix's first
    and second derivatives: R' = K R a', R'' = K R a'' + K^2 R a'^2 (K: the axis's cross
    product matrix, which commutes with R)."""
    a, da, dda = (float(x) for x in angle)
    R = np.eye(3)
    i, j = (axis + 1) % 3, (axis + 2) % 3
    c, s = np.cos(a), np.sin(a)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    K = np.zeros((3, 3))
    K[j, i], K[i, j] = 1.0, -1.0
    KR = K @ R
    return np.stack([R, KR * da, KR * dda + K @ KR * da * da])


def product_jets(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """(3, 3, 3): the matrix product A B with its first and second derivatives (Leibniz:
    (AB)'' = A''B + 2A'B' + AB''), from A, B each (value, first, second derivative)."""
    return np.stack([A[0] @ B[0], A[1] @ B[0] + A[0] @ B[1],
                     A[2] @ B[0] + 2.0 * A[1] @ B[1] + A[0] @ B[2]])


def euler_jets(mode: str, channels: np.ndarray) -> np.ndarray:
    """(3, 3, 3): Blender's Euler rotation matrix of ``mode`` (EULER_MODES) and its
    derivatives; ``channels`` (3, 3): row k the value, first and second derivative of the
    angle about x, y, z (rad).  Mode "abc" is R_c R_b R_a."""
    first, second, third = ("XYZ".index(a) for a in mode)
    out = elementary_jets(first, channels[first])
    out = product_jets(elementary_jets(second, channels[second]), out)
    return product_jets(elementary_jets(third, channels[third]), out)


def _quadratic(q: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The symmetric bilinear form B(q, p) with B(q, q) = |q|^2 R(q / |q|): the rotation
    matrix of a quaternion (w, x, y, z) times its squared norm (the Euler-parameter
    rotation matrix, Haug 1989, ch. 6)."""
    w, x, y, z = q
    a, b, c, d = p
    return np.array([
        [w * a + x * b - y * c - z * d, x * c + y * b - w * d - z * a, x * d + z * b + w * c + y * a],
        [x * c + y * b + w * d + z * a, w * a - x * b + y * c - z * d, y * d + z * c - w * b - x * a],
        [x * d + z * b - w * c - y * a, y * d + z * c + w * b + x * a, w * a - x * b - y * c + z * d]])


def quaternion_jets(channels: np.ndarray) -> np.ndarray:
    """(3, 3, 3): the rotation matrix of a quaternion whose components (w, x, y, z) need not
    have unit norm (Blender normalizes before it turns: R = B(q, q) / q.q) and its
    derivatives; ``channels`` (4, 3): each component's value, first and second derivative."""
    q, dq, ddq = channels[:, 0], channels[:, 1], channels[:, 2]
    N = np.stack([_quadratic(q, q), 2.0 * _quadratic(q, dq),
                  2.0 * (_quadratic(dq, dq) + _quadratic(q, ddq))])
    s = np.array([q @ q, 2.0 * q @ dq, 2.0 * (dq @ dq + q @ ddq)])
    if s[0] <= 0.0:
        raise ValueError("a quaternion of zero length has no rotation")
    R = N[0] / s[0]
    dR = (N[1] - R * s[1]) / s[0]
    return np.stack([R, dR, (N[2] - 2.0 * dR * s[1] - R * s[2]) / s[0]])


def still_matrix(mode: str, values: Sequence[float]) -> np.ndarray:
    """(3, 3) the rotation matrix of constant Euler angles (an Euler ``mode``) or quaternion
    components ("QUATERNION"): a target's delta rotation."""
    v = np.asarray(values, dtype=float)
    fixed = np.column_stack([v, np.zeros_like(v), np.zeros_like(v)])
    return (quaternion_jets(fixed) if mode == "QUATERNION" else euler_jets(mode, fixed))[0]


def _atan2_jet(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(3,) atan2(y, x) with its derivatives from y, x each (value, first, second):
    theta' = (x y' - y x') / r^2, theta'' = (x y'' - y x'') / r^2 - 2 theta' (x x' + y y') / r^2."""
    r2 = x[0] ** 2 + y[0] ** 2
    d = (x[0] * y[1] - y[0] * x[1]) / r2
    dd = (x[0] * y[2] - y[0] * x[2]) / r2 - 2.0 * d * (x[0] * x[1] + y[0] * y[1]) / r2
    return np.array([arctan2(y[0], x[0]), d, dd])


def _hypot_jet(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(3,) sqrt(x^2 + y^2) with its derivatives: h' = (x x' + y y') / h,
    h'' = (x'^2 + y'^2 + x x'' + y y'' - h'^2) / h."""
    h = np.hypot(x[0], y[0])
    d = (x[0] * x[1] + y[0] * y[1]) / h
    return np.array([h, d, (x[1] ** 2 + y[1] ** 2 + x[0] * x[2] + y[0] * y[2] - d * d) / h])


def zyx_angle_jets(M: np.ndarray) -> np.ndarray:
    """(3, 3): rows value, first, second derivative; columns b1, b2, b3, of the body-fixed
    1-2-3 angles of the rotation M = Rx(b1) Ry(b2) Rz(b3) given with its derivatives (3, 3, 3):
    b1 = atan2(-M12, M22), b2 = atan2(M02, |(M12, M22)|), b3 = atan2(-M01, M00) (as the
    solver's euler_angles).  At b2 = +-90 deg b1 and b3 are undefined (the solver refuses)."""
    m = lambda i, j: M[:, i, j]                 # noqa: E731  (value, d, dd) of one entry
    b1 = _atan2_jet(-m(1, 2), m(2, 2))
    b2 = _atan2_jet(m(0, 2), _hypot_jet(m(1, 2), m(2, 2)))
    b3 = _atan2_jet(-m(0, 1), m(0, 0))
    return np.stack([b1, b2, b3], axis=1)


def zyx_angles(M: np.ndarray) -> np.ndarray:
    """(..., 3) the body-fixed 1-2-3 angles (b1, b2, b3) of rotation matrices M (..., 3, 3),
    each in (-pi, pi] (zyx_angle_jets' formulas, values only)."""
    return np.stack([arctan2(-M[..., 1, 2], M[..., 2, 2]),
                     arctan2(M[..., 0, 2], np.hypot(M[..., 1, 2], M[..., 2, 2])),
                     arctan2(-M[..., 0, 1], M[..., 0, 0])], axis=-1)


def unwrap(angles: np.ndarray) -> np.ndarray:
    """(n, 3) angles in time order carried by whole turns so that each is within half a
    turn of the one before (np.unwrap along the time axis)."""
    return np.unwrap(np.asarray(angles, dtype=float), axis=0)


def nearest_turn(angle: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``angle`` (3,) moved by whole turns to be within half a turn of ``reference`` (3,)."""
    return angle + 2.0 * np.pi * np.round((reference - angle) / (2.0 * np.pi))


class KeyedTurn:
    """The target's orientation relative to marker J from its keyed rotation channels, as
    the angles b1, b2, b3 with their derivatives.  ``channels``: functions of the scene
    frame giving (value, d/dframe, d2/dframe2): three Euler angles (x, y, z, rad) for an
    Euler ``mode``, or four quaternion components (w, x, y, z) for "QUATERNION";
    ``before``: the constant matrix applied after the keyed rotation (the target's delta
    rotation: world = delta @ keyed); ``rotation``: J's axes as world columns.  ``at(t)``
    gives (3, 3): rows value, d/dt, d2/dt2 (rad, rad/s, rad/s^2), columns b1, b2, b3,
    unwrapped against the angles at the scene's frames."""

    def __init__(self, channels: Sequence[Channel], mode: str, timeline: Timeline,
                 rotation: np.ndarray, before: np.ndarray) -> None:
        if mode not in EULER_MODES + ("QUATERNION",):
            raise ValueError(f"rotation mode {mode!r} is not an Euler mode or a quaternion")
        self.channels, self.mode, self.timeline = tuple(channels), mode, timeline
        self.fixed = np.asarray(rotation, dtype=float).T @ np.asarray(before, dtype=float)
        self._frames = np.arange(timeline.frame_start, timeline.frame_end + 1, dtype=float)
        self._reference = unwrap([self._raw(f)[0] for f in self._frames])

    def _raw(self, frame: float) -> np.ndarray:
        """(3, 3) the angles (in (-pi, pi]) and their derivatives per frame at ``frame``."""
        values = np.array([ch(frame) for ch in self.channels], dtype=float)
        R = quaternion_jets(values) if self.mode == "QUATERNION" else euler_jets(self.mode, values)
        return zyx_angle_jets(np.einsum("ij,kjl->kil", self.fixed, R))

    def at(self, t: float) -> np.ndarray:
        """(3, 3): rows b, b' (rad/s), b'' (rad/s^2); columns b1, b2, b3, at time t (s)."""
        frame = self.timeline.frame_of(t)
        out = self._raw(frame)
        reference = np.array([np.interp(frame, self._frames, r) for r in self._reference.T])
        out[0] = nearest_turn(out[0], reference)
        fps = self.timeline.fps
        out[1] *= fps
        out[2] *= fps * fps
        return out

    def angles(self, ts: Sequence[float]) -> np.ndarray:
        """(len(ts), 3) the angles (rad) at many times (whether the target turns at all)."""
        return np.array([self.at(t)[0] for t in np.asarray(ts, dtype=float)])


def angle_fitting_error(spline_angles: np.ndarray, angles: np.ndarray) -> float:
    """Largest difference (rad) between a spline's angles and the true ones (n, 3), both
    unwrapped the same way (whole turns taken out)."""
    if len(angles) == 0:
        return 0.0
    gap = np.asarray(spline_angles) - np.asarray(angles)
    return float(np.max(np.abs(gap - 2.0 * np.pi * np.round(gap / (2.0 * np.pi)))))


def angle_functions(turn, angles: Sequence[bool], label: str) -> dict:
    """{"b1": f, ...} for each angle ticked in ``angles`` (b1, b2, b3), the keywords of
    add_general_motion: functions of solver time that the solver differentiates exactly
    (io/follow.FollowAxis over ``turn``'s columns)."""
    return {a: FollowAxis(turn, i, f"{label} {a}") for i, a in enumerate(ANGLES) if angles[i]}
