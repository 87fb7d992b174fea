"""A followed rotation without Blender (addon/io/follow_rotation.py): the rotation matrix of
every Euler mode and of a quaternion with its derivatives, and the body-fixed 1-2-3 angles
with theirs, against central differences; the angles rebuild the matrix; a keyed turn past
half a turn comes out unwrapped."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import quat_to_matrix
from test_io_addon import io

_rot = io("follow_rotation")
Constant, Timeline = io("follow").Constant, io("timeline").Timeline
EULER_MODES, KeyedTurn, elementary_jets, euler_jets = (
    _rot.EULER_MODES, _rot.KeyedTurn, _rot.elementary_jets, _rot.euler_jets)
quaternion_jets, zyx_angle_jets, zyx_angles = (
    _rot.quaternion_jets, _rot.zyx_angle_jets, _rot.zyx_angles)


def _euler(t: float) -> np.ndarray:
    """(3, 3) three angles (rows) as polynomials of t with their two derivatives."""
    return np.array([[0.3 + 0.7 * t + 0.2 * t * t, 0.7 + 0.4 * t, 0.4],
                     [-0.4 + 1.1 * t, 1.1, 0.0],
                     [0.9 - 0.5 * t * t, -t, -1.0]])


def _quaternion(t: float) -> np.ndarray:
    """(4, 3) quaternion components (not of unit length) with their two derivatives."""
    return np.array([[0.3 + 0.7 * t, 0.7, 0.0], [-0.5 + 0.2 * t * t, 0.4 * t, 0.4],
                     [0.7, 0.0, 0.0], [0.2 - t, -1.0, 0.0]])


@pytest.mark.parametrize("mode", EULER_MODES + ("QUATERNION",))
def test_matrix_and_angle_derivatives_are_the_central_differences(mode: str) -> None:
    """At t = 0.37, h = 1e-4: the first and second derivatives of the matrix and of the
    angles b1, b2, b3 equal their central differences to the differences' truncation
    (h^2 |f'''| ~ 1e-8) and rounding (eps / h^2 ~ 2e-8): 1e-6 allowed; Rx(b1) Ry(b2)
    Rz(b3) rebuilds the matrix to rounding."""
    f = (lambda t: quaternion_jets(_quaternion(t))) if mode == "QUATERNION" else \
        (lambda t: euler_jets(mode, _euler(t)))
    t, h = 0.37, 1e-4
    M, Mp, Mm = f(t), f(t + h), f(t - h)
    np.testing.assert_allclose(M[1], (Mp[0] - Mm[0]) / (2 * h), atol=1e-6)
    np.testing.assert_allclose(M[2], (Mp[0] - 2 * M[0] + Mm[0]) / h ** 2, atol=1e-6)
    b, bp, bm = zyx_angle_jets(M), zyx_angle_jets(Mp), zyx_angle_jets(Mm)
    np.testing.assert_allclose(b[1], (bp[0] - bm[0]) / (2 * h), atol=1e-6)
    np.testing.assert_allclose(b[2], (bp[0] - 2 * b[0] + bm[0]) / h ** 2, atol=1e-6)
    R = [elementary_jets(k, (b[0, k], 0.0, 0.0))[0] for k in range(3)]
    np.testing.assert_allclose(R[0] @ R[1] @ R[2], M[0], atol=1e-14)
    np.testing.assert_allclose(zyx_angles(M[0]), b[0], atol=1e-14)


def test_a_quaternion_of_any_length_is_the_solvers_rotation() -> None:
    """Blender normalizes a quaternion before it turns: three times a quaternion gives the
    solver's rotation of the unit one, to rounding."""
    q = np.array([0.3, -0.5, 0.7, 0.2])
    fixed = np.column_stack([3.0 * q, 0 * q, 0 * q])
    np.testing.assert_allclose(quaternion_jets(fixed)[0], quat_to_matrix(q / np.linalg.norm(q)),
                               atol=1e-15)


def test_a_keyed_turn_past_half_a_turn_is_unwrapped() -> None:
    """A target turning about J's x at 2.5 turns a second (one channel, a straight line of
    the frame) reads b1 = 5 pi t, continuous over the second (the matrix alone gives it
    wrapped into (-pi, pi]), rate 5 pi rad/s, no acceleration."""
    tl = Timeline(1, 25, 24.0)
    w = 5 * math.pi
    x = lambda frame: (w * (frame - 1) / 24, w / 24, 0.0)      # noqa: E731
    turn = KeyedTurn([x, Constant(0.0), Constant(0.0)], "XYZ", tl, np.eye(3), np.eye(3))
    ts = np.linspace(0.0, 1.0, 97)
    got = np.array([turn.at(t) for t in ts])
    np.testing.assert_allclose(got[:, 0, 0], w * ts, atol=1e-12)
    np.testing.assert_allclose(got[:, 1, 0], w, atol=1e-12)
    np.testing.assert_allclose(got[:, 2], 0.0, atol=1e-9)
